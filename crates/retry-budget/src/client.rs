//! The client: every read of one client (a browser page, a server process) and the scope ledger
//! they share, as one sans-IO machine.
//!
//! A read ([`ReadAction`]) and its API's ledger (`ScopeLedger`) meet only here, as quinn's
//! connections meet their endpoint: the driver gives the client its inputs (`handle_*(now, …)`)
//! and carries out what [`Client::poll_event`] says, arming the one timer of
//! [`Client::poll_timeout`]. The rules of their meeting are written once, in this file:
//!
//! - Each scope has one [`ScopePolicy`](super::ScopePolicy), given once
//!   ([`Client::handle_scope_policy`]): its in-flight limit queues every read on the scope, its
//!   cap on delayed reads turns new ones away, and its retry tokens are spent by every retry on
//!   the scope. A 2xx refills the scope's tokens; a read may retry only while a whole token is
//!   left, and a retry spends one. Where the purses are shared with other clients
//!   ([`Client::handle_shared_response`]), an answer the read would retry on waits for a token from the
//!   shared store ([`ClientEvent::TakeToken`], [`Client::handle_token`]); a token taken for
//!   nothing, and a success's refill, go back ([`ClientEvent::GiveBack`]).
//! - Where the scopes' places in flight are shared with other clients
//!   ([`Client::with_shared_leases`]), a read granted a place here asks the store for one of the
//!   scope's shared places before its attempt starts ([`ClientEvent::TakeLease`],
//!   [`Client::handle_lease`]), keeping its place here until the store answers; every shared
//!   place taken, it asks again 25 ms later. Its attempt over (answered, timed out, left), the
//!   place goes back ([`ClientEvent::GiveLease`]). A store that cannot answer leaves the
//!   client's own limit to decide.
//! - An answer is read once, and reaches the ledger first. If it blocks its scope for longer,
//!   every running read on the scope hears of the block (the answering one too), and only then
//!   does the answering read decide.
//! - A read that starts reads the ledger's block first.
//! - After every input, each read that moved gives the ledger its place (queued, in flight or
//!   out), then the ledger grants the places in flight it frees, in the order reads queued.
//! - Timers due at one instant fire in the order the reads started, each followed by its
//!   grants.

use std::time::{Duration, SystemTime};

use super::action::{Phase, ReadAction, Step};
use super::block::{blocks_scope, BlockCause, ScopeBlock};
use super::body::BodyProblem;
use super::lease::{Lease, Leasing, ASK_AGAIN};
use super::pace::Turn;
use super::places::Place;
use super::policy::{is_success, PolicyError, RetryPolicy};
pub use super::reads::ReadId;
use super::reads::{Events, Reads};
use super::report::TransportFailure;
use super::response::Reading;
use super::response::Response;
use super::scope::{RetryPurse, ScopeLedger, ScopeState, TokenTaken};
use super::scope_policy::{ScopePolicy, ScopePolicyError};
use super::wait::WaitReason;
use super::wire::HandOver;

/// Whether this build can share places in flight (the `shared-leases` feature): where it
/// cannot, every rule about them is compiled out.
const SHARES_LEASES: bool = cfg!(feature = "shared-leases");

/// What the driver must do, in the order the client decided it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientEvent {
    /// `read` took a step: start its attempt, show its wait or its place in the queue, or stop
    /// it (abort its fetch, show its report).
    Step {
        /// Which read.
        read: ReadId,
        /// What to do.
        step: Step,
    },
    /// An answer to this client blocked `scope` for longer than before: tell the other clients
    /// on the same credentials (a page's other tabs), which take it with
    /// [`Client::handle_block`].
    Blocked {
        /// The scope.
        scope: String,
        /// Its block now.
        block: ScopeBlock,
    },
    /// Where the scopes' retry purses are shared ([`Client::handle_shared_response`]): `read`'s answer
    /// asks for a retry, and the retry may happen only with a token from the purse every
    /// client shares. Take one from the store (atomically, on `purse`'s size) and give the
    /// result to [`Client::handle_token`]; the answer waits for it.
    TakeToken {
        /// The read whose answer waits.
        read: ReadId,
        /// The scope whose purse pays.
        scope: String,
        /// The purse as this client knows it (its size and refill).
        purse: RetryPurse,
    },
    /// Where the scopes' places in flight are shared ([`Client::with_shared_leases`]): `read`
    /// was granted a place on `scope` here, and its attempt may start only with one of the
    /// `limit` places every client shares. Take one from the store (atomically, for no longer
    /// than the attempt's `cap` and a margin of the store's) under the name `read` has in this
    /// client, and give the result to [`Client::handle_lease`]; the attempt waits for it.
    TakeLease {
        /// The read whose attempt waits.
        read: ReadId,
        /// The scope whose places are shared.
        scope: String,
        /// How many requests every client together may have in flight on it.
        limit: u32,
        /// The attempt's cap: the longest it holds the place.
        cap: Duration,
    },
    /// The attempt of `read` that held one of `scope`'s shared places is over (answered,
    /// timed out, aborted or left), or the place came too late for it: give it back.
    GiveLease {
        /// The scope.
        scope: String,
        /// The read that held it.
        read: ReadId,
    },
    /// Where the scopes' retry purses are shared: put `thousandths` of a token back into
    /// `scope`'s shared purse, within its size: a success's refill, or a token taken for a
    /// retry that did not happen.
    GiveBack {
        /// The scope.
        scope: String,
        /// How much, in thousandths of a token.
        thousandths: u32,
        /// The purse as this client knows it (its size and refill).
        purse: RetryPurse,
    },
}

