//! What the screen shows, live: the countdown, the palettes, the timeline, the live region (the
//! stop message's words are rendered natively, `crates/leptos-retry-budget/tests/render.rs`).

use crate::support::*;

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
