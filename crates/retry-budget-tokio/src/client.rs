//! One process's reads: the core's [`Client`](retry_budget::Client) behind a lock, one timer
//! task, and for each read a future that carries out its steps. This file only does IO: it
//! reads the clock for every input, carries each event to the read it is for, and arms the one
//! timer; every rule of how reads and their ledger meet is the core's.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::{Duration, SystemTime};

use retry_budget::body::BodyProblem;
use retry_budget::policy::PolicyError;
use retry_budget::report::TransportFailure;
use retry_budget::request::ReadRequest;
use retry_budget::scope::{RetryPurse, ScopePolicyError, ScopeState};
use retry_budget::{
    ClientEvent, HandOver, Outcome, ReadId, RetryPolicy, ScopePolicy, Step, StopReport, TraceEvent,
};
use tokio::sync::{mpsc, Notify};
use tokio::time::Instant;

use crate::attempt::{self, Answer};
use crate::error::{OriginError, ReadError};
use crate::observe;
use crate::origins::AllowedOrigins;
use crate::share::{LedgerShare, SharedBlock};

/// One process's reads of rate-limited APIs, and the one ledger they share: a `429` met by one
/// read (one render of one visitor) holds back every read on its scope, queued reads are
/// granted under the scope's in-flight limit, and past its cap on waiting reads a new read
/// stops at once. Clones share it; make one per process.
///
/// It reads only from the origins it was given ([`AllowedOrigins`]); every other URL is refused
/// by name before anything is sent, and so is a redirect to one.
#[derive(Clone)]
pub struct Client {
    shared: Arc<Shared>,
}

/// What a server's read came to ([`Client::read_or_hand_over`]), but for a stop.
#[derive(Clone, Debug, PartialEq)]
pub enum Served<T> {
    /// The data arrived.
    Loaded(Loaded<T>),
    /// The read waits past what the render may hold: the browser goes on with it
    /// ([`retry_budget::ReadAction::resume`]), from `hand_over`.
    HandedOver {
        /// What the browser goes on from.
        hand_over: HandOver,
        /// What happened to the read here, up to the hand-over.
        trace: Vec<TraceEvent>,
    },
    /// The read's first attempt waited for a place among its scope's requests in flight (the
    /// scope's [`in_flight_limit`](ScopePolicy::in_flight_limit)) past what the render may
    /// hold, so it was given up here before it sent anything: the browser makes it.
    NotSent,
}

/// What a read that loaded gives: the data, and how the read went (its attempts, its time).
#[derive(Clone, Debug, PartialEq)]
pub struct Loaded<T> {
    /// The data.
    pub data: T,
    /// How the read ended (`succeeded`).
    pub report: StopReport,
    /// What happened to the read, event by event.
    pub trace: Vec<TraceEvent>,
}

/// How a read the middleware or the layer carried went: in the extensions of the response
/// it gives, and in its stop's error.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadRecord {
    /// How the read ended.
    pub report: StopReport,
    /// What happened to it, event by event.
    pub trace: Vec<TraceEvent>,
}

struct Shared {
    core: Mutex<Core>,
    http: reqwest::Client,
    allowed: AllowedOrigins,
    /// The driver's clock starts here: `now` is the time since.
    origin: Instant,
    /// Wakes the timer task: the earliest timer may have moved, or the client is gone.
    timer: Arc<Notify>,
    seeds: RandomState,
    /// The other processes' ledgers, where the app shares this one with them.
    share: OnceLock<Box<dyn LedgerShare>>,
}

struct Core {
    client: retry_budget::Client,
    /// Where each running read's steps go.
    reads: HashMap<ReadId, mpsc::UnboundedSender<ToRead>>,
    timer_started: bool,
    /// The core's timer the timer task sleeps until (`None`: until woken). Only a timer
    /// earlier than this wakes it: one that moved later finds it awake in time anyway, and
    /// each wake is a hop to another thread.
    timer_sleeps_until: Option<Duration>,
}