/// One read of the client.
#[derive(Clone, Debug)]
struct Entry {
    id: ReadId,
    scope: String,
    action: ReadAction,
    /// An answer that waits for a token from the shared purse ([`ClientEvent::TakeToken`]).
    waiting_token: Option<Box<HeldAnswer>>,
    /// The turn the scope's learned pace gave the read's next attempt, while it waits for it.
    turn: Option<Turn>,
    /// Its attempt's shared place in flight, where the places are shared.
    lease: Leasing,
}

impl Entry {
    /// When the read's next timer fires: its action's, or its next ask for a shared place.
    fn timer(&self) -> Option<Duration> {
        let action = self.action.poll_timeout();
        match self.lease {
            Leasing::AgainAt(at) if SHARES_LEASES => Some(action.map_or(at, |t| t.min(at))),
            _ => action,
        }
    }
}

/// An answer held until the shared purse says whether its retry is paid for.
#[derive(Clone, Debug)]
struct HeldAnswer {
    response: Response,
    reading: Reading,
    body: Option<BodyProblem>,
}

/// Every read of one client and the ledger of the scopes they read, as quinn's `Endpoint` holds
/// its connections. In a browser, one per page; on a server, one per process.
///
/// ```
/// use std::time::Duration;
/// use retry_budget::{Client, ClientEvent, Response, RetryPolicy, Step};
///
/// let s = Duration::from_secs;
/// let api = "https://api.example.com";
/// let mut client = Client::new();
/// let first = client.handle_start(s(0), api, RetryPolicy::new(), 0).unwrap();
/// let Some(ClientEvent::Step { step: Step::StartAttempt { number: 1, .. }, .. }) = client.poll_event()
/// else { panic!() };
///
/// // A 429 to the first read blocks the API for 10 s, and the first read waits it out.
/// client.handle_response(s(1), first, &Response::new(429).retry_after("10"), None, Ok(()));
/// let Some(ClientEvent::Blocked { block, .. }) = client.poll_event() else { panic!() };
/// assert_eq!(block.until, s(11));
/// let Some(ClientEvent::Step { step: Step::Wait { .. }, .. }) = client.poll_event() else { panic!() };
///
/// // A read that starts at 2 s sends nothing before the block ends.
/// let second = client.handle_start(s(2), api, RetryPolicy::new(), 0).unwrap();
/// let Some(ClientEvent::Step { read, step: Step::Wait { until, .. } }) = client.poll_event()
/// else { panic!() };
/// assert_eq!((read, until), (second, s(11)));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Client {
    ledger: ScopeLedger,
    /// The reads, by name, and their timers.
    reads: Reads<Entry>,
    /// What the driver has not polled yet, oldest first.
    events: Events<ClientEvent>,
    last_id: u64,
    /// Whether the places in flight of scopes with a limit are shared with other clients.
    shared_leases: bool,
}

