#![doc = include_str!("../README.md")]
//!
//! ## Inside
//!
//! Pure and deterministic. No clock, no network, no browser: `now` is passed in, and every
//! decision (start, wait, stop) comes from a [`ReadAction`], one per read; the reads of one
//! client meet the ledger of the APIs they share in a [`Client`].
//!
//! The shape is sans-IO: inputs are `handle_*(now, …)`, outputs are `poll_*`: one step at a
//! time ([`ReadAction::poll_action`], [`Client::poll_event`]) and one timer (`poll_timeout`).
//! The fixture model, the fleet simulator and the browser runtime drive the same [`Client`]. The
//! rules it keeps are in [`contract`].
//!
//! The modules in layers, each importing only from the layers above it in this table:
//!
//! | layer | module | what |
//! |---|---|---|
//! | 1, leaves | `seconds` | how a duration is written, everywhere |
//! | | `http_date` | [`HttpDate`]: the three HTTP-date forms, any year, RFC 850's century |
//! | | `shown` | how a value a server sent is shown to a reader ([`quoted`]) |
//! | | `block` | [`ScopeBlock`]: no attempt on a scope starts before its end |
//! | | `random` | [`SplitMix64`]: the seeded random numbers jitter is drawn from |
//! | | `scope_map` | where the ledger keeps its scopes by name: a list in a browser, a hash map on a server |
//! | 2, rules and parsers | `policy` | [`RetryPolicy`]: one read's budget, its `const fn` builders and its validation |
//! | | `scope_policy` | [`ScopePolicy`]: what one scope's reads share (in flight, delayed, retry tokens) |
//! | | `clock` | the clock evidence that dates a receipt ([`receipt_clock`]) |
//! | | `retry_after` | [`parse_retry_after`] |
//! | | `rate_limit` | [`RateLimitFields`]: what is left of a scope's quota, and when it resets (`RateLimit` parsed by `sfv`) |
//! | 3, what an answer says | `response` | [`Response`], read once for the ledger and the action |
//! | | `wait` | [`WaitReason`]: why a wait is as long as it is; a valid hint made a delay |
//! | | `report` | [`StopReport`]: how a read ended ([`Outcome`], each with its own facts), apart from its last response |
//! | 4, records and ledger | `trace` | [`Event`]: what the trace records, and how each event reads |
//! | | `words` | every sentence the user reads, private; read through [`StopMessage`] and [`Progress`] |
//! | | `scope` | the scope ledger: what every request to one API has been told, and its queue |
//! | | `hand_over` | [`HandOver`]: a read handed from a server's render to the browser, as text |
//! | | `handed_stop` | [`HandedStop`]: a read's stop handed over the same way, its report whole |
//! | | `handed_trace` | [`HandedTrace`]: a read's trace handed over the same way, every event whole |
//! | 5, one read | `action` | [`ReadAction`]: one read's state machine |
//! | 6, one client | `client` | [`Client`]: a client's reads and their ledger (a browser page's, a server process's), and the rules of their meeting |
//!
//! Beside the layers, what a driver needs around them: [`request`] (what a read sends, checked
//! before anything is sent), [`body`] (the one rule for reading a 2xx body) and [`timeline`]
//! (an action drawn from its trace alone).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod action;
mod block;
mod client;
mod clock;
mod hand_over;
mod handed_stop;
mod handed_trace;
mod http_date;
mod policy;
mod random;
mod rate_limit;
mod report;
mod response;
mod retry_after;
mod scope;
mod scope_map;
mod scope_policy;
mod seconds;
mod shown;
mod trace;
mod wait;
mod words;

pub mod body;
pub mod request;
pub mod timeline;

#[doc = include_str!("../docs/contract.md")]
pub mod contract {}

#[cfg(test)]
mod test_clock;
#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[cfg(test)]
mod tests;

pub use action::{Phase, ReadAction, Step};
pub use block::{BlockCause, ScopeBlock};
pub use client::{Client, ClientEvent, ReadId};
pub use clock::{parse_date_header, receipt_clock, ClockSource};
pub use hand_over::{HandOver, HandOverError};
pub use handed_stop::HandedStop;
pub use handed_trace::{handed_trace, parse_trace, HandedTrace};
pub use http_date::{HttpDate, MIN_SECS as FIRST_HTTP_DATE};
pub use policy::{
    is_success, FittingAttempts, PolicyError, Priority, RetryPolicy, StatusSet,
    DEFAULT_FALLBACK_WAITS, DEFAULT_MAX_BODY_BYTES,
};
pub use random::SplitMix64;
pub use rate_limit::{IgnoredField, Quota, QuotaForm, RateLimitFields};
pub use report::{
    BodyProblem, Cancelled, HeldBy, LastResponse, Outcome, OutcomeKind, Overrun, StopReport,
    TransportFailure,
};
pub use response::Response;
pub use retry_after::{parse_retry_after, HeaderNote, InvalidRetryAfter, RetryAfter};
pub use scope::{RetryPurse, ScopeState};
pub use scope_policy::{RetryTokens, ScopePolicy, ScopePolicyError};
pub use seconds::{next_change, seconds_text, Precision};
pub use shown::quoted;

#[cfg(feature = "json")]
pub use body::parse_json;
pub use body::LimitedBody;
pub use request::{Credentials, ReadRequest, RequestError};
pub use trace::{DropReason, Event, Failure, TraceEvent};
pub use wait::WaitReason;
pub use words::{MessageLine, Progress, StopMessage};
