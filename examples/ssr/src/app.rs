//! The app: the shell the server renders around it, and its routes. `/` has two screens on
//! one rate-limited API: `<PaletteList>` as it comes, and a read of the app's own making that
//! sends a key header and follows the page's query; `/streamed` is the same page streamed
//! out of order, Leptos's default. `/about` is somewhere else to go.

use crate::baseline::Baseline;
use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes, A};
use leptos_router::hooks::use_query_map;
use leptos_router::{path, SsrMode};
use palette_list::palettes::{palettes_url, PaletteCollection};
use palette_list::{
    use_budgeted_read, PaletteList, PaletteListView, ReadRequest, RetryPolicy, TracePanel,
};

/// The header this app's reads carry, and its value (a real app's would come from its session).
pub const KEY_HEADER: &str = "X-Api-Key";
/// See [`KEY_HEADER`].
pub const API_KEY: &str = "ssr-example-key-3f9d";

/// The whole page, as the server sends it: `HydrationScripts` loads `pkg/{output name}.js` and
/// hydrates [`App`]. On the server it also sets the page's Content-Security-Policy, with a nonce
/// of its own for the hydration script.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    crate::csp::set_policy();
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <title>"Palette List, rendered on the server"</title>
                <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
                <link rel="stylesheet" href="/style.css" />
                <HydrationScripts options />
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

/// The app's routes.
#[component]
pub fn App() -> impl IntoView {
    view! {
        <Router>
            <nav>
                <A href="/">"Palettes"</A>
                " "
                <A href="/about">"About"</A>
            </nav>
            <main>
                <Routes fallback=|| "Nothing here.">
                    // In order: the screens' reads finish on the server before their part of
                    // the page is sent, so the HTML holds the palettes (or the stop, or the
                    // wait) for readers without scripts too.
                    <Route path=path!("/") view=Palettes ssr=SsrMode::InOrder />
                    // Leptos's default: the rest of the page streams on, and each screen's
                    // part follows when its read has come to something.
                    <Route path=path!("/streamed") view=Palettes />
                    <Route path=path!("/about") view=About />
                    // The load bench's baseline: the same palettes, read without this crate.
                    <Route path=path!("/baseline") view=Baseline ssr=SsrMode::InOrder />
                </Routes>
            </main>
        </Router>
    }
}

/// Two screens on one API, which the page's ledger holds back together.
#[component]
fn Palettes() -> impl IntoView {
    let query = use_query_map();
    let collection = Signal::derive(move || {
        query
            .read()
            .get("collection")
            .unwrap_or_else(|| "dune".into())
    });
    let (clicks, set_clicks) = signal(0u32);
    view! {
        <h1>"Palettes"</h1>
        <p>
            <button data-testid="clicks" on:click=move |_| *set_clicks.write() += 1>
                {move || format!("Clicks: {}", clicks.get())}
            </button>
        </p>
        <p>
            "Another collection: " <A href="/?collection=harbour">"harbour"</A> " "
            <A href="/?collection=dune">"dune"</A>
        </p>
        <div id="coast">
            <PaletteList collection="coast" api_base="/api" />
        </div>
        <div id="keyed">
            <KeyedPalettes collection />
        </div>
    }
}

/// The app's own read: its key on every attempt, its URL following `?collection=`. Its read
/// starts after the screen above has rendered, as a second screen's usually does, so the
/// browser finds the server's part of it past everything the first screen's views took.
#[component]
fn KeyedPalettes(collection: Signal<String>) -> impl IntoView {
    let request = Signal::derive(move || {
        ReadRequest::get(palettes_url("/api", &collection.read())).with_header(KEY_HEADER, API_KEY)
    });
    let keyed = use_budgeted_read(request, RetryPolicy::new(), PaletteCollection::from_json);
    view! {
        <PaletteListView read=keyed collection>
            <TracePanel read=keyed id="keyed-trace" />
        </PaletteListView>
    }
}

/// Another route: going here unmounts both screens, which stops their reads.
#[component]
fn About() -> impl IntoView {
    view! {
        <h1>"About"</h1>
        <p>"Leaving the palettes stopped their reads: nothing more is sent."</p>
    }
}
