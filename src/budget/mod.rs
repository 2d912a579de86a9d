//! The budget core: pure and deterministic. No clock, no network, no browser: `now` is passed
//! in, and every decision (start, wait, stop) comes from [`ReadAction`].
//!
//! The shape is sans-IO: inputs are `handle_*(now, …)`, outputs are
//! [`ReadAction::poll_action`] and one timer, [`ReadAction::poll_timeout`]. The fixture model
//! and the browser runtime drive this same code. The rules it keeps are in [`crate::contract`].
//!
//! | module | what |
//! |---|---|
//! | `policy` | [`RetryPolicy`]: the budget, its `const fn` builders and its validation |
//! | `retry_after` | [`parse_retry_after`], and the clock evidence for a date ([`receipt_clock`]) |
//! | `http_date` | [`HttpDate`]: the three HTTP-date forms, any year, RFC 850's century |
//! | `action` | [`ReadAction`]: the state machine |
//! | `rate_limit` | [`RateLimitFields`]: what is left of a scope's quota, and when it resets |
//! | `structured` | RFC 9651's List grammar, walked for `RateLimit` |
//! | `scope` | [`ScopeLedger`]: what every request to one API has been told, and its queue |
//! | `trace` | [`Event`]: what the trace records, and how each event reads |
//! | `report` | [`StopReport`]: how an action ended, apart from its last response |
//! | `words` | every sentence the user reads |
//! | `seconds` | how a duration is written, everywhere |

mod action;
mod http_date;
mod policy;
mod rate_limit;
mod report;
mod retry_after;
mod scope;
mod seconds;
mod structured;
mod trace;
pub mod words;

#[cfg(test)]
mod tests;

pub use action::{Phase, ReadAction, Response, Step};
pub use http_date::{HttpDate, MIN_SECS as FIRST_HTTP_DATE};
pub use policy::{
    is_success, Affordance, PolicyError, RetryPolicy, StatusSet, DEFAULT_FALLBACK_WAITS,
    DEFAULT_MAX_BODY_BYTES,
};
pub use rate_limit::{IgnoredField, Quota, QuotaForm, RateLimitFields};
pub use report::{BodyProblem, HeldBack, LastResponse, Outcome, StopReport, StoppedWhile};
pub use retry_after::{
    parse_date_header, parse_retry_after, receipt_clock, HeaderNote, InvalidRetryAfter, RetryAfter,
};
pub use scope::{blocks_scope, BlockWhy, Place, ScopeBlock, ScopeLedger, ScopeState};
pub use seconds::{next_change, seconds, Precision};
pub use trace::{ClockSource, DropReason, Event, Failure, TraceEvent, WaitReason};
