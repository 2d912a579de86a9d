//! Properties over random valid policies and random server answers, replayed through the
//! model (and so through the core) on a virtual clock.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{ms as MS, noon};

use palette_list_model::{replay, Answer, Attempt, Body, Case, Request};
use proptest::prelude::*;
use retry_budget::headers::{parse_retry_after, HttpDate, RetryAfter};
use retry_budget::policy::StatusSet;
use retry_budget::report::OutcomeKind;
use retry_budget::{Event, RetryPolicy};

fn policy() -> impl Strategy<Value = RetryPolicy> {
    (
        1_000u64..60_000,
        1u32..=6,
        prop::collection::vec(0u64..5_000, 1..=3),
        0u64..3_000,
        any::<bool>(),
        any::<bool>(),
        prop_oneof![Just(0u32), 0u32..=100],
    )
        .prop_flat_map(
            |(budget, attempts, fallback, floor, also_503, trust, jitter)| {
                (1u64..=budget).prop_map(move |cap| {
                    let statuses = if also_503 {
                        StatusSet::new().with(429).with(503)
                    } else {
                        StatusSet::new().with(429)
                    };
                    RetryPolicy::new()
                        .with_budget(MS(budget))
                        .with_max_attempts(attempts)
                        .with_attempt_cap(MS(cap))
                        .with_min_wait(MS(floor))
                        .with_fallback_waits(fallback.iter().map(|&w| MS(w)).collect::<Vec<_>>())
                        .with_retry_statuses(statuses)
                        .with_trust_local_clock(trust)
                        .with_jitter(jitter)
                })
            },
        )
}

/// The delay a `Retry-After` value asks for, worked out here from the text alone, apart from
/// the core's parser: delay-seconds by digits (saturating), and this file's only date form
/// (noon plus 0-59 s, as [`retry_after`] makes them) against the receipt's clock evidence (the
/// `Date` value, else the trusted local clock), rounded up to whole seconds. `None` where the
/// value is not a valid hint.
fn oracle_delay(
    retry_after: Option<&str>,
    date: Option<&str>,
    local: Option<SystemTime>,
) -> Option<Duration> {
    let v = retry_after?.trim_matches([' ', '\t']);
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        let n = v.bytes().fold(0u128, |n, b| {
            (n * 10 + u128::from(b - b'0')).min(u128::from(u64::MAX))
        });
        return Some(Duration::from_secs(n as u64));
    }
    let noon_plus = |text: &str| -> Option<SystemTime> {
        let s = text
            .strip_prefix("Mon, 01 Jan 2024 12:00:")?
            .strip_suffix(" GMT")?;
        (s.len() == 2).then_some(())?;
        Some(noon() + Duration::from_secs(s.parse().ok()?))
    };
    let until = noon_plus(v)?;
    let receipt = date.and_then(noon_plus).or(local)?;
    Some(match until.duration_since(receipt) {
        Ok(d) => Duration::from_secs(d.as_secs() + u64::from(d.subsec_nanos() > 0)),
        Err(_) => Duration::ZERO,
    })
}

/// A Retry-After value of every kind: none, digits, huge, invalid, a date near the receipt.
fn retry_after() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        (0u64..40).prop_map(|n| Some(n.to_string())),
        Just(Some("99999999999999999999999".to_owned())),
        prop::sample::select(vec!["1.5", "-1", "+3", "3s", "tomorrow", "NaN", ""])
            .prop_map(|s| Some(s.to_owned())),
        (0u64..60).prop_map(|s| Some(httpdate::fmt_http_date(noon() + Duration::from_secs(s)))),
    ]
}

/// A body: mostly palettes, sometimes something no screen can use.
fn body() -> impl Strategy<Value = Option<Body>> {
    const COAST: &str =
        r##"{"collection": "coast", "palettes": [{"id": "a", "name": "A", "colors": ["#fff"]}]}"##;
    prop_oneof![
        6 => Just(Some(Body::Text(COAST.to_owned()))),
        1 => Just(None),
        1 => Just(Some(Body::Text("<html>502</html>".to_owned()))),
        1 => (0u64..3_000_000).prop_map(|n| Some(Body::Filler(n))),
    ]
}

