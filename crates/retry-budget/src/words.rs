//! Every sentence the user reads, in one room: the stop message, the countdown, why a wait is
//! as long as it is, and why a read could not start. The components show these words and add
//! none of their own.

use std::fmt;
use std::time::Duration;

use super::block::BlockCause;
use super::report::{BodyProblem, HeldBy, Outcome, StopReport, StoppedWhile, TransportFailure};
use super::seconds::{seconds_text, Precision};
use super::wait::WaitReason;

/// The button that stops a running read (as leaving the screen does).
pub const CANCEL: &str = "Cancel";

/// The button that starts a new read, with a fresh budget, after a stop.
pub const TRY_AGAIN: &str = "Try again";

/// The heading of the trace panel (the timeline and the list of events).
pub const TRACE: &str = "Timeline and trace";

/// "1 second", "2 seconds", "2.5 seconds": to the tenth, as a person reads a duration. A real
/// clock's 2.013 s reads "2 seconds".
pub fn seconds_words(d: Duration) -> String {
    match seconds_text(d, Precision::Tenths).as_str() {
        "1" => "1 second".to_owned(),
        n => format!("{n} seconds"),
    }
}

/// While an attempt is in flight: "Attempt 2 of 3".
pub fn attempt_status(attempt: u32, of: u32) -> String {
    format!("Attempt {attempt} of {of}")
}

/// While waiting, `left` before attempt `next`: "Attempt 2 of 3 in 3 s", in whole seconds
/// rounded up (it reads "in 1 s" until the moment the attempt starts).
pub fn countdown(next: u32, of: u32, left: Duration) -> String {
    format!(
        "Attempt {next} of {of} in {} s",
        seconds_text(left, Precision::Countdown)
    )
}

/// While queued for a place in flight: "Attempt 1 of 3 waits its turn. At most 1 request to
/// this API may be in flight at once."
pub fn queued(next: u32, of: u32, limit: u32) -> String {
    format!(
        "Attempt {next} of {of} waits its turn. {}",
        in_flight_words(limit)
    )
}

/// Why a wait is as long as it is.
pub fn wait_reason(reason: &WaitReason) -> String {
    let s = |d: Duration| seconds_text(d, Precision::Exact);
    match reason {
        WaitReason::ServerDelay(d) => format!("The service asked for {} s.", s(*d)),
        WaitReason::ServerDate { until, delay, .. } => format!(
            "The service named a time, {until} ({} s from the answer).",
            s(*delay)
        ),
        WaitReason::Fallback { wait, .. } => format!(
            "The service gave no usable hint; waiting the {} s fallback.",
            s(*wait)
        ),
        WaitReason::ScopeBlocked { asked, cause, .. } => match cause {
            BlockCause::TooManyRequests => format!(
                "The service asked every request to this API to wait {} s.",
                s(*asked)
            ),
            BlockCause::QuotaSpent => format!(
                "This API's quota is used up; the service said it resets in {} s.",
                s(*asked)
            ),
        },
    }
}

/// "1 MiB", "64 KiB", "1000 bytes": a size as a person reads it, exact.
pub fn bytes_words(n: u64) -> String {
    const KIB: u64 = 1024;
    match n {
        1 => "1 byte".to_owned(),
        n if n >= KIB * KIB && n % (KIB * KIB) == 0 => format!("{} MiB", n / (KIB * KIB)),
        n if n >= KIB && n % KIB == 0 => format!("{} KiB", n / KIB),
        n => format!("{n} bytes"),
    }
}

/// What was wrong with a 2xx's body, as the stop message says it: the kind and the place, never
/// a word of what the body held.
impl fmt::Display for BodyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&body_problem(*self))
    }
}

/// What was wrong with a 2xx's body: the kind and the place, never a word of what it held.
pub fn body_problem(problem: BodyProblem) -> String {
    match problem {
        BodyProblem::Empty => "Its answer had no body.".to_owned(),
        BodyProblem::NotJson { line, column } => {
            format!("Its body is not JSON (line {line}, column {column}).")
        }
        BodyProblem::WrongShape { line, column } => format!(
            "Its body is JSON, but not of the shape expected (line {line}, column {column})."
        ),
        BodyProblem::Truncated { line, column } => {
            format!("Its body ended before its JSON did (line {line}, column {column}).")
        }
        BodyProblem::TooLarge { limit } => format!(
            "Its body is larger than {}, so reading stopped there.",
            bytes_words(limit)
        ),
        BodyProblem::Interrupted => "Its body stopped arriving part way.".to_owned(),
    }
}