/// The learned pace: a server's client's (the `learned-pace` feature; a browser page compiles
/// none of it).
#[cfg(feature = "learned-pace")]
impl Client {
    /// This client with every scope learning the pace it serves at (default off): after a
    /// block ends, the attempts that start on a scope go `served` at a time, one batch per
    /// `span`, where `served` is how many `2xx` the scope gave in the run the block ended and
    /// `span` how long that run lasted to the block's end. A read whose turn comes too late for
    /// its budget stops at once; a pace that held no one back for a whole span is dropped.
    /// Before a scope's first block, at most 10 requests are in flight on it, one more for each
    /// `2xx`; where RateLimit fields said what is left of a running window, at most that. Made
    /// for a client that sees every caller of an API (a server process): the rule and its
    /// proof are in the [contract](crate::contract).
    pub const fn with_learned_pace(mut self, on: bool) -> Self {
        self.ledger.learn_pace(on);
        self
    }
}

/// Places in flight shared with other clients: a server's client's (the `shared-leases`
/// feature; a browser page compiles none of it).
#[cfg(feature = "shared-leases")]
impl Client {
    /// This client with the places in flight that scopes' policies allow shared with every
    /// other client reading the same quotas (default off): where a scope's [`ScopePolicy`]
    /// limits its requests in flight, an attempt granted a place here takes one of the
    /// scope's shared places from the store before it starts ([`ClientEvent::TakeLease`]),
    /// and gives it back once it is over ([`ClientEvent::GiveLease`]). For a server's
    /// replicas, which together should send no more at once than the limit.
    pub const fn with_shared_leases(mut self, on: bool) -> Self {
        self.shared_leases = on;
        self
    }
}

impl Client {
    /// A client with no reads, and every scope open.
    pub const fn new() -> Self {
        Self {
            ledger: ScopeLedger::new(),
            reads: Reads::new(),
            events: Events::new(),
            last_id: 0,
            shared_leases: false,
        }
    }

    /// Gives `scope` the policy its reads share ([`ScopePolicy`]): once, ideally before its
    /// first read (reads already queued keep the limit they queued under). Refused, by name,
    /// if it is not valid or if the scope already has another; giving the same one again
    /// changes nothing.
    pub fn handle_scope_policy(
        &mut self,
        scope: &str,
        policy: ScopePolicy,
    ) -> Result<(), ScopePolicyError> {
        self.ledger.set_policy(scope, policy)
    }

    /// A read starts at `now` on `scope` under `policy` (refused if the policy is invalid). If
    /// the scope is blocked, it waits for the block's end where its first attempt then fits,
    /// and stops at once otherwise; if the scope's policy limits the requests in flight, it
    /// queues. If it is delayed so and the scope already has its policy's
    /// [`max_waiting`](ScopePolicy::max_waiting) reads delayed, it stops at once.
    /// `seed` is where its jitter is drawn from: a random number in a browser, so reads held
    /// back together return apart; any fixed number in a test or a replay.
    pub fn handle_start(
        &mut self,
        now: Duration,
        scope: &str,
        policy: RetryPolicy,
        seed: u64,
    ) -> Result<ReadId, PolicyError> {
        let block = self.ledger.poll_block(now, scope);
        let shared = self.ledger.policy(scope);
        let limit = self.ledger.start_limit(now, scope);
        let crowded = shared.max_waiting().filter(|&max| {
            self.ledger.delayed(scope) >= max
                && self.ledger.would_delay(now, scope, policy.priority())
        });
        // Refused before a turn is taken for it.
        policy.validate()?;
        let (action, turn) = match crowded {
            Some(max) => (ReadAction::turned_away(now, policy, max)?, None),
            None => {
                let turn = block.is_none().then(|| self.ledger.take_turn(now, scope));
                let turn = turn.flatten();
                // Where the pace is learned, it spreads a block's release: no jitter.
                let start = match self.ledger.learns_pace() {
                    true => ReadAction::start_paced,
                    false => ReadAction::start_under,
                };
                let held = block.or(turn.map(|(held, _)| held));
                let action = start(now, policy, held, limit, seed)?;
                (action, turn.map(|(_, turn)| turn))
            }
        };
        Ok(self.add(now, scope, action, turn))
    }

    /// A new read on `scope`, named and added, holding `turn` (if it took one from its scope's
    /// pace; given back at once if it stopped at once); its first step follows.
    fn add(
        &mut self,
        now: Duration,
        scope: &str,
        action: ReadAction,
        turn: Option<Turn>,
    ) -> ReadId {
        self.last_id += 1;
        let id = ReadId(self.last_id);
        let entry = Entry {
            id,
            scope: scope.to_owned(),
            action,
            waiting_token: None,
            turn,
            lease: Leasing::None,
        };
        self.reads.insert(id, entry);
        self.moved(id);
        self.settle(now, id);
        id
    }