impl Client {
    /// A client that reads only from `allowed`, through a `reqwest` client of its own that
    /// follows a redirect only to an allowed origin (at most 10 in a row).
    ///
    /// # Panics
    ///
    /// Where `reqwest` cannot build a client, as `reqwest::Client::new` does (its TLS backend
    /// or the system's resolver configuration failed to load). [`with_http`](Self::with_http)
    /// returns the error instead.
    pub fn new(allowed: AllowedOrigins) -> Self {
        Self::with_http(allowed, reqwest::Client::builder())
            .unwrap_or_else(|e| panic!("reqwest could not build a client: {e}"))
    }

    /// The same, through a `reqwest` client the app configures (its TLS, its proxy, its
    /// connection pool). Its redirect policy is this client's, whatever the builder said:
    /// a redirect is followed only to an allowed origin, at most 10 in a row, and otherwise the
    /// redirect itself is the answer (a `3xx`, not retried), so nothing reaches another origin.
    pub fn with_http(
        allowed: AllowedOrigins,
        http: reqwest::ClientBuilder,
    ) -> Result<Self, reqwest::Error> {
        let http = http.redirect(allowed.redirect_policy()).build()?;
        Ok(Self {
            shared: Arc::new(Shared {
                core: Mutex::new(Core {
                    // One process sees every caller: it learns the pace each scope serves.
                    client: retry_budget::Client::new().with_learned_pace(true),
                    reads: HashMap::new(),
                    timer_started: false,
                    timer_sleeps_until: None,
                }),
                http,
                allowed,
                origin: Instant::now(),
                timer: Arc::new(Notify::new()),
                seeds: RandomState::new(),
                share: OnceLock::new(),
            }),
        })
    }

    /// This client with the learned pace on (the default) or off
    /// ([`retry_budget::Client::with_learned_pace`]): on, after a block the reads it held
    /// start one at a time at the pace the scope served before it refused, instead of all at
    /// its end. Off only to compare, or for an API whose refusals say nothing of its pace.
    pub fn with_learned_pace(self, on: bool) -> Self {
        {
            let mut core = self.shared.lock();
            let client = std::mem::take(&mut core.client);
            core.client = client.with_learned_pace(on);
        }
        self
    }

    /// Shares this process's ledger with the other processes reading the same quotas, through
    /// `share` (such as `retry-budget-redis`): every block this process learns is published
    /// as it is learned, and every read takes the others' block on its scope before it starts.
    /// Once per client; a second share is refused (and given back).
    pub fn share_with(&self, share: impl LedgerShare) -> Result<(), Box<dyn LedgerShare>> {
        self.shared.share.set(Box::new(share))?;
        // Where a scope's policy limits its requests in flight, the limit is every process's
        // together: each attempt takes its place from the share
        // ([`retry_budget::Client::with_shared_leases`]).
        let mut core = self.shared.lock();
        let client = std::mem::take(&mut core.client);
        core.client = client.with_shared_leases(true);
        Ok(())
    }

    /// Gives `scope` the policy its reads share, once ([`retry_budget::Client::handle_scope_policy`]).
    pub fn scope_policy(&self, scope: &str, policy: ScopePolicy) -> Result<(), ScopePolicyError> {
        self.shared.lock().client.handle_scope_policy(scope, policy)
    }

    /// What the ledger knows of `scope` now.
    pub fn scope_state(&self, scope: &str) -> ScopeState {
        self.shared.lock().client.scope_state(scope)
    }

    /// The origins this client may read.
    pub(crate) fn allowed(&self) -> &AllowedOrigins {
        &self.shared.allowed
    }

    /// How many scopes the ledger holds now ([`retry_budget::Client::known_scopes`]).
    pub fn known_scopes(&self) -> usize {
        self.shared.lock().client.known_scopes()
    }

