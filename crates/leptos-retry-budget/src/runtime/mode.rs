//! What every rendering mode does with a read, one file a mode, each a `Read` that implements
//! [`Mode`]: `browser` (a CSR page drives it), `hydrating` (the page goes on from what the
//! server's render knew), `server` (the render reads it, `ssr`) and `inert` (a render that does
//! not read, and native code). The runtime compiles the one this build has; each also gives the
//! page's clock and ledger (`now`, `scope_state`, `provide_scope_policy`) and the type a read's
//! state is read through (`StateSignal`).

use leptos::prelude::*;

use super::state::{Parse, ReadData, View};
use retry_budget::{ReadRequest, RetryPolicy, TraceEvent};

/// A read as one rendering mode carries it, from the component that sets it up.
pub(crate) trait Mode<T: ReadData>: Copy + 'static {
    /// What the read's views read its state through (the mode's `StateSignal`).
    type State;

    /// Sets up the read of `request` under `policy` in the current component, its bodies read
    /// by `parse`; what it shows is written to `view`.
    fn attach<R: Parse<T>>(
        request: Signal<ReadRequest>,
        policy: RetryPolicy,
        parse: R,
        view: View<T>,
    ) -> Self;

    /// What the read's views read its state through.
    fn state(&self) -> Self::State;

    /// Starts a new action with a fresh budget, leaving the current one first.
    fn try_again(&self);

    /// Stops the current action as the user leaving it.
    fn cancel(&self);

    /// The current action's trace, copied when asked.
    fn trace(&self) -> Vec<TraceEvent>;

    /// `children`, once what the server knew of the read is known.
    fn suspend<V: IntoView + 'static>(
        self,
        children: impl Fn() -> V + Send + Sync + 'static,
    ) -> impl IntoView;
}
