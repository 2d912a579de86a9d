//! How an action ended, kept apart from the last response, and the words the user reads.

use std::fmt;
use std::time::Duration;

use super::block::BlockCause;
use super::body::BodyProblem;
use super::http_date::HttpDate;
use super::retry_after::HeaderNote;

/// How a read ended, with exactly the facts of that ending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A 2xx arrived, and its body was usable.
    Succeeded,
    /// The next attempt (its wait plus its full cap) would not fit the budget; what would
    /// have overrun it.
    BudgetExhausted(Overrun),
    /// Every allowed attempt has been started.
    AttemptsExhausted,
    /// The user left the screen or cancelled.
    UserLeft {
        /// What the leaving cancelled.
        cancelled: Cancelled,
    },
    /// `Retry-After` was this date and no trusted clock could date the receipt.
    ClockUntrusted {
        /// The date the service named.
        date: HttpDate,
    },
    /// A status that is neither 2xx nor retryable.
    NonRetryableResponse {
        /// The status.
        status: u16,
    },
    /// The request failed before any HTTP response could be read; what failed.
    TransportFailure(TransportFailure),
    /// The attempt ran to its cap and was aborted.
    AttemptTimedOut {
        /// The per-attempt cap.
        cap: Duration,
    },
    /// A 2xx arrived, but its body could not be used (empty, not JSON, JSON of another shape,
    /// cut short, or larger than the policy's limit). Not retried.
    UnreadableResponse(BodyProblem),
}

impl Outcome {
    /// Its kind, which names it in the SPEC and the fixtures.
    pub const fn kind(&self) -> OutcomeKind {
        match self {
            Outcome::Succeeded => OutcomeKind::Succeeded,
            Outcome::BudgetExhausted(_) => OutcomeKind::BudgetExhausted,
            Outcome::AttemptsExhausted => OutcomeKind::AttemptsExhausted,
            Outcome::UserLeft { .. } => OutcomeKind::UserLeft,
            Outcome::ClockUntrusted { .. } => OutcomeKind::ClockUntrusted,
            Outcome::NonRetryableResponse { .. } => OutcomeKind::NonRetryableResponse,
            Outcome::TransportFailure(_) => OutcomeKind::TransportFailure,
            Outcome::AttemptTimedOut { .. } => OutcomeKind::AttemptTimedOut,
            Outcome::UnreadableResponse(_) => OutcomeKind::UnreadableResponse,
        }
    }

    /// The SPEC's (and the fixtures') name, e.g. `budget_exhausted`.
    pub const fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// The server's delay that would have overrun the budget (before the local floor), where
    /// one decided the stop.
    pub const fn requested_delay(&self) -> Option<Duration> {
        match self {
            Outcome::BudgetExhausted(Overrun::ServerDelay(delay)) => Some(*delay),
            _ => None,
        }
    }
}

/// What would have overrun the budget, for a `budget_exhausted` stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overrun {
    /// The server's delay (before the local floor): a valid one is never shortened to fit.
    ServerDelay(Duration),
    /// The client's own wait before the next attempt (a fallback, or the floor).
    LocalWait,
    /// The wait's timer woke this late, too late for another attempt to fit.
    WokeLate(Duration),
    /// Something on the read's scope held the next attempt back.
    Scope(HeldBy),
}

/// What leaving cancelled, for a `user_left` stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cancelled {
    /// The attempt in flight (it was aborted; the service may have processed it).
    InFlight,
    /// The wait for the next attempt, or its place in the scope's queue (nothing was sent).
    Pending,
}

/// An outcome's kind: its name in the SPEC and the fixtures, without its facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutcomeKind {
    /// [`Outcome::Succeeded`].
    Succeeded,
    /// [`Outcome::BudgetExhausted`].
    BudgetExhausted,
    /// [`Outcome::AttemptsExhausted`].
    AttemptsExhausted,
    /// [`Outcome::UserLeft`].
    UserLeft,
    /// [`Outcome::ClockUntrusted`].
    ClockUntrusted,
    /// [`Outcome::NonRetryableResponse`].
    NonRetryableResponse,
    /// [`Outcome::TransportFailure`].
    TransportFailure,
    /// [`Outcome::AttemptTimedOut`].
    AttemptTimedOut,
    /// [`Outcome::UnreadableResponse`].
    UnreadableResponse,
}

impl OutcomeKind {
    /// Every kind, in the SPEC's order, then the ones this project adds.
    pub const ALL: [OutcomeKind; 9] = [
        OutcomeKind::Succeeded,
        OutcomeKind::BudgetExhausted,
        OutcomeKind::AttemptsExhausted,
        OutcomeKind::UserLeft,
        OutcomeKind::ClockUntrusted,
        OutcomeKind::NonRetryableResponse,
        OutcomeKind::TransportFailure,
        OutcomeKind::AttemptTimedOut,
        OutcomeKind::UnreadableResponse,
    ];

    /// The SPEC's (and the fixtures') name, e.g. `budget_exhausted`.
    pub const fn name(self) -> &'static str {
        match self {
            OutcomeKind::Succeeded => "succeeded",
            OutcomeKind::BudgetExhausted => "budget_exhausted",
            OutcomeKind::AttemptsExhausted => "attempts_exhausted",
            OutcomeKind::UserLeft => "user_left",
            OutcomeKind::ClockUntrusted => "clock_untrusted",
            OutcomeKind::NonRetryableResponse => "non_retryable_response",
            OutcomeKind::TransportFailure => "transport_failure",
            OutcomeKind::AttemptTimedOut => "attempt_timed_out",
            OutcomeKind::UnreadableResponse => "unreadable_response",
        }
    }

    /// The kind with this SPEC name.
    pub fn from_name(name: &str) -> Option<OutcomeKind> {
        OutcomeKind::ALL.into_iter().find(|o| o.name() == name)
    }
}

impl fmt::Display for OutcomeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
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
    /// The scope's retry tokens ([`RetryTokens`](crate::scope::RetryTokens)): less than one was left
    /// when the answer asked for a retry.
    RetryTokens,
    /// The scope's cap on delayed reads ([`ScopePolicy::with_max_waiting`]): `max` reads on
    /// it were already waiting or queued when this one started and would have been delayed.
    ///
    /// [`ScopePolicy::with_max_waiting`]: super::ScopePolicy::with_max_waiting
    MaxWaiting {
        /// The cap.
        max: u32,
    },
}

/// How a read ended, and what it cost: the facts of its ending, then what every ending has.
/// Its [`message`](StopReport::message) is what the user reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopReport {
    /// How it ended, with that ending's facts.
    pub outcome: Outcome,
    /// Elapsed time of the terminal decision.
    pub at: Duration,
    /// Attempts started.
    pub attempts: u32,
    /// The policy's `max_attempts`.
    pub max_attempts: u32,
    /// The last HTTP response, kept apart from the outcome.
    pub last_response: Option<LastResponse>,
    /// Time spent in requests (each attempt from its start to its end, once).
    pub request_time: Duration,
    /// Time actually waited between attempts.
    pub waited_time: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn outcome_names_round_trip() {
        for o in OutcomeKind::ALL {
            assert_eq!(OutcomeKind::from_name(o.name()), Some(o));
        }
        assert_eq!(OutcomeKind::from_name("gave_up"), None);
    }
}
