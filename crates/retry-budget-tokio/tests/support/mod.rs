//! What the wire tests share: the scenario API on loopback with short cases, counted where the
//! requests arrive, and a bare server for answers the scenario API does not give.
#![allow(dead_code)] // Each test file uses its own share of these.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use retry_budget::RetryPolicy;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Short cases, so each test takes at most a few seconds.
const FIXTURE: &str = r##"{
  "policy": { "budget_s": 10, "max_attempts": 3, "attempt_cap_s": 2, "retry_statuses": [429],
              "min_wait_s": 0.5, "fallback_waits_s": [1] },
  "request": { "method": "GET", "path": "/palettes", "query": { "collection": "coast" } },
  "cases": [
    { "id": "quick", "attempts": [
        { "duration_s": 0.1, "status": 429, "headers": { "Retry-After": "0" } },
        { "duration_s": 0.1, "status": 200, "body": "coast" } ] },
    { "id": "far", "attempts": [
        { "duration_s": 0.1, "status": 429, "headers": { "Retry-After": "30" } } ] },
    { "id": "slow", "attempts": [ { "duration_s": 1.5, "status": 200, "body": "coast" } ] },
    { "id": "silent", "attempts": [ { "failure": "no_answer" } ] },
    { "id": "endless", "attempts": [ { "duration_s": 0.1, "status": 200, "body_bytes": 200000 } ] }
  ],
  "bodies": { "coast": { "collection": "coast", "palettes": [ { "id": "a", "name": "A", "colors": ["#000000"] } ] } }
}"##;

/// The policy the tests read under: 10 s, 3 attempts, a 2 s cap, a 0.5 s floor.
pub fn policy() -> RetryPolicy {
    RetryPolicy::new()
        .with_budget(Duration::from_secs(10))
        .with_attempt_cap(Duration::from_secs(2))
        .with_min_wait(Duration::from_millis(500))
}

/// The scenario API on a free loopback port; its origin.
pub async fn serve() -> String {
    let scenarios = scenario_api::Scenarios::new(vec![FIXTURE.to_owned()]).unwrap();
    scenario_api::serve_on_loopback(scenarios.router())
        .await
        .unwrap()
}

/// A JSON answer from the scenario API's own routes.
pub async fn json(request: reqwest::RequestBuilder) -> Value {
    let bytes = request.send().await.unwrap().bytes().await.unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// A new run of case `id`; the URL of its palettes.
pub async fn run(origin: &str, id: &str) -> String {
    let http = reqwest::Client::new();
    let made = json(http.post(format!("{origin}/runs?scenario={id}"))).await;
    format!(
        "{origin}{}/palettes?collection=coast",
        made["base"].as_str().unwrap()
    )
}

/// What reached a run: each request's state (`answered`, `aborted`, `in_flight`).
pub async fn reached(palettes: &str) -> Vec<String> {
    let report = palettes.trim_end_matches("/palettes?collection=coast");
    let report = json(reqwest::Client::new().get(report)).await;
    (report["requests"].as_array().unwrap().iter())
        .map(|r| r["state"].as_str().unwrap().to_owned())
        .collect()
}

/// A bare HTTP/1.1 server on a free loopback port that gives every request `answer` (a whole
/// response head, no body) and counts the requests; its origin and the count.
pub async fn answering(answer: String) -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let counted = count.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let (answer, counted) = (answer.clone(), counted.clone());
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.ends_with(b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                counted.fetch_add(1, Ordering::SeqCst);
                let _ = socket.write_all(answer.as_bytes()).await;
            });
        }
    });
    (origin, count)
}

/// A limiter of the scenario API that holds every answer 300 ms (reads that went at once would
/// overlap at it), with room for 100; its base URL.
pub async fn slow_limiter(origin: &str) -> String {
    let made = json(reqwest::Client::new().post(format!(
        "{origin}/limits?quota=100&window_s=60&answer_ms=300"
    )))
    .await;
    format!("{origin}{}", made["base"].as_str().unwrap())
}

/// How many requests were in flight at a limiter (its base URL) as each arrived, itself
/// included.
pub async fn in_flight_at(base: &str) -> Vec<u64> {
    let log = json(reqwest::Client::new().get(base)).await;
    (log["requests"].as_array().unwrap().iter())
        .map(|r| r["in_flight"].as_u64().unwrap())
        .collect()
}

/// Polls the futures together, in this task, and gives their outputs in order.
pub async fn futures_join_all<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<_> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                if let std::task::Poll::Ready(o) = future.as_mut().poll(cx) {
                    *output = Some(o);
                }
            }
        }
        if outputs.iter().all(Option::is_some) {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}
