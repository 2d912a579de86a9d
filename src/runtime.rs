//! The browser runtime: drives the budget core with real clocks, real fetches and real timers.
//!
//! - Elapsed time is `performance.now()`; the wall clock for dates is the response's `Date`
//!   (read by the core) or `Date.now()`, which the core uses only where the policy trusts it.
//! - Each attempt is a gloo-net `GET` with its own `AbortController`. The core's one timer
//!   (`poll_timeout`) is a gloo-timers `Timeout`: at an attempt's cap the core stops the action
//!   as `attempt_timed_out` and the fetch is aborted on the wire; at a wait's end the core
//!   rechecks the gate against the time now.
//! - Nothing else retries: gloo-net and `fetch` do not, and this is the one retry owner.
//! - Each action has a generation. Only the generation the screen owns updates the view; an
//!   answer for any other goes to its own action, which records it as dropped.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use gloo_timers::callback::{Interval, Timeout};
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use serde::de::DeserializeOwned;
use web_sys::AbortController;

use crate::budget::{
    Outcome, ReadAction, Response, RetryPolicy, Step, StopReport, TraceEvent, WaitReason,
};

/// How often a countdown refreshes while waiting.
const TICK_MS: u32 = 100;

/// The monotonic clock: `performance.now()` as a `Duration`.
pub fn now() -> Duration {
    let ms = web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now());
    Duration::from_secs_f64(ms.max(0.0) / 1000.0)
}

/// The local wall clock, `Date.now()`.
pub fn wall_clock() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs_f64(js_sys::Date::now().max(0.0) / 1000.0)
}

/// What a budgeted read shows at any moment.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadState<T> {
    /// Attempt `attempt` of `of` is in flight.
    Loading {
        /// Which attempt.
        attempt: u32,
        /// Attempts allowed.
        of: u32,
    },
    /// Waiting before attempt `next`.
    Waiting {
        /// The attempt that comes next.
        next: u32,
        /// Attempts allowed.
        of: u32,
        /// When it starts, on [`now`]'s clock.
        until: Duration,
        /// Why this long.
        reason: WaitReason,
    },
    /// The data arrived.
    Loaded {
        /// The data.
        data: T,
        /// How the action ended (succeeded), for its attempts and elapsed time.
        report: StopReport,
    },
    /// The action stopped without data; the report says why.
    Stopped(StopReport),
    /// The policy is invalid, so no action could start.
    Refused(String),
}

/// A budgeted `GET` of JSON, as reactive state plus its controls. Cheap to copy.
pub struct BudgetedRead<T: 'static> {
    /// What to show now.
    pub state: ReadSignal<ReadState<T>>,
    /// The current action's trace.
    pub trace: ReadSignal<Vec<TraceEvent>>,
    /// [`now`], refreshed while waiting, for countdowns.
    pub clock: ReadSignal<Duration>,
    /// The generation the screen owns (1 for the first action, +1 per new action).
    pub generation: ReadSignal<u64>,
    shared: StoredValue<Rc<Shared<T>>, LocalStorage>,
}

impl<T: 'static> Clone for BudgetedRead<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: 'static> Copy for BudgetedRead<T> {}

impl<T> BudgetedRead<T>
where
    T: DeserializeOwned + Clone + Send + Sync + 'static,
{
    /// Starts a new action with a fresh budget (Try again). Leaves the current one first.
    pub fn try_again(&self) {
        if let Some(shared) = self.shared.try_get_value() {
            leave(&shared);
            start(&shared);
        }
    }

    /// Stops the current action as `user_left` (Cancel): aborts its fetch, clears its timer.
    pub fn cancel(&self) {
        if let Some(shared) = self.shared.try_get_value() {
            leave(&shared);
        }
    }
}

