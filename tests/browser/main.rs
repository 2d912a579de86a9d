//! The browser suites: the runtime and the components in headless Chromium and Firefox, in real
//! time, against the scenario API on loopback (started by `scripts/test.sh browser`, which bakes
//! its URL in at compile time as `SCENARIO_API`). The server counts requests on the wire.
//!
//! One test binary, a file a subject; what the suites share is in `support`. Rules that need no
//! browser are tested natively, in the core's and the model's suites.
#![cfg(target_arch = "wasm32")]

#[path = "../../model/tests/common/mod.rs"]
mod common;
mod support;

mod bodies;
mod coalescing;
mod fixtures;
mod leaving;
mod requests;
mod scopes;
mod screen;
mod tabs;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