    /// A read another client handed over while it waited (a server's render,
    /// [`HandOver`]) goes on here at `now`, on `scope` under `policy`, as
    /// [`ReadAction::resume`] says: never early, never late, with `origin` a moment on this
    /// clock no later than the read's true start. A block the hand-over's wait came from (a
    /// `429`'s, or the scope's) first seeds the ledger, ending when that wait ends, so every
    /// read on the scope respects it, and `Blocked` tells the other tabs.
    pub fn handle_resume(
        &mut self,
        now: Duration,
        origin: Duration,
        scope: &str,
        policy: RetryPolicy,
        hand_over: &HandOver,
    ) -> Result<ReadId, PolicyError> {
        policy.validate()?;
        let status = hand_over.last_response.as_ref().map(|l| l.status);
        let cause = match hand_over.reason {
            WaitReason::ServerDelay(asked) | WaitReason::ServerDate { delay: asked, .. }
                if status.is_some_and(blocks_scope) =>
            {
                Some((asked, BlockCause::TooManyRequests))
            }
            WaitReason::ScopeBlocked { asked, cause, .. } => Some((asked, cause)),
            _ => None,
        };
        if let Some((asked, cause)) = cause {
            let block = ScopeBlock {
                until: now.saturating_add(hand_over.wait),
                asked,
                cause,
            };
            if self.ledger.handle_block(scope, block) {
                self.events.push_back(ClientEvent::Blocked {
                    scope: scope.to_owned(),
                    block,
                });
            }
        }
        let block = self.ledger.poll_block(now, scope);
        let limit = self.ledger.start_limit(now, scope);
        let mut action = ReadAction::resume_under(now, origin, policy, hand_over, block, limit)?;
        if self.ledger.learns_pace() {
            action.pace_releases();
        }
        Ok(self.add(now, scope, action, None))
    }

    /// The answer to `read`'s attempt arrived at `now`. `local_wall_clock` is the local wall
    /// clock's time of receipt, if the driver has one (used only where the response has no
    /// readable `Date` and the read's policy trusts the local clock); `body` is what was wrong
    /// with a 2xx's body, if anything (any other status's body is not read). The ledger hears
    /// of it even when the read can no longer use it.
    pub fn handle_response(
        &mut self,
        now: Duration,
        read: ReadId,
        response: &Response,
        local_wall_clock: Option<SystemTime>,
        body: Result<(), BodyProblem>,
    ) {
        if let Some(reading) = self.hear(now, read, response, local_wall_clock) {
            self.decide(now, read, response, reading, body.err(), false);
        }
    }

    /// [`handle_response`](Self::handle_response) for a client whose scopes' retry purses are
    /// shared with other clients (other processes reading the same quota, through a store the
    /// driver keeps). An answer the read would retry on, on a scope with retry tokens, waits
    /// for a token from the store: the client asks for one ([`ClientEvent::TakeToken`]) and
    /// the read decides once [`handle_token`](Self::handle_token) gives the store's answer.
    /// What the client's answers earn back, and a token taken for a retry that did not
    /// happen, go back to the store ([`ClientEvent::GiveBack`]). A client that never calls it
    /// compiles none of it.
    pub fn handle_shared_response(
        &mut self,
        now: Duration,
        read: ReadId,
        response: &Response,
        local_wall_clock: Option<SystemTime>,
        body: Result<(), BodyProblem>,
    ) {
        let Some(reading) = self.hear(now, read, response, local_wall_clock) else {
            return;
        };
        let Some(entry) = self.reads.get(read) else {
            return;
        };
        let Some(purse) = self.ledger.purse(&entry.scope) else {
            return self.decide(now, read, response, reading, body.err(), false);
        };
        if is_success(response.status) {
            self.events.push_back(ClientEvent::GiveBack {
                scope: entry.scope.clone(),
                thousandths: purse.refill(),
                purse,
            });
        }
        // Whether it would retry is the read's own decision.
        if !entry.action.would_retry(now, response, &reading) {
            return self.decide(now, read, response, reading, body.err(), false);
        }
        self.events.push_back(ClientEvent::TakeToken {
            read,
            scope: entry.scope.clone(),
            purse,
        });
        // Held, the answer needs its own copy of the response.
        if let Some(entry) = self.reads.get_mut(read) {
            entry.waiting_token = Some(Box::new(HeldAnswer {
                response: response.clone(),
                reading,
                body: body.err(),
            }));
        }
    }

