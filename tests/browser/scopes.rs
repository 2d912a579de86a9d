//! One API, many screens: blocks, pacing, the in-flight limit, the cap on waiting reads, priority, retry tokens, jitter.

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
    // The read's own scope (mount_hook names it after the run's URL), so that its purse is no
    // other test's.
    let url = palettes_url(&base, "coast");
    share(
        &url,
        ScopePolicy::new().with_retry_tokens(RetryTokens::new(1, 10)),
    );
    let (read, _mounted) = mount_hook(url, case.client_policy(), None);
    let report = wait_for(Duration::from_secs(3), "the stop", || {
        report_of(&read.state.get_untracked())
    })
    .await;
    assert_eq!(
        (report.outcome, report.attempts),
        (
            Outcome::BudgetExhausted(Overrun::Scope(HeldBy::RetryTokens)),
            2
        )
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
