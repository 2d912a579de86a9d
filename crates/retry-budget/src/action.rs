//! One read action: a sans-IO state machine that decides start / wait / stop.

use std::time::{Duration, SystemTime};

use super::block::ScopeBlock;
use super::body::BodyProblem;
use super::clock::ClockSource;
use super::policy::{is_success, PolicyError, RetryPolicy};
use super::random::SplitMix64;
use super::report::{
    Cancelled, HeldBy, LastResponse, Outcome, Overrun, StopReport, TransportFailure,
};
use super::response::{Reading, Response};
use super::retry_after::{HeaderNote, RetryAfter};
use super::trace::{DropReason, Event, Failure, TraceEvent};
pub use super::wait::WaitReason;
use super::wire::HandOver;

/// What the driver must do next. `deadline` and `until` are on the driver's monotonic clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Start attempt `number` (1-based) now; abort it if it runs past `deadline`.
    StartAttempt {
        /// Which attempt.
        number: u32,
        /// When its cap runs out (also what `poll_timeout` returns while it is in flight).
        deadline: Duration,
    },
    /// Queue for a place among the scope's requests in flight (the scope's
    /// [`in_flight_limit`](super::ScopePolicy::in_flight_limit)): the [`Client`](super::Client)
    /// starts the attempt when its turn comes, and stops it at `latest`, the last start at
    /// which the attempt fits the budget with its full cap. Show it as queued.
    Queue {
        /// The attempt that queues.
        number: u32,
        /// The last moment it may start.
        latest: Duration,
        /// The most requests to the scope in flight beside which it may start.
        limit: u32,
    },
    /// Send nothing until `until`, then call `handle_timeout`.
    Wait {
        /// The attempt that starts when the wait ends, if it still fits then (what a screen
        /// shows as "attempt 2 of 3").
        next: u32,
        /// The planned wake.
        until: Duration,
        /// Why.
        reason: WaitReason,
    },
    /// The action is over: abort any fetch, clear any timer, show the report.
    Stop(StopReport),
}

/// Where the action is now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// An attempt is in flight.
    InFlight {
        /// Which one.
        attempt: u32,
        /// When it started (driver's clock).
        started: Duration,
        /// When its cap runs out (driver's clock).
        deadline: Duration,
    },
    /// Waiting for the next attempt.
    Waiting {
        /// When the wait began (driver's clock).
        since: Duration,
        /// The planned wake (driver's clock).
        until: Duration,
        /// Why.
        reason: WaitReason,
    },
    /// Queued for a place among the scope's requests in flight.
    Queued {
        /// When it queued (driver's clock).
        since: Duration,
        /// The last start at which the attempt fits (driver's clock).
        latest: Duration,
        /// The most requests to the scope in flight beside which it may start.
        limit: u32,
    },
    /// Over; the report says how.
    Stopped,
}

/// What overran the budget when a wait for `reason` could not fit: the server's delay where one
/// decided it, else the client's own wait.
fn overrun(reason: &WaitReason) -> Overrun {
    match reason.requested() {
        Some(delay) => Overrun::ServerDelay(delay),
        None => Overrun::LocalWait,
    }
}

/// The wait a retryable answer plans, before jitter ([`ReadAction::plan`]).
struct Planned {
    /// Why it is as long as it is.
    reason: WaitReason,
    /// Its earliest end, where the next attempt fits.
    until: Duration,
    /// The most jitter may add to it.
    spread: Duration,
}

/// What a received response means for the action (contract step 1).
enum Class {
    /// A 2xx: the action succeeded.
    Success,
    /// Neither 2xx nor retryable: the action stops under its own outcome.
    NotRetried,
    /// Retryable, with what `Retry-After` said (or what was wrong with it).
    Retry(Result<RetryAfter, HeaderNote>),
}

