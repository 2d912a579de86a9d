//! What an operator sees through `tracing`, read as a subscriber writes it: a span per read and
//! an event per decision, and never a header's value or a URL past its origin.

use std::io::Write;
use std::sync::{Arc, Mutex};

use retry_budget_tokio::{AllowedOrigins, Client, ReadRequest};

mod support;
use support::{policy, run, serve};

/// Everything a `fmt` subscriber writes while `f` runs on this thread (the tests' runtime is
/// this thread's, so the client's timer task writes here too).
async fn written<F: std::future::Future>(f: F) -> String {
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let sink = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || Sink(sink.clone()))
        .finish();
    let _default = tracing::subscriber::set_default(subscriber);
    f.await;
    let text = buffer.lock().unwrap().clone();
    String::from_utf8(text).unwrap()
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The lines of `log` that hold every one of `words`.
fn lines_with<'a>(log: &'a str, words: &[&str]) -> Vec<&'a str> {
    log.lines()
        .filter(|line| words.iter().all(|w| line.contains(w)))
        .collect()
}

#[tokio::test]
async fn a_read_is_a_span_with_an_event_per_decision_and_no_secret() {
    let origin = serve().await;
    let url = run(&origin, "quick").await;
    let client = Client::new(AllowedOrigins::new([&origin]).unwrap());
    let request = ReadRequest::get(&url).with_header("Authorization", "Bearer header-s3cret");
    let log = written(async {
        client.read(&request, policy(), |_| Ok(())).await.unwrap();
    })
    .await;
    let span = format!("retry_budget.read{{scope=\"{origin}\"");
    assert_eq!(
        lines_with(&log, &[&span, "attempt started", "attempt=1"]).len(),
        1,
        "{log}"
    );
    assert_eq!(
        lines_with(
            &log,
            &[
                &span,
                "answer",
                "http.response.status_code=429",
                "retry_after=\"0\""
            ]
        )
        .len(),
        1,
        "{log}"
    );
    assert_eq!(
        lines_with(&log, &[&span, "wait planned", "next_attempt=2"]).len(),
        1,
        "{log}"
    );
    assert_eq!(
        lines_with(&log, &[&span, "attempt started", "attempt=2"]).len(),
        1,
        "{log}"
    );
    assert_eq!(
        lines_with(
            &log,
            &[
                "INFO",
                &span,
                "read stopped",
                "outcome=succeeded",
                "attempts=2"
            ]
        )
        .len(),
        1,
        "{log}"
    );
    assert!(!log.contains("s3cret"), "a secret reached the log:\n{log}");
    assert!(
        !log.contains("/palettes"),
        "a URL's path reached the log:\n{log}"
    );
}

#[tokio::test]
async fn a_stop_without_data_is_a_warning_and_the_block_it_met_is_said() {
    let origin = serve().await;
    let url = run(&origin, "far").await;
    let client = Client::new(AllowedOrigins::new([&origin]).unwrap());
    let request = ReadRequest::get(&url);
    let log = written(async {
        client
            .read(&request, policy(), |_| Ok(()))
            .await
            .unwrap_err();
    })
    .await;
    assert_eq!(
        lines_with(
            &log,
            &[
                "INFO",
                "scope blocked",
                &format!("scope=\"{origin}\""),
                "cause=\"429\""
            ]
        )
        .len(),
        1,
        "{log}"
    );
    assert_eq!(
        lines_with(
            &log,
            &[
                "WARN",
                "read stopped",
                "outcome=budget_exhausted",
                "attempts=1"
            ]
        )
        .len(),
        1,
        "{log}"
    );
}

#[tokio::test]
async fn a_dropped_read_is_seen_leaving() {
    let origin = serve().await;
    let url = run(&origin, "slow").await;
    let client = Client::new(AllowedOrigins::new([&origin]).unwrap());
    let request = ReadRequest::get(&url);
    let log = written(async {
        let read = client.read(&request, policy(), |_| Ok(()));
        let _ = tokio::time::timeout(std::time::Duration::from_millis(200), read).await;
    })
    .await;
    assert_eq!(
        lines_with(&log, &["read left", "outcome=\"user_left\""]).len(),
        1,
        "{log}"
    );
}
