//! A read in the browser, from the screen that mounts it to the last screen that leaves: its
//! actions (one per Try again) started on the page's [`Client`](retry_budget::Client), and each
//! step the page decides for them carried out with a fetch, an abort, or a state shown.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::time::Duration;

use gloo_timers::callback::Timeout;
use leptos::prelude::*;
use web_sys::AbortController;

use super::client;
use super::fetch::{fetch, Answer};
use super::origin::origin;
use super::screens::{next_screen, Screens};
use super::time::{now, timer_ms, wall_clock};
use crate::runtime::page_rules::coalesce::{self, Joinable, ParserKind, ReadKey};
use crate::runtime::page_rules::registry::RunningRead;
use crate::runtime::state::{ReadData, ReadState, View};
use retry_budget::action::Phase;
use retry_budget::body::BodyProblem;
use retry_budget::report::TransportFailure;
use retry_budget::request::ReadRequest;
use retry_budget::words::next_change;
use retry_budget::{Outcome, ReadId, RetryPolicy, Step, TraceEvent};

/// How a 2xx body becomes the data.
type Parser<T> = Rc<dyn Fn(&[u8]) -> Result<T, BodyProblem>>;

/// The handle a read's mode keeps: its screen.
pub(crate) struct Driver<T: ReadData> {
    screen: StoredValue<Rc<Screen<T>>, LocalStorage>,
}

/// The text the server's render wrote for a read it began, its trace read from it only when a
/// screen asks (by the mode that knows the text, so an app that shows no trace compiles no
/// reader of it).
pub(super) type ServerText = Rc<str>;

/// What a read's first action does instead of starting: take up what the server knew. Made
/// only where a page takes a server's read up, so a CSR app compiles none of it.
pub(super) type FirstAction<T> = Box<dyn FnOnce(&Rc<Shared<T>>, u64)>;

/// A read the server's render read: what its first action does instead of starting, and the
/// text the server wrote. Only [`take_up`](Driver::take_up) makes one.
pub(crate) struct ServerFirst<T: 'static> {
    pub(super) action: FirstAction<T>,
    pub(super) text: ServerText,
}

impl<T: ReadData> Clone for Driver<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ReadData> Copy for Driver<T> {}

impl<T> Driver<T>
where
    T: ReadData,
{
    /// Sets the read up in the current component: the screen shows the read of `request`'s
    /// value, joined where an identical read is still loading or waiting on the page (unless
    /// the policy turns coalescing off), else a new one, started in an effect (after mount or
    /// hydration). When `request` changes, the screen moves to the read of the new value;
    /// when the component is cleaned up, it leaves. The last screen to leave a read, or to
    /// move on from it, stops its action.
    ///
    /// Where the server's render read it, `first` is what the first action does instead of
    /// starting, with the text the server wrote ([`take_up`](Self::take_up) makes it); a CSR
    /// page gives `None`, and compiles none of it.
    pub(crate) fn attach<R>(
        request: Signal<ReadRequest>,
        policy: RetryPolicy,
        parse: R,
        view: View<T>,
        first: Option<ServerFirst<T>>,
    ) -> Self
    where
        R: Fn(&[u8]) -> Result<T, BodyProblem> + 'static,
    {
        let id = next_screen();
        let parser = ParserKind::of::<R>();
        let parse: Parser<T> = Rc::new(parse);
        let shared = read_of(request.get_untracked(), &policy, &parse, parser, first);
        shared.screens.join(id, view);
        let screen = Rc::new(Screen {
            id,
            view,
            policy,
            parse,
            parser,
            shows: RefCell::new(shared),
        });
        let driver = Driver {
            screen: StoredValue::new_local(screen.clone()),
        };
        // An effect may hold what is not `Send`; it runs on this thread, after mount.
        Effect::new(move || {
            request.track();
            untrack(|| {
                let shared = screen.current();
                if request.with(|r| *r != shared.request) {
                    screen.move_to(request.get());
                } else if shared.owned.get() == 0 {
                    // Every screen's effect asks; the first to run starts the read.
                    start(&shared);
                }
            });
        });
        // An owner runs its cleanups before it drops its stored values, so the screen is
        // still there to leave.
        on_cleanup(move || {
            if let Some(shared) = driver.current() {
                if shared.screens.leave(id) {
                    leave(&shared);
                }
            }
        });
        driver
    }

    pub(crate) fn try_again(&self) {
        if let Some(shared) = self.current() {
            leave(&shared);
            start(&shared);
        }
    }

    pub(crate) fn cancel(&self) {
        if let Some(shared) = self.current() {
            leave(&shared);
        }
    }
}

