//! Core tests on a virtual clock. They compile natively and in wasm.

use std::time::Duration;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::places::Place;
use super::scope::ScopeLedger;
use super::*;
use crate::action::{Phase, WaitReason};
use crate::body::BodyProblem;
use crate::headers::{parse_retry_after, ClockSource, HeaderNote, HttpDate};
use crate::policy::{PolicyError, Priority, StatusSet};
use crate::report::{Cancelled, HeldBy, LastResponse, OutcomeKind, Overrun, TransportFailure};
use crate::scope::{
    BlockCause, RetryPurse, RetryTokens, ScopeBlock, ScopePolicyError, ScopeState, TokenTaken,
};
use crate::test_clock::{noon, s};
use crate::trace::DropReason;
use crate::wire::{handed_trace, parse_trace, HandOverError};
use crate::words::{seconds_text, Precision};

/// The stop message, line by line.
fn message(r: &StopReport) -> Vec<String> {
    r.message().lines().map(|l| l.to_string()).collect()
}

/// What on the scope held a `budget_exhausted` read back, if anything did.
fn held_by(r: &StopReport) -> Option<HeldBy> {
    match r.outcome {
        Outcome::BudgetExhausted(Overrun::Scope(held_by)) => Some(held_by),
        _ => None,
    }
}

/// An HTTP date as the core keeps it.
fn date(secs_after_noon: u64) -> HttpDate {
    HttpDate::from_system_time(noon() + s(secs_after_noon)).unwrap()
}

/// The origin of the driver's clock in these tests: not zero, so elapsed time is really derived.
const T0: Duration = Duration::from_millis(1_234_567);

fn start() -> ReadAction {
    start_with(RetryPolicy::new())
}

fn start_with(policy: RetryPolicy) -> ReadAction {
    let mut a = ReadAction::start(T0, policy).unwrap();
    assert_eq!(
        a.poll_action(),
        Some(Step::StartAttempt {
            number: 1,
            deadline: T0 + s(4)
        })
    );
    a
}

fn stopped(a: &mut ReadAction) -> StopReport {
    match a.poll_action() {
        Some(Step::Stop(r)) => {
            assert_eq!(a.report(), Some(&r));
            assert_eq!(a.poll_timeout(), None);
            r
        }
        other => panic!("expected a stop, got {other:?}"),
    }
}

fn waits_until(a: &mut ReadAction, at: u64) -> WaitReason {
    match a.poll_action() {
        Some(Step::Wait {
            next,
            until,
            reason,
        }) => {
            assert_eq!(
                next,
                a.attempts() + 1,
                "the wait names the attempt after it"
            );
            assert_eq!(until, T0 + s(at));
            assert_eq!(a.poll_timeout(), Some(T0 + s(at)));
            reason
        }
        other => panic!("expected a wait, got {other:?}"),
    }
}

fn starts(a: &mut ReadAction, number: u32, at: u64) {
    assert_eq!(
        a.poll_action(),
        Some(Step::StartAttempt {
            number,
            deadline: T0 + s(at + 4)
        })
    );
}

fn terminal_events(a: &ReadAction) -> usize {
    a.trace()
        .iter()
        .filter(|e| matches!(e.event, Event::Stopped(_)))
        .count()
}

#[test]
fn schedule_a_by_hand() {
    let mut a = start();
    a.handle_response(T0 + s(2), &Response::new(429).retry_after("3"), None);
    assert_eq!(waits_until(&mut a, 5), WaitReason::ServerDelay(s(3)));
    a.handle_timeout(T0 + s(5));
    starts(&mut a, 2, 5);
    a.handle_response(T0 + s(7), &Response::new(429).retry_after("4"), None);
    waits_until(&mut a, 11);
    a.handle_timeout(T0 + s(11));
    starts(&mut a, 3, 11);
    a.handle_response(T0 + s(14), &Response::new(200), None);
    let r = stopped(&mut a);
    assert_eq!(r.outcome.kind(), OutcomeKind::Succeeded);
    assert_eq!((r.at, r.request_time, r.waited_time), (s(14), s(7), s(7)));
    assert_eq!(r.attempts, 3);
    assert_eq!(terminal_events(&a), 1);
}

#[test]
fn the_step_is_given_once() {
    let mut a = start();
    assert_eq!(a.poll_action(), None);
    a.handle_response(T0 + s(2), &Response::new(429), None);
    assert!(a.poll_action().is_some());
    assert_eq!(a.poll_action(), None);
}

#[test]
fn wait_exceeds_budget_stops_at_receipt_with_the_specs_words() {
    let mut a = start();
    a.handle_response(T0 + s(2), &Response::new(429).retry_after("30"), None);
    let r = stopped(&mut a);
    assert_eq!(r.outcome.kind(), OutcomeKind::BudgetExhausted);
    assert_eq!(r.at, s(2));
    assert_eq!(r.outcome.requested_delay(), Some(s(30)));
    assert_eq!(
        message(&r),
        [
            "Stopped: retry budget cannot fit another request.",
            "Last response: 429. Attempts: 1 of 3. Elapsed: 2 seconds.",
            "The service requested a 30-second delay. No retry was sent.",
        ]
    );
}

#[test]
fn a_huge_delay_never_overflows_the_clock() {
    let mut a = start();
    let huge = "340282366920938463463374607431768211456";
    a.handle_response(T0 + s(2), &Response::new(429).retry_after(huge), None);
    let r = stopped(&mut a);
    assert_eq!(r.outcome.kind(), OutcomeKind::BudgetExhausted);
    assert_eq!(r.outcome.requested_delay(), Some(s(u64::MAX)));
    assert_eq!(
        message(&r)[2],
        "The service requested a delay of at least 18446744073709551615 seconds. No retry was sent."
    );
}

#[test]
fn a_wait_that_fits_can_still_stop_on_the_reserved_cap() {
    // Receipt at 14, delay 4: next start 18 needs its cap until 22 > 20.
    let mut a = start();
    a.handle_response(T0 + s(4), &Response::new(429).retry_after("6"), None);
    waits_until(&mut a, 10);
    a.handle_timeout(T0 + s(10));
    starts(&mut a, 2, 10);
    a.handle_response(T0 + s(14), &Response::new(429).retry_after("4"), None);
    let r = stopped(&mut a);
    assert_eq!(
        (r.outcome.kind(), r.at),
        (OutcomeKind::BudgetExhausted, s(14))
    );
    assert_eq!((r.request_time, r.waited_time), (s(8), s(6)));
    assert_eq!(
        message(&r)[2],
        "The service requested a 4-second delay. No further retry was sent."
    );
}

#[test]
fn the_gate_admits_an_attempt_that_ends_exactly_at_the_deadline() {
    let mut a = start();
    // At 2, wait 14: the next attempt starts at 16 and its cap ends at exactly 20.
    a.handle_response(T0 + s(2), &Response::new(429).retry_after("14"), None);
    waits_until(&mut a, 16);
    a.handle_timeout(T0 + s(16));
    starts(&mut a, 2, 16);
}

#[test]
fn the_local_floor_lengthens_short_server_delays() {
    let mut a = start();
    a.handle_response(T0 + s(2), &Response::new(429).retry_after("0"), None);
    assert_eq!(waits_until(&mut a, 3), WaitReason::ServerDelay(s(0)));
}

#[test]
fn a_valid_server_delay_is_never_shortened() {
    let mut a = start();
    a.handle_response(T0 + s(1), &Response::new(429).retry_after("15"), None);
    waits_until(&mut a, 16);
}

#[test]
fn missing_and_invalid_hints_fall_back_and_the_list_repeats() {
    let policy = RetryPolicy::new().with_max_attempts(4).with_budget(s(60));
    let mut a = start_with(policy);
    a.handle_response(T0 + s(1), &Response::new(429), None);
    let reason = waits_until(&mut a, 3);
    assert_eq!(
        reason,
        WaitReason::Fallback {
            wait: s(2),
            note: HeaderNote::Missing {
                maybe_hidden: false
            }
        }
    );
    a.handle_timeout(T0 + s(3));
    starts(&mut a, 2, 3);
    a.handle_response(T0 + s(4), &Response::new(429).retry_after("1.5"), None);
    let WaitReason::Fallback { wait, note } = waits_until(&mut a, 8) else {
        panic!()
    };
    assert_eq!((wait, note.kind()), (s(4), "invalid"));
    a.handle_timeout(T0 + s(8));
    starts(&mut a, 3, 8);
    a.handle_response(T0 + s(9), &Response::new(429).retry_after("soon"), None);
    waits_until(&mut a, 13); // past the list's end, its last entry repeats
}

#[test]
fn a_cross_origin_miss_says_the_header_may_be_hidden() {
    let mut a = start();
    a.handle_response(T0 + s(2), &Response::new(429).cross_origin(true), None);
    let WaitReason::Fallback { note, .. } = waits_until(&mut a, 4) else {
        panic!()
    };
    assert_eq!(note, HeaderNote::Missing { maybe_hidden: true });
    assert!(note.to_string().contains("may send it without exposing it"));
}

#[test]
fn attempts_run_out_before_the_budget_does() {
    let mut a = start();
    for (n, t) in [(2, 2), (3, 5)] {
        a.handle_response(T0 + s(t), &Response::new(429).retry_after("0"), None);
        waits_until(&mut a, t + 1);
        a.handle_timeout(T0 + s(t + 1));
        starts(&mut a, n, t + 1);
    }
    a.handle_response(T0 + s(8), &Response::new(429).retry_after("0"), None);
    let r = stopped(&mut a);
    assert_eq!(
        (r.outcome.kind(), r.at, r.attempts),
        (OutcomeKind::AttemptsExhausted, s(8), 3)
    );
    assert_eq!(r.outcome.requested_delay(), None);
}

#[test]
fn with_both_gates_closed_attempts_are_named() {
    let mut a = start_with(RetryPolicy::new().with_max_attempts(1));
    a.handle_response(T0 + s(2), &Response::new(429).retry_after("100"), None);
    assert_eq!(
        stopped(&mut a).outcome.kind(),
        OutcomeKind::AttemptsExhausted
    );
}

#[test]
fn a_date_is_read_against_the_trusted_local_clock() {
    let mut a = start();
    let hint = Response::new(429).retry_after("Mon, 01 Jan 2024 12:00:06 GMT");
    a.handle_response(T0 + s(2), &hint, Some(noon() + s(2)));
    let reason = waits_until(&mut a, 6);
    assert_eq!(
        reason,
        WaitReason::ServerDate {
            until: date(6),
            delay: s(4),
            evidence: ClockSource::LocalClock
        }
    );
}

#[test]
fn the_responses_own_date_wins_over_the_local_clock() {
    let mut a = start();
    let hint = Response::new(429)
        .retry_after("Mon, 01 Jan 2024 12:00:06 GMT")
        .date("Mon, 01 Jan 2024 12:00:01 GMT");
    // The local clock is an hour off; the server's own clock gives 5 s.
    a.handle_response(T0 + s(2), &hint, Some(noon() + s(3600)));
    let WaitReason::ServerDate {
        delay, evidence, ..
    } = waits_until(&mut a, 7)
    else {
        panic!()
    };
    assert_eq!((delay, evidence), (s(5), ClockSource::DateHeader));
}

#[test]
fn no_clock_evidence_stops_as_clock_untrusted() {
    let hint = Response::new(429).retry_after("Mon, 01 Jan 2024 12:00:06 GMT");
    // No local clock at all.
    let mut a = start();
    a.handle_response(T0 + s(2), &hint, None);
    let r = stopped(&mut a);
    assert_eq!(
        (r.outcome.kind(), r.at),
        (OutcomeKind::ClockUntrusted, s(2))
    );
    assert_eq!(r.outcome, Outcome::ClockUntrusted { date: date(6) });
    assert_eq!(
        message(&r)[2],
        "The service asked to retry after Mon, 01 Jan 2024 12:00:06 GMT. No retry was sent."
    );
    // A local clock the policy does not trust, and an unreadable Date header.
    let mut a = start_with(RetryPolicy::new().with_trust_local_clock(false));
    a.handle_response(
        T0 + s(2),
        &hint.clone().date("yesterday"),
        Some(noon() + s(2)),
    );
    assert_eq!(stopped(&mut a).outcome.kind(), OutcomeKind::ClockUntrusted);
    // The same, but the response's Date is readable: that is evidence enough.
    let mut a = start_with(RetryPolicy::new().with_trust_local_clock(false));
    let dated = hint.date("Mon, 01 Jan 2024 12:00:02 GMT");
    a.handle_response(T0 + s(2), &dated, None);
    waits_until(&mut a, 6);
}

