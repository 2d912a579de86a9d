//! The browser driver: the core's steps carried out with `fetch`, `AbortController`,
//! `performance.now()` and `setTimeout`.

use std::any::TypeId;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use gloo_timers::callback::Timeout;
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, ReadableStreamDefaultReader, ReadableStreamReadResult};

use super::scopes::{self, Member};
use super::{ReadState, View};
use crate::body::{BodyReader, ReadFn};
use crate::budget::words;
use crate::budget::TraceEvent;
use crate::budget::{
    is_success, next_change, BodyProblem, Outcome, Phase, RateLimitFields, ReadAction, Response,
    RetryPolicy, ScopeBlock, Step,
};

/// The longest delay `setTimeout` holds (2^31 - 1 ms, about 24.8 days); a longer one fires at
/// once.
const MAX_TIMEOUT_MS: u32 = i32::MAX as u32;

/// The delay to arm for a deadline `wait` away: rounded up to the millisecond (a timer that
/// fires a little early is re-armed; one that fires late is real), and at most what
/// `setTimeout` can hold, so a longer wait or cap is armed in chunks: the core ignores a wake
/// before its deadline, and the driver arms the rest. Under half a millisecond left, it is 0
/// (the next task): a browser's coarsened `performance.now()` can read a wake a fraction of a
/// millisecond before its deadline, and a whole millisecond more would make that start late.
fn timer_ms(wait: Duration) -> u32 {
    if wait < Duration::from_micros(500) {
        return 0;
    }
    // Whole microseconds, rounded up to the millisecond.
    let ms = wait
        .as_secs()
        .saturating_mul(1000)
        .saturating_add(u64::from(wait.subsec_micros().div_ceil(1000)));
    u32::try_from(ms).unwrap_or(u32::MAX).min(MAX_TIMEOUT_MS)
}

/// The monotonic clock: `performance.now()` as a `Duration`.
pub fn now() -> Duration {
    let ms = web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now());
    // To the nanosecond, rounded; `as` maps NaN to 0 and saturates.
    Duration::from_nanos((ms.max(0.0) * 1e6 + 0.5) as u64)
}

/// The local wall clock, `Date.now()`.
fn wall_clock() -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(js_sys::Date::now().max(0.0) as u64)
}

/// The handle a [`BudgetedRead`](super::BudgetedRead) keeps: the read's shared state.
pub(super) struct Driver<T: 'static> {
    shared: StoredValue<Rc<Shared<T>>, LocalStorage>,
}

impl<T: 'static> Clone for Driver<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: 'static> Copy for Driver<T> {}

impl<T> Driver<T>
where
    T: Clone + Send + Sync + 'static,
{
    /// Sets the read up in the current component. A read of the same URL, scope, policy and
    /// data that is still loading or waiting on the page is joined rather than repeated
    /// (unless the policy turns coalescing off): one action, one request on the wire, every
    /// screen showing the same state. Otherwise a new read starts in an effect (after mount or
    /// hydration). When the component is cleaned up its screen leaves the read, and the last
    /// screen to leave stops the action.
    pub(super) fn attach(url: String, policy: RetryPolicy, read: ReadFn<T>, view: View<T>) -> Self {
        let scope: Rc<str> = match policy.scope() {
            Some(name) => name.into(),
            None => origin(&url).into(),
        };
        let key = ReadKey {
            scope: scope.clone(),
            url: url.clone(),
            policy: policy.clone(),
            data: TypeId::of::<T>(),
            read: read as usize,
        };
        let coalesce = policy.coalesce();
        let joined = coalesce.then(|| reads::find::<T>(&key)).flatten();
        let shared = joined.unwrap_or_else(|| {
            let shared = Rc::new(Shared {
                url,
                scope,
                policy,
                read,
                owned: Cell::new(0),
                run: RefCell::new(None),
                views: RefCell::new(Vec::new()),
                shown: RefCell::new(None),
            });
            if coalesce {
                reads::add(key, &shared);
            }
            shared
        });
        let id = shared.join(view);
        // Every screen's effect asks; the first to run starts the read.
        let first = SendWrapper::new(shared.clone());
        Effect::new(move |started: Option<()>| {
            if started.is_none() && first.owned.get() == 0 {
                untrack(|| start(&first));
            }
        });
        let on_leave = SendWrapper::new(shared.clone());
        on_cleanup(move || {
            if on_leave.part(id) {
                leave(&on_leave);
            }
        });
        Driver {
            shared: StoredValue::new_local(shared),
        }
    }

    pub(super) fn try_again(&self) {
        if let Some(shared) = self.shared.try_get_value() {
            leave(&shared);
            start(&shared);
        }
    }

    pub(super) fn cancel(&self) {
        if let Some(shared) = self.shared.try_get_value() {
            leave(&shared);
        }
    }
}