impl<T: ReadData> Driver<T> {
    /// The read the screen shows now, while the screen's owner lives.
    fn current(&self) -> Option<Rc<Shared<T>>> {
        self.screen.try_with_value(|s| s.current())
    }

    /// The current action's trace, copied from the page: where the action is the one the
    /// server's render began, what the server did first (read from its text by
    /// `server_trace`), then the page's part from the hand-over on (one timeline for one
    /// action).
    pub(crate) fn trace(
        &self,
        server_trace: impl FnOnce(&str) -> Vec<TraceEvent>,
    ) -> Vec<TraceEvent> {
        let Some(shared) = self.current() else {
            return Vec::new();
        };
        let run = shared.run.borrow().clone();
        let own = run.and_then(|run| client::with_read(run.read, |a| a.trace().to_vec()));
        let server = shared.server_text.borrow().clone();
        let Some(server) = server else {
            return own.unwrap_or_default();
        };
        let mut trace = server_trace(&server);
        // The page's own start of the action is the server's, already there.
        let skip = usize::from(!trace.is_empty());
        trace.extend(own.into_iter().flatten().skip(skip));
        trace
    }
}

/// One screen's hold on a read: the read it shows now, and what it needs to find the next one
/// when its request changes.
struct Screen<T: 'static> {
    id: u64,
    view: View<T>,
    policy: RetryPolicy,
    parse: Parser<T>,
    parser: ParserKind,
    shows: RefCell<Rc<Shared<T>>>,
}

impl<T: 'static> Screen<T> {
    fn current(&self) -> Rc<Shared<T>> {
        self.shows.borrow().clone()
    }
}

impl<T> Screen<T>
where
    T: ReadData,
{
    /// The request changed: the screen shows the read of the new one (joined, or new and
    /// started) and leaves the last, which stops as moved on if no other screen shows it.
    fn move_to(&self, request: ReadRequest) {
        let next = read_of(request, &self.policy, &self.parse, self.parser, None);
        next.screens.join(self.id, self.view);
        let last = self.shows.replace(next.clone());
        if last.screens.leave(self.id) {
            let run = last.run.borrow().clone();
            if let Some(run) = run {
                client::input(Some(run.read), |client, now| {
                    client.handle_move_on(now, run.read)
                });
            }
        }
        if next.owned.get() == 0 {
            start(&next);
        }
    }
}

/// The read of `request` under `policy`: one a screen may join (unless the policy turns
/// coalescing off, or the server's render read it: `first`), else a new one, not yet started.
fn read_of<T: 'static>(
    request: ReadRequest,
    policy: &RetryPolicy,
    parse: &Parser<T>,
    parser: ParserKind,
    first: Option<ServerFirst<T>>,
) -> Rc<Shared<T>> {
    let scope: Rc<str> = match policy.scope() {
        Some(name) => name.into(),
        None => origin(request.url()).into(),
    };
    let key = (policy.coalesce() && first.is_none())
        .then(|| ReadKey::new::<T>(scope.clone(), &request, policy, parser))
        .flatten();
    if let Some(joined) = key.as_ref().and_then(coalesce::find::<Shared<T>>) {
        return joined;
    }
    let shared = Rc::new(Shared {
        request,
        scope,
        policy: policy.clone(),
        parse: parse.clone(),
        owned: Cell::new(0),
        run: RefCell::new(None),
        screens: Screens::new(),
        server_text: RefCell::new(first.as_ref().map(|first| first.text.clone())),
        first: RefCell::new(first.map(|first| first.action)),
    });
    if let Some(key) = key {
        coalesce::add(key, &shared);
    }
    shared
}