/// The timeline picture's title.
pub fn timeline_title() -> String {
    "Timeline of the read: attempts, waits, the reserved cap and the deadline".to_owned()
}

/// The timeline picture's description, for screen readers: the whole action in one sentence.
/// `at` is the stop (or now), `outcome` `None` while it runs.
pub fn timeline_summary(
    attempts: usize,
    max_attempts: u32,
    at: Duration,
    budget: Duration,
    outcome: Option<Outcome>,
) -> String {
    let end = match outcome {
        Some(o) => format!("stopped {}", o.name()),
        None => "still running".to_owned(),
    };
    format!(
        "{attempts} of {max_attempts} attempts in {} of a {}-second budget; {end}.",
        seconds_words(at),
        seconds_text(budget, Precision::Exact)
    )
}

/// A wait's label on the timeline: why it is this long, briefly.
pub fn wait_label(reason: &WaitReason) -> String {
    let s = |d: Duration| seconds_text(d, Precision::Exact);
    match reason {
        WaitReason::ServerDelay(d) => format!("server asked {} s", s(*d)),
        WaitReason::ServerDate { delay, .. } => format!("server date, {} s", s(*delay)),
        WaitReason::Fallback { wait, .. } => format!("fallback {} s", s(*wait)),
        WaitReason::ScopeBlocked { wait, .. } => format!("API blocked, {} s", s(*wait)),
    }
}

/// How late a wait's timer woke, on the timeline.
pub fn late_label(late: Duration) -> String {
    format!("woke {} s late", seconds_text(late, Precision::Millis))
}

/// The deadline's label on the timeline.
pub fn deadline_label(budget: Duration) -> String {
    format!("deadline {} s", seconds_text(budget, Precision::Exact))
}

/// What the live region says while waiting, once, as the wait begins: "Waiting before attempt 2
/// of 3." and why the wait is this long (never the ticking number).
pub fn waiting(next: u32, of: u32, reason: &WaitReason) -> String {
    format!(
        "Waiting before attempt {next} of {of}. {}",
        wait_reason(reason)
    )
}

/// What the live region says when a read stops: the outcome and the last response, in one
/// sentence pair (the third line stays on the screen).
pub fn stopped(report: &StopReport) -> String {
    let mut lines = report.message();
    lines.truncate(2);
    lines.join(" ")
}

/// A read whose policy or request is not valid never starts; this says why.
pub fn refused(error: &dyn std::fmt::Display) -> String {
    format!("This read is misconfigured: {error}")
}

