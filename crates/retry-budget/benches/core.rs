//! What the core costs per decision, natively: the contract's Schedule A (429 asks 3 s, 429 asks
//! 4 s, then 200) driven through `ReadAction` on a virtual clock, and through a `Client` as the
//! browser runtime and the model drive it (the ledger read and told of every answer), beside a
//! baseline of the least a hand-written loop does per answer (parse the status class and
//! delay-seconds); then one read on a scope of its own among 1 and among 100,000 known scopes,
//! side by side. First, without criterion, the cost of an input among many live reads: each on
//! a scope of its own, and all on one scope queued behind its in-flight limit. Run by `scripts/bench.sh` (`cargo bench -p retry-budget --bench core`).

#[cfg(not(target_arch = "wasm32"))]
mod bench {
    use std::hint::black_box;
    use std::time::{Duration, Instant};

    use criterion::{Criterion, Throughput};
    use retry_budget::{Client, ClientEvent, ReadAction, Response, RetryPolicy, ScopePolicy, Step};

    const S: fn(u64) -> Duration = Duration::from_secs;

    /// Schedule A's answers: 429 asking 3 s at 2 s, 429 asking 4 s at 7 s, 200 at 14 s.
    fn schedule_a_answers() -> [(Duration, Response); 3] {
        [
            (S(2), Response::new(429).retry_after("3")),
            (S(7), Response::new(429).retry_after("4")),
            (S(14), Response::new(200)),
        ]
    }

    /// Schedule A through the core; returns the events it traced.
    fn schedule_a() -> usize {
        let mut a = ReadAction::start(S(0), RetryPolicy::new()).expect("the SPEC's policy");
        let answers = schedule_a_answers();
        for (at, response) in &answers {
            while a.poll_action().is_some() {}
            a.handle_response(*at, black_box(response), None);
            if let Some(Step::Wait { until, .. }) = a.poll_action() {
                a.handle_timeout(until);
            }
        }
        a.trace().len()
    }

    /// Schedule A through a client, as its drivers take it: every event carried out, the client's
    /// timer fired at its deadline; returns the events the action traced.
    fn schedule_a_on_a_page() -> usize {
        let mut client = Client::new();
        let api = "https://api.example.com";
        let read = client
            .handle_start(S(0), api, RetryPolicy::new(), 0)
            .expect("the SPEC's policy");
        let answers = schedule_a_answers();
        for (at, response) in &answers {
            while client.poll_event().is_some() {}
            client.handle_response(*at, read, black_box(response), None, Ok(()));
            let mut wake = None;
            while let Some(event) = client.poll_event() {
                if let ClientEvent::Step {
                    step: Step::Wait { until, .. },
                    ..
                } = event
                {
                    wake = Some(until);
                }
            }
            if let Some(until) = wake {
                client.handle_timeout(until);
            }
        }
        client.read(read).map_or(0, |a| a.trace().len())
    }

    /// The baseline: what a bare loop does per answer (is it a 429, how long to wait).
    fn bare_loop() -> u64 {
        let answers = [(429u16, Some("3")), (429, Some("4")), (200, None)];
        let mut waited = 0;
        for (status, retry_after) in black_box(answers) {
            if status == 429 {
                waited += retry_after.and_then(|v| v.parse::<u64>().ok()).unwrap_or(2);
            }
        }
        waited
    }

    /// A client that knows `known` scopes, each kept by a block that runs for years (a read's
    /// 429 asked for it, and the read, which could not wait so long, stopped and was removed).
    fn client_knowing(known: usize) -> Client {
        let mut client = Client::new();
        let for_years = Response::new(429).retry_after("100000000");
        for k in 0..known {
            let scope = format!("https://kept-{k}.example.com");
            let read = client
                .handle_start(S(0), &scope, RetryPolicy::new(), 0)
                .expect("the SPEC's policy");
            client.handle_response(S(0), read, &for_years, None, Ok(()));
            while client.poll_event().is_some() {}
            client.remove(read);
        }
        assert_eq!(client.known_scopes(), known);
        client
    }

