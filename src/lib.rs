//! Palette List: a finite retry budget for reading from a rate-limited API.
//!
//! - [`budget`]: the pure core that decides start / wait / stop, with `now` passed in.
//! - [`model`]: reads the fixture format and replays each case through the core on a virtual
//!   clock.
//! - [`palettes`]: the API's data.
//! - `runtime` (wasm): drives the core in the browser with `performance.now()`, gloo-net fetches
//!   with an `AbortController` each, and gloo-timers.
//! - `components` (wasm): the Palette List screen, the countdown, the stop message and the trace
//!   panel, for any Leptos app to embed.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod budget;
pub mod model;
pub mod palettes;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(target_arch = "wasm32")]
pub mod runtime;

#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// The README's examples, compiled and run as doc-tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
