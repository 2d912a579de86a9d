//! The driver over real loopback sockets, against the scenario API in this process, counted
//! where the requests arrive.

use std::sync::atomic::Ordering;
use std::time::Duration;

use retry_budget::body::{parse_json, BodyProblem};
use retry_budget::report::{HeldBy, OutcomeKind, Overrun};
use retry_budget::request::ReadRequest;
use retry_budget::{HandOver, Outcome, RetryPolicy, ScopePolicy, Step};
use retry_budget_tokio::{AllowedOrigins, Client, OriginError, ReadError, Served};
use serde_json::Value;

mod support;
use support::{
    answering, futures_join_all, in_flight_at, json, policy, reached, run, serve, slow_limiter,
};

/// How a read of `url` under `policy` stopped; it must stop, not load or be refused.
async fn stop_of(client: &Client, url: &str, policy: RetryPolicy) -> retry_budget::StopReport {
    match client
        .read(&ReadRequest::get(url), policy, parse_json::<Value>)
        .await
    {
        Err(ReadError::Stopped { report, .. }) => report,
        other => panic!("{other:?}"),
    }
}

fn client(origin: &str) -> Client {
    Client::new(AllowedOrigins::new([origin]).unwrap())
}

#[tokio::test]
async fn a_429_is_waited_out_and_the_data_loads() {
    let origin = serve().await;
    let url = run(&origin, "quick").await;
    let loaded = client(&origin)
        .read(&ReadRequest::get(&url), policy(), parse_json::<Value>)
        .await
        .unwrap();
    assert_eq!(loaded.data["palettes"][0]["name"], "A");
    assert_eq!(
        (loaded.report.outcome, loaded.report.attempts),
        (Outcome::Succeeded, 2)
    );
    // The floor, not the server's 0 s, set the wait; and the retry went when it ended, not
    // at a timer set before the answer came (the first attempt's 2 s cap).
    let waited = loaded.report.waited_time;
    assert!(waited >= Duration::from_millis(500), "{waited:?}");
    assert!(
        waited < Duration::from_millis(800),
        "the retry went late: {waited:?}"
    );
    assert_eq!(reached(&url).await, ["answered", "answered"]);
}

#[tokio::test]
async fn a_retry_after_past_the_budget_stops_at_once_and_sends_nothing_more() {
    let origin = serve().await;
    let url = run(&origin, "far").await;
    let report = stop_of(&client(&origin), &url, policy()).await;
    assert_eq!(
        report.outcome,
        Outcome::BudgetExhausted(Overrun::ServerDelay(Duration::from_secs(30)))
    );
    assert_eq!(reached(&url).await, ["answered"]);
}