    /// One read on a scope of its own, as a server reading per-visitor scopes makes them: a
    /// 429 asking 1 s, the wait, a 200, then the read removed; `n` names the scope and sets the
    /// time. Returns how many scopes the client knows afterwards.
    fn read_on_a_new_scope(client: &mut Client, n: u64) -> usize {
        let at = S(2 * n);
        let scope = format!("https://visitor-{n}.example.com");
        let read = client
            .handle_start(at, &scope, RetryPolicy::new(), 0)
            .expect("the SPEC's policy");
        client.handle_response(at, read, &Response::new(429).retry_after("1"), None, Ok(()));
        while client.poll_event().is_some() {}
        client.handle_timeout(at + S(1));
        client.handle_response(at + S(1), read, &Response::new(200), None, Ok(()));
        while client.poll_event().is_some() {}
        client.remove(read);
        client.known_scopes()
    }

    /// The cost per input among `n` live reads, each on a scope of its own, as a server with
    /// `n` calls in flight has them: every read answered `429` asking 2 s (each then waits),
    /// one timer firing for all of them, then every read answered `200` and removed; after each
    /// input, the next timer asked for, as the drivers ask. Returns the time per answer, the
    /// timer's time per read it fired for, and the time per `200` and removal.
    fn live_reads(n: u64) -> [Duration; 3] {
        let mut client = Client::new();
        let reads: Vec<_> = (0..n)
            .map(|k| {
                let scope = format!("https://caller-{k}.example.com");
                (client.handle_start(S(0), &scope, RetryPolicy::new(), k))
                    .expect("the SPEC's policy")
            })
            .collect();
        while client.poll_event().is_some() {}
        let busy = Response::new(429).retry_after("2");
        let started = Instant::now();
        for &read in &reads {
            client.handle_response(S(1), read, &busy, None, Ok(()));
            while client.poll_event().is_some() {}
            black_box(client.poll_timeout());
        }
        let answers = started.elapsed();
        let due = client.poll_timeout().expect("every read waits");
        let started = Instant::now();
        client.handle_timeout(due + S(1));
        while client.poll_event().is_some() {}
        black_box(client.poll_timeout());
        let timer = started.elapsed();
        let ok = Response::new(200);
        let started = Instant::now();
        for &read in &reads {
            client.handle_response(due + S(2), read, &ok, None, Ok(()));
            while client.poll_event().is_some() {}
            black_box(client.remove(read).expect("stopped"));
            black_box(client.poll_timeout());
        }
        let removals = started.elapsed();
        let per = |d: Duration| d / u32::try_from(n).expect("a small n");
        [per(answers), per(timer), per(removals)]
    }

    /// The cost per input among `n` reads on one scope whose in-flight limit is 200, as a
    /// gateway queues its calls to one API: every read started (200 go, the rest queue), every
    /// other queued read leaving, then each read in flight answered `200` and removed, which
    /// grants the next in the queue. Returns the time per start, per leave, and per `200`
    /// with its grant and removal.
    fn queued_reads(n: u64) -> [Duration; 3] {
        const API: &str = "https://api.example.com";
        let mut client = Client::new();
        let limit = ScopePolicy::new().with_in_flight_limit(200);
        client
            .handle_scope_policy(API, limit)
            .expect("a valid policy");
        let started = Instant::now();
        let reads: Vec<_> = (0..n)
            .map(|k| {
                let read = client.handle_start(S(0), API, RetryPolicy::new(), k);
                while client.poll_event().is_some() {}
                black_box(client.poll_timeout());
                read.expect("the SPEC's policy")
            })
            .collect();
        let starts = started.elapsed();
        let leaving: Vec<_> = reads.iter().skip(200).step_by(2).copied().collect();
        let started = Instant::now();
        for &read in &leaving {
            client.handle_leave(S(1), read);
            while client.poll_event().is_some() {}
            black_box(client.remove(read).expect("stopped"));
            black_box(client.poll_timeout());
        }
        let leaves = started.elapsed();
        let ok = Response::new(200);
        let staying = reads
            .iter()
            .take(200)
            .chain(reads.iter().skip(201).step_by(2));
        let staying: Vec<_> = staying.copied().collect();
        let started = Instant::now();
        for &read in &staying {
            client.handle_response(S(2), read, &ok, None, Ok(()));
            while client.poll_event().is_some() {}
            black_box(client.remove(read).expect("granted, answered and stopped"));
            black_box(client.poll_timeout());
        }
        let answers = started.elapsed();
        let per = |d: Duration, k: usize| d / u32::try_from(k.max(1)).expect("a small n");
        [
            per(starts, reads.len()),
            per(leaves, leaving.len()),
            per(answers, staying.len()),
        ]
    }

