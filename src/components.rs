//! Leptos components for a budgeted read: the Palette List screen, the countdown, the stop
//! message and the trace panel. Each part tests read has a `data-testid`.

use std::time::Duration;

use leptos::prelude::*;

use crate::budget::{secs, secs_ms, RetryPolicy, StopReport, TraceEvent, WaitReason};
use crate::palettes::{Palette, PaletteCollection};
use crate::runtime::{use_budgeted_get, BudgetedRead, ReadState};

/// The Palette List screen: reads `{api_base}/palettes?collection={collection}` under a finite
/// retry budget and shows the palettes, or which attempt is running, or the countdown to the
/// next one and why, or the stop message. Leaving the screen (unmount or navigation) stops the
/// read as `user_left`; Cancel does the same; Try again starts a new read with a fresh budget.
#[component]
pub fn PaletteList(
    /// The collection to read, e.g. `coast`.
    #[prop(into)]
    collection: String,
    /// Where the API lives: a URL prefix without a trailing slash (default: this origin).
    #[prop(optional, into)]
    api_base: String,
    /// The retry budget (default: the SPEC's, [`RetryPolicy::new`]).
    #[prop(optional)]
    policy: Option<RetryPolicy>,
) -> impl IntoView {
    let url = format!(
        "{api_base}/palettes?collection={}",
        js_sys::encode_uri_component(&collection)
    );
    let read = use_budgeted_get::<PaletteCollection>(url, policy.unwrap_or_default());
    view! { <PaletteListView read collection /> }
}

/// What the Palette List screen shows for a read someone else owns (see [`use_budgeted_get`]):
/// the status, countdown, palettes or stop message, the Cancel / Try again button, and the trace.
#[component]
pub fn PaletteListView(
    /// The read to show.
    read: BudgetedRead<PaletteCollection>,
    /// The collection's name, for the heading.
    #[prop(into)]
    collection: String,
    /// Show the trace expanded (default: collapsed).
    #[prop(optional)]
    trace_open: bool,
) -> impl IntoView {
    let state = read.state;
    let body = move || match state.get() {
        ReadState::Loading { attempt, of } => view! {
            <p class="status" data-testid="attempt">{format!("Attempt {attempt} of {of}")}</p>
        }
        .into_any(),
        ReadState::Waiting {
            next,
            of,
            until,
            reason,
        } => view! { <Countdown next of until reason clock=read.clock /> }.into_any(),
        ReadState::Loaded { data, report } => view! {
            <PaletteGrid palettes=data.palettes />
            <p class="meta" data-testid="loaded-summary">{report.message().get(1).cloned()}</p>
        }
        .into_any(),
        ReadState::Stopped(report) => view! { <StopMessage report /> }.into_any(),
        ReadState::Refused(why) => view! {
            <p class="stop" data-testid="refused">{format!("This read is misconfigured: {why}")}</p>
        }
        .into_any(),
    };
    let running = move || {
        matches!(
            state.get(),
            ReadState::Loading { .. } | ReadState::Waiting { .. }
        )
    };
    view! {
        <section class="palette-list" data-testid="palette-list">
            <header>
                <h2>"Palettes: " {collection}</h2>
                <div class="actions">
                    <Show
                        when=running
                        fallback=move || view! {
                            <button data-testid="retry" on:click=move |_| read.try_again()>
                                "Try again"
                            </button>
                        }
                    >
                        <button data-testid="cancel" on:click=move |_| read.cancel()>"Cancel"</button>
                    </Show>
                </div>
            </header>
            <div class="body" aria-live="polite">{body}</div>
            <TracePanel trace=read.trace open=trace_open />
        </section>
    }
}

/// The palettes as names with colour swatches.
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
                                    .map(|c| {
                                        view! {
                                            <span
                                                class="swatch"
                                                title=c.clone()
                                                style=format!("background-color: {c}")
                                            ></span>
                                        }
                                    })
                                    .collect_view()}
                            </span>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}

/// A live countdown to the next attempt, and why the wait is this long.
#[component]
pub fn Countdown(
    /// The attempt that comes next.
    next: u32,
    /// Attempts allowed.
    of: u32,
    /// When it starts, on the runtime's monotonic clock.
    until: Duration,
    /// Why the wait is this long.
    reason: WaitReason,
    /// The runtime's clock, refreshed while waiting.
    clock: ReadSignal<Duration>,
) -> impl IntoView {
    let left = move || {
        let left = until.saturating_sub(clock.get());
        // Whole seconds, rounded up: "1 s" until the moment it starts.
        let s = left.as_millis().div_ceil(1000);
        format!("Attempt {next} of {of} in {s} s")
    };
    view! {
        <div class="countdown">
            <p class="status" data-testid="countdown">{left}</p>
            <p class="why" data-testid="wait-reason">{wait_words(&reason)}</p>
        </div>
    }
}

/// Why a wait is as long as it is, in the user's words.
pub fn wait_words(reason: &WaitReason) -> String {
    match reason {
        WaitReason::ServerDelay(d) => format!("The service asked for {} s.", secs(*d)),
        WaitReason::ServerDate { until, delay, .. } => format!(
            "The service named a time, {} ({} s from the answer).",
            httpdate::fmt_http_date(*until),
            secs(*delay)
        ),
        WaitReason::Fallback { wait, .. } => {
            format!(
                "The service gave no usable hint; waiting the {} s fallback.",
                secs(*wait)
            )
        }
    }
}

/// How an action ended: the outcome, then the last response and attempts, then what happened to
/// the next request, each on its own line.
#[component]
pub fn StopMessage(
    /// The stop report to explain.
    report: StopReport,
) -> impl IntoView {
    let lines = report.message();
    let line = |i: usize| lines.get(i).cloned().unwrap_or_default();
    view! {
        <div class="stop" data-testid="stop" data-outcome=report.outcome.name()>
            <p class="outcome" data-testid="stop-outcome">{line(0)}</p>
            <p class="last" data-testid="stop-last-response">{line(1)}</p>
            <p class="detail" data-testid="stop-detail">{line(2)}</p>
        </div>
    }
}

/// The action's events with their elapsed times.
#[component]
pub fn TracePanel(
    /// The trace to list.
    #[prop(into)]
    trace: Signal<Vec<TraceEvent>>,
    /// Shown expanded (default: collapsed).
    #[prop(optional)]
    open: bool,
) -> impl IntoView {
    view! {
        <details class="trace" open=open>
            <summary>"Trace"</summary>
            <ol data-testid="trace">
                {move || {
                    trace
                        .get()
                        .into_iter()
                        .map(|e| {
                            view! {
                                <li>
                                    <span class="at">{format!("{} s", secs_ms(e.at))}</span>
                                    " "
                                    <span class="event">{e.event.to_string()}</span>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ol>
        </details>
    }
}
