//! The budget as `reqwest` middleware over real loopback sockets: against the scenario API in
//! this process, and a bare server, counted where the requests arrive.

use std::sync::atomic::Ordering;
use std::time::Duration;

use reqwest_middleware::ClientWithMiddleware;
use retry_budget::body::BodyProblem;
use retry_budget::report::{OutcomeKind, Overrun};
use retry_budget::Outcome;
use retry_budget_tokio::{
    AllowedOrigins, Budget, Client, OriginError, ReadError, ReadRecord, ReadRequest, ScopePolicy,
    Stopped,
};
use serde_json::Value;

mod support;
use support::{
    answering, futures_join_all, in_flight_at, policy, reached, run, serve, slow_limiter,
};

/// `http` under a budget of `client`'s ledger and the tests' policy.
fn budgeted(client: &Client, http: reqwest::Client) -> ClientWithMiddleware {
    let budget = Budget::new(client.clone(), policy());
    reqwest_middleware::ClientBuilder::new(http)
        .with(budget)
        .build()
}

fn client(origin: &str) -> Client {
    Client::new(AllowedOrigins::new([origin]).unwrap())
}

/// The stop in `error`; it must be one.
fn stopped(error: &reqwest_middleware::Error) -> &Stopped {
    Stopped::of(error).unwrap_or_else(|| panic!("not a stop: {error:?}"))
}

/// The refusal in `error`; it must be one.
fn refused(error: &reqwest_middleware::Error) -> &ReadError {
    match error {
        reqwest_middleware::Error::Middleware(e) => e.downcast_ref().unwrap(),
        other => panic!("not a refusal: {other:?}"),
    }
}

