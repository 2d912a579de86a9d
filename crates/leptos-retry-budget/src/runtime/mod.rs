//! The runtime: the budget core driven with real clocks, real fetches and real timers, behind
//! one hook, [`use_budgeted_get`].
//!
//! In the browser (wasm32):
//! - Elapsed time is `performance.now()`; the wall clock for dates is the response's `Date`
//!   (read by the core) or `Date.now()`, which the core uses only where the policy trusts it.
//! - Each attempt is a gloo-net `GET` with its own `AbortController`. The page's one timer
//!   (`Client::poll_timeout`) is a gloo-timers `Timeout`: at an attempt's cap the core stops the action
//!   as `attempt_timed_out` and the fetch is aborted on the wire; at a wait's end the core
//!   rechecks the gate against the time now.
//! - Nothing else retries: gloo-net and `fetch` do not, and this is the one retry owner.
//! - One [`Client`](retry_budget::Client) per page, and so one scope ledger: every read is on a
//!   scope (the policy's [`with_scope`](retry_budget::RetryPolicy::with_scope) name, else the URL's
//!   origin). An answer reaches the ledger before its own action decides; a `429`'s
//!   `Retry-After`, or RateLimit fields that say nothing is left, block the scope, and every
//!   read on it, running or about to start, waits for the block's end or stops at once if
//!   it cannot. Leaving a screen never clears the ledger. [`scope_state`] shows what it knows
//!   of a scope; [`provide_scope_policy`] gives a scope what its reads share (an in-flight
//!   limit, a cap on delayed reads, retry tokens), once, as the app starts.
//! - Identical reads share one action: a screen that mounts while a read of the same URL,
//!   scope, policy and data is loading or waiting joins it, and sees what the others see;
//!   the action stops when the last of its screens leaves, and Try again from any of them
//!   reads again for all. [`with_coalescing(false)`](retry_budget::RetryPolicy::with_coalescing)
//!   turns this off.
//! - Each action has a generation. Only the generation the screen owns updates the view; an
//!   answer for any other goes to its own action, which records it as dropped.
//! - The action starts in an effect, so once the component is mounted (`csr`) or hydrated
//!   (`hydrate`).
//!
//! Each rendering mode is one file with one `Read` (`mode` says what each does), and a build
//! compiles one of them, as `this_mode`: `browser.rs` (CSR), `hydrating.rs` (the page goes on
//! from the server's render), `server.rs` (`ssr`: the render reads) and `inert.rs` (off the
//! browser, without `ssr`). The public items are
//! the same in every mode, and so are the bounds on a read's data and parser ([`ReadData`],
//! [`Parse`]): the features add code, never change a type.
//!
//! Off the browser (server-side rendering, native tests) the same items exist and nothing is
//! driven: a read shows its initial state, makes no request and reads no clock ([`now`] is
//! zero, [`scope_state`] knows nothing). On a server built with `ssr` whose renders are given
//! `ServerReads` (`provide_server_reads`), each read is made as the render starts it, through
//! the process's one `retry_budget_tokio::Client`; what it came to (the data, the stop, or the
//! wait handed over, with its trace) is a Leptos resource's value, which the HTML carries and the
//! hydrating browser takes up as its first action: no request for the data or the stop, the same
//! action resumed for a wait.

use std::time::Duration;

use leptos::prelude::*;
use serde::de::DeserializeOwned;

use retry_budget::body::parse_json;
use retry_budget::request::ReadRequest;
use retry_budget::{RetryPolicy, TraceEvent};

// What a read is and shows, named by every part of the runtime.
mod state;
pub(crate) use state::View;
pub use state::{Misconfigured, Parse, ReadData, ReadState, ServerRefusal};

// The page's rules that need no browser (which reads are one read, the registry of reads),
// compiled on every target so that they are tested natively.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
mod page_rules;

// The page a browser build drives its reads in, and what a build off the browser has instead.
#[cfg(not(target_arch = "wasm32"))]
mod no_page;
#[cfg(target_arch = "wasm32")]
mod page;

// What a server's render knew of a read, as the HTML carries it to the browser.
#[cfg(any(feature = "ssr", feature = "hydrate"))]
mod part;

// What every rendering mode does with a read.
mod mode;
use mode::Mode;

// One rendering mode a build, one file each, under the one name the rest of the runtime uses.
#[cfg(all(target_arch = "wasm32", not(feature = "hydrate")))]
#[path = "browser.rs"]
pub(crate) mod this_mode;
#[cfg(all(target_arch = "wasm32", feature = "hydrate"))]
#[path = "hydrating.rs"]
pub(crate) mod this_mode;
#[cfg(all(not(target_arch = "wasm32"), feature = "ssr"))]
#[path = "server.rs"]
pub(crate) mod this_mode;
#[cfg(all(not(target_arch = "wasm32"), not(feature = "ssr")))]
#[path = "inert.rs"]
pub(crate) mod this_mode;

