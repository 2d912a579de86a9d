//! The browser runtime and the components in headless Chromium and Firefox, in real time, against the
//! scenario API on loopback (started by `scripts/test.sh`, which bakes its URL in at compile
//! time as `SCENARIO_API`). The server counts requests on the wire.
#![cfg(target_arch = "wasm32")]

#[path = "../model/tests/common/mod.rs"]
mod common;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use leptos::mount::mount_to;
use leptos::prelude::*;
use leptos::task::tick;
use leptos_retry_budget::runtime::{now, provide_scope_policy};
use palette_list::palettes::{palettes_url, PaletteCollection};
use palette_list::{
    use_budgeted_get, use_budgeted_read, BudgetedRead, PaletteList, PaletteListView, ReadRequest,
    ReadState, TracePanel,
};
use palette_list_demo::live;
use palette_list_model::expect::{compare, line_matches, Comparison};
use palette_list_model::{Case, Fixture, Replay};
use retry_budget::{HeldBy, Outcome, Priority, RetryPolicy, RetryTokens, ScopePolicy, StopReport};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// How far the real runtime may be from the fixture's times.
const TOLERANCE: Duration = Duration::from_millis(150);

/// A line of the stop message on a real clock: its durations within [`TOLERANCE`] (and the tenth
/// they are rounded to), everything else exactly.
fn assert_line(got: &str, expected: &str) {
    let real = Comparison::RealTime {
        tolerance: TOLERANCE,
    };
    assert!(
        line_matches(expected, got, real),
        "expected {expected:?}, got {got:?}"
    );
}

fn api() -> &'static str {
    match option_env!("SCENARIO_API") {
        Some(url) => url,
        None => panic!(
            "SCENARIO_API is not set: run the browser tests with scripts/test.sh, which starts the scenario API"
        ),
    }
}

fn case(id: &str) -> Case {
    common::SINGLE_READS
        .iter()
        .flat_map(|t| Fixture::parse(t).unwrap().cases)
        .flatten()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no case {id}"))
}

async fn post_run(scenario: &str) -> String {
    post_run_query(&format!("scenario={scenario}")).await
}

/// A new run on the scenario API, created with this query; returns its palettes prefix.
async fn post_run_query(query: &str) -> String {
    live::new_run(api(), query)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// What the server saw in a run: each request's state ("answered", "aborted", "in_flight").
async fn server_saw(base: &str) -> Vec<String> {
    live::server_requests(base)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|r| r.state)
        .collect()
}

async fn sleep(d: Duration) {
    gloo_timers::future::TimeoutFuture::new(d.as_millis() as u32).await;
}

fn fresh_element() -> web_sys::HtmlElement {
    let document = document();
    let el = document.create_element("section").unwrap();
    document.body().unwrap().append_child(&el).unwrap();
    el.unchecked_into()
}

fn text(root: &web_sys::HtmlElement, testid: &str) -> Option<String> {
    root.query_selector(&format!("[data-testid={testid}]"))
        .unwrap()
        .and_then(|e| e.text_content())
}

/// Polls `f` every 20 ms until it gives `Some`, or fails after `limit`.
async fn wait_for<T>(limit: Duration, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let end = now() + limit;
    loop {
        tick().await;
        if let Some(v) = f() {
            return v;
        }
        assert!(now() < end, "timed out waiting for {what}");
        sleep(Duration::from_millis(20)).await;
    }
}

fn report_of(state: &ReadState<PaletteCollection>) -> Option<StopReport> {
    match state {
        ReadState::Loaded { report, .. } | ReadState::Stopped(report) => Some(report.clone()),
        _ => None,
    }
}

/// A fresh run of `scenario` on the server, and the Palette List screen mounted on it.
async fn screen(scenario: &str) -> (String, web_sys::HtmlElement, impl Drop) {
    screen_with(&format!("scenario={scenario}"), None).await
}

/// A screen 1 s into attempt 1, which takes 2 s on the server: a request in flight to leave.
async fn one_second_into_a_slow_attempt() -> (String, web_sys::HtmlElement, impl Drop) {
    let (base, root, handle) = screen("schedule-a-seconds").await;
    wait_for(Duration::from_secs(1), "attempt 1", || {
        text(&root, "attempt")
    })
    .await;
    sleep(Duration::from_secs(1)).await;
    (base, root, handle)
}

/// The same, for a run created with `query`, under `policy` (default: the SPEC's): the screen
/// with its trace panel, as the demo shows it.
async fn screen_with(
    query: &str,
    policy: Option<RetryPolicy>,
) -> (String, web_sys::HtmlElement, impl Drop) {
    let base = post_run_query(query).await;
    let root = fresh_element();
    let url = palettes_url(&base, "coast");
    let handle = mount_to(root.clone(), move || {
        // Each run is its own API: its own scope, so one test's 429 holds back no other.
        let policy = policy.unwrap_or_default().with_scope(url.clone());
        let id = url.clone();
        let read = use_budgeted_read(ReadRequest::get(url), policy, PaletteCollection::from_json);
        view! {
            <PaletteListView read collection="coast">
                <TracePanel read id />
            </PaletteListView>
        }
    });
    (base, root, handle)
}

/// A fresh run of `scenario`, and `<PaletteList>` mounted on it exactly as an app embeds it.
async fn embedded(scenario: &str) -> (String, web_sys::HtmlElement, impl Drop) {
    let base = post_run(scenario).await;
    let root = fresh_element();
    let api_base = base.clone();
    let handle = mount_to(root.clone(), move || {
        let policy = RetryPolicy::new().with_scope(api_base.clone());
        view! { <PaletteList collection="coast" api_base=api_base policy /> }
    });
    (base, root, handle)
}

/// Clicks the button with this `data-testid`, as a user would.
fn click(root: &web_sys::HtmlElement, testid: &str) {
    let button: web_sys::HtmlElement = root
        .query_selector(&format!("[data-testid={testid}]"))
        .unwrap()
        .unwrap_or_else(|| panic!("no {testid} button"))
        .unchecked_into();
    button.click();
}

/// Mounts the hook alone and hands it to the test; with a `case`, stages its leave and late
/// timers for real ([`live::stage`]), as the demo's Scenarios page does.
fn mount_hook(
    url: String,
    policy: RetryPolicy,
    stage: Option<Case>,
) -> (BudgetedRead<PaletteCollection>, impl Drop) {
    let slot = Rc::new(RefCell::new(None));
    let inner = slot.clone();
    let handle = mount_to(fresh_element(), move || {
        // Each run is its own API: its own scope, so one test's 429 holds back no other.
        let policy = policy.with_scope(url.clone());
        let read = use_budgeted_get::<PaletteCollection>(ReadRequest::get(url), policy);
        if let Some(case) = &stage {
            live::stage(case, read);
        }
        inner.replace(Some(read));
        view! { <p>{move || format!("{:?}", read.state.get())}</p> }
    });
    let read = slot.borrow().expect("the hook ran at mount");
    (read, handle)
}

/// A fresh run of scenario `id`, read by the hook under the case's policy (nothing staged) until
/// it stops, within 6 s; the run's prefix and how the read ended.
async fn run_to_stop(id: &str) -> (String, StopReport) {
    let case = case(id);
    let base = post_run(&case.id).await;
    let (read, _mounted) = mount_hook(palettes_url(&base, "coast"), case.client_policy(), None);
    let report = wait_for(Duration::from_secs(6), "the stop", || {
        report_of(&read.state.get_untracked())
    })
    .await;
    (base, report)
}

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

/// Every shipped case and every edge case, one after the other in real time (a few minutes).
/// Left out, because a real wire cannot stage them:
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