#[tokio::test]
async fn an_attempt_is_aborted_at_its_cap() {
    let origin = serve().await;
    let url = run(&origin, "silent").await;
    let report = stop_of(&client(&origin), &url, policy()).await;
    assert_eq!(
        report.outcome,
        Outcome::AttemptTimedOut {
            cap: Duration::from_secs(2)
        }
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(reached(&url).await, ["aborted"]);
}

#[tokio::test]
async fn a_dropped_read_aborts_its_request_and_sends_nothing_more() {
    let origin = serve().await;
    let url = run(&origin, "slow").await;
    let client = client(&origin);
    let request = ReadRequest::get(&url);
    let read = client.read(&request, policy(), parse_json::<Value>);
    let timed_out = tokio::time::timeout(Duration::from_millis(300), read).await;
    assert!(timed_out.is_err(), "the read was still running");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(reached(&url).await, ["aborted"]);
    // It left the ledger at once, as leaving does: no place held in flight until its cap.
    assert_eq!(client.scope_state(&origin).in_flight, 0);
    assert_eq!(
        client.known_scopes(),
        0,
        "nothing of it is left in the ledger"
    );
}

#[tokio::test]
async fn a_body_past_its_limit_is_not_read_whole() {
    let origin = serve().await;
    let url = run(&origin, "endless").await;
    let small = policy().with_max_body_bytes(1000);
    let report = stop_of(&client(&origin), &url, small).await;
    assert_eq!(
        report.outcome,
        Outcome::UnreadableResponse(BodyProblem::TooLarge { limit: 1000 })
    );
}

#[tokio::test]
async fn one_ledger_a_429_to_one_read_holds_back_the_others() {
    let origin = serve().await;
    let http = reqwest::Client::new();
    // One request per 2 s window, already spent: the first read is told to wait.
    let made = json(http.post(format!("{origin}/limits?quota=1&window_s=2&spent=1"))).await;
    let base = format!("{origin}{}", made["base"].as_str().unwrap());
    let client = client(&origin);
    // Two reads of one URL: on a server, each is its own read (no coalescing).
    let first = ReadRequest::get(format!("{base}/palettes?collection=coast"));
    let second = first.clone();
    let later = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        client.read(&second, policy(), parse_json::<Value>).await
    };
    let (a, b) = tokio::join!(client.read(&first, policy(), parse_json::<Value>), later);
    let log = json(http.get(&base)).await;
    let seen: Vec<(u64, u64)> = (log["requests"].as_array().unwrap().iter())
        .map(|r| {
            (
                r["arrived_ms"].as_u64().unwrap(),
                r["status"].as_u64().unwrap(),
            )
        })
        .collect();
    // The first read's 429, then nothing until the window resets at 2 s: the second read,
    // started during the block, sent nothing before its end.
    assert_eq!(seen[0].1, 429, "{seen:?}");
    assert!(seen.len() >= 2, "{seen:?}");
    assert!(seen[1..].iter().all(|r| r.0 >= 1_900), "{seen:?}");
    // Each read loads, or stops saying the scope held it back; neither sent during the block.
    for read in [a, b] {
        match read {
            Ok(loaded) => assert_eq!(loaded.report.outcome, Outcome::Succeeded),
            Err(ReadError::Stopped { report, .. }) => assert!(
                matches!(
                    report.outcome,
                    Outcome::BudgetExhausted(Overrun::Scope(HeldBy::Block { .. }))
                ),
                "{report:?}"
            ),
            Err(other) => panic!("{other:?}"),
        }
    }
}

#[tokio::test]
async fn the_scopes_in_flight_limit_holds_across_reads_and_past_its_cap_a_read_stops_at_once() {
    let origin = serve().await;
    let base = slow_limiter(&origin).await;
    let client = client(&origin);
    let one_at_a_time = ScopePolicy::new()
        .with_in_flight_limit(1)
        .with_max_waiting(2);
    client.scope_policy(&origin, one_at_a_time).unwrap();
    let request = ReadRequest::get(format!("{base}/palettes?collection=coast"));
    let reads: Vec<_> = (0..4)
        .map(|_| client.read(&request, policy(), parse_json::<Value>))
        .collect();
    let results = futures_join_all(reads).await;
    // One in flight, two queued behind it, and the fourth turned away before any request.
    let outcomes: Vec<OutcomeKind> = results
        .iter()
        .map(|r| match r {
            Ok(loaded) => loaded.report.outcome.kind(),
            Err(ReadError::Stopped { report, .. }) => report.outcome.kind(),
            Err(other) => panic!("{other:?}"),
        })
        .collect();
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
    assert_eq!(client.known_scopes(), 1, "the scope keeps its policy");
}

#[tokio::test]
async fn a_render_whose_first_attempt_would_queue_past_its_hold_is_given_up_unsent() {
    let origin = serve().await;
    let base = slow_limiter(&origin).await;
    let client = client(&origin);
    let one_at_a_time = ScopePolicy::new().with_in_flight_limit(1);
    client.scope_policy(&origin, one_at_a_time).unwrap();
    let request = ReadRequest::get(format!("{base}/palettes?collection=coast"));
    // Three renders at once: one sends, the others give up unsent at once (no hold by default);
    // a fourth allowed to hold 1 s waits its turn and loads.
    let held = policy().with_server_hold(Duration::from_secs(1));
    let started = tokio::time::Instant::now();
    let renders = vec![
        client.read_or_hand_over(&request, policy(), parse_json::<Value>),
        client.read_or_hand_over(&request, policy(), parse_json::<Value>),
        client.read_or_hand_over(&request, policy(), parse_json::<Value>),
        client.read_or_hand_over(&request, held, parse_json::<Value>),
    ];
    let served: Vec<_> = futures_join_all(renders).await;
    let kinds: Vec<&str> = served
        .iter()
        .map(|s| match s {
            Ok(Served::Loaded(_)) => "loaded",
            Ok(Served::NotSent) => "not sent",
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["loaded", "not sent", "not sent", "loaded"]);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "no render held past its hold"
    );
    let in_flight = in_flight_at(&base).await;
    assert_eq!(in_flight, [1, 1], "two requests, one at a time");
    assert_eq!(client.known_scopes(), 1);
}