/// What makes two reads the same read: they may share one action.
#[derive(PartialEq)]
struct ReadKey {
    scope: Rc<str>,
    url: String,
    policy: RetryPolicy,
    data: TypeId,
    /// The body reader, by address: two readers of one type that differ are not shared.
    read: usize,
}

/// The page's reads that screens may join, by key.
mod reads {
    use std::any::Any;
    use std::cell::RefCell;
    use std::rc::{Rc, Weak};

    use super::{ReadKey, Shared};

    thread_local! {
        static READS: RefCell<Vec<(ReadKey, Weak<dyn Any>)>> = const { RefCell::new(Vec::new()) };
    }

    /// A read with this key that is still loading or waiting (or about to start).
    pub(super) fn find<T: 'static>(key: &ReadKey) -> Option<Rc<Shared<T>>> {
        READS.with_borrow(|reads| {
            reads
                .iter()
                .filter(|(k, _)| k == key)
                .filter_map(|(_, w)| w.upgrade()?.downcast::<Shared<T>>().ok())
                .find(|shared| shared.joinable())
        })
    }

    /// Makes `shared` joinable under `key`; forgets reads that are gone.
    pub(super) fn add<T: 'static>(key: ReadKey, shared: &Rc<Shared<T>>) {
        let any: Rc<dyn Any> = shared.clone();
        READS.with_borrow_mut(|reads| {
            reads.retain(|(_, w)| w.strong_count() > 0);
            reads.push((key, Rc::downgrade(&any)));
        });
    }
}

struct Shared<T: 'static> {
    url: String,
    /// The rate limit this read shares: the policy's scope, or the URL's origin.
    scope: Rc<str>,
    policy: RetryPolicy,
    /// How a 2xx body becomes the data.
    read: ReadFn<T>,
    /// The generation the screens own (1 for the first action, +1 per new action; 0 before the
    /// first). Kept outside the reactive system: the runtime must still read it after the
    /// components are gone.
    owned: Cell<u64>,
    run: RefCell<Option<Rc<RefCell<Run<T>>>>>,
    /// Every screen showing this read, by id: more than one when screens share it.
    views: RefCell<Vec<(u64, View<T>)>>,
    /// What the screens show now, for one that joins.
    shown: RefCell<Option<ReadState<T>>>,
}

thread_local! {
    /// The last id handed out, for screens and for actions alike (each only needs its own to
    /// be unique on the page).
    static LAST_ID: Cell<u64> = const { Cell::new(0) };
}

/// A new id, unique on the page.
fn next_id() -> u64 {
    LAST_ID.with(|n| {
        n.set(n.get() + 1);
        n.get()
    })
}

impl<T: 'static> Shared<T> {
    /// Whether a screen may join: some screen shows it, and it has not stopped.
    fn joinable(&self) -> bool {
        if self.views.borrow().is_empty() {
            return false;
        }
        match &*self.run.borrow() {
            None => self.owned.get() == 0,
            Some(run) => running(run),
        }
    }
}