    /// Reads `request` under `policy`, its body parsed by `parse`: attempts, waits and stops as
    /// the core decides, on this process's one ledger (the scope is the policy's, or the URL's
    /// origin). Dropping the future leaves the read (`user_left`): its request in flight is
    /// dropped, so aborted, and nothing more is sent for it.
    pub async fn read<T>(
        &self,
        request: &ReadRequest,
        policy: RetryPolicy,
        parse: impl Fn(&[u8]) -> Result<T, BodyProblem> + Sync,
    ) -> Result<Loaded<T>, ReadError> {
        match self.run_parsed(request, policy, parse, false).await? {
            Served::Loaded(loaded) => Ok(loaded),
            // Never asked for: this read holds as long as its budget allows.
            Served::HandedOver { .. } | Served::NotSent => std::future::pending().await,
        }
    }

    /// [`read`](Self::read) for a server's render, which must not hold its page for long:
    /// the read holds for its waits only until the policy's
    /// [`server_hold`](RetryPolicy::server_hold) after its start (by default not at all), and
    /// a wait that would end later is handed over ([`Served::HandedOver`]) for the browser to
    /// go on with. What its `429`s taught this process's ledger stays.
    pub async fn read_or_hand_over<T>(
        &self,
        request: &ReadRequest,
        policy: RetryPolicy,
        parse: impl Fn(&[u8]) -> Result<T, BodyProblem> + Sync,
    ) -> Result<Served<T>, ReadError> {
        self.run_parsed(request, policy, parse, true).await
    }

    /// [`run`](Self::run) with each attempt sent by this client's own HTTP client, a 2xx's body
    /// read up to the policy's limit and parsed by `parse`.
    async fn run_parsed<T>(
        &self,
        request: &ReadRequest,
        policy: RetryPolicy,
        parse: impl Fn(&[u8]) -> Result<T, BodyProblem> + Sync,
        may_hand_over: bool,
    ) -> Result<Served<T>, ReadError> {
        let limit = policy.max_body_bytes();
        let http = &self.shared.http;
        let parse = &parse;
        let send = move || async move { Ok(attempt::send(http, request, limit, parse).await) };
        self.run(request, policy, may_hand_over, send).await
    }

    /// [`run`](Self::run) for an adapter that hands the app what it loaded (the middleware,
    /// the layer): never handed over, the data with how the read went, or how it did not load.
    #[cfg(any(feature = "middleware", feature = "tower"))]
    pub(crate) async fn carry<T, F>(
        &self,
        request: &ReadRequest,
        policy: RetryPolicy,
        send: impl FnMut() -> F,
    ) -> Result<(T, ReadRecord), NotLoaded>
    where
        F: std::future::Future<Output = Result<Answer<T>, OriginError>>,
    {
        match self.run(request, policy, false, send).await {
            Ok(Served::Loaded(Loaded {
                data,
                report,
                trace,
            })) => Ok((data, ReadRecord { report, trace })),
            // Never asked for: such a read holds as long as its budget allows.
            Ok(Served::HandedOver { .. } | Served::NotSent) => std::future::pending().await,
            Err(ReadError::Stopped { report, trace }) => {
                Err(NotLoaded::Stopped(ReadRecord { report, trace }))
            }
            Err(refused) => Err(NotLoaded::Refused(refused)),
        }
    }

