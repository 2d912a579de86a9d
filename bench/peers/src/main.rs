//! This crate's reqwest middleware (`retry_budget_tokio::Budget`, `RetryPolicy::new()`: 20 s,
//! 3 attempts) side by side with `reqwest-retry` (its default `ExponentialBackoff` with 2
//! retries, and one tuned to the same 20 s and 3 attempts) and plain `reqwest`, in one run,
//! over loopback against the scenario API in this process, counted where the requests arrive.
//! Every case gets new clients, so no ledger carries a block from one case into the next.
//!
//! Single reads, 20 at once, each against an API of its own:
//! - `429, N s`: a rate limit of one answer per `N`-second window whose first window is spent,
//!   so the first request is refused with `Retry-After: N` and the window after serves the
//!   data; a request during the block is refused too, as a real API would.
//! - `503`: a `503` with no delay, then the data (a scenario run: each request answered in turn).
//! - `200`: the data at once, 1,000 reads (50 rounds of 20, the clients taking turns in each
//!   round), for the time the middleware costs where nothing is retried.
//!
//! Then a limited API (10 answers a second, fixed windows, `429` with `Retry-After` to the
//! window's end) under 100 callers, each starting at most one read a second, for `--seconds`
//! (default 20); here this crate also reads with the scope's in-flight limit 10. Then 100
//! callers at once, one read each, against 10 answers a second, and 1,000 against 100: this
//! crate with its defaults, with `for_shared_quota`, and with the scope's in-flight limit,
//! beside `reqwest-retry`, plain `reqwest` and the bound (one request a read); and 1,000
//! callers spread evenly over a minute against 10 a second, more than it serves.
//!
//! Columns: reads loaded; requests at the API per loaded read; requests a read sent during a
//! block it had been told of (each read against a shared limiter asks for a collection of its
//! own, so the limiter's log tells the reads apart, and each `429` asks for the rest of its
//! window in whole seconds); answers delivered past the 20 s deadline; p50 and
//! p99 time to the answer. Plain `reqwest` is the baseline.
//!
//! Last, 10,000 calls in flight at once through the middleware, the scope's in-flight limit
//! 200 (`ScopePolicy`), against an API that holds each answer 100 ms; beside them the same
//! calls through plain `reqwest` behind a 200-permit semaphore, the loop an app would write.
//! Heap bytes are counted by this binary's allocator: before, at the most, and after.
//!
//! ```text
//! cargo run --release -p bench-peers [-- --seconds 20]
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};
use reqwest_retry::policies::ExponentialBackoff;
use reqwest_retry::RetryTransientMiddleware;
use retry_budget_tokio::{AllowedOrigins, Budget, Client, RetryPolicy, ScopePolicy, StatusSet};
use serde_json::Value;

/// The deadline every client is held to: the budget's 20 s.
const DEADLINE: Duration = Duration::from_secs(20);

/// Reads at once in each single-read case.
const AT_ONCE: usize = 20;

/// Rounds of `AT_ONCE` reads in the `200` case.
const TWO_HUNDRED_ROUNDS: usize = 50;

/// Callers against the limited API.
const CALLERS: u32 = 100;

const CASES: &str = r##"{
  "policy": { "budget_s": 20, "max_attempts": 3, "attempt_cap_s": 5, "retry_statuses": [429, 503],
              "min_wait_s": 0.5, "fallback_waits_s": [1, 2] },
  "request": { "method": "GET", "path": "/palettes", "query": { "collection": "coast" } },
  "cases": [
    { "id": "503", "attempts": [
        { "duration_s": 0.02, "status": 503 },
        { "duration_s": 0.02, "status": 200, "body": "coast" } ] },
    { "id": "200", "attempts": [ { "duration_s": 0.02, "status": 200, "body": "coast" } ] }
  ],
  "bodies": { "coast": { "collection": "coast", "palettes": [ { "id": "a", "name": "A", "colors": ["#000000"] } ] } }
}"##;

/// Collections `c0`, `c1`, …: each read against a shared limiter asks for its own, so that
/// the limiter's log tells the reads apart.
const COLLECTIONS: usize = 1_000;