#[test]
fn a_past_date_waits_only_the_floor() {
    let mut a = start();
    let hint = Response::new(429).retry_after("Mon, 01 Jan 2024 11:00:00 GMT");
    a.handle_response(T0 + s(2), &hint, Some(noon() + s(2)));
    let WaitReason::ServerDate { delay, .. } = waits_until(&mut a, 3) else {
        panic!()
    };
    assert_eq!(delay, Duration::ZERO);
}

#[test]
fn a_date_wait_is_fixed_once_and_later_clock_changes_do_not_move_it() {
    let mut a = start();
    let hint = Response::new(429).retry_after("Mon, 01 Jan 2024 12:00:06 GMT");
    a.handle_response(T0 + s(2), &hint, Some(noon() + s(2)));
    waits_until(&mut a, 6);
    // The wall clock jumps; the action never looks at it again. The wake is on the monotonic
    // clock: early calls change nothing, the planned one starts attempt 2.
    a.handle_timeout(T0 + s(5));
    assert_eq!(a.poll_action(), None);
    assert_eq!(a.poll_timeout(), Some(T0 + s(6)));
    a.handle_timeout(T0 + s(6));
    starts(&mut a, 2, 6);
}

#[test]
fn a_late_wake_rechecks_the_gate_against_now() {
    let mut a = start();
    a.handle_response(T0 + s(2), &Response::new(429).retry_after("10"), None);
    waits_until(&mut a, 12);
    a.handle_timeout(T0 + s(17));
    let r = stopped(&mut a);
    assert_eq!(
        (r.outcome.kind(), r.at, r.waited_time),
        (OutcomeKind::BudgetExhausted, s(17), s(15))
    );
    assert_eq!(r.outcome, Outcome::BudgetExhausted(Overrun::WokeLate(s(5))));
    assert_eq!(r.outcome.requested_delay(), None);
    assert!(message(&r)[2].starts_with("The wait ended 5 seconds late"));
    assert!(a
        .trace()
        .iter()
        .any(|e| e.event == Event::TimerWoke { late: s(5) }));
}

#[test]
fn a_late_wake_that_still_fits_starts_the_attempt_at_now() {
    let mut a = start();
    a.handle_response(T0 + s(2), &Response::new(429).retry_after("10"), None);
    waits_until(&mut a, 12);
    a.handle_timeout(T0 + s(13));
    starts(&mut a, 2, 13);
}

#[test]
fn leaving_while_waiting_cancels_the_retry() {
    let mut a = start();
    a.handle_response(T0 + s(2), &Response::new(429).retry_after("8"), None);
    waits_until(&mut a, 10);
    a.handle_leave(T0 + s(5));
    let r = stopped(&mut a);
    assert_eq!(
        (r.outcome.kind(), r.at, r.request_time, r.waited_time),
        (OutcomeKind::UserLeft, s(5), s(2), s(3))
    );
    assert_eq!(
        r.outcome,
        Outcome::UserLeft {
            cancelled: Cancelled::Pending
        }
    );
    // The timer the driver failed to clear changes nothing; no attempt ever starts.
    a.handle_timeout(T0 + s(10));
    assert_eq!(a.poll_action(), None);
    assert_eq!(a.attempts(), 1);
}

#[test]
fn leaving_in_flight_drops_the_late_answer() {
    let mut a = start();
    a.handle_leave(T0 + s(1));
    let r = stopped(&mut a);
    assert_eq!(
        (r.outcome.kind(), r.request_time),
        (OutcomeKind::UserLeft, s(1))
    );
    assert_eq!(
        r.outcome,
        Outcome::UserLeft {
            cancelled: Cancelled::InFlight
        }
    );
    assert!(message(&r)[2].contains("may still have processed it"));
    a.handle_response(T0 + s(2), &Response::new(200), None);
    a.handle_transport_failure(T0 + s(2), TransportFailure::Network);
    assert_eq!(a.poll_action(), None);
    assert_eq!(a.report(), Some(&r), "the report did not change");
    let dropped: Vec<_> = a.trace().iter().map(|e| &e.event).collect();
    assert!(matches!(
        dropped[dropped.len() - 2..],
        [
            Event::ResponseDropped {
                status: Some(200),
                reason: DropReason::NotOwned
            },
            Event::ResponseDropped {
                status: None,
                reason: DropReason::NotOwned
            },
        ]
    ));
    // Leaving again is nothing new.
    a.handle_leave(T0 + s(3));
    assert_eq!(terminal_events(&a), 1);
}

#[test]
fn moving_on_to_another_request_says_so_then_stops_as_leaving_does() {
    let mut a = start();
    a.handle_response(T0 + s(2), &Response::new(429).retry_after("8"), None);
    waits_until(&mut a, 10);
    a.handle_move_on(T0 + s(4));
    let r = stopped(&mut a);
    assert_eq!(
        (r.outcome, r.waited_time),
        (
            Outcome::UserLeft {
                cancelled: Cancelled::Pending
            },
            s(2)
        )
    );
    let tail: Vec<_> = a
        .trace()
        .iter()
        .rev()
        .take(2)
        .map(|e| (e.at, &e.event))
        .collect();
    assert!(
        matches!(tail[..], [(_, Event::Stopped(_)), (at, Event::MovedOn)] if at == s(4)),
        "{tail:?}"
    );
    // A stopped action has nowhere to move on from: its trace stays as it was.
    let before = a.trace().len();
    a.handle_move_on(T0 + s(5));
    a.handle_timeout(T0 + s(10));
    assert_eq!((a.trace().len(), a.poll_action()), (before, None));
}

#[test]
fn other_statuses_stop_under_their_own_outcome() {
    for status in [500, 503, 404, 304, 401] {
        let mut a = start();
        a.handle_response(T0 + s(1), &Response::new(status).retry_after("1"), None);
        let r = stopped(&mut a);
        assert_eq!(
            r.outcome.kind(),
            OutcomeKind::NonRetryableResponse,
            "{status}"
        );
        assert_eq!(r.last_response.as_ref().map(|l| l.status), Some(status));
        assert_eq!(r.last_response.and_then(|l| l.note), None);
    }
    let mut a = start_with(RetryPolicy::new().with_retry_statuses(StatusSet::new().with(503)));
    a.handle_response(T0 + s(1), &Response::new(503).retry_after("1"), None);
    waits_until(&mut a, 2);
}

#[test]
fn a_transport_failure_is_not_retried() {
    let mut a = start();
    a.handle_transport_failure(T0 + s(1), TransportFailure::Network);
    let r = stopped(&mut a);
    assert_eq!(
        (r.outcome.kind(), r.request_time, &r.last_response),
        (OutcomeKind::TransportFailure, s(1), &None)
    );
    assert_eq!(
        message(&r)[2],
        format!("{} No retry was sent.", TransportFailure::Network)
    );
}

#[test]
fn the_cap_times_an_attempt_out() {
    let mut a = start();
    assert_eq!(a.poll_timeout(), Some(T0 + s(4)));
    a.handle_timeout(T0 + s(3));
    assert_eq!(a.poll_action(), None, "early");
    a.handle_timeout(T0 + s(4));
    let r = stopped(&mut a);
    assert_eq!(
        (r.outcome.kind(), r.at, r.request_time),
        (OutcomeKind::AttemptTimedOut, s(4), s(4))
    );
    assert_eq!(
        message(&r)[0],
        "Stopped: the service did not answer within 4 seconds."
    );
}

#[test]
fn a_response_after_the_cap_is_not_used() {
    let mut a = start();
    a.handle_response(T0 + s(5), &Response::new(200), None);
    let r = stopped(&mut a);
    assert_eq!(r.outcome.kind(), OutcomeKind::AttemptTimedOut);
    assert!(a.trace().iter().any(|e| e.event
        == Event::ResponseDropped {
            status: Some(200),
            reason: DropReason::PastCap
        }));
}

#[test]
fn an_answer_exactly_at_the_cap_counts() {
    let mut a = start();
    a.handle_response(T0 + s(4), &Response::new(200), None);
    assert_eq!(stopped(&mut a).outcome.kind(), OutcomeKind::Succeeded);
}

#[test]
fn an_invalid_policy_starts_nothing() {
    assert_eq!(
        ReadAction::start(T0, RetryPolicy::new().with_max_attempts(0)).unwrap_err(),
        PolicyError::NoAttempts
    );
}

#[test]
fn every_outcome_is_reachable() {
    use std::collections::HashSet;
    let mut seen = HashSet::new();
    let drive = |f: &dyn Fn(&mut ReadAction)| {
        let mut a = start();
        f(&mut a);
        stopped(&mut a).outcome.kind()
    };
    let date = "Mon, 01 Jan 2024 12:00:06 GMT";
    seen.insert(drive(&|a| {
        a.handle_response(T0 + s(1), &Response::new(200), None)
    }));
    seen.insert(drive(&|a| {
        a.handle_response(T0 + s(1), &Response::new(429).retry_after("99"), None)
    }));
    seen.insert(drive(&|a| {
        for t in [1, 3] {
            a.handle_response(T0 + s(t), &Response::new(429).retry_after("1"), None);
            a.handle_timeout(T0 + s(t + 1));
        }
        a.handle_response(T0 + s(5), &Response::new(429).retry_after("1"), None);
    }));
    seen.insert(drive(&|a| a.handle_leave(T0 + s(1))));
    seen.insert(drive(&|a| {
        a.handle_response(T0 + s(1), &Response::new(429).retry_after(date), None)
    }));
    seen.insert(drive(&|a| {
        a.handle_response(T0 + s(1), &Response::new(500), None)
    }));
    seen.insert(drive(&|a| {
        a.handle_transport_failure(T0 + s(1), TransportFailure::CannotAbort)
    }));
    seen.insert(drive(&|a| a.handle_timeout(T0 + s(4))));
    seen.insert(drive(&|a| {
        let too_large = BodyProblem::TooLarge { limit: 1 << 20 };
        a.handle_unreadable_response(T0 + s(1), &Response::new(200), None, too_large)
    }));
    assert_eq!(seen, OutcomeKind::ALL.into_iter().collect());
}

#[test]
fn the_trace_tells_the_whole_story() {
    let mut a = start();
    a.handle_response(T0 + s(2), &Response::new(429).retry_after("3"), None);
    a.handle_timeout(T0 + s(5));
    a.handle_response(T0 + s(7), &Response::new(200), None);
    let lines: Vec<String> = a
        .trace()
        .iter()
        .map(|e| format!("{} {}", seconds_text(e.at, Precision::Exact), e.event))
        .collect();
    assert_eq!(
        lines,
        [
            "0 action started: budget 20 s, at most 3 attempts, 4 s cap each",
            "0 attempt 1 started",
            "2 attempt 1 answered 429, Retry-After: 3",
            "2 wait 3 s: server asked for 3 s; 18 s of budget left",
            "5 timer woke on time",
            "5 attempt 2 started",
            "7 attempt 2 answered 200",
            "7 stopped: succeeded after 2 of 3 attempts",
        ]
    );
}

#[test]
fn a_2xx_whose_body_is_unusable_is_traced_and_stops_unread_never_retried() {
    let mut a = start();
    let problem = BodyProblem::NotJson { line: 1, column: 1 };
    a.handle_unreadable_response(T0 + s(2), &Response::new(200), Some(noon()), problem);
    let r = stopped(&mut a);
    assert_eq!(
        (r.outcome.kind(), r.at, r.attempts),
        (OutcomeKind::UnreadableResponse, s(2), 1)
    );
    assert_eq!(r.last_response.as_ref().map(|l| l.status), Some(200));
    assert_eq!(r.outcome, Outcome::UnreadableResponse(problem));
    assert!(matches!(
        a.trace()[2].event,
        Event::ResponseReceived {
            status: 200,
            attempt: 1,
            ..
        }
    ));
    assert_eq!(
        message(&r),
        [
            "Stopped: the service answered, but not with data this screen can use.",
            "Last response: 200. Attempts: 1 of 3. Elapsed: 2 seconds.",
            "Its body is not JSON (line 1, column 1). No retry was sent.",
        ]
    );
}

#[test]
fn an_unusable_body_matters_only_for_a_2xx() {
    // A 429's body is never read; were one reported, the 429 is still planned as a 429.
    let mut a = start();
    let problem = BodyProblem::Empty;
    a.handle_unreadable_response(
        T0 + s(2),
        &Response::new(429).retry_after("3"),
        None,
        problem,
    );
    assert_eq!(waits_until(&mut a, 5), WaitReason::ServerDelay(s(3)));
    // After a retry, an unreadable 200 ends it: "no further retry".
    a.handle_timeout(T0 + s(5));
    starts(&mut a, 2, 5);
    a.handle_unreadable_response(T0 + s(6), &Response::new(204), None, problem);
    let r = stopped(&mut a);
    assert_eq!(r.outcome.kind(), OutcomeKind::UnreadableResponse);
    assert_eq!(
        message(&r)[2],
        "Its answer had no body. No further retry was sent."
    );
    // And an answer for a stopped action is dropped, whatever its body.
    a.handle_unreadable_response(T0 + s(7), &Response::new(200), None, problem);
    assert!(matches!(
        a.trace().last().unwrap().event,
        Event::ResponseDropped {
            status: Some(200),
            reason: DropReason::NotOwned
        }
    ));
}

