//! Blocks cross to the origin's other tabs over a BroadcastChannel, and back.

use crate::support::*;

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
    assert_eq!(block.cause, retry_budget::scope::BlockCause::QuotaSpent);
    assert!(block.until > now() + Duration::from_secs(4));
}

#[wasm_bindgen_test]
async fn a_tab_that_missed_a_block_asks_and_hears_it_and_a_restored_page_asks() {
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
    // (Which messages are fresh, and which stale or repeated, is the core's rule, tested
    // natively: `retry_budget::wire::Tab`.)
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
}
