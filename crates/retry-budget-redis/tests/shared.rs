//! Several processes' ledgers through a real `redis-server` (Debian's, on a free loopback port,
//! stopped by the test), reading the scenario API's rate limit in this process, counted where
//! the requests arrive. Each `Client` here stands for one server process: it has its own
//! ledger, and its own connection to Redis.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use retry_budget::body::parse_json;
use retry_budget::report::{HeldBy, Overrun};
use retry_budget::request::ReadRequest;
use retry_budget::scope::RetryTokens;
use retry_budget::{Outcome, RetryPolicy, ScopePolicy};
use retry_budget_redis::{RedisShare, RedisShareError, ShareOptions, ShareStatus};
use retry_budget_tokio::{AllowedOrigins, Client, Lease, LedgerShare, ReadError, Served};
use serde_json::Value;
use tokio::process::{Child, Command};
use tokio::time::Instant;

const FIXTURE: &str = r##"{
  "policy": { "budget_s": 20, "max_attempts": 3, "attempt_cap_s": 4, "retry_statuses": [429],
              "min_wait_s": 1, "fallback_waits_s": [2] },
  "request": { "method": "GET", "path": "/palettes", "query": { "collection": "coast" } },
  "cases": [
    { "id": "refusing", "attempts": [
        { "duration_s": 0.05, "status": 429, "headers": { "Retry-After": "0" } },
        { "duration_s": 0.05, "status": 429, "headers": { "Retry-After": "0" } },
        { "duration_s": 0.05, "status": 429, "headers": { "Retry-After": "0" } },
        { "duration_s": 0.05, "status": 429, "headers": { "Retry-After": "0" } },
        { "duration_s": 0.05, "status": 429, "headers": { "Retry-After": "0" } },
        { "duration_s": 0.05, "status": 429, "headers": { "Retry-After": "0" } } ] }
  ],
  "bodies": { "coast": { "collection": "coast", "palettes": [ { "id": "a", "name": "A", "colors": ["#000000"] } ] } }
}"##;

/// A `redis-server` of this test's own on `port`, with nothing saved; killed when dropped.
struct Redis {
    port: u16,
    child: Child,
}

impl Redis {
    async fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Self::on(port).await
    }

    async fn on(port: u16) -> Self {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("redis-server is installed (scripts/install.sh installs Debian's)");
        let deadline = Instant::now() + Duration::from_secs(5);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(Instant::now() < deadline, "redis-server did not listen");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Self { port, child }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    async fn stop(mut self) -> u16 {
        self.child.kill().await.unwrap();
        self.port
    }
}

/// The scenario API on a free loopback port, and a limit of one request a `window_s` window,
/// its first window spent: (origin, the limit's URL).
async fn spent_limit(window_s: u32) -> (String, String) {
    let scenarios = scenario_api::Scenarios::new(vec![FIXTURE.to_owned()]).unwrap();
    let origin = scenario_api::serve_on_loopback(scenarios.router())
        .await
        .unwrap();
    let base = made(
        &origin,
        &format!("/limits?quota=1&window_s={window_s}&spent=1"),
    )
    .await;
    (origin, base)
}

/// What POSTing `path` to the scenario API at `origin` made (a limit, a run): its base URL.
async fn made(origin: &str, path: &str) -> String {
    let made = reqwest::Client::new()
        .post(format!("{origin}{path}"))
        .send()
        .await
        .unwrap();
    let made: Value = serde_json::from_slice(&made.bytes().await.unwrap()).unwrap();
    format!("{origin}{}", made["base"].as_str().unwrap())
}

/// What reached the limit: each request's status.
async fn reached(base: &str) -> Vec<u64> {
    let log = reqwest::Client::new().get(base).send().await.unwrap();
    let log: Value = serde_json::from_slice(&log.bytes().await.unwrap()).unwrap();
    (log["requests"].as_array().unwrap().iter())
        .map(|r| r["status"].as_u64().unwrap())
        .collect()
}