#[test]
fn a_date_before_1970_is_past_so_the_floor_applies() {
    let mut a = start();
    let hint = Response::new(429).retry_after("Sun, 06 Nov 1960 08:49:37 GMT");
    a.handle_response(T0 + s(2), &hint, Some(noon() + s(2)));
    let WaitReason::ServerDate { until, delay, .. } = waits_until(&mut a, 3) else {
        panic!("not read as a date");
    };
    assert_eq!(
        (until.to_string().as_str(), delay),
        ("Sun, 06 Nov 1960 08:49:37 GMT", s(0))
    );
    assert!(a.trace()[2]
        .event
        .to_string()
        .contains("Retry-After: Sun, 06 Nov 1960"));
}

#[test]
fn an_rfc_850_year_is_read_against_the_receipts_date() {
    // The receipt is dated 1 Jan 2030 by the response's own Date. '79 is then 2079, 49 years
    // ahead (a fixed 1970-2069 window would read 1979, a past date, and retry after the floor).
    let mut a = start();
    let hint = Response::new(429)
        .retry_after("Sunday, 01-Jan-79 00:00:05 GMT")
        .date("Tue, 01 Jan 2030 00:00:00 GMT");
    a.handle_response(T0 + s(2), &hint, None);
    let r = stopped(&mut a);
    assert_eq!(r.outcome.kind(), OutcomeKind::BudgetExhausted);
    assert_eq!(
        r.outcome.requested_delay(),
        Some(s(3_439_756_805 - 1_893_456_000))
    );
    // '81 would be 2081, more than 50 years ahead, so it is 1981: past, so the floor.

    let mut a = start();
    let hint = Response::new(429)
        .retry_after("Thursday, 01-Jan-81 00:00:05 GMT")
        .date("Tue, 01 Jan 2030 00:00:00 GMT");
    a.handle_response(T0 + s(2), &hint, None);
    let WaitReason::ServerDate { until, delay, .. } = waits_until(&mut a, 3) else {
        panic!("not read as a date");
    };
    assert_eq!(
        (until.to_string().as_str(), delay),
        ("Thu, 01 Jan 1981 00:00:05 GMT", s(0))
    );
}

// The scope ledger: several actions on one API.

const API: &str = "https://api.example.com";

/// What a driver does when a response arrives on the scope: the ledger first, then every
/// action on the scope hears of a longer block, then the answering action decides.
fn answer(
    ledger: &mut ScopeLedger,
    actions: &mut [&mut ReadAction],
    who: usize,
    at: Duration,
    response: &Response,
) {
    if let Some(block) = ledger.hear(at, response) {
        for a in actions.iter_mut() {
            a.handle_scope_block(at, block);
        }
    }
    actions[who].handle_response(at, response, None);
}

/// A client's ledger hearing `response` at `at` on [`API`] (no local clock).
trait Hear {
    fn hear(&mut self, at: Duration, response: &Response) -> Option<ScopeBlock>;
}

impl Hear for ScopeLedger {
    fn hear(&mut self, at: Duration, response: &Response) -> Option<ScopeBlock> {
        self.learn(at, API, response.status, &response.read(None, false))
    }
}

fn start_on_scope(ledger: &ScopeLedger, at: Duration, policy: RetryPolicy) -> ReadAction {
    ReadAction::start_under(at, policy, ledger.poll_block(at, API), None, 0).unwrap()
}

#[test]
fn a_429_holds_back_every_action_on_the_scope_until_its_end() {
    let policy = RetryPolicy::new().with_budget(s(20));
    let mut ledger = ScopeLedger::new();
    let mut a = start_with(policy.clone());
    answer(
        &mut ledger,
        &mut [&mut a],
        0,
        T0 + s(0),
        &Response::new(429).retry_after("10"),
    );
    // The answering action's own wait is what the service asked, as before.
    assert_eq!(waits_until(&mut a, 10), WaitReason::ServerDelay(s(10)));

    // Two more screens mount at 1 s and 2 s: they send nothing until the block ends.
    let mut b = start_on_scope(&ledger, T0 + s(1), policy.clone());
    let mut c = start_on_scope(&ledger, T0 + s(2), policy.clone());
    assert_eq!(
        waits_until(&mut b, 10),
        WaitReason::ScopeBlocked {
            wait: s(9),
            asked: s(10),
            cause: BlockCause::TooManyRequests
        }
    );
    assert_eq!(b.attempts(), 0);
    assert_eq!(
        waits_until(&mut c, 10),
        WaitReason::ScopeBlocked {
            wait: s(8),
            asked: s(10),
            cause: BlockCause::TooManyRequests
        }
    );
    assert_eq!(
        Progress::Countdown {
            next: b.attempts() + 1,
            of: 3,
            left: s(9)
        }
        .to_string(),
        "Attempt 1 of 3 in 9 s"
    );

    // At the block's end each starts its attempt: A its second, B and C their first.
    for x in [&mut a, &mut b, &mut c] {
        x.handle_timeout(T0 + s(10));
    }
    starts(&mut a, 2, 10);
    starts(&mut b, 1, 10);
    starts(&mut c, 1, 10);
}

#[test]
fn a_block_past_the_budget_stops_a_new_action_before_any_request() {
    let mut ledger = ScopeLedger::new();
    let mut a = start_with(RetryPolicy::new().with_budget(s(20)));
    answer(
        &mut ledger,
        &mut [&mut a],
        0,
        T0,
        &Response::new(429).retry_after("10"),
    );
    // A 10 s budget started at 1 s: attempt 1 at 10 s would end at 14 s, past 10 s.
    let mut b = start_on_scope(&ledger, T0 + s(1), RetryPolicy::new().with_budget(s(10)));
    let r = stopped(&mut b);
    assert_eq!(r.outcome.kind(), OutcomeKind::BudgetExhausted);
    assert_eq!(
        (r.attempts, r.at, held_by(&r)),
        (
            0,
            s(0),
            Some(HeldBy::Block {
                wait: s(9),
                cause: BlockCause::TooManyRequests
            })
        )
    );
    assert_eq!(r.outcome.requested_delay(), None);
    assert_eq!(
        message(&r),
        [
            "Stopped: retry budget cannot fit another request.",
            "Last response: none. Attempts: 0 of 3. Elapsed: 0 seconds.",
            "The service asked every request to this API to wait, and that wait ends in \
             9 seconds, past this read's budget. No request was sent.",
        ]
    );
    assert_eq!(b.trace().len(), 2, "started, then stopped: {:?}", b.trace());
}

#[test]
fn a_block_learned_while_waiting_lengthens_the_wait_or_stops_it() {
    let mut ledger = ScopeLedger::new();
    let policy = RetryPolicy::new().with_budget(s(20));
    let mut a = start_with(policy.clone());
    let mut b = start_with(policy.clone());
    // B is waiting its own 3 s when A's answer blocks the API until 12 s.
    answer(
        &mut ledger,
        &mut [&mut a, &mut b],
        1,
        T0 + s(1),
        &Response::new(429).retry_after("3"),
    );
    waits_until(&mut b, 4);
    answer(
        &mut ledger,
        &mut [&mut a, &mut b],
        0,
        T0 + s(2),
        &Response::new(429).retry_after("10"),
    );
    assert_eq!(
        waits_until(&mut b, 12),
        WaitReason::ScopeBlocked {
            wait: s(10),
            asked: s(10),
            cause: BlockCause::TooManyRequests
        }
    );
    waits_until(&mut a, 12);
    // B's early timer changes nothing; at 12 s it starts attempt 2 having waited 11 s.
    b.handle_timeout(T0 + s(4));
    assert_eq!(b.poll_action(), None);
    b.handle_timeout(T0 + s(12));
    starts(&mut b, 2, 12);

    // A block that cannot fit stops a waiting action at once, and keeps the time it waited.
    let mut c = start_with(RetryPolicy::new().with_budget(s(10)));
    c.handle_response(T0 + s(1), &Response::new(429).retry_after("2"), None);
    waits_until(&mut c, 3);
    c.handle_scope_block(
        T0 + s(2),
        ScopeBlock {
            until: T0 + s(9),
            asked: s(7),
            cause: BlockCause::TooManyRequests,
        },
    );
    let r = stopped(&mut c);
    assert_eq!(r.outcome.kind(), OutcomeKind::BudgetExhausted);
    assert_eq!(
        (r.at, r.waited_time, held_by(&r)),
        (
            s(2),
            s(1),
            Some(HeldBy::Block {
                wait: s(7),
                cause: BlockCause::TooManyRequests
            })
        )
    );
    assert_eq!(
        message(&r)[2].rsplit(". ").next(),
        Some("No retry was sent.")
    );
}

#[test]
fn a_block_never_shortens_a_wait_nor_reopens_a_budget() {
    let mut ledger = ScopeLedger::new();
    let mut a = start_with(RetryPolicy::new().with_budget(s(30)));
    answer(
        &mut ledger,
        &mut [&mut a],
        0,
        T0 + s(1),
        &Response::new(429).retry_after("10"),
    );
    waits_until(&mut a, 11);
    // A later, shorter hint on the scope: the ledger keeps the longer block.
    assert_eq!(
        ledger.hear(T0 + s(2), &Response::new(429).retry_after("1")),
        None
    );
    assert_eq!(
        ledger.poll_block(T0 + s(3), API).map(|b| b.until),
        Some(T0 + s(11))
    );
    a.handle_scope_block(
        T0 + s(2),
        ScopeBlock {
            until: T0 + s(3),
            asked: s(1),
            cause: BlockCause::TooManyRequests,
        },
    );
    assert_eq!(a.poll_action(), None);
    assert_eq!(a.poll_timeout(), Some(T0 + s(11)));
    // An action that stopped stays stopped: a block changes nothing for it.
    let mut b = start();
    b.handle_response(T0 + s(1), &Response::new(429).retry_after("30"), None);
    stopped(&mut b);
    let events = b.trace().len();
    b.handle_scope_block(
        T0 + s(2),
        ScopeBlock {
            until: T0 + s(4),
            asked: s(2),
            cause: BlockCause::TooManyRequests,
        },
    );
    b.handle_timeout(T0 + s(4));
    assert_eq!((b.poll_action(), b.trace().len()), (None, events));
}

#[test]
fn only_a_429_with_a_usable_hint_blocks_the_scope() {
    let mut ledger = ScopeLedger::new();
    let at = T0 + s(1);
    for response in [
        Response::new(503).retry_after("10"),
        Response::new(200).retry_after("10"),
        Response::new(429),
        Response::new(429).retry_after("soon"),
        // A date with no clock evidence cannot be read, so it blocks nothing.
        Response::new(429).retry_after("Mon, 01 Jan 2024 12:00:10 GMT"),
    ] {
        assert_eq!(ledger.hear(at, &response), None);
    }
    assert_eq!(ledger.poll_block(at, API), None);
    assert_eq!(ledger.state(API).refusals, 3);
    // The same date with the response's own Date: read as the action reads it.
    let dated = Response::new(429)
        .retry_after("Mon, 01 Jan 2024 12:00:10 GMT")
        .date("Mon, 01 Jan 2024 12:00:04 GMT");
    let block = ledger.hear(at, &dated).unwrap();
    assert_eq!((block.until, block.asked), (T0 + s(7), s(6)));
    // Scopes are apart.
    assert_eq!(ledger.poll_block(at, "https://other.example.com"), None);
    assert_eq!(ledger.poll_block(T0 + s(7), API), None);
}

// Jitter: only where the client chooses the wait, never shorter, always within the budget.

/// The wait an action started with `seed` plans after `answer` at 1 s: (wait, jitter, why),
/// the jitter as its trace gives it.
fn planned_wait(
    policy: &RetryPolicy,
    seed: u64,
    answer: &Response,
) -> (Duration, Duration, WaitReason) {
    let mut a = ReadAction::start_under(T0, policy.clone(), None, None, seed).unwrap();
    a.poll_action();
    a.handle_response(T0 + s(1), answer, None);
    let Some(Step::Wait { until, reason, .. }) = a.poll_action() else {
        panic!("a wait: {:?}", a.trace())
    };
    let jitter = a
        .trace()
        .iter()
        .find_map(|e| match e.event {
            Event::WaitPlanned { wait, jitter, .. } => {
                assert_eq!(T0 + s(1) + wait, until);
                Some(jitter)
            }
            _ => None,
        })
        .unwrap();
    (until - T0 - s(1), jitter, reason)
}