    /// An answer reaches the ledger first: its refill, its block (every read on the scope
    /// hears a longer one); then what the answer says, for the answering read to decide.
    fn hear(
        &mut self,
        now: Duration,
        read: ReadId,
        response: &Response,
        local_wall_clock: Option<SystemTime>,
    ) -> Option<Reading> {
        let entry = self.reads.get(read)?;
        let trust = entry.action.policy().trust_local_clock();
        let reading = response.read(local_wall_clock, trust);
        let scope = &entry.scope;
        if is_success(response.status) {
            self.ledger.refill(scope);
        }
        if let Some(block) = self.ledger.learn(now, scope, response.status, &reading) {
            self.events.push_back(ClientEvent::Blocked {
                scope: scope.clone(),
                block,
            });
            self.tell(now, read, block);
        }
        Some(reading)
    }

    /// What the store's purse said when `read`'s answer asked for a retry
    /// ([`ClientEvent::TakeToken`]), at `now`: `None` where the store could not answer, and
    /// this client's own purse decides. The read then takes its answer as it would have; a
    /// token taken for a retry that does not happen (the read stopped meanwhile, or stops on
    /// this answer after all) is given back ([`ClientEvent::GiveBack`]).
    pub fn handle_token(&mut self, now: Duration, read: ReadId, taken: Option<TokenTaken>) {
        let Some(entry) = self.reads.get_mut(read) else {
            return;
        };
        let Some(held) = entry.waiting_token.take() else {
            return;
        };
        if let Some(taken) = taken {
            // The read spends a whole token for the retry it plans: it holds the one taken, on
            // top of what the store has left.
            let left = taken.left + if taken.took { RetryPurse::TOKEN } else { 0 };
            self.ledger.set_purse(&entry.scope, left);
        }
        let took = taken.is_some_and(|t| t.took);
        let HeldAnswer {
            response,
            reading,
            body,
        } = *held;
        self.decide(now, read, &response, reading, body, took);
    }

    /// What the store said at `now` when `read` asked for one of its scope's shared places
    /// ([`ClientEvent::TakeLease`]): `None` where it could not answer, and this client's own
    /// limit decides (the attempt starts on the place it was granted here, and gives it back
    /// as any other when it ends). Taken, the attempt
    /// starts; all taken, the read keeps its place here and asks again 25 ms later. A place
    /// taken for a read that no longer waits for it (it stopped, or a block moved it to a
    /// wait meanwhile) is given back at once ([`ClientEvent::GiveLease`]).
    pub fn handle_lease(&mut self, now: Duration, read: ReadId, lease: Option<Lease>) {
        let Some(entry) = self.reads.get_mut(read) else {
            return;
        };
        let waits =
            entry.lease == Leasing::Asking && matches!(entry.action.phase(), Phase::Queued { .. });
        if !waits {
            if entry.lease == Leasing::Asking {
                entry.lease = Leasing::None;
            }
            if lease == Some(Lease::Taken) {
                self.events.push_back(ClientEvent::GiveLease {
                    scope: entry.scope.clone(),
                    read,
                });
            }
            self.moved(read);
            return self.settle(now, read);
        }
        match lease {
            Some(Lease::AllTaken) => entry.lease = Leasing::AgainAt(now + ASK_AGAIN),
            Some(Lease::Taken) => {
                entry.lease = Leasing::Held;
                entry.action.handle_grant(now);
            }
            // Started on this client's own limit: the place is the attempt's all the same, and
            // goes back when it ends, so a store that kept it to make true later forgets it.
            None => {
                entry.lease = Leasing::Held;
                entry.action.handle_grant(now);
            }
        }
        self.moved(read);
        self.settle(now, read);
    }

    /// `read`, granted a place here, asks the store for one of its scope's shared places.
    fn ask_lease(&mut self, read: ReadId, limit: u32) {
        let Some(entry) = self.reads.get_mut(read) else {
            return;
        };
        entry.lease = Leasing::Asking;
        self.events.push_back(ClientEvent::TakeLease {
            read,
            scope: entry.scope.clone(),
            limit,
            cap: entry.action.policy().attempt_cap(),
        });
    }

    /// The number of places in flight `scope` shares with other clients: its policy's limit,
    /// where this client shares its places.
    fn shared_limit(&self, scope: &str) -> Option<u32> {
        let limit = self.ledger.policy(scope).in_flight_limit();
        limit.filter(|_| SHARES_LEASES && self.shared_leases)
    }

