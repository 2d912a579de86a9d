//! Palette List: a finite retry budget for reading from a rate-limited API.
//!
//! - [`budget`]: the pure core that decides start / wait / stop, with `now` passed in.
//! - [`model`]: reads the fixture format and replays each case through the core on a virtual
//!   clock.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod budget;
pub mod model;

#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// The README's examples, compiled and run as doc-tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
