//! A read's stop handed from one client to another: what a server's render sends the browser
//! for a read that loaded or stopped, so that the browser shows the same ending with no
//! request. The report travels whole, as text in the hand-over's style: nothing secret (no URL,
//! no request header, no body), another version's text refused by name.
//!
//! ```
//! use std::time::Duration;
//! use retry_budget::report::{LastResponse, Overrun};
//! use retry_budget::{Outcome, StopReport};
//!
//! let report = StopReport {
//!     outcome: Outcome::BudgetExhausted(Overrun::ServerDelay(Duration::from_secs(30))),
//!     at: Duration::from_millis(120),
//!     attempts: 1,
//!     max_attempts: 3,
//!     last_response: Some(LastResponse { status: 429, retry_after: Some("30".into()), note: None }),
//!     request_time: Duration::from_millis(120),
//!     waited_time: Duration::ZERO,
//! };
//! let text = report.handed().to_string();
//! assert_eq!(
//!     text,
//!     "retry-budget stop 1;outcome=budget:delay:30000000000;at_ns=120000000;attempts=1;of=3;\
//!      request_ns=120000000;waited_ns=0;last=429;ra=30;note=none"
//! );
//! assert_eq!(StopReport::parse(&text), Ok(report));
//! ```

use std::fmt;
use std::time::Duration;

use super::hand_over::{
    escape, fields, ns, number, read_last, unescape, write_last, HandOverError, VERSION,
};
use crate::block::BlockCause;
use crate::body::BodyProblem;
use crate::http_date::HttpDate;
use crate::report::{Cancelled, HeldBy, Outcome, Overrun, StopReport, TransportFailure};

/// What the text of a handed stop begins with; its version follows.
const HEADER: &str = "retry-budget stop ";

/// A [`StopReport`] as the text another client reads back ([`StopReport::handed`]).
#[derive(Clone, Copy, Debug)]
pub struct HandedStop<'a>(&'a StopReport);

impl StopReport {
    /// The report as text for another client, which reads it back whole with
    /// [`parse`](Self::parse).
    pub fn handed(&self) -> HandedStop<'_> {
        HandedStop(self)
    }

    /// Reads a report handed over as text ([`handed`](Self::handed)); refused by name otherwise.
    pub fn parse(text: &str) -> Result<StopReport, HandOverError> {
        const NAMES: [&str; 9] = [
            "outcome",
            "at_ns",
            "attempts",
            "of",
            "request_ns",
            "waited_ns",
            "last",
            "ra",
            "note",
        ];
        let [outcome, at, attempts, of, request, waited, last, ra, note] =
            fields(text, HEADER, NAMES)?;
        let count =
            |text, name| u32::try_from(number(text, name)?).map_err(|_| HandOverError::Field(name));
        Ok(StopReport {
            outcome: read_outcome(outcome.ok_or(HandOverError::Field("outcome"))?)?,
            at: nanos(at, "at_ns")?,
            attempts: count(attempts, "attempts")?,
            max_attempts: count(of, "of")?,
            last_response: read_last(last, ra, note)?,
            request_time: nanos(request, "request_ns")?,
            waited_time: nanos(waited, "waited_ns")?,
        })
    }
}

impl fmt::Display for HandedStop<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.0;
        write!(f, "{HEADER}{VERSION};outcome=")?;
        write_outcome(f, &r.outcome)?;
        write!(
            f,
            ";at_ns={};attempts={};of={};request_ns={};waited_ns={}",
            ns(r.at),
            r.attempts,
            r.max_attempts,
            ns(r.request_time),
            ns(r.waited_time)
        )?;
        write_last(f, r.last_response.as_ref())
    }
}