/// The fixture: `CASES`, with the collections each read asks for.
fn fixture() -> Result<String, Failed> {
    let mut fixture: Value = serde_json::from_str(CASES)?;
    let coast = fixture["bodies"]["coast"].clone();
    for i in 0..COLLECTIONS {
        let mut body = coast.clone();
        body["collection"] = Value::from(format!("c{i}"));
        fixture["bodies"][format!("c{i}")] = body;
    }
    Ok(fixture.to_string())
}

/// Calls in flight at once in the memory case.
const IN_FLIGHT: usize = 10_000;

/// The scope's in-flight limit in the memory case, and the plain loop's permits.
const AT_THE_API: u32 = 200;

/// The system allocator, counting the bytes live and the most live since [`Heap::reset_most`].
struct Heap;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static MOST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to `System` as it came; the counters are only counters.
unsafe impl GlobalAlloc for Heap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            MOST.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

impl Heap {
    fn live() -> usize {
        LIVE.load(Ordering::Relaxed)
    }

    fn reset_most() {
        MOST.store(Heap::live(), Ordering::Relaxed);
    }

    fn most() -> usize {
        MOST.load(Ordering::Relaxed)
    }
}

#[global_allocator]
static ALLOCATOR: Heap = Heap;

/// One case of the bench.
#[derive(Clone, Copy)]
enum Case {
    /// One answer per `.0`-second window, the first window spent: a `429` asking `.0` s.
    Refused(u64),
    /// A scenario run of the fixture above, by its id.
    Run(&'static str),
    /// Ten answers a second under `CALLERS` callers for `.0`.
    Crowd(Duration),
}

impl Case {
    fn name(self) -> String {
        match self {
            Case::Refused(s) => format!("429, {s} s"),
            Case::Run("200") => format!("200 ({} reads)", AT_ONCE * TWO_HUNDRED_ROUNDS),
            Case::Run(id) => id.to_owned(),
            Case::Crowd(d) => format!("10 a second, {CALLERS} callers, {} s", d.as_secs()),
        }
    }
}

/// What one client's reads of one case came to.
#[derive(Default)]
struct Row {
    reads: usize,
    loaded: usize,
    requests: usize,
    during_block: usize,
    past_deadline: usize,
    /// Each read's time to its answer (or its error).
    times: Vec<Duration>,
}

impl Row {
    fn add(&mut self, (loaded, took): (bool, Duration)) {
        self.reads += 1;
        self.loaded += usize::from(loaded);
        self.past_deadline += usize::from(took > DEADLINE);
        self.times.push(took);
    }

    fn percentile(&self, p: f64) -> Duration {
        let mut times = self.times.clone();
        times.sort_unstable();
        let i = ((times.len() as f64 - 1.0) * p).round() as usize;
        times.get(i).copied().unwrap_or_default()
    }