/// The wait an action plans after a 429 with no hint, started with `seed`: (wait, jitter).
fn fallback_wait(policy: &RetryPolicy, seed: u64) -> (Duration, Duration) {
    let (wait, jitter, _) = planned_wait(policy, seed, &Response::new(429));
    (wait, jitter)
}

#[test]
fn jitter_only_lengthens_a_fallback_wait_and_a_seed_repeats_it() {
    let policy = RetryPolicy::new().with_jitter(20);
    let mut waits = Vec::new();
    for seed in 0..200 {
        let (wait, jitter) = fallback_wait(&policy, seed);
        // The 2 s fallback, plus up to 20 % of it.
        assert!(
            wait >= s(2) && wait <= Duration::from_millis(2400),
            "{wait:?}"
        );
        assert_eq!(wait, s(2) + jitter);
        assert_eq!(
            fallback_wait(&policy, seed),
            (wait, jitter),
            "the same seed, the same wait"
        );
        waits.push(wait);
    }
    waits.sort_unstable();
    waits.dedup();
    assert!(
        waits.len() > 150,
        "spread over the range: {} distinct",
        waits.len()
    );
    assert!(
        waits[0] < Duration::from_millis(2040)
            && waits[waits.len() - 1] > Duration::from_millis(2360)
    );
    // Off by default: every wait exact.
    assert_eq!(
        fallback_wait(&RetryPolicy::new(), 7),
        (s(2), Duration::ZERO)
    );

    // A server's delay is never jittered.
    let mut a = ReadAction::start_under(T0, policy.clone(), None, None, 3).unwrap();
    a.poll_action();
    a.handle_response(T0 + s(1), &Response::new(429).retry_after("3"), None);
    assert_eq!(waits_until(&mut a, 4), WaitReason::ServerDelay(s(3)));
}

/// Draws cut short by the budget: all within `room`, spread over it, and not piled at its end
/// (a spread the budget trims is drawn within what is left, not drawn and then clipped).
fn spread_within(draws: impl Iterator<Item = Duration>, room: Duration) {
    let draws: Vec<Duration> = draws.collect();
    assert!(draws.iter().all(|d| *d <= room), "{draws:?}");
    assert!(draws.iter().any(|d| *d > room * 9 / 10), "{draws:?}");
    assert!(draws.iter().any(|d| *d < room / 10), "{draws:?}");
    assert!(
        draws.iter().filter(|d| **d == room).count() <= 2,
        "{draws:?}"
    );
}

#[test]
fn jitter_never_costs_an_attempt() {
    // 7 s budget, 4 s cap: after a 429 at 1 s, the 2 s fallback leaves exactly 0 s to spare.
    let policy = RetryPolicy::new().with_budget(s(7)).with_jitter(100);
    for seed in 0..50 {
        assert_eq!(fallback_wait(&policy, seed), (s(2), Duration::ZERO));
    }
    // 7.5 s: at most 0.5 s of jitter, whatever the draw.
    let policy = policy.with_budget(Duration::from_millis(7500));
    spread_within(
        (0..200).map(|seed| fallback_wait(&policy, seed).1),
        Duration::from_millis(500),
    );
}

#[test]
fn full_jitter_draws_a_fallback_wait_between_the_floor_and_its_ceiling() {
    let policy = RetryPolicy::new().with_full_jitter(true);
    let mut waits = Vec::new();
    for seed in 0..200 {
        let (wait, jitter) = fallback_wait(&policy, seed);
        // The first fallback wait, 2 s, is the ceiling; the 1 s floor is the least.
        assert!(wait >= s(1) && wait <= s(2), "{wait:?}");
        assert_eq!(wait, s(1) + jitter);
        assert_eq!(fallback_wait(&policy, seed), (wait, jitter));
        waits.push(wait);
    }
    waits.sort_unstable();
    waits.dedup();
    assert!(waits.len() > 150, "{} distinct", waits.len());
    assert!(
        waits[0] < Duration::from_millis(1050)
            && waits[waits.len() - 1] > s(1) + Duration::from_millis(950)
    );
    // A server's delay is never drawn from.
    let mut a = ReadAction::start_under(T0, policy.clone(), None, None, 3).unwrap();
    a.poll_action();
    a.handle_response(T0 + s(1), &Response::new(429).retry_after("3"), None);
    assert_eq!(waits_until(&mut a, 4), WaitReason::ServerDelay(s(3)));
    // Full jitter replaces the added percent on a fallback wait: still at most its ceiling.
    let both = policy.with_jitter(100);
    assert!((0..50).all(|seed| fallback_wait(&both, seed).0 <= s(2)));
}

#[test]
fn full_jitter_fits_where_the_floor_fits_and_is_trimmed_to_the_budget() {
    // 6.5 s budget, 4 s cap: after a 429 at 1 s, the listed 2 s would not fit (1 + 2 + 4 > 6.5),
    // but the floor does, and the draw is trimmed to the 0.5 s left beyond it.
    let policy = RetryPolicy::new()
        .with_budget(Duration::from_millis(6500))
        .with_full_jitter(true);
    spread_within(
        (0..200).map(|seed| fallback_wait(&policy, seed).0 - s(1)),
        Duration::from_millis(500),
    );
    // Without it the listed wait decides, and the action stops.
    let mut a = ReadAction::start(T0, policy.with_full_jitter(false)).unwrap();
    a.poll_action();
    a.handle_response(T0 + s(1), &Response::new(429), None);
    assert_eq!(stopped(&mut a).outcome.kind(), OutcomeKind::BudgetExhausted);
}

#[test]
fn reads_held_back_together_are_released_apart() {
    let policy = RetryPolicy::new().with_budget(s(30)).with_jitter(20);
    let block = ScopeBlock {
        until: T0 + s(10),
        asked: s(10),
        cause: BlockCause::TooManyRequests,
    };
    let mut releases = Vec::new();
    for seed in [11, 12, 13] {
        let mut a = ReadAction::start_under(T0, policy.clone(), Some(block), None, seed).unwrap();
        let Some(Step::Wait { until, reason, .. }) = a.poll_action() else {
            panic!("a wait")
        };
        assert_eq!(
            reason,
            WaitReason::ScopeBlocked {
                wait: s(10),
                asked: s(10),
                cause: BlockCause::TooManyRequests
            }
        );
        // Never before the block's end; at most 20 % of the 10 s later.
        assert!(until >= T0 + s(10) && until <= T0 + s(12), "{until:?}");
        releases.push(until);
    }
    releases.sort_unstable();
    releases.dedup();
    assert_eq!(releases.len(), 3, "three seeds, three release times");
}

// Jitter after a server's delay: opt-in, at or after the server's moment, inside the budget.

/// The wait an action plans after a 429 with `Retry-After: 3` at 1 s, started with `seed`:
/// (wait, jitter).
fn server_wait(policy: &RetryPolicy, seed: u64) -> (Duration, Duration) {
    let answer = Response::new(429).retry_after("3");
    let (wait, jitter, reason) = planned_wait(policy, seed, &answer);
    assert_eq!(reason, WaitReason::ServerDelay(s(3)));
    (wait, jitter)
}

#[test]
fn server_jitter_starts_at_or_after_the_servers_moment_never_before() {
    let policy = RetryPolicy::new().with_server_jitter(50);
    let mut waits = Vec::new();
    for seed in 0..200 {
        let (wait, jitter) = server_wait(&policy, seed);
        // Retry-After: 3, plus up to 50 % of it: 3 s to 4.5 s.
        assert!(
            wait >= s(3) && wait <= Duration::from_millis(4500),
            "{wait:?}"
        );
        assert_eq!(wait, s(3) + jitter);
        assert_eq!(server_wait(&policy, seed), (wait, jitter), "a seed repeats");
        waits.push(wait);
    }
    waits.sort_unstable();
    waits.dedup();
    assert!(waits.len() > 150, "{} distinct", waits.len());
    assert!(
        waits[0] < Duration::from_millis(3075)
            && waits[waits.len() - 1] > Duration::from_millis(4425)
    );
    // Off by default, and the client's own jitter leaves a server's delay alone.
    let client_only = RetryPolicy::new().with_jitter(100).with_full_jitter(true);
    for policy in [RetryPolicy::new(), client_only] {
        assert_eq!(server_wait(&policy, 7), (s(3), Duration::ZERO));
    }
}

#[test]
fn server_jitter_is_trimmed_to_the_budget_and_the_gate_reads_the_servers_moment() {
    // 8 s budget, 4 s cap: after a 429 at 1 s asking 3 s, a start at 4 s fits exactly, so
    // no draw survives, whatever the seed.
    let policy = RetryPolicy::new().with_budget(s(8)).with_server_jitter(100);
    for seed in 0..50 {
        assert_eq!(server_wait(&policy, seed), (s(3), Duration::ZERO));
    }
    // 8.5 s: at most 0.5 s of the 3 s spread.
    let policy = policy.with_budget(Duration::from_millis(8500));
    spread_within(
        (0..200).map(|seed| server_wait(&policy, seed).1),
        Duration::from_millis(500),
    );
    // 7.5 s: the server's delay itself does not fit, and no spread makes it: it stops.
    let mut a = ReadAction::start(T0, policy.with_budget(Duration::from_millis(7500))).unwrap();
    a.poll_action();
    a.handle_response(T0 + s(1), &Response::new(429).retry_after("3"), None);
    assert_eq!(stopped(&mut a).outcome.kind(), OutcomeKind::BudgetExhausted);
}

#[test]
fn reads_a_block_held_back_are_released_by_the_larger_of_the_two_spreads() {
    let block = ScopeBlock {
        until: T0 + s(10),
        asked: s(10),
        cause: BlockCause::TooManyRequests,
    };
    let release = |policy: &RetryPolicy, seed| {
        let mut a = ReadAction::start_under(
            T0,
            policy.clone().with_budget(s(60)),
            Some(block),
            None,
            seed,
        )
        .unwrap();
        match a.poll_action() {
            Some(Step::Wait { until, .. }) => until - T0,
            other => panic!("a wait: {other:?}"),
        }
    };
    let server = RetryPolicy::new().with_server_jitter(100).with_jitter(10);
    let releases: Vec<_> = (0..200).map(|seed| release(&server, seed)).collect();
    // At the block's end or up to 100 % of its 10 s later; more than the client's 10 % reach.
    assert!(releases.iter().all(|t| *t >= s(10) && *t <= s(20)));
    assert!(releases.iter().any(|t| *t > s(19)));
    assert!(releases.iter().any(|t| *t < Duration::from_millis(10_100)));
    // The client's percent alone keeps to its 10 %.
    let client = RetryPolicy::new().with_jitter(10);
    assert!((0..200).all(|seed| release(&client, seed) <= s(11)));
}

// RateLimit fields: pacing before a 429.

#[test]
fn a_spent_quota_holds_the_scope_until_its_reset_before_any_429() {
    let mut ledger = ScopeLedger::new();
    let mut a = start();
    let spent = Response::new(200).rate_limit("RateLimit", "\"window\";r=0;t=3");
    answer(&mut ledger, &mut [&mut a], 0, T0 + s(1), &spent);
    assert_eq!(stopped(&mut a).outcome.kind(), OutcomeKind::Succeeded);
    assert_eq!(ledger.state(API).remaining, Some(0));
    assert_eq!(ledger.state(API).refusals, 0);
    let received = a.trace()[2].event.to_string();
    assert_eq!(
        received,
        "attempt 1 answered 200; 0 left, reset in 3 s (RateLimit)"
    );

    // The next read waits for the reset instead of meeting a 429.
    let mut b = start_on_scope(&ledger, T0 + s(1), RetryPolicy::new());
    let why = waits_until(&mut b, 4);
    assert_eq!(
        why,
        WaitReason::ScopeBlocked {
            wait: s(3),
            asked: s(3),
            cause: BlockCause::QuotaSpent
        }
    );
    assert_eq!(
        Progress::Reason(&why).to_string(),
        "This API's quota is used up; the service said it resets in 3 s."
    );
    b.handle_timeout(T0 + s(4));
    starts(&mut b, 1, 4);

    // One that cannot outlast the reset stops at once, and says why.
    let mut c = start_on_scope(&ledger, T0 + s(2), RetryPolicy::new().with_budget(s(5)));
    let r = stopped(&mut c);
    assert_eq!(
        held_by(&r),
        Some(HeldBy::Block {
            wait: s(2),
            cause: BlockCause::QuotaSpent
        })
    );
    assert_eq!(
        message(&r)[2],
        "This API's quota is used up, and it resets in 2 seconds, past this read's budget. \
         No request was sent."
    );
}

