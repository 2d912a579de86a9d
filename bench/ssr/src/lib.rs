//! The browser side of a server-rendered app laid out as `leptos-rs/start-axum` lays one out,
//! with the router and two routes, for the SSR size pair: `bench-ssr-routes` hydrates it with
//! a heading on `/`, `bench-ssr-screen` with the same heading and one `<PaletteList>` beneath.
//! The difference is what the screen costs a server-rendered app.

#[cfg(target_arch = "wasm32")]
pub use app::hydrate;

#[cfg(target_arch = "wasm32")]
mod app {
    use leptos::prelude::*;
    use leptos_router::components::{Route, Router, Routes, A};
    use leptos_router::path;

    /// Hydrates the app, with `home` on `/`.
    pub fn hydrate<V: IntoView + 'static>(home: fn() -> V) {
        leptos::mount::hydrate_body(move || {
            view! {
                <Router>
                    <nav>
                        <A href="/">"Palettes"</A>
                        " "
                        <A href="/about">"About"</A>
                    </nav>
                    <main>
                        <Routes fallback=|| "Nothing here.">
                            <Route path=path!("/") view=home />
                            <Route path=path!("/about") view=|| view! { <h1>"About"</h1> } />
                        </Routes>
                    </main>
                </Router>
            }
        });
    }
}