    fn print(&self, case: &str, client: &str) {
        let per_loaded = if self.loaded == 0 {
            "-".to_owned()
        } else {
            format!("{:.2}", self.requests as f64 / self.loaded as f64)
        };
        println!(
            "| {case} | {client} | {} of {} | {per_loaded} | {} | {} | {:.3} s | {:.3} s |",
            self.loaded,
            self.reads,
            self.during_block,
            self.past_deadline,
            self.percentile(0.5).as_secs_f64(),
            self.percentile(0.99).as_secs_f64(),
        );
    }
}

type Failed = Box<dyn std::error::Error>;

#[tokio::main]
async fn main() -> Result<(), Failed> {
    let (seconds, only) = args()?;
    let origin = serve().await?;
    match only {
        Some(Only::AtOnce) => return at_once_tables(&origin).await,
        Some(Only::Spread) => return spread_table(&origin).await,
        None => {}
    }
    println!(
        "bench-peers: {AT_ONCE} reads at once per case, then {CALLERS} callers for {seconds} s against 10 answers a second"
    );
    println!();
    println!("| case | client | loaded | requests per loaded read | requests during a block | answers past the deadline | p50 | p99 |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    let cases = [
        Case::Refused(1),
        Case::Refused(5),
        Case::Refused(30),
        Case::Run("503"),
        Case::Run("200"),
        Case::Crowd(Duration::from_secs(seconds)),
    ];
    let mut on_200 = Vec::new();
    for case in cases {
        let clients = clients(&origin, case)?;
        let rows = match case {
            Case::Run("200") => two_hundreds(&clients, &origin).await?,
            _ => {
                let mut rows = Vec::new();
                for (_, http) in &clients {
                    rows.push(match case {
                        Case::Refused(s) => refused(http, &origin, s, case).await?,
                        Case::Run(id) => runs(http, &origin, id, case).await?,
                        Case::Crowd(d) => crowd(http, &origin, d).await?,
                    });
                }
                rows
            }
        };
        for ((client, _), row) in clients.iter().zip(&rows) {
            row.print(&case.name(), client);
        }
        if matches!(case, Case::Run("200")) {
            on_200 = rows.iter().map(|row| row.percentile(0.99)).collect();
        }
    }
    at_once_tables(&origin).await?;
    spread_table(&origin).await?;
    println!();
    println!("{IN_FLIGHT} calls in flight at once, {AT_THE_API} at a time at the API, each answer held 100 ms:");
    println!();
    println!("| client | loaded | most at the API at once | took | heap before | heap at the most | heap after |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    in_flight(&origin, true).await?;
    in_flight(&origin, false).await?;
    // The middleware's cost where nothing is retried, beside plain reqwest's.
    if let (Some(ours), Some(plain)) = (on_200.first(), on_200.last()) {
        println!();
        println!(
            "on 200s, p99: this crate {:.1} ms, plain reqwest {:.1} ms ({:+.1} %)",
            ours.as_secs_f64() * 1e3,
            plain.as_secs_f64() * 1e3,
            (ours.as_secs_f64() / plain.as_secs_f64().max(1e-9) - 1.0) * 100.0
        );
    }
    Ok(())
}

/// The tables of many callers at once: 100 on 10 answers a second against each kind of
/// limiter, with and without the RateLimit fields; 1,000 on 100 against fixed windows.
async fn at_once_tables(origin: &str) -> Result<(), Failed> {
    let mut cases = Vec::new();
    for kind in ["fixed", "gcra", "sliding"] {
        for fields in [true, false] {
            cases.push((100, 10, kind, fields));
        }
    }
    cases.extend([(1_000, 100, "fixed", true), (1_000, 100, "fixed", false)]);
    for (callers, quota, kind, fields) in cases {
        let told = if fields { "with" } else { "without" };
        println!();
        println!(
            "{callers} callers at once, one read each, against {quota} answers a second ({kind}, {told} the RateLimit fields):"
        );
        println!();
        println!("| client | requests | per loaded read | loaded | sent during a block | all done after |");
        println!("|---|---:|---:|---:|---:|---:|");
        many(origin, (callers, Duration::ZERO), (quota, kind, fields)).await?;
    }
    Ok(())
}

/// The table of many callers spread over a minute: 1,000, one read each, evenly over 60 s,
/// against 10 answers a second (fixed windows, with the RateLimit fields): more than the quota
/// serves, so some reads cannot load within their 20 s, and what a client sends for them is
/// the load it adds for nothing.
async fn spread_table(origin: &str) -> Result<(), Failed> {
    let (callers, over, quota) = (1_000, Duration::from_secs(60), 10);
    println!();
    println!(
        "{callers} callers spread evenly over {} s, one read each, against {quota} answers a second (fixed, with the RateLimit fields):",
        over.as_secs()
    );
    println!();
    println!(
        "| client | requests | per loaded read | loaded | sent during a block | all done after |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    many(origin, (callers, over), (quota, "fixed", true)).await
}

/// Which table alone a run prints.
enum Only {
    /// The tables of many callers at once.
    AtOnce,
    /// The table of many callers spread over a minute.
    Spread,
}

/// `--seconds N`: how long the callers read the limited API; `--at-once`: only the tables of
/// many callers at once; `--spread`: only the table of many callers spread over a minute.
fn args() -> Result<(u64, Option<Only>), String> {
    let mut args = std::env::args().skip(1);
    let (mut seconds, mut only) = (20, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--at-once" => only = Some(Only::AtOnce),
            "--spread" => only = Some(Only::Spread),
            "--seconds" => {
                let v = args.next().ok_or("--seconds needs a value")?;
                seconds = v
                    .parse()
                    .map_err(|_| format!("--seconds {v:?} is not a whole number"))?;
            }
            other => {
                return Err(format!(
                    "unknown argument {other:?}; try --seconds N, --at-once or --spread"
                ))
            }
        }
    }
    Ok((seconds, only))
}

/// This crate's policy in `case`: the defaults, which retry `429` only; told to retry `503`
/// too in the `503` case, as `reqwest-retry` does by default.
fn case_policy(case: Case) -> RetryPolicy {
    match case {
        Case::Run("503") => {
            RetryPolicy::new().with_retry_statuses(StatusSet::new().with(429).with(503))
        }
        _ => RetryPolicy::new(),
    }
}

/// The clients, new for each case, each with a connection pool of its own: this crate, with
/// its defaults and with the learned pace off (and, against the limited API, with the scope's
/// in-flight limit 10), `reqwest-retry` twice, plain `reqwest` last. This crate
/// retries only `429` by default (the contract's rule); for the `503` case it is told to
/// retry `503` too, as `reqwest-retry` does by default.
fn clients(origin: &str, case: Case) -> Result<Vec<(&'static str, ClientWithMiddleware)>, Failed> {
    let allowed = AllowedOrigins::new([origin])?;
    let names = match case {
        Case::Run("503") => [
            "this crate, 503 retried",
            "this crate, 503 retried, the learned pace off",
        ],
        _ => ["this crate", "this crate, the learned pace off"],
    };
    let policy = case_policy(case);
    let default_backoff = ExponentialBackoff::builder().build_with_max_retries(2);
    let tuned =
        ExponentialBackoff::builder().build_with_total_retry_duration_and_max_retries(DEADLINE, 2);
    let mut clients = Vec::new();
    // Its defaults, then the same without the learned pace (and its opening window): what
    // the default costs or saves in each case.
    for (name, pace) in names.into_iter().zip([true, false]) {
        let budget = Budget::new(
            Client::new(allowed.clone()).with_learned_pace(pace),
            policy.clone(),
        );
        let ours = reqwest::Client::builder()
            .redirect(allowed.redirect_policy())
            .build()?;
        clients.push((name, ClientBuilder::new(ours).with(budget).build()));
    }
    if let Case::Crowd(_) = case {
        // The setting the README gives for one quota many callers share: the scope's in-flight
        // limit, so that a block's end lets the quota's worth go, not every held read.
        let client = Client::new(allowed.clone());
        client.scope_policy(origin, ScopePolicy::new().with_in_flight_limit(10))?;
        let http = reqwest::Client::builder()
            .redirect(allowed.redirect_policy())
            .build()?;
        let budget = Budget::new(client, RetryPolicy::new());
        let http = ClientBuilder::new(http).with(budget).build();
        clients.push(("this crate, in-flight limit 10", http));
    }
    clients.extend([
        (
            "reqwest-retry, default backoff",
            ClientBuilder::new(reqwest::Client::new())
                .with(RetryTransientMiddleware::new_with_policy(default_backoff))
                .build(),
        ),
        (
            "reqwest-retry, 20 s and 3 attempts",
            ClientBuilder::new(reqwest::Client::new())
                .with(RetryTransientMiddleware::new_with_policy(tuned))
                .build(),
        ),
        (
            "plain reqwest",
            ClientBuilder::new(reqwest::Client::new()).build(),
        ),
    ]);
    Ok(clients)
}

/// One read through `http`: whether it loaded, and how long it took to an answer.
async fn read(http: &ClientWithMiddleware, url: String) -> (bool, Duration) {
    read_under(http, url, None).await
}

/// [`read`], with this crate's policy for this one request where given (the other clients
/// ignore it).
async fn read_under(
    http: &ClientWithMiddleware,
    url: String,
    policy: Option<RetryPolicy>,
) -> (bool, Duration) {
    let started = Instant::now();
    let request = match policy {
        Some(policy) => http.get(url).with_extension(policy),
        None => http.get(url),
    };
    let loaded = match request.send().await {
        Ok(response) if response.status().is_success() => response.bytes().await.is_ok(),
        _ => false,
    };
    (loaded, started.elapsed())
}

/// `AT_ONCE` reads through `http` at once, each against an API of its own that POSTing
/// `make` to the scenario API creates (a run, a limit), and each (for this crate) on a scope
/// of its own under `case`'s policy: each API's base URL, and how its read went.
async fn one_read_each(
    http: &ClientWithMiddleware,
    origin: &str,
    make: &str,
    case: Case,
) -> Result<Vec<(String, (bool, Duration))>, Failed> {
    let mut bases = Vec::new();
    for _ in 0..AT_ONCE {
        bases.push(
            base(
                origin,
                reqwest::Client::new().post(format!("{origin}{make}")),
            )
            .await?,
        );
    }
    // APIs of their own are scopes of their own: one API's block holds none of the others.
    let reads = (bases.iter()).map(|base| {
        let policy = case_policy(case).with_scope(base.clone());
        read_under(
            http,
            format!("{base}/palettes?collection=coast"),
            Some(policy),
        )
    });
    let results = futures::future::join_all(reads).await;
    Ok(bases.into_iter().zip(results).collect())
}

/// `AT_ONCE` reads, each against a limit of its own: one answer per `window_s`-second window,
/// the first window spent.
async fn refused(
    http: &ClientWithMiddleware,
    origin: &str,
    window_s: u64,
    case: Case,
) -> Result<Row, Failed> {
    let make = format!("/limits?quota=1&window_s={window_s}&spent=1");
    let mut row = Row::default();
    for (base, result) in one_read_each(http, origin, &make, case).await? {
        row.add(result);
        let requests = requests_at(&base).await?;
        row.requests += requests.len();
        row.during_block += sent_during_a_block(&requests);
    }
    Ok(row)
}

/// `AT_ONCE` reads of the scenario `id` through `http` at once, each on a run of its own.
async fn runs(
    http: &ClientWithMiddleware,
    origin: &str,
    id: &str,
    case: Case,
) -> Result<Row, Failed> {
    let mut row = Row::default();
    let make = format!("/runs?scenario={id}");
    for (base, result) in one_read_each(http, origin, &make, case).await? {
        row.add(result);
        row.requests += requests_at(&base).await?.len();
    }
    Ok(row)
}

/// `TWO_HUNDRED_ROUNDS` rounds of the `200` case, each client's `AT_ONCE` reads in turn in
/// every round, so that whatever the machine does meanwhile falls on every client alike.
async fn two_hundreds(
    clients: &[(&'static str, ClientWithMiddleware)],
    origin: &str,
) -> Result<Vec<Row>, Failed> {
    let mut rows: Vec<Row> = clients.iter().map(|_| Row::default()).collect();
    for _ in 0..TWO_HUNDRED_ROUNDS {
        for ((_, http), row) in clients.iter().zip(&mut rows) {
            let round = runs(http, origin, "200", Case::Run("200")).await?;
            row.reads += round.reads;
            row.loaded += round.loaded;
            row.requests += round.requests;
            row.past_deadline += round.past_deadline;
            row.times.extend(round.times);
        }
    }
    Ok(rows)
}

/// `CALLERS` callers spread over the first second, each starting a read at most once a
/// second for `seconds`, against a limit of 10 answers a second; counted at the limiter.
async fn crowd(
    http: &ClientWithMiddleware,
    origin: &str,
    seconds: Duration,
) -> Result<Row, Failed> {
    let made = reqwest::Client::new().post(format!("{origin}/limits?quota=10&window_s=1"));
    let base = base(origin, made).await?;
    let start = Instant::now();
    let callers = (0..CALLERS).map(|i| {
        let url = format!("{base}/palettes?collection=c{i}");
        async move {
            let mut next = start + Duration::from_secs(1) * i / CALLERS;
            let mut reads = Vec::new();
            while next < start + seconds {
                tokio::time::sleep_until(next.into()).await;
                reads.push(read(http, url.clone()).await);
                next = (next + Duration::from_secs(1)).max(Instant::now());
            }
            reads
        }
    });
    let mut row = Row::default();
    for result in futures::future::join_all(callers)
        .await
        .into_iter()
        .flatten()
    {
        row.add(result);
    }
    let requests = requests_at(&base).await?;
    row.requests = requests.len();
    row.during_block = sent_during_a_block(&requests);
    Ok(row)
}

/// `callers` reads, one each, started evenly `over` a span (at once where it is zero), against
/// a limit of `quota` answers a second, through each client in turn (this crate with its
/// defaults, with `for_shared_quota`, with the scope's in-flight limit `quota`;
/// `reqwest-retry`; plain `reqwest`), counted at the limiter; then the bound: one request a
/// read, as many loaded as the quota serves while any read may still be. Prints a row each.
async fn many(
    origin: &str,
    (callers, over): (usize, Duration),
    (quota, kind, fields): (usize, &str, bool),
) -> Result<(), Failed> {
    let allowed = AllowedOrigins::new([origin])?;
    let ours = |policy: RetryPolicy, scope: Option<ScopePolicy>, pace: bool| -> Result<_, Failed> {
        let client = Client::new(allowed.clone()).with_learned_pace(pace);
        if let Some(scope) = scope {
            client.scope_policy(origin, scope)?;
        }
        let http = reqwest::Client::builder()
            .redirect(allowed.redirect_policy())
            .build()?;
        Ok(ClientBuilder::new(http)
            .with(Budget::new(client, policy))
            .build())
    };
    let limit = ScopePolicy::new().with_in_flight_limit(u32::try_from(quota)?);
    let backoff = ExponentialBackoff::builder().build_with_max_retries(2);
    let clients = [
        (
            "this crate, `RetryPolicy::new()` (the learned pace on)",
            ours(RetryPolicy::new(), None, true)?,
        ),
        (
            "this crate, `RetryPolicy::new()`, the learned pace off",
            ours(RetryPolicy::new(), None, false)?,
        ),
        (
            "this crate, `RetryPolicy::for_shared_quota()`",
            ours(RetryPolicy::for_shared_quota(), None, true)?,
        ),
        (
            "this crate, the scope's in-flight limit",
            ours(RetryPolicy::new(), Some(limit), true)?,
        ),
        (
            "reqwest-retry, default backoff",
            ClientBuilder::new(reqwest::Client::new())
                .with(RetryTransientMiddleware::new_with_policy(backoff))
                .build(),
        ),
        (
            "plain reqwest",
            ClientBuilder::new(reqwest::Client::new()).build(),
        ),
    ];
    for (name, http) in &clients {
        let fields = u8::from(fields);
        let made = format!("{origin}/limits?quota={quota}&window_s=1&kind={kind}&fields={fields}");
        let base = base(origin, reqwest::Client::new().post(made)).await?;
        let started = Instant::now();
        let base = &base;
        let reads = (0..callers).map(|i| async move {
            let starts = over.mul_f64(i as f64 / callers as f64);
            tokio::time::sleep_until((started + starts).into()).await;
            read(http, format!("{base}/palettes?collection=c{i}")).await
        });
        let loaded = (futures::future::join_all(reads).await.iter())
            .filter(|(l, _)| *l)
            .count();
        let took = started.elapsed();
        let requests = requests_at(base).await?;
        let during = sent_during_a_block(&requests);
        let per_loaded = match loaded {
            0 => "-".to_owned(),
            n => format!("{:.2}", requests.len() as f64 / n as f64),
        };
        println!(
            "| {name} | {} | {per_loaded} | {loaded} of {callers} | {during} | {:.1} s |",
            requests.len(),
            took.as_secs_f64()
        );
    }
    if over.is_zero() {
        let last_window = callers.div_ceil(quota) - 1;
        println!("| the bound | {callers} | 1.00 | {callers} of {callers} | 0 | {last_window}.0 s (the last window that serves one opens) |");
    } else {
        // The quota serves `quota` a second until the last read's budget (20 s) ends.
        let served = (quota * (over.as_secs() as usize + 20)).min(callers);
        println!(
            "| the bound | {served} | 1.00 | at most {served} of {callers} | 0 | {} s |",
            over.as_secs() + 20
        );
    }
    Ok(())
}

/// `IN_FLIGHT` calls at once against a limit that holds each answer 100 ms: through the
/// middleware with the scope's in-flight limit `AT_THE_API`, or (`ours` false) through plain
/// `reqwest` behind a semaphore of as many permits. Prints its row.
async fn in_flight(origin: &str, ours: bool) -> Result<(), Failed> {
    let made = reqwest::Client::new().post(format!(
        "{origin}/limits?quota=1000000&window_s=1&answer_ms=100"
    ));
    let base = base(origin, made).await?;
    let url = format!("{base}/palettes?collection=coast");
    let before = Heap::live();
    Heap::reset_most();
    let started = Instant::now();
    let loaded = if ours {
        let allowed = AllowedOrigins::new([origin])?;
        let client = Client::new(allowed.clone());
        let scope = ScopePolicy::new().with_in_flight_limit(AT_THE_API);
        client.scope_policy(origin, scope)?;
        let http = reqwest::Client::builder()
            .redirect(allowed.redirect_policy())
            .build()?;
        let http = ClientBuilder::new(http)
            .with(Budget::new(client, RetryPolicy::new()))
            .build();
        let calls = (0..IN_FLIGHT).map(|_| read(&http, url.clone()));
        futures::future::join_all(calls)
            .await
            .iter()
            .filter(|(loaded, _)| *loaded)
            .count()
    } else {
        let http = ClientBuilder::new(reqwest::Client::new()).build();
        let permits = Arc::new(tokio::sync::Semaphore::new(AT_THE_API as usize));
        let calls = (0..IN_FLIGHT).map(|_| {
            let (http, permits, url) = (&http, permits.clone(), url.clone());
            async move {
                let _permit = permits.acquire_owned().await;
                read(http, url).await
            }
        });
        futures::future::join_all(calls)
            .await
            .iter()
            .filter(|(loaded, _)| *loaded)
            .count()
    };
    let took = started.elapsed();
    let (most, after) = (Heap::most(), Heap::live());
    let log = json(reqwest::Client::new().get(&base)).await?;
    let mib = |bytes: usize| bytes as f64 / (1024.0 * 1024.0);
    println!(
        "| {} | {loaded} of {IN_FLIGHT} | {} | {:.2} s | {:.1} MiB | {:.1} MiB | {:.1} MiB |",
        if ours {
            "this crate, in-flight limit 200"
        } else {
            "plain reqwest, a 200-permit semaphore"
        },
        log["most_in_flight"],
        took.as_secs_f64(),
        mib(before),
        mib(most),
        mib(after),
    );
    Ok(())
}

/// Of a limiter's requests, those a read sent during a block it had been told of: each read
/// asks for its own collection, and each `429` it met asked it to wait the `Retry-After` the
/// limiter logged from when it was answered; a request of the same read that arrived before
/// that was sent during the block.
fn sent_during_a_block(requests: &[Value]) -> usize {
    let mut blocked_until = std::collections::HashMap::new();
    let mut during = 0;
    for r in requests {
        let (Some(read), Some(arrived)) = (r["collection"].as_str(), r["arrived_ms"].as_u64())
        else {
            continue;
        };
        let until = blocked_until.entry(read).or_insert(0);
        during += usize::from(arrived < *until);
        let told = (r["retry_after_s"].as_u64()).zip(r["answered_ms"].as_u64());
        if let Some((retry_after_s, answered)) = told {
            *until = (*until).max(answered + retry_after_s * 1_000);
        }
    }
    during
}

/// The requests a run or a limit logged, in the order they arrived.
async fn requests_at(base: &str) -> Result<Vec<Value>, Failed> {
    let log = json(reqwest::Client::new().get(base)).await?;
    match log["requests"].as_array() {
        Some(requests) => Ok(requests.clone()),
        None => Err(format!("{base} answered no requests list").into()),
    }
}

/// The base URL of the run or limit `made` creates.
async fn base(origin: &str, made: reqwest::RequestBuilder) -> Result<String, Failed> {
    let made = json(made).await?;
    match made["base"].as_str() {
        Some(base) => Ok(format!("{origin}{base}")),
        None => Err(format!("the scenario API answered no base: {made}").into()),
    }
}

/// The scenario API on a free loopback port, in this process; its origin.
async fn serve() -> Result<String, Failed> {
    let scenarios = scenario_api::Scenarios::new(vec![fixture()?])?;
    Ok(scenario_api::serve_on_loopback(scenarios.router()).await?)
}

async fn json(request: reqwest::RequestBuilder) -> Result<Value, Failed> {
    Ok(serde_json::from_slice(
        &request.send().await?.bytes().await?,
    )?)
}