#[test]
fn rate_limit_fields_never_erase_a_429() {
    let mut ledger = ScopeLedger::new();
    let at = |n| T0 + s(n);
    let refused = Response::new(429).retry_after("10");
    assert!(ledger.hear(at(1), &refused).is_some());
    for fields in ["\"w\";r=5;t=1", "\"w\";r=0;t=2"] {
        let ok = Response::new(200).rate_limit("ratelimit", fields);
        assert_eq!(ledger.hear(at(2), &ok), None);
    }
    assert_eq!(
        ledger.poll_block(at(9), API).map(|b| b.cause),
        Some(BlockCause::TooManyRequests)
    );
    // A 429 whose fields name a later reset than its Retry-After: the later one holds.
    let both = Response::new(429)
        .retry_after("2")
        .rate_limit("RateLimit-Remaining", "0")
        .rate_limit("RateLimit-Reset", "30");
    let block = ledger.hear(at(3), &both).unwrap();
    assert_eq!((block.until, block.cause), (at(33), BlockCause::QuotaSpent));
    // Fields that say something is left block nothing, and invalid ones are ignored.
    let mut fresh = ScopeLedger::new();
    for fields in ["\"w\";r=1;t=30", "\"w\";r=zero;t=30", "nonsense;;"] {
        let ok = Response::new(200).rate_limit("RateLimit", fields);
        assert_eq!(fresh.hear(at(1), &ok), None);
    }
    assert_eq!(fresh.state(API).remaining, Some(1));
}

#[test]
fn a_429_whose_fields_name_the_same_reset_is_blocked_as_a_429() {
    let mut ledger = ScopeLedger::new();
    let both = Response::new(429)
        .retry_after("10")
        .rate_limit("RateLimit", "\"window\";r=0;t=10");
    let block = ledger.hear(T0, &both).unwrap();
    assert_eq!(
        (block.until, block.cause),
        (T0 + s(10), BlockCause::TooManyRequests)
    );
}

// Per-scope in-flight limits: the rest queue in order.

/// A read with an in-flight limit of `limit`, started at `at`: its first step is to queue.
fn queued(at: Duration, limit: u32, budget: u64) -> ReadAction {
    let policy = RetryPolicy::new().with_budget(s(budget));
    let mut a = ReadAction::start_under(at, policy, None, Some(limit), 0).unwrap();
    assert_eq!(
        a.poll_action(),
        Some(Step::Queue {
            number: 1,
            latest: at + s(budget - 4),
            limit,
        })
    );
    assert_eq!(a.poll_timeout(), Some(at + s(budget - 4)));
    assert_eq!(a.attempts(), 0);
    a
}

#[test]
fn the_ledger_grants_places_in_flight_in_the_order_reads_queued() {
    let mut ledger = ScopeLedger::new();
    // One read without a limit is in flight: its request counts.
    ledger.set_place(API, 0, Place::InFlight, 0, Priority::Interactive);
    for ticket in [1, 2, 3] {
        ledger.set_place(API, ticket, Place::Queued, 2, Priority::Interactive);
    }
    ledger.set_place(
        "https://other.example.com",
        9,
        Place::Queued,
        1,
        Priority::Interactive,
    );
    assert_eq!(ledger.state(API).queued, 3);
    // One place is left under the limit of 2: the first to queue takes it.
    assert_eq!(ledger.poll_grant(T0, API), Some(1));
    assert_eq!(ledger.poll_grant(T0, API), None);
    assert_eq!(ledger.state(API).in_flight, 2);
    // Another scope is not held by this one.
    assert_eq!(ledger.poll_grant(T0, "https://other.example.com"), Some(9));
    // Read 2 leaves the queue; when a request ends, read 3 is next.
    ledger.set_place(API, 2, Place::Unplaced, 0, Priority::Interactive);
    ledger.set_place(API, 2, Place::Unplaced, 0, Priority::Interactive);
    assert_eq!(ledger.place(API, 2), Place::Unplaced);
    ledger.handle_attempt_ended(API, 0);
    ledger.handle_attempt_ended(API, 0);
    assert_eq!(ledger.poll_grant(T0, API), Some(3));
    assert_eq!(ledger.place(API, 3), Place::InFlight);
    assert_eq!(ledger.poll_grant(T0, API), None);
    assert_eq!(ledger.state(API).queued, 0);
    // A blocked scope grants nothing until the block ends.
    ledger.handle_attempt_ended(API, 1);
    ledger.set_place(API, 4, Place::Queued, 2, Priority::Interactive);
    let refused = Response::new(429).retry_after("5");
    ledger.hear(T0, &refused);
    assert_eq!(ledger.poll_grant(T0 + s(4), API), None);
    assert_eq!(ledger.poll_grant(T0 + s(5), API), Some(4));
}

#[test]
fn a_strict_queue_never_lets_a_later_read_pass_the_first() {
    let mut ledger = ScopeLedger::new();
    ledger.set_place(API, 0, Place::InFlight, 0, Priority::Interactive);
    // The first may start beside none in flight; the second beside one, but it queued later.
    ledger.set_place(API, 1, Place::Queued, 1, Priority::Interactive);
    ledger.set_place(API, 2, Place::Queued, 2, Priority::Interactive);
    assert_eq!(ledger.poll_grant(T0, API), None);
    ledger.handle_attempt_ended(API, 0);
    assert_eq!(ledger.poll_grant(T0, API), Some(1));
    // Once the first has started, the second's own limit of 2 lets it start beside it.
    assert_eq!(ledger.poll_grant(T0, API), Some(2));
    assert_eq!(ledger.poll_grant(T0, API), None);
}

#[test]
fn a_read_that_queues_again_goes_behind_those_that_queued_while_it_waited() {
    let mut ledger = ScopeLedger::new();
    let place = |ledger: &mut ScopeLedger, ticket, place| {
        ledger.set_place(API, ticket, place, 1, Priority::Interactive);
    };
    // Read 0 queued first and was granted; its answer sent it waiting for a retry.
    place(&mut ledger, 0, Place::Queued);
    assert_eq!(ledger.poll_grant(T0, API), Some(0));
    place(&mut ledger, 0, Place::Waiting);
    ledger.handle_attempt_ended(API, 0);
    // Reads 1 and 2 queue while it waits; 1 is granted, then read 0 queues again.
    place(&mut ledger, 1, Place::Queued);
    place(&mut ledger, 2, Place::Queued);
    assert_eq!(ledger.poll_grant(T0, API), Some(1));
    place(&mut ledger, 0, Place::Queued);
    assert_eq!(
        (ledger.state(API).queued, ledger.state(API).waiting),
        (2, 0)
    );
    // Read 2 queued before read 0 came back: its turn comes first, whatever the names.
    ledger.handle_attempt_ended(API, 1);
    place(&mut ledger, 1, Place::Unplaced);
    assert_eq!(ledger.poll_grant(T0, API), Some(2));
    ledger.handle_attempt_ended(API, 2);
    assert_eq!(ledger.poll_grant(T0, API), Some(0));
    assert_eq!(ledger.poll_grant(T0, API), None);
}

#[test]
fn a_queued_attempt_starts_when_granted_and_its_time_in_the_queue_is_waited() {
    let mut a = queued(T0, 1, 20);
    a.handle_timeout(T0 + s(3)); // early: nothing happens
    assert_eq!(a.poll_action(), None);
    a.handle_grant(T0 + s(3));
    starts(&mut a, 1, 3);
    a.handle_response(T0 + s(4), &Response::new(200), None);
    let r = stopped(&mut a);
    assert_eq!(r.outcome.kind(), OutcomeKind::Succeeded);
    assert_eq!((r.waited_time, r.request_time), (s(3), s(1)));
    assert!(a.trace().iter().any(|e| e.event
        == Event::Queued {
            attempt: 1,
            limit: 1
        }));
    // A grant to a read that is not queued changes nothing.
    a.handle_grant(T0 + s(5));
    assert_eq!(a.poll_action(), None);
}

#[test]
fn a_retry_queues_again_after_its_wait() {
    let mut a = queued(T0, 2, 20);
    a.handle_grant(T0);
    starts(&mut a, 1, 0);
    a.handle_response(T0 + s(1), &Response::new(429).retry_after("2"), None);
    waits_until(&mut a, 3);
    a.handle_timeout(T0 + s(3));
    assert_eq!(
        a.poll_action(),
        Some(Step::Queue {
            number: 2,
            latest: T0 + s(16),
            limit: 2
        })
    );
}

#[test]
fn a_turn_that_never_comes_stops_the_read_at_its_last_start_with_no_request() {
    let mut a = queued(T0, 2, 10);
    a.handle_timeout(T0 + s(6));
    let r = stopped(&mut a);
    assert_eq!(r.outcome.kind(), OutcomeKind::BudgetExhausted);
    assert_eq!((r.attempts, r.waited_time), (0, s(6)));
    assert_eq!(held_by(&r), Some(HeldBy::Queue { limit: 2 }));
    assert_eq!(
        message(&r),
        [
            "Stopped: retry budget cannot fit another request.",
            "Last response: none. Attempts: 0 of 3. Elapsed: 6 seconds.",
            "At most 2 requests to this API may be in flight at once. Its turn did not come \
             while the next attempt could still fit this read's budget. No request was sent."
        ]
    );
    // A driver that grants late is told the same.
    let mut b = queued(T0, 1, 10);
    b.handle_grant(T0 + s(7));
    assert_eq!(held_by(&stopped(&mut b)), Some(HeldBy::Queue { limit: 1 }));
}

#[test]
fn leaving_or_a_block_takes_a_read_out_of_the_queue() {
    let mut a = queued(T0, 1, 20);
    a.handle_leave(T0 + s(2));
    let r = stopped(&mut a);
    assert_eq!(
        (r.outcome.kind(), r.attempts, r.waited_time),
        (OutcomeKind::UserLeft, 0, s(2))
    );

    let mut b = queued(T0, 1, 20);
    let block = ScopeBlock {
        until: T0 + s(10),
        asked: s(10),
        cause: BlockCause::TooManyRequests,
    };
    b.handle_scope_block(T0 + s(1), block);
    assert!(matches!(
        waits_until(&mut b, 10),
        WaitReason::ScopeBlocked { wait, .. } if wait == s(9)
    ));
    // After the block it queues again.
    b.handle_timeout(T0 + s(10));
    assert!(matches!(
        b.poll_action(),
        Some(Step::Queue { number: 1, .. })
    ));
}

#[test]
fn a_pages_places_follow_its_reads_phases() {
    let mut client = Client::new();
    let places = |client: &Client| {
        let state = client.scope_state(API);
        (state.in_flight, state.queued)
    };
    // A read without a limit holds a place while its attempt runs, and gives it back after.
    let a = client.handle_start(T0, API, RetryPolicy::new(), 0).unwrap();
    assert_eq!(places(&client), (1, 0));
    client.handle_response(T0 + s(1), a, &Response::new(200), None, Ok(()));
    assert_eq!(places(&client), (0, 0));
    // Once the scope has a limit, a read is granted at once where there is room; its start
    // counts once.
    client
        .handle_scope_policy(API, ScopePolicy::new().with_in_flight_limit(1))
        .unwrap();
    let limited = RetryPolicy::new();
    let b = client
        .handle_start(T0 + s(1), API, limited.clone(), 0)
        .unwrap();
    assert!(is_in_flight(&client, b));
    assert_eq!(places(&client), (1, 0));
    // The next queues behind it, and takes its place when it leaves.
    let c = client.handle_start(T0 + s(1), API, limited, 0).unwrap();
    assert!(matches!(
        client.read(c).unwrap().phase(),
        Phase::Queued { .. }
    ));
    assert_eq!(places(&client), (1, 1));
    client.handle_leave(T0 + s(2), b);
    assert!(is_in_flight(&client, c));
    assert_eq!(places(&client), (1, 0));
    // A stopped read is forgotten on request; a running one is not.
    assert!(client.remove(c).is_none());
    assert_eq!(
        client.remove(b).map(|b| b.report().unwrap().outcome.kind()),
        Some(OutcomeKind::UserLeft)
    );
    assert!(client.read(b).is_none());
}