/// One read action with its own finite budget.
///
/// Inputs are `handle_*(now, …)`; outputs are [`poll_action`](Self::poll_action) and the one
/// timer [`poll_timeout`](Self::poll_timeout). `now` is any monotonic clock reading as a
/// [`Duration`] from a fixed origin; the action never reads a clock itself.
///
/// ```
/// use std::time::Duration;
/// use retry_budget::report::Overrun;
/// use retry_budget::{Outcome, ReadAction, Response, RetryPolicy, Step};
///
/// let s = Duration::from_secs;
/// let mut action = ReadAction::start(s(0), RetryPolicy::new()).unwrap();
/// assert!(matches!(action.poll_action(), Some(Step::StartAttempt { number: 1, .. })));
/// action.handle_response(s(2), &Response::new(429).retry_after("30"), None);
/// let Some(Step::Stop(report)) = action.poll_action() else { panic!() };
/// assert_eq!(report.outcome, Outcome::BudgetExhausted(Overrun::ServerDelay(s(30))));
/// let detail = report.message().detail().unwrap().to_string();
/// assert_eq!(detail, "The service requested a 30-second delay. No retry was sent.");
/// ```
#[derive(Clone, Debug)]
pub struct ReadAction {
    policy: RetryPolicy,
    origin: Duration,
    phase: Phase,
    attempts: u32,
    request_time: Duration,
    waited_time: Duration,
    last_response: Option<LastResponse>,
    /// The one step the driver has not polled yet. Every input decides at most one step, and
    /// each step supersedes the one before it (a stop ends a wait or an attempt that was never
    /// carried out; a start ends a wait), so a single slot that keeps the newest is enough: a
    /// driver that polls after every input sees every step, and one that polls late sees the
    /// step that matters now.
    pending: Option<Step>,
    trace: Vec<TraceEvent>,
    report: Option<StopReport>,
    /// The longest block learned for this action's scope; no attempt starts before its end.
    scope_block: Option<ScopeBlock>,
    /// The jitter's random numbers, seeded at the start.
    draws: SplitMix64,
    /// The most requests to the scope in flight at once, from the scope's policy: before each
    /// attempt the action queues for a place. `None` (a read on its own, or a scope with no
    /// limit): it never queues.
    in_flight_limit: Option<u32>,
    /// Whether its scope's learned pace spreads the release of its blocks (and gives its
    /// turns): a wait for a block's end then ends exactly there, with no jitter.
    paced: bool,
}

impl ReadAction {
    /// Starts an action at `now` under `policy` (refused if the policy is invalid). Its first
    /// step is to start attempt 1 at once.
    /// Its jitter, if the policy asks for any, is drawn from a fixed seed (0).
    pub fn start(now: Duration, policy: RetryPolicy) -> Result<Self, PolicyError> {
        Self::start_under(now, policy, None, None, 0)
    }

    /// [`start`](Self::start) on a scope that may be blocked: with `block` still running at
    /// `now` (from the scope's ledger), the first step
    /// is to wait for its end if attempt 1 then fits the budget with its full cap, and
    /// otherwise to stop at once as `budget_exhausted`, with no request sent. With an
    /// `in_flight_limit` (the scope's), every attempt queues for a place first. `seed` is where
    /// the policy's jitter is drawn from: a random number in a driver, so that actions held
    /// back together return apart; any fixed number in a test or a replay.
    pub(crate) fn start_under(
        now: Duration,
        policy: RetryPolicy,
        block: Option<ScopeBlock>,
        in_flight_limit: Option<u32>,
        seed: u64,
    ) -> Result<Self, PolicyError> {
        Self::begin(now, policy, block, in_flight_limit, seed, false)
    }

    /// [`start_under`](Self::start_under) on a scope whose learned pace spreads the release of
    /// its blocks: `block` (a block, or the first attempt's turn) and every later one are
    /// waited for exactly, with no jitter.
    pub(crate) fn start_paced(
        now: Duration,
        policy: RetryPolicy,
        block: Option<ScopeBlock>,
        in_flight_limit: Option<u32>,
        seed: u64,
    ) -> Result<Self, PolicyError> {
        Self::begin(now, policy, block, in_flight_limit, seed, true)
    }

    /// A started action's first step, on a scope that may be blocked, limited or paced.
    fn begin(
        now: Duration,
        policy: RetryPolicy,
        block: Option<ScopeBlock>,
        in_flight_limit: Option<u32>,
        seed: u64,
        paced: bool,
    ) -> Result<Self, PolicyError> {
        let mut action = Self::started(now, policy, block, seed)?;
        action.in_flight_limit = in_flight_limit;
        action.paced = paced;
        action.start_or_wait_for_scope(now);
        Ok(action)
    }

