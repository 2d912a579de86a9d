//! The fixture model of the Palette List read: reads fixture files, replays each case through the
//! same budget core on a virtual clock, and judges the result against the case's `expect`.
//! There is no second implementation of the rules here; every decision is the core's.
//!
//! - [`fixture`]: the format, parsed strictly, with the one rule for a case's clock evidence
//!   ([`Case::client_policy`], [`Case::wall_clock_at`]).
//! - [`replay()`]: a case through the core, as a trace and the `expect` values derived from it;
//!   [`replay_scope`]: several actions on one scope, through one ledger, as a page runs them;
//!   [`Replay::to_json`] writes one as JSON.
//! - [`expect`]: the `expect` contract: keys, comparison, absent keys; [`judge`]: the verdicts
//!   on a case, a scope and an invalid fixture.
//! - The `replay` binary: `replay FILE [--json]`.
//!
#![doc = include_str!("../FORMAT.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod data;
pub mod expect;
pub mod fixture;
pub mod judge;
mod replay;
mod replay_json;
mod values;

pub use data::parse_data;
pub use fixture::{
    Answer, Attempt, Body, Case, CaseError, Fixture, FixtureError, InvalidFixture, Request,
    ScopeAction, ScopeCase,
};
pub use replay::{replay, replay_scope, scope_timeline, timeline, Replay, ScopeReplay};