    /// A read carried out to its stop, or to its hand-over where `may_hand_over`, each attempt
    /// made by `send` (dropped, so aborted, where the attempt's cap runs out first). An answer
    /// `send` refuses (from an origin not allowed) ends the read with that refusal.
    pub(crate) async fn run<T, F>(
        &self,
        request: &ReadRequest,
        policy: RetryPolicy,
        may_hand_over: bool,
        mut send: impl FnMut() -> F,
    ) -> Result<Served<T>, ReadError>
    where
        F: std::future::Future<Output = Result<Answer<T>, OriginError>>,
    {
        request.validate_on_server()?;
        policy.validate()?;
        let origin = self.allowed().check(request.url())?;
        let scope = policy.scope().map_or(origin, str::to_owned);
        let hold_until = self.shared.now().saturating_add(policy.server_hold());
        let span = observe::read_span(&scope);
        // What the other processes know of the scope, before anything is sent: a block they
        // hold holds this read too.
        if let Some(share) = self.shared.share.get() {
            if let Some(block) = share.fetch(&scope).await {
                observe::block_taken(&span, &block);
                // Kept if it ends later than what this ledger holds; a scope with a block
                // running is remembered even before its first read here.
                self.shared.input(|c, now| {
                    c.handle_block(now, &scope, block.at(now));
                });
            }
        }
        let (steps, mut next) = mpsc::unbounded_channel();
        let read = self.shared.start(&scope, policy, steps)?;
        let mut leave = Leave {
            shared: &self.shared,
            read,
            span: &span,
            stopped: false,
        };
        let mut data = None;
        let next_step =
            async |next: &mut mpsc::UnboundedReceiver<ToRead>| self.next_step(read, next).await;
        let mut step = next_step(&mut next).await;
        loop {
            observe::step(&span, &step, self.shared.now());
            match step {
                Step::StartAttempt { .. } => {
                    tokio::select! {
                        answer = send() => {
                            // Nothing is handed on from an origin not allowed; the read is
                            // left (`Leave`).
                            let answer = answer?;
                            match &answer {
                                Answer::Response(response, _) => observe::answer(&span, response),
                                Answer::Failed => observe::no_answer(&span),
                            }
                            data = self.shared.answer(read, answer);
                            step = next_step(&mut next).await;
                        }
                        // The attempt's cap ran out (or the read stopped otherwise): the
                        // attempt is dropped, which aborts its request.
                        other = next_step(&mut next) => step = other,
                    }
                }
                Step::Wait { until, .. } if may_hand_over && until > hold_until => {
                    if let Some((hand_over, trace)) = self.shared.hand_over(read) {
                        observe::handed_over(&span, &hand_over);
                        leave.stopped = true;
                        return Ok(Served::HandedOver { hand_over, trace });
                    }
                    step = next_step(&mut next).await;
                }
                Step::Queue { number: 1, .. } if may_hand_over => {
                    // The first attempt queued: held no later than the render may be, then let
                    // go unsent. (A retry is never queued here: its wait is handed over first.)
                    // Where its place is asked of the share, the ask is not a queue: it is
                    // given the share's time to answer.
                    let asking = self.shared.share.get().map(|s| s.answers_within());
                    let asked = self.shared.now() + asking.unwrap_or_default();
                    let hold = tokio::time::sleep_until(self.shared.origin + hold_until.max(asked));
                    tokio::select! {
                        other = next_step(&mut next) => step = other,
                        () = hold => return Ok(Served::NotSent),
                    }
                }
                Step::Wait { .. } | Step::Queue { .. } => step = next_step(&mut next).await,
                Step::Stop(report) => {
                    leave.stopped = true;
                    let trace = self.shared.forget(read);
                    return match (report.outcome, data) {
                        (Outcome::Succeeded, Some(data)) => Ok(Served::Loaded(Loaded {
                            data,
                            report,
                            trace,
                        })),
                        _ => Err(ReadError::Stopped { report, trace }),
                    };
                }
            }
        }
    }
}

impl Client {
    /// `read`'s next step. On the way, it carries out what the core asks of the read's own
    /// future: a token from the shared purse, taken here so that dropping the read drops the
    /// call. Its sender is kept in the client until the read is forgotten, after its stop;
    /// without one, no step could come, and the read would wait until dropped.
    async fn next_step(&self, read: ReadId, steps: &mut mpsc::UnboundedReceiver<ToRead>) -> Step {
        loop {
            match steps.recv().await {
                Some(ToRead::Step(step)) => return *step,
                Some(ToRead::TakeLease(lease)) => {
                    let (scope, limit, cap) = *lease;
                    let taken = match self.shared.share.get() {
                        Some(share) => share.take_lease(&scope, read.number(), limit, cap).await,
                        None => None,
                    };
                    self.shared.input(|c, now| c.handle_lease(now, read, taken));
                }
                Some(ToRead::TakeToken(token)) => {
                    let (scope, purse) = *token;
                    let taken = match self.shared.share.get() {
                        Some(share) => share.take_token(&scope, purse).await,
                        None => None,
                    };
                    self.shared.input(|c, now| c.handle_token(now, read, taken));
                }
                None => std::future::pending().await,
            }
        }
    }
}