    /// `read` takes its answer, `response` as `reading` says; `took`: a token was taken from
    /// the shared purse for it, to be given back if it does not retry.
    fn decide(
        &mut self,
        now: Duration,
        read: ReadId,
        response: &Response,
        reading: Reading,
        body: Option<BodyProblem>,
        took: bool,
    ) {
        let Some(entry) = self.reads.get_mut(read) else {
            return;
        };
        let may_retry = self.ledger.may_retry(&entry.scope);
        let answered = matches!(entry.action.phase(), Phase::InFlight { .. });
        entry
            .action
            .receive(now, response, reading, body, may_retry);
        // The answer to an attempt in flight that leaves the read running leaves it waiting
        // for a retry (an answer the read could not own changes nothing).
        let retries = answered && *entry.action.phase() != Phase::Stopped;
        if retries {
            self.ledger.spend_retry(&entry.scope);
        } else if let Some(purse) = self.ledger.purse(&entry.scope).filter(|_| took) {
            self.events.push_back(ClientEvent::GiveBack {
                scope: entry.scope.clone(),
                thousandths: RetryPurse::TOKEN,
                purse,
            });
        }
        self.moved(read);
        self.settle(now, read);
    }

    /// `read`'s attempt failed at `now` before any answer arrived: it stops as
    /// `transport_failure`.
    pub fn handle_transport_failure(
        &mut self,
        now: Duration,
        read: ReadId,
        failure: TransportFailure,
    ) {
        self.input(now, read, |action| {
            action.handle_transport_failure(now, failure)
        });
    }

    /// The user left `read` at `now` (navigation, unmount or Cancel): it stops as `user_left`.
    pub fn handle_leave(&mut self, now: Duration, read: ReadId) {
        self.input(now, read, |action| action.handle_leave(now));
    }

    /// `read`'s screen moved on to another request at `now`: it stops as `user_left`, its trace
    /// saying why ([`ReadAction::handle_move_on`]).
    pub fn handle_move_on(&mut self, now: Duration, read: ReadId) {
        self.input(now, read, |action| action.handle_move_on(now));
    }

    /// The timer from [`poll_timeout`](Self::poll_timeout) fired at `now`: every read whose
    /// own timer is due takes it, in the order the reads started. Early calls change nothing.
    pub fn handle_timeout(&mut self, now: Duration) {
        for read in self.reads.due(now, Entry::timer) {
            let Some(entry) = self.reads.get_mut(read) else {
                continue;
            };
            // Read again: an earlier read's grant may have moved this one.
            if entry.action.poll_timeout().is_some_and(|t| t <= now) {
                let turn = self.turn_at_wake(now, read);
                if let Some(entry) = self.reads.get_mut(read) {
                    // The turn taken, if any, is held while the read waits for it (and given
                    // back as the read moves, if it stopped at once).
                    entry.turn = turn.map(|(_, turn)| turn);
                    match turn {
                        // Held back to its turn: the wait goes on, or the read stops at once.
                        Some((held, _)) => entry.action.handle_scope_block(now, held),
                        None => {
                            // What the ledger learned may queue an attempt the scope's policy
                            // would not.
                            if self.ledger.learns_pace() {
                                let limit = self.ledger.start_limit(now, &entry.scope);
                                entry.action.set_in_flight_limit(limit);
                            }
                            entry.action.handle_timeout(now);
                        }
                    }
                }
                self.moved(read);
                self.settle(now, read);
            } else if let (true, Leasing::AgainAt(at)) = (SHARES_LEASES, entry.lease) {
                let scope = entry.scope.clone();
                if let Some(limit) = self.shared_limit(&scope).filter(|_| at <= now) {
                    self.ask_lease(read, limit);
                }
                self.moved(read);
            } else {
                self.moved(read);
            }
        }
    }

    /// Where `read`'s wait ends at `now` and its next attempt would start: the block its
    /// scope's pace holds it to, its turn taken; `None` when it goes on as its wait's end
    /// decides (no pace holds it, its turn has come, or it is not waiting for an attempt).
    fn turn_at_wake(&mut self, now: Duration, read: ReadId) -> Option<(ScopeBlock, Turn)> {
        let entry = self.reads.get_mut(read)?;
        if entry.turn.take().is_some_and(|turn| turn.at <= now) {
            return None;
        }
        let action = &entry.action;
        let next_attempt_left = action.attempts() < action.policy().max_attempts();
        if !matches!(action.phase(), Phase::Waiting { .. }) || !next_attempt_left {
            return None;
        }
        self.ledger.take_turn(now, &entry.scope)
    }

