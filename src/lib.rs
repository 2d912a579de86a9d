//! A finite retry budget for reading from a rate-limited API, and the Leptos screen that shows
//! it. Embedding the Palette List screen in a Leptos app:
//!
//! ```
//! use std::time::Duration;
//! use leptos::prelude::*;
//! use palette_list::{PaletteList, RetryPolicy};
//!
//! /// 10 s in all, at most 2 attempts; the rest is the default (4 s cap, retry 429, 1 s floor).
//! const POLICY: RetryPolicy =
//!     RetryPolicy::new().with_budget(Duration::from_secs(10)).with_max_attempts(2);
//!
//! #[component]
//! fn Palettes() -> impl IntoView {
//!     view! { <PaletteList collection="coast" api_base="https://api.example.com" policy=POLICY /> }
//! }
//! ```
//!
//! Every read is one action with its own budget: a total deadline, a number of attempts, and a
//! per-attempt cap reserved in full before every start. `Retry-After` is honoured exactly and
//! never shortened; a wait that cannot fit stops the action at once; leaving the screen aborts
//! the fetch and clears the timer; every end is explained, with the outcome and the last
//! response kept apart. The whole contract is [`contract`].
//!
//! A rate limit belongs to the API, not to a screen: reads on one scope (by default the URL's
//! origin; [`RetryPolicy::with_scope`] names another) meet in the page's
//! [`Page`](budget::Page), whose ledger other tabs hear of. A `429`, or
//! RateLimit fields that say nothing is left, hold back every read on the scope, which waits
//! for the block's end if it fits its own budget and stops at once otherwise; identical reads
//! share one action ([`RetryPolicy::with_coalescing`]); [`RetryPolicy::with_jitter`] spreads
//! the reads a block held back. For a fleet of browsers on one quota, a scope can also cap its
//! delayed reads ([`RetryPolicy::with_max_waiting`]), serve interactive reads before
//! background ones ([`RetryPolicy::with_priority`]), make retries spend tokens that successes
//! earn back ([`RetryPolicy::with_retry_tokens`]), and draw fallback waits with full jitter
//! ([`RetryPolicy::with_full_jitter`]); the README's fleet table shows what each buys.
//!
//! - [`budget`]: the pure core that decides start / wait / stop, with `now` passed in.
//! - [`runtime`]: drives the core in the browser ([`use_budgeted_get`] for any JSON `GET`).
//! - [`request`]: what a read sends: its URL, headers and credentials mode.
//! - [`body`]: the one rule for reading a 2xx body (a size limit, then JSON, or where not).
//! - [`components`]: the Palette List screen and the parts it is made of.
//! - [`timeline`]: the action drawn as a picture, from its trace alone.
//! - [`palettes`]: the API's data.
//!
//! Rendering modes: the crate enables none; turn on `csr`, `hydrate` or `ssr` as your app does.
//! On the server the components render their initial state ("Attempt 1 of 3") and make no
//! request; in the browser the read starts when the component is mounted or hydrated.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod body;
pub mod budget;
pub mod components;
pub mod palettes;
pub mod request;
pub mod runtime;
pub mod timeline;

#[doc = include_str!("../docs/contract.md")]
pub mod contract {}

pub use budget::RetryPolicy;
pub use components::{
    Announcer, Countdown, PaletteGrid, PaletteList, PaletteListView, ReadStatus, StopMessage,
    Timeline, TracePanel,
};
pub use request::ReadRequest;
pub use runtime::{use_budgeted_get, use_budgeted_read, BudgetedRead, ReadState};

#[cfg(test)]
mod test_clock;

#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// The README's examples, compiled and run as doc-tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