impl<T: Clone + Send + Sync + 'static> Shared<T> {
    /// A screen joins: it shows what the others show from now on. Returns its id.
    fn join(&self, view: View<T>) -> u64 {
        let id = next_id();
        if let Some(state) = self.shown.borrow().clone() {
            view.state.try_set(state);
            view.clock.try_set(now());
            if let Some(run) = &*self.run.borrow() {
                if let Ok(run) = run.try_borrow() {
                    view.trace.try_set(run.action.trace().to_vec());
                }
            }
        }
        self.views.borrow_mut().push((id, view));
        id
    }

    /// Screen `id` leaves. Returns whether it was the last.
    fn part(&self, id: u64) -> bool {
        let mut views = self.views.borrow_mut();
        views.retain(|(v, _)| *v != id);
        views.is_empty()
    }

    fn show(&self, state: ReadState<T>) {
        for (_, view) in self.views.borrow().iter() {
            view.state.try_set(state.clone());
        }
        self.shown.replace(Some(state));
    }

    fn show_trace(&self, trace: &[TraceEvent]) {
        for (_, view) in self.views.borrow().iter() {
            view.trace.try_set(trace.to_vec());
        }
    }

    fn show_clock(&self, at: Duration) {
        for (_, view) in self.views.borrow().iter() {
            view.clock.try_set(at);
        }
    }
}

/// One action and the browser resources it holds.
struct Run<T> {
    generation: u64,
    action: ReadAction,
    /// The in-flight fetch's controller.
    fetch: Option<AbortController>,
    /// The core's one timer; dropping it clears it.
    timer: Option<Timeout>,
    /// The countdown's refresh while waiting: armed for the next change of the number shown,
    /// so it wakes once a second.
    ticker: Option<Timeout>,
    /// A 2xx body, parsed, waiting for the core's verdict.
    data: Option<T>,
    /// The action's name in its scope's queue and places in flight.
    ticket: u64,
}

/// Whether an action is still loading or waiting. One that is busy deciding (its state
/// borrowed) is running.
fn running<T>(run: &RefCell<Run<T>>) -> bool {
    run.try_borrow()
        .map_or(true, |run| *run.action.phase() != Phase::Stopped)
}

fn start<T>(shared: &Rc<Shared<T>>)
where
    T: Clone + Send + Sync + 'static,
{
    let generation = shared.owned.get() + 1;
    shared.owned.set(generation);
    let at = now();
    let block = scopes::block(at, &shared.scope);
    // Each action's own random seed, so reads held back together are released apart.
    let seed = (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64;
    match ReadAction::start_under(at, shared.policy.clone(), block, seed) {
        Err(e) => {
            shared.show(ReadState::Refused(e));
            shared.run.replace(None);
        }
        Ok(action) => {
            let ticket = next_id();
            let run = Rc::new(RefCell::new(Run {
                generation,
                action,
                fetch: None,
                timer: None,
                ticker: None,
                data: None,
                ticket,
            }));
            shared.run.replace(Some(run.clone()));
            scopes::join(
                shared.scope.clone(),
                Rc::new(Listener {
                    shared: Rc::downgrade(shared),
                    run: Rc::downgrade(&run),
                    ticket,
                }),
            );
            pump(shared, &run);
        }
    }
}

/// One running action, as the page's scope ledger reaches it.
struct Listener<T: 'static> {
    shared: Weak<Shared<T>>,
    run: Weak<RefCell<Run<T>>>,
    /// The run's name in its scope's queue.
    ticket: u64,
}

impl<T> Member for Listener<T>
where
    T: Clone + Send + Sync + 'static,
{
    fn hear(&self, block: ScopeBlock) {
        if let (Some(shared), Some(run)) = (self.shared.upgrade(), self.run.upgrade()) {
            run.borrow_mut().action.handle_scope_block(now(), block);
            pump(&shared, &run);
        }
    }

    fn running(&self) -> bool {
        self.run.upgrade().is_some_and(|run| running(&run))
    }

    fn ticket(&self) -> u64 {
        self.ticket
    }

    fn granted(&self) -> bool {
        let (Some(shared), Some(run)) = (self.shared.upgrade(), self.run.upgrade()) else {
            return false;
        };
        {
            let mut run = run.borrow_mut();
            run.action.handle_slot(now());
        }
        pump(&shared, &run);
        true
    }
}

