//! A block on a scope: no attempt on it starts before its end. What the ledger learns and every
//! action on the scope reads; a leaf, so the trace, the report and the words can name it.

use std::time::Duration;

/// Whether a response with this status blocks its whole scope: a `429` says the client exceeded
/// the scope's limit. A `503` does not: it may be one endpoint's or one region's trouble.
pub const fn blocks_scope(status: u16) -> bool {
    status == 429
}

/// Why a scope is blocked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockCause {
    /// A `429` with a valid `Retry-After`.
    TooManyRequests,
    /// The RateLimit fields said nothing is left of the quota until its reset (pacing, before
    /// any `429`).
    QuotaSpent,
}

/// No attempt on a scope starts before `until` (the driver's monotonic clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScopeBlock {
    /// When the block ends.
    pub until: Duration,
    /// The delay the service gave, counted from the answer that set the block.
    pub asked: Duration,
    /// Why.
    pub cause: BlockCause,
}