#[test]
fn answers_that_arrive_out_of_order_never_raise_what_is_left_in_a_window() {
    let mut ledger = ScopeLedger::new();
    let left =
        |r: u64, t: u64| Response::new(200).rate_limit("RateLimit", format!("\"w\";r={r};t={t}"));
    // Two requests sent together: the later admitted one's answer (0 left) arrives first.
    ledger.hear(T0, &left(0, 10));
    ledger.hear(T0 + s(1), &left(1, 9));
    let state = ledger.state(API);
    assert_eq!(
        (state.remaining, state.quota_resets),
        (Some(0), Some(T0 + s(10)))
    );
    // Once the window has reset, the next answer's count is the count.
    ledger.hear(T0 + s(10), &left(2, 10));
    let state = ledger.state(API);
    assert_eq!(
        (state.remaining, state.quota_resets),
        (Some(2), Some(T0 + s(20)))
    );
    // Without a reset there is no window to compare within: the latest answer counts.
    let mut bare = ScopeLedger::new();
    for r in ["0", "3"] {
        let only = Response::new(200).rate_limit("RateLimit-Remaining", r);
        bare.hear(T0, &only);
    }
    assert_eq!(bare.state(API).remaining, Some(3));
}

// Retry tokens: retries on a scope spend a shared purse that successes refill.

/// Whether a client read's attempt is in flight.
fn is_in_flight(client: &Client, read: ReadId) -> bool {
    matches!(client.read(read).unwrap().phase(), Phase::InFlight { .. })
}

/// A client read's step after its last input.
fn last_step(client: &mut Client, read: ReadId) -> Step {
    let mut last = None;
    while let Some(event) = client.poll_event() {
        if let ClientEvent::Step { read: r, step } = event {
            if r == read {
                last = Some(step);
            }
        }
    }
    last.expect("a step for the read")
}

#[test]
fn retries_spend_the_scopes_tokens_and_successes_earn_them_back() {
    let tokens = RetryTokens::new(2, 50);
    let policy = RetryPolicy::new();
    let mut client = Client::new();
    let purse = |client: &Client| client.scope_state(API).retry_purse.map(|p| p.left);
    assert_eq!(purse(&client), None, "no purse before the scope has tokens");
    client
        .handle_scope_policy(API, ScopePolicy::new().with_retry_tokens(tokens))
        .unwrap();
    assert_eq!(purse(&client), Some(2000), "full from the start");
    let reads: Vec<_> = (0..3)
        .map(|_| client.handle_start(T0, API, policy.clone(), 0).unwrap())
        .collect();
    // A 429 with no hint to each: the first two retry, spending both tokens.
    for &read in &reads {
        client.handle_response(T0 + s(1), read, &Response::new(429), None, Ok(()));
    }
    assert!(matches!(
        last_step(&mut client, reads[0]),
        Step::Wait { .. }
    ));
    assert_eq!(purse(&client), Some(0));
    // An answer the waiting read cannot own (a driver's repeat) spends nothing.
    client.handle_response(T0 + s(1), reads[0], &Response::new(200), None, Ok(()));
    client.handle_response(T0 + s(1), reads[0], &Response::new(429), None, Ok(()));
    assert_eq!(
        purse(&client),
        Some(500),
        "the 2xx still refills: the server answered it"
    );
    let r = client.read(reads[2]).unwrap().report().unwrap().clone();
    assert_eq!(
        (r.outcome.kind(), held_by(&r)),
        (OutcomeKind::BudgetExhausted, Some(HeldBy::RetryTokens))
    );
    assert_eq!(
        message(&r)[2],
        "Too many recent requests to this API needed a retry; retries resume as requests \
         succeed. No retry was sent."
    );
    // Two more successes (one from a read without tokens) earn back half a token each.
    client.handle_timeout(T0 + s(3));
    client.handle_response(T0 + s(4), reads[0], &Response::new(200), None, Ok(()));
    assert_eq!(purse(&client), Some(1000));
    let plain = client
        .handle_start(T0 + s(4), API, RetryPolicy::new(), 0)
        .unwrap();
    client.handle_response(T0 + s(5), plain, &Response::new(200), None, Ok(()));
    assert_eq!(purse(&client), Some(1500));
    // A whole token: the next read's 429 may retry again, and spends it.
    let next = client
        .handle_start(T0 + s(5), API, policy.clone(), 0)
        .unwrap();
    client.handle_response(T0 + s(6), next, &Response::new(429), None, Ok(()));
    assert!(matches!(last_step(&mut client, next), Step::Wait { .. }));
    assert_eq!(purse(&client), Some(500));
    // The purse never holds more than its size; another scope has its own.
    for _ in 0..10 {
        client.handle_timeout(T0 + s(20));
        let read = client
            .handle_start(T0 + s(20), API, policy.clone(), 0)
            .unwrap();
        client.handle_response(T0 + s(20), read, &Response::new(200), None, Ok(()));
    }
    assert_eq!(purse(&client), Some(2000));
    assert_eq!(
        client.scope_state("https://other.example.com").retry_purse,
        None
    );
}

/// Moved from the browser suite (`with_its_retry_token_spent_a_read_stops_instead_of_retrying`):
/// one token pays for one read's first retry, and its second 429 stops it, with no third request.
#[test]
fn with_its_one_token_spent_a_read_stops_at_its_second_429() {
    let mut client = Client::new();
    let one = ScopePolicy::new().with_retry_tokens(RetryTokens::new(1, 10));
    client.handle_scope_policy(API, one).unwrap();
    let read = client.handle_start(T0, API, RetryPolicy::new(), 0).unwrap();
    let hint = Response::new(429).retry_after("0");
    client.handle_response(T0 + s(1), read, &hint, None, Ok(()));
    let Step::Wait { until, .. } = last_step(&mut client, read) else {
        panic!("the first 429 is retried on the token")
    };
    client.handle_timeout(until);
    assert!(matches!(
        last_step(&mut client, read),
        Step::StartAttempt { number: 2, .. }
    ));
    client.handle_response(until + s(1), read, &hint, None, Ok(()));
    let mut steps = Vec::new();
    while let Some(event) = client.poll_event() {
        steps.push(event);
    }
    let r = client.read(read).unwrap().report().unwrap().clone();
    assert_eq!(
        (r.outcome, r.attempts),
        (
            Outcome::BudgetExhausted(Overrun::Scope(HeldBy::RetryTokens)),
            2
        )
    );
    assert!(
        !steps.iter().any(|e| matches!(
            e,
            ClientEvent::Step {
                step: Step::StartAttempt { .. },
                ..
            }
        )),
        "no third request: {steps:?}"
    );
}

/// Every event the client has for the driver now, in order.
fn events(client: &mut Client) -> Vec<ClientEvent> {
    std::iter::from_fn(|| client.poll_event()).collect()
}

/// A client with a two-token purse (10 % back a success) on `API`, whose answers the tests
/// give as a client that shares its purses does (`handle_shared_response`).
fn sharing_client() -> (Client, RetryPurse) {
    let mut client = Client::new();
    let two = ScopePolicy::new().with_retry_tokens(RetryTokens::new(2, 10));
    client.handle_scope_policy(API, two).unwrap();
    let purse = client.scope_state(API).retry_purse.unwrap();
    (client, purse)
}

/// A read on `API` started at `at`, its first attempt sent; its events drained.
fn sent(client: &mut Client, at: Duration) -> ReadId {
    let read = client.handle_start(at, API, RetryPolicy::new(), 0).unwrap();
    events(client);
    read
}

#[test]
fn a_shared_purse_pays_for_a_retry_before_the_read_decides() {
    let (mut client, purse) = sharing_client();
    // The event carries the purse as this client knows it then.
    let take = |read, left| ClientEvent::TakeToken {
        read,
        scope: API.into(),
        purse: RetryPurse { left, ..purse },
    };
    // A 429 whose retry would fit: the read holds its answer and asks for a token; nothing
    // else moves for it until the store answers.
    let read = sent(&mut client, T0);
    client.handle_shared_response(T0 + s(1), read, &Response::new(429), None, Ok(()));
    assert_eq!(events(&mut client), [take(read, 2_000)]);
    // The store had less than a token: the read stops on the scope's tokens, and nothing is
    // given back (nothing was taken).
    let none_left = TokenTaken {
        took: false,
        left: 500,
    };
    client.handle_token(T0 + s(1), read, Some(none_left));
    assert_eq!(
        client.read(read).unwrap().report().unwrap().outcome,
        Outcome::BudgetExhausted(Overrun::Scope(HeldBy::RetryTokens))
    );
    assert!(!events(&mut client)
        .iter()
        .any(|e| matches!(e, ClientEvent::GiveBack { .. })));

    // A token taken: the read retries and spends it; what the store has left is the scope's.
    let read = sent(&mut client, T0 + s(2));
    client.handle_shared_response(T0 + s(3), read, &Response::new(429), None, Ok(()));
    assert_eq!(events(&mut client), [take(read, 500)]);
    client.handle_token(
        T0 + s(3),
        read,
        Some(TokenTaken {
            took: true,
            left: 700,
        }),
    );
    assert!(matches!(
        last_step(&mut client, read),
        Step::Wait { next: 2, .. }
    ));
    assert_eq!(client.scope_state(API).retry_purse.unwrap().left, 700);
}

/// `read` stopped on its answer, and the client asked for no token for it.
fn stopped_asking_no_token(client: &mut Client, read: ReadId) {
    let after = events(client);
    assert!(
        !after
            .iter()
            .any(|e| matches!(e, ClientEvent::TakeToken { .. })),
        "{after:?}"
    );
    assert!(client.read(read).unwrap().report().is_some());
}

#[test]
fn a_read_that_would_not_retry_takes_no_token_and_one_taken_for_nothing_goes_back() {
    let (mut client, purse) = sharing_client();
    // A retryable status whose delay is past the budget: the read's own decision is to stop,
    // so no token is asked for (a guess from the status alone would have taken one).
    let read = sent(&mut client, T0);
    let far = Response::new(429).retry_after("30");
    client.handle_shared_response(T0 + s(1), read, &far, None, Ok(()));
    stopped_asking_no_token(&mut client, read);

    // The user leaves while the store is asked: the token taken meanwhile goes back whole.
    let read = sent(&mut client, T0 + s(42));
    client.handle_shared_response(T0 + s(43), read, &Response::new(429), None, Ok(()));
    events(&mut client);
    client.handle_leave(T0 + s(43), read);
    events(&mut client);
    client.handle_token(
        T0 + s(44),
        read,
        Some(TokenTaken {
            took: true,
            left: 0,
        }),
    );
    let give_back = ClientEvent::GiveBack {
        scope: API.into(),
        thousandths: RetryPurse::TOKEN,
        purse: client.scope_state(API).retry_purse.unwrap(),
    };
    assert_eq!(events(&mut client), [give_back]);
    assert_eq!(purse.tokens, RetryTokens::new(2, 10));

    // A delay that fits, behind a block (learned elsewhere) that ends past the budget: the
    // retry could not start in time, so no token is asked for either.
    let read = sent(&mut client, T0 + s(50));
    let block = ScopeBlock {
        until: T0 + s(80),
        asked: s(29),
        cause: BlockCause::TooManyRequests,
    };
    client.handle_block(T0 + s(51), API, block);
    events(&mut client);
    let soon = Response::new(429).retry_after("1");
    client.handle_shared_response(T0 + s(51), read, &soon, None, Ok(()));
    stopped_asking_no_token(&mut client, read);
}

#[test]
fn a_success_gives_its_refill_to_the_shared_purse_and_a_store_away_leaves_the_own_purse_to_decide()
{
    let (mut client, _) = sharing_client();
    let read = sent(&mut client, T0);
    client.handle_shared_response(T0 + s(1), read, &Response::new(200), None, Ok(()));
    let refill = events(&mut client).into_iter().find_map(|e| match e {
        ClientEvent::GiveBack { thousandths, .. } => Some(thousandths),
        _ => None,
    });
    assert_eq!(refill, Some(100), "a tenth of a token back");

    // The store did not answer: the client's own purse (full) pays, as if nothing were shared.
    let read = sent(&mut client, T0 + s(2));
    client.handle_shared_response(T0 + s(3), read, &Response::new(429), None, Ok(()));
    events(&mut client);
    client.handle_token(T0 + s(3), read, None);
    assert!(matches!(last_step(&mut client, read), Step::Wait { .. }));
    assert_eq!(client.scope_state(API).retry_purse.unwrap().left, 1_000);

    // Unshared, a client asks no one: its answers decide at once.
    let mut own = Client::new();
    let two = ScopePolicy::new().with_retry_tokens(RetryTokens::new(2, 10));
    own.handle_scope_policy(API, two).unwrap();
    let read = sent(&mut own, T0);
    own.handle_response(T0 + s(1), read, &Response::new(429), None, Ok(()));
    assert!(matches!(last_step(&mut own, read), Step::Wait { .. }));
    let next = sent(&mut own, T0 + s(1));
    own.handle_response(T0 + s(2), next, &Response::new(200), None, Ok(()));
    assert!(!events(&mut own).iter().any(|e| matches!(
        e,
        ClientEvent::TakeToken { .. } | ClientEvent::GiveBack { .. }
    )));
}

