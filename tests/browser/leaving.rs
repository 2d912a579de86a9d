//! Leaving (unmount, Cancel, navigation) and the cap: aborted on the wire, nothing sent after, nothing left behind.

use crate::support::*;

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
    assert_eq!(report.outcome.kind(), OutcomeKind::AttemptTimedOut);
    assert!(
        report.at.abs_diff(Duration::from_millis(3500)) <= TOLERANCE,
        "{:?}",
        report.at
    );
    sleep(Duration::from_millis(200)).await;
    assert_eq!(server_saw(&base).await, ["answered", "aborted"]);
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
