//! A bounded load generator on loopback for the SSR example (`examples/ssr`). It starts the
//! example's server itself (so it stops with it), sends renders of one page in phases (all at
//! once, or spread evenly over some seconds), times each to its full HTML, and then reads what
//! the example's API counted. It prints, for each phase, the renders' times (p50, p99, the
//! longest), the API's requests from the server by status, the most it held at once, the
//! requests that reached it while a block the server had been told of still ran, and the
//! server's resident memory and ledger size.
//!
//! ```text
//! bench-load --server PATH --site DIR [--path /] [--phase at-once:N | --phase over:N:SECONDS]...
//!            [--replicas N [--share]] [--check --limit N --allowance-ms MS] [-- SERVER ARGS...]
//! ```
//!
//! With `--replicas N`, the server started with SERVER ARGS serves only as the API, and N
//! replicas, given the same SERVER ARGS, read it (`--api`), the renders sent to each in turn; with `--share` they share
//! their ledger through a `redis-server` it starts (`--redis`), the phases beginning once the new
//! Redis is past its first second (`settle`). It then prints also the 429s per
//! block (refusals grouped by the moment their `Retry-After` ends) and the requests per
//! loaded read.
//!
//! With `--check` it fails (exit 1) where a rule breaks: a render not answered 200, a render
//! longer than the allowance, more than `--limit` requests at the API at once, or a request
//! from the server during a block it knew of.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

/// How long after the API answered a 429 the server may still send, not yet having read it
/// (loopback: the answer's way back and the core's input).
const GRACE: Duration = Duration::from_millis(25);

#[tokio::main]
async fn main() {
    let args = match Args::read(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("bench-load: {e}");
            std::process::exit(2);
        }
    };
    let (server, url) = start(&args, &args.server_args).await;
    let redis = match args.share {
        true => Some(start_redis().await),
        false => None,
    };
    let mut replicas = Vec::new();
    for _ in 0..args.replicas {
        let mut with = args.server_args.clone();
        with.extend(["--api".to_owned(), url.clone()]);
        if let Some((_, redis)) = &redis {
            with.extend(["--redis".to_owned(), redis.clone()]);
        }
        replicas.push(start(&args, &with).await);
    }
    let targets: Vec<String> = match replicas.is_empty() {
        true => vec![format!("{url}{}", args.path)],
        false => replicas
            .iter()
            .map(|(_, r)| format!("{r}{}", args.path))
            .collect(),
    };
    // Bounded: a render that has not answered in 30 s counts as failed.
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("a client");
    if redis.is_some() {
        settle().await;
    }
    let mut broken = Vec::new();
    // What the API logged before the phases is no phase's.
    let mut seen = (json(&http, &format!("{url}/api/log")).await)
        .as_array()
        .map_or(0, Vec::len);
    for phase in &args.phases {
        let times = phase.run(&http, &targets).await;
        // Whatever the renders left running at the API ends within its latency.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let log = json(&http, &format!("{url}/api/log")).await;
        let log = log.as_array().cloned().unwrap_or_default();
        let stats = json(&http, &format!("{url}/api/stats")).await;
        let ledger_of = replicas.first().map_or(&url, |(_, r)| r);
        let ledger = json(&http, &format!("{ledger_of}/stats")).await;
        let report = Report::of(&times, &log[seen..], &log, &stats, &ledger);
        seen = log.len();
        println!("{phase}: {report}");
        if args.check {
            broken.extend(report.broken(&args, phase));
        }
    }
    drop((server, replicas, redis));
    if !broken.is_empty() {
        for b in &broken {
            eprintln!("bench-load: {b}");
        }
        std::process::exit(1);
    }
}

/// The command line.
struct Args {
    server: String,
    site: String,
    path: String,
    phases: Vec<Phase>,
    check: bool,
    limit: Option<u64>,
    allowance: Option<Duration>,
    replicas: u32,
    share: bool,
    server_args: Vec<String>,
}

impl Args {
    fn read(mut words: impl Iterator<Item = String>) -> Result<Args, String> {
        let mut args = Args {
            server: String::new(),
            site: String::new(),
            path: "/".into(),
            phases: Vec::new(),
            check: false,
            limit: None,
            allowance: None,
            replicas: 0,
            share: false,
            server_args: Vec::new(),
        };
        while let Some(flag) = words.next() {
            if flag == "--" {
                args.server_args = words.collect();
                break;
            }
            if flag == "--check" {
                args.check = true;
                continue;
            }
            if flag == "--share" {
                args.share = true;
                continue;
            }
            let value = words
                .next()
                .ok_or_else(|| format!("{flag} needs a value"))?;
            let number = || {
                value
                    .parse::<u64>()
                    .map_err(|_| format!("{flag} {value:?}: give a whole number"))
            };
            match flag.as_str() {
                "--server" => args.server = value,
                "--site" => args.site = value,
                "--path" => args.path = value,
                "--phase" => args.phases.push(Phase::parse(&value)?),
                "--limit" => args.limit = Some(number()?),
                "--allowance-ms" => args.allowance = Some(Duration::from_millis(number()?)),
                "--replicas" => {
                    args.replicas = u32::try_from(number()?)
                        .map_err(|_| format!("{flag} {value:?}: too many"))?
                }
                other => return Err(format!("unknown argument {other:?}")),
            }
        }
        if args.server.is_empty() || args.site.is_empty() || args.phases.is_empty() {
            return Err("give --server, --site and at least one --phase".into());
        }
        if args.share && args.replicas == 0 {
            return Err("--share shares the ledger of --replicas: give both".into());
        }
        Ok(args)
    }
}