/// The settings themselves are refused by `ScopePolicy::validate` (its own tests, with their
/// words); here, a client given one.
#[test]
fn retry_tokens_are_refused_when_they_cannot_work() {
    // Refused when given to a client, by name, and the scope keeps no purse.
    let mut client = Client::new();
    let bad = ScopePolicy::new().with_retry_tokens(RetryTokens::new(0, 10));
    assert_eq!(
        client.handle_scope_policy(API, bad),
        Err(ScopePolicyError::NoRetryTokens)
    );
    assert_eq!(client.scope_state(API).retry_purse, None);
}

// The scope's cap on delayed reads, and priority in its queue.

#[test]
fn past_the_cap_on_delayed_reads_a_new_read_stops_at_once_and_sends_nothing() {
    let policy = RetryPolicy::new();
    let mut client = Client::new();
    client
        .handle_scope_policy(API, ScopePolicy::new().with_max_waiting(2))
        .unwrap();
    let first = client.handle_start(T0, API, policy.clone(), 0).unwrap();
    client.handle_response(
        T0 + s(1),
        first,
        &Response::new(429).retry_after("5"),
        None,
        Ok(()),
    );
    // The block delays every new read: the first waits, one more may join it, the next may not.
    let second = client
        .handle_start(T0 + s(1), API, policy.clone(), 0)
        .unwrap();
    let third = client
        .handle_start(T0 + s(2), API, policy.clone(), 0)
        .unwrap();
    let mut steps = Vec::new();
    while let Some(event) = client.poll_event() {
        if let ClientEvent::Step { read, step } = event {
            steps.push((read, step));
        }
    }
    assert!(matches!(steps.last(), Some((r, Step::Stop(_))) if *r == third));
    assert_eq!(
        steps.iter().filter(|(r, _)| *r == third).count(),
        1,
        "only its stop"
    );
    assert!(matches!(
        client.read(second).unwrap().phase(),
        Phase::Waiting { .. }
    ));
    let r = client.read(third).unwrap().report().unwrap().clone();
    assert_eq!(
        (r.outcome.kind(), held_by(&r), r.attempts),
        (
            OutcomeKind::BudgetExhausted,
            Some(HeldBy::MaxWaiting { max: 2 }),
            0
        )
    );
    assert_eq!(
        message(&r),
        [
            "Stopped: too many reads are waiting on this API.",
            "Last response: none. Attempts: 0 of 3. Elapsed: 0 seconds.",
            "2 reads on this API are already waiting. This one would have been the next, so it \
             was not started. No request was sent."
        ]
    );
    assert_eq!(client.scope_state(API).waiting, 2);
    // A read that can start at once is never turned away: the block ends at 6 s.
    client.handle_timeout(T0 + s(6));
    let fourth = client
        .handle_start(T0 + s(6), API, policy.clone(), 0)
        .unwrap();
    assert!(is_in_flight(&client, fourth));
    // Queued reads count as delayed too.
    let mut client = Client::new();
    let one = ScopePolicy::new()
        .with_in_flight_limit(1)
        .with_max_waiting(1);
    client.handle_scope_policy(API, one).unwrap();
    let one = policy.clone();
    let running = client.handle_start(T0, API, one.clone(), 0).unwrap();
    let queued = client.handle_start(T0, API, one.clone(), 0).unwrap();
    let turned = client.handle_start(T0, API, one, 0).unwrap();
    assert!(is_in_flight(&client, running));
    assert!(matches!(
        client.read(queued).unwrap().phase(),
        Phase::Queued { .. }
    ));
    assert_eq!(
        held_by(client.read(turned).unwrap().report().unwrap()),
        Some(HeldBy::MaxWaiting { max: 1 })
    );
    assert_eq!(
        ScopePolicy::new()
            .with_max_waiting(0)
            .validate()
            .unwrap_err()
            .to_string(),
        "max_waiting is 0: a read that must wait could never start; leave it unset for no cap"
    );
}

#[test]
fn an_interactive_read_goes_before_queued_background_reads_and_each_priority_is_fifo() {
    let limited = RetryPolicy::new();
    let background = limited.clone().with_priority(Priority::Background);
    let mut client = Client::new();
    client
        .handle_scope_policy(API, ScopePolicy::new().with_in_flight_limit(1))
        .unwrap();
    let running = client.handle_start(T0, API, limited.clone(), 0).unwrap();
    let b1 = client.handle_start(T0, API, background.clone(), 0).unwrap();
    let b2 = client.handle_start(T0, API, background, 0).unwrap();
    let i1 = client
        .handle_start(T0 + s(1), API, limited.clone(), 0)
        .unwrap();
    let i2 = client.handle_start(T0 + s(1), API, limited, 0).unwrap();
    let in_flight = |client: &Client| {
        [running, b1, b2, i1, i2]
            .into_iter()
            .filter(|r| is_in_flight(client, *r))
            .collect::<Vec<_>>()
    };
    let mut order = Vec::new();
    let mut last = running;
    for at in 2..6 {
        client.handle_response(T0 + s(at), last, &Response::new(200), None, Ok(()));
        last = in_flight(&client)[0];
        order.push(last);
    }
    assert_eq!(order, [i1, i2, b1, b2]);
    // A background read still stops at its last start: 16 s for a 20 s budget with a 4 s cap.
    assert_eq!(Priority::default(), Priority::Interactive);
}

#[test]
fn a_page_lists_the_blocks_still_running_for_a_tab_that_missed_them() {
    let mut client = Client::new();
    let other = "https://other.example.com";
    let a = client.handle_start(T0, API, RetryPolicy::new(), 0).unwrap();
    let b = client
        .handle_start(T0, other, RetryPolicy::new(), 0)
        .unwrap();
    client.handle_response(
        T0 + s(1),
        a,
        &Response::new(429).retry_after("5"),
        None,
        Ok(()),
    );
    client.handle_response(
        T0 + s(1),
        b,
        &Response::new(429).retry_after("2"),
        None,
        Ok(()),
    );
    let scopes = |client: &Client, at| {
        client
            .running_blocks(at)
            .into_iter()
            .map(|(scope, block)| (scope, block.until))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
    };
    assert_eq!(
        scopes(&client, T0 + s(2)),
        [(API.to_owned(), T0 + s(6)), (other.to_owned(), T0 + s(3))]
    );
    // A block that has ended is not news.
    assert_eq!(scopes(&client, T0 + s(3)), [(API.to_owned(), T0 + s(6))]);
    assert!(scopes(&client, T0 + s(6)).is_empty());
}

#[test]
fn a_scope_has_one_policy_given_once() {
    let mut client = Client::new();
    let two = ScopePolicy::new().with_in_flight_limit(2);
    assert_eq!(client.handle_scope_policy(API, two), Ok(()));
    // The same again changes nothing; another is refused by name, and the first still holds.
    assert_eq!(client.handle_scope_policy(API, two), Ok(()));
    assert_eq!(
        client.handle_scope_policy(API, ScopePolicy::new().with_in_flight_limit(3)),
        Err(ScopePolicyError::AlreadySet {
            scope: API.to_owned()
        })
    );
    assert_eq!(client.scope_state(API).policy, two);
    // Another scope is another policy; a scope given none has the empty one.
    let other = "https://other.example.com";
    assert_eq!(client.scope_state(other).policy, ScopePolicy::new());
    assert_eq!(
        client.handle_scope_policy(other, ScopePolicy::new().with_max_waiting(1)),
        Ok(())
    );
    // Three reads on the scope of two places: the third queues under the scope's limit.
    let reads: Vec<_> = (0..3)
        .map(|_| client.handle_start(T0, API, RetryPolicy::new(), 0).unwrap())
        .collect();
    assert!(is_in_flight(&client, reads[0]) && is_in_flight(&client, reads[1]));
    assert!(matches!(
        client.read(reads[2]).unwrap().phase(),
        Phase::Queued { limit: 2, .. }
    ));
}

#[test]
fn a_read_on_its_own_never_queues() {
    // No client, no scope: nothing could ever grant it a place, so it starts at once.
    let mut a = ReadAction::start(T0, RetryPolicy::new()).unwrap();
    assert!(matches!(
        a.poll_action(),
        Some(Step::StartAttempt { number: 1, .. })
    ));
}

// What the ledger keeps: only what is live.

#[test]
fn a_scope_is_forgotten_once_nothing_about_it_is_live() {
    let mut client = Client::new();
    // A thousand reads, each on a scope of its own: a 429 asking 1 s, the wait, then a 200.
    for n in 0..1000 {
        let at = T0 + s(2 * n);
        let scope = format!("https://visitor-{n}.example.com");
        let read = client
            .handle_start(at, &scope, RetryPolicy::new(), 0)
            .unwrap();
        let hint = Response::new(429).retry_after("1");
        client.handle_response(at, read, &hint, None, Ok(()));
        assert_eq!(
            client.known_scopes(),
            1,
            "the scope is blocked and its read waits"
        );
        client.handle_timeout(at + s(1));
        assert!(is_in_flight(&client, read));
        client.handle_response(at + s(1), read, &Response::new(200), None, Ok(()));
        assert!(client.remove(read).is_some());
    }
    assert_eq!(client.known_scopes(), 0);
}

#[test]
fn a_running_block_or_a_policy_keeps_a_scope_and_an_ended_block_is_forgotten_later() {
    let mut client = Client::new();
    let other = "https://other.example.com";
    client
        .handle_scope_policy(other, ScopePolicy::new().with_in_flight_limit(2))
        .unwrap();
    // A 429 asking 60 s: the read cannot wait so long and stops; the block stays on the scope.
    let read = client.handle_start(T0, API, RetryPolicy::new(), 0).unwrap();
    let hint = Response::new(429).retry_after("60");
    client.handle_response(T0 + s(1), read, &hint, None, Ok(()));
    assert_eq!(client.read(read).unwrap().phase(), &Phase::Stopped);
    client.remove(read);
    assert_eq!(client.known_scopes(), 2);
    // Inputs on the other scope while the block runs forget nothing.
    let done = client
        .handle_start(T0 + s(30), other, RetryPolicy::new(), 0)
        .unwrap();
    client.handle_response(T0 + s(31), done, &Response::new(200), None, Ok(()));
    assert_eq!(client.known_scopes(), 2);
    assert_eq!(client.scope_state(API).refusals, 1);
    // The first input after the block's end forgets it; the other scope keeps its policy.
    let next = client
        .handle_start(T0 + s(61), other, RetryPolicy::new(), 0)
        .unwrap();
    assert!(is_in_flight(&client, next));
    assert_eq!(client.known_scopes(), 1);
    assert_eq!(client.scope_state(API), ScopeState::default());
    assert_eq!(client.scope_state(other).policy.in_flight_limit(), Some(2));
}

// A read handed over while it waits: never early, never late.

/// What a server hands over after one 429 asking 3 s, answered 2 s into the read and handed
/// over at once.
fn handed_over_after_a_429() -> HandOver {
    HandOver {
        attempts: 1,
        wait: s(3),
        reason: WaitReason::ServerDelay(s(3)),
        last_response: Some(LastResponse {
            status: 429,
            retry_after: Some("3".into()),
            note: None,
        }),
    }
}

#[test]
fn a_handed_over_wait_is_waited_whole_from_when_it_is_read_and_the_count_goes_on() {
    // Read at 5 s on this clock, whose origin (0) came before the read's true start.
    let mut a =
        ReadAction::resume(s(5), s(0), RetryPolicy::new(), &handed_over_after_a_429()).unwrap();
    assert_eq!(
        a.poll_action(),
        Some(Step::Wait {
            next: 2,
            until: s(8),
            reason: WaitReason::ServerDelay(s(3))
        })
    );
    a.handle_timeout(s(8));
    assert!(matches!(
        a.poll_action(),
        Some(Step::StartAttempt { number: 2, .. })
    ));
    a.handle_response(s(9), &Response::new(200), None);
    let r = stopped(&mut a);
    assert_eq!((r.outcome, r.attempts, r.at), (Outcome::Succeeded, 2, s(9)));
    let lines: Vec<String> = a.trace().iter().map(|e| e.event.to_string()).collect();
    assert_eq!(lines[1], "handed over after 1 attempts, 3 s still to wait");
}

#[test]
fn a_handed_over_read_counts_its_deadline_from_the_origin_and_stops_rather_than_run_late() {
    // Read at 14 s: the next attempt would start at 17 s and end at 21 s, past the 20 s budget
    // counted from the origin, so it stops now, sending nothing.
    let mut a =
        ReadAction::resume(s(14), s(0), RetryPolicy::new(), &handed_over_after_a_429()).unwrap();
    let r = stopped(&mut a);
    assert_eq!(
        (r.outcome, r.attempts, r.at),
        (
            Outcome::BudgetExhausted(Overrun::ServerDelay(s(3))),
            1,
            s(14)
        )
    );
    // With the attempts all made on the server, nothing more is sent either.
    let mut spent = handed_over_after_a_429();
    spent.attempts = 3;
    let mut b = ReadAction::resume(s(5), s(0), RetryPolicy::new(), &spent).unwrap();
    assert_eq!(stopped(&mut b).outcome, Outcome::AttemptsExhausted);
}

