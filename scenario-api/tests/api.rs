//! The scenario API over real loopback sockets: what it answers, when, and what it records.

use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A small fixture with short durations, so the tests run in well under a second each.
const FIXTURE: &str = r##"{
  "policy": { "budget_s": 20, "max_attempts": 3, "attempt_cap_s": 4, "retry_statuses": [429],
              "min_wait_s": 1, "fallback_waits_s": [2, 4] },
  "request": { "method": "GET", "path": "/palettes", "query": { "collection": "coast" } },
  "wall_clock_at_zero": "Mon, 01 Jan 2024 12:00:00 GMT",
  "cases": [
    { "id": "seconds", "attempts": [
        { "duration_s": 0.3, "status": 429, "headers": { "Retry-After": "3" } },
        { "duration_s": 0.1, "status": 200, "body": "coast" } ] },
    { "id": "date", "attempts": [
        { "duration_s": 0.2, "status": 429, "headers": { "Retry-After": "Mon, 01 Jan 2024 12:00:05 GMT" } } ] },
    { "id": "no-clock", "wall_clock_at_zero": null, "attempts": [
        { "duration_s": 0.1, "status": 429, "headers": { "Retry-After": "Mon, 01 Jan 2024 12:00:05 GMT" } } ] },
    { "id": "silent", "attempts": [ { "failure": "no_answer" } ] },
    { "id": "no-cors", "attempts": [ { "duration_s": 0.1, "failure": "transport" } ] },
    { "id": "endless", "attempts": [ { "duration_s": 0.1, "status": 200, "body_bytes": 200000 } ] },
    { "id": "html", "attempts": [ { "duration_s": 0.1, "status": 200, "body_text": "<html>502</html>" } ] },
    { "id": "no-body-given", "attempts": [ { "duration_s": 0.1, "status": 200 } ] }
  ],
  "bodies": { "coast": { "collection": "coast", "palettes": [ { "id": "a", "name": "A", "colors": ["#000000"] } ] } }
}"##;

async fn serve() -> String {
    serve_with(FIXTURE).await
}

async fn serve_with(fixture: &str) -> String {
    let scenarios = scenario_api::Scenarios::new(vec![fixture.to_owned()]).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(scenario_api::serve(
        listener,
        scenarios.router(),
        std::future::pending(),
    ));
    addr.to_string()
}

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

async fn send(addr: &str, method: &str, target: &str) -> Reply {
    send_as(addr, addr, method, target).await
}

/// The same, naming another `host` in the request, as a browser does for another origin.
async fn send_as(addr: &str, host: &str, method: &str, target: &str) -> Reply {
    send_raw(addr, host, method, target, "").await
}

/// The same, with `extra` header lines (each ending in CRLF).
async fn send_raw(addr: &str, host: &str, method: &str, target: &str, extra: &str) -> Reply {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("{method} {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{extra}Content-Length: 0\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .map(|l| {
            let (k, v) = l.split_once(": ").unwrap();
            (k.to_owned(), v.to_owned())
        })
        .collect();
    Reply {
        status,
        headers,
        body: body.to_owned(),
    }
}