use this_mode::Read;
pub use this_mode::{now, provide_scope_policy, scope_state, StateSignal};

/// The name of the `BroadcastChannel` a page's tabs share their scopes' blocks on.
pub const CHANNEL: &str = "palette-list:scope-ledger:1";

/// A budgeted `GET` of JSON, as reactive state plus its controls. Cheap to copy.
pub struct BudgetedRead<T: ReadData> {
    /// What to show now.
    pub state: StateSignal<T>,
    /// Changes whenever the current action's trace grows (or a new action starts): track it to
    /// redraw what [`trace`](Self::trace) shows.
    pub traced: ReadSignal<u64>,
    /// The runtime's monotonic clock, refreshed while waiting, for countdowns.
    pub clock: ReadSignal<Duration>,
    read: Read<T>,
}

impl<T: ReadData> Clone for BudgetedRead<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ReadData> Copy for BudgetedRead<T> {}

impl<T: ReadData> BudgetedRead<T> {
    /// Starts a new action with a fresh budget (Try again). Leaves the current one first.
    pub fn try_again(&self) {
        self.read.try_again();
    }

    /// Stops the current action as `user_left` (Cancel): aborts its fetch, clears its timer.
    pub fn cancel(&self) {
        self.read.cancel();
    }
}

impl<T: ReadData> BudgetedRead<T> {
    /// `children`, once what the server knew of this read is known:
    /// [`ReadSuspense`](crate::ReadSuspense) as a call. In the browser it is `children` itself.
    pub fn suspend<V>(self, children: impl Fn() -> V + Send + Sync + 'static) -> impl IntoView
    where
        V: IntoView + 'static,
    {
        self.read.suspend(children)
    }
}

impl<T: ReadData> BudgetedRead<T> {
    /// The current action's trace, read from the page when asked (nothing is copied for a
    /// screen that never shows it); in a reactive context it is read again as it grows. Empty
    /// off the browser.
    pub fn trace(&self) -> Vec<TraceEvent> {
        self.traced.track();
        self.read.trace()
    }

    /// [`trace`](Self::trace), without tracking.
    pub fn trace_untracked(&self) -> Vec<TraceEvent> {
        self.read.trace()
    }
}

/// Reads `request` as JSON under `policy`: one action, started once the calling component is
/// in the browser, and left when that component is cleaned up (unmount or navigation). When the
/// request changes (a signal it is derived from moves), the running action stops as leaving
/// stops it, its trace saying the screen moved on, and a new action with a fresh budget reads
/// the new request. `GET` only: there is no way to send a write. The body is parsed by
/// `serde_json` ([`parse_json`]); to ship without it, give the type's own parser to
/// [`use_budgeted_read`].
///
/// `request` is a [`ReadRequest`] (`ReadRequest::get(url)`, with headers), or a signal of one:
/// `Signal::derive(move || ReadRequest::get(format!("/items?page={}", page.get())))`.
pub fn use_budgeted_get<T>(
    request: impl Into<Signal<ReadRequest>>,
    policy: RetryPolicy,
) -> BudgetedRead<T>
where
    T: DeserializeOwned + ReadData,
{
    use_budgeted_read(request, policy, parse_json::<T>)
}

/// [`use_budgeted_get`] with the body parsed by `parse`, as the Palette List screen parses its
/// data with its own parser (no `serde_json` shipped). `parse` may be any closure. Two
/// identical reads (the same request, scope, policy and data) share one action only where
/// `parse` holds no state (a `fn`, or a closure that captures nothing): then its type says what
/// it does, and is its stable identity.
pub fn use_budgeted_read<T, R>(
    request: impl Into<Signal<ReadRequest>>,
    policy: RetryPolicy,
    parse: R,
) -> BudgetedRead<T>
where
    T: ReadData,
    R: Parse<T>,
{
    let request = request.into();
    let view = View {
        state: RwSignal::new(ReadState::Loading {
            attempt: 1,
            of: policy.max_attempts(),
        }),
        traced: RwSignal::new(0),
        clock: RwSignal::new(Duration::ZERO),
    };
    let read = Read::attach(request, policy, parse, view);
    BudgetedRead {
        state: read.state(),
        traced: view.traced.read_only(),
        clock: view.clock.read_only(),
        read,
    }
}
