//! Leptos components for any budgeted read: the status switch, the countdown, the stop message,
//! the announcer, the trace panel and the timeline. Each part tests read has a `data-testid`.
//! Every sentence is the `Display` of a core value ([`Progress`], [`retry_budget::StopMessage`])
//! but the trace panel's heading, [`TRACE`].

use std::time::Duration;

use leptos::either::EitherOf4;
use leptos::prelude::*;

use retry_budget::action::WaitReason;
use retry_budget::timeline::Timeline as Drawing;
use retry_budget::words::{seconds_text, Precision};
use retry_budget::{Event, Progress, StopReport};

use crate::at_once::HydratesAtOnce;
use crate::runtime::{BudgetedRead, ReadData, ReadState};

/// What `read` came to on the server, before `children` show it. On a server that reads while
/// it renders, `children` wait for its read (in Leptos's `<Suspense>`, so the rest of the page
/// streams on) and show what it came to: the data, the stop or the wait. Hydrating, they show
/// at once what the server's HTML shows. Until then, and always in a CSR app, `children` show
/// the read as it is. Whatever reads `read.state` or `read.trace()` belongs inside one;
/// [`ReadStatus`] and [`TracePanel`] put themselves in one.
#[component]
pub fn ReadSuspense<T, V>(
    /// The read whose server part `children` wait for.
    read: BudgetedRead<T>,
    /// What shows the read.
    children: TypedChildrenFn<V>,
) -> impl IntoView
where
    T: ReadData,
    V: IntoView + 'static,
{
    let children = children.into_inner();
    read.suspend(move || children())
}

/// The state of any budgeted read: which attempt is in flight, the countdown to the next one,
/// the stop message, or why the read could not start; `loaded` draws the data once it is there.
#[component]
pub fn ReadStatus<T, F, V>(
    /// The read to show.
    read: BudgetedRead<T>,
    /// What to show once the data has arrived, given the data and how the action ended.
    loaded: F,
) -> impl IntoView
where
    T: ReadData,
    F: Fn(T, StopReport) -> V + Send + Sync + 'static,
    V: IntoView + 'static,
{
    // One branch per kind of view, as an enum of views rather than type-erased ones: the
    // attempt, the queue and the refusal are the same line with other words. The state is
    // read in place, and only what a view keeps is copied.
    let loaded = std::sync::Arc::new(loaded);
    let status = move || {
        let loaded = loaded.clone();
        move || {
            // `try_`: on a server, a render the visitor left may be dropped while its read's
            // last state is still being shown.
            read.state.try_with(|state| match state {
            ReadState::Loading { attempt, of } => EitherOf4::A(line(
                "status",
                "attempt",
                Progress::InFlight {
                    attempt: *attempt,
                    of: *of,
                }
                .to_string(),
            )),
            ReadState::Refused(error) => EitherOf4::A(line("stop", "refused", error.to_string())),
            ReadState::Queued { next, of, limit } => EitherOf4::A(line(
                "status",
                "queued",
                Progress::Queued {
                    next: *next,
                    of: *of,
                    limit: *limit,
                }
                .to_string(),
            )),
            ReadState::Waiting {
                next,
                of,
                until,
                reason,
            } => EitherOf4::B(view! {
                <Countdown next=*next of=*of until=*until reason=reason.clone() clock=read.clock />
            }),
            ReadState::Loaded { data, report } => {
                EitherOf4::C(loaded(data.clone(), report.clone()))
            }
            ReadState::Stopped(report) => {
                EitherOf4::D(view! { <StopMessage report=report.clone() /> })
            }
        })
        // Gone: nothing to show (the same line, empty, rather than a view of another type).
        .unwrap_or_else(|| EitherOf4::A(line("status", "attempt", String::new())))
        }
    };
    read.suspend(status)
}

/// The heading of the trace panel (the timeline and the list of events).
pub const TRACE: &str = "Timeline and trace";

/// A line of status text with its class and test hook.
fn line(class: &'static str, testid: &'static str, text: String) -> impl IntoView {
    view! { <p class=class data-testid=testid>{text}</p> }
}

/// What a screen reader hears, in a polite live region of its own: the attempt, the wait with
/// its reason (once, when it begins, not a ticking clock), and the outcome. Visually hidden.
///
/// The server renders it empty, and so does hydration; once in the page it is hidden through
/// CSSOM (which a strict `style-src` allows, unlike a `style` attribute) and says each new
/// state.
#[component]
pub fn Announcer<T>(
    /// The read to announce.
    read: BudgetedRead<T>,
) -> impl IntoView
where
    T: ReadData,
{
    let region = NodeRef::<leptos::html::Div>::new();
    // Runs in the browser only, at each change of state (never at a countdown tick, which is
    // the clock's). The region is the effect's alone (the view gives it no children), so the
    // words are written straight in, and only when they differ from what it says.
    Effect::new(move || {
        let words = read.state.try_with(announcement).unwrap_or_default();
        if let Some(region) = region.get() {
            visually_hidden(&region);
            if region.text_content().is_none_or(|said| said != words) {
                region.set_text_content(Some(&words));
            }
        }
    });
    view! { <div node_ref=region data-testid="announce" aria-live="polite"></div> }
}