/// The user left (unmount, navigation or Cancel): the current action stops as `user_left`.
fn leave<T>(shared: &Rc<Shared<T>>)
where
    T: Clone + Send + Sync + 'static,
{
    let run = shared.run.borrow().clone();
    if let Some(run) = run {
        run.borrow_mut().action.handle_leave(now());
        pump(shared, &run);
    }
}

/// Carries out every step the core has decided, then arms its one timer; then brings the
/// scope's ledger in line, and starts any queued read whose turn that gives.
fn pump<T>(shared: &Rc<Shared<T>>, run_rc: &Rc<RefCell<Run<T>>>)
where
    T: Clone + Send + Sync + 'static,
{
    carry_out(shared, run_rc);
    scopes::grant(now(), &shared.scope);
}

fn carry_out<T>(shared: &Rc<Shared<T>>, run_rc: &Rc<RefCell<Run<T>>>)
where
    T: Clone + Send + Sync + 'static,
{
    let mut run = run_rc.borrow_mut();
    let owned = shared.owned.get() == run.generation;
    let of = run.action.policy().max_attempts();
    while let Some(step) = run.action.poll_action() {
        match step {
            Step::StartAttempt { number, .. } => {
                match AbortController::new() {
                    Ok(controller) => {
                        run.fetch = Some(controller.clone());
                        leptos::task::spawn_local(attempt(
                            shared.clone(),
                            run_rc.clone(),
                            controller,
                        ));
                    }
                    Err(_) => run
                        .action
                        .handle_transport_failure(now(), words::CANNOT_ABORT),
                }
                run.ticker = None;
                if owned {
                    shared.show(ReadState::Loading {
                        attempt: number,
                        of,
                    });
                }
            }
            Step::Queue { number, limit, .. } => {
                run.ticker = None;
                if owned {
                    shared.show(ReadState::Queued {
                        next: number,
                        of,
                        limit,
                    });
                }
            }
            Step::Wait { until, reason } => {
                if owned {
                    let next = run.action.attempts() + 1;
                    shared.show_clock(now());
                    shared.show(ReadState::Waiting {
                        next,
                        of,
                        until,
                        reason,
                    });
                    run.ticker =
                        countdown_tick(Rc::downgrade(shared), Rc::downgrade(run_rc), until);
                }
            }
            Step::Stop(report) => {
                if let Some(controller) = run.fetch.take() {
                    controller.abort();
                }
                run.ticker = None;
                let data = run.data.take();
                if owned {
                    shared.show(match (report.outcome, data) {
                        (Outcome::Succeeded, Some(data)) => ReadState::Loaded { data, report },
                        _ => ReadState::Stopped(report),
                    });
                }
            }
        }
    }
    if owned {
        shared.show_trace(run.action.trace());
    }
    scopes::settle(&shared.scope, run.ticket, run.action.phase());
    run.timer = run.action.poll_timeout().map(|deadline| {
        let ms = timer_ms(deadline.saturating_sub(now()));
        let (shared, run_rc) = (shared.clone(), run_rc.clone());
        Timeout::new(ms, move || {
            run_rc.borrow_mut().action.handle_timeout(now());
            pump(&shared, &run_rc);
        })
    });
}

/// Arms the countdown's next refresh: when the whole seconds shown before `until` next change
/// (every screen's `clock` signal is written then, and only then). `None` once it shows its
/// last second.
fn countdown_tick<T: Clone + Send + Sync + 'static>(
    shared: Weak<Shared<T>>,
    run: Weak<RefCell<Run<T>>>,
    until: Duration,
) -> Option<Timeout> {
    let step = next_change(until.saturating_sub(now()))?;
    Some(Timeout::new(timer_ms(step), move || {
        if let Some(shared) = shared.upgrade() {
            shared.show_clock(now());
        }
        if let Some(run_rc) = run.upgrade() {
            let next = countdown_tick(shared.clone(), Rc::downgrade(&run_rc), until);
            run_rc.borrow_mut().ticker = next;
        }
    }))
}