async fn new_run(addr: &str, scenario: &str) -> String {
    let r = send(addr, "POST", &format!("/runs?scenario={scenario}")).await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["base"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_run_plays_its_attempts_in_order_at_the_fixtures_pace() {
    let addr = serve().await;
    let base = new_run(&addr, "seconds").await;
    let t = Instant::now();
    let first = send(&addr, "GET", &format!("{base}/palettes?collection=coast")).await;
    let took = t.elapsed();
    assert_eq!(first.status, 429);
    assert_eq!(first.header("retry-after"), Some("3"));
    assert!(first.header("date").is_some());
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_millis(600),
        "{took:?}"
    );
    let second = send(&addr, "GET", &format!("{base}/palettes?collection=coast")).await;
    assert_eq!(second.status, 200);
    assert_eq!(second.header("content-type"), Some("application/json"));
    assert_eq!(second.json()["palettes"][0]["name"], "A");
    // A third request is more than the scenario lists: refused, and still counted.
    let third = send(&addr, "GET", &format!("{base}/palettes?collection=coast")).await;
    assert_eq!(third.status, 409);
    assert_eq!(
        third.json()["error"],
        "scenario seconds lists 2 attempts; this is request 3"
    );
    let report = send(&addr, "GET", &base).await.json();
    let states: Vec<_> = report["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["state"].clone(), r["status"].clone()))
        .collect();
    assert_eq!(
        states,
        [
            ("answered".into(), 429.into()),
            ("answered".into(), 200.into()),
            ("answered".into(), 409.into())
        ]
    );
}

#[tokio::test]
async fn cors_exposes_retry_after_date_and_the_ratelimit_fields() {
    let addr = serve().await;
    let base = new_run(&addr, "seconds").await;
    let r = send(&addr, "GET", &format!("{base}/palettes?collection=coast")).await;
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert_eq!(
        r.header("access-control-expose-headers"),
        Some(
            "Retry-After, Date, RateLimit, RateLimit-Policy, RateLimit-Limit, \
             RateLimit-Remaining, RateLimit-Reset"
        )
    );
    let pre = send(
        &addr,
        "OPTIONS",
        &format!("{base}/palettes?collection=coast"),
    )
    .await;
    assert_eq!(pre.status, 204);
    assert_eq!(
        pre.header("access-control-allow-methods"),
        Some("GET, POST")
    );
    assert_eq!(
        pre.header("access-control-allow-headers"),
        Some("content-type, authorization")
    );
}

#[tokio::test]
async fn a_run_says_whether_each_request_carried_its_authorization_and_never_what_it_was() {
    let addr = serve().await;
    let r = send(
        &addr,
        "POST",
        "/runs?scenario=seconds&authorization=Bearer%20tok-SECRET-1",
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let base = r.json()["base"].as_str().unwrap().to_owned();
    let target = format!("{base}/palettes?collection=coast");
    for extra in [
        "Authorization: Bearer tok-SECRET-1\r\n",
        "",
        "Authorization: Bearer tok-SECRET-2\r\n",
    ] {
        send_raw(&addr, &addr, "GET", &target, extra).await;
    }
    let report = send(&addr, "GET", &base).await;
    let seen: Vec<_> = report.json()["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["authorization"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(seen, ["as_expected", "missing", "other"]);
    let runs = send(&addr, "GET", "/runs").await;
    for text in [&report.body, &runs.body] {
        assert!(!text.contains("SECRET"), "{text}");
    }
}

#[tokio::test]
async fn a_run_can_hide_its_headers_from_other_origins() {
    let addr = serve().await;
    let r = send(&addr, "POST", "/runs?scenario=seconds&expose=none").await;
    assert_eq!(r.status, 201);
    let base = r.json()["base"].as_str().unwrap().to_owned();
    let r = send(&addr, "GET", &format!("{base}/palettes?collection=coast")).await;
    // Sent, but not exposed: a page on another origin cannot read them.
    assert_eq!(r.header("retry-after"), Some("3"));
    assert!(r.header("date").is_some());
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert_eq!(r.header("access-control-expose-headers"), None);
    let bad = send(&addr, "POST", "/runs?scenario=seconds&expose=some").await;
    assert_eq!(
        (bad.status, bad.json()["error"].as_str().unwrap()),
        (400, "expose=\"some\": use all (the default) or none")
    );
}

#[tokio::test]
async fn a_date_keeps_the_fixtures_distance_on_the_real_clock() {
    let addr = serve().await;
    let base = new_run(&addr, "date").await;
    let r = send(&addr, "GET", &format!("{base}/palettes?collection=coast")).await;
    // Receipt at 0.2 s reads 12:00:00.2 in the fixture; 12:00:05 is 4.8 s away: 5 whole seconds.
    let date = httpdate::parse_http_date(r.header("date").unwrap()).unwrap();
    let retry = httpdate::parse_http_date(r.header("retry-after").unwrap()).unwrap();
    assert_eq!(retry.duration_since(date).unwrap(), Duration::from_secs(5));
    let skew = SystemTime::now().duration_since(date).unwrap();
    assert!(
        skew < Duration::from_secs(2),
        "Date is the server's real time"
    );
}

#[tokio::test]
async fn without_clock_evidence_no_date_is_sent() {
    let addr = serve().await;
    let base = new_run(&addr, "no-clock").await;
    let r = send(&addr, "GET", &format!("{base}/palettes?collection=coast")).await;
    assert_eq!(r.header("date"), None);
    assert_eq!(
        r.header("retry-after"),
        Some("Mon, 01 Jan 2024 12:00:05 GMT")
    );
}

#[tokio::test]
async fn a_client_that_goes_away_is_recorded_as_an_abort() {
    let addr = serve().await;
    let base = new_run(&addr, "silent").await;
    let mut s = TcpStream::connect(&addr).await.unwrap();
    s.write_all(
        format!("GET {base}/palettes?collection=coast HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes(),
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let report = send(&addr, "GET", &base).await.json();
    assert_eq!(report["requests"][0]["state"], "in_flight");
    drop(s);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let report = send(&addr, "GET", &base).await.json();
    assert_eq!(report["requests"][0]["state"], "aborted");
    let ended = report["requests"][0]["ended_ms"].as_u64().unwrap();
    assert!((150..400).contains(&ended), "{ended}");
}

#[tokio::test]
async fn a_transport_failure_has_no_cors_headers() {
    let addr = serve().await;
    let base = new_run(&addr, "no-cors").await;
    let r = send(&addr, "GET", &format!("{base}/palettes?collection=coast")).await;
    assert_eq!(r.status, 503);
    assert_eq!(r.header("access-control-allow-origin"), None);
}

#[tokio::test]
async fn bad_requests_say_what_was_wrong() {
    let addr = serve().await;
    let base = new_run(&addr, "seconds").await;
    for (method, target, status, error) in [
        (
            "POST",
            "/runs?scenario=nope".to_owned(),
            404,
            "no scenario \"nope\" in the fixture file",
        ),
        (
            "POST",
            "/runs".to_owned(),
            400,
            "query parameter scenario is missing",
        ),
        (
            "GET",
            format!("{base}/palettes"),
            400,
            "query parameter collection is missing",
        ),
        (
            "GET",
            format!("{base}/palettes?collection="),
            400,
            "query parameter collection is empty",
        ),
        (
            "GET",
            format!("{base}/palettes?collection=coast&collection=coast"),
            400,
            "query parameter collection is given twice",
        ),
        (
            "GET",
            format!("{base}/palettes?colour=red"),
            400,
            "unknown query parameter \"colour\" (expected: collection)",
        ),
        (
            "POST",
            "/runs?scenario=seconds&run=1".to_owned(),
            400,
            "unknown query parameter \"run\" (expected: scenario, expose, moved_to, authorization)",
        ),
        (
            "GET",
            format!("{base}/palettes?collection=ocean"),
            404,
            "no collection \"ocean\" in scenario seconds (it serves \"coast\")",
        ),
        (
            "GET",
            "/runs/999/palettes?collection=coast".to_owned(),
            404,
            "no run 999",
        ),
        (
            "GET",
            "/runs/x".to_owned(),
            400,
            "run \"x\" is not a run number",
        ),
    ] {
        let r = send(&addr, method, &target).await;
        assert_eq!(
            (r.status, r.json()["error"].as_str().unwrap()),
            (status, error),
            "{target}"
        );
    }
    let r = send(&addr, "GET", "/palettes?collection=coast").await;
    assert_eq!(r.status, 404);
    assert!(r.json()["error"]
        .as_str()
        .unwrap()
        .starts_with("no such route"));
    // None of the refused requests counted as attempts.
    let report = send(&addr, "GET", &base).await.json();
    assert_eq!(report["requests"].as_array().unwrap().len(), 0);
}

#[tokio::test]
async fn the_fixture_is_served_as_played() {
    let addr = serve().await;
    let r = send(&addr, "GET", "/fixture").await;
    assert_eq!(r.body, FIXTURE);
}

#[test]
fn a_fixture_the_model_refuses_is_refused() {
    let bad = FIXTURE.replace("\"duration_s\": 0.3", "\"duration_s\": 9");
    let e = scenario_api::Scenarios::new(vec![bad]).err().unwrap();
    assert!(matches!(e, scenario_api::LoadError::Case { file: 1, .. }));
    assert_eq!(
        e.to_string(),
        "fixture file 1: case seconds, attempts[0].duration_s: attempt 1 lasts 9 s, beyond the 4 s per-attempt cap"
    );
    let twice = scenario_api::Scenarios::new(vec![FIXTURE.to_owned(), FIXTURE.to_owned()])
        .err()
        .unwrap();
    assert!(matches!(
        twice,
        scenario_api::LoadError::Duplicate { file: 2, .. }
    ));
    assert_eq!(
        twice.to_string(),
        "fixture file 2: case seconds is also in an earlier file"
    );
}

#[test]
fn the_binary_listens_on_a_free_port_and_stops_by_itself() {
    use std::io::{BufRead, BufReader};
    let dir = std::env::temp_dir().join(format!("scenario-api-{}.json", std::process::id()));
    std::fs::write(&dir, FIXTURE).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_scenario-api"))
        .args([
            "--port",
            "0",
            "--stop-after",
            "1",
            "--fixtures",
            dir.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.starts_with("listening on http://127.0.0.1:"), "{line}");
    let t = Instant::now();
    let status = child.wait().unwrap();
    assert!(status.success());
    assert!(t.elapsed() < Duration::from_secs(3));
    let _ = std::fs::remove_file(&dir);

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_scenario-api"))
        .args(["--fixtures", "no/such.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read no/such.json"));
}

#[tokio::test]
async fn dates_at_the_ends_of_the_calendar_never_panic() {
    let fixture = FIXTURE.replace(
        r#"{ "id": "silent","#,
        r#"{ "id": "year-9999", "attempts": [
            { "duration_s": 0.1, "status": 429, "headers": { "Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT" } } ] },
        { "id": "epoch", "attempts": [
            { "duration_s": 0.1, "status": 429, "headers": {
                "Date": "Fri, 31 Dec 9999 23:59:00 GMT", "Retry-After": "Thu, 01 Jan 1970 00:00:00 GMT" } } ] },
        { "id": "silent","#,
    );
    assert_ne!(fixture, FIXTURE);
    let addr = serve_with(&fixture).await;
    // Moved onto today's clock, a date near year 9999 falls past it: the run is refused, in JSON.
    let r = send(&addr, "POST", "/runs?scenario=year-9999").await;
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(
        r.json()["error"],
        "scenario year-9999 cannot be played: attempt 1's Retry-After date, moved onto today's \
         clock, would fall after year 9999, which an HTTP date cannot carry"
    );
    // A date before the receipt by more years than have passed since year 0 is played as the
    // first date an HTTP date can write: past, as it was.
    let base = new_run(&addr, "epoch").await;
    let r = send(&addr, "GET", &format!("{base}/palettes?collection=coast")).await;
    assert_eq!(r.status, 429);
    assert_eq!(
        r.header("retry-after"),
        Some("Sat, 01 Jan 0000 00:00:00 GMT")
    );
    // And the server is still there.
    assert_eq!(send(&addr, "GET", "/runs").await.status, 200);
}

#[tokio::test]
async fn bodies_are_sent_as_the_fixture_says() {
    let addr = serve().await;
    // An endless body is streamed (no Content-Length), and the run counts what was sent.
    let base = new_run(&addr, "endless").await;
    let r = send(&addr, "GET", &format!("{base}/palettes?collection=coast")).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-length"), None);
    assert_eq!(r.header("transfer-encoding"), Some("chunked"));
    assert!(r.body.contains("[0,0,0,"));
    let report = send(&addr, "GET", &base).await.json();
    assert_eq!(report["requests"][0]["body_bytes"], 200_000);
    // Text is sent as it is, HTML as HTML.
    let base = new_run(&addr, "html").await;
    let r = send(&addr, "GET", &format!("{base}/palettes?collection=coast")).await;
    assert_eq!((r.status, r.body.as_str()), (200, "<html>502</html>"));
    assert_eq!(r.header("content-type"), Some("text/html"));
    // A 2xx with no body given is sent the data expected, with no palettes.
    let base = new_run(&addr, "no-body-given").await;
    let r = send(&addr, "GET", &format!("{base}/palettes?collection=coast")).await;
    assert_eq!(
        r.json(),
        serde_json::json!({"collection": "coast", "palettes": []})
    );
}

#[tokio::test]
async fn a_run_moved_to_another_origin_redirects_there_and_counts_only_arrivals() {
    let addr = serve().await;
    let port = addr.rsplit(':').next().unwrap();
    let r = send(
        &addr,
        "POST",
        &format!("/runs?scenario=seconds&moved_to=http://localhost:{port}"),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let base = r.json()["base"].as_str().unwrap().to_owned();
    let target = format!("{base}/palettes?collection=coast");
    let hop = send(&addr, "GET", &target).await;
    assert_eq!(hop.status, 307);
    let location = format!("http://localhost:{port}{target}");
    assert_eq!(hop.header("location"), Some(location.as_str()));
    // Where it went, it is played; the hop was not an attempt.
    let there = send_as(&addr, &format!("localhost:{port}"), "GET", &target).await;
    assert_eq!(there.status, 429);
    let report = send(&addr, "GET", &base).await.json();
    assert_eq!(report["requests"].as_array().unwrap().len(), 1);
    // An origin with a path, or not http, is refused by name.
    for bad in [
        "https://localhost:1",
        "http://localhost:1/x",
        "localhost:1",
        "http://",
    ] {
        let r = send(
            &addr,
            "POST",
            &format!("/runs?scenario=seconds&moved_to={bad}"),
        )
        .await;
        assert_eq!(r.status, 400, "{bad}");
        assert!(
            r.json()["error"].as_str().unwrap().starts_with("moved_to="),
            "{}",
            r.body
        );
    }
}

#[tokio::test]
async fn a_limit_admits_its_quota_per_window_and_refuses_the_rest_with_its_fields() {
    let addr = serve().await;
    let r = send(&addr, "POST", "/limits?quota=2&window_s=2").await;
    assert_eq!(r.status, 201, "{}", r.body);
    let base = r.json()["base"].as_str().unwrap().to_owned();
    let get = |collection: &'static str| {
        let (addr, base) = (addr.clone(), base.clone());
        async move {
            send(
                &addr,
                "GET",
                &format!("{base}/palettes?collection={collection}"),
            )
            .await
        }
    };
    let first = get("coast").await;
    assert_eq!(first.status, 200);
    assert_eq!(first.json()["collection"], "coast");
    assert_eq!(first.header("ratelimit-policy"), Some("\"window\";q=2;w=2"));
    assert_eq!(first.header("ratelimit"), Some("\"window\";r=1;t=2"));
    assert_eq!(
        (
            first.header("ratelimit-limit"),
            first.header("ratelimit-remaining")
        ),
        (Some("2"), Some("1"))
    );
    assert!(first.header("date").is_some());
    assert_eq!(get("coast").await.status, 200);
    let refused = get("coast").await;
    assert_eq!(refused.status, 429);
    assert_eq!(refused.header("retry-after"), Some("2"));
    assert_eq!(refused.header("ratelimit"), Some("\"window\";r=0;t=2"));
    assert_eq!(refused.header("ratelimit-reset"), Some("2"));
    // The next window admits again.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(get("coast").await.status, 200);

    let log = send(&addr, "GET", &base).await.json();
    let statuses: Vec<u64> = log["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_u64().unwrap())
        .collect();
    assert_eq!(statuses, [200, 200, 429, 200]);
    assert!(log["requests"][3]["arrived_ms"].as_u64().unwrap() >= 2000);
}

#[tokio::test]
async fn a_limit_that_holds_its_answers_counts_the_requests_in_flight() {
    let addr = serve().await;
    let r = send(&addr, "POST", "/limits?quota=10&window_s=60&answer_ms=300").await;
    let base = r.json()["base"].as_str().unwrap().to_owned();
    let target = format!("{base}/palettes?collection=coast");
    // Three at once, then one after they are answered.
    let (a, b, c) = tokio::join!(
        send(&addr, "GET", &target),
        send(&addr, "GET", &target),
        send(&addr, "GET", &target)
    );
    assert_eq!((a.status, b.status, c.status), (200, 200, 200));
    assert_eq!(send(&addr, "GET", &target).await.status, 200);
    let log = send(&addr, "GET", &base).await.json();
    assert_eq!(
        (log["answer_ms"].as_u64(), log["most_in_flight"].as_u64()),
        (Some(300), Some(3))
    );
    let requests = log["requests"].as_array().unwrap();
    let in_flight: Vec<u64> = requests
        .iter()
        .map(|r| r["in_flight"].as_u64().unwrap())
        .collect();
    assert_eq!(in_flight, [1, 2, 3, 1]);
    for r in requests {
        let (arrived, answered) = (
            r["arrived_ms"].as_u64().unwrap(),
            r["answered_ms"].as_u64().unwrap(),
        );
        assert!(answered >= arrived + 300, "{r}");
    }
    let r = send(&addr, "POST", "/limits?quota=1&window_s=1&answer_ms=soon").await;
    assert_eq!(
        (r.status, r.json()["error"].as_str().unwrap()),
        (400, "answer_ms=\"soon\": give a whole number, at least 0")
    );
}

#[tokio::test]
async fn a_limit_refuses_bad_settings_and_unknown_collections_by_name() {
    let addr = serve().await;
    for (target, message) in [
        ("/limits?window_s=10", "query parameter quota is missing"),
        (
            "/limits?quota=0&window_s=10",
            "quota=\"0\": give a whole number, at least 1",
        ),
        (
            "/limits?quota=3&window_s=ten",
            "window_s=\"ten\": give a whole number, at least 1",
        ),
        (
            "/limits?quota=3&window_s=10&spent=4",
            "spent=4 is more than quota=3",
        ),
        (
            "/limits?quota=3&window_s=10&kind=bucket",
            "kind=\"bucket\" is not fixed, gcra or sliding",
        ),
        (
            "/limits?quota=3&window_s=10&fields=no",
            "fields=\"no\" is not 0 or 1",
        ),
    ] {
        let r = send(&addr, "POST", target).await;
        assert_eq!(
            (r.status, r.json()["error"].as_str().unwrap()),
            (400, message)
        );
    }
    // A window that starts spent refuses at once, with the time to its reset.
    let base = send(&addr, "POST", "/limits?quota=3&window_s=10&spent=3")
        .await
        .json()["base"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = send(&addr, "GET", &format!("{base}/palettes?collection=coast")).await;
    assert_eq!((r.status, r.header("retry-after")), (429, Some("10")));
    let r = send(&addr, "GET", &format!("{base}/palettes?collection=ocean")).await;
    assert_eq!(
        (r.status, r.json()["error"].as_str().unwrap()),
        (
            404,
            "no collection \"ocean\" (the fixture files name coast)"
        )
    );
    let r = send(&addr, "GET", "/limits/9/palettes?collection=coast").await;
    assert_eq!(
        (r.status, r.json()["error"].as_str().unwrap()),
        (404, "no limit 9")
    );
}