    /// An action that starts at `now` on a scope already holding `max` delayed reads, where it
    /// would be one more ([`ScopePolicy::with_max_waiting`](super::ScopePolicy::with_max_waiting)): it stops at once, before any
    /// request, and says so.
    pub(crate) fn turned_away(
        now: Duration,
        policy: RetryPolicy,
        max: u32,
    ) -> Result<Self, PolicyError> {
        let mut action = Self::started(now, policy, None, 0)?;
        action.stop(
            now,
            Outcome::BudgetExhausted(Overrun::Scope(HeldBy::MaxWaiting { max })),
        );
        Ok(action)
    }

    /// [`resume`](Self::resume) on a scope: `block` and `in_flight_limit` are the scope's, as
    /// for [`start_under`](Self::start_under).
    pub(crate) fn resume_under(
        now: Duration,
        origin: Duration,
        policy: RetryPolicy,
        hand_over: &HandOver,
        block: Option<ScopeBlock>,
        in_flight_limit: Option<u32>,
    ) -> Result<Self, PolicyError> {
        let mut action = Self::started(origin.min(now), policy, None, 0)?;
        action.scope_block = block;
        action.in_flight_limit = in_flight_limit;
        action.attempts = hand_over.attempts;
        action.last_response = hand_over.last_response.clone();
        action.record(
            now,
            Event::HandedOver {
                attempts: hand_over.attempts,
                wait: hand_over.wait,
            },
        );
        if action.attempts >= action.policy.max_attempts() {
            action.stop(now, Outcome::AttemptsExhausted);
            return Ok(action);
        }
        let reason = hand_over.reason.clone();
        let Some(until) = now.checked_add(hand_over.wait).filter(|t| action.fits(*t)) else {
            action.stop(now, Outcome::BudgetExhausted(overrun(&reason)));
            return Ok(action);
        };
        match action.scope_block.filter(|b| b.until > until) {
            Some(block) => action.wait_for_scope(now, block),
            None => action.begin_wait(now, until, Duration::ZERO, reason),
        }
        Ok(action)
    }

    /// Goes on at `now` with an action another client handed over while it waited (a server's
    /// render, [`HandOver`]): the same attempts, counted against the same `policy`. The two
    /// clocks share no origin, so both unknowns are taken on the safe side:
    ///
    /// - the next attempt starts no earlier than the hand-over's whole remaining wait after
    ///   `now`, the moment the hand-over is read, which is after the moment it was written:
    ///   never early;
    /// - the deadline is counted from `origin`, a moment on this clock no later than the
    ///   action's true start (in a browser, the page's time origin: the navigation began before
    ///   the server started the read): never late.
    ///
    /// With no attempt left, or no room for the next one with its full cap, it stops at once,
    /// with no request. The rule and its proof are in the [contract](crate::contract).
    pub fn resume(
        now: Duration,
        origin: Duration,
        policy: RetryPolicy,
        hand_over: &HandOver,
    ) -> Result<Self, PolicyError> {
        Self::resume_under(now, origin, policy, hand_over, None, None)
    }

    /// What another client needs to go on with this action at `now` ([`resume`](Self::resume)),
    /// while it waits for its next attempt; `None` in any other phase.
    pub fn hand_over(&self, now: Duration) -> Option<HandOver> {
        let Phase::Waiting { until, reason, .. } = &self.phase else {
            return None;
        };
        Some(HandOver {
            attempts: self.attempts,
            wait: until.saturating_sub(now),
            reason: reason.clone(),
            last_response: self.last_response.clone(),
        })
    }

