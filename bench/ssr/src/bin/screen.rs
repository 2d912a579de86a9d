//! The app's routes with one `<PaletteList>` on `/`: the second of the SSR size pair.

#[cfg(target_arch = "wasm32")]
fn main() {
    use leptos::prelude::*;
    use palette_list::PaletteList;

    bench_ssr::hydrate(|| {
        view! {
            <h1>"Palettes"</h1>
            <PaletteList collection="coast" api_base="/api" />
        }
    });
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("A browser app: scripts/bench.sh builds it for wasm32.");
    std::process::exit(2);
}
