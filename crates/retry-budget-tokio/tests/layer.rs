//! The tower layer around hyper-util's client (no reqwest under it), over real loopback
//! sockets against the scenario API in this process, counted where the requests arrive.

use std::sync::atomic::Ordering;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, StatusCode};
use http_body_util::Empty;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client as Hyper;
use hyper_util::rt::TokioExecutor;
use retry_budget::report::OutcomeKind;
use retry_budget_tokio::{
    AllowedOrigins, BudgetLayer, BudgetService, Client, LayerStopped, ReadError, ReadRecord,
};
use tower_layer::Layer;
use tower_service::Service;

mod support;
use support::{answering, policy, reached, run, serve};

type Budgeted = BudgetService<Hyper<HttpConnector, Empty<Bytes>>>;

/// hyper-util's client under the budget, reading only from `origin`.
fn budgeted(origin: &str) -> Budgeted {
    let hyper = Hyper::builder(TokioExecutor::new()).build_http();
    let client = Client::new(AllowedOrigins::new([origin]).unwrap());
    BudgetLayer::new(client, policy()).layer(hyper)
}

fn request(method: Method, url: &str) -> Request<Empty<Bytes>> {
    let request = Request::builder().method(method).uri(url);
    request.body(Empty::new()).unwrap()
}

/// One call through the service, made ready first, as tower's contract asks.
async fn call(
    service: &mut Budgeted,
    request: Request<Empty<Bytes>>,
) -> Result<http::Response<hyper::body::Incoming>, retry_budget_tokio::BoxError> {
    std::future::poll_fn(|cx| service.poll_ready(cx)).await?;
    service.call(request).await
}

#[tokio::test]
async fn a_429_is_waited_out_and_the_200_comes_back_with_its_record() {
    let origin = serve().await;
    let url = run(&origin, "quick").await;
    let response = call(&mut budgeted(&origin), request(Method::GET, &url))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let record = response.extensions().get::<ReadRecord>().unwrap();
    assert_eq!(record.report.attempts, 2);
    // The floor, not the server's 0 s, set the wait, and the retry went when it ended.
    let waited = record.report.waited_time;
    assert!(waited >= Duration::from_millis(500), "{waited:?}");
    assert!(waited < Duration::from_millis(800), "{waited:?}");
    assert_eq!(reached(&url).await, ["answered", "answered"]);
}

#[tokio::test]
async fn a_delay_past_the_budget_stops_at_once_with_the_last_answers_head() {
    let origin = serve().await;
    let url = run(&origin, "far").await;
    let error = call(&mut budgeted(&origin), request(Method::GET, &url))
        .await
        .unwrap_err();
    let stopped = error.downcast_ref::<LayerStopped>().unwrap();
    assert_eq!(
        stopped.record.report.outcome.kind(),
        OutcomeKind::BudgetExhausted
    );
    let last = stopped.last.as_ref().unwrap();
    assert_eq!(last.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(last.headers()["retry-after"], "30");
    assert_eq!(reached(&url).await, ["answered"]);
}

#[tokio::test]
async fn another_method_is_sent_once_and_its_answer_handed_back_as_it_came() {
    let refusal = "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\ncontent-length: 0\r\n\r\n";
    let (origin, count) = answering(refusal.to_owned()).await;
    let response = call(&mut budgeted(&origin), request(Method::POST, &origin))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(response.extensions().get::<ReadRecord>().is_none());
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(count.load(Ordering::SeqCst), 1, "a POST is not retried");
}

#[tokio::test]
async fn a_uri_on_an_origin_not_allowed_is_refused_before_anything_is_sent() {
    let ok = "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
    let (elsewhere, count) = answering(ok.to_owned()).await;
    let origin = serve().await;
    let error = call(&mut budgeted(&origin), request(Method::GET, &elsewhere))
        .await
        .unwrap_err();
    assert!(matches!(
        error.downcast_ref::<ReadError>(),
        Some(ReadError::Origin(_))
    ));
    assert_eq!(count.load(Ordering::SeqCst), 0);
}