    /// A valid action, its start traced, that has decided nothing yet.
    fn started(
        now: Duration,
        policy: RetryPolicy,
        block: Option<ScopeBlock>,
        seed: u64,
    ) -> Result<Self, PolicyError> {
        policy.validate()?;
        let mut action = Self {
            origin: now,
            phase: Phase::Stopped,
            attempts: 0,
            request_time: Duration::ZERO,
            waited_time: Duration::ZERO,
            last_response: None,
            pending: None,
            trace: Vec::new(),
            report: None,
            scope_block: block,
            draws: SplitMix64::new(seed),
            in_flight_limit: None,
            paced: false,
            policy,
        };
        action.record(
            now,
            Event::ActionStarted {
                budget: action.policy.budget(),
                max_attempts: action.policy.max_attempts(),
                attempt_cap: action.policy.attempt_cap(),
            },
        );
        Ok(action)
    }

    /// A response arrived at `now`. `local_wall_clock` is the local wall clock's time of receipt,
    /// if the driver has one; it is used only when the response has no readable `Date` and the
    /// policy trusts the local clock. For a 2xx, the driver has read its body and found it
    /// usable (else [`handle_unreadable_response`](Self::handle_unreadable_response)).
    pub fn handle_response(
        &mut self,
        now: Duration,
        response: &Response,
        local_wall_clock: Option<SystemTime>,
    ) {
        let reading = response.read(local_wall_clock, self.policy.trust_local_clock());
        self.receive(now, response, reading, None, true);
    }

    /// A 2xx arrived at `now`, but its body could not be used; `problem` says why, never what
    /// the body held. The response is traced with its status and is the last response; the
    /// action stops as `unreadable_response` and is not retried (a 2xx ends the action). For
    /// any other status the body does not matter: this is
    /// [`handle_response`](Self::handle_response).
    pub fn handle_unreadable_response(
        &mut self,
        now: Duration,
        response: &Response,
        local_wall_clock: Option<SystemTime>,
        problem: BodyProblem,
    ) {
        let reading = response.read(local_wall_clock, self.policy.trust_local_clock());
        self.receive(now, response, reading, Some(problem), true);
    }

    /// A response arrived at `now`, already read (the page reads each response once, for its
    /// ledger and for this action); `body` is what was wrong with a 2xx's body, if anything;
    /// `may_retry` is whether the scope's retry tokens allow a retry.
    pub(crate) fn receive(
        &mut self,
        now: Duration,
        response: &Response,
        reading: Reading,
        body: Option<BodyProblem>,
        may_retry: bool,
    ) {
        let Some(attempt) = self.answer_arrived(now, Some(response.status)) else {
            return;
        };
        let wall_clock = reading.wall_clock;
        let class = self.classify(response, &reading);
        let note = match &class {
            Class::Retry(Err(n)) => Some(n.clone()),
            _ => None,
        };
        // Traced only: the scope's ledger acts on them, for every action on the scope.
        self.record(
            now,
            Event::ResponseReceived {
                attempt,
                status: response.status,
                retry_after: response.retry_after.clone(),
                date: response.date.clone(),
                wall_clock,
                note: note.clone(),
                quota: reading.quota,
                ignored: reading.ignored,
            },
        );
        self.last_response = Some(LastResponse {
            status: response.status,
            retry_after: response.retry_after.clone(),
            note,
        });
        match (class, body) {
            (Class::Success, None) => self.stop(now, Outcome::Succeeded),
            (Class::Success, Some(problem)) => self.stop(now, Outcome::UnreadableResponse(problem)),
            (Class::NotRetried, _) => self.stop(
                now,
                Outcome::NonRetryableResponse {
                    status: response.status,
                },
            ),
            (Class::Retry(_), _) if !may_retry => self.stop(
                now,
                Outcome::BudgetExhausted(Overrun::Scope(HeldBy::RetryTokens)),
            ),
            (Class::Retry(hint), _) => self.plan_wait(now, hint, wall_clock),
        }
    }

    /// The attempt in flight failed at `now` without a usable answer, as `failure` says. Not
    /// retried: the action stops as `transport_failure`.
    pub fn handle_transport_failure(&mut self, now: Duration, failure: TransportFailure) {
        let Some(attempt) = self.answer_arrived(now, None) else {
            return;
        };
        self.record(
            now,
            Event::AttemptFailed {
                attempt,
                failure: Failure::Transport(failure),
            },
        );
        self.stop(now, Outcome::TransportFailure(failure));
    }