/// Reads `url` as JSON under `policy`: starts one action now, and leaves it when the calling
/// component is cleaned up (unmount or navigation). `GET` only: there is no way to send a write.
pub fn use_budgeted_get<T>(url: String, policy: RetryPolicy) -> BudgetedRead<T>
where
    T: DeserializeOwned + Clone + Send + Sync + 'static,
{
    let of = policy.max_attempts();
    let state = RwSignal::new(ReadState::Loading { attempt: 1, of });
    let trace = RwSignal::new(Vec::new());
    let clock = RwSignal::new(now());
    let generation = RwSignal::new(0);
    let shared = Rc::new(Shared {
        cross_origin: is_cross_origin(&url),
        url,
        policy,
        owned: Cell::new(0),
        run: RefCell::new(None),
        view: View {
            state,
            trace,
            clock,
            generation,
        },
    });
    start(&shared);
    let on_leave = SendWrapper::new(shared.clone());
    on_cleanup(move || leave(&on_leave));
    BudgetedRead {
        state: state.read_only(),
        trace: trace.read_only(),
        clock: clock.read_only(),
        generation: generation.read_only(),
        shared: StoredValue::new_local(shared),
    }
}

/// What the runtime writes to; every write is `try_`, as the owner may be gone.
struct View<T: 'static> {
    state: RwSignal<ReadState<T>>,
    trace: RwSignal<Vec<TraceEvent>>,
    clock: RwSignal<Duration>,
    generation: RwSignal<u64>,
}

struct Shared<T: 'static> {
    url: String,
    policy: RetryPolicy,
    cross_origin: bool,
    /// The generation the screen owns: the `generation` signal's value, kept here too because
    /// the runtime must still read it after the component's owner (and its signals) are gone.
    owned: Cell<u64>,
    run: RefCell<Option<Rc<RefCell<Run<T>>>>>,
    view: View<T>,
}

/// One action and the browser resources it holds.
struct Run<T> {
    generation: u64,
    action: ReadAction,
    /// The in-flight fetch's controller.
    fetch: Option<AbortController>,
    /// The core's one timer; dropping it clears it.
    timer: Option<Timeout>,
    /// The countdown's refresh while waiting.
    ticker: Option<Interval>,
    /// A 2xx body, parsed, waiting for the core's verdict.
    data: Option<T>,
}

fn start<T>(shared: &Rc<Shared<T>>)
where
    T: DeserializeOwned + Clone + Send + Sync + 'static,
{
    let generation = shared.view.generation.try_get_untracked().unwrap_or(0) + 1;
    shared.owned.set(generation);
    shared.view.generation.try_set(generation);
    match ReadAction::start(now(), shared.policy.clone()) {
        Err(e) => {
            shared.view.state.try_set(ReadState::Refused(e.to_string()));
            shared.run.replace(None);
        }
        Ok(action) => {
            let run = Rc::new(RefCell::new(Run {
                generation,
                action,
                fetch: None,
                timer: None,
                ticker: None,
                data: None,
            }));
            shared.run.replace(Some(run.clone()));
            pump(shared, &run);
        }
    }
}

/// The user left (unmount, navigation or Cancel): the current action stops as `user_left`.
fn leave<T>(shared: &Rc<Shared<T>>)
where
    T: DeserializeOwned + Clone + Send + Sync + 'static,
{
    let run = shared.run.borrow().clone();
    if let Some(run) = run {
        run.borrow_mut().action.handle_leave(now());
        pump(shared, &run);
    }
}