#[wasm_bindgen_test]
async fn every_fixture_case_through_the_real_runtime() {
    let mut failures = Vec::new();
    let mut played = 0;
    for text in common::SINGLE_READS {
        for case in Fixture::parse(text).unwrap().cases.into_iter().flatten() {
            if NOT_ON_THE_WIRE.contains(&case.id.as_str()) {
                continue;
            }
            played += 1;
            if let Err(e) = play(&case).await {
                failures.push(e);
            }
        }
    }
    assert_eq!(played, 13 + 15 + 4 + 8);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[wasm_bindgen_test]
async fn leaving_by_unmount_sends_nothing_more() {
    // 429 at 2 asks for 8 s: the retry would go out at 10. The screen unmounts at 5.
    let (base, root, handle) = screen("user-leaves-while-waiting").await;
    let t0 = now();
    wait_for(Duration::from_secs(4), "the countdown", || {
        text(&root, "countdown")
    })
    .await;
    sleep((t0 + Duration::from_secs(5)).saturating_sub(now())).await;
    drop(handle);
    assert_eq!(root.inner_html(), "", "unmounted");
    // Past the time the retry would have gone out.
    sleep((t0 + Duration::from_millis(11_000)).saturating_sub(now())).await;
    assert_eq!(server_saw(&base).await, ["answered"]);
}

#[wasm_bindgen_test]
async fn unmounting_in_flight_aborts_on_the_wire() {
    // The screen unmounts with its fetch under way: leaving is the owner's cleanup, not the
    // end of the fetch that still holds the read.
    let (base, root, handle) = one_second_into_a_slow_attempt().await;
    drop(handle);
    assert_eq!(root.inner_html(), "", "unmounted");
    // Past the time the server would have answered.
    sleep(Duration::from_millis(1_700)).await;
    assert_eq!(server_saw(&base).await, ["aborted"]);
}

#[wasm_bindgen_test]
async fn leaving_in_flight_aborts_on_the_wire_and_the_late_answer_is_never_shown() {
    let (base, root, _mounted) = one_second_into_a_slow_attempt().await;
    click(&root, "cancel");
    let stop = wait_for(Duration::from_secs(1), "the stop", || {
        text(&root, "stop-outcome")
    })
    .await;
    assert_eq!(stop, "Stopped: you left before the read finished.");
    assert_eq!(
        text(&root, "stop-detail").unwrap(),
        "The request in flight was cancelled; the service may still have processed it."
    );
    // Past the time the server would have answered: the abort is on the wire, the view is as it was.
    sleep(Duration::from_millis(1_700)).await;
    assert_eq!(server_saw(&base).await, ["aborted"]);
    assert_eq!(text(&root, "stop-outcome").unwrap(), stop);
    // Cancelled about 1 s in: how much later than 1 s is the browser's timing, not the library's
    // (a loaded Firefox once took 1.1 s), so the elapsed time is read, not matched.
    let last = text(&root, "stop-last-response").unwrap();
    let elapsed = last
        .strip_prefix("Last response: none. Attempts: 1 of 3. Elapsed: ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<f64>().ok());
    assert!(elapsed.is_some_and(|s| (1.0..=1.3).contains(&s)), "{last}");
    assert!(text(&root, "palettes").is_none());
    assert!(!text(&root, "trace").unwrap().contains("answered"));
}

#[wasm_bindgen_test]
async fn a_server_that_never_answers_is_aborted_at_the_cap() {
    let (base, report) = run_to_stop("no-answer-is-aborted-at-the-cap").await;
    assert_eq!(report.outcome, Outcome::AttemptTimedOut);
    assert!(
        report.at.abs_diff(Duration::from_millis(3500)) <= TOLERANCE,
        "{:?}",
        report.at
    );
    sleep(Duration::from_millis(200)).await;
    assert_eq!(server_saw(&base).await, ["answered", "aborted"]);
}

#[wasm_bindgen_test]
async fn the_wait_exceeds_message_is_the_specs_exactly() {
    // The screen as an app embeds it: what the user sees, and no trace.
    let (base, root, _mounted) = embedded("wait-exceeds-budget").await;
    wait_for(Duration::from_secs(4), "the stop", || {
        text(&root, "stop-outcome")
    })
    .await;
    assert_eq!(
        [
            text(&root, "stop-outcome").unwrap(),
            text(&root, "stop-detail").unwrap(),
        ],
        [
            "Stopped: retry budget cannot fit another request.",
            "The service requested a 30-second delay. No retry was sent.",
        ]
    );
    // The 429 comes 2 s in; when the browser reads it is its timing, not the library's.
    assert_line(
        &text(&root, "stop-last-response").unwrap(),
        "Last response: 429. Attempts: 1 of 3. Elapsed: 2 seconds.",
    );
    assert_eq!(server_saw(&base).await, ["answered"], "no retry was sent");
    assert!(
        text(&root, "trace").is_none(),
        "the embedded screen has no trace panel"
    );
}

#[wasm_bindgen_test]
async fn the_countdown_ticks_down_and_says_why() {
    // 429 at 2 asks for 8 s: the countdown runs from 2 to 10.
    let (base, root, _mounted) = screen("user-leaves-while-waiting").await;
    let first = wait_for(Duration::from_secs(4), "the countdown", || {
        text(&root, "countdown")
    })
    .await;
    assert_eq!(first, "Attempt 2 of 3 in 8 s");
    assert_eq!(
        text(&root, "wait-reason").unwrap(),
        "The service asked for 8 s."
    );
    sleep(Duration::from_millis(2_100)).await;
    tick().await;
    assert_eq!(text(&root, "countdown").unwrap(), "Attempt 2 of 3 in 6 s");
    click(&root, "cancel");
    sleep(Duration::from_millis(100)).await;
    assert_eq!(server_saw(&base).await, ["answered"]);
}

#[wasm_bindgen_test]
async fn palettes_appear_with_their_swatches() {
    // 429 with no Retry-After at 2: the 2 s fallback, then the list at 6.
    let (base, root, _mounted) = screen("missing-header").await;
    assert_eq!(
        wait_for(Duration::from_secs(1), "attempt 1", || text(
            &root, "attempt"
        ))
        .await,
        "Attempt 1 of 3"
    );
    let why = wait_for(Duration::from_secs(3), "the fallback wait", || {
        text(&root, "wait-reason")
    })
    .await;
    assert_eq!(
        why,
        "The service gave no usable hint; waiting the 2 s fallback."
    );
    assert_eq!(
        wait_for(Duration::from_secs(3), "attempt 2", || text(
            &root, "attempt"
        ))
        .await,
        "Attempt 2 of 3"
    );
    wait_for(Duration::from_secs(4), "the palettes", || {
        text(&root, "palettes")
    })
    .await;
    let items = root.query_selector_all("[data-testid=palette]").unwrap();
    assert_eq!(items.length(), 4);
    assert!(text(&root, "palettes").unwrap().contains("Tide Pool"));
    assert_eq!(root.query_selector_all(".swatch").unwrap().length(), 16);
    // Painted by the fill attribute, which no style-src blocks: the computed fill is a colour.
    let rect = root.query_selector(".swatch rect").unwrap().unwrap();
    let fill = web_sys::window()
        .unwrap()
        .get_computed_style(&rect)
        .unwrap()
        .unwrap()
        .get_property_value("fill")
        .unwrap();
    assert!(
        fill.starts_with("rgb("),
        "the first swatch is painted: {fill}"
    );
    assert!(text(&root, "trace")
        .unwrap()
        .contains("Retry-After missing (cross-origin"));
    assert_eq!(server_saw(&base).await, ["answered", "answered"]);
}

#[wasm_bindgen_test]
async fn try_again_is_a_new_action_that_still_honours_the_apis_wait() {
    let (base, root, _mounted) = screen("wait-exceeds-budget").await;
    wait_for(Duration::from_secs(4), "the stop", || {
        text(&root, "stop-outcome")
    })
    .await;
    // Nothing starts by itself.
    sleep(Duration::from_millis(500)).await;
    assert_eq!(server_saw(&base).await.len(), 1);
    click(&root, "retry");
    tick().await;
    // A new action, attempt 1 of 3 again, with a fresh 20 s budget; but the service asked
    // every request to this API to wait 30 s, 27.5 of which remain, and the page's ledger
    // remembers: it stops at once, before any request, and says why.
    let last = wait_for(Duration::from_secs(2), "the second stop", || {
        text(&root, "stop-last-response").filter(|t| t.contains("Attempts: 0 of 3"))
    })
    .await;
    assert_eq!(
        last,
        "Last response: none. Attempts: 0 of 3. Elapsed: 0 seconds."
    );
    let detail = text(&root, "stop-detail").unwrap();
    assert!(
        detail.starts_with(
            "The service asked every request to this API to wait, and that wait ends in 2"
        ) && detail.ends_with("past this read's budget. No request was sent."),
        "{detail}"
    );
    assert_eq!(server_saw(&base).await.len(), 1);
}

#[wasm_bindgen_test]
async fn a_retry_after_hidden_by_cors_is_handled_as_missing() {
    // Schedule A asks for 3 s, but this run does not expose Retry-After (nor Date) to the page.
    let (base, root, _mounted) = screen_with("scenario=schedule-a-seconds&expose=none", None).await;
    let why = wait_for(Duration::from_secs(4), "the wait", || {
        text(&root, "wait-reason")
    })
    .await;
    assert_eq!(
        why,
        "The service gave no usable hint; waiting the 2 s fallback."
    );
    assert!(
        text(&root, "trace").unwrap().contains(
            "Retry-After missing (cross-origin: the server may send it without exposing it)"
        ),
        "{:?}",
        text(&root, "trace")
    );
    click(&root, "cancel");
    sleep(Duration::from_millis(100)).await;
    assert_eq!(server_saw(&base).await, ["answered"]);
}

#[wasm_bindgen_test]
async fn an_invalid_policy_is_refused_before_any_request() {
    let invalid = RetryPolicy::new().with_max_attempts(0);
    let (base, root, _mounted) = screen_with("scenario=schedule-a-seconds", Some(invalid)).await;
    let refused = wait_for(Duration::from_secs(1), "the refusal", || {
        text(&root, "refused")
    })
    .await;
    assert_eq!(
        refused,
        "This read is misconfigured: max_attempts is 0: at least one attempt is needed"
    );
    sleep(Duration::from_millis(300)).await;
    assert!(server_saw(&base).await.is_empty());
}

#[wasm_bindgen_test]
async fn the_timeline_grows_with_the_action() {
    // 429 with no Retry-After at 2: the 2 s fallback, attempt 2 at 4, the list at 6.
    let (base, root, _mounted) = screen("missing-header").await;
    let count = |kind: &str| {
        root.query_selector_all(&format!("[data-testid=timeline] [data-kind={kind}]"))
            .unwrap()
            .length()
    };
    wait_for(Duration::from_secs(1), "attempt 1 on the timeline", || {
        (count("attempt") == 1).then_some(())
    })
    .await;
    assert_eq!((count("wait"), count("stop")), (0, 0));
    wait_for(Duration::from_secs(3), "the wait on the timeline", || {
        (count("wait") == 1).then_some(())
    })
    .await;
    assert_eq!(count("now"), 1, "a live wait shows where now is");
    wait_for(Duration::from_secs(5), "the stop on the timeline", || {
        root.query_selector("[data-testid=timeline] [data-kind=stop][data-outcome=succeeded]")
            .unwrap()
    })
    .await;
    assert_eq!((count("attempt"), count("wait"), count("now")), (2, 1, 0));
    assert_eq!(count("deadline"), 1);
    // Named after the id the app gave (the screen's URL, as `screen` mounts it), so the
    // server's HTML and the hydrating browser agree; only letters, digits, - and _ are kept.
    let id: String = palettes_url(&base, "coast")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .collect();
    let svg = root
        .query_selector("[data-testid=timeline] svg")
        .unwrap()
        .unwrap();
    assert_eq!(
        svg.get_attribute("aria-labelledby").unwrap(),
        format!("{id}-title {id}-desc")
    );
    assert_eq!(server_saw(&base).await, ["answered", "answered"]);
}

#[wasm_bindgen_test]
async fn a_wait_wakes_once_a_second_and_is_announced_once() {
    // 429 at 2 asks for 8 s: the countdown runs from 8 to 1.
    let base = post_run("user-leaves-while-waiting").await;
    let (read, _mounted) = mount_hook(palettes_url(&base, "coast"), RetryPolicy::new(), None);
    wait_for(Duration::from_secs(4), "the wait", || {
        matches!(read.state.get_untracked(), ReadState::Waiting { .. }).then_some(())
    })
    .await;
    // Every write of the clock is a new reading of now(): count the distinct readings.
    let mut readings = vec![read.clock.get_untracked()];
    let end = now() + Duration::from_millis(3_050);
    while now() < end {
        sleep(Duration::from_millis(20)).await;
        let c = read.clock.get_untracked();
        if readings.last() != Some(&c) {
            readings.push(c);
        }
    }
    let writes = readings.len() - 1;
    assert!(
        (3..=4).contains(&writes),
        "{writes} clock writes in 3 s: {readings:?}"
    );
    // Each write came when the whole seconds shown changed, not on a fixed interval.
    for pair in readings.windows(2).skip(1) {
        let gap = pair[1] - pair[0];
        assert!(
            gap.abs_diff(Duration::from_secs(1)) <= Duration::from_millis(60),
            "{gap:?}"
        );
    }
    read.cancel();
    sleep(Duration::from_millis(100)).await;
    assert_eq!(server_saw(&base).await, ["answered"]);
}

#[wasm_bindgen_test]
async fn the_live_region_says_the_wait_once_and_then_the_outcome() {
    let (base, root, _mounted) = screen("user-leaves-while-waiting").await;
    let first = wait_for(Duration::from_secs(4), "the countdown", || {
        text(&root, "countdown")
    })
    .await;
    let said = text(&root, "announce").unwrap();
    assert_eq!(
        said,
        "Waiting before attempt 2 of 3. The service asked for 8 s."
    );
    // Heard, not seen: the region takes a pixel of the screen, whatever it says.
    let region: web_sys::HtmlElement = root
        .query_selector("[data-testid=announce]")
        .unwrap()
        .unwrap()
        .unchecked_into();
    assert_eq!(
        (region.offset_width(), region.offset_height()),
        (1, 1),
        "the live region is visually hidden"
    );
    sleep(Duration::from_millis(2_100)).await;
    tick().await;
    assert_ne!(
        text(&root, "countdown").unwrap(),
        first,
        "the countdown ticks"
    );
    assert_eq!(
        text(&root, "announce").unwrap(),
        said,
        "the live region does not"
    );
    click(&root, "cancel");
    let stopped = wait_for(Duration::from_secs(1), "the stop", || {
        text(&root, "announce").filter(|t| t.starts_with("Stopped"))
    })
    .await;
    assert!(
        stopped.starts_with("Stopped: you left before the read finished. Last response: 429."),
        "{stopped}"
    );
    sleep(Duration::from_millis(100)).await;
    assert_eq!(server_saw(&base).await, ["answered"]);
}

#[wasm_bindgen_test]
async fn a_body_with_no_end_is_not_read_whole() {
    // 200 at 1 s, then 50 MiB streamed with no Content-Length. The 1 MiB limit stops the read.
    let memory = || {
        wasm_bindgen::memory()
            .unchecked_into::<js_sys::WebAssembly::Memory>()
            .buffer()
            .unchecked_into::<js_sys::ArrayBuffer>()
            .byte_length()
    };
    let before = memory();
    let (base, report) = run_to_stop("endless-body-past-the-limit").await;
    assert_eq!(report.outcome, Outcome::UnreadableResponse);
    assert_eq!(
        report.message()[2],
        "Its body is larger than 1 MiB, so reading stopped there. No retry was sent."
    );
    // The tab held about the limit, not the body: wasm memory grew by a few MiB at most.
    let grown = memory().saturating_sub(before);
    assert!(grown <= 4 << 20, "wasm memory grew {grown} bytes");
    // The fetch was aborted: the server stopped handing out the body far short of 50 MiB.
    sleep(Duration::from_millis(300)).await;
    let saw = live::server_requests(&base).await.unwrap();
    assert_eq!(saw.len(), 1);
    assert!(
        saw[0].body_bytes < 16 << 20,
        "the server sent {} bytes of 50 MiB",
        saw[0].body_bytes
    );
}

#[wasm_bindgen_test]
async fn hostile_bodies_never_reach_the_screen() {
    for (scenario, detail) in [
        (
            "json-of-another-shape",
            "Its body is JSON, but not of the shape expected (line 1, column 50). No retry was sent.",
        ),
        (
            "html-error-page-200",
            "Its body is not JSON (line 1, column 1). No retry was sent.",
        ),
    ] {
        let (base, root, _mounted) = screen(scenario).await;
        let outcome = wait_for(Duration::from_secs(3), "the stop", || {
            text(&root, "stop-outcome")
        })
        .await;
        assert_eq!(
            outcome,
            "Stopped: the service answered, but not with data this screen can use."
        );
        assert_line(
            &text(&root, "stop-last-response").unwrap(),
            "Last response: 200. Attempts: 1 of 3. Elapsed: 1 second.",
        );
        assert_eq!(text(&root, "stop-detail").unwrap(), detail);
        // The 200 is in the trace with its status; nothing of its body is anywhere.
        assert!(text(&root, "trace").unwrap().contains("attempt 1 answered 200"));
        let page = root.inner_html();
        for secret in ["SECRET-TOKEN-42", "Bad Gateway", "tracker.example"] {
            assert!(!page.contains(secret), "{scenario}: {secret} on the screen");
        }
        assert!(root.query_selector("img").unwrap().is_none());
        assert_eq!(server_saw(&base).await, ["answered"], "not retried");
    }
}

/// Counts the page's pending `setTimeout` timers from now on, by wrapping `setTimeout` and
/// `clearTimeout` (gloo-timers calls the global each time).
fn count_pending_timers() -> impl Fn() -> u32 {
    let install = js_sys::Function::new_no_args(
        "const w = globalThis;
         if (!w.__pendingTimers) {
           const pending = new Set();
           const set = w.setTimeout.bind(w), clear = w.clearTimeout.bind(w);
           w.setTimeout = function (f, ms, ...args) {
             const id = set(function () {
               pending.delete(id);
               if (typeof f === 'function') { f.apply(this, args); }
             }, ms);
             pending.add(id);
             return id;
           };
           w.clearTimeout = function (id) { pending.delete(id); clear(id); };
           w.__pendingTimers = pending;
         }",
    );
    install.call0(&wasm_bindgen::JsValue::NULL).unwrap();
    || {
        let pending = js_sys::Reflect::get(&js_sys::global(), &"__pendingTimers".into()).unwrap();
        js_sys::Reflect::get(&pending, &"size".into())
            .unwrap()
            .as_f64()
            .unwrap() as u32
    }
}

#[wasm_bindgen_test]
async fn leaving_a_thousand_times_leaves_nothing_behind() {
    // 429 at 0.1, wait 0.5, 429 at 0.7, wait 0.5, 200 at 1.3: loading and waiting by turns.
    let case = case("quick-429s-then-palettes");
    let pending_timers = count_pending_timers();
    // A small xorshift, seeded: the points of leaving are random but the same every run.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut random_ms = move |below: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % below
    };
    // (the run's prefix, requests the client had started when its screen left)
    let mut left = Vec::new();
    for _batch in 0..20 {
        let mut screens = Vec::new();
        for _ in 0..50 {
            let base = post_run(&case.id).await;
            let (read, mounted) =
                mount_hook(palettes_url(&base, "coast"), case.client_policy(), None);
            // Some leave before the read has even started (before the next tick).
            let after = match random_ms(10) {
                0 => Duration::ZERO,
                _ => Duration::from_millis(random_ms(1_400)),
            };
            screens.push((base, read, Some(mounted), now() + after));
        }
        while screens.iter().any(|s| s.2.is_some()) {
            for (base, read, mounted, at) in &mut screens {
                if mounted.is_some() && now() >= *at {
                    let started = read
                        .trace_untracked()
                        .iter()
                        .filter(|e| matches!(e.event, retry_budget::Event::AttemptStarted { .. }))
                        .count();
                    drop(mounted.take());
                    left.push((base.clone(), started));
                }
            }
            sleep(Duration::from_millis(5)).await;
        }
    }
    assert_eq!(left.len(), 1_000);
    // Past every wait and cap a leaked action could still have.
    sleep(Duration::from_millis(2_500)).await;
    assert_eq!(pending_timers(), 0, "a timer outlived its screen");
    let mut reached = 0;
    for (base, started) in &left {
        let saw = live::server_requests(base).await.unwrap();
        assert!(
            saw.len() <= *started,
            "{base}: {} requests reached the server, {started} were started before leaving",
            saw.len()
        );
        assert!(
            saw.iter().all(|r| r.state != "in_flight"),
            "{base}: a request is still in flight on the server: {saw:?}"
        );
        reached += saw.len();
    }
    // The screens did read: most left after a request or two.
    assert!(reached > 500, "{reached} requests in all");
}

/// A new rate limit on the scenario API (`quota=…&window_s=…[&spent=…]`); returns its prefix.
async fn post_limit(query: &str) -> String {
    live::new_limit(api(), query)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// What reached the limit: (arrival, collection, status), in order.
async fn limit_saw(base: &str) -> Vec<(Duration, String, u16)> {
    live::limit_requests(base)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|r| (r.arrived, r.collection, r.status))
        .collect()
}

/// Gives the scope of the API at `api_base` (as [`embed`] names it) what its reads share.
fn share(api_base: &str, policy: ScopePolicy) {
    provide_scope_policy(api_base, policy).unwrap_or_else(|e| panic!("{e}"));
}

/// `<PaletteList>` for `collection` on the API at `api_base`, as an app embeds it, with the
/// API (a limit of its own) as the scope: by default the scope is the origin, which every
/// limit on the scenario API shares, and one test's spent quota would hold back the next.
fn embed(
    api_base: &str,
    collection: &'static str,
    policy: RetryPolicy,
) -> (web_sys::HtmlElement, impl Drop) {
    let root = fresh_element();
    let api_base = api_base.to_owned();
    let policy = policy.with_scope(api_base.clone());
    let handle = mount_to(root.clone(), move || {
        view! { <PaletteList collection api_base policy /> }
    });
    (root, handle)
}

#[wasm_bindgen_test]
async fn three_screens_on_one_api_wait_out_the_first_ones_429() {
    // The source document's sequence: the API's window is spent, and resets in 10 s.
    let base = post_limit("quota=3&window_s=10&spent=3").await;
    // Up to 20 % jitter on the waits the client chooses, so the held-back reads return apart.
    let policy = RetryPolicy::new().with_jitter(20);
    let t0 = now();
    let (first, _a) = embed(&base, "coast", policy.clone());
    wait_for(Duration::from_secs(2), "the first 429", || {
        text(&first, "wait-reason").filter(|t| t.contains("asked for 10 s"))
    })
    .await;
    sleep(Duration::from_secs(1).saturating_sub(now() - t0)).await;
    let (second, _b) = embed(&base, "harbour", policy.clone());
    sleep(Duration::from_secs(2).saturating_sub(now() - t0)).await;
    let (third, _c) = embed(&base, "dune", policy);
    // The late screens send nothing: they count down to the block's end, for the API's reason.
    for late in [&second, &third] {
        let why = wait_for(Duration::from_secs(1), "a scope wait", || {
            text(late, "wait-reason")
        })
        .await;
        assert_eq!(
            why,
            "The service asked every request to this API to wait 10 s."
        );
        assert!(text(late, "countdown")
            .unwrap()
            .starts_with("Attempt 1 of 3 in "));
    }
    assert_eq!(
        limit_saw(&base).await.len(),
        1,
        "only the first screen's request"
    );

    // After the block, each screen's request reaches the server once, in the new window.
    for (root, name) in [(&first, "Tide Pool"), (&second, "Quay"), (&third, "Marram")] {
        let shown = wait_for(Duration::from_secs(11), "the palettes", || {
            text(root, "palettes").filter(|t| t.contains(name))
        })
        .await;
        assert!(shown.contains(name));
    }
    let saw = limit_saw(&base).await;
    assert_eq!(saw.len(), 4, "{saw:?}");
    assert_eq!((saw[0].1.as_str(), saw[0].2), ("coast", 429));
    let mut after: Vec<&str> = saw[1..].iter().map(|r| r.1.as_str()).collect();
    after.sort_unstable();
    assert_eq!(after, ["coast", "dune", "harbour"]);
    for (arrived, collection, status) in &saw[1..] {
        assert_eq!(*status, 200, "{collection}");
        assert!(
            *arrived >= Duration::from_secs(10),
            "{collection} at {arrived:?}"
        );
    }
}

#[wasm_bindgen_test]
async fn a_screen_whose_budget_cannot_outlast_the_block_stops_without_a_request() {
    let base = post_limit("quota=3&window_s=4&spent=3").await;
    let (first, _a) = embed(&base, "coast", RetryPolicy::new());
    wait_for(Duration::from_secs(2), "the first 429", || {
        text(&first, "wait-reason").filter(|t| t.contains("asked for 4 s"))
    })
    .await;
    sleep(Duration::from_millis(500)).await;
    // A 5 s budget with the 4 s cap: attempt 1 must start within 1 s, and the block is longer.
    let short = RetryPolicy::new().with_budget(Duration::from_secs(5));
    let (late, _b) = embed(&base, "harbour", short);
    let outcome = wait_for(Duration::from_secs(1), "the stop", || {
        text(&late, "stop-outcome")
    })
    .await;
    assert_eq!(outcome, "Stopped: retry budget cannot fit another request.");
    assert_eq!(
        text(&late, "stop-last-response").unwrap(),
        "Last response: none. Attempts: 0 of 3. Elapsed: 0 seconds."
    );
    let detail = text(&late, "stop-detail").unwrap();
    assert!(
        detail.starts_with(
            "The service asked every request to this API to wait, and that wait ends in 3"
        ) && detail.ends_with("past this read's budget. No request was sent."),
        "{detail}"
    );
    let saw = limit_saw(&base).await;
    assert_eq!(saw.len(), 1, "the late screen sent nothing: {saw:?}");
    // The first screen still gets its palettes once the window resets.
    wait_for(Duration::from_secs(5), "the palettes", || {
        text(&first, "palettes").filter(|t| t.contains("Tide Pool"))
    })
    .await;
}

#[wasm_bindgen_test]
async fn a_spent_quota_holds_the_next_read_until_its_reset_and_no_429_comes() {
    // Two requests per 3 s window: the second answer says none are left, reset in 3 s.
    let base = post_limit("quota=2&window_s=3").await;
    for (collection, name) in [("coast", "Tide Pool"), ("harbour", "Quay")] {
        let (root, _screen) = embed(&base, collection, RetryPolicy::new());
        wait_for(Duration::from_secs(2), "the palettes", || {
            text(&root, "palettes").filter(|t| t.contains(name))
        })
        .await;
    }
    let (third, _c) = embed(&base, "dune", RetryPolicy::new());
    let why = wait_for(Duration::from_secs(1), "a pacing wait", || {
        text(&third, "wait-reason")
    })
    .await;
    assert_eq!(
        why,
        "This API's quota is used up; the service said it resets in 3 s."
    );
    assert_eq!(
        limit_saw(&base).await.len(),
        2,
        "the third read waits, unsent"
    );
    wait_for(Duration::from_secs(4), "the palettes", || {
        text(&third, "palettes").filter(|t| t.contains("Marram"))
    })
    .await;
    let saw = limit_saw(&base).await;
    let statuses: Vec<u16> = saw.iter().map(|r| r.2).collect();
    assert_eq!(statuses, [200, 200, 200], "paced, never refused: {saw:?}");
    assert!(saw[2].0 >= Duration::from_secs(3), "{saw:?}");
}

#[wasm_bindgen_test]
async fn an_in_flight_limit_of_one_sends_the_screens_requests_one_after_another() {
    // Every answer is held 400 ms: three screens that read at once would overlap at the server.
    let base = post_limit("quota=10&window_s=60&answer_ms=400").await;
    share(&base, ScopePolicy::new().with_in_flight_limit(1));
    let policy = RetryPolicy::new();
    let (first, _a) = embed(&base, "coast", policy.clone());
    let (second, _b) = embed(&base, "harbour", policy.clone());
    let (third, _c) = embed(&base, "dune", policy);
    for queued in [&second, &third] {
        let status = wait_for(Duration::from_secs(1), "a queued screen", || {
            text(queued, "queued")
        })
        .await;
        assert_eq!(
            status,
            "Attempt 1 of 3 waits its turn. At most 1 request to this API may be in flight at \
             once."
        );
    }
    for (root, name) in [(&first, "Tide Pool"), (&second, "Quay"), (&third, "Marram")] {
        wait_for(Duration::from_secs(3), "the palettes", || {
            text(root, "palettes").filter(|t| t.contains(name))
        })
        .await;
    }
    // At the server: one at a time, in the order the screens queued, each after the last answer.
    let saw = live::limit_requests(&base)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let order: Vec<(&str, u16, u32)> = saw
        .iter()
        .map(|r| (r.collection.as_str(), r.status, r.in_flight))
        .collect();
    assert_eq!(
        order,
        [("coast", 200, 1), ("harbour", 200, 1), ("dune", 200, 1)]
    );
    for pair in saw.windows(2) {
        assert!(pair[1].arrived >= pair[0].answered.unwrap(), "{saw:?}");
    }
}

#[wasm_bindgen_test]
async fn a_queued_screen_whose_turn_cannot_come_in_time_stops_without_a_request() {
    // The first read holds the one place for 2.5 s; a 5 s budget with the 4 s cap must start
    // its attempt within 1 s.
    let base = post_limit("quota=10&window_s=60&answer_ms=2500").await;
    share(&base, ScopePolicy::new().with_in_flight_limit(1));
    let policy = RetryPolicy::new();
    let (first, _a) = embed(&base, "coast", policy.clone());
    let short = policy.with_budget(Duration::from_secs(5));
    let (late, _b) = embed(&base, "harbour", short);
    let outcome = wait_for(Duration::from_secs(2), "the stop", || {
        text(&late, "stop-outcome")
    })
    .await;
    assert_eq!(outcome, "Stopped: retry budget cannot fit another request.");
    assert_eq!(
        text(&late, "stop-detail").unwrap(),
        "At most 1 request to this API may be in flight at once. Its turn did not come while \
         the next attempt could still fit this read's budget. No request was sent."
    );
    wait_for(Duration::from_secs(3), "the palettes", || {
        text(&first, "palettes").filter(|t| t.contains("Tide Pool"))
    })
    .await;
    let saw = limit_saw(&base).await;
    assert_eq!(saw.len(), 1, "the late screen sent nothing: {saw:?}");
}

#[wasm_bindgen_test]
async fn past_the_cap_on_waiting_reads_a_new_screen_stops_and_sends_nothing() {
    // The API's window is spent, and resets in 10 s: the first screen's read waits it out.
    let base = post_limit("quota=3&window_s=10&spent=3").await;
    share(&base, ScopePolicy::new().with_max_waiting(1));
    let policy = RetryPolicy::new().with_budget(Duration::from_secs(30));
    let (first, _a) = embed(&base, "coast", policy.clone());
    wait_for(Duration::from_secs(2), "the first 429", || {
        text(&first, "wait-reason").filter(|t| t.contains("asked for 10 s"))
    })
    .await;
    let (second, _b) = embed(&base, "harbour", policy);
    let outcome = wait_for(Duration::from_secs(1), "the stop", || {
        text(&second, "stop-outcome")
    })
    .await;
    assert_eq!(outcome, "Stopped: too many reads are waiting on this API.");
    assert_eq!(
        text(&second, "stop-detail").unwrap(),
        "1 read on this API is already waiting. This one would have been the next, so it was \
         not started. No request was sent."
    );
    // At the server: the first screen's one request, and nothing from the second.
    let saw = limit_saw(&base).await;
    assert_eq!(
        saw.iter().map(|r| (r.1.as_str(), r.2)).collect::<Vec<_>>(),
        [("coast", 429)],
        "{saw:?}"
    );
}

#[wasm_bindgen_test]
async fn an_interactive_screen_goes_before_a_background_one_queued_earlier() {
    // Every answer is held 400 ms, and one request may be in flight at once.
    let base = post_limit("quota=10&window_s=60&answer_ms=400").await;
    share(&base, ScopePolicy::new().with_in_flight_limit(1));
    let policy = RetryPolicy::new();
    let (first, _a) = embed(&base, "coast", policy.clone());
    let background = policy.clone().with_priority(Priority::Background);
    let (prefetch, _b) = embed(&base, "harbour", background);
    let (shown, _c) = embed(&base, "dune", policy);
    for (root, name) in [
        (&first, "Tide Pool"),
        (&shown, "Marram"),
        (&prefetch, "Quay"),
    ] {
        wait_for(Duration::from_secs(3), "the palettes", || {
            text(root, "palettes").filter(|t| t.contains(name))
        })
        .await;
    }
    // At the server: the interactive read that queued last went before the background one.
    let saw = limit_saw(&base).await;
    let order: Vec<&str> = saw.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(order, ["coast", "dune", "harbour"], "{saw:?}");
}

#[wasm_bindgen_test]
async fn with_its_retry_token_spent_a_read_stops_instead_of_retrying() {
    // 429, 429, palettes: one token pays for the first retry, and none is left for the second.
    let case = case("quick-429s-then-palettes");
    let base = post_run(&case.id).await;
    // The run's own scope, so that its purse is no other test's.
    share(
        &base,
        ScopePolicy::new().with_retry_tokens(RetryTokens::new(1, 10)),
    );
    let policy = case.client_policy().with_scope(base.clone());
    let (read, _mounted) = mount_hook(palettes_url(&base, "coast"), policy, None);
    let report = wait_for(Duration::from_secs(3), "the stop", || {
        report_of(&read.state.get_untracked())
    })
    .await;
    assert_eq!(
        (report.outcome, report.attempts, report.held_by),
        (Outcome::BudgetExhausted, 2, Some(HeldBy::RetryTokens))
    );
    sleep(Duration::from_millis(700)).await;
    assert_eq!(server_saw(&base).await, ["answered", "answered"]);
}

#[wasm_bindgen_test]
async fn full_jitter_spreads_the_fallback_retries_between_the_floor_and_the_listed_wait() {
    // A 503 with no Retry-After at 1 s: the listed wait is 1 s and the floor 0.5 s, so each
    // retry reaches the server between 1.5 s and 2 s after the first request.
    let case = case("fallback-list-walks-then-budget-stops");
    let policy = case.client_policy().with_full_jitter(true);
    let mut reads = Vec::new();
    for _ in 0..5 {
        let base = post_run(&case.id).await;
        let (read, mounted) = mount_hook(palettes_url(&base, "coast"), policy.clone(), None);
        reads.push((base, read, mounted));
    }
    sleep(Duration::from_millis(2_300)).await;
    let mut gaps = Vec::new();
    for (base, ..) in &reads {
        let saw = live::server_requests(base)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(saw.len() >= 2, "{saw:?}");
        gaps.push(saw[1].arrived - saw[0].arrived);
    }
    let (least, most) = (gaps.iter().min().unwrap(), gaps.iter().max().unwrap());
    assert!(
        *least >= Duration::from_millis(1_450) && *most <= Duration::from_millis(2_100),
        "{gaps:?}"
    );
    // Drawn, not fixed: five reads do not all wait the listed 1 s.
    assert!(*least < Duration::from_millis(1_900), "{gaps:?}");
}

/// `n` Palette List screens reading `url` under `policy`, mounted in one go (no tick between).
fn screens_on(url: &str, policy: &RetryPolicy, n: usize) -> Vec<(web_sys::HtmlElement, impl Drop)> {
    (0..n)
        .map(|_| {
            let root = fresh_element();
            let (url, policy) = (url.to_owned(), policy.clone());
            let handle = mount_to(root.clone(), move || {
                let read =
                    use_budgeted_read(ReadRequest::get(url), policy, PaletteCollection::from_json);
                view! { <PaletteListView read collection="coast" /> }
            });
            (root, handle)
        })
        .collect()
}

#[wasm_bindgen_test]
async fn five_identical_screens_send_one_request_per_attempt() {
    // 429 at 0.1 s, 429 at 0.7 s, palettes at 1.3 s: three attempts, so three requests.
    let case = case("quick-429s-then-palettes");
    let base = post_run(&case.id).await;
    let url = palettes_url(&base, "coast");
    let policy = case.client_policy().with_scope(url.clone());
    let screens = screens_on(&url, &policy, 5);
    for (root, _) in &screens {
        let summary = wait_for(Duration::from_secs(3), "the palettes", || {
            text(root, "loaded-summary")
        })
        .await;
        assert!(
            summary.starts_with("Last response: 200. Attempts: 3 of"),
            "{summary}"
        );
        assert_eq!(
            Some(summary),
            text(&screens[0].0, "loaded-summary"),
            "every screen shows the one read"
        );
    }
    assert_eq!(server_saw(&base).await, ["answered"; 3]);
}

#[wasm_bindgen_test]
async fn a_shared_read_stops_only_when_its_last_screen_leaves() {
    let case = case("quick-429s-then-palettes");
    // Four of five leave during the first wait: the read goes on for the fifth.
    let base = post_run(&case.id).await;
    let url = palettes_url(&base, "coast");
    let policy = case.client_policy().with_scope(url.clone());
    let mut screens = screens_on(&url, &policy, 5);
    wait_for(Duration::from_secs(1), "the first wait", || {
        text(&screens[0].0, "countdown")
    })
    .await;
    let (last, _kept) = screens.pop().unwrap();
    drop(screens);
    wait_for(Duration::from_secs(3), "the palettes", || {
        text(&last, "loaded-summary")
    })
    .await;
    assert_eq!(server_saw(&base).await, ["answered"; 3]);

    // All five leave during the first wait: nothing more is sent.
    let base = post_run(&case.id).await;
    let url = palettes_url(&base, "coast");
    let policy = case.client_policy().with_scope(url.clone());
    let screens = screens_on(&url, &policy, 5);
    wait_for(Duration::from_secs(1), "the first wait", || {
        text(&screens[0].0, "countdown")
    })
    .await;
    drop(screens);
    sleep(Duration::from_millis(1_500)).await;
    assert_eq!(server_saw(&base).await, ["answered"]);
}

#[wasm_bindgen_test]
async fn try_again_from_one_screen_reads_again_for_all_and_coalescing_can_be_off() {
    let base = post_limit("quota=100&window_s=60").await;
    let url = palettes_url(&base, "coast");
    let policy = RetryPolicy::new().with_scope(url.clone());
    let screens = screens_on(&url, &policy, 3);
    for (root, _) in &screens {
        wait_for(Duration::from_secs(2), "the palettes", || {
            text(root, "palettes")
        })
        .await;
    }
    assert_eq!(limit_saw(&base).await.len(), 1);
    click(&screens[1].0, "retry");
    tick().await;
    for (root, _) in &screens {
        assert_eq!(
            text(root, "attempt").as_deref(),
            Some("Attempt 1 of 3"),
            "all three read again"
        );
    }
    for (root, _) in &screens {
        wait_for(Duration::from_secs(2), "the palettes", || {
            text(root, "palettes")
        })
        .await;
    }
    assert_eq!(
        limit_saw(&base).await.len(),
        2,
        "one new request for the three"
    );

    // A read whose freshness matters: each screen sends its own.
    let fresh = policy.with_coalescing(false);
    let screens = screens_on(&url, &fresh, 5);
    for (root, _) in &screens {
        wait_for(Duration::from_secs(2), "the palettes", || {
            text(root, "palettes")
        })
        .await;
    }
    assert_eq!(limit_saw(&base).await.len(), 7);
}

/// Another tab of this origin, as far as the page can tell: a second channel of the crate's
/// name, and every message it has heard. Closed when dropped.
struct OtherTab {
    channel: web_sys::BroadcastChannel,
    heard: Rc<RefCell<Vec<String>>>,
    _listener: wasm_bindgen::closure::Closure<dyn Fn(web_sys::MessageEvent)>,
}

impl OtherTab {
    fn open() -> Self {
        let channel =
            web_sys::BroadcastChannel::new(leptos_retry_budget::runtime::CHANNEL).unwrap();
        let heard = Rc::new(RefCell::new(Vec::<String>::new()));
        let sink = heard.clone();
        let listener = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::MessageEvent)>::new(
            move |e: web_sys::MessageEvent| sink.borrow_mut().extend(e.data().as_string()),
        );
        channel.set_onmessage(Some(listener.as_ref().unchecked_ref()));
        OtherTab {
            channel,
            heard,
            _listener: listener,
        }
    }
}

