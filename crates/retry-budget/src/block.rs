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

impl BlockCause {
    /// Its name in every text that carries a block to another client (a hand-over, another
    /// tab, a store processes share): `429` or `quota`.
    pub const fn name(self) -> &'static str {
        match self {
            BlockCause::TooManyRequests => "429",
            BlockCause::QuotaSpent => "quota",
        }
    }

    /// The cause with this [`name`](Self::name); `None` for any other text.
    pub fn from_name(name: &str) -> Option<BlockCause> {
        [BlockCause::TooManyRequests, BlockCause::QuotaSpent]
            .into_iter()
            .find(|c| c.name() == name)
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn each_cause_reads_back_from_its_name_and_nothing_else_does() {
        for cause in [BlockCause::TooManyRequests, BlockCause::QuotaSpent] {
            assert_eq!(BlockCause::from_name(cause.name()), Some(cause));
        }
        assert_eq!(BlockCause::from_name("Quota"), None);
        assert_eq!(BlockCause::from_name(""), None);
    }
}
