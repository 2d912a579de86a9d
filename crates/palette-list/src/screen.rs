//! The Palette List screen: the palettes read under a finite retry budget, and what it shows.

use leptos::prelude::*;
use leptos_retry_budget::{
    use_budgeted_read, Announcer, BudgetedRead, HydratesAtOnce, ReadState, ReadStatus,
};
use retry_budget::{ReadRequest, RetryPolicy, StopReport};

use crate::palettes::{palettes_url, CssColor, Palette, PaletteCollection};
use crate::words::{not_a_colour, palettes_heading, CANCEL, TRY_AGAIN};

/// The Palette List screen: reads `{api_base}/palettes?collection={collection}` under a finite
/// retry budget and shows the palettes, or which attempt is running, or the countdown to the
/// next one and why, or the stop message. Leaving the screen (unmount or navigation) stops the
/// read as `user_left`; Cancel does the same; Try again starts a new read with a fresh budget;
/// another collection stops the read as moved on and starts the new collection's.
///
/// It is what the user sees, and no more: to show developers the trace and the timeline too,
/// or to send headers, read with [`use_budgeted_read`] and put a [`TracePanel`](leptos_retry_budget::TracePanel) inside a
/// [`PaletteListView`].
#[component]
pub fn PaletteList(
    /// The collection to read, e.g. `coast`, or a signal of it (a query parameter).
    #[prop(into)]
    collection: Signal<String>,
    /// Where the API lives: a URL prefix without a trailing slash (default: this origin).
    #[prop(optional, into)]
    api_base: String,
    /// The retry budget (default: [`RetryPolicy::new`]).
    #[prop(optional)]
    policy: Option<RetryPolicy>,
) -> impl IntoView {
    let request =
        Signal::derive(move || ReadRequest::get(palettes_url(&api_base, &collection.read())));
    let policy = policy.unwrap_or_default();
    let read = use_budgeted_read(request, policy, PaletteCollection::from_json);
    view! { <PaletteListView read collection /> }
}

/// What the Palette List screen shows for a read someone else owns (see [`use_budgeted_read`]):
/// the status, countdown, palettes or stop message, and the Cancel / Try again button; then
/// whatever `children` add, such as `<TracePanel read />`.
#[component]
pub fn PaletteListView(
    /// The read to show.
    read: BudgetedRead<PaletteCollection>,
    /// The collection's name, for the heading, or a signal of it.
    #[prop(into)]
    collection: Signal<String>,
    /// Shown at the foot of the screen, e.g. a [`TracePanel`](leptos_retry_budget::TracePanel) of the same read (default:
    /// nothing, so an app that adds none compiles none).
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    let running = move || read.state.try_with(ReadState::is_running).unwrap_or(false);
    let loaded = |data: PaletteCollection, report: StopReport| {
        view! {
            <PaletteGrid palettes=data.palettes />
            <p class="meta" data-testid="loaded-summary">
                {report.message().last_response().to_string()}
            </p>
        }
    };
    // Cancel while the read runs, Try again once it has stopped; on a server that reads while
    // it renders, as the read came to there.
    let action = read.suspend(move || {
        view! {
            <button
                data-testid=move || if running() { "cancel" } else { "retry" }
                on:click=move |_| if running() { read.cancel() } else { read.try_again() }
            >
                {move || if running() { CANCEL } else { TRY_AGAIN }}
            </button>
        }
    });
    // The screen's own views hydrate at once inside a route's async hydration (no second,
    // async hydration of them is compiled); the app's children hydrate as the app's do.
    let own = view! {
        <header>
            <h2>{move || palettes_heading(&collection.read())}</h2>
            <div class="actions">{action}</div>
        </header>
        <div class="body">
            <ReadStatus read loaded />
        </div>
        <Announcer read />
    };
    view! {
        <section class="palette-list" data-testid="palette-list">
            {HydratesAtOnce(own)}
            {children.map(|c| c())}
        </section>
    }
}

/// The palettes as names with colour swatches. The API's data is data: a name is text, and a
/// colour is painted only when [`CssColor::parse`] reads it as one; anything else is an
/// explicitly invalid swatch, painted with nothing.
#[component]
pub fn PaletteGrid(
    /// The palettes to show, in order.
    palettes: Vec<Palette>,
) -> impl IntoView {
    view! {
        <ul class="palettes" data-testid="palettes">
            {palettes
                .into_iter()
                .map(|p| {
                    view! {
                        <li class="palette" data-testid="palette">
                            <span class="name">{p.name}</span>
                            <span class="swatches">
                                {p
                                    .colors
                                    .into_iter()
                                    .map(|raw| swatch(&raw))
                                    .collect_view()}
                            </span>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}

/// One swatch, one element either way: a square whose `fill` (a presentation attribute, so a
/// strict `style-src` allows it, on the server as in the browser) is the colour rebuilt from
/// what was parsed; anything else fills nothing, is marked invalid, and is only ever text, in
/// its title.
fn swatch(raw: &str) -> impl IntoView {
    let (class, testid, title, fill) = match CssColor::parse(raw) {
        Some(color) => (
            "swatch",
            None,
            color.as_str().to_owned(),
            color.as_str().to_owned(),
        ),
        None => (
            "swatch invalid",
            Some("invalid-swatch"),
            not_a_colour(raw),
            "none".to_owned(),
        ),
    };
    view! {
        <svg
            class=class
            data-testid=testid
            viewBox="0 0 1 1"
            preserveAspectRatio="none"
            width="16"
            height="16"
        >
            <title>{title}</title>
            <rect width="1" height="1" fill=fill />
        </svg>
    }
}