/// One process's client, sharing through Redis at `url` when given; what its share said.
async fn process(origin: &str, url: Option<&str>) -> (Client, Arc<Mutex<Vec<ShareStatus>>>) {
    let client = Client::new(AllowedOrigins::new([origin]).unwrap());
    let said = Arc::new(Mutex::new(Vec::new()));
    if let Some(url) = url {
        let share = RedisShare::open(url, ShareOptions::new()).unwrap();
        let log = said.clone();
        share.on_status(move |s| log.lock().unwrap().push(s.clone()));
        let _ = share.connect().await;
        assert!(client.share_with(share).is_ok());
    }
    (client, said)
}

/// A render's read: handed over at its first wait (`server_hold` 0), as a server's is.
async fn render(client: &Client, base: &str) -> Result<Served<Value>, ReadError> {
    let request = ReadRequest::get(format!("{base}/palettes?collection=coast"));
    client
        .read_or_hand_over(&request, RetryPolicy::new(), parse_json::<Value>)
        .await
}

fn handed_over(served: Result<Served<Value>, ReadError>) -> retry_budget::HandOver {
    match served {
        Ok(Served::HandedOver { hand_over, .. }) => hand_over,
        other => panic!("a hand-over: {other:?}"),
    }
}

/// Waits until Redis holds a block for some scope (the share writes from a task of its own).
async fn until_written(url: &str) {
    let client = redis::Client::open(url).unwrap();
    let mut c = client.get_multiplexed_async_connection().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(1);
    loop {
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg("retry-budget:block:*")
            .query_async(&mut c)
            .await
            .unwrap();
        if !keys.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "no block written");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_met_by_one_process_holds_back_the_others_and_they_send_nothing() {
    let redis = Redis::start().await;
    let (origin, base) = spent_limit(3).await;
    let (a, _) = process(&origin, Some(&redis.url())).await;
    let (b, _) = process(&origin, Some(&redis.url())).await;
    let (c, _) = process(&origin, Some(&redis.url())).await;
    // A meets the 429 (Retry-After 3) and hands its wait over.
    let first = handed_over(render(&a, &base).await);
    assert_eq!(first.attempts, 1);
    until_written(&redis.url()).await;
    // B and C, with ledgers of their own, take A's block from Redis: they send nothing and
    // hand over their first attempt with what remains of it.
    for other in [&b, &c] {
        let started = Instant::now();
        let held = handed_over(render(other, &base).await);
        assert_eq!(held.attempts, 0);
        assert!(
            held.wait > Duration::from_secs(2) && held.wait <= Duration::from_secs(3),
            "{held:?}"
        );
        assert!(started.elapsed() < Duration::from_millis(200));
    }
    assert_eq!(reached(&base).await, [429], "only A's request");
    // A process that does not share learns the block by meeting it.
    let (alone, _) = process(&origin, None).await;
    handed_over(render(&alone, &base).await);
    assert_eq!(reached(&base).await, [429, 429]);
    drop(redis);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_redis_away_each_process_keeps_its_blocks_and_publishes_them_once_it_is_back() {
    let redis = Redis::start().await;
    let url = redis.url();
    let (origin, base) = spent_limit(6).await;
    let (a, said_a) = process(&origin, Some(&url)).await;
    let (b, said_b) = process(&origin, Some(&url)).await;
    let port = redis.stop().await;

    // A meets the 429 with Redis away: it says so once, and its own ledger holds the block.
    handed_over(render(&a, &base).await);
    let again = handed_over(render(&a, &base).await);
    assert_eq!(
        again.attempts, 0,
        "A sends nothing during a block it knows of"
    );
    // B cannot hear of it: it asks Redis, finds it gone, and reads for itself.
    handed_over(render(&b, &base).await);
    let sent = reached(&base).await;
    assert_eq!(sent, [429, 429]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    for said in [&said_a, &said_b] {
        let said = said.lock().unwrap().clone();
        assert_eq!(said.len(), 1, "once: {said:?}");
        assert!(matches!(said[0], ShareStatus::Away(_)), "{said:?}");
    }

    // Redis comes back, empty: within a second each process says so, and the blocks they
    // hold are written again.
    let back = Redis::on(port).await;
    let returned = Instant::now();
    loop {
        let said = said_a.lock().unwrap().clone();
        if let Some(ShareStatus::Back { republished, .. }) = said.get(1) {
            assert_eq!(*republished, 1);
            break;
        }
        assert!(returned.elapsed() < Duration::from_secs(1), "{said:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A third process, new, learns the block from Redis and sends nothing.
    let (c, said_c) = process(&origin, Some(&url)).await;
    let held = handed_over(render(&c, &base).await);
    assert_eq!(held.attempts, 0);
    assert_eq!(reached(&base).await, sent, "C sent nothing");
    assert!(said_c.lock().unwrap().is_empty());
    drop(back);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_url_or_an_unreachable_redis_is_named_and_the_process_reads_alone() {
    let refused = RedisShare::open("http://127.0.0.1:6379/", ShareOptions::new());
    let Err(RedisShareError::Url(why)) = refused else {
        panic!("refused by name: {:?}", refused.err())
    };
    assert_eq!(why, "Redis URL did not parse - InvalidClientConfig");

    // Nothing listens on the port: named by host and port, never with the URL's password.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let share = RedisShare::open(
        &format!("redis://:hunter2@127.0.0.1:{port}/"),
        ShareOptions::new(),
    )
    .unwrap();
    let said = Arc::new(Mutex::new(Vec::new()));
    let log = said.clone();
    share.on_status(move |s| log.lock().unwrap().push(s.to_string()));
    let e = share.connect().await.unwrap_err();
    let message = e.to_string();
    assert!(message.contains(&format!("127.0.0.1:{port}")), "{message}");
    assert!(!message.contains("hunter2"), "{message}");
    let said = said.lock().unwrap().clone();
    assert_eq!(said.len(), 1);
    assert!(said[0].contains("reads with its own ledger"), "{said:?}");
    assert!(!said[0].contains("hunter2"));

    // The process still reads, with its own ledger.
    let (origin, base) = spent_limit(3).await;
    let client = Client::new(AllowedOrigins::new([origin.as_str()]).unwrap());
    assert!(client.share_with(share).is_ok());
    handed_over(render(&client, &base).await);
    let again = handed_over(render(&client, &base).await);
    assert_eq!((again.attempts, reached(&base).await.len()), (0, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_redis_costs_a_read_at_most_its_timeout_and_is_said_once() {
    let redis = Redis::start().await;
    let (origin, base) = spent_limit(3).await;
    let (b, said) = process(&origin, Some(&redis.url())).await;
    // Redis holds every command for 600 ms: slow, not gone.
    let mut pauser = redis::Client::open(redis.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let () = redis::cmd("CLIENT")
        .arg("PAUSE")
        .arg(600)
        .arg("ALL")
        .query_async(&mut pauser)
        .await
        .unwrap();
    // Ten renders at once: each waits for Redis no longer than the 100 ms timeout, then reads
    // with the process's own ledger; the process says once that Redis is away.
    let started = Instant::now();
    let renders: Vec<_> = (0..10)
        .map(|_| {
            let (b, base) = (b.clone(), base.clone());
            tokio::spawn(async move { render(&b, &base).await })
        })
        .collect();
    let mut all = Vec::new();
    for r in renders {
        all.push(r.await.unwrap());
    }
    assert!(
        started.elapsed() < Duration::from_millis(400),
        "{:?}",
        started.elapsed()
    );
    let all: Vec<_> = all.into_iter().map(handed_over).collect();
    assert!(all.iter().all(|h| h.attempts <= 1), "{all:?}");
    let away = said.lock().unwrap().clone();
    assert_eq!(away.len(), 1, "{away:?}");
    assert!(
        matches!(&away[0], ShareStatus::Away(RedisShareError::Timeout { .. })),
        "{away:?}"
    );
    // Once Redis answers again, the process says so and writes the block it learned.
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let said = said.lock().unwrap().clone();
        if let Some(ShareStatus::Back { republished, .. }) = said.get(1) {
            assert_eq!(*republished, 1, "{said:?}");
            break;
        }
        assert!(Instant::now() < deadline, "{said:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    until_written(&redis.url()).await;
}

/// A run of the scenario API's `refusing` case (every answer a 429 with `Retry-After: 0`) on
/// a server of its own: (origin, the run's palettes URL, the run's report URL).
async fn refusing_run() -> (String, String, String) {
    let (origin, _) = spent_limit(3).await;
    let base = made(&origin, "/runs?scenario=refusing").await;
    (origin, format!("{base}/palettes?collection=coast"), base)
}

/// How many requests reached a run.
async fn run_requests(report: &str) -> usize {
    let log = reqwest::Client::new().get(report).send().await.unwrap();
    let log: Value = serde_json::from_slice(&log.bytes().await.unwrap()).unwrap();
    log["requests"].as_array().unwrap().len()
}

/// Two processes, each giving the API's scope one retry token (a tenth back per success),
/// each reading the refusing run once, one after the other: the requests that reached it.
async fn two_reads_on_one_token(share: Option<&str>) -> usize {
    let (origin, palettes, report) = refusing_run().await;
    for _ in 0..2 {
        let (client, _) = process(&origin, share).await;
        let one = ScopePolicy::new().with_retry_tokens(RetryTokens::new(1, 10));
        client.scope_policy(&origin, one).unwrap();
        let request = ReadRequest::get(palettes.clone());
        match client
            .read(&request, RetryPolicy::new(), parse_json::<Value>)
            .await
        {
            Err(ReadError::Stopped { report, .. }) => assert_eq!(
                report.outcome,
                Outcome::BudgetExhausted(Overrun::Scope(HeldBy::RetryTokens)),
                "{report:?}"
            ),
            other => panic!("stopped for want of a token: {other:?}"),
        }
    }
    run_requests(&report).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_processes_retry_no_more_than_the_purse_they_share_allows() {
    // Each alone: both spend their own token, 2 requests each.
    assert_eq!(two_reads_on_one_token(None).await, 4);
    // Sharing: the first process takes the one token for its retry; the second finds the
    // shared purse empty, and its first 429 stops it.
    let redis = Redis::start().await;
    assert_eq!(two_reads_on_one_token(Some(&redis.url())).await, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renders_that_meet_a_silent_redis_together_each_wait_at_most_the_timeout() {
    // Something accepts connections where Redis should be, and never answers.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = silent.local_addr().unwrap().port();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            held.push(socket);
        }
    });
    let (origin, base) = spent_limit(3).await;
    let client = Client::new(AllowedOrigins::new([origin.as_str()]).unwrap());
    let share =
        RedisShare::open(&format!("redis://127.0.0.1:{port}/"), ShareOptions::new()).unwrap();
    share.on_status(|_| {});
    assert!(client.share_with(share).is_ok());
    // Ten renders at once, before the share knows anything: none queues behind another's
    // wait for a connection.
    let started = Instant::now();
    let renders: Vec<_> = (0..10)
        .map(|_| {
            let (client, base) = (client.clone(), base.clone());
            tokio::spawn(async move {
                let started = Instant::now();
                handed_over(render(&client, &base).await);
                started.elapsed()
            })
        })
        .collect();
    for r in renders {
        let took = r.await.unwrap();
        assert!(
            took < Duration::from_millis(300),
            "a render waited {took:?}"
        );
    }
    assert!(started.elapsed() < Duration::from_millis(500));
}

#[tokio::test]
async fn redis_away_and_back_are_said_through_tracing_by_host_and_port_and_counted() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("redis://127.0.0.1:{port}/");
    let options = ShareOptions::new().with_retry_every(Duration::from_millis(50));
    let share = RedisShare::open(&url, options).unwrap();
    // This runtime's one thread runs the share's task that asks for Redis again, so the
    // subscriber set here sees what that task says.
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let sink = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || Sink(sink.clone()))
        .finish();
    let _default = tracing::subscriber::set_default(subscriber);
    let recorder = metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
    let counted = recorder.handle();
    let _recorder = metrics::set_default_local_recorder(&recorder);
    share.connect().await.unwrap_err();
    // A second failed call in the same absence is not a second one.
    share.connect().await.unwrap_err();
    let redis = Redis::on(port).await;
    let said = || String::from_utf8(buffer.lock().unwrap().clone()).unwrap();
    let started = Instant::now();
    while !said().contains("Redis back") {
        assert!(started.elapsed() < Duration::from_secs(2), "{}", said());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let said = said();
    let place = format!("redis=127.0.0.1:{port}");
    let away: Vec<&str> = (said.lines())
        .filter(|l| l.contains("Redis away"))
        .collect();
    assert_eq!(away.len(), 1, "{said}");
    assert!(
        away[0].contains("WARN") && away[0].contains(&place),
        "{said}"
    );
    let back: Vec<&str> = (said.lines())
        .filter(|l| l.contains("Redis back"))
        .collect();
    assert!(
        back[0].contains("INFO") && back[0].contains(&place),
        "{said}"
    );
    assert!(!said.contains("redis://"), "the URL was written: {said}");
    let counted = counted.render();
    assert!(
        counted
            .lines()
            .any(|l| l == "retry_budget_redis_away_total 1"),
        "{counted}"
    );
    drop(redis);
}

/// Where a test's subscriber writes.
struct Sink(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `reads` reads at once, taking turns across `processes`, one collection each, against
/// `base`: how many loaded, and when the last ended.
async fn crowd(processes: &[Client], base: &str, reads: usize) -> (usize, Duration) {
    let started = Instant::now();
    let mut all = tokio::task::JoinSet::new();
    for i in 0..reads {
        let client = processes[i % processes.len()].clone();
        let request = ReadRequest::get(format!("{base}/palettes?collection=c{i}"));
        all.spawn(async move {
            let read = client.read(&request, RetryPolicy::new(), parse_json::<Value>);
            read.await.is_ok()
        });
    }
    let loaded = all.join_all().await;
    (loaded.iter().filter(|l| **l).count(), started.elapsed())
}

/// The scenario API on a free loopback port, its fixture with a collection for each of
/// `reads` reads (`c0`, `c1`, …, as [`crowd`] asks for them): its origin.
async fn crowd_api(reads: usize) -> String {
    let mut fixture: Value = serde_json::from_str(FIXTURE).unwrap();
    let coast = fixture["bodies"]["coast"].clone();
    for i in 0..reads {
        fixture["bodies"][format!("c{i}")] = coast.clone();
    }
    let scenarios = scenario_api::Scenarios::new(vec![fixture.to_string()]).unwrap();
    scenario_api::serve_on_loopback(scenarios.router())
        .await
        .unwrap()
}

/// Of what reached the limit at `base`, the requests a read sent before the `Retry-After` a
/// `429` had given that same read was over (each read asks for a collection of its own).
async fn sent_early(base: &str) -> usize {
    let log = reqwest::Client::new().get(base).send().await.unwrap();
    let log: Value = serde_json::from_slice(&log.bytes().await.unwrap()).unwrap();
    let mut until = std::collections::HashMap::new();
    let mut early = 0;
    for r in log["requests"].as_array().unwrap() {
        let read = r["collection"].as_str().unwrap().to_owned();
        let arrived = r["arrived_ms"].as_u64().unwrap();
        let held = until.entry(read).or_insert(0);
        early += usize::from(arrived < *held);
        if let (Some(s), Some(answered)) = (r["retry_after_s"].as_u64(), r["answered_ms"].as_u64())
        {
            *held = (*held).max(answered + s * 1000);
        }
    }
    early
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_sharing_blocks_each_learn_their_share_of_the_pace() {
    let redis = Redis::start().await;
    let origin = crowd_api(60).await;
    // 60 reads at once across three replicas, on 10 answers a second: six windows' worth.
    let mut runs = Vec::new();
    for pace in [true, false] {
        let mut replicas = Vec::new();
        for _ in 0..3 {
            let (client, _) = process(&origin, Some(&redis.url())).await;
            replicas.push(client.with_learned_pace(pace));
        }
        // 10 answers a second in fixed windows, with the RateLimit fields.
        let base = made(&origin, "/limits?quota=10&window_s=1").await;
        let (loaded, took) = crowd(&replicas, &base, 60).await;
        let requests = reached(&base).await.len();
        let shares: Vec<_> = (replicas.iter())
            .map(|r| r.scope_state(&origin).pace.map(|p| p.turns))
            .collect();
        eprintln!("pace {pace}: {loaded} loaded, {requests} requests, {took:?}, shares {shares:?}");
        assert_eq!(sent_early(&base).await, 0, "pace {pace}");
        runs.push((loaded, requests, shares));
    }
    let [(loaded, requests, shares), (loaded_off, requests_off, _)] = &runs[..] else {
        unreachable!()
    };
    // Each replica learns from its own answers: its share of what a window served. Which
    // replica's requests a window serves is a race, so a replica may meet every block with
    // nothing served in its run; it learns no share from that (it keeps its opening window),
    // and which ones learn differs from run to run (a fresh clone's CI met `[10, None, 10]`).
    assert!(shares.iter().any(Option::is_some), "{shares:?}");
    // Held to their shares, the three load more reads with fewer requests than released at
    // once at each block's end (30 of 60 in 150 requests, every time).
    assert!(loaded > loaded_off, "{loaded} against {loaded_off}");
    assert!(requests < requests_off, "{requests} against {requests_off}");
    drop(redis);
}

/// A limit on the API at `origin` that serves everything, each answer held `answer_ms`: its
/// base URL.
async fn slow_limit(origin: &str, answer_ms: u32) -> String {
    made(
        origin,
        &format!("/limits?quota=100000&window_s=1&answer_ms={answer_ms}"),
    )
    .await
}

/// The most requests the limit at `base` held at once.
async fn most_in_flight(base: &str) -> u64 {
    let log = reqwest::Client::new().get(base).send().await.unwrap();
    let log: Value = serde_json::from_slice(&log.bytes().await.unwrap()).unwrap();
    log["most_in_flight"].as_u64().unwrap()
}

/// A replica: one process's client on `origin`, sharing through Redis at `url` when given,
/// its scope's policy allowing `limit` requests in flight.
async fn replica(origin: &str, url: Option<&str>, limit: u32) -> Client {
    let (client, _) = process(origin, url).await;
    let policy = ScopePolicy::new().with_in_flight_limit(limit);
    client.scope_policy(origin, policy).unwrap();
    client
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_sharing_send_no_more_at_once_than_the_scopes_limit() {
    let redis = Redis::start().await;
    let origin = crowd_api(30).await;
    // Alone, each replica holds the scope's limit of its own: three times it at the API.
    let base = slow_limit(&origin, 150).await;
    let mut alone = Vec::new();
    for _ in 0..3 {
        alone.push(replica(&origin, None, 2).await);
    }
    assert_eq!(crowd(&alone, &base, 30).await.0, 30);
    assert_eq!(most_in_flight(&base).await, 6);
    // Sharing their places through Redis, never more than the limit.
    let base = slow_limit(&origin, 150).await;
    let mut sharing = Vec::new();
    for _ in 0..3 {
        sharing.push(replica(&origin, Some(&redis.url()), 2).await);
    }
    let (loaded, took) = crowd(&sharing, &base, 30).await;
    assert_eq!(loaded, 30);
    assert_eq!(most_in_flight(&base).await, 2);
    // 15 rounds of 150 ms, and the asks between them.
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_place_held_by_a_replica_that_died_is_free_once_its_cap_and_margin_have_passed() {
    let redis = Redis::start().await;
    let origin = crowd_api(1).await;
    let base = slow_limit(&origin, 0).await;
    // A replica killed mid-attempt: it took the scope's one place for an attempt capped at
    // 1 s, with a margin of 500 ms, and never gives it back.
    let options = ShareOptions::new().with_place_margin(Duration::from_millis(500));
    let dead = RedisShare::open(&redis.url(), options).unwrap();
    dead.connect().await.unwrap();
    let cap = Duration::from_secs(1);
    // (A Redis used for the first time gives no place for its first second.)
    while LedgerShare::take_lease(&dead, &origin, 1, 1, cap).await != Some(Lease::Taken) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let started = Instant::now();
    // Gone, it keeps its place true no longer, and gives nothing back.
    drop(dead);
    let live = replica(&origin, Some(&redis.url()), 1).await;
    assert_eq!(crowd(&[live], &base, 1).await.0, 1);
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(1_400) && waited < Duration::from_millis(2_200),
        "sent after {waited:?}, the dead replica's place held 1.5 s"
    );
    assert_eq!(most_in_flight(&base).await, 1);
}

/// Of what reached the limit at `base`, the requests that arrived while a block a `429` had
/// given still ran: after its answer (and 25 ms for the answer's way back), before the end of
/// its `Retry-After`.
async fn sent_during_a_block(base: &str) -> usize {
    let log = reqwest::Client::new().get(base).send().await.unwrap();
    let log: Value = serde_json::from_slice(&log.bytes().await.unwrap()).unwrap();
    let requests = log["requests"].as_array().unwrap();
    let blocks: Vec<(u64, u64)> = (requests.iter())
        .filter_map(|r| Some((r["answered_ms"].as_u64()?, r["retry_after_s"].as_u64()?)))
        .map(|(answered, s)| (answered + 25, answered + s * 1000))
        .collect();
    (requests.iter())
        .filter_map(|r| r["arrived_ms"].as_u64())
        .filter(|t| blocks.iter().any(|(from, until)| from <= t && t < until))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_place_is_given_to_send_on_during_a_block_another_replica_met() {
    let redis = Redis::start().await;
    let origin = crowd_api(2).await;
    let a = replica(&origin, Some(&redis.url()), 1).await;
    let b = replica(&origin, Some(&redis.url()), 1).await;
    // Past the first second of a Redis used for the first time.
    let warm = slow_limit(&origin, 0).await;
    assert_eq!(crowd(std::slice::from_ref(&a), &warm, 1).await.0, 1);
    // The window is spent: the first request is refused 300 ms after it arrives, with the
    // seconds left in the window; the next window serves two.
    let base = made(&origin, "/limits?quota=2&window_s=2&spent=2&answer_ms=300").await;
    let read = |client: &Client, collection: &str| {
        let (client, base) = (client.clone(), base.clone());
        let request = ReadRequest::get(format!("{base}/palettes?collection={collection}"));
        tokio::spawn(async move {
            let read = client.read(&request, RetryPolicy::new(), parse_json::<Value>);
            read.await.is_ok()
        })
    };
    let first = read(&a, "c0");
    tokio::time::sleep(Duration::from_millis(100)).await;
    // The second replica reads while the first's request holds the one place, before its
    // `429`: it has heard of no block, and asks for the place until one is free.
    let second = read(&b, "c1");
    assert!(first.await.unwrap() && second.await.unwrap());
    assert_eq!(reached(&base).await, [429, 200, 200]);
    // The place the refused attempt gave back was no one's to send on until the block ended.
    assert_eq!(sent_during_a_block(&base).await, 0);
    assert_eq!(most_in_flight(&base).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_used_for_the_first_time_waits_its_second_from_the_first_connect() {
    let redis = Redis::start().await;
    let origin = crowd_api(1).await;
    // Connected (as a server does as it starts), then idle for longer than the wait.
    let replica = replica(&origin, Some(&redis.url()), 1).await;
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    // The first read is given its place at once: the wait began at the connect.
    let (loaded, took) = crowd(&[replica], &slow_limit(&origin, 0).await, 1).await;
    assert_eq!(loaded, 1);
    assert!(took < Duration::from_millis(300), "{took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_dropped_mid_attempt_gives_its_place_back_at_once() {
    let redis = Redis::start().await;
    let origin = crowd_api(1).await;
    let a = replica(&origin, Some(&redis.url()), 1).await;
    let b = replica(&origin, Some(&redis.url()), 1).await;
    // A Redis used for the first time gives no place for 1 s (4 × `retry_every`) from the
    // first connect, as one that restarted empty: a read right after the connect waits that.
    let (loaded, took) = crowd(std::slice::from_ref(&a), &slow_limit(&origin, 0).await, 1).await;
    assert_eq!(loaded, 1);
    assert!(took >= Duration::from_millis(900), "{took:?}");
    let base = slow_limit(&origin, 2_000).await;
    // A render that goes away while its request is in flight: its future is dropped.
    let request = ReadRequest::get(format!("{base}/palettes?collection=c0"));
    let read = a.read(&request, RetryPolicy::new(), parse_json::<Value>);
    assert!(tokio::time::timeout(Duration::from_millis(300), read)
        .await
        .is_err());
    // Not held for its cap and margin (5 s): the other replica sends at once.
    let dropped = Instant::now();
    let (loaded, _) = crowd(&[b], &base, 1).await;
    assert_eq!(loaded, 1);
    let took = dropped.elapsed();
    assert!(
        took < Duration::from_millis(2_600),
        "{took:?}: the place was not given back"
    );
    assert_eq!(
        most_in_flight(&base).await,
        1,
        "the dropped request was aborted"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_started_empty_holds_the_running_places_again_before_it_gives_any() {
    let redis = Redis::start().await;
    let origin = crowd_api(2).await;
    let base = slow_limit(&origin, 3_000).await;
    let a = replica(&origin, Some(&redis.url()), 1).await;
    let request = ReadRequest::get(format!("{base}/palettes?collection=c0"));
    let first = tokio::spawn(async move {
        let read = a.read(&request, RetryPolicy::new(), parse_json::<Value>);
        read.await.is_ok()
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Redis dies while the place is held, and comes back at once with nothing in it.
    let port = redis.stop().await;
    let redis = Redis::on(port).await;
    let restarted = Instant::now();
    // A replica that asks the empty Redis at once is given no place until the first
    // replica's is there again, and then none until it is given back.
    let b = replica(&origin, Some(&redis.url()), 1).await;
    let (loaded, _) = crowd(&[b], &base, 1).await;
    assert_eq!(loaded, 1);
    assert!(first.await.unwrap());
    assert_eq!(most_in_flight(&base).await, 1);
    assert!(restarted.elapsed() >= Duration::from_millis(2_500));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_render_asks_for_its_place_and_sends_on_it_rather_than_let_its_read_go() {
    let redis = Redis::start().await;
    let origin = crowd_api(1).await;
    let base = slow_limit(&origin, 0).await;
    let replica = replica(&origin, Some(&redis.url()), 2).await;
    // Past the first second of a Redis used for the first time.
    assert_eq!(crowd(std::slice::from_ref(&replica), &base, 1).await.0, 1);
    // A render holds its read for nothing (`server_hold` 0): the round trip that asks for the
    // place is not a queue, so its read is sent, not let go to the browser.
    for _ in 0..10 {
        let request = ReadRequest::get(format!("{base}/palettes?collection=c0"));
        let served = replica.read_or_hand_over(&request, RetryPolicy::new(), parse_json::<Value>);
        assert!(matches!(served.await, Ok(Served::Loaded(_))));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_redis_paused_reads_on_a_limited_scope_go_on_the_processs_own_limit() {
    let redis = Redis::start().await;
    let origin = crowd_api(10).await;
    let base = slow_limit(&origin, 0).await;
    let replica = replica(&origin, Some(&redis.url()), 2).await;
    assert_eq!(crowd(std::slice::from_ref(&replica), &base, 1).await.0, 1);
    // Paused (SIGSTOP): Redis holds its connections and answers nothing.
    let pid = redis.child.id().unwrap().to_string();
    let signal = |s: &str| std::process::Command::new("kill").args([s, &pid]).status();
    assert!(signal("-STOP").unwrap().success());
    let base = slow_limit(&origin, 100).await;
    let (loaded, took) = crowd(std::slice::from_ref(&replica), &base, 10).await;
    assert!(signal("-CONT").unwrap().success());
    // Each asks within the share's timeout (100 ms), then goes on this process's limit of 2:
    // five rounds of 100 ms, not a wait for Redis.
    assert_eq!(loaded, 10);
    assert!(took < Duration::from_millis(1_500), "{took:?}");
    assert_eq!(most_in_flight(&base).await, 2);
    // Back, Redis holds none of the places those attempts gave back: a read goes at once,
    // not after their cap and margin (5 s).
    tokio::time::sleep(Duration::from_millis(800)).await;
    let base = slow_limit(&origin, 0).await;
    let (loaded, took) = crowd(std::slice::from_ref(&replica), &base, 2).await;
    assert_eq!(loaded, 2);
    assert!(
        took < Duration::from_millis(1_000),
        "{took:?}: places held past their attempts"
    );
}
