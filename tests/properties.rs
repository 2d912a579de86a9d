//! Properties over random valid policies and random server answers, replayed through the
//! model (and so through the core) on a virtual clock.
#![cfg(not(target_arch = "wasm32"))]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use palette_list::budget::{
    parse_retry_after, Event, Outcome, RetryAfter, RetryPolicy, StatusSet, WaitReason,
};
use palette_list_model::{replay, Answer, Attempt, Case, Request};
use proptest::prelude::*;

const MS: fn(u64) -> Duration = Duration::from_millis;

/// Mon, 01 Jan 2024 12:00:00 GMT.
fn noon() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_704_110_400)
}

fn policy() -> impl Strategy<Value = RetryPolicy> {
    (
        1_000u64..60_000,
        1u32..=6,
        prop::collection::vec(0u64..5_000, 1..=3),
        0u64..3_000,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_flat_map(|(budget, attempts, fallback, floor, also_503, trust)| {
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
            })
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

fn answer() -> impl Strategy<Value = Answer> {
    let response = (
        prop::sample::select(vec![200u16, 204, 429, 429, 429, 503, 500, 404]),
        retry_after(),
        prop::option::of(
            (0u64..30).prop_map(|s| httpdate::fmt_http_date(noon() + Duration::from_secs(s))),
        ),
    )
        .prop_map(|(status, ra, date)| {
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
                body: None,
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
        )
            .prop_map(move |(attempts, leave, late, clock)| Case {
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
        if report.outcome == Outcome::AttemptsExhausted {
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
            if report.outcome == Outcome::UserLeft {
                prop_assert_eq!(report.at, leave);
            }
        }
        // No request runs past the budget; only a late timer can move the stop past it.
        for t in r.receipts() {
            prop_assert!(t <= p.budget());
        }
        let lateness: Duration = case.timer_late_by.iter().sum();
        prop_assert!(report.at <= p.budget() + lateness);
    }

    #[test]
    fn a_valid_server_delay_is_never_shortened(case in case()) {
        let r = replay(&case).expect("a valid case always replays");
        let mut planned: Option<(Duration, Duration)> = None; // (decided at, at least until)
        for e in &r.trace {
            match &e.event {
                Event::WaitPlanned { wait, reason, .. } => {
                    let asked = match reason {
                        WaitReason::ServerDelay(d) => *d,
                        WaitReason::ServerDate { delay, .. } => *delay,
                        WaitReason::Fallback { wait, .. } => *wait,
                    };
                    prop_assert!(*wait >= asked && *wait >= case.policy.min_wait());
                    planned = Some((e.at, e.at + *wait));
                }
                Event::AttemptStarted { attempt } if *attempt > 1 => {
                    let (_, until) = planned.take().expect("a retry follows a planned wait");
                    prop_assert!(e.at >= until, "attempt {attempt} at {:?} before {until:?}", e.at);
                }
                _ => {}
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
        prop_assert_eq!(parse_retry_after(&httpdate::fmt_http_date(t)), Ok(RetryAfter::Date(t)));
    }

    #[test]
    fn any_text_is_valid_or_refused_with_a_reason(s in "\\PC{0,40}") {
        match parse_retry_after(&s) {
            Ok(RetryAfter::Delay(_)) => {
                prop_assert!(s.trim_matches([' ', '\t']).bytes().all(|b| b.is_ascii_digit()))
            }
            Ok(RetryAfter::Date(_)) => prop_assert!(httpdate::parse_http_date(s.trim_matches([' ', '\t'])).is_ok()),
            Err(e) => prop_assert!(!e.reason.is_empty() && e.value == s),
        }
    }
}