impl Drop for OtherTab {
    fn drop(&mut self) {
        self.channel.close();
    }
}

#[wasm_bindgen_test]
async fn blocks_cross_to_other_tabs_and_back() {
    let OtherTab {
        channel: tab,
        heard,
        ..
    } = &OtherTab::open();

    // A 429 here reaches the other tab: its scope, and its end on the wall clock.
    let base = post_limit("quota=1&window_s=3&spent=1").await;
    let origin_us = web_sys::window()
        .unwrap()
        .performance()
        .unwrap()
        .time_origin()
        * 1000.0;
    let (_root, _screen) = embed(&base, "coast", RetryPolicy::new());
    // (The page may first ask what it missed, as it does when it opens its end of the channel.)
    let message = wait_for(Duration::from_secs(2), "the message", || {
        heard
            .borrow()
            .iter()
            .find(|m| m.contains("\tblock\t"))
            .cloned()
    })
    .await;
    let fields: Vec<&str> = message.splitn(8, '\t').collect();
    assert_eq!(
        (fields[0], fields[3], fields[5], fields[6], fields[7]),
        ("2", "block", "3000000", "429", base.as_str())
    );
    let until_us: f64 = fields[4].parse().unwrap();
    let expected = origin_us + (now() + Duration::from_secs(3)).as_micros() as f64;
    assert!(
        (until_us - expected).abs() < 500_000.0,
        "{until_us} vs {expected}"
    );

    // A block another tab learned holds back a read here that has not sent anything yet.
    let other = post_limit("quota=5&window_s=60").await;
    let until = origin_us + (now() + Duration::from_secs(2)).as_micros() as f64;
    tab.post_message(&format!("2\t1\t1\tblock\t{until:.0}\t2000000\t429\t{other}").into())
        .unwrap();
    sleep(Duration::from_millis(50)).await; // the message is delivered as a task
    let (root, _held) = embed(&other, "harbour", RetryPolicy::new());
    let why = wait_for(Duration::from_secs(1), "a scope wait", || {
        text(&root, "wait-reason")
    })
    .await;
    assert_eq!(
        why,
        "The service asked every request to this API to wait 2 s."
    );
    wait_for(Duration::from_secs(4), "the palettes", || {
        text(&root, "palettes")
    })
    .await;
    let saw = limit_saw(&other).await;
    assert_eq!(saw.len(), 1);
    assert!(
        saw[0].0 >= Duration::from_millis(1_800),
        "sent before the block ended: {saw:?}"
    );
    // A shorter block from another tab never shortens a longer one; other messages change
    // nothing.
    let scope = format!("{other}#order");
    for (seq, secs, kind) in [(2, 5, "quota"), (3, 1, "429")] {
        let until = origin_us + (now() + Duration::from_secs(secs)).as_micros() as f64;
        let message = format!("2\t1\t{seq}\tblock\t{until:.0}\t{secs}000000\t{kind}\t{scope}");
        tab.post_message(&message.into()).unwrap();
    }
    tab.post_message(&"hello".into()).unwrap();
    sleep(Duration::from_millis(50)).await;
    let block = leptos_retry_budget::runtime::scope_state(&scope)
        .block
        .unwrap();
    assert_eq!(block.cause, retry_budget::BlockCause::QuotaSpent);
    assert!(block.until > now() + Duration::from_secs(4));
}