    /// The timer from [`poll_timeout`](Self::poll_timeout) fired at `now`. At an attempt's cap the
    /// attempt is over (`attempt_timed_out`); at a wait's end the gate is checked again against
    /// `now`, and the next attempt starts or the action stops. Early calls change nothing.
    pub fn handle_timeout(&mut self, now: Duration) {
        match self.phase {
            Phase::InFlight {
                attempt,
                started,
                deadline,
            } if now >= deadline => self.time_out(now, attempt, started),
            Phase::Queued {
                since,
                latest,
                limit,
            } if now >= latest => {
                self.waited_time += now - since;
                self.stop(
                    now,
                    Outcome::BudgetExhausted(Overrun::Scope(HeldBy::Queue { limit })),
                );
            }
            Phase::Waiting { since, until, .. } if now >= until => {
                self.waited_time += now - since;
                self.record(now, Event::TimerWoke { late: now - until });
                // Contract step 4: recheck against the time now, never reuse the earlier gate.
                if self.attempts >= self.policy.max_attempts() {
                    self.stop(now, Outcome::AttemptsExhausted);
                } else if !self.fits(now) {
                    self.stop(
                        now,
                        Outcome::BudgetExhausted(Overrun::WokeLate(now - until)),
                    );
                } else {
                    self.start_or_wait_for_scope(now);
                }
            }
            _ => {}
        }
    }

    /// The place in flight the action queued for is granted at `now`: its attempt starts.
    /// Nothing happens unless it is queued; a grant after `latest` (a driver that missed the
    /// timer) stops it instead, as [`handle_timeout`](Self::handle_timeout) would have.
    pub(crate) fn handle_grant(&mut self, now: Duration) {
        if let Phase::Queued { since, latest, .. } = self.phase {
            if now > latest {
                return self.handle_timeout(now);
            }
            self.waited_time += now - since;
            self.start_attempt(now);
        }
    }

    /// From now on its scope's learned pace spreads the release of its blocks: a wait for a
    /// block's end ends exactly there, with no jitter ([`start_paced`](Self::start_paced), for
    /// an action that did not start so).
    pub(crate) fn pace_releases(&mut self) {
        self.paced = true;
    }

    /// The most requests to the scope in flight beside which the next attempt may start
    /// (`None`: it never queues), as the scope's ledger says just before it would start.
    pub(crate) fn set_in_flight_limit(&mut self, limit: Option<u32>) {
        self.in_flight_limit = limit;
    }

    /// The action's scope is blocked until `block.until` (a `429` to another action on the
    /// same API, or to this one; see [`Client`](super::Client)). A block never
    /// shortens anything: one that ends sooner than what the action knows changes nothing. A
    /// wait that would end inside the block, or a queued attempt, now ends with it if the next
    /// attempt still fits the budget there with its full cap, and otherwise the action stops
    /// at once as `budget_exhausted`. An attempt in flight is not touched; the block holds the
    /// next one.
    pub(crate) fn handle_scope_block(&mut self, now: Duration, block: ScopeBlock) {
        if self.scope_block.is_some_and(|b| b.until >= block.until) {
            return;
        }
        self.scope_block = Some(block);
        let (since, ends) = match self.phase {
            Phase::Waiting { since, until, .. } => (since, until),
            // A queued attempt leaves the queue: it could only start inside the block.
            Phase::Queued { since, .. } => (since, now),
            _ => return,
        };
        if block.until > ends {
            self.waited_time += now.saturating_sub(since);
            self.wait_for_scope(now, block);
        }
    }

    /// The user left at `now` (navigation, unmount or Cancel): the action stops as `user_left`;
    /// the driver aborts the fetch and clears the timer. Nothing happens to a stopped action.
    pub fn handle_leave(&mut self, now: Duration) {
        match self.phase {
            Phase::InFlight { started, .. } => {
                self.request_time += now.saturating_sub(started);
                self.stop(
                    now,
                    Outcome::UserLeft {
                        cancelled: Cancelled::InFlight,
                    },
                );
            }
            Phase::Waiting { since, .. } | Phase::Queued { since, .. } => {
                self.waited_time += now.saturating_sub(since);
                self.stop(
                    now,
                    Outcome::UserLeft {
                        cancelled: Cancelled::Pending,
                    },
                );
            }
            Phase::Stopped => {}
        }
    }

