//! A CSR page: the page drives every read from its first attempt; no server rendered it, so
//! nothing comes from one, and none of the code that takes a server's read up is compiled.

use leptos::prelude::*;

use super::mode::Mode;
use super::page::Driver;
use super::state::{Parse, ReadData, ReadState, View};
use retry_budget::{ReadRequest, RetryPolicy, TraceEvent};

pub use super::page::{now, provide_scope_policy, scope_state};

/// What a read's state is read through: the page's own signal, which the runtime writes.
pub type StateSignal<T> = ReadSignal<ReadState<T>>;

/// A read in a CSR page.
pub(crate) struct Read<T: ReadData> {
    driver: Driver<T>,
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
        request: Signal<ReadRequest>,
        policy: RetryPolicy,
        parse: R,
        view: View<T>,
    ) -> Self {
        Read {
            driver: Driver::attach(request, policy, parse, view, None),
            state: view.state.read_only(),
        }
    }

    fn state(&self) -> Self::State {
        self.state
    }

    fn try_again(&self) {
        self.driver.try_again();
    }

    fn cancel(&self) {
        self.driver.cancel();
    }

    /// The page's own: no server began a read here.
    fn trace(&self) -> Vec<TraceEvent> {
        self.driver.trace(|_| Vec::new())
    }

    /// `children` themselves: there is no server to wait for.
    fn suspend<V: IntoView + 'static>(
        self,
        children: impl Fn() -> V + Send + Sync + 'static,
    ) -> impl IntoView {
        children()
    }
}