#[test]
fn a_handed_over_429_seeds_the_ledger_so_every_read_on_the_scope_waits() {
    let mut client = Client::new();
    let resumed = client
        .handle_resume(
            s(5),
            s(0),
            API,
            RetryPolicy::new(),
            &handed_over_after_a_429(),
        )
        .unwrap();
    let events: Vec<ClientEvent> = std::iter::from_fn(|| client.poll_event()).collect();
    assert!(events
        .iter()
        .any(|e| matches!(e, ClientEvent::Blocked { block, .. } if block.until == s(8))));
    // Another screen's read on the scope sends nothing before the block ends.
    let other = client
        .handle_start(s(6), API, RetryPolicy::new(), 0)
        .unwrap();
    assert!(matches!(
        last_step(&mut client, other),
        Step::Wait { until, .. } if until == s(8)
    ));
    assert!(matches!(
        client.read(resumed).unwrap().phase(),
        Phase::Waiting { .. }
    ));
    // A fallback wait blocks nothing: it was the client's choice, not the server's.
    let mut fallback = handed_over_after_a_429();
    fallback.reason = WaitReason::Fallback {
        wait: s(2),
        note: HeaderNote::Missing {
            maybe_hidden: false,
        },
    };
    let mut client = Client::new();
    client
        .handle_resume(s(5), s(0), API, RetryPolicy::new(), &fallback)
        .unwrap();
    assert_eq!(client.scope_state(API).block, None);
}

#[test]
fn a_server_hands_a_waiting_read_over_and_keeps_what_its_ledger_learned() {
    let mut server = Client::new();
    let read = server
        .handle_start(s(0), API, RetryPolicy::new(), 0)
        .unwrap();
    // In flight: nothing to hand over yet.
    assert_eq!(server.hand_over(s(0), read), None);
    let hint = Response::new(429).retry_after("3");
    server.handle_response(s(1), read, &hint, None, Ok(()));
    let hand_over = server
        .hand_over(Duration::from_millis(1_500), read)
        .unwrap();
    assert_eq!(
        hand_over,
        HandOver {
            attempts: 1,
            wait: Duration::from_millis(2_500),
            reason: WaitReason::ServerDelay(s(3)),
            last_response: Some(LastResponse {
                status: 429,
                retry_after: Some("3".into()),
                note: None
            }),
        }
    );
    // It left the server's client without a stop; the block its 429 set stays there.
    assert!(server.read(read).is_none());
    assert_eq!(server.scope_state(API).waiting, 0);
    assert_eq!(server.scope_state(API).block.map(|b| b.until), Some(s(4)));
    // Read back in a browser whose clock reads 0.8 s when the page has it.
    let text = hand_over.to_string();
    let mut browser = Client::new();
    let resumed = browser
        .handle_resume(
            Duration::from_millis(800),
            s(0),
            API,
            RetryPolicy::new(),
            &HandOver::parse(&text).unwrap(),
        )
        .unwrap();
    assert!(matches!(
        last_step(&mut browser, resumed),
        Step::Wait { until, .. } if until == Duration::from_millis(3_300)
    ));
}

/// Every kind of stop, with its facts, reads back as it was handed over: a server's render sends
/// the browser the report of a read that loaded or stopped.
#[test]
fn every_stop_reads_back_as_it_was_handed_over() {
    let ms = Duration::from_millis;
    let outcomes = [
        Outcome::Succeeded,
        Outcome::BudgetExhausted(Overrun::ServerDelay(s(30))),
        Outcome::BudgetExhausted(Overrun::LocalWait),
        Outcome::BudgetExhausted(Overrun::WokeLate(ms(1_250))),
        Outcome::BudgetExhausted(Overrun::Scope(HeldBy::Block {
            wait: ms(2_999),
            cause: BlockCause::QuotaSpent,
        })),
        Outcome::BudgetExhausted(Overrun::Scope(HeldBy::Queue { limit: 2 })),
        Outcome::BudgetExhausted(Overrun::Scope(HeldBy::RetryTokens)),
        Outcome::BudgetExhausted(Overrun::Scope(HeldBy::MaxWaiting { max: 25 })),
        Outcome::AttemptsExhausted,
        Outcome::UserLeft {
            cancelled: Cancelled::InFlight,
        },
        Outcome::UserLeft {
            cancelled: Cancelled::Pending,
        },
        Outcome::ClockUntrusted { date: date(6) },
        Outcome::NonRetryableResponse { status: 503 },
        Outcome::TransportFailure(TransportFailure::Network),
        Outcome::TransportFailure(TransportFailure::CannotAbort),
        Outcome::AttemptTimedOut { cap: s(4) },
        Outcome::UnreadableResponse(BodyProblem::Empty),
        Outcome::UnreadableResponse(BodyProblem::NotJson {
            line: 1,
            column: 50,
        }),
        Outcome::UnreadableResponse(BodyProblem::WrongShape { line: 3, column: 7 }),
        Outcome::UnreadableResponse(BodyProblem::Truncated { line: 9, column: 1 }),
        Outcome::UnreadableResponse(BodyProblem::TooLarge { limit: 1 << 20 }),
        Outcome::UnreadableResponse(BodyProblem::Interrupted),
    ];
    let lasts = [
        None,
        Some(LastResponse {
            status: 429,
            retry_after: Some("1.5; x=%".into()),
            note: Some(HeaderNote::Invalid(
                parse_retry_after("1.5; x=%").unwrap_err(),
            )),
        }),
        Some(LastResponse {
            status: 503,
            retry_after: None,
            note: Some(HeaderNote::Missing { maybe_hidden: true }),
        }),
    ];
    for (i, outcome) in outcomes.into_iter().enumerate() {
        let report = StopReport {
            outcome,
            at: Duration::new(7, 123_456_789),
            attempts: 2,
            max_attempts: 3,
            last_response: lasts[i % lasts.len()].clone(),
            request_time: ms(1_500) + Duration::from_nanos(1),
            waited_time: s(3),
        };
        let text = report.handed().to_string();
        assert_eq!(StopReport::parse(&text), Ok(report), "{text}");
    }
}

/// A stop's text of another version, or of another shape, is refused by name, never read as
/// some other stop.
#[test]
fn a_stop_that_cannot_be_read_is_refused_by_name() {
    let good = "retry-budget stop 1;outcome=status:503;at_ns=5;attempts=1;of=3;request_ns=5;waited_ns=0;last=503;note=missing";
    assert!(StopReport::parse(good).is_ok());
    let refused = [
        (
            good.replace("stop 1", "stop 2"),
            HandOverError::OtherVersion("2".into()),
        ),
        (
            good.replace("stop", "hand-over"),
            HandOverError::NotAHandOver,
        ),
        (
            good.replace("status:503", "status:503:1"),
            HandOverError::Field("outcome"),
        ),
        (
            good.replace("status:503", "gave_up"),
            HandOverError::Field("outcome"),
        ),
        (
            good.replace("attempts=1", "attempts=-1"),
            HandOverError::Field("attempts"),
        ),
        (good.replace(";of=3", ""), HandOverError::Field("of")),
        (
            good.replace("last=503", "last=99"),
            HandOverError::Field("last"),
        ),
        (format!("{good};at_ns=6"), HandOverError::Field("at_ns")),
        (format!("{good};url=/x"), HandOverError::NotAHandOver),
    ];
    for (text, error) in refused {
        assert_eq!(StopReport::parse(&text), Err(error), "{text}");
    }
}

/// A server's render hands the browser its part of a read's trace: every kind of event reads
/// back as it was written, an invalid `Retry-After`, a date, clock evidence, a quota and an
/// ignored RateLimit field among them, to the nanosecond.
#[test]
fn every_event_of_a_trace_reads_back_as_it_was_handed_over() {
    let mut traces = Vec::new();
    // An invalid hint with the server's Date, an ignored field, a wait, a wake, a 503.
    let mut a = start_with(RetryPolicy::new().with_trust_local_clock(true));
    let answer = Response::new(429)
        .retry_after("1.5; x=%,/")
        .date("Mon, 01 Jan 2024 12:00:00 GMT")
        .rate_limit("RateLimit-Reset", "3");
    a.handle_response(T0 + s(1), &answer, Some(noon()));
    waits_until(&mut a, 3);
    a.handle_timeout(T0 + s(3) + Duration::from_nanos(7));
    a.poll_action();
    a.handle_response(T0 + s(4), &Response::new(503), Some(noon()));
    stopped(&mut a);
    traces.push(a.trace().to_vec());
    // A date hint, a quota, a cap reached, a late answer dropped.
    let mut a = start_with(RetryPolicy::new().with_trust_local_clock(true));
    let hint = Response::new(429)
        .retry_after("Mon, 01 Jan 2024 12:00:06 GMT")
        .rate_limit("RateLimit", "\"w\";r=0;t=9");
    a.handle_response(T0 + s(2), &hint, Some(noon() + s(2)));
    waits_until(&mut a, 6);
    a.handle_timeout(T0 + s(6));
    a.poll_action();
    a.handle_timeout(T0 + s(10));
    a.handle_response(T0 + s(11), &Response::new(200), None);
    a.handle_transport_failure(T0 + s(11), TransportFailure::Network);
    while a.poll_action().is_some() {}
    traces.push(a.trace().to_vec());
    // A read handed over, resumed, and left.
    let hand_over = HandOver {
        attempts: 1,
        wait: Duration::from_millis(2_500),
        reason: WaitReason::ScopeBlocked {
            wait: Duration::from_nanos(2_499_999_999),
            asked: s(3),
            cause: BlockCause::TooManyRequests,
        },
        last_response: None,
    };
    let mut a = ReadAction::resume(T0, Duration::ZERO, RetryPolicy::new(), &hand_over).unwrap();
    a.handle_leave(T0 + s(1));
    traces.push(a.trace().to_vec());
    for trace in traces {
        let text = handed_trace(&trace).to_string();
        assert!(!text.contains('\n'), "one line: {text}");
        assert_eq!(parse_trace(&text), Ok(trace), "{text}");
    }
    assert_eq!(
        parse_trace("retry-budget trace 2;0:moved"),
        Err(HandOverError::OtherVersion("2".into()))
    );
    assert_eq!(
        parse_trace("retry-budget trace 1;0:nap"),
        Err(HandOverError::Field("trace"))
    );
}

/// Two reads on scopes of their own, started at 0 s and each answered `429` at 1 s: the first
/// asking `first` seconds, the second `second`.
fn two_waiting_reads(first: &str, second: &str) -> (Client, ReadId, ReadId) {
    let mut client = Client::new();
    let policy = RetryPolicy::new().with_budget(s(20));
    let a = client.handle_start(s(0), "https://a.example.com", policy.clone(), 0);
    let b = client.handle_start(s(0), "https://b.example.com", policy, 0);
    let (a, b) = (a.unwrap(), b.unwrap());
    client.handle_response(
        s(1),
        a,
        &Response::new(429).retry_after(first),
        None,
        Ok(()),
    );
    client.handle_response(
        s(1),
        b,
        &Response::new(429).retry_after(second),
        None,
        Ok(()),
    );
    events(&mut client);
    (client, a, b)
}

#[test]
fn timers_due_at_one_instant_fire_in_the_order_the_reads_started_whatever_their_time() {
    // The second read's wait ends first; both are due at 6 s.
    let (mut client, a, b) = two_waiting_reads("5", "3");
    assert_eq!(client.poll_timeout(), Some(s(4)));
    client.handle_timeout(s(6));
    let started: Vec<ReadId> = (events(&mut client).into_iter())
        .filter_map(|e| match e {
            ClientEvent::Step {
                read,
                step: Step::StartAttempt { .. },
            } => Some(read),
            _ => None,
        })
        .collect();
    assert_eq!(started, [a, b]);
}

#[test]
fn the_next_timer_is_a_live_reads_never_one_handed_over_or_removed() {
    let (mut client, a, b) = two_waiting_reads("2", "9");
    assert_eq!(client.poll_timeout(), Some(s(3)));
    // The first read leaves with its wait: its timer is not the client's any more.
    assert!(client.hand_over(s(2), a).is_some());
    assert_eq!(client.poll_timeout(), Some(s(10)));
    client.handle_leave(s(2), b);
    assert!(client.remove(b).is_some());
    assert_eq!(client.poll_timeout(), None);
}