#[tokio::test]
async fn a_render_hands_its_wait_over_unless_its_policy_lets_it_hold() {
    let origin = serve().await;
    let client = client(&origin);
    // By default the render makes its attempt and hands the 429's wait (the 0.5 s floor) over.
    let url = run(&origin, "quick").await;
    let served = client
        .read_or_hand_over(&ReadRequest::get(&url), policy(), parse_json::<Value>)
        .await
        .unwrap();
    let Served::HandedOver { hand_over, .. } = served else {
        panic!("{served:?}")
    };
    assert_eq!(hand_over.attempts, 1);
    assert!(hand_over.wait > Duration::ZERO && hand_over.wait <= Duration::from_millis(500));
    assert_eq!(
        hand_over.last_response.as_ref().map(|l| l.status),
        Some(429)
    );
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(
        reached(&url).await,
        ["answered"],
        "nothing more from the server"
    );
    // The browser goes on with the same read: attempt 2 after the whole wait, from when it
    // reads the hand-over.
    let read_back = HandOver::parse(&hand_over.to_string()).unwrap();
    assert!(
        read_back.wait >= hand_over.wait,
        "the text never shortens the wait"
    );
    let mut browser = retry_budget::Client::new();
    let read = browser
        .handle_resume(
            Duration::from_secs(1),
            Duration::ZERO,
            &origin,
            policy(),
            &read_back,
        )
        .unwrap();
    let step = std::iter::from_fn(|| browser.poll_event()).find_map(|e| match e {
        retry_budget::ClientEvent::Step { read: r, step } if r == read => Some(step),
        _ => None,
    });
    assert!(
        matches!(step, Some(Step::Wait { until, .. }) if until == Duration::from_secs(1) + read_back.wait),
        "{step:?}"
    );
    // Allowed to hold 1 s, the render waits itself and loads.
    let url = run(&origin, "quick").await;
    let hold = policy().with_server_hold(Duration::from_secs(1));
    let served = client
        .read_or_hand_over(&ReadRequest::get(&url), hold, parse_json::<Value>)
        .await
        .unwrap();
    assert!(matches!(served, Served::Loaded(_)), "{served:?}");
    assert_eq!(reached(&url).await, ["answered", "answered"]);
}

#[tokio::test]
async fn a_server_forwards_the_headers_it_is_given_a_session_cookie_included() {
    let origin = serve().await;
    let http = reqwest::Client::new();
    let made = json(http.post(format!(
        "{origin}/runs?scenario=quick&authorization=Bearer%20s3cret"
    )))
    .await;
    let url = format!(
        "{origin}{}/palettes?collection=coast",
        made["base"].as_str().unwrap()
    );
    let request = ReadRequest::get(&url)
        .with_header("Authorization", "Bearer s3cret")
        .with_header("Cookie", "session=visitor-1");
    let loaded = client(&origin)
        .read(&request, policy(), parse_json::<Value>)
        .await
        .unwrap();
    assert_eq!(loaded.report.attempts, 2);
    let report = json(http.get(url.trim_end_matches("/palettes?collection=coast"))).await;
    let sent: Vec<&str> = (report["requests"].as_array().unwrap().iter())
        .map(|r| r["authorization"].as_str().unwrap())
        .collect();
    assert_eq!(sent, ["as_expected", "as_expected"], "on every attempt");
    // A header the HTTP client sets itself is refused by name, before anything is sent.
    let host = ReadRequest::get(&url).with_header("Host", "internal");
    let refused = client(&origin)
        .read(&host, policy(), parse_json::<Value>)
        .await
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "the request cannot be sent: header Host is one the HTTP client sets itself; give it none"
    );
}

