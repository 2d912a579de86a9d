//! How an action ended, kept apart from the last response, and the words the user reads.

use std::fmt;
use std::time::{Duration, SystemTime};

use super::retry_after::HeaderNote;
use super::secs;

/// The one terminal outcome of a read action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// A 2xx arrived.
    Succeeded,
    /// The next attempt (its wait plus its full cap) would not fit the budget.
    BudgetExhausted,
    /// Every allowed attempt has been started.
    AttemptsExhausted,
    /// The user left the screen or cancelled.
    UserLeft,
    /// `Retry-After` was a date and no trusted clock could date the receipt.
    ClockUntrusted,
    /// A status that is neither 2xx nor retryable.
    NonRetryableResponse,
    /// The request failed on the network (no HTTP response could be read).
    TransportFailure,
    /// The attempt ran to its cap and was aborted.
    AttemptTimedOut,
}

impl Outcome {
    /// Every outcome, in the SPEC's order.
    pub const ALL: [Outcome; 8] = [
        Outcome::Succeeded,
        Outcome::BudgetExhausted,
        Outcome::AttemptsExhausted,
        Outcome::UserLeft,
        Outcome::ClockUntrusted,
        Outcome::NonRetryableResponse,
        Outcome::TransportFailure,
        Outcome::AttemptTimedOut,
    ];

    /// The SPEC's (and the fixtures') name, e.g. `budget_exhausted`.
    pub const fn name(self) -> &'static str {
        match self {
            Outcome::Succeeded => "succeeded",
            Outcome::BudgetExhausted => "budget_exhausted",
            Outcome::AttemptsExhausted => "attempts_exhausted",
            Outcome::UserLeft => "user_left",
            Outcome::ClockUntrusted => "clock_untrusted",
            Outcome::NonRetryableResponse => "non_retryable_response",
            Outcome::TransportFailure => "transport_failure",
            Outcome::AttemptTimedOut => "attempt_timed_out",
        }
    }

    /// The outcome with this SPEC name.
    pub fn from_name(name: &str) -> Option<Outcome> {
        Outcome::ALL.into_iter().find(|o| o.name() == name)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The last HTTP response the action received, as the trace records it (never a body).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LastResponse {
    /// Its status.
    pub status: u16,
    /// Its `Retry-After`, as received.
    pub retry_after: Option<String>,
    /// What was wrong with `Retry-After`, for a retryable status.
    pub note: Option<HeaderNote>,
}

/// The delay the server asked for, where it decided a `budget_exhausted` stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestedDelay {
    /// The delay, before the local floor.
    pub delay: Duration,
    /// The date it was read from, when `Retry-After` was a date.
    pub until: Option<SystemTime>,
}

/// Where the action was when it stopped, for the words of the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoppedWhile {
    /// Deciding on a response (or a failure) that had just arrived.
    Deciding,
    /// An attempt was in flight (it was aborted).
    InFlight,
    /// Waiting for the next attempt (the timer was cleared).
    Waiting,
    /// At the wake of a wait timer that woke this late.
    WokeLate(Duration),
}

/// Everything the user and the tests need about a stopped action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopReport {
    /// The terminal outcome.
    pub outcome: Outcome,
    /// Elapsed time of the terminal decision.
    pub at: Duration,
    /// Attempts started.
    pub attempts: u32,
    /// The policy's `max_attempts`.
    pub max_attempts: u32,
    /// The last HTTP response, kept apart from the outcome.
    pub last_response: Option<LastResponse>,
    /// The server's requested delay, where it decided the stop.
    pub requested_delay: Option<RequestedDelay>,
    /// Time spent in requests (each attempt from its start to its end, once).
    pub request_time: Duration,
    /// Time actually waited between attempts.
    pub waited_time: Duration,
    /// Where the action was when it stopped.
    pub stopped_while: StoppedWhile,
    /// The transport's own words, for `transport_failure`.
    pub failure: Option<String>,
    /// The `Retry-After` date that could not be read, for `clock_untrusted`.
    pub unreadable_date: Option<SystemTime>,
    /// The per-attempt cap, for `attempt_timed_out`.
    pub attempt_cap: Duration,
}