impl StopReport {
    /// The message the user reads, line by line: the outcome, then the last response with the
    /// attempts and the elapsed time, then what happened to the next request. It never claims
    /// the service recovered or failed for good. For the contract's wait-exceeds case:
    ///
    /// ```text
    /// Stopped: retry budget cannot fit another request.
    /// Last response: 429. Attempts: 1 of 3. Elapsed: 2 seconds.
    /// The service requested a 30-second delay. No retry was sent.
    /// ```
    pub fn message(&self) -> Vec<String> {
        let r = self;
        let headline = match r.outcome {
            Outcome::Succeeded => "Loaded.".to_owned(),
            Outcome::BudgetExhausted => match r.held_by {
                Some(HeldBy::Crowd { .. }) => "Stopped: too many reads are waiting on this API.",
                _ => "Stopped: retry budget cannot fit another request.",
            }
            .into(),
            Outcome::AttemptsExhausted => {
                format!("Stopped: all {} attempts were used.", r.max_attempts)
            }
            Outcome::UserLeft => "Stopped: you left before the read finished.".into(),
            Outcome::ClockUntrusted => {
                "Stopped: the service named a retry time, and no trusted clock could read it."
                    .into()
            }
            Outcome::NonRetryableResponse => match &r.last_response {
                Some(last) => format!(
                    "Stopped: the service answered {}, which is not retried.",
                    last.status
                ),
                None => "Stopped: the service's answer is not retried.".into(),
            },
            Outcome::TransportFailure => {
                "Stopped: the request failed before any answer arrived.".into()
            }
            Outcome::AttemptTimedOut => format!(
                "Stopped: the service did not answer within {}.",
                seconds_words(r.attempt_cap)
            ),
            Outcome::UnreadableResponse => {
                "Stopped: the service answered, but not with data this screen can use.".into()
            }
        };
        let last = match &r.last_response {
            Some(last) => format!("Last response: {}.", last.status),
            None => "Last response: none.".to_owned(),
        };
        let summary = format!(
            "{last} Attempts: {} of {}. Elapsed: {}.",
            r.attempts,
            r.max_attempts,
            seconds_words(r.at)
        );
        let no_retry = match r.attempts {
            0 => "No request was sent.",
            1 => "No retry was sent.",
            _ => "No further retry was sent.",
        };
        let detail = match r.outcome {
            Outcome::Succeeded => None,
            Outcome::BudgetExhausted => Some(match (r.held_by, r.requested_delay, r.stopped_while) {
                (Some(HeldBy::Queue { limit }), ..) => format!(
                    "{} Its turn did not come while the next attempt could still fit this read's \
                     budget. {no_retry}",
                    in_flight_words(limit)
                ),
                (Some(HeldBy::Crowd { max }), ..) => format!(
                    "{} This one would have been the next, so it was not started. {no_retry}",
                    match max {
                        1 => "1 read on this API is already waiting.".to_owned(),
                        n => format!("{n} reads on this API are already waiting."),
                    }
                ),
                (Some(HeldBy::RetryTokens), ..) => format!(
                    "Too many recent requests to this API needed a retry; retries resume as \
                     requests succeed. {no_retry}"
                ),
                (Some(HeldBy::Block { wait, cause }), ..) => match cause {
                    BlockCause::TooManyRequests => format!(
                        "The service asked every request to this API to wait, and that wait ends \
                         in {}, past this read's budget. {no_retry}",
                        seconds_words(wait)
                    ),
                    BlockCause::QuotaSpent => format!(
                        "This API's quota is used up, and it resets in {}, past this read's \
                         budget. {no_retry}",
                        seconds_words(wait)
                    ),
                },
                (None, Some(delay), _) => {
                    format!("The service requested {}. {no_retry}", delay_words(delay))
                }
                (None, None, StoppedWhile::WokeLate(late)) => format!(
                    "The wait ended {} late, too late to fit another attempt. {no_retry}",
                    seconds_words(late)
                ),
                (None, None, _) => {
                    format!("The local wait before the next attempt would not fit. {no_retry}")
                }
            }),
            Outcome::AttemptsExhausted => {
                Some("The service was still asking to slow down when the last attempt ended.".into())
            }
            Outcome::UserLeft => Some(match r.stopped_while {
                StoppedWhile::InFlight => {
                    "The request in flight was cancelled; the service may still have processed it."
                        .into()
                }
                _ => "The pending retry was cancelled; no further request was sent.".into(),
            }),
            Outcome::ClockUntrusted => Some(match r.unreadable_date {
                Some(d) => format!("The service asked to retry after {d}. {no_retry}"),
                None => format!("The service asked to retry after a date. {no_retry}"),
            }),
            Outcome::NonRetryableResponse => Some("You can try again.".into()),
            Outcome::TransportFailure => Some(format!(
                "{} {no_retry}",
                r.failure.unwrap_or(TransportFailure::Network)
            )),
            Outcome::AttemptTimedOut => Some(
                "The request was cancelled at its time limit; the service may still have processed it."
                    .into(),
            ),
            Outcome::UnreadableResponse => Some(match r.body {
                Some(problem) => format!("{} {no_retry}", body_problem(problem)),
                None => no_retry.to_owned(),
            }),
        };
        let mut lines = vec![headline, summary];
        lines.extend(detail);
        lines
    }
}

/// "At most 2 requests to this API may be in flight at once.": the scope's in-flight limit.
pub fn in_flight_words(limit: u32) -> String {
    match limit {
        1 => "At most 1 request to this API may be in flight at once.".to_owned(),
        n => format!("At most {n} requests to this API may be in flight at once."),
    }
}

