//! What an app pays to embed the Palette List screen: it mounts `<PaletteList collection="coast"/>`
//! and nothing else. `scripts/bench.sh` builds it beside the counter baseline.

#[cfg(target_arch = "wasm32")]
fn main() {
    use leptos::prelude::*;
    use palette_list::PaletteList;

    mount_to_body(|| view! { <PaletteList collection="coast" /> });
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("A browser app: scripts/bench.sh builds it with trunk.");
    std::process::exit(2);
}