#[wasm_bindgen_test]
async fn a_tab_that_missed_a_block_asks_and_hears_it_and_stale_messages_change_nothing() {
    let OtherTab {
        channel: tab,
        heard,
        ..
    } = &OtherTab::open();
    let base = post_limit("quota=1&window_s=5&spent=1").await;
    let (_root, _screen) = embed(&base, "coast", RetryPolicy::new());
    let blocks_heard = || {
        heard
            .borrow()
            .iter()
            .filter(|m| m.contains("\tblock\t") && m.ends_with(base.as_str()))
            .count()
    };
    wait_for(Duration::from_secs(2), "the block", || {
        (blocks_heard() == 1).then_some(())
    })
    .await;
    // A tab newly opened (or back from the cache) during the block asks; this page answers
    // with the block, its end unchanged.
    tab.post_message(&"2\t99\t1\task".into()).unwrap();
    wait_for(Duration::from_secs(1), "the answer", || {
        (blocks_heard() == 2).then_some(())
    })
    .await;
    let ends: Vec<String> = (heard.borrow().iter())
        .filter(|m| m.ends_with(base.as_str()))
        .map(|m| m.split('\t').nth(4).unwrap().to_owned())
        .collect();
    assert_eq!(ends[0], ends[1]);
    // Asked again with the same sequence (a repeat), this page stays quiet.
    tab.post_message(&"2\t99\t1\task".into()).unwrap();
    sleep(Duration::from_millis(100)).await;
    assert_eq!(blocks_heard(), 2);
    // Restored from the back/forward cache, this page asks in turn.
    let asked = || {
        heard
            .borrow()
            .iter()
            .filter(|m| m.ends_with("\task"))
            .count()
    };
    let before = asked();
    let init = web_sys::PageTransitionEventInit::new();
    init.set_persisted(true);
    let restored =
        web_sys::PageTransitionEvent::new_with_event_init_dict("pageshow", &init).unwrap();
    web_sys::window()
        .unwrap()
        .dispatch_event(&restored)
        .unwrap();
    wait_for(Duration::from_secs(1), "an ask", || {
        (asked() == before + 1).then_some(())
    })
    .await;
    // From one tab, a message older than one already heard is stale: its longer block is
    // ignored.
    let scope = format!("{base}#stale");
    let origin_us = web_sys::window()
        .unwrap()
        .performance()
        .unwrap()
        .time_origin()
        * 1000.0;
    for (seq, secs) in [(5, 1), (4, 9)] {
        let until = origin_us + (now() + Duration::from_secs(secs)).as_micros() as f64;
        let message = format!("2\t98\t{seq}\tblock\t{until:.0}\t{secs}000000\t429\t{scope}");
        tab.post_message(&message.into()).unwrap();
    }
    sleep(Duration::from_millis(100)).await;
    let block = leptos_retry_budget::runtime::scope_state(&scope)
        .block
        .unwrap();
    assert!(block.until < now() + Duration::from_secs(2), "{block:?}");
}

