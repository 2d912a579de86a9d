//! The demo app's entry point: it only mounts [`palette_list_demo::App`]. Built by trunk.

#[cfg(target_arch = "wasm32")]
fn main() {
    use leptos::prelude::*;
    use palette_list_demo::App;

    console_error_panic_hook::set_once();
    mount_to_body(|| view! { <App /> });
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("The demo app runs in the browser: start it with `bash scripts/demo.sh`.");
    std::process::exit(2);
}