/// What one fetch came back with.
enum Answer<T> {
    /// Headers arrived; for a 2xx, the body read as `T`, or why it could not be.
    Response(Response, Result<Option<T>, BodyProblem>),
    /// No HTTP response: the network failed, or the fetch was aborted.
    Failed,
}

async fn attempt<T>(shared: Rc<Shared<T>>, run_rc: Rc<RefCell<Run<T>>>, controller: AbortController)
where
    T: Clone + Send + Sync + 'static,
{
    let signal = controller.signal();
    let sent = gloo_net::http::Request::get(&shared.url)
        .abort_signal(Some(&signal))
        .send()
        .await;
    let answer = match sent {
        // The browser's own words ("Failed to fetch") say no more than the outcome does.
        Err(_) => Answer::Failed,
        Ok(resp) => {
            let header = |name| resp.headers().get(name);
            // Where the answer came from, after any redirect, decides whether CORS may hide
            // its headers.
            let from = resp.url();
            let mut response = Response {
                status: resp.status(),
                retry_after: header("retry-after"),
                date: header("date"),
                cross_origin: is_cross_origin(if from.is_empty() { &shared.url } else { &from }),
                rate_limit: RateLimitFields::none(),
            };
            for name in RateLimitFields::NAMES {
                if let Some(value) = header(name) {
                    response.rate_limit.set(name, value);
                }
            }
            let body = if is_success(response.status) {
                let limit = shared.policy.max_body_bytes();
                read_body(&resp, limit, shared.read, &controller)
                    .await
                    .map(Some)
            } else {
                Ok(None)
            };
            Answer::Response(response, body)
        }
    };
    let now = now();
    let wall_clock = wall_clock();
    if let Answer::Response(response, _) = &answer {
        // Every answer reaches the page's ledger first, even one this action can no longer
        // use: a 429 is news for every read of the API.
        let trust = shared.policy.trust_local_clock();
        scopes::answered(now, &shared.scope, response, Some(wall_clock), trust);
    }
    {
        let mut run = run_rc.borrow_mut();
        match answer {
            // Our own abort (leave, cancel or cap): nothing arrived, nothing to record.
            Answer::Failed if signal.aborted() => return,
            Answer::Failed => run
                .action
                .handle_transport_failure(now, words::NETWORK_FAILED),
            // Also where our own abort cut a body short: the action has stopped, so the core
            // records the answer as dropped.
            Answer::Response(response, Err(problem)) => {
                run.action
                    .handle_unreadable_response(now, &response, Some(wall_clock), problem)
            }
            Answer::Response(response, Ok(data)) => {
                run.data = data;
                run.action.handle_response(now, &response, Some(wall_clock));
            }
        }
    }
    pump(&shared, &run_rc);
}

/// Reads a 2xx body chunk by chunk as it streams in, through the one body rule
/// ([`BodyReader`]): a declared or counted size past `limit` stops the read and aborts the
/// fetch, so a huge body is never held whole.
async fn read_body<T>(
    resp: &gloo_net::http::Response,
    limit: u64,
    read: ReadFn<T>,
    controller: &AbortController,
) -> Result<T, BodyProblem> {
    let too_large = |p| {
        controller.abort();
        p
    };
    let length = resp.headers().get("content-length");
    let mut body = BodyReader::new(limit, length.as_deref()).map_err(too_large)?;
    // No stream at all: a 204, or a 200 with a null body.
    let Some(stream) = resp.body() else {
        return body.finish(read);
    };
    let reader = ReadableStreamDefaultReader::new(&stream).map_err(|_| BodyProblem::Interrupted)?;
    loop {
        let Ok(next) = JsFuture::from(reader.read()).await else {
            return Err(BodyProblem::Interrupted);
        };
        // A read result is a plain `{ done, value }` object: a dictionary, which has no class
        // to check against.
        let next: ReadableStreamReadResult = next.unchecked_into();
        if next.get_done().unwrap_or(true) {
            break;
        }
        let value = next.get_value();
        let Some(chunk) = value.dyn_ref::<js_sys::Uint8Array>() else {
            return Err(BodyProblem::Interrupted);
        };
        let room = body.extend(chunk.length() as usize).map_err(too_large)?;
        chunk.copy_to(room);
    }
    body.finish(read)
}