/// A token no other text on the page could contain by chance.
const MARKED: &str = "tok-7c1e-MARKED-d0c2";

#[wasm_bindgen_test]
async fn a_header_goes_out_on_every_attempt_and_its_value_nowhere_else() {
    // Another tab, to hear what this page tells the others.
    let OtherTab { heard, .. } = &OtherTab::open();

    let case = case("quick-429s-then-palettes");
    let bearer = format!("Bearer {MARKED}");
    let base = post_run_query(&format!(
        "scenario={}&authorization=Bearer%20{MARKED}",
        case.id
    ))
    .await;
    let url = palettes_url(&base, "coast");
    let root = fresh_element();
    let slot = Rc::new(RefCell::new(None));
    let inner = slot.clone();
    let scope = url.clone();
    let _mounted = mount_to(root.clone(), move || {
        let request = ReadRequest::get(url.clone()).with_header("Authorization", bearer.clone());
        let policy = case.client_policy().with_scope(url.clone());
        let read = use_budgeted_read(request, policy, PaletteCollection::from_json);
        inner.replace(Some(read));
        view! {
            <PaletteListView read collection="coast">
                <TracePanel read id="marked" open=true />
            </PaletteListView>
        }
    });
    let read = slot.borrow().expect("mounted");
    // Every state the screen passes through, as the user (and a screenshot) would see it.
    let mut states = 0;
    let report = loop {
        tick().await;
        let html = root.inner_html();
        assert!(!html.contains(MARKED), "the token is on the screen: {html}");
        states += 1;
        if let Some(r) = report_of(&read.state.get_untracked()) {
            break r;
        }
        assert!(states < 500, "no stop within 10 s");
        sleep(Duration::from_millis(20)).await;
    };
    assert_eq!((report.outcome, report.attempts), (Outcome::Succeeded, 3));
    let trace = read.trace_untracked();
    let written = format!(
        "{}\n{trace:?}\n{:?}\n{}",
        trace
            .iter()
            .map(|e| e.event.to_string())
            .collect::<Vec<_>>()
            .join("\n"),
        leptos_retry_budget::runtime::scope_state(&scope),
        heard.borrow().join("\n")
    );
    assert!(!written.contains(MARKED), "{written}");
    assert!(
        !heard.borrow().is_empty(),
        "the 429s' blocks went out to other tabs, so the channel was heard"
    );
    let sent: Vec<String> = live::server_requests(&base)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.authorization)
        .collect();
    assert_eq!(sent, ["as_expected"; 3]);
}

