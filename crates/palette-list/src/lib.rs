//! The Palette List screen: a collection of colour palettes read from a rate-limited API under a
//! finite retry budget. Embedding it in a Leptos app:
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
//! The screen is made of the generic parts of [`leptos_retry_budget`] (the hook, the status,
//! the countdown, the stop message, the announcer), whose rules are [`retry_budget`]'s; this
//! crate adds the palettes: their data and parser ([`palettes`]), and the screen ([`screen`]).
//!
//! - [`PaletteList`]: the screen, reading its own collection.
//! - [`PaletteListView`]: what the screen shows for a read the app owns (to add a
//!   [`TracePanel`], or to send headers).
//! - [`PaletteGrid`]: the palettes, with colour swatches that paint only what is a colour.
//!
//! Rendering modes: the crate enables none; turn on `csr`, `hydrate` or `ssr` as your app does.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod palettes;
pub mod screen;
mod words;

#[cfg(all(not(target_arch = "wasm32"), feature = "ssr"))]
pub use leptos_retry_budget::{provide_server_reads, ServerReads};
pub use leptos_retry_budget::{
    use_budgeted_get, use_budgeted_read, Announcer, BudgetedRead, Countdown, ReadState, ReadStatus,
    ReadSuspense, StopMessage, Timeline, TracePanel,
};
pub use retry_budget::{ReadRequest, RetryPolicy, ScopePolicy};
pub use screen::{PaletteGrid, PaletteList, PaletteListView};

#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
