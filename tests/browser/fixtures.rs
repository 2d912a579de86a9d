//! Every fixture case played through the real runtime, in real time, against the scenario API.

use crate::support::*;

/// Every shipped case and every edge case, in real time, a few at a time ([`AT_ONCE`]), each in
/// one of the two browsers the suites run in ([`played_here`]). Left out, because a real wire cannot stage them:
/// - `leave-at-the-instant-of-an-answer`: a tie of two events to the millisecond;
/// - `wait-fits-attempt-does-not`: its second answer comes exactly at the attempt's cap, a tie
///   the model accepts and a real wire decides by a millisecond of latency either way (the
///   runtime's quicker wake once lost it);
/// - `sub-second-date-difference-rounds-up`: sub-second rounding against the local clock; on the
///   wire the server's `Date` (whole seconds, and preferred as evidence) dates the receipt;
/// - `endless-body-past-the-limit`: reading the 1 MiB the limit allows takes tens of
///   milliseconds on a real clock (more in Firefox), which takes its stop close to the edge of
///   the tolerance; `a_body_with_no_end_is_not_read_whole` plays it instead, in both browsers.
const NOT_ON_THE_WIRE: [&str; 4] = [
    "leave-at-the-instant-of-an-answer",
    "wait-fits-attempt-does-not",
    "sub-second-date-difference-rounds-up",
    "endless-body-past-the-limit",
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

/// Whether this browser plays the case at `position`: Chromium the even ones, Firefox the odd
/// ones. Each case needs tens of seconds of real time at most, and every one of them is held to
/// the model natively and as wasm32 before this suite runs; what the wire adds (fetch, abort,
/// timers) is the same code in every case, and the other suites run it in both browsers. So
/// each browser plays half, and the stage waits for half as long (about 50 s less).
fn played_here(position: usize) -> bool {
    let firefox = web_sys::window()
        .and_then(|w| w.navigator().user_agent().ok())
        .is_some_and(|agent| agent.contains("Firefox"));
    position % 2 == usize::from(firefox)
}

#[wasm_bindgen_test]
async fn every_fixture_case_in_one_of_the_two_browsers() {
    let cases: Vec<Case> = common::SINGLE_READS
        .iter()
        .flat_map(|text| Fixture::parse(text).unwrap().cases)
        .flatten()
        .filter(|case| !NOT_ON_THE_WIRE.contains(&case.id.as_str()))
        .collect();
    assert_eq!(cases.len(), 13 + 15 + 4 + 8);
    let cases: Vec<Case> = (cases.into_iter().enumerate())
        .filter_map(|(position, case)| played_here(position).then_some(case))
        .collect();
    assert_eq!(cases.len(), 20);
    let mut failures = Vec::new();
    for batch in cases.chunks(AT_ONCE) {
        let played = futures::future::join_all(batch.iter().map(play)).await;
        failures.extend(played.into_iter().filter_map(Result::err));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