/// "a 30-second delay"; a saturated delay says "at least" rather than print a false number.
fn delay_words(d: Duration) -> String {
    if d.as_secs() == u64::MAX {
        format!("a delay of at least {} seconds", u64::MAX)
    } else {
        format!("a {}-second delay", seconds_text(d, Precision::Exact))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LastResponse;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn report(outcome: Outcome) -> StopReport {
        StopReport {
            outcome,
            at: Duration::from_secs(2),
            attempts: 1,
            max_attempts: 3,
            last_response: Some(LastResponse {
                status: 429,
                retry_after: Some("30".into()),
                note: None,
            }),
            requested_delay: None,
            held_by: None,
            request_time: Duration::from_secs(2),
            waited_time: Duration::ZERO,
            stopped_while: StoppedWhile::Idle,
            failure: None,
            unreadable_date: None,
            body: None,
            attempt_cap: Duration::from_secs(4),
        }
    }

    #[test]
    fn the_contracts_wait_exceeds_message() {
        let mut r = report(Outcome::BudgetExhausted);
        r.requested_delay = Some(Duration::from_secs(30));
        assert_eq!(
            r.message(),
            [
                "Stopped: retry budget cannot fit another request.",
                "Last response: 429. Attempts: 1 of 3. Elapsed: 2 seconds.",
                "The service requested a 30-second delay. No retry was sent.",
            ]
        );
    }

    #[test]
    fn every_outcome_keeps_the_last_response_on_its_own_line() {
        for o in Outcome::ALL {
            let lines = report(o).message();
            assert_eq!(
                lines[1],
                "Last response: 429. Attempts: 1 of 3. Elapsed: 2 seconds."
            );
            assert!(!lines[0].contains("429") || o == Outcome::NonRetryableResponse);
            for l in &lines {
                assert!(
                    !l.contains("recovered") && !l.contains("permanently"),
                    "{l}"
                );
            }
        }
    }

    #[test]
    fn no_response_says_none() {
        let mut r = report(Outcome::TransportFailure);
        r.last_response = None;
        r.failure = Some(TransportFailure::Network);
        assert_eq!(
            r.message(),
            [
                "Stopped: the request failed before any answer arrived.",
                "Last response: none. Attempts: 1 of 3. Elapsed: 2 seconds.",
                "The request failed on the network. A rate limiter that sends no CORS headers \
                 looks the same to a browser. No retry was sent.",
            ]
        );
    }

    #[test]
    fn seconds_read_naturally() {
        assert_eq!(seconds_words(Duration::from_secs(1)), "1 second");
        assert_eq!(seconds_words(Duration::from_millis(2500)), "2.5 seconds");
        assert_eq!(seconds_words(Duration::ZERO), "0 seconds");
        assert_eq!(seconds_words(Duration::from_millis(2013)), "2 seconds");
        assert_eq!(seconds_words(Duration::from_millis(999)), "1 second");
    }

    #[test]
    fn the_countdown_rounds_up_to_whole_seconds() {
        assert_eq!(
            countdown(2, 3, Duration::from_millis(2001)),
            "Attempt 2 of 3 in 3 s"
        );
        assert_eq!(
            countdown(2, 3, Duration::from_millis(1)),
            "Attempt 2 of 3 in 1 s"
        );
        assert_eq!(attempt_status(1, 3), "Attempt 1 of 3");
    }

    #[test]
    fn an_unreadable_body_says_where_never_what() {
        let mut r = report(Outcome::UnreadableResponse);
        r.last_response = Some(LastResponse {
            status: 200,
            retry_after: None,
            note: None,
        });
        r.body = Some(BodyProblem::WrongShape {
            line: 1,
            column: 17,
        });
        assert_eq!(
            r.message(),
            [
                "Stopped: the service answered, but not with data this screen can use.",
                "Last response: 200. Attempts: 1 of 3. Elapsed: 2 seconds.",
                "Its body is JSON, but not of the shape expected (line 1, column 17). \
                 No retry was sent.",
            ]
        );
        r.body = Some(BodyProblem::TooLarge { limit: 1 << 20 });
        r.attempts = 2;
        assert_eq!(
            r.message()[2],
            "Its body is larger than 1 MiB, so reading stopped there. No further retry was sent."
        );
        assert_eq!(body_problem(BodyProblem::Empty), "Its answer had no body.");
    }

    #[test]
    fn sizes_read_exactly() {
        assert_eq!(bytes_words(1 << 20), "1 MiB");
        assert_eq!(bytes_words(3 << 20), "3 MiB");
        assert_eq!(bytes_words(64 << 10), "64 KiB");
        assert_eq!(bytes_words(1_000_000), "1000000 bytes");
        assert_eq!(bytes_words((1 << 20) + 1024), "1025 KiB");
        assert_eq!(bytes_words(1), "1 byte");
        assert_eq!(bytes_words(0), "0 bytes");
    }

    #[test]
    fn a_huge_delay_is_not_printed_as_a_false_number() {
        let mut r = report(Outcome::BudgetExhausted);
        r.requested_delay = Some(Duration::from_secs(u64::MAX));
        assert_eq!(
            r.message()[2],
            format!(
                "The service requested a delay of at least {} seconds. No retry was sent.",
                u64::MAX
            )
        );
    }
}
