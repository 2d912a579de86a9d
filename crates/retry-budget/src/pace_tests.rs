//! Many reads at once on one scope, against a fixed window, on a virtual clock: what the
//! learned pace changes, counted where the requests arrive.

use std::collections::BTreeMap;
use std::time::Duration;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;
use crate::scope::{BlockCause, ScopeBlock};

const API: &str = "https://api.example.com";
/// Each answer arrives this long after its request.
const LATENCY: Duration = Duration::from_millis(1);

/// A quota of `quota` answers per whole second; a `429` says the seconds left in the window,
/// rounded up, as `Retry-After` must be written; with `fields`, every answer says what is left
/// and when the window resets (`RateLimit`), rounded up likewise.
struct FixedWindow {
    quota: u32,
    fields: bool,
    window: u64,
    served: u32,
    /// The latest moment a `429` the client has heard named.
    told_until: Duration,
    requests: u32,
    /// Requests sent before a moment a `429` the client had heard named.
    early: u32,
}

impl FixedWindow {
    /// The answer to a request sent at `now`, and the moment it names, if it refuses.
    fn answer(&mut self, now: Duration) -> (Response, Option<Duration>) {
        self.requests += 1;
        if now < self.told_until {
            self.early += 1;
        }
        let window = now.as_secs();
        if window != self.window {
            (self.window, self.served) = (window, 0);
        }
        let left = Duration::from_secs(window + 1) - now;
        let reset = left.as_secs() + u64::from(left.subsec_nanos() > 0);
        let served = self.served < self.quota;
        self.served += u32::from(served);
        let response = if served {
            Response::new(200)
        } else {
            Response::new(429).retry_after(reset.to_string())
        };
        let remaining = self.quota - self.served.min(self.quota);
        let fields = format!("\"window\";r={remaining};t={reset}");
        let back = (!served).then(|| now + Duration::from_secs(reset));
        match self.fields {
            true => (response.rate_limit("RateLimit", fields), back),
            false => (response, back),
        }
    }
}

/// What `callers` reads started together came to.
#[derive(Debug)]
struct Crowd {
    requests: u32,
    early: u32,
    loaded: u32,
    /// When the last read stopped.
    done: Duration,
    /// Of the reads that did not load, how many stopped at once (with no wait).
    stopped: u32,
}

fn crowd(client: Client, callers: u32, quota: u32, fields: bool) -> Crowd {
    crowd_under(client, RetryPolicy::new(), (callers, quota, fields))
}

