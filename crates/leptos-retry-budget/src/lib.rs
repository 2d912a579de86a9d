#![doc = include_str!("../README.md")]
//!
//! ## Inside
//!
//! - [`runtime`]: the core driven in the browser ([`use_budgeted_read`], [`use_budgeted_get`]);
//!   on the server the same items render the first state and send nothing, or, with `ssr` and
//!   `ServerReads` provided to the render, read while it renders and hand what they learnt
//!   to the browser.
//! - [`components`]: the parts a screen is made of: [`ReadStatus`], [`Countdown`],
//!   [`StopMessage`], [`Announcer`], [`TracePanel`] and [`Timeline`], and [`ReadSuspense`],
//!   which holds a view of a read until the server's part of it is known.
//! - [`HydratesAtOnce`]: a screen's own views, hydrated at once where an app hydrates
//!   asynchronously, so a router's erased route compiles no second hydration of them.
//!
//! Rendering modes: the crate enables none; turn on `csr`, `hydrate` or `ssr` as your app does.
//! In the browser the read starts, or goes on from the server's, when the component is mounted
//! or hydrated.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod at_once;
pub mod components;
pub mod runtime;

// The Leptos line the crate is built against, as build.rs reads it from the manifest: one file
// a line, the few things Leptos 0.9 does another way than 0.8.
#[cfg_attr(not(leptos_0_9), path = "leptos_line/v0_8.rs")]
#[cfg_attr(leptos_0_9, path = "leptos_line/v0_9.rs")]
mod leptos_line;

pub use at_once::HydratesAtOnce;
pub use components::{
    Announcer, Countdown, ReadStatus, ReadSuspense, StopMessage, Timeline, TracePanel,
};
pub use retry_budget::scope::RetryTokens;
pub use retry_budget::{ReadRequest, RetryPolicy, ScopePolicy};
#[cfg(all(not(target_arch = "wasm32"), feature = "ssr"))]
pub use runtime::this_mode::{provide_server_reads, ServerReads};
pub use runtime::{
    provide_scope_policy, use_budgeted_get, use_budgeted_read, BudgetedRead, ReadData, ReadState,
};

#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