impl StopReport {
    /// The message the user reads, line by line: the outcome, then the last response, then what
    /// happened to the next request. It never claims the service recovered or failed for good.
    ///
    /// For the SPEC's wait-exceeds case these are exactly:
    ///
    /// ```text
    /// Stopped: retry budget cannot fit another request.
    /// Last response: 429. Attempts: 1 of 3. Elapsed: 2 seconds.
    /// The service requested a 30-second delay. No retry was sent.
    /// ```
    pub fn message(&self) -> Vec<String> {
        let headline = match self.outcome {
            Outcome::Succeeded => "Loaded.".to_owned(),
            Outcome::BudgetExhausted => "Stopped: retry budget cannot fit another request.".into(),
            Outcome::AttemptsExhausted => {
                format!("Stopped: all {} attempts were used.", self.max_attempts)
            }
            Outcome::UserLeft => "Stopped: you left before the read finished.".into(),
            Outcome::ClockUntrusted => {
                "Stopped: the service named a retry time, and no trusted clock could read it."
                    .into()
            }
            Outcome::NonRetryableResponse => match &self.last_response {
                Some(r) => format!(
                    "Stopped: the service answered {}, which is not retried.",
                    r.status
                ),
                None => "Stopped: the service's answer is not retried.".into(),
            },
            Outcome::TransportFailure => {
                "Stopped: the request failed before any answer arrived.".into()
            }
            Outcome::AttemptTimedOut => format!(
                "Stopped: the service did not answer within {}.",
                seconds(self.attempt_cap)
            ),
        };
        let last = match &self.last_response {
            Some(r) => format!("Last response: {}.", r.status),
            None => "Last response: none.".to_owned(),
        };
        let summary = format!(
            "{last} Attempts: {} of {}. Elapsed: {}.",
            self.attempts,
            self.max_attempts,
            seconds(self.at)
        );
        let no_retry = if self.attempts <= 1 {
            "No retry was sent."
        } else {
            "No further retry was sent."
        };
        let detail = match self.outcome {
            Outcome::Succeeded => None,
            Outcome::BudgetExhausted => Some(match (self.requested_delay, self.stopped_while) {
                (Some(RequestedDelay { delay, .. }), _) => {
                    format!("The service requested {}. {no_retry}", delay_words(delay))
                }
                (None, StoppedWhile::WokeLate(late)) => format!(
                    "The wait ended {} late, too late to fit another attempt. {no_retry}",
                    seconds(late)
                ),
                (None, _) => format!(
                    "The local wait before the next attempt would not fit. {no_retry}"
                ),
            }),
            Outcome::AttemptsExhausted => Some(
                "The service was still asking to slow down when the last attempt ended.".into(),
            ),
            Outcome::UserLeft => Some(match self.stopped_while {
                StoppedWhile::InFlight => {
                    "The request in flight was cancelled; the service may still have processed it.".into()
                }
                _ => "The pending retry was cancelled; no further request was sent.".into(),
            }),
            Outcome::ClockUntrusted => Some(match self.unreadable_date {
                Some(d) => format!(
                    "The service asked to retry after {}. {no_retry}",
                    httpdate::fmt_http_date(d)
                ),
                None => format!("The service asked to retry after a date. {no_retry}"),
            }),
            Outcome::NonRetryableResponse => Some("You can try again.".into()),
            Outcome::TransportFailure => Some(match &self.failure {
                Some(why) => format!("{why} {no_retry}"),
                None => no_retry.to_owned(),
            }),
            Outcome::AttemptTimedOut => Some(
                "The request was cancelled at its time limit; the service may still have processed it.".into(),
            ),
        };
        let mut lines = vec![headline, summary];
        lines.extend(detail);
        lines
    }
}

/// "1 second", "2 seconds", "2.5 seconds": to the tenth, as a person reads a duration. A real
/// clock's 2.013 s reads "2 seconds".
pub(crate) fn seconds(d: Duration) -> String {
    let tenths = (d.as_millis() + 50) / 100;
    let n = if tenths.is_multiple_of(10) {
        (tenths / 10).to_string()
    } else {
        format!("{}.{}", tenths / 10, tenths % 10)
    };
    if n == "1" {
        "1 second".into()
    } else {
        format!("{n} seconds")
    }
}

/// "a 30-second delay"; a saturated delay says "at least" rather than print a false number.
fn delay_words(d: Duration) -> String {
    if d.as_secs() == u64::MAX {
        format!("a delay of at least {} seconds", u64::MAX)
    } else {
        format!("a {}-second delay", secs(d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
            request_time: Duration::from_secs(2),
            waited_time: Duration::ZERO,
            stopped_while: StoppedWhile::Deciding,
            failure: None,
            unreadable_date: None,
            attempt_cap: Duration::from_secs(4),
        }
    }

    #[test]
    fn the_specs_wait_exceeds_message() {
        let mut r = report(Outcome::BudgetExhausted);
        r.requested_delay = Some(RequestedDelay {
            delay: Duration::from_secs(30),
            until: None,
        });
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
    fn outcome_names_round_trip() {
        for o in Outcome::ALL {
            assert_eq!(Outcome::from_name(o.name()), Some(o));
        }
        assert_eq!(Outcome::from_name("gave_up"), None);
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
        r.failure = Some("Network error.".into());
        assert_eq!(
            r.message(),
            [
                "Stopped: the request failed before any answer arrived.",
                "Last response: none. Attempts: 1 of 3. Elapsed: 2 seconds.",
                "Network error. No retry was sent.",
            ]
        );
    }

    #[test]
    fn seconds_read_naturally() {
        assert_eq!(seconds(Duration::from_secs(1)), "1 second");
        assert_eq!(seconds(Duration::from_millis(2500)), "2.5 seconds");
        assert_eq!(seconds(Duration::ZERO), "0 seconds");
        assert_eq!(seconds(Duration::from_millis(2013)), "2 seconds");
        assert_eq!(seconds(Duration::from_millis(2049)), "2 seconds");
        assert_eq!(seconds(Duration::from_millis(2050)), "2.1 seconds");
        assert_eq!(seconds(Duration::from_millis(999)), "1 second");
    }
}