    /// The screen asked for another request at `now` (its URL or headers changed): the trace
    /// says so, then the action stops as [`handle_leave`](Self::handle_leave) stops it. Nothing
    /// happens to a stopped action.
    pub fn handle_move_on(&mut self, now: Duration) {
        if self.phase != Phase::Stopped {
            self.record(now, Event::MovedOn);
            self.handle_leave(now);
        }
    }

    /// The next step for the driver, once; `None` when there is nothing new to do.
    pub fn poll_action(&mut self) -> Option<Step> {
        self.pending.take()
    }

    /// When to call [`handle_timeout`](Self::handle_timeout): the wait's end, the cap of the
    /// attempt in flight, or the last start of a queued one. `None` once stopped.
    pub fn poll_timeout(&self) -> Option<Duration> {
        match self.phase {
            Phase::InFlight { deadline, .. } => Some(deadline),
            Phase::Waiting { until, .. } => Some(until),
            Phase::Queued { latest, .. } => Some(latest),
            Phase::Stopped => None,
        }
    }

    /// Where the action is now.
    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// Attempts started so far.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The policy.
    pub fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// Elapsed time at `now` since the action started.
    pub fn elapsed(&self, now: Duration) -> Duration {
        now.saturating_sub(self.origin)
    }

    /// Every event so far, in order.
    pub fn trace(&self) -> &[TraceEvent] {
        &self.trace
    }

    /// How the action ended, once it has.
    pub fn report(&self) -> Option<&StopReport> {
        self.report.as_ref()
    }

    /// An answer (a response with `status`, or a failure) arrived at `now`: the attempt it
    /// belongs to, with its request time counted; `None` when it is dropped.
    fn answer_arrived(&mut self, now: Duration, status: Option<u16>) -> Option<u32> {
        let Phase::InFlight {
            attempt,
            started,
            deadline,
        } = self.phase
        else {
            self.drop_answer(now, status, DropReason::NotOwned);
            return None;
        };
        if now > deadline {
            self.drop_answer(now, status, DropReason::PastCap);
            self.time_out(now, attempt, started);
            return None;
        }
        self.request_time += now - started;
        Some(attempt)
    }

    fn drop_answer(&mut self, now: Duration, status: Option<u16>, reason: DropReason) {
        self.record(now, Event::ResponseDropped { status, reason });
    }

    /// Contract step 1, and what `Retry-After` says where it matters.
    fn classify(&self, response: &Response, reading: &Reading) -> Class {
        if is_success(response.status) {
            return Class::Success;
        }
        if !self.policy.retry_statuses().contains(response.status) {
            return Class::NotRetried;
        }
        Class::Retry(match &reading.retry_after {
            None => Err(HeaderNote::Missing {
                maybe_hidden: response.cross_origin,
            }),
            Some(parsed) => parsed.clone().map_err(HeaderNote::Invalid),
        })
    }

    /// Whether the answer `response` (read as `reading`) arriving at `now` would have this
    /// action retry if its scope's purse pays: decided as [`receive`](Self::receive) decides,
    /// without acting on it (nothing recorded, no jitter drawn).
    pub(crate) fn would_retry(
        &self,
        now: Duration,
        response: &Response,
        reading: &Reading,
    ) -> bool {
        let in_time = matches!(self.phase, Phase::InFlight { deadline, .. } if now <= deadline);
        let Class::Retry(hint) = self.classify(response, reading) else {
            return false;
        };
        // After the planned wait, a block past its end holds the attempt to the block's end.
        in_time
            && self.plan(now, hint, reading.wall_clock).is_ok_and(|plan| {
                (self.scope_block.filter(|b| b.until > plan.until))
                    .is_none_or(|b| self.fits(b.until))
            })
    }

