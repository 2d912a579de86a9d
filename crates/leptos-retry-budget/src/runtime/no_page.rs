//! Off the browser (a server's render, native code) there is no page: no page clock, and no
//! page ledger. A server's ledger is its `retry_budget_tokio::Client`'s.

use std::time::Duration;

use retry_budget::scope::{ScopePolicyError, ScopeState};
use retry_budget::ScopePolicy;

/// The runtime's monotonic clock; off the browser there is none to read, and it stays at
/// zero (as a read's `clock` does).
pub fn now() -> Duration {
    Duration::ZERO
}

/// What the page's ledger knows of `scope`; off the browser there is no page, so nothing (the
/// state of a scope no answer has reached). A server's ledger is its
/// `retry_budget_tokio::Client`'s.
pub fn scope_state(_scope: &str) -> ScopeState {
    ScopeState::default()
}

/// Gives `scope` the policy its reads on the page share; off the browser there is no page,
/// so the policy is only checked (an invalid one is refused, by name, as in the browser).
pub fn provide_scope_policy(_scope: &str, policy: ScopePolicy) -> Result<(), ScopePolicyError> {
    policy.validate()
}
