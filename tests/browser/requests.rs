//! What a read sends: headers on every attempt and nowhere else, refusals by name, a request that follows a signal.

use crate::support::*;

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