    pub fn main() {
        // First, without criterion: what one input costs among many live reads, side by side
        // with among 1,000 (the baseline: within twice it is flat).
        println!("the cost of one input among n live reads, each on its own scope:");
        println!(
            "{:>8} {:>14} {:>16} {:>18}",
            "live", "429 answered", "timer, per read", "200 and removed"
        );
        let base = live_reads(1_000);
        for n in [1, 1_000, 10_000, 40_000] {
            let costs = if n == 1_000 { base } else { live_reads(n) };
            let cell = |i: usize| {
                let ratio = costs[i].as_secs_f64() / base[i].as_secs_f64().max(1e-12);
                format!("{:>7.2} µs {:>4.1}×", costs[i].as_secs_f64() * 1e6, ratio)
            };
            println!("{n:>8} {:>14} {:>16} {:>18}", cell(0), cell(1), cell(2));
        }
        println!("(× is the ratio to the cost among 1,000 live reads)");
        println!();
        println!(
            "the cost of one input among n reads on one scope, 200 in flight, the rest queued:"
        );
        println!(
            "{:>8} {:>14} {:>16} {:>18}",
            "reads", "started", "queued, left", "200, next granted"
        );
        let base = queued_reads(1_000);
        for n in [1_000, 10_000, 40_000] {
            let costs = if n == 1_000 { base } else { queued_reads(n) };
            let cell = |i: usize| {
                let ratio = costs[i].as_secs_f64() / base[i].as_secs_f64().max(1e-12);
                format!("{:>7.2} µs {:>4.1}×", costs[i].as_secs_f64() * 1e6, ratio)
            };
            println!("{n:>8} {:>14} {:>16} {:>18}", cell(0), cell(1), cell(2));
        }
        println!("(× is the ratio to the cost among 1,000 reads)");

        let events = schedule_a() as u64;
        let mut c = Criterion::default().configure_from_args();
        let mut g = c.benchmark_group("three-attempt schedule");
        g.throughput(Throughput::Elements(events));
        g.bench_function(format!("core ({events} trace events)"), |b| {
            b.iter(schedule_a)
        });
        assert_eq!(
            schedule_a_on_a_page() as u64,
            events,
            "the client replays the same schedule"
        );
        g.bench_function(
            format!("core through a client ({events} trace events)"),
            |b| b.iter(schedule_a_on_a_page),
        );
        g.throughput(Throughput::Elements(3));
        g.bench_function("bare loop, baseline (3 answers)", |b| b.iter(bare_loop));
        g.finish();

        // Finding a scope costs the same however many are known, and a read's scope is
        // forgotten once it is idle, so the known ones do not grow.
        let mut g = c.benchmark_group("a read on a scope of its own (429, wait, 200, removed)");
        for known in [1, 100_000] {
            let mut client = client_knowing(known);
            let mut n = 0;
            g.bench_function(format!("among {known} known scopes"), |b| {
                b.iter(|| {
                    n += 1;
                    read_on_a_new_scope(&mut client, n)
                })
            });
            assert_eq!(
                client.known_scopes(),
                known,
                "the visitors' scopes were forgotten"
            );
        }
        g.finish();
        c.final_summary();
    }
}

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    bench::main();
}