/// One read and every screen that shows it.
pub(super) struct Shared<T: 'static> {
    request: ReadRequest,
    /// The rate limit this read shares: the policy's scope, or the URL's origin.
    pub(super) scope: Rc<str>,
    pub(super) policy: RetryPolicy,
    parse: Parser<T>,
    /// The generation the screens own (1 for the first action, +1 per new action; 0 before the
    /// first). Kept outside the reactive system: the runtime must still read it after the
    /// components are gone.
    owned: Cell<u64>,
    /// The current action, once one has started.
    run: RefCell<Option<Rc<Run<T>>>>,
    pub(super) screens: Screens<T>,
    /// What the first action does instead of starting, where the server's render read it.
    first: RefCell<Option<FirstAction<T>>>,
    /// The server's trace, while the current action is the one the server's render began
    /// (its trace comes first).
    server_text: RefCell<Option<ServerText>>,
}

impl<T: 'static> Joinable for Shared<T> {
    /// Some screen shows it, and it has not stopped.
    fn joinable(&self) -> bool {
        if self.screens.is_empty() {
            return false;
        }
        match &*self.run.borrow() {
            None => self.owned.get() == 0,
            Some(run) => {
                client::with_read(run.read, |a| *a.phase() != Phase::Stopped).unwrap_or(false)
            }
        }
    }
}

/// One action of a read, and the browser resources it holds. The page forgets it once nothing
/// holds it: no screen's read owns it, and no fetch of it is under way (an answer that arrives
/// after a stop still reaches the ledger).
pub(super) struct Run<T: 'static> {
    shared: Weak<Shared<T>>,
    read: ReadId,
    generation: u64,
    /// The in-flight fetch's controller.
    fetch: RefCell<Option<AbortController>>,
    /// The countdown's refresh while waiting: armed for the next change of the number shown,
    /// so it wakes once a second.
    ticker: RefCell<Option<Timeout>>,
    /// A 2xx body, read, waiting for the core's verdict.
    data: RefCell<Option<T>>,
}

fn start<T>(shared: &Rc<Shared<T>>)
where
    T: ReadData,
{
    let generation = shared.owned.get() + 1;
    shared.owned.set(generation);
    // The last action is let go first: once nothing holds it, the page forgets it.
    drop(shared.run.take());
    let first = shared.first.take();
    if let Some(first) = first {
        first(shared, generation);
        return;
    }
    shared.server_text.replace(None);
    if let Err(e) = shared.request.validate() {
        shared.screens.show(ReadState::Refused(e.into()));
        return;
    }
    let started = client::start(
        &shared.scope,
        shared.policy.clone(),
        run_of(shared, generation),
    );
    if let Err(e) = started {
        shared.screens.show(ReadState::Refused(e.into()));
    }
}

/// What carries out the steps of `shared`'s action of `generation`, once the page names it.
pub(super) fn run_of<T: 'static>(
    shared: &Rc<Shared<T>>,
    generation: u64,
) -> impl FnOnce(ReadId) -> Rc<Run<T>> + '_ {
    let weak = Rc::downgrade(shared);
    move |read| {
        let run = Rc::new(Run {
            shared: weak,
            read,
            generation,
            fetch: RefCell::new(None),
            ticker: RefCell::new(None),
            data: RefCell::new(None),
        });
        // The screens own it before its first step is carried out.
        *shared.run.borrow_mut() = Some(run.clone());
        run
    }
}

/// The user left (unmount, navigation or Cancel): the current action stops as `user_left`.
fn leave<T>(shared: &Rc<Shared<T>>) {
    let run = shared.run.borrow().clone();
    if let Some(run) = run {
        client::input(Some(run.read), |client, now| {
            client.handle_leave(now, run.read)
        });
    }
}

