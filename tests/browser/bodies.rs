//! Bodies: one with no end is not read whole; hostile ones never reach the screen.

use crate::support::*;

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
    assert_eq!(
        report.outcome,
        Outcome::UnreadableResponse(BodyProblem::TooLarge { limit: 1 << 20 })
    );
    assert_eq!(
        report.message().detail().unwrap().to_string(),
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