fn answer() -> impl Strategy<Value = Answer> {
    let response = (
        prop::sample::select(vec![200u16, 204, 429, 429, 429, 503, 500, 404]),
        retry_after(),
        prop::option::of(
            (0u64..30).prop_map(|s| httpdate::fmt_http_date(noon() + Duration::from_secs(s))),
        ),
        body(),
    )
        .prop_map(|(status, ra, date, body)| {
            let mut headers = Vec::new();
            if let Some(v) = ra {
                headers.push(("Retry-After".to_owned(), v));
            }
            if let Some(d) = date {
                headers.push(("Date".to_owned(), d));
            }
            Answer::Response {
                status,
                headers,
                body,
            }
        });
    prop_oneof![8 => response, 1 => Just(Answer::TransportFailure), 1 => Just(Answer::NoAnswer)]
}

fn case() -> impl Strategy<Value = Case> {
    policy().prop_flat_map(|policy| {
        let cap = policy.attempt_cap().as_millis() as u64;
        let budget = policy.budget().as_millis() as u64;
        let n = policy.max_attempts() as usize;
        (
            prop::collection::vec((0u64..=cap, answer()), n),
            prop::option::of(0u64..budget + 5_000),
            prop::collection::vec(0u64..6_000, 0..=3),
            any::<bool>(),
            any::<u64>(),
        )
            .prop_map(move |(attempts, leave, late, clock, seed)| Case {
                id: "random".into(),
                source: None,
                policy: policy.clone(),
                request: Request::default(),
                wall_clock_at_zero: clock.then(noon),
                attempts: attempts
                    .into_iter()
                    .map(|(d, answer)| Attempt {
                        duration: (answer != Answer::NoAnswer).then_some(MS(d)),
                        answer,
                    })
                    .collect(),
                user_leaves_at: leave.map(MS),
                timer_late_by: late.into_iter().map(MS).collect(),
                jitter_seed: seed,
                expect: None,
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_budget_holds_whatever_the_server_says(case in case()) {
        let r = replay(&case).expect("a valid case always replays");
        let p = &case.policy;
        let starts = r.starts();
        let report = &r.report;

        // No attempt starts unless its start plus the cap fits the budget.
        for s in &starts {
            prop_assert!(*s + p.attempt_cap() <= p.budget(), "start {s:?}");
        }
        // Never more than max_attempts.
        prop_assert!(starts.len() <= p.max_attempts() as usize);
        prop_assert_eq!(report.attempts as usize, starts.len());
        if report.outcome.kind() == OutcomeKind::AttemptsExhausted {
            prop_assert_eq!(starts.len(), p.max_attempts() as usize);
        }
        // Request time and waited time are each counted once, and add up to the elapsed time.
        prop_assert_eq!(report.request_time + report.waited_time, report.at);
        // Exactly one terminal event.
        let stops = r.trace.iter().filter(|e| matches!(e.event, Event::Stopped(_))).count();
        prop_assert_eq!(stops, 1);
        // Nothing starts after the user leaves, and leaving stops at once.
        if let Some(leave) = case.user_leaves_at {
            prop_assert!(starts.iter().skip(1).all(|s| *s < leave));
            prop_assert!(report.at <= leave);
            if report.outcome.kind() == OutcomeKind::UserLeft {
                prop_assert_eq!(report.at, leave);
            }
        }
        // No request runs past the budget; only a late timer can move the stop past it.
        for t in r.receipts() {
            prop_assert!(t <= p.budget());
        }
        let lateness: Duration = case.timer_late_by.iter().sum();
        prop_assert!(report.at <= p.budget() + lateness);
        // Jitter only lengthens a wait the client chose, by at most the policy's percent.
        for e in &r.trace {
            if let Event::WaitPlanned { wait, jitter, reason, .. } = &e.event {
                let chosen = *wait - *jitter;
                prop_assert_eq!(chosen, reason.asked().max(p.min_wait()));
                prop_assert!(*jitter <= chosen * p.jitter_percent() / 100, "{jitter:?} of {chosen:?}");
                if reason.requested().is_some() {
                    prop_assert_eq!(*jitter, Duration::ZERO);
                }
            }
        }
    }

    #[test]
    fn a_valid_server_delay_is_never_shortened(case in case()) {
        let r = replay(&case).expect("a valid case always replays");
        let p = &case.client_policy();
        // The delay the last retryable answer asked for, by the oracle: (receipt, delay).
        let mut asked: Option<(Duration, Duration)> = None;
        for e in &r.trace {
            match &e.event {
                Event::ResponseReceived { status, retry_after, date, .. }
                    if p.retry_statuses().contains(*status) =>
                {
                    let local = case.wall_clock_at(e.at).filter(|_| p.trust_local_clock());
                    asked = oracle_delay(retry_after.as_deref(), date.as_deref(), local)
                        .map(|d| (e.at, d));
                }
                Event::WaitPlanned { wait, .. } => {
                    if let Some((_, delay)) = asked {
                        prop_assert!(*wait >= delay.max(p.min_wait()), "wait {wait:?}, asked {delay:?}");
                    }
                }
                Event::AttemptStarted { attempt } if *attempt > 1 => {
                    if let Some((at, delay)) = asked.take() {
                        let until = at.saturating_add(delay.max(p.min_wait()));
                        prop_assert!(e.at >= until, "attempt {attempt} at {:?} before {until:?}", e.at);
                    }
                }
                Event::Stopped(report) => {
                    // A stop that a server delay decided names that delay, unshortened.
                    if let (Some(requested), Some((_, delay))) = (report.outcome.requested_delay(), asked) {
                        prop_assert_eq!(requested, delay);
                    }
                }
                _ => {}
            }
        }
    }

    #[test]
    fn where_a_retry_fits_it_starts_exactly_at_the_end_of_its_wait(case in case()) {
        let r = replay(&case).expect("a valid case always replays");
        let p = &case.policy;
        let events: Vec<_> = r.trace.iter().collect();
        let mut wait_number = 0;
        for (i, e) in events.iter().enumerate() {
            let Event::WaitPlanned { wait, .. } = e.event else { continue };
            let late = case.timer_late_by.get(wait_number).copied().unwrap_or_default();
            wait_number += 1;
            let wake = e.at + wait + late;
            if case.user_leaves_at.is_some_and(|leave| leave <= wake) {
                continue; // the user leaves first: nothing may start
            }
            // The next two events: the wake, then the attempt (or the stop the wake decided).
            let woke = events.get(i + 1).map(|e| (e.at, &e.event));
            prop_assert!(matches!(woke, Some((at, Event::TimerWoke { .. })) if at == wake), "{woke:?}");
            let next = events.get(i + 2).map(|e| (e.at, &e.event));
            if wake + p.attempt_cap() <= p.budget() {
                prop_assert!(
                    matches!(next, Some((at, Event::AttemptStarted { .. })) if at == wake),
                    "a retry that fits at {wake:?} did not start: {next:?}"
                );
            } else {
                prop_assert!(
                    matches!(next, Some((at, Event::Stopped(s))) if at == wake && s.outcome.kind() == OutcomeKind::BudgetExhausted),
                    "{next:?}"
                );
            }
        }
    }

    #[test]
    fn delay_seconds_round_trip(n in any::<u64>()) {
        prop_assert_eq!(parse_retry_after(&n.to_string()), Ok(RetryAfter::Delay(Duration::from_secs(n))));
    }

    #[test]
    fn dates_round_trip(secs in 0u64..253_402_300_799) {
        let t = UNIX_EPOCH + Duration::from_secs(secs);
        let date = HttpDate::from_system_time(t).unwrap();
        prop_assert_eq!(parse_retry_after(&httpdate::fmt_http_date(t)), Ok(RetryAfter::Date(date)));
    }
}