/// A number of renders, all at once or spread evenly over a time.
enum Phase {
    AtOnce(u32),
    Over(u32, Duration),
}

impl Phase {
    fn parse(text: &str) -> Result<Phase, String> {
        let bad = || format!("--phase {text:?}: give at-once:N or over:N:SECONDS");
        let parts: Vec<&str> = text.split(':').collect();
        let n = |i: usize| {
            parts
                .get(i)
                .and_then(|p| p.parse::<u32>().ok())
                .ok_or_else(bad)
        };
        match parts.first() {
            Some(&"at-once") if parts.len() == 2 => Ok(Phase::AtOnce(n(1)?)),
            Some(&"over") if parts.len() == 3 => {
                Ok(Phase::Over(n(1)?, Duration::from_secs(u64::from(n(2)?))))
            }
            _ => Err(bad()),
        }
    }

    /// Sends the phase's renders to `urls` in turn; each one's time to its full HTML, or its
    /// failure.
    async fn run(&self, http: &reqwest::Client, urls: &[String]) -> Vec<Result<Duration, String>> {
        let (n, spread) = match *self {
            Phase::AtOnce(n) => (n, Duration::ZERO),
            Phase::Over(n, over) => (n, over / n.max(1)),
        };
        let started = tokio::time::Instant::now();
        let renders: Vec<_> = (0..n)
            .map(|i| {
                let http = http.clone();
                let url = urls[i as usize % urls.len()].clone();
                let at = started + spread * i;
                tokio::spawn(async move {
                    tokio::time::sleep_until(at).await;
                    render(&http, &url).await
                })
            })
            .collect();
        let mut times = Vec::with_capacity(renders.len());
        for r in renders {
            times.push(r.await.unwrap_or_else(|e| Err(e.to_string())));
        }
        times
    }
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Phase::AtOnce(n) => write!(f, "{n} renders at once"),
            Phase::Over(n, over) => write!(f, "{n} renders over {} s", over.as_secs()),
        }
    }
}

/// A server of the example with `with` after `--stop-after`, on a free loopback port: the
/// process (stopped when dropped) and its URL.
async fn start(args: &Args, with: &[String]) -> (tokio::process::Child, String) {
    let mut server = Command::new(&args.server)
        .args(["--stop-after", "600"])
        .args(with)
        .env("LEPTOS_OUTPUT_NAME", "palette_list_ssr")
        .env("LEPTOS_SITE_ROOT", &args.site)
        .env("LEPTOS_SITE_ADDR", "127.0.0.1:0")
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", args.server));
    let mut lines = BufReader::new(server.stdout.take().expect("piped")).lines();
    loop {
        match lines.next_line().await {
            Ok(Some(line)) => {
                if let Some(url) = line.strip_prefix("listening on ") {
                    return (server, url.to_owned());
                }
            }
            _ => panic!("the server stopped before it listened"),
        }
    }
}

/// A Redis used for the first time gives no place in flight for its first second from the
/// first replica's connect (it cannot tell itself from one that restarted empty while
/// replicas held places): the phases begin once that second is over, as against a Redis the
/// replicas have used.
async fn settle() {
    tokio::time::sleep(Duration::from_millis(1_200)).await;
}

/// Debian's `redis-server` on a free loopback port, saving nothing: the process (stopped when
/// dropped) and its URL, once it listens.
async fn start_redis() -> (tokio::process::Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("redis-server is installed (scripts/install.sh)");
    let deadline = Instant::now() + Duration::from_secs(5);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "redis-server did not listen");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    (child, format!("redis://127.0.0.1:{port}/"))
}

/// One render: the page read to its last byte.
async fn render(http: &reqwest::Client, url: &str) -> Result<Duration, String> {
    let started = Instant::now();
    let answer = http.get(url).send().await.map_err(|e| e.to_string())?;
    let status = answer.status();
    answer.bytes().await.map_err(|e| e.to_string())?;
    if !status.is_success() {
        return Err(format!("answered {status}"));
    }
    Ok(started.elapsed())
}

async fn json(http: &reqwest::Client, url: &str) -> Value {
    let bytes = http
        .get(url)
        .send()
        .await
        .expect("the server answers")
        .bytes()
        .await;
    serde_json::from_slice(&bytes.expect("a body")).expect("JSON")
}

/// What one phase came to.
struct Report {
    renders: usize,
    failed: Vec<String>,
    p50: Duration,
    p99: Duration,
    longest: Duration,
    statuses: Vec<(u64, usize)>,
    during_block: usize,
    per_block: f64,
    per_loaded: f64,
    in_flight_max: u64,
    rss_kb: u64,
    known_scopes: u64,
}

