//! The app's routes with no screen: the first of the SSR size pair.

#[cfg(target_arch = "wasm32")]
fn main() {
    use leptos::prelude::*;

    bench_ssr::hydrate(|| view! { <h1>"Palettes"</h1> });
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("A browser app: scripts/bench.sh builds it for wasm32.");
    std::process::exit(2);
}