    /// A block on `scope` learned at `now` from elsewhere (another tab): kept if it ends later
    /// than the one the scope has, and then every running read on the scope hears of it.
    /// Returns whether it was kept.
    pub fn handle_block(&mut self, now: Duration, scope: &str, block: ScopeBlock) -> bool {
        if !self.ledger.handle_block(scope, block) {
            return false;
        }
        // A scope no read of the client runs on has no one to tell, and no queue.
        match self.ledger.any_ticket(scope) {
            Some(ticket) => {
                self.tell(now, ReadId(ticket), block);
                self.settle(now, ReadId(ticket));
            }
            None => self.ledger.forget(now, scope),
        }
        true
    }

    /// What the driver must do next, once; `None` when there is nothing new.
    pub fn poll_event(&mut self) -> Option<ClientEvent> {
        self.events.pop_front()
    }

    /// When to call [`handle_timeout`](Self::handle_timeout): the earliest timer of any read
    /// (a wait's end, an attempt's cap, a queued attempt's last start). `None` when no read
    /// runs.
    pub fn poll_timeout(&self) -> Option<Duration> {
        self.reads.earliest(Entry::timer)
    }

    /// The read `read`: its phase, attempts, trace and report.
    pub fn read(&self, read: ReadId) -> Option<&ReadAction> {
        self.reads.get(read).map(|e| &e.action)
    }

    /// What the client's ledger knows of `scope`.
    pub fn scope_state(&self, scope: &str) -> ScopeState {
        self.ledger.state(scope)
    }

    /// Every scope the client knows to be blocked past `now`, with its block, in no particular
    /// order: what a tab that
    /// missed this client's [`ClientEvent::Blocked`] events (one just opened, or restored from the
    /// back/forward cache) needs to hear.
    pub fn running_blocks(&self, now: Duration) -> Vec<(String, ScopeBlock)> {
        (self.ledger.running_blocks(now))
            .map(|(scope, block)| (scope.to_owned(), block))
            .collect()
    }

    /// How many scopes the ledger holds now. A scope is forgotten once nothing about it is
    /// live: no running read, no block or quota window still running, and no policy the app
    /// gave it (give policies to the scopes an app names, not to one per visitor). A server
    /// reading per-visitor scopes holds only the live ones.
    pub fn known_scopes(&self) -> usize {
        self.ledger.known()
    }

    /// Hands `read` over at `now`, while it waits, to another client that will go on with it
    /// ([`ReadAction::hand_over`], [`handle_resume`](Self::handle_resume)): it leaves this
    /// client without a stop, its place in the ledger is given back, and what the ledger
    /// learned (a `429`'s block) stays. `None`, and nothing changes, if it is not waiting.
    pub fn hand_over(&mut self, now: Duration, read: ReadId) -> Option<HandOver> {
        let hand_over = self.reads.get_mut(read)?.action.hand_over(now)?;
        let entry = self.reads.remove(read)?;
        // Its turn, if it waited for one, is the next attempt's here.
        if let Some(turn) = entry.turn.filter(|_| self.ledger.learns_pace()) {
            self.ledger.give_back_turn(&entry.scope, turn);
        }
        let priority = entry.action.policy().priority();
        (self.ledger).set_place(&entry.scope, entry.id.0, Place::Unplaced, 0, priority);
        self.ledger.forget(now, &entry.scope);
        Some(hand_over)
    }

    /// Forgets a read that has stopped, and gives back its action (its trace and report). A
    /// read still running is kept (`None`): leave it first. An answer for a forgotten read is
    /// ignored, so a driver forgets a read once it expects none.
    pub fn remove(&mut self, read: ReadId) -> Option<ReadAction> {
        if *self.reads.get(read)?.action.phase() != Phase::Stopped {
            return None;
        }
        self.reads.remove(read).map(|e| e.action)
    }

    /// One input to one read, then its step, its place and its scope's grants.
    fn input(&mut self, now: Duration, read: ReadId, handle: impl FnOnce(&mut ReadAction)) {
        let Some(entry) = self.reads.get_mut(read) else {
            return;
        };
        handle(&mut entry.action);
        self.moved(read);
        self.settle(now, read);
    }