/// Hides `element` from sight but not from screen readers, through CSSOM.
fn visually_hidden(element: &web_sys::HtmlElement) {
    let style = element.style();
    for (property, value) in [
        ("position", "absolute"),
        ("width", "1px"),
        ("height", "1px"),
        ("overflow", "hidden"),
        ("clip-path", "inset(50%)"),
        ("white-space", "nowrap"),
    ] {
        // Only a read-only declaration refuses a property, and an element's own is not one.
        let _ = style.set_property(property, value);
    }
}

/// What the live region says in a read's state: the attempt, the wait and why, the queue, the
/// outcome, or why the read could not start; never a clock.
fn announcement<T>(state: &ReadState<T>) -> String {
    let progress = match *state {
        ReadState::Loading { attempt, of } => Progress::InFlight { attempt, of },
        ReadState::Waiting {
            next,
            of,
            ref reason,
            ..
        } => Progress::Waiting { next, of, reason },
        ReadState::Queued { next, of, limit } => Progress::Queued { next, of, limit },
        // The outcome and the last response; the detail stays on the screen.
        ReadState::Loaded { ref report, .. } | ReadState::Stopped(ref report) => {
            let message = report.message();
            return format!("{} {}", message.headline(), message.last_response());
        }
        ReadState::Refused(ref e) => return e.to_string(),
    };
    progress.to_string()
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
        let left = until.saturating_sub(clock.try_get().unwrap_or_default());
        Progress::Countdown { next, of, left }.to_string()
    };
    view! {
        <div class="countdown">
            <p class="status" data-testid="countdown">{left}</p>
            {line("why", "wait-reason", Progress::Reason(&reason).to_string())}
        </div>
    }
}

/// How an action ended: the outcome, then the last response and attempts, then what happened to
/// the next request, each on its own line.
#[component]
pub fn StopMessage(
    /// The stop report to explain.
    report: StopReport,
) -> impl IntoView {
    let message = report.message();
    let detail = message.detail().map(|d| d.to_string()).unwrap_or_default();
    view! {
        <div class="stop" data-testid="stop" data-outcome=report.outcome.name()>
            {line("outcome", "stop-outcome", message.headline().to_string())}
            {line("last", "stop-last-response", message.last_response().to_string())}
            {line("detail", "stop-detail", detail)}
        </div>
    }
}

/// The action's timeline and its events with their elapsed times, in one panel, collapsed by
/// default. The list is the picture's text alternative.
#[component]
pub fn TracePanel<T>(
    /// The read whose trace to show.
    read: BudgetedRead<T>,
    /// The timeline picture's id, unique on the page (see [`Timeline`]).
    #[prop(into)]
    id: String,
    /// Shown expanded (default: collapsed).
    #[prop(optional)]
    open: bool,
) -> impl IntoView
where
    T: ReadData,
{
    let panel = move || {
        let id = id.clone();
        view! {
        <details class="trace" open=open>
            <summary>{TRACE}</summary>
            <Timeline read id />
            <ol data-testid="trace">
                {move || {
                    read.trace()
                        .into_iter()
                        .map(|e| {
                            view! {
                                <li>
                                    <span class="at">
                                        {format!("{} s", seconds_text(e.at, Precision::Millis))}
                                    </span>
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
    };
    // All of it the crate's own: where an app erases it (a screen's `children`), no second,
    // async hydration of it is compiled.
    HydratesAtOnce(read.suspend(panel))
}

/// The action as a picture ([`retry_budget::timeline`]): the attempts with their statuses,
/// the cap reserved before each start, the waits and why, late wakes, the deadline and the
/// stop. Redrawn at every event, and while waiting once a second, as the countdown changes.
#[component]
pub fn Timeline<T>(
    /// The read to draw.
    read: BudgetedRead<T>,
    /// The picture's id, unique on the page: its title, description and pattern are named
    /// after it. It comes from the app, so the server's HTML and the hydrating browser agree.
    #[prop(into)]
    id: String,
) -> impl IntoView
where
    T: ReadData,
{
    // The elapsed time now, in the countdown's whole-second steps, while waiting.
    let now = Memo::new(move |_| {
        let Some(ReadState::Waiting { until, .. }) = read.state.try_get() else {
            return None;
        };
        let planned_end = read.trace().iter().rev().find_map(|e| match e.event {
            Event::WaitPlanned { wait, .. } => Some(e.at + wait),
            _ => None,
        })?;
        let left = until.saturating_sub(read.clock.try_get()?);
        let left = Duration::from_secs(u64::try_from(left.as_millis().div_ceil(1000)).ok()?);
        Some(planned_end.saturating_sub(left))
    });
    let svg = move || {
        Drawing::from_trace(&read.trace(), now.try_get().flatten())
            .map(|d| d.to_svg(&id))
            .unwrap_or_default()
    };
    view! { <div class="timeline" data-testid="timeline" inner_html=svg></div> }
}