/// Carries out every step the core has decided, then arms its one timer.
fn pump<T>(shared: &Rc<Shared<T>>, run_rc: &Rc<RefCell<Run<T>>>)
where
    T: DeserializeOwned + Clone + Send + Sync + 'static,
{
    let mut run = run_rc.borrow_mut();
    let owned = shared.owned.get() == run.generation;
    let of = run.action.policy().max_attempts();
    let view = &shared.view;
    while let Some(step) = run.action.poll_action() {
        match step {
            Step::StartAttempt { number, .. } => {
                match AbortController::new() {
                    Ok(controller) => {
                        run.fetch = Some(controller.clone());
                        leptos::task::spawn_local(attempt(shared.clone(), run_rc.clone(), controller));
                    }
                    Err(_) => run.action.handle_transport_failure(
                        now(),
                        "This browser cannot abort a request, so the per-attempt cap cannot be kept.",
                    ),
                }
                run.ticker = None;
                if owned {
                    view.state.try_set(ReadState::Loading {
                        attempt: number,
                        of,
                    });
                }
            }
            Step::Wait { until, reason } => {
                if owned {
                    let next = run.action.attempts() + 1;
                    view.clock.try_set(now());
                    view.state.try_set(ReadState::Waiting {
                        next,
                        of,
                        until,
                        reason,
                    });
                    let clock = view.clock;
                    run.ticker = Some(Interval::new(TICK_MS, move || {
                        clock.try_set(now());
                    }));
                }
            }
            Step::Stop(report) => {
                if let Some(controller) = run.fetch.take() {
                    controller.abort();
                }
                run.ticker = None;
                let data = run.data.take();
                if owned {
                    view.state.try_set(match (report.outcome, data) {
                        (Outcome::Succeeded, Some(data)) => ReadState::Loaded { data, report },
                        _ => ReadState::Stopped(report),
                    });
                }
            }
        }
    }
    if owned {
        view.trace.try_set(run.action.trace().to_vec());
    }
    run.timer = run.action.poll_timeout().map(|deadline| {
        let wait = deadline.saturating_sub(now());
        // Round up: a timer that fires a little early is re-armed; one that fires late is real.
        let ms = u32::try_from(wait.as_micros().div_ceil(1000)).unwrap_or(u32::MAX);
        let (shared, run_rc) = (shared.clone(), run_rc.clone());
        Timeout::new(ms, move || {
            run_rc.borrow_mut().action.handle_timeout(now());
            pump(&shared, &run_rc);
        })
    });
}

/// What one fetch came back with.
enum Answer<T> {
    /// Headers arrived (and, for a 2xx, the body was read as `T`).
    Response(Response, Option<T>),
    /// A 2xx whose body could not be read as the expected JSON.
    Unreadable(Response, String),
    /// No HTTP response: the network failed, or the fetch was aborted.
    Failed(String),
}

async fn attempt<T>(shared: Rc<Shared<T>>, run_rc: Rc<RefCell<Run<T>>>, controller: AbortController)
where
    T: DeserializeOwned + Clone + Send + Sync + 'static,
{
    let signal = controller.signal();
    let sent = gloo_net::http::Request::get(&shared.url)
        .abort_signal(Some(&signal))
        .send()
        .await;
    let answer = match sent {
        Err(e) => Answer::Failed(e.to_string()),
        Ok(resp) => {
            let header = |name| resp.headers().get(name);
            let response = Response {
                status: resp.status(),
                retry_after: header("retry-after"),
                date: header("date"),
                cross_origin: shared.cross_origin,
            };
            if (200..300).contains(&response.status) {
                match resp.json::<T>().await {
                    Ok(data) => Answer::Response(response, Some(data)),
                    Err(e) => Answer::Unreadable(response, e.to_string()),
                }
            } else {
                Answer::Response(response, None)
            }
        }
    };
    let now = now();
    {
        let mut run = run_rc.borrow_mut();
        match answer {
            // Our own abort (leave, cancel or cap): nothing arrived, nothing to record.
            Answer::Failed(_) if signal.aborted() => return,
            Answer::Failed(e) => run.action.handle_transport_failure(
                now,
                &format!(
                    "The request failed on the network ({e}). A rate limiter that sends no CORS headers looks the same to a browser."
                ),
            ),
            // Headers arrived, then the body read was aborted: the core drops the answer.
            Answer::Unreadable(response, _) if signal.aborted() => {
                run.action.handle_response(now, &response, Some(wall_clock()))
            }
            Answer::Unreadable(response, e) => run.action.handle_transport_failure(
                now,
                &format!("The service answered {}, but its body could not be read ({e}).", response.status),
            ),
            Answer::Response(response, data) => {
                run.data = data;
                run.action.handle_response(now, &response, Some(wall_clock()));
            }
        }
    }
    pump(&shared, &run_rc);
}

/// Whether `url` is on another origin than the page (so `Retry-After` may be hidden by CORS).
fn is_cross_origin(url: &str) -> bool {
    let Some(location) = web_sys::window().map(|w| w.location()) else {
        return false;
    };
    let (Ok(href), Ok(origin)) = (location.href(), location.origin()) else {
        return false;
    };
    web_sys::Url::new_with_base(url, &href).is_ok_and(|u| u.origin() != origin)
}
