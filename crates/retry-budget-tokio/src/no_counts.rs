//! Without the `metrics` feature nothing is counted: each of `counts.rs`'s calls is empty.

use std::time::Duration;

use retry_budget::report::OutcomeKind;
use retry_budget::scope::BlockCause;

pub(crate) fn read_stopped(_: OutcomeKind) {}
pub(crate) fn read_left() {}
pub(crate) fn attempt_answered(_: Option<u16>) {}
pub(crate) fn block_learned(_: BlockCause) {}
pub(crate) fn handed_over() {}
pub(crate) fn wait_planned(_: Duration, _: Option<Duration>) {}
