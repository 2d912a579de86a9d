//! How an action ended, kept apart from the last response, and the words the user reads.

use std::fmt;
use std::time::Duration;

use super::block::BlockCause;
use super::http_date::HttpDate;
use super::retry_after::HeaderNote;

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
    /// A 2xx arrived, but its body could not be used: empty, not JSON, JSON of another shape,
    /// cut short, or larger than the policy's limit. Not retried.
    UnreadableResponse,
}

impl Outcome {
    /// Every outcome, in the SPEC's order, then the ones this project adds.
    pub const ALL: [Outcome; 9] = [
        Outcome::Succeeded,
        Outcome::BudgetExhausted,
        Outcome::AttemptsExhausted,
        Outcome::UserLeft,
        Outcome::ClockUntrusted,
        Outcome::NonRetryableResponse,
        Outcome::TransportFailure,
        Outcome::AttemptTimedOut,
        Outcome::UnreadableResponse,
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
            Outcome::UnreadableResponse => "unreadable_response",
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

/// Why a 2xx's body could not be used: the kind and the place, never a word of what the body
/// held (a parser's own message quotes it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyProblem {
    /// No body at all (a 204, or an empty 200).
    Empty,
    /// Not JSON (an HTML error page from a proxy, say).
    NotJson {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// JSON, but not of the shape expected.
    WrongShape {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// The body ended before its JSON did.
    Truncated {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// Larger than the policy's `max_body_bytes`: reading stopped there and the fetch was
    /// aborted.
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
    /// The body stopped arriving part way (the connection failed after the headers).
    Interrupted,
}

/// Why a request failed before any answer arrived (`transport_failure`); its `Display` is the
/// sentence the user reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TransportFailure {
    /// The network failed, or a service refused without CORS headers: a browser cannot tell
    /// the two apart.
    #[error(
        "The request failed on the network. A rate limiter that sends no CORS headers looks the \
         same to a browser."
    )]
    Network,
    /// The browser could not make the abort handle an attempt needs, so its cap could not be
    /// kept and no request was sent.
    #[error("This browser cannot abort a request, so the per-attempt cap cannot be kept.")]
    CannotAbort,
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

/// Where the action was when it stopped, for the words of the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoppedWhile {
    /// Nothing was under way: it stopped on an answer or a failure that had just arrived, or
    /// at the gate before an attempt.
    Idle,
    /// An attempt was in flight (it was aborted).
    InFlight,
    /// Waiting for the next attempt (the timer was cleared).
    Waiting,
    /// At the wake of a wait timer that woke this late.
    WokeLate(Duration),
}

/// What on the read's scope held its next attempt back past its budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeldBy {
    /// The scope's block: `wait` from the decision to its end, which the attempt could not
    /// wait for within the budget, and why the scope is blocked.
    Block {
        /// From the decision to the block's end.
        wait: Duration,
        /// Why the scope is blocked.
        cause: BlockCause,
    },
    /// The scope's queue: the read's turn among at most `limit` requests in flight did not
    /// come while the attempt could still fit.
    Queue {
        /// The most requests to the scope in flight at once.
        limit: u32,
    },
    /// The scope's retry tokens ([`RetryTokens`](super::RetryTokens)): less than one was left
    /// when the answer asked for a retry.
    RetryTokens,
    /// The scope's cap on delayed reads ([`ScopePolicy::with_max_waiting`]): `max` reads on
    /// it were already waiting or queued when this one started and would have been delayed.
    ///
    /// [`ScopePolicy::with_max_waiting`]: super::ScopePolicy::with_max_waiting
    Crowd {
        /// The cap.
        max: u32,
    },
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
    /// The server's requested delay (before the local floor), where it decided the stop.
    pub requested_delay: Option<Duration>,
    /// For a `budget_exhausted` stop that the read's scope caused: what held the next attempt
    /// back until it could not fit.
    pub held_by: Option<HeldBy>,
    /// Time spent in requests (each attempt from its start to its end, once).
    pub request_time: Duration,
    /// Time actually waited between attempts.
    pub waited_time: Duration,
    /// Where the action was when it stopped.
    pub stopped_while: StoppedWhile,
    /// For `transport_failure`: what failed.
    pub failure: Option<TransportFailure>,
    /// The `Retry-After` date that could not be read, for `clock_untrusted`.
    pub unreadable_date: Option<HttpDate>,
    /// What was wrong with a 2xx's body, for `unreadable_response`.
    pub body: Option<BodyProblem>,
    /// The per-attempt cap, for `attempt_timed_out`.
    pub attempt_cap: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn outcome_names_round_trip() {
        for o in Outcome::ALL {
            assert_eq!(Outcome::from_name(o.name()), Some(o));
        }
        assert_eq!(Outcome::from_name("gave_up"), None);
    }
}