#[tokio::test]
async fn a_url_on_an_origin_not_allowed_is_refused_before_anything_is_sent() {
    let origin = serve().await;
    let client = client("https://api.example.com");
    let url = run(&origin, "quick").await;
    let refused = client
        .read(&ReadRequest::get(&url), policy(), parse_json::<Value>)
        .await
        .unwrap_err();
    assert_eq!(
        refused,
        ReadError::Origin(OriginError::NotAllowed(origin.clone()))
    );
    assert_eq!(
        refused.to_string(),
        format!("the URL is refused: its origin, {origin}, is not one this server may read")
    );
    assert!(reached(&url).await.is_empty());
    let kind = |r: Result<_, ReadError>| match r {
        Err(ReadError::Stopped { report, .. }) => Some(report.outcome.kind()),
        _ => None,
    };
    // A policy the core refuses is refused by name too, and never stops as an outcome.
    let none = policy().with_max_attempts(0);
    let refused = client
        .read(
            &ReadRequest::get("https://api.example.com/x"),
            none,
            parse_json::<Value>,
        )
        .await;
    assert_eq!(kind(refused.clone()), None::<OutcomeKind>);
    assert_eq!(
        refused.unwrap_err().to_string(),
        "the policy is not valid: max_attempts is 0: at least one attempt is needed"
    );
}

#[tokio::test]
async fn a_redirect_reaches_no_origin_outside_the_allowed_whoever_built_the_http_client() {
    let ok = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}";
    let (elsewhere, reached_elsewhere) = answering(ok.to_owned()).await;
    let found = format!(
        "HTTP/1.1 302 Found\r\nlocation: {elsewhere}/latest/meta-data\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    );
    let (allowed, reached_allowed) = answering(found).await;
    let url = format!("{allowed}/items");
    // The client's own HTTP client, and an app's own builder that asks to follow any redirect:
    // its policy is replaced, so the redirect is the answer (a 302, not retried).
    let apps = reqwest::Client::builder().redirect(reqwest::redirect::Policy::limited(10));
    let app_built = Client::with_http(AllowedOrigins::new([&allowed]).unwrap(), apps).unwrap();
    for client in [client(&allowed), app_built] {
        let report = stop_of(&client, &url, policy()).await;
        assert_eq!(
            report.outcome,
            Outcome::NonRetryableResponse { status: 302 }
        );
    }
    assert_eq!(reached_allowed.load(Ordering::SeqCst), 2);
    assert_eq!(
        reached_elsewhere.load(Ordering::SeqCst),
        0,
        "a request reached another origin"
    );
    // Where the redirect's origin is allowed it is followed, even from a builder that said
    // never: one policy, the client's.
    let never = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none());
    let both = AllowedOrigins::new([&allowed, &elsewhere]).unwrap();
    let loaded = Client::with_http(both, never)
        .unwrap()
        .read(&ReadRequest::get(&url), policy(), parse_json::<Value>)
        .await
        .unwrap();
    assert_eq!(loaded.data, serde_json::json!({}));
    assert_eq!(reached_elsewhere.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn by_default_a_crowd_on_one_quota_is_sent_at_the_pace_it_serves() {
    let origin = serve().await;
    let made = reqwest::Client::new().post(format!("{origin}/limits?quota=10&window_s=1"));
    let base = format!("{origin}{}", json(made).await["base"].as_str().unwrap());
    let request = ReadRequest::get(format!("{base}/palettes?collection=coast"));
    let client = client(&origin);
    let reads = (0..30)
        .map(|_| client.read(&request, RetryPolicy::new(), parse_json::<Value>))
        .collect();
    let done = futures_join_all(reads).await;
    assert!(done.iter().all(Result::is_ok), "{done:?}");
    // Ten at first (the opening window), no more than the RateLimit fields say is left, then
    // ten at each window's start: one request a read. Released at once, it takes 50.
    let log = json(reqwest::Client::new().get(&base)).await;
    assert_eq!(log["requests"].as_array().unwrap().len(), 30);
    assert!(client.scope_state(&origin).pace.is_some());
}