/// An outcome with its facts, `:`-separated after its short name.
fn write_outcome(f: &mut fmt::Formatter<'_>, outcome: &Outcome) -> fmt::Result {
    match *outcome {
        Outcome::Succeeded => f.write_str("succeeded"),
        Outcome::BudgetExhausted(overrun) => {
            f.write_str("budget:")?;
            match overrun {
                Overrun::ServerDelay(d) => write!(f, "delay:{}", ns(d)),
                Overrun::LocalWait => f.write_str("local"),
                Overrun::WokeLate(d) => write!(f, "late:{}", ns(d)),
                Overrun::Scope(HeldBy::Block { wait, cause }) => {
                    write!(f, "block:{}:{}", ns(wait), cause.name())
                }
                Overrun::Scope(HeldBy::Queue { limit }) => write!(f, "queue:{limit}"),
                Overrun::Scope(HeldBy::RetryTokens) => f.write_str("tokens"),
                Overrun::Scope(HeldBy::MaxWaiting { max }) => write!(f, "crowd:{max}"),
            }
        }
        Outcome::AttemptsExhausted => f.write_str("attempts"),
        Outcome::UserLeft { cancelled } => f.write_str(match cancelled {
            Cancelled::InFlight => "left:in_flight",
            Cancelled::Pending => "left:pending",
        }),
        Outcome::ClockUntrusted { date } => {
            f.write_str("clock:")?;
            escape(f, &date.to_string())
        }
        Outcome::NonRetryableResponse { status } => write!(f, "status:{status}"),
        Outcome::TransportFailure(failure) => f.write_str(match failure {
            TransportFailure::Network => "transport:network",
            TransportFailure::CannotAbort => "transport:abort",
        }),
        Outcome::AttemptTimedOut { cap } => write!(f, "timeout:{}", ns(cap)),
        Outcome::UnreadableResponse(problem) => {
            f.write_str("unreadable:")?;
            match problem {
                BodyProblem::Empty => f.write_str("empty"),
                BodyProblem::NotJson { line, column } => write!(f, "json:{line}:{column}"),
                BodyProblem::WrongShape { line, column } => write!(f, "shape:{line}:{column}"),
                BodyProblem::Truncated { line, column } => write!(f, "cut:{line}:{column}"),
                BodyProblem::TooLarge { limit } => write!(f, "large:{limit}"),
                BodyProblem::Interrupted => f.write_str("interrupted"),
            }
        }
    }
}

/// The outcome from its field, as [`write_outcome`] writes it.
fn read_outcome(text: &str) -> Result<Outcome, HandOverError> {
    let bad = || HandOverError::Field("outcome");
    let parts: Vec<&str> = text.split(':').collect();
    let whole = |i: usize| -> Result<u64, HandOverError> {
        number(parts.get(i).copied(), "outcome").map_err(|_| bad())
    };
    let small = |i: usize| u32::try_from(whole(i)?).map_err(|_| bad());
    let place = |i: usize| usize::try_from(whole(i)?).map_err(|_| bad());
    let span = |i: usize| whole(i).map(Duration::from_nanos);
    let outcome = match parts.as_slice() {
        ["succeeded"] => Outcome::Succeeded,
        ["budget", "delay", _] => Outcome::BudgetExhausted(Overrun::ServerDelay(span(2)?)),
        ["budget", "local"] => Outcome::BudgetExhausted(Overrun::LocalWait),
        ["budget", "late", _] => Outcome::BudgetExhausted(Overrun::WokeLate(span(2)?)),
        ["budget", "block", _, cause] => Outcome::BudgetExhausted(Overrun::Scope(HeldBy::Block {
            wait: span(2)?,
            cause: BlockCause::from_name(cause).ok_or_else(bad)?,
        })),
        ["budget", "queue", _] => {
            Outcome::BudgetExhausted(Overrun::Scope(HeldBy::Queue { limit: small(2)? }))
        }
        ["budget", "tokens"] => Outcome::BudgetExhausted(Overrun::Scope(HeldBy::RetryTokens)),
        ["budget", "crowd", _] => {
            Outcome::BudgetExhausted(Overrun::Scope(HeldBy::MaxWaiting { max: small(2)? }))
        }
        ["attempts"] => Outcome::AttemptsExhausted,
        ["left", "in_flight"] => Outcome::UserLeft {
            cancelled: Cancelled::InFlight,
        },
        ["left", "pending"] => Outcome::UserLeft {
            cancelled: Cancelled::Pending,
        },
        ["clock", date] => Outcome::ClockUntrusted {
            date: HttpDate::parse(&unescape(date, "outcome")?).map_err(|_| bad())?,
        },
        ["status", _] => Outcome::NonRetryableResponse {
            status: u16::try_from(whole(1)?).map_err(|_| bad())?,
        },
        ["transport", "network"] => Outcome::TransportFailure(TransportFailure::Network),
        ["transport", "abort"] => Outcome::TransportFailure(TransportFailure::CannotAbort),
        ["timeout", _] => Outcome::AttemptTimedOut { cap: span(1)? },
        ["unreadable", kind, ..] => Outcome::UnreadableResponse(match (*kind, parts.len()) {
            ("empty", 2) => BodyProblem::Empty,
            ("json", 4) => BodyProblem::NotJson {
                line: place(2)?,
                column: place(3)?,
            },
            ("shape", 4) => BodyProblem::WrongShape {
                line: place(2)?,
                column: place(3)?,
            },
            ("cut", 4) => BodyProblem::Truncated {
                line: place(2)?,
                column: place(3)?,
            },
            ("large", 3) => BodyProblem::TooLarge { limit: whole(2)? },
            ("interrupted", 2) => BodyProblem::Interrupted,
            _ => return Err(bad()),
        }),
        _ => return Err(bad()),
    };
    Ok(outcome)
}

/// A duration field in whole nanoseconds.
fn nanos(text: Option<&str>, name: &'static str) -> Result<Duration, HandOverError> {
    number(text, name).map(Duration::from_nanos)
}
