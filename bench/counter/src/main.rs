//! The size baseline: Leptos's counter, with nothing of this project. `scripts/bench.sh` builds
//! it beside the app that embeds the Palette List screen, to show what embedding costs.

#[cfg(target_arch = "wasm32")]
fn main() {
    use leptos::prelude::*;

    /// A button that counts its clicks.
    #[component]
    fn Counter() -> impl IntoView {
        let count = RwSignal::new(0);
        view! {
            <button on:click=move |_| *count.write() += 1>"Clicked " {count} " times"</button>
        }
    }

    mount_to_body(|| view! { <Counter /> });
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("A browser app: scripts/bench.sh builds it with trunk.");
    std::process::exit(2);
}
