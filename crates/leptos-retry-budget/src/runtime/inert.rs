//! Off the browser without `ssr` (a server whose renders do not read, native code and tests):
//! a read shows its first state and is never driven; nothing is sent, and no clock is read.

use leptos::prelude::*;

use super::mode::Mode;
use super::state::{Parse, ReadData, ReadState, View};
use retry_budget::{ReadRequest, RetryPolicy, TraceEvent};

pub use super::no_page::{now, provide_scope_policy, scope_state};

/// What a read's state is read through: a signal of its first state, which nothing writes.
pub type StateSignal<T> = Signal<ReadState<T>>;

/// A read that is never driven.
pub(crate) struct Read<T: ReadData> {
    state: StateSignal<T>,
}

impl<T: ReadData> Clone for Read<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ReadData> Copy for Read<T> {}

impl<T: ReadData> Mode<T> for Read<T> {
    type State = StateSignal<T>;

    fn attach<R: Parse<T>>(
        _request: Signal<ReadRequest>,
        _policy: RetryPolicy,
        _parse: R,
        view: View<T>,
    ) -> Self {
        Read {
            state: view.state.read_only().into(),
        }
    }

    fn state(&self) -> Self::State {
        self.state
    }

    fn try_again(&self) {}

    fn cancel(&self) {}

    /// Empty: nothing was read.
    fn trace(&self) -> Vec<TraceEvent> {
        Vec::new()
    }

    fn suspend<V: IntoView + 'static>(
        self,
        children: impl Fn() -> V + Send + Sync + 'static,
    ) -> impl IntoView {
        children()
    }
}