    /// `read` may have moved: its step (if it took one) goes to the driver, its place to the
    /// ledger, and its timer to the reads' timers.
    fn moved(&mut self, read: ReadId) {
        let Some(entry) = self.reads.get_mut(read) else {
            return;
        };
        // A shared place is held by the attempt in flight, and asked again for only while the
        // read is queued for one.
        if SHARES_LEASES {
            let phase = entry.action.phase();
            match entry.lease {
                Leasing::Held if !matches!(phase, Phase::InFlight { .. }) => {
                    entry.lease = Leasing::None;
                    self.events.push_back(ClientEvent::GiveLease {
                        scope: entry.scope.clone(),
                        read,
                    });
                }
                Leasing::AgainAt(_) if !matches!(phase, Phase::Queued { .. }) => {
                    entry.lease = Leasing::None;
                }
                _ => {}
            }
        }
        if let Some(step) = entry.action.poll_action() {
            self.events.push_back(ClientEvent::Step {
                read: entry.id,
                step,
            });
        }
        // A read that stopped before its turn came (at once, or later) leaves the turn to the
        // next (only a ledger that learns the pace gives turns: a browser's compiles none of it).
        if self.ledger.learns_pace() && *entry.action.phase() == Phase::Stopped {
            if let Some(turn) = entry.turn.take() {
                self.ledger.give_back_turn(&entry.scope, turn);
            }
        }
        let asking = SHARES_LEASES && matches!(entry.lease, Leasing::Asking | Leasing::AgainAt(_));
        let (place, limit) = match *entry.action.phase() {
            Phase::InFlight { .. } => (Place::InFlight, 0),
            // Granted a place here, it holds it while it asks for the shared one.
            Phase::Queued { .. } if asking => (Place::InFlight, 0),
            Phase::Queued { limit, .. } => (Place::Queued, limit),
            Phase::Waiting { .. } => (Place::Waiting, 0),
            Phase::Stopped => (Place::Unplaced, 0),
        };
        let priority = entry.action.policy().priority();
        self.ledger
            .set_place(&entry.scope, entry.id.0, place, limit, priority);
        let timer = entry.timer();
        self.reads.timer_moved(read, timer);
    }

    /// Every running read on read `on`'s scope hears of its longer block, in the order they
    /// started.
    fn tell(&mut self, now: Duration, on: ReadId, block: ScopeBlock) {
        let Some(scope) = self.reads.get(on).map(|e| e.scope.as_str()) else {
            return;
        };
        // The running reads on the scope are the ones holding a place on it.
        let ledger = &self.ledger;
        let listed = || ledger.tickets(scope).into_iter().map(ReadId).collect();
        for read in self.reads.in_start_order(listed, |e| e.scope == scope) {
            if let Some(entry) = self.reads.get_mut(read) {
                if *entry.action.phase() != Phase::Stopped {
                    // A turn inside the block is void: the block's end gives new ones.
                    entry.turn = entry.turn.filter(|turn| turn.at >= block.until);
                    entry.action.handle_scope_block(now, block);
                    self.moved(read);
                }
            }
        }
    }

    /// After an input to read `on` at `now`: the queued reads on its scope whose turn has come
    /// start, then the ledger forgets what is no longer live (its scope, if idle, and any scope
    /// kept only until now).
    fn settle(&mut self, now: Duration, on: ReadId) {
        self.grant(now, on);
        if let Some(entry) = self.reads.get(on) {
            self.ledger.forget(now, &entry.scope);
        }
    }

    /// Every queued read on read `on`'s scope whose turn has come at `now` starts, in the order
    /// they queued.
    fn grant(&mut self, now: Duration, on: ReadId) {
        loop {
            let Some(scope) = self.reads.get(on).map(|e| e.scope.as_str()) else {
                return;
            };
            let Some(ticket) = self.ledger.poll_grant(now, scope) else {
                return;
            };
            if self.reads.get(ReadId(ticket)).is_none() {
                // Cannot happen (a read holds a place only while the client has it), but a
                // place must never be held by no one.
                self.ledger.handle_attempt_ended(scope, ticket);
                continue;
            }
            let read = ReadId(ticket);
            if let Some(limit) = self.shared_limit(scope) {
                // An answer still awaited from an ask made before a block moved the read
                // serves this grant too.
                if self
                    .reads
                    .get(read)
                    .is_some_and(|e| e.lease != Leasing::Asking)
                {
                    self.ask_lease(read, limit);
                }
                self.moved(read);
                continue;
            }
            if let Some(entry) = self.reads.get_mut(read) {
                entry.action.handle_grant(now);
                self.moved(read);
            }
        }
    }
}