impl<T> RunningRead for Run<T>
where
    T: ReadData,
{
    fn carry_out(self: Rc<Self>, step: Step) {
        let Some(shared) = self.shared.upgrade() else {
            return;
        };
        let owned = shared.owned.get() == self.generation;
        let of = shared.policy.max_attempts();
        match step {
            Step::StartAttempt { number, .. } => {
                self.ticker.replace(None);
                if owned {
                    shared.screens.show(ReadState::Loading {
                        attempt: number,
                        of,
                    });
                }
                match AbortController::new() {
                    Ok(controller) => {
                        self.fetch.replace(Some(controller.clone()));
                        leptos::task::spawn_local(attempt(shared, self, controller));
                    }
                    Err(_) => client::input(Some(self.read), |client, now| {
                        client.handle_transport_failure(
                            now,
                            self.read,
                            TransportFailure::CannotAbort,
                        )
                    }),
                }
            }
            Step::Queue { number, limit, .. } => {
                self.ticker.replace(None);
                if owned {
                    shared.screens.show(ReadState::Queued {
                        next: number,
                        of,
                        limit,
                    });
                }
            }
            Step::Wait {
                next,
                until,
                reason,
            } => {
                if owned {
                    shared.screens.show_clock(now());
                    shared.screens.show(ReadState::Waiting {
                        next,
                        of,
                        until,
                        reason,
                    });
                    self.ticker.replace(countdown_tick(
                        Rc::downgrade(&shared),
                        Rc::downgrade(&self),
                        until,
                    ));
                }
            }
            Step::Stop(report) => {
                if let Some(controller) = self.fetch.take() {
                    controller.abort();
                }
                self.ticker.replace(None);
                let data = self.data.take();
                if owned {
                    shared.screens.show(match (report.outcome, data) {
                        (Outcome::Succeeded, Some(data)) => ReadState::Loaded { data, report },
                        _ => ReadState::Stopped(report),
                    });
                }
            }
        }
    }

    fn traced(&self) {
        if let Some(shared) = self.shared.upgrade() {
            if shared.owned.get() == self.generation {
                shared.screens.show_trace();
            }
        }
    }
}

/// Arms the countdown's next refresh: when the whole seconds shown before `until` next change
/// (every screen's `clock` signal is written then, and only then). `None` once it shows its
/// last second.
fn countdown_tick<T: ReadData>(
    shared: Weak<Shared<T>>,
    run: Weak<Run<T>>,
    until: Duration,
) -> Option<Timeout> {
    let step = next_change(until.saturating_sub(now()))?;
    Some(Timeout::new(timer_ms(step), move || {
        if let Some(shared) = shared.upgrade() {
            shared.screens.show_clock(now());
        }
        if let Some(run) = run.upgrade() {
            let next = countdown_tick(shared.clone(), Rc::downgrade(&run), until);
            run.ticker.replace(next);
        }
    }))
}

/// Attempt on the wire, and its answer to the page (the ledger first, by the page's rule).
async fn attempt<T>(shared: Rc<Shared<T>>, run: Rc<Run<T>>, controller: AbortController)
where
    T: ReadData,
{
    let limit = shared.policy.max_body_bytes();
    let answer = fetch(&shared.request, limit, &*shared.parse, &controller).await;
    let read = run.read;
    match answer {
        // Our own abort (leave, cancel or cap): nothing arrived, nothing to record.
        Answer::Failed if controller.signal().aborted() => {}
        Answer::Failed => client::input(Some(read), |client, now| {
            client.handle_transport_failure(now, read, TransportFailure::Network)
        }),
        // Also where our own abort cut a body short: the action has stopped, so the core
        // records the answer as dropped.
        Answer::Response(response, body) => {
            let body = body.map(|data| {
                run.data.replace(data);
            });
            let wall_clock = wall_clock();
            client::input(Some(read), |client, now| {
                client.handle_response(now, read, &response, Some(wall_clock), body)
            });
        }
    }
}