impl Report {
    fn of(
        times: &[Result<Duration, String>],
        phase_log: &[Value],
        log: &[Value],
        stats: &Value,
        ledger: &Value,
    ) -> Report {
        let mut ok: Vec<Duration> = times
            .iter()
            .filter_map(|t| t.as_ref().ok().copied())
            .collect();
        ok.sort();
        let at = |q: f64| {
            ok.get(((ok.len() as f64 - 1.0) * q).round() as usize)
                .copied()
                .unwrap_or_default()
        };
        let mut statuses: Vec<(u64, usize)> = Vec::new();
        for entry in phase_log.iter().filter(|e| e["from"] == "server") {
            let status = entry["status"].as_u64().unwrap_or(0);
            match statuses.iter_mut().find(|(s, _)| *s == status) {
                Some((_, n)) => *n += 1,
                None => statuses.push((status, 1)),
            }
        }
        statuses.sort();
        let count = |status: u64| {
            (statuses.iter())
                .find(|(s, _)| *s == status)
                .map_or(0, |(_, n)| *n)
        };
        let sent: usize = statuses.iter().map(|(_, n)| n).sum();
        Report {
            per_block: count(429) as f64 / blocks(phase_log).max(1) as f64,
            per_loaded: sent as f64 / count(200) as f64,
            renders: times.len(),
            failed: times.iter().filter_map(|t| t.clone().err()).collect(),
            p50: at(0.5),
            p99: at(0.99),
            longest: ok.last().copied().unwrap_or_default(),
            statuses,
            during_block: during_block(phase_log, log),
            in_flight_max: stats["in_flight_max"].as_u64().unwrap_or(0),
            rss_kb: stats["rss_kb"].as_u64().unwrap_or(0),
            known_scopes: ledger["known_scopes"].as_u64().unwrap_or(0),
        }
    }

    /// The rules this phase broke.
    fn broken(&self, args: &Args, phase: &Phase) -> Vec<String> {
        let mut broken = Vec::new();
        if let Some(first) = self.failed.first() {
            broken.push(format!(
                "{phase}: {} renders failed, the first: {first}",
                self.failed.len()
            ));
        }
        if let Some(allowance) = args.allowance.filter(|a| self.longest > *a) {
            broken.push(format!(
                "{phase}: a render took {} ms, past its allowance of {} ms",
                self.longest.as_millis(),
                allowance.as_millis()
            ));
        }
        if let Some(limit) = args.limit.filter(|l| self.in_flight_max > *l) {
            broken.push(format!(
                "{phase}: the API held {} requests at once, past the scope's limit of {limit}",
                self.in_flight_max
            ));
        }
        if self.during_block > 0 {
            broken.push(format!(
                "{phase}: {} requests from the server reached the API during a block it knew of",
                self.during_block
            ));
        }
        broken
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let statuses: Vec<String> = self
            .statuses
            .iter()
            .map(|(s, n)| format!("{n}×{s}"))
            .collect();
        write!(
            f,
            "{} renders ({} failed), to the full HTML p50 {} ms, p99 {} ms, longest {} ms; \
             the API saw from the server {}, at most {} at once, {} during a block \
             ({:.1} 429s per block, {:.2} requests per loaded read); \
             the server holds {} kB resident, its ledger {} scopes",
            self.renders,
            self.failed.len(),
            self.p50.as_millis(),
            self.p99.as_millis(),
            self.longest.as_millis(),
            if statuses.is_empty() {
                "nothing".into()
            } else {
                statuses.join(", ")
            },
            self.in_flight_max,
            self.during_block,
            self.per_block,
            self.per_loaded,
            self.rss_kb,
            self.known_scopes,
        )
    }
}

/// The phase's requests from the server that reached the API while a block it had been told
/// of still ran: after a 429's answer (and the grace its way back takes), before the end of
/// its `Retry-After`. Blocks from earlier phases count too.
fn during_block(phase_log: &[Value], log: &[Value]) -> usize {
    let ms = |v: &Value| Duration::from_millis(v.as_u64().unwrap_or(0));
    let blocks: Vec<(Duration, Duration)> = log
        .iter()
        .filter(|e| e["status"] == 429 && e["from"] == "server")
        .filter_map(|e| {
            let answered = ms(&e["answered_ms"]);
            let retry_after = Duration::from_secs(e["retry_after"].as_u64()?);
            Some((answered + GRACE, answered + retry_after))
        })
        .collect();
    phase_log
        .iter()
        .filter(|e| e["from"] == "server")
        .filter(|e| {
            let at = ms(&e["at_ms"]);
            blocks.iter().any(|(from, to)| *from < at && at < *to)
        })
        .count()
}

/// How many blocks the phase's refusals fall into: the API's windows that refused, each
/// named by its end (`block_end_ms`, the same for every refusal in one window).
fn blocks(phase_log: &[Value]) -> usize {
    let mut ends: Vec<u64> = phase_log
        .iter()
        .filter(|e| e["status"] == 429 && e["from"] == "server")
        .filter_map(|e| e["block_end_ms"].as_u64())
        .collect();
    ends.sort_unstable();
    ends.dedup();
    ends.len()
}