/// The origin of `url` read relative to the page (`https://api.example.com`): the default scope.
/// A URL that does not parse is its own scope (its fetch fails on the network anyway).
fn origin(url: &str) -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .and_then(|page| web_sys::Url::new_with_base(url, &page).ok())
        .map_or_else(|| url.to_owned(), |u| u.origin())
}

/// Whether `url` is on another origin than the page (so CORS may hide `Retry-After`).
fn is_cross_origin(url: &str) -> bool {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .is_some_and(|page| crosses_origin(url, &page))
}

/// Whether `url`, read relative to the page at `page`, is on another origin than the page.
fn crosses_origin(url: &str, page: &str) -> bool {
    match (
        web_sys::Url::new_with_base(url, page),
        web_sys::Url::new(page),
    ) {
        (Ok(u), Ok(p)) => u.origin() != p.origin(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_timer_is_armed_rounded_up_and_within_what_set_timeout_holds_and_a_crumb_is_the_next_task()
    {
        assert_eq!(timer_ms(Duration::ZERO), 0);
        // A wake read a little early: the rest is the next task, not a whole millisecond.
        assert_eq!(timer_ms(Duration::from_micros(1)), 0);
        assert_eq!(timer_ms(Duration::from_micros(499)), 0);
        assert_eq!(timer_ms(Duration::from_micros(500)), 1);
        assert_eq!(timer_ms(Duration::from_millis(1500)), 1500);
        // Whole microseconds count: 1.0005 ms is 1000 µs, 1.001 ms rounds up.
        assert_eq!(timer_ms(Duration::from_nanos(1_000_500)), 1);
        assert_eq!(timer_ms(Duration::from_nanos(1_001_000)), 2);
        assert_eq!(timer_ms(Duration::new(2, 999_999_999)), 3000);
        // A 30-day wait: the first chunk is the longest setTimeout holds, not an instant wake.
        assert_eq!(timer_ms(Duration::from_secs(30 * 86_400)), 2_147_483_647);
        assert_eq!(timer_ms(Duration::from_secs(u64::MAX)), 2_147_483_647);
    }

    #[test]
    fn the_default_scope_is_the_apis_origin() {
        let page = web_sys::window().unwrap().location().origin().unwrap();
        assert_eq!(origin("/api/palettes?collection=coast"), page);
        assert_eq!(
            origin("http://127.0.0.1:3031/limits/1/palettes?collection=dune"),
            "http://127.0.0.1:3031"
        );
        assert_eq!(
            origin("http://[::1"),
            "http://[::1",
            "a URL that does not parse is its own"
        );
    }

    #[test]
    fn the_origin_is_the_answers_own() {
        let page = "http://127.0.0.1:8080/app/";
        // A request to the page's origin that a redirect took elsewhere: what the answer's
        // final URL says is what counts (the runtime passes `Response::url`).
        assert!(crosses_origin("http://localhost:8080/palettes", page));
        assert!(crosses_origin("https://127.0.0.1:8080/palettes", page));
        assert!(crosses_origin("http://127.0.0.1:3031/palettes", page));
        assert!(!crosses_origin("/api/palettes?collection=coast", page));
        assert!(!crosses_origin("http://127.0.0.1:8080/api/palettes", page));
    }
}