#[wasm_bindgen_test]
async fn a_header_a_page_may_not_send_is_refused_by_name_and_nothing_is_sent() {
    let base = post_run("quick-429s-then-palettes").await;
    let url = palettes_url(&base, "coast");
    let root = fresh_element();
    let _mounted = mount_to(root.clone(), move || {
        let request = ReadRequest::get(url.clone()).with_header("Cookie", MARKED);
        let read = use_budgeted_read(
            request,
            RetryPolicy::new().with_scope(url.clone()),
            PaletteCollection::from_json,
        );
        view! { <PaletteListView read collection="coast" /> }
    });
    let refused = wait_for(Duration::from_secs(1), "the refusal", || {
        text(&root, "refused")
    })
    .await;
    assert_eq!(
        refused,
        "This read is misconfigured: header Cookie is one a browser never lets a page set"
    );
    sleep(Duration::from_millis(300)).await;
    assert_eq!(server_saw(&base).await, Vec::<String>::new());
}

#[wasm_bindgen_test]
async fn a_new_request_stops_the_old_read_on_the_wire_and_starts_one_new_read() {
    // Waiting (a 429 with no Retry-After: a 2 s fallback, and no block on the scope); in flight
    // (its answer held 1 s); and the read the screen ends on.
    let waiting = post_run("missing-header").await;
    let in_flight = post_run("leave-in-flight-drops-the-late-answer").await;
    let last = post_run("quick-429s-then-palettes").await;
    let url = RwSignal::new(palettes_url(&waiting, "coast"));
    let root = fresh_element();
    let slot = Rc::new(RefCell::new(None));
    let inner = slot.clone();
    let _mounted = mount_to(root.clone(), move || {
        let request = Signal::derive(move || ReadRequest::get(url.get()));
        // One scope for the three, as one API's would be, and this test's alone.
        let policy = RetryPolicy::new().with_scope("moving-on");
        let read = use_budgeted_read(request, policy, PaletteCollection::from_json);
        inner.replace(Some(read));
        view! { <PaletteListView read collection="coast" /> }
    });
    let read = slot.borrow().expect("mounted");
    let started = now();
    wait_for(Duration::from_secs(3), "the fallback wait", || {
        matches!(read.state.get_untracked(), ReadState::Waiting { .. }).then_some(())
    })
    .await;
    url.set(palettes_url(&in_flight, "coast"));
    wait_for(Duration::from_secs(1), "the request in flight", || {
        matches!(
            read.state.get_untracked(),
            ReadState::Loading { attempt: 1, .. }
        )
        .then_some(())
    })
    .await;
    sleep(Duration::from_millis(200)).await;
    url.set(palettes_url(&last, "coast"));
    let report = wait_for(Duration::from_secs(4), "the last read's stop", || {
        report_of(&read.state.get_untracked())
    })
    .await;
    assert_eq!((report.outcome, report.attempts), (Outcome::Succeeded, 3));
    // The screen shows the last read's own action: one start, three attempts.
    let trace = read.trace_untracked();
    let starts = trace
        .iter()
        .filter(|e| matches!(e.event, retry_budget::Event::ActionStarted { .. }))
        .count();
    assert_eq!(starts, 1, "{trace:?}");
    // Past the first read's planned retry (its 429 came at 2 s, and asked for 2 s more).
    let retry_at = started + Duration::from_millis(4_500);
    sleep(retry_at.saturating_sub(now())).await;
    assert_eq!(
        server_saw(&waiting).await,
        ["answered"],
        "nothing sent after"
    );
    assert_eq!(
        server_saw(&in_flight).await,
        ["aborted"],
        "aborted on the wire"
    );
    assert_eq!(server_saw(&last).await, ["answered"; 3]);
}

