#![doc = include_str!("../README.md")]
//!
//! ## Inside
//!
//! - `client`: [`Client`], one process's reads and the one ledger they share, with its one
//!   timer task; the rules are all the core's ([`retry_budget::Client`]).
//! - `attempt`: one attempt on the wire, through `reqwest`: the headers the core reads (for the
//!   middleware and the layer too), and a 2xx body streamed up to its limit under the core's
//!   body rule ([`retry_budget::body::LimitedBody`]).
//! - `origins`: the origins a server may read, and the URLs it refuses.
//! - `observe`: what an operator sees through `tracing`: a span per read
//!   (`retry_budget.read`: scope, attempts, outcome) and an event per decision.
//! - `share`: what a process's ledger tells the other processes' ([`LedgerShare`]), opt-in.
//! - `error`: why a read did not load.
//! - `middleware` (feature `middleware`): [`Budget`], the same reads as `reqwest_middleware`
//!   middleware, each attempt sent by the rest of the chain.
//! - `layer` (feature `tower`): `BudgetLayer`, the same reads around any `tower` service of
//!   `http` requests, each attempt a call to a clone of the inner service.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod attempt;
mod client;
mod error;
#[cfg(feature = "tower")]
mod layer;
#[cfg(feature = "middleware")]
mod middleware;
mod observe;
mod origins;
mod share;

pub use client::{Client, Loaded, ReadRecord, Served};
pub use error::{OriginError, ReadError};
#[cfg(feature = "tower")]
pub use layer::{BoxError, BudgetLayer, BudgetService, LayerStopped};
#[cfg(feature = "middleware")]
pub use middleware::{Budget, NotResendable, Stopped};
pub use origins::AllowedOrigins;
pub use share::{LedgerShare, SharedBlock};

// The core's types this crate's API takes and gives, so that an app needs no second import
// path for them (and no second version of the core).
#[cfg(feature = "json")]
pub use retry_budget::body::parse_json;
pub use retry_budget::body::BodyProblem;
pub use retry_budget::policy::{PolicyError, Priority, StatusSet};
pub use retry_budget::report::{self, Outcome, StopReport};
pub use retry_budget::request::{ReadRequest, RequestError};
pub use retry_budget::scope::{
    BlockCause, Lease, RetryPurse, ScopeBlock, ScopePolicy, ScopePolicyError, ScopeState,
    TokenTaken,
};
pub use retry_budget::{HandOver, RetryPolicy, TraceEvent};
