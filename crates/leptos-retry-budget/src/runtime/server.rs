//! Off the browser (a server's render, native tests) nothing is driven: a read shows its first
//! state, or on a server that reads while it renders (`ssr` with `ServerReads`) what its read
//! in the render came to ([`FromServer`]). There is no page clock here.

use std::time::Duration;

use leptos::prelude::Signal;

use super::from_server::{FromServer, Part};
use super::state::{ReadData, View};
use retry_budget::request::ReadRequest;
use retry_budget::scope::{ScopePolicyError, ScopeState};
use retry_budget::{RetryPolicy, ScopePolicy, TraceEvent};

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

/// Off the browser a read is never driven; its trace is what the server's read did.
pub(super) struct Driver<T: ReadData>(FromServer<T>);

impl<T: ReadData> Clone for Driver<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ReadData> Copy for Driver<T> {}

impl<T: ReadData> Driver<T> {
    pub(super) fn attach<R>(
        _request: Signal<ReadRequest>,
        _policy: RetryPolicy,
        _parse: R,
        _view: View<T>,
        _part: Option<Part<T>>,
        from_server: FromServer<T>,
    ) -> Self {
        Driver(from_server)
    }

    pub(super) fn try_again(&self) {}

    pub(super) fn cancel(&self) {}

    pub(super) fn trace(&self) -> Vec<TraceEvent> {
        self.0.trace()
    }
}