    /// Contract steps 2 and 3 for a retryable response received at `now`: find the wait, apply
    /// the floor, then wait or stop.
    fn plan_wait(
        &mut self,
        now: Duration,
        hint: Result<RetryAfter, HeaderNote>,
        wall_clock: Option<(SystemTime, ClockSource)>,
    ) {
        let Planned {
            reason,
            until,
            spread,
        } = match self.plan(now, hint, wall_clock) {
            Ok(planned) => planned,
            Err(outcome) => return self.stop(now, outcome),
        };
        let jitter = self.jitter(spread, until);
        let until = until + jitter;
        // The scope's block is read after the action's own wait, so it only ever lengthens it.
        if let Some(block) = self.scope_block.filter(|b| b.until > until) {
            return self.wait_for_scope(now, block);
        }
        self.begin_wait(now, until, jitter, reason);
    }

    /// Contract steps 2 and 3, decided without acting: the wait before the next attempt (why,
    /// its earliest end, the most jitter may add to it), or the outcome the action stops with.
    fn plan(
        &self,
        now: Duration,
        hint: Result<RetryAfter, HeaderNote>,
        wall_clock: Option<(SystemTime, ClockSource)>,
    ) -> Result<Planned, Outcome> {
        let reason = match hint {
            Ok(hint) => match WaitReason::from_hint(hint, wall_clock) {
                Ok(reason) => reason,
                Err(date) => return Err(Outcome::ClockUntrusted { date }),
            },
            Err(note) => WaitReason::Fallback {
                wait: self
                    .policy
                    .fallback_after(self.attempts)
                    .unwrap_or_default(),
                note,
            },
        };
        let floor = self.policy.min_wait();
        let listed = reason.asked().max(floor);
        // The gate reads the earliest start the draw can give: a wait the client chose, or a
        // server's delay, which jitter only ever lengthens (with full jitter, the floor).
        let (wait, spread) = match reason {
            WaitReason::Fallback { .. } if self.policy.full_jitter() => (floor, listed - floor),
            WaitReason::Fallback { .. } => {
                (listed, percent_of(listed, self.policy.jitter_percent()))
            }
            _ => (
                listed,
                percent_of(listed, self.policy.server_jitter_percent()),
            ),
        };

        // The gate: ownership holds while we are here; attempts, then budget.
        if self.attempts >= self.policy.max_attempts() {
            return Err(Outcome::AttemptsExhausted);
        }
        let Some(until) = now.checked_add(wait).filter(|t| self.fits(*t)) else {
            // A valid server delay is never shortened to fit: the action stops instead.
            return Err(Outcome::BudgetExhausted(overrun(&reason)));
        };
        Ok(Planned {
            reason,
            until,
            spread,
        })
    }

    /// Whether an attempt starting at `start` (driver's clock) fits with its full cap.
    fn fits(&self, start: Duration) -> bool {
        self.elapsed(start)
            .checked_add(self.policy.attempt_cap())
            .is_some_and(|end| end <= self.policy.budget())
    }

    fn remaining(&self, now: Duration) -> Duration {
        self.policy.budget().saturating_sub(self.elapsed(now))
    }

    /// The gate's last steps before a start at `now`: the scope's block, if it still runs, then
    /// the scope's queue, if the scope limits the requests in flight.
    fn start_or_wait_for_scope(&mut self, now: Duration) {
        match (
            self.scope_block.filter(|b| b.until > now),
            self.in_flight_limit,
        ) {
            (Some(block), _) => self.wait_for_scope(now, block),
            (None, Some(limit)) => self.queue(now, limit),
            (None, None) => self.start_attempt(now),
        }
    }

    /// Queues the next attempt at `now` for one of the scope's `limit` places in flight, until
    /// the last start that fits.
    fn queue(&mut self, now: Duration, limit: u32) {
        let number = self.attempts + 1;
        // The gate has just checked that a start at `now` fits, so `latest` is not before it.
        let latest = self.origin + (self.policy.budget() - self.policy.attempt_cap());
        self.record(
            now,
            Event::Queued {
                attempt: number,
                limit,
            },
        );
        self.phase = Phase::Queued {
            since: now,
            latest,
            limit,
        };
        self.pending = Some(Step::Queue {
            number,
            latest,
            limit,
        });
    }