/// Mounts a read of `url` that sends `Authorization: key` on `scope`, showing how many palettes
/// came.
fn keyed_screen(url: &str, key: &str, scope: &str) -> (web_sys::HtmlElement, impl Drop) {
    let root = fresh_element();
    let request = ReadRequest::get(url).with_header("Authorization", key);
    let policy = RetryPolicy::new().with_scope(scope.to_owned());
    let handle = mount_to(root.clone(), move || {
        let read = use_budgeted_read(request, policy, PaletteCollection::from_json);
        view! {
            <palette_list::ReadStatus
                read
                loaded=|c: PaletteCollection, _| {
                    view! { <p data-testid="count">{c.palettes.len()}</p> }
                }
            />
        }
    });
    (root, handle)
}

#[wasm_bindgen_test]
async fn reads_that_differ_only_in_a_header_are_two_reads() {
    let base = post_limit("quota=10&window_s=60&answer_ms=300").await;
    let url = palettes_url(&base, "coast");
    // Mounted together, while the first is in flight: the same key joins, another does not.
    let screens = [
        keyed_screen(&url, "Bearer a", &base),
        keyed_screen(&url, "Bearer a", &base),
        keyed_screen(&url, "Bearer b", &base),
    ];
    for (root, _) in &screens {
        wait_for(Duration::from_secs(3), "the palettes", || {
            text(root, "count")
        })
        .await;
    }
    assert_eq!(limit_saw(&base).await.len(), 2, "one request per key");
}

#[wasm_bindgen_test]
async fn data_that_is_neither_send_nor_sync_is_read_in_the_browser() {
    // An Rc: what a browser app may hold, and no server could.
    let base = post_limit("quota=5&window_s=60").await;
    let url = palettes_url(&base, "coast");
    let root = fresh_element();
    let _mounted = mount_to(root.clone(), move || {
        let read = use_budgeted_read(
            ReadRequest::get(url.clone()),
            RetryPolicy::new().with_scope(url.clone()),
            |body| PaletteCollection::from_json(body).map(Rc::new),
        );
        let loaded = |c: Rc<PaletteCollection>, _: StopReport| {
            view! { <p data-testid="count">{c.palettes.len()}</p> }
        };
        view! { <palette_list::ReadStatus read loaded /> }
    });
    let count = wait_for(Duration::from_secs(3), "the palettes", || {
        text(&root, "count")
    })
    .await;
    assert_eq!(count, "4");
}