fn crowd_under(
    client: Client,
    policy: RetryPolicy,
    (callers, quota, fields): (u32, u32, bool),
) -> Crowd {
    let mut client = client;
    let mut api = FixedWindow {
        quota,
        fields,
        window: 0,
        served: 0,
        told_until: Duration::ZERO,
        requests: 0,
        early: 0,
    };
    let mut answers: BTreeMap<(Duration, ReadId), (Response, Option<Duration>)> = BTreeMap::new();
    let (mut loaded, mut stopped, mut done) = (0, 0, Duration::ZERO);
    let mut now = Duration::ZERO;
    for seed in 0..callers {
        client
            .handle_start(now, API, policy.clone(), u64::from(seed))
            .unwrap();
    }
    loop {
        while let Some(event) = client.poll_event() {
            let ClientEvent::Step { read, step } = event else {
                continue;
            };
            match step {
                Step::StartAttempt { .. } => {
                    answers.insert((now + LATENCY, read), api.answer(now));
                }
                Step::Stop(report) => {
                    done = now;
                    match report.outcome {
                        Outcome::Succeeded => loaded += 1,
                        _ => stopped += 1,
                    }
                }
                Step::Wait { .. } | Step::Queue { .. } => {}
            }
        }
        let next_answer = answers.keys().next().map(|(at, _)| *at);
        let Some(next) = [next_answer, client.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
        else {
            break;
        };
        now = next;
        if next_answer == Some(now) {
            let ((_, read), (response, back)) = answers.pop_first().unwrap();
            api.told_until = api.told_until.max(back.unwrap_or_default());
            client.handle_response(now, read, &response, None, Ok(()));
        } else {
            client.handle_timeout(now);
        }
    }
    Crowd {
        requests: api.requests,
        early: api.early,
        loaded,
        done,
        stopped,
    }
}

fn paced() -> Client {
    Client::new().with_learned_pace(true)
}

#[test]
fn without_a_pace_a_blocks_end_releases_every_read_at_once() {
    for fields in [false, true] {
        let herd = crowd(Client::new(), 100, 10, fields);
        // Ten served in each of three windows; the rest spend their three attempts.
        assert_eq!((herd.loaded, herd.requests, herd.early), (30, 270, 0));
    }
}

#[test]
fn with_a_learned_pace_a_crowd_loads_within_a_fifth_of_the_bound() {
    // The opening window sends ten, then two for each of their 2xx: twenty refused. Then the
    // block holds the rest, and they go ten to a window from its end.
    let paced_blind = crowd(paced(), 100, 10, false);
    assert_eq!((paced_blind.loaded, paced_blind.requests), (100, 120));
    // Told what is left, the ledger sends no more than that: one request a read.
    let told = crowd(paced(), 100, 10, true);
    assert_eq!((told.loaded, told.requests), (100, 100));
    for run in [paced_blind, told] {
        assert_eq!(run.early, 0);
        // The last read's window opens at 9 s.
        assert!(run.done < Duration::from_millis(9_100), "{run:?}");
    }
    // The window doubles each round trip (10, 20, 40, 80...) until the first refusal.
    let thousand = crowd(paced(), 1000, 100, false);
    assert_eq!(
        (thousand.loaded, thousand.requests, thousand.early),
        (1000, 1110, 0)
    );
    assert!(thousand.done < Duration::from_millis(9_100), "{thousand:?}");
}

#[test]
fn a_read_whose_turn_comes_past_its_budget_stops_at_once() {
    // 400 callers on 10 a second: a turn past 16 s (the budget less the cap) cannot fit.
    let paced = crowd(paced(), 400, 10, false);
    assert_eq!(paced.early, 0);
    assert_eq!(paced.loaded + paced.stopped, 400);
    // The first window's ten, then ten a window from the block's end (1.001 s) to the last
    // that fits (15.001 s): 150. The rest stop when their turn is given, at the first block's
    // end: those the opening window sent after a request each, the others with none.
    assert_eq!(paced.loaded, 10 + 150);
    assert_eq!(paced.requests, 30 + 150);
    assert!(paced.done < Duration::from_secs(16), "{paced:?}");
}

#[test]
fn a_turn_is_kept_exactly_however_much_jitter_the_policy_asks() {
    // Jitter on a block's release would scatter the turns the pace has spread: reads would
    // meet windows that served their share already. A turn is waited for exactly.
    let jittered = RetryPolicy::new().with_jitter(100).with_server_jitter(800);
    let run = crowd_under(paced(), jittered, (100, 10, true));
    assert_eq!((run.loaded, run.early), (100, 0), "{run:?}");
    assert!(run.requests <= 110, "{run:?}");
}

/// A paced client on which one read was served (at 100 ms) and one refused (at 300 ms, for
/// 1 s): the run served 1 from 100 ms to the block's end, 1.3 s, so the pace is one a turn,
/// 1.2 s apart, from 1.3 s. The refused read starts before the first is answered: a scope
/// with no read running is forgotten, and what it learned with it. Returns the refused read.
fn one_served_then_refused(client: &mut Client) -> ReadId {
    let ms = Duration::from_millis;
    let served = (client.handle_start(ms(0), API, RetryPolicy::new(), 0)).unwrap();
    let refused = (client.handle_start(ms(50), API, RetryPolicy::new(), 0)).unwrap();
    client.handle_response(ms(100), served, &Response::new(200), None, Ok(()));
    let retry_after_1 = Response::new(429).retry_after("1");
    client.handle_response(ms(300), refused, &retry_after_1, None, Ok(()));
    refused
}

/// Every step the client has for its reads now, in order.
fn steps(client: &mut Client) -> Vec<(ReadId, Step)> {
    let mut steps = Vec::new();
    while let Some(event) = client.poll_event() {
        if let ClientEvent::Step { read, step } = event {
            steps.push((read, step));
        }
    }
    steps
}

/// Until when `read` was told to wait, if it was.
fn waits_until(steps: &[(ReadId, Step)], read: ReadId) -> Option<Duration> {
    steps.iter().find_map(|(r, step)| match step {
        Step::Wait { until, .. } if *r == read => Some(*until),
        _ => None,
    })
}

#[test]
fn a_turn_left_by_a_read_that_stops_at_once_goes_to_the_next() {
    let ms = Duration::from_millis;
    let mut client = paced();
    one_served_then_refused(&mut client);
    // Three more wait for the block: the second with a budget its turn will not fit.
    let short = RetryPolicy::new().with_budget(Duration::from_secs(6));
    let a = (client.handle_start(ms(500), API, RetryPolicy::new(), 0)).unwrap();
    let b = client.handle_start(ms(500), API, short, 0).unwrap();
    let c = (client.handle_start(ms(500), API, RetryPolicy::new(), 0)).unwrap();
    steps(&mut client);
    client.handle_timeout(ms(1300));
    let waits = steps(&mut client);
    // One a turn, 1.2 s apart: the refused read's at the block's end, then A's; B's (3.7 s)
    // cannot fit its 6 s, so it stops, and C takes it.
    assert_eq!(waits_until(&waits, a), Some(ms(2500)));
    assert!(matches!(
        waits.iter().find(|(r, _)| *r == b),
        Some((_, Step::Stop(_)))
    ));
    assert_eq!(waits_until(&waits, c), Some(ms(3700)));
}

#[test]
fn a_turn_left_by_a_read_handed_over_or_gone_goes_to_the_next_read() {
    let ms = Duration::from_millis;
    let mut client = paced();
    one_served_then_refused(&mut client);
    let a = (client.handle_start(ms(500), API, RetryPolicy::new(), 0)).unwrap();
    let b = (client.handle_start(ms(500), API, RetryPolicy::new(), 0)).unwrap();
    let c = (client.handle_start(ms(500), API, RetryPolicy::new(), 0)).unwrap();
    steps(&mut client);
    client.handle_timeout(ms(1300));
    let waits = steps(&mut client);
    let turns = [a, b, c].map(|r| waits_until(&waits, r));
    assert_eq!(turns, [ms(2500), ms(3700), ms(4900)].map(Some));
    // B's wait is handed to another client (a render's, to the browser), and C's user leaves:
    // their turns are the next reads', not pushed past them.
    assert!(client.hand_over(ms(1400), b).is_some());
    client.handle_leave(ms(1400), c);
    let d = (client.handle_start(ms(1500), API, RetryPolicy::new(), 0)).unwrap();
    let e = (client.handle_start(ms(1500), API, RetryPolicy::new(), 0)).unwrap();
    let f = (client.handle_start(ms(1500), API, RetryPolicy::new(), 0)).unwrap();
    let waits = steps(&mut client);
    let turns = [d, e, f].map(|r| waits_until(&waits, r));
    assert_eq!(turns, [ms(3700), ms(4900), ms(6100)].map(Some));
}

#[test]
fn a_turn_inside_a_longer_block_is_void_and_the_blocks_end_gives_a_new_one() {
    let ms = Duration::from_millis;
    let mut client = paced();
    let refused = one_served_then_refused(&mut client);
    let a = (client.handle_start(ms(500), API, RetryPolicy::new(), 0)).unwrap();
    client.handle_timeout(ms(1300));
    // Another tab's block, to 3 s, covers A's turn (2.5 s); D starts inside it.
    let block = ScopeBlock {
        until: ms(3000),
        asked: ms(1500),
        cause: BlockCause::TooManyRequests,
    };
    client.handle_response(ms(1400), refused, &Response::new(200), None, Ok(()));
    assert!(client.handle_block(ms(1500), API, block));
    let d = (client.handle_start(ms(1500), API, RetryPolicy::new(), 0)).unwrap();
    steps(&mut client);
    // At its end A takes the new pace's first turn, and D the next one, a span later.
    client.handle_timeout(ms(3000));
    let steps = steps(&mut client);
    assert!(
        matches!(steps[0], (r, Step::StartAttempt { .. }) if r == a),
        "{steps:?}"
    );
    // The run from 1.3 s served the refused read's retry: one per 1.7 s.
    assert_eq!(waits_until(&steps, d), Some(ms(4700)), "{steps:?}");
}

#[test]
fn a_scope_whose_policy_limits_its_requests_in_flight_has_no_opening_window() {
    let mut client = paced();
    let limit = ScopePolicy::new().with_in_flight_limit(50);
    client.handle_scope_policy(API, limit).unwrap();
    for seed in 0..50 {
        client
            .handle_start(Duration::ZERO, API, RetryPolicy::new(), seed)
            .unwrap();
    }
    // The app said fifty may go at once: all fifty go, not the opening ten.
    assert_eq!(client.scope_state(API).in_flight, 50);
    assert_eq!(client.scope_state(API).queued, 0);
}
