//! The components rendered on the server (leptos `ssr`, natively): the initial state. Off the
//! browser the read is never driven (the runtime's server driver holds no fetch, no timer and no
//! clock at all), so what a server sends can only be counted at a real server, which an app
//! that renders on one and hydrates in a browser shows. In the browser the same component starts
//! its read on hydration.
#![cfg(not(target_arch = "wasm32"))]

use leptos::prelude::*;
use palette_list::{PaletteList, RetryPolicy};

fn render(view: impl FnOnce() -> String) -> String {
    let owner = Owner::new();
    owner.with(view)
}

#[test]
fn the_screen_renders_its_first_attempt() {
    let base = "https://api.example.com";
    let html = render(|| view! { <PaletteList collection="coast" api_base=base /> }.to_html());
    assert!(html.contains(r#"data-testid="palette-list""#), "{html}");
    assert!(html.contains("<h2>Palettes: coast</h2>"), "{html}");
    assert!(
        html.contains(r#"<p data-testid="attempt" class="status">Attempt 1 of 3</p>"#),
        "{html}"
    );
    assert!(
        html.contains(r#"data-testid="cancel""#),
        "a running read offers Cancel: {html}"
    );
    assert!(!html.contains("Stopped"), "{html}");
    assert!(
        !html.contains(r#"data-testid="trace""#),
        "the embedded screen has no trace panel: {html}"
    );
    // Nothing a strict style-src would block; the live region is empty until the page runs,
    // so hydration finds what the server sent.
    assert!(!html.contains("style="), "{html}");
    let region = html
        .split(r#"data-testid="announce" aria-live="polite">"#)
        .nth(1)
        .and_then(|rest| rest.split("</div>").next())
        .unwrap_or_else(|| panic!("no live region: {html}"));
    assert_eq!(region.trim(), "", "{html}");
}

#[test]
fn the_policy_shapes_what_the_server_renders() {
    const TWO: RetryPolicy = RetryPolicy::new().with_max_attempts(2);
    let html = render(|| view! { <PaletteList collection="a b" policy=TWO /> }.to_html());
    assert!(html.contains("Attempt 1 of 2"), "{html}");
    assert!(html.contains("a b"), "the name is shown as given: {html}");
}

#[test]
fn hostile_palette_data_stays_data() {
    use palette_list::palettes::Palette;
    use palette_list::PaletteGrid;

    let palettes = vec![Palette {
        id: "x".into(),
        name: r#"<img src=x onerror="alert(1)"> & "quotes""#.into(),
        colors: vec![
            "#0B3C5D".into(),
            "red;background:url(http://127.0.0.1:9/x)".into(),
            r#"blue" onmouseover="alert(1)"#.into(),
            "Tomato".into(),
        ],
    }];
    let html = render(|| view! { <PaletteGrid palettes /> }.to_html());
    // The name is text: escaped, no element made of it.
    assert!(!html.contains("<img"), "{html}");
    assert!(html.contains("&lt;img src=x onerror="), "{html}");
    // Only parsed colours are painted, in their rebuilt form, by a presentation attribute that
    // a strict style-src allows; the rest fill nothing. No style attribute at all.
    let fills: Vec<&str> = html
        .split(" fill=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    assert_eq!(fills, ["#0b3c5d", "none", "none", "tomato"], "{html}");
    assert!(!html.contains("style="), "{html}");
    assert_eq!(
        html.matches(r#"data-testid="invalid-swatch""#).count(),
        2,
        "{html}"
    );
    // What is not a colour is text in a title, never markup: outside the titles, no trace.
    let outside_titles: String = html
        .split("<title>")
        .map(|part| part.split_once("</title>").map_or(part, |(_, after)| after))
        .collect();
    assert!(!outside_titles.contains("onmouseover"), "{html}");
}

#[test]
fn the_runtime_has_the_same_items_on_the_server_and_they_are_inert() {
    use leptos_retry_budget::runtime::{now, scope_state, use_budgeted_get, CHANNEL};
    use palette_list::ReadRequest;
    use retry_budget::scope::ScopeState;

    let owner = Owner::new();
    owner.with(|| {
        let read = use_budgeted_get::<Vec<u32>>(
            ReadRequest::get("https://api.example.com/x"),
            RetryPolicy::new(),
        );
        read.try_again();
        read.cancel();
        assert_eq!(
            read.state.get_untracked(),
            leptos_retry_budget::runtime::ReadState::Loading { attempt: 1, of: 3 }
        );
        assert!(read.trace_untracked().is_empty());
    });
    assert_eq!(now(), std::time::Duration::ZERO);
    assert_eq!(
        scope_state("https://api.example.com"),
        ScopeState::default()
    );
    assert_eq!(CHANNEL, "palette-list:scope-ledger:1");
}
