//! Fixture cases played through the real runtime, in real time, against the scenario API: one
//! case for each thing the wire does differently.

use crate::support::*;

/// The cases the wire plays, one for each way an attempt meets the wire or the page's clock:
/// the rules of every case (all 44 of the four files) are held to the model natively, and
/// again as wasm32 in Chromium (the `wasm` stage); what a case adds here is the fetch, the
/// abort and the timers, which are the same code in every case. Shortest first, as they play a
/// few at a time ([`AT_ONCE`]).
const ON_THE_WIRE: [&str; 12] = [
    // An answer without CORS headers: the page sees a network error, never the response.
    "transport-failure",
    // A status that is not retried, and a 2xx whose body is read and found cut short.
    "non-retryable-status",
    "json-cut-short",
    // `Retry-After` in seconds, twice, then the data: the page's timer wakes the retries.
    "quick-429s-then-palettes",
    // A wait past the budget: the action stops at once, nothing more is sent.
    "wait-exceeds-budget",
    // `Retry-After` as an HTTP date in the past, dated by the server's `Date`.
    "past-date-waits-the-floor",
    // The user leaves with a request in flight: aborted on the wire, its late answer dropped.
    "leave-in-flight-drops-the-late-answer",
    // An attempt that never answers, aborted at its cap by the page's timer.
    "no-answer-is-aborted-at-the-cap",
    // A 429, then a 2xx whose body is an HTML page.
    "a-429-then-an-html-200",
    // The user leaves during a wait: the timer cleared, nothing sent.
    "user-leaves-while-waiting",
    // No `Retry-After`: the policy's own wait.
    "missing-header",
    // A date `Retry-After` read against the server's `Date` alone.
    "the-response-date-is-enough",
];

/// Plays one case in real time, staged as its fixture says, then holds the trace against its
/// `expect` (within the tolerance) and the server's count against the model's.
async fn play(case: &Case) -> Result<(), String> {
    let base = post_run(&case.id).await;
    let (read, _mounted) = mount_hook(
        palettes_url(&base, "coast"),
        case.client_policy(),
        Some(case.clone()),
    );
    let limit = now() + case.policy.budget() + Duration::from_secs(6);
    let report = loop {
        tick().await;
        if let Some(r) = report_of(&read.state.get_untracked()) {
            break r;
        }
        if now() > limit {
            return Err(format!("{}: did not stop in time", case.id));
        }
        sleep(Duration::from_millis(10)).await;
    };
    let replay = Replay {
        id: case.id.clone(),
        budget: case.policy.budget(),
        trace: read.trace_untracked(),
        report,
    };
    let expect = case.expect.as_ref().ok_or("every case has an expect")?;
    let compared = compare(
        expect,
        &replay.to_json(),
        Comparison::RealTime {
            tolerance: TOLERANCE,
        },
    );
    let mut problems: Vec<String> = compared
        .mismatches
        .iter()
        .map(|m| format!("{}: expected {}, got {}", m.key, m.expected, m.got))
        .collect();
    // Counted on the wire: exactly as many requests as the model starts attempts.
    sleep(Duration::from_millis(100)).await;
    let saw = server_saw(&base).await;
    let starts = palette_list_model::replay(case)
        .map_err(|e| e.to_string())?
        .starts()
        .len();
    if saw.len() != starts {
        problems.push(format!(
            "server saw {} requests {saw:?}, expected {starts}",
            saw.len()
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}: {}", case.id, problems.join("; ")))
    }
}

/// How many cases play at once. Each plays on a run of its own, read on a scope of its own
/// ([`mount_hook`]), so no case's block or quota reaches another. A browser opens at most six
/// connections to one origin (Chromium and Firefox alike) and queues the rest, which delays
/// answers by seconds: three cases, each with at most one request in flight and one to the
/// scenario API around it, stay within that.
const AT_ONCE: usize = 3;

#[wasm_bindgen_test]
async fn a_case_for_each_way_an_attempt_meets_the_wire() {
    let all: Vec<Case> = common::SINGLE_READS
        .iter()
        .flat_map(|text| Fixture::parse(text).unwrap().cases)
        .flatten()
        .collect();
    assert_eq!(all.len(), 44);
    let cases: Vec<&Case> = (ON_THE_WIRE.iter())
        .map(|id| all.iter().find(|case| case.id == *id).expect(id))
        .collect();
    let mut failures = Vec::new();
    for batch in cases.chunks(AT_ONCE) {
        let played = futures::future::join_all(batch.iter().map(|case| play(case))).await;
        failures.extend(played.into_iter().filter_map(Result::err));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
