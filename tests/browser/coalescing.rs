//! Identical reads share one action, live on a page (what makes two reads the same read is
//! tested natively, beside `ReadKey`).

use crate::support::*;

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
