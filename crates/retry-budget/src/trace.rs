//! The trace: what happened to one read action, event by event, and how each event reads.
//! It records statuses and the `Retry-After` and `Date` values, never a body or a credential.

use std::fmt;
use std::time::{Duration, SystemTime};

use super::clock::ClockSource;
use super::http_date::HttpDate;
use super::rate_limit::{IgnoredField, Quota, QuotaForm};
use super::report::{StopReport, TransportFailure};
use super::retry_after::HeaderNote;
use super::seconds::trace_seconds as t;
use super::wait::WaitReason;

/// One entry of the trace. `at` is elapsed time since the action started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    /// Elapsed time since the action started.
    pub at: Duration,
    /// What happened.
    pub event: Event,
}

/// What the trace records: the contract's list, and nothing else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The action started with this budget.
    ActionStarted {
        /// Total budget.
        budget: Duration,
        /// Attempts allowed.
        max_attempts: u32,
        /// Per-attempt cap.
        attempt_cap: Duration,
    },
    /// The action was handed over by another client (a server's render) while it waited,
    /// and goes on here.
    HandedOver {
        /// Attempts made before the hand-over.
        attempts: u32,
        /// The wait still to come when it was handed over.
        wait: Duration,
    },
    /// An attempt started.
    AttemptStarted {
        /// Which one (1-based).
        attempt: u32,
    },
    /// A response arrived for the attempt in flight.
    ResponseReceived {
        /// Which attempt.
        attempt: u32,
        /// Its status.
        status: u16,
        /// `Retry-After`, as received.
        retry_after: Option<String>,
        /// `Date`, as received.
        date: Option<String>,
        /// The receipt's wall-clock time, where there was usable evidence.
        wall_clock: Option<(SystemTime, ClockSource)>,
        /// What was wrong with `Retry-After` (retryable statuses only).
        note: Option<HeaderNote>,
        /// What the RateLimit fields said of the quota, if any did.
        quota: Option<Quota>,
        /// RateLimit fields present but not used, and why.
        ignored: Vec<IgnoredField>,
    },
    /// An attempt ended without a response.
    AttemptFailed {
        /// Which attempt.
        attempt: u32,
        /// How.
        failure: Failure,
    },
    /// A wait before the next attempt.
    WaitPlanned {
        /// How long (after the local floor, jitter included).
        wait: Duration,
        /// The part of `wait` that is jitter (zero unless the policy asks for it).
        jitter: Duration,
        /// Why.
        reason: WaitReason,
        /// Budget left at the decision.
        remaining: Duration,
    },
    /// The next attempt queued for a place among the scope's requests in flight.
    Queued {
        /// Which attempt.
        attempt: u32,
        /// The most requests in flight on the scope.
        limit: u32,
    },
    /// The wait's timer woke.
    TimerWoke {
        /// How much later than planned.
        late: Duration,
    },
    /// A response (or a failure) that arrived when the action could not use it.
    ResponseDropped {
        /// Its status; `None` for a transport failure.
        status: Option<u16>,
        /// Why it was dropped.
        reason: DropReason,
    },
    /// The screen moved on to another request (its URL or headers changed) while the action
    /// ran: the action stops as `user_left` right after, as if the user had left.
    MovedOn,
    /// The terminal event: exactly one per action.
    Stopped(StopReport),
}

/// Why an attempt ended without a response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The request failed before any answer arrived.
    Transport(TransportFailure),
    /// The attempt reached its cap and was aborted.
    TimedOut,
}

/// Why a response was not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The action had already stopped (the user left, or it ended otherwise).
    NotOwned,
    /// It arrived after its attempt's cap.
    PastCap,
}

/// A receipt's wall-clock time as an HTTP date; a clock past year 9999 says so rather than
/// print a false date.
pub(crate) fn wall_clock_text(at: SystemTime) -> String {
    HttpDate::from_system_time(at)
        .map_or_else(|| "a time past year 9999".to_owned(), |d| d.to_string())
}

impl fmt::Display for Quota {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} left", self.remaining)?;
        if let Some(reset) = self.reset {
            write!(f, ", reset in {} s", t(reset))?;
        }
        f.write_str(match self.form {
            QuotaForm::Structured => " (RateLimit)",
            QuotaForm::Separate => " (RateLimit-Remaining/-Reset)",
            QuotaForm::Legacy => " (X-RateLimit-Remaining/-Reset)",
        })
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::ActionStarted {
                budget,
                max_attempts,
                attempt_cap,
            } => write!(
                f,
                "action started: budget {} s, at most {max_attempts} attempts, {} s cap each",
                t(*budget),
                t(*attempt_cap)
            ),
            Event::AttemptStarted { attempt } => write!(f, "attempt {attempt} started"),
            Event::ResponseReceived {
                attempt,
                status,
                retry_after,
                date,
                wall_clock,
                note,
                quota,
                ignored,
            } => {
                write!(f, "attempt {attempt} answered {status}")?;
                if let Some(v) = retry_after {
                    write!(f, ", Retry-After: {v}")?;
                }
                if let Some(v) = date {
                    write!(f, ", Date: {v}")?;
                }
                if let Some((at, source)) = wall_clock {
                    write!(f, " (received at {} by the {source})", wall_clock_text(*at))?;
                }
                if let Some(n) = note {
                    write!(f, "; {n}")?;
                }
                if let Some(q) = quota {
                    write!(f, "; {q}")?;
                }
                for i in ignored {
                    write!(f, "; {i}")?;
                }
                Ok(())
            }
            Event::AttemptFailed { attempt, failure } => match failure {
                Failure::Transport(why) => write!(f, "attempt {attempt} failed: {why}"),
                Failure::TimedOut => write!(f, "attempt {attempt} aborted at its cap"),
            },
            Event::WaitPlanned {
                wait,
                jitter,
                reason,
                remaining,
            } => {
                write!(f, "wait {} s", t(*wait))?;
                if !jitter.is_zero() {
                    write!(f, " ({} s of it jitter)", t(*jitter))?;
                }
                write!(f, ": {reason}; {} s of budget left", t(*remaining))
            }
            Event::Queued { attempt, limit } => write!(
                f,
                "attempt {attempt} queued: at most {limit} in flight on this API"
            ),
            Event::TimerWoke { late } if late.is_zero() => f.write_str("timer woke on time"),
            Event::TimerWoke { late } => write!(f, "timer woke {} s late", t(*late)),
            Event::ResponseDropped { status, reason } => {
                match status {
                    Some(s) => write!(f, "response {s} dropped")?,
                    None => f.write_str("transport failure dropped")?,
                }
                f.write_str(match reason {
                    DropReason::NotOwned => ": the action is no longer owned",
                    DropReason::PastCap => ": it came after the attempt's cap",
                })
            }
            Event::MovedOn => f.write_str("the screen moved on to another request"),
            Event::HandedOver { attempts, wait } => write!(
                f,
                "handed over after {attempts} attempts, {} s still to wait",
                t(*wait)
            ),
            Event::Stopped(r) => write!(
                f,
                "stopped: {} after {} of {} attempts",
                r.outcome.name(),
                r.attempts,
                r.max_attempts
            ),
        }
    }
}