/// How a read an adapter carried did not load.
#[cfg(any(feature = "middleware", feature = "tower"))]
pub(crate) enum NotLoaded {
    /// It ran and stopped without data.
    Stopped(ReadRecord),
    /// It was refused before anything was sent (never [`ReadError::Stopped`]).
    Refused(ReadError),
}

/// What the core asks of one read's future. Boxed, so that the channel each read has is
/// small: tokio's unbounded channel allocates its first 32 slots with it, and a `Step` is
/// 160 bytes (5 KB a read, with 10,000 in flight 51 MB; boxed, 0.5 KB).
enum ToRead {
    /// Carry out this step.
    Step(Box<Step>),
    /// Take a token from this scope's shared purse, and tell the core what came of it.
    TakeToken(Box<(String, RetryPurse)>),
    /// Take one of this scope's shared places in flight (of the limit, for the cap), and tell
    /// the core what came of it.
    TakeLease(Box<(String, u32, Duration)>),
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Core> {
        // A panic while holding the lock leaves the core as it was before the input.
        self.core
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    /// Starts a read on `scope` whose steps go to `steps`; its first step follows at once.
    fn start(
        self: &Arc<Self>,
        scope: &str,
        policy: RetryPolicy,
        steps: mpsc::UnboundedSender<ToRead>,
    ) -> Result<ReadId, PolicyError> {
        let mut core = self.lock();
        if !core.timer_started {
            core.timer_started = true;
            tokio::spawn(run_timer(Arc::downgrade(self), self.timer.clone()));
        }
        let seed = self.seeds.hash_one(SystemTime::now());
        let read = core.client.handle_start(self.now(), scope, policy, seed)?;
        core.reads.insert(read, steps);
        self.carry_out(core);
        Ok(read)
    }

    /// One input to the core at the time now, then its events carried to their reads.
    fn input(&self, handle: impl FnOnce(&mut retry_budget::Client, Duration)) {
        let mut core = self.lock();
        handle(&mut core.client, self.now());
        self.carry_out(core);
    }

    /// Carries every event the core decided to the read it is for, then wakes the timer if the
    /// earliest timer is now earlier than the one it sleeps until.
    fn carry_out(&self, mut core: MutexGuard<'_, Core>) {
        while let Some(event) = core.client.poll_event() {
            match event {
                ClientEvent::Step { read, step } => {
                    if let Some(steps) = core.reads.get(&read) {
                        // A read whose future is gone has left; its steps have no one to reach.
                        let _ = steps.send(ToRead::Step(Box::new(step)));
                    }
                }
                ClientEvent::TakeToken { read, scope, purse } => {
                    if let Some(steps) = core.reads.get(&read) {
                        let _ = steps.send(ToRead::TakeToken(Box::new((scope, purse))));
                    }
                }
                ClientEvent::TakeLease {
                    read,
                    scope,
                    limit,
                    cap,
                } => {
                    if let Some(steps) = core.reads.get(&read) {
                        let _ = steps.send(ToRead::TakeLease(Box::new((scope, limit, cap))));
                    }
                }
                ClientEvent::GiveLease { scope, read } => {
                    if let Some(share) = self.share.get() {
                        share.give_lease(&scope, read.number());
                    }
                }
                ClientEvent::GiveBack {
                    scope,
                    thousandths,
                    purse,
                } => {
                    if let Some(share) = self.share.get() {
                        share.give_back(&scope, thousandths, purse);
                    }
                }
                // Every read of this process shares the ledger; other processes hear of a
                // block through the share, if there is one, before the read that met it is
                // told to wait.
                ClientEvent::Blocked { scope, block } => {
                    if let Some(learned) = SharedBlock::of(&block, self.now()) {
                        observe::block_learned(&scope, &learned);
                        if let Some(share) = self.share.get() {
                            share.publish(&scope, learned);
                        }
                    }
                }
            }
        }
        let sooner = match (core.client.poll_timeout(), core.timer_sleeps_until) {
            (Some(at), Some(sleeps_until)) => at < sleeps_until,
            (Some(_), None) => true,
            (None, _) => false,
        };
        drop(core);
        if sooner {
            self.timer.notify_one();
        }
    }

    /// The answer to `read`'s attempt: the core hears it (where the process shares its ledger,
    /// as an answer whose retry the shared purse pays); the data, for a usable 2xx.
    fn answer<T>(&self, read: ReadId, answer: Answer<T>) -> Option<T> {
        match answer {
            Answer::Response(response, body) => {
                let (verdict, data) = match body {
                    None => (Ok(()), None),
                    Some(Ok(data)) => (Ok(()), Some(data)),
                    Some(Err(problem)) => (Err(problem), None),
                };
                let wall_clock = Some(SystemTime::now());
                let shared = self.share.get().is_some();
                self.input(|c, now| {
                    if shared {
                        c.handle_shared_response(now, read, &response, wall_clock, verdict);
                    } else {
                        c.handle_response(now, read, &response, wall_clock, verdict);
                    }
                });
                data
            }
            Answer::Failed => {
                self.input(|c, now| {
                    c.handle_transport_failure(now, read, TransportFailure::Network)
                });
                None
            }
        }
    }

    /// Hands `read` over while it waits, with its trace: it leaves the core without a stop.
    fn hand_over(&self, read: ReadId) -> Option<(HandOver, Vec<TraceEvent>)> {
        let mut core = self.lock();
        let trace = core.client.read(read)?.trace().to_vec();
        let hand_over = core.client.hand_over(self.now(), read)?;
        core.reads.remove(&read);
        self.carry_out(core);
        Some((hand_over, trace))
    }

    /// Forgets a stopped read, and where its steps went; gives back its trace.
    fn forget(&self, read: ReadId) -> Vec<TraceEvent> {
        let mut core = self.lock();
        core.reads.remove(&read);
        let action = core.client.remove(read);
        action.map(|a| a.trace().to_vec()).unwrap_or_default()
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        // The timer task holds the client weakly: woken, it finds it gone and ends.
        self.timer.notify_one();
    }
}

/// A read whose future is dropped before its stop leaves: the core stops it (`user_left`), and
/// it is forgotten.
struct Leave<'a> {
    shared: &'a Arc<Shared>,
    read: ReadId,
    span: &'a tracing::Span,
    stopped: bool,
}

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        if !self.stopped {
            observe::left(self.span);
            let read = self.read;
            self.shared.input(|c, now| c.handle_leave(now, read));
            self.shared.forget(read);
        }
    }
}

/// The process's one timer: it sleeps until the core's earliest timer, fires it, and sleeps
/// again; woken early whenever an input moved it sooner. It ends once the client is gone.
async fn run_timer(shared: Weak<Shared>, wake: Arc<Notify>) {
    loop {
        let next = match shared.upgrade() {
            Some(s) => {
                let mut core = s.lock();
                core.timer_sleeps_until = core.client.poll_timeout();
                core.timer_sleeps_until.map(|t| s.origin + t)
            }
            None => return,
        };
        match next {
            Some(at) => tokio::select! {
                () = tokio::time::sleep_until(at) => match shared.upgrade() {
                    Some(s) => s.input(|c, now| c.handle_timeout(now)),
                    None => return,
                },
                () = wake.notified() => {}
            },
            None => wake.notified().await,
        }
    }
}
