//! Palette List in a server-rendered Leptos app, laid out as `leptos-rs/start-axum` lays one
//! out: [`app`] is rendered on the server by `leptos_axum` (feature `ssr`) and hydrated in the
//! browser (feature `hydrate`, [`hydrate`]). The server also serves the rate-limited API the
//! screens read ([`api`]), or forwards the browser's reads to one in another process
//! ([`forward`]), which several replicas share.

pub mod app;
pub mod baseline;

#[cfg(feature = "ssr")]
pub mod api;
#[cfg(feature = "ssr")]
mod csp;
#[cfg(feature = "ssr")]
pub mod forward;

/// The browser's entry point: hydrates the server's HTML into the live app.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    leptos::mount::hydrate_body(app::App);
}
