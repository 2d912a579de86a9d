//! Embedding the budgeted read in another Leptos app: the Palette List screen as it is, and the
//! hook behind it for any other JSON `GET`, shown with the same status switch. Checked by
//! `cargo clippy --target wasm32-unknown-unknown --all-targets`; natively it only says where it
//! runs.

#[cfg(target_arch = "wasm32")]
fn main() {
    use std::time::Duration;

    use leptos::prelude::*;
    use palette_list::{use_budgeted_get, PaletteList, ReadRequest, ReadStatus, RetryPolicy};

    /// A tighter budget than the default, built in a `const`.
    const POLICY: RetryPolicy = RetryPolicy::new()
        .with_budget(Duration::from_secs(10))
        .with_max_attempts(2);

    /// Any other JSON read gets the same behaviour through the hook.
    #[component]
    fn Status() -> impl IntoView {
        let read = use_budgeted_get::<serde_json::Value>(ReadRequest::get("/status.json"), POLICY);
        view! { <ReadStatus read loaded=|data: serde_json::Value, _| data.to_string() /> }
    }

    mount_to_body(|| {
        view! {
            <PaletteList collection="coast" api_base="https://api.example.com" policy=POLICY />
            <Status />
        }
    });
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("This example runs in the browser (wasm32-unknown-unknown).");
}