#[tokio::test]
async fn a_get_waits_out_a_429_and_the_2xx_comes_back_unread_with_its_record() {
    let origin = serve().await;
    let url = run(&origin, "quick").await;
    let http = budgeted(&client(&origin), reqwest::Client::new());
    let response = http.get(&url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let record = response.extensions().get::<ReadRecord>().unwrap().clone();
    assert_eq!(
        (record.report.outcome, record.report.attempts),
        (Outcome::Succeeded, 2)
    );
    // The floor, not the server's 0 s, set the wait.
    assert!(record.report.waited_time >= Duration::from_millis(500));
    // The body is the app's to read.
    let body: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
    assert_eq!(body["palettes"][0]["name"], "A");
    assert_eq!(reached(&url).await, ["answered", "answered"]);
}

#[tokio::test]
async fn a_stop_is_an_error_with_its_report_and_the_last_response() {
    let origin = serve().await;
    let url = run(&origin, "far").await;
    let http = budgeted(&client(&origin), reqwest::Client::new());
    let error = http.get(&url).send().await.unwrap_err();
    let stop = stopped(&error);
    assert_eq!(
        stop.record.report.outcome,
        Outcome::BudgetExhausted(Overrun::ServerDelay(Duration::from_secs(30)))
    );
    assert_eq!(stop.last.as_ref().map(|r| r.status().as_u16()), Some(429));
    assert_eq!(error.to_string(), stop.record.report.message().to_string());
    assert_eq!(reached(&url).await, ["answered"]);
}

#[tokio::test]
async fn an_attempt_is_aborted_at_its_cap_and_a_dropped_read_leaves_the_ledger() {
    let origin = serve().await;
    let client = client(&origin);
    let http = budgeted(&client, reqwest::Client::new());
    let silent = run(&origin, "silent").await;
    let error = http.get(&silent).send().await.unwrap_err();
    assert_eq!(
        stopped(&error).record.report.outcome,
        Outcome::AttemptTimedOut {
            cap: Duration::from_secs(2)
        }
    );
    let slow = run(&origin, "slow").await;
    let read = http.get(&slow).send();
    assert!(tokio::time::timeout(Duration::from_millis(300), read)
        .await
        .is_err());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(reached(&silent).await, ["aborted"]);
    assert_eq!(reached(&slow).await, ["aborted"]);
    assert_eq!(
        client.known_scopes(),
        0,
        "nothing of it is left in the ledger"
    );
}

#[tokio::test]
async fn a_get_is_retried_under_the_budget_and_any_other_method_passes_untouched() {
    let refusal = "HTTP/1.1 429 Too Many Requests\r\nretry-after: 0\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
    let (origin, count) = answering(refusal.to_owned()).await;
    let http = budgeted(&client(&origin), reqwest::Client::new());
    let url = format!("{origin}/items");
    let posted = http.post(&url).send().await.unwrap();
    assert_eq!(posted.status(), 429);
    assert_eq!(count.load(Ordering::SeqCst), 1, "a POST is sent once");
    let error = http.get(&url).send().await.unwrap_err();
    assert_eq!(
        stopped(&error).record.report.outcome,
        Outcome::AttemptsExhausted
    );
    assert_eq!(count.load(Ordering::SeqCst), 1 + 3, "a GET, three attempts");
    // A request's own policy, in its extensions, is the one it is read under.
    let once = policy().with_max_attempts(1);
    let error = http.get(&url).with_extension(once).send().await;
    assert_eq!(stopped(&error.unwrap_err()).record.report.attempts, 1);
    assert_eq!(count.load(Ordering::SeqCst), 1 + 3 + 1);
}

#[tokio::test]
async fn nothing_is_sent_to_an_origin_not_allowed_and_a_redirect_there_is_never_handed_on() {
    let ok = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}";
    let (elsewhere, reached_elsewhere) = answering(ok.to_owned()).await;
    let found = format!(
        "HTTP/1.1 302 Found\r\nlocation: {elsewhere}/latest/meta-data\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    );
    let (origin, reached_origin) = answering(found).await;
    let allowed = AllowedOrigins::new([&origin]).unwrap();
    let client = Client::new(allowed.clone());
    // A URL on another origin: refused by name, nothing sent.
    let plain = budgeted(&client, reqwest::Client::new());
    let error = plain
        .get(format!("{elsewhere}/x"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        refused(&error),
        &ReadError::Origin(OriginError::NotAllowed(elsewhere.clone()))
    );
    assert_eq!(reached_elsewhere.load(Ordering::SeqCst), 0);
    // The app's plain client follows the redirect; what it brings back is refused.
    let url = format!("{origin}/items");
    let error = plain.get(&url).send().await.unwrap_err();
    assert_eq!(
        refused(&error),
        &ReadError::Origin(OriginError::NotAllowed(elsewhere.clone()))
    );
    assert_eq!(reached_elsewhere.load(Ordering::SeqCst), 1);
    // With the allowed origins' redirect policy, nothing reaches the other origin: the 302 is
    // the answer, and not retried.
    let kept = reqwest::Client::builder()
        .redirect(allowed.redirect_policy())
        .build()
        .unwrap();
    let error = budgeted(&client, kept).get(&url).send().await.unwrap_err();
    assert_eq!(
        stopped(&error).record.report.outcome,
        Outcome::NonRetryableResponse { status: 302 }
    );
    assert_eq!(reached_elsewhere.load(Ordering::SeqCst), 1);
    assert_eq!(reached_origin.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn the_middleware_and_the_clients_own_reads_share_one_ledger() {
    let origin = serve().await;
    let client = client(&origin);
    let http = budgeted(&client, reqwest::Client::new());
    let far = run(&origin, "far").await;
    http.get(&far).send().await.unwrap_err();
    // The 429's 30 s block holds every read on the scope, the client's own among them: one
    // that cannot wait it out stops at once, sending nothing.
    assert!(client.scope_state(&origin).block.is_some());
    let quick = run(&origin, "quick").await;
    let request = ReadRequest::get(&quick);
    match client.read(&request, policy(), |_| Ok(())).await {
        Err(ReadError::Stopped { report, .. }) => {
            assert!(
                matches!(report.outcome, Outcome::BudgetExhausted(_)),
                "{report:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(reached(&quick).await, Vec::<String>::new());
}

#[tokio::test]
async fn the_scopes_in_flight_limit_holds_for_the_middlewares_reads() {
    let origin = serve().await;
    let base = slow_limiter(&origin).await;
    let client = client(&origin);
    let one_at_a_time = ScopePolicy::new()
        .with_in_flight_limit(1)
        .with_max_waiting(2);
    client.scope_policy(&origin, one_at_a_time).unwrap();
    let http = budgeted(&client, reqwest::Client::new());
    let url = format!("{base}/palettes?collection=coast");
    let sends: Vec<_> = (0..4).map(|_| http.get(&url).send()).collect();
    let outcomes: Vec<OutcomeKind> = (futures_join_all(sends).await.iter())
        .map(|r| match r {
            Ok(response) => {
                let record = response.extensions().get::<ReadRecord>().unwrap();
                record.report.outcome.kind()
            }
            Err(e) => stopped(e).record.report.outcome.kind(),
        })
        .collect();
    // One in flight, two queued behind it, and the fourth turned away before any request.
    assert_eq!(
        outcomes,
        [
            OutcomeKind::Succeeded,
            OutcomeKind::Succeeded,
            OutcomeKind::Succeeded,
            OutcomeKind::BudgetExhausted
        ]
    );
    let in_flight = in_flight_at(&base).await;
    assert_eq!(in_flight, [1, 1, 1], "one at a time, three requests");
}

#[tokio::test]
async fn a_2xx_whose_declared_length_is_past_the_limit_stops_unread() {
    let big = "HTTP/1.1 200 OK\r\ncontent-length: 200000\r\nconnection: close\r\n\r\n";
    let (origin, count) = answering(big.to_owned()).await;
    let small = Budget::new(client(&origin), policy().with_max_body_bytes(1000));
    let http = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
        .with(small)
        .build();
    let error = http
        .get(format!("{origin}/items"))
        .send()
        .await
        .unwrap_err();
    let stop = stopped(&error);
    assert_eq!(
        stop.record.report.outcome,
        Outcome::UnreadableResponse(BodyProblem::TooLarge { limit: 1000 })
    );
    // Not retried; the response is the app's, its body unread.
    assert_eq!(stop.last.as_ref().map(|r| r.status().as_u16()), Some(200));
    assert_eq!(count.load(Ordering::SeqCst), 1);
}