    /// Waits from `now` to the end of `block` if the next attempt fits there; stops otherwise.
    fn wait_for_scope(&mut self, now: Duration, block: ScopeBlock) {
        let wait = block.until - now;
        if !self.fits(block.until) {
            let held_by = HeldBy::Block {
                wait,
                cause: block.cause,
            };
            return self.stop(now, Outcome::BudgetExhausted(Overrun::Scope(held_by)));
        }
        let reason = WaitReason::ScopeBlocked {
            wait,
            asked: block.asked,
            cause: block.cause,
        };
        // Every read the block held back is released at its end: jitter spreads them, unless
        // the scope's pace does.
        let percent = match self.paced {
            true => 0,
            false => (self.policy.jitter_percent()).max(self.policy.server_jitter_percent()),
        };
        let jitter = self.jitter(percent_of(wait, percent), block.until);
        self.begin_wait(now, block.until + jitter, jitter, reason);
    }

    /// Waits from `now` to `until` (`jitter` of it drawn at random), for `reason`: traced,
    /// and given to the driver as its next step.
    fn begin_wait(&mut self, now: Duration, until: Duration, jitter: Duration, reason: WaitReason) {
        self.record(
            now,
            Event::WaitPlanned {
                wait: until - now,
                jitter,
                reason: reason.clone(),
                remaining: self.remaining(now),
            },
        );
        self.phase = Phase::Waiting {
            since: now,
            until,
            reason: reason.clone(),
        };
        self.pending = Some(Step::Wait {
            next: self.attempts + 1,
            until,
            reason,
        });
    }

    /// The jitter for a wait ending at `until` (where the next attempt fits): drawn uniformly,
    /// to the microsecond, from zero to `most` or to what the budget leaves after `until`,
    /// whichever is less, so it never costs an attempt, and reads whose spread the budget
    /// cuts short are not all sent at its last moment.
    fn jitter(&mut self, most: Duration, until: Duration) -> Duration {
        let slack = self
            .policy
            .budget()
            .saturating_sub(self.elapsed(until))
            .saturating_sub(self.policy.attempt_cap());
        let most = most.min(slack);
        if most.is_zero() {
            return Duration::ZERO;
        }
        let most_us = u64::try_from(most.as_micros()).unwrap_or(u64::MAX);
        Duration::from_micros(self.draws.next_u64() % most_us.saturating_add(1))
    }

    fn start_attempt(&mut self, now: Duration) {
        self.attempts += 1;
        let deadline = now + self.policy.attempt_cap();
        self.phase = Phase::InFlight {
            attempt: self.attempts,
            started: now,
            deadline,
        };
        self.record(
            now,
            Event::AttemptStarted {
                attempt: self.attempts,
            },
        );
        self.pending = Some(Step::StartAttempt {
            number: self.attempts,
            deadline,
        });
    }

    fn time_out(&mut self, now: Duration, attempt: u32, started: Duration) {
        self.request_time += now - started;
        self.record(
            now,
            Event::AttemptFailed {
                attempt,
                failure: Failure::TimedOut,
            },
        );
        let cap = self.policy.attempt_cap();
        self.stop(now, Outcome::AttemptTimedOut { cap });
    }

    /// Stops at `now` with `outcome`.
    fn stop(&mut self, now: Duration, outcome: Outcome) {
        let report = StopReport {
            outcome,
            at: self.elapsed(now),
            attempts: self.attempts,
            max_attempts: self.policy.max_attempts(),
            last_response: self.last_response.clone(),
            request_time: self.request_time,
            waited_time: self.waited_time,
        };
        self.phase = Phase::Stopped;
        self.record(now, Event::Stopped(report.clone()));
        self.pending = Some(Step::Stop(report.clone()));
        self.report = Some(report);
    }

    fn record(&mut self, now: Duration, event: Event) {
        let at = self.elapsed(now);
        self.trace.push(TraceEvent { at, event });
    }
}

/// `percent` % of `base`, to the microsecond: the most jitter a wait of `base` may get.
fn percent_of(base: Duration, percent: u32) -> Duration {
    let base_us = base
        .as_secs()
        .saturating_mul(1_000_000)
        .saturating_add(u64::from(base.subsec_micros()));
    Duration::from_micros(base_us.saturating_mul(u64::from(percent)) / 100)
}
