//! One API, many screens, on the wire: a 429's block shared, pacing by a spent quota, and the
//! in-flight limit. The scope's rules themselves (a block past a read's budget, a turn that
//! cannot come, the cap on waiting reads, priority, retry tokens, full jitter, and retries
//! spread after a server's delay, never before it) are the core's, tested natively in
//! `crates/retry-budget/src/tests.rs`.

use crate::support::*;

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
