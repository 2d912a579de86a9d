//! The scope ledger: what every request to one API has been told, shared by every action on it.
//!
//! A rate limit belongs to the service's scope (an API, an account), not to one screen. When a
//! `429` with a valid `Retry-After` arrives, the ledger blocks the response's scope until that
//! time, *before* the answering action plans its own wait; every action on the scope reads the
//! block before it starts an attempt. A block only ever
//! grows: a later, shorter hint never shortens it, and it never reopens an action's budget.
//!
//! Like [`ReadAction`], the ledger is sans-IO: `now` is passed in, and it keeps no clock.
//!
//! [`ReadAction`]: super::ReadAction

use std::time::Duration;

use super::block::blocks_scope;
pub use super::block::{BlockCause, ScopeBlock};
pub use super::lease::Lease;
use super::pace::{Pace, Turn};
use super::places::{Place, Places, Taken};
use super::policy::{is_success, Priority};
use super::response::Reading;
use super::scope_map::ScopeMap;
pub use super::scope_policy::{RetryTokens, ScopePolicy, ScopePolicyError};
use super::wait::WaitReason;

/// What the ledger knows of one scope.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScopeState {
    /// The longest block learned so far (it may have ended).
    pub block: Option<ScopeBlock>,
    /// `429`s received on the scope.
    pub refusals: u32,
    /// What the RateLimit fields said is left of the quota: the least any answer said in the
    /// current window (answers to requests sent together arrive in any order), or the latest
    /// answer's once that window has reset.
    pub remaining: Option<u64>,
    /// When the window `remaining` counts in resets (the driver's clock), where the fields
    /// said.
    pub quota_resets: Option<Duration>,
    /// Requests on the scope in flight now (and places granted to queued reads), counted from
    /// the ledger's places when the state is read.
    pub in_flight: u32,
    /// Reads queued for a place in flight, counted likewise.
    pub queued: u32,
    /// Reads waiting for their next attempt (a wait, or a block's end), counted likewise.
    pub waiting: u32,
    /// The scope's retry tokens, where its policy has them.
    pub retry_purse: Option<RetryPurse>,
    /// What the scope's reads share, as given once ([`ScopePolicy`]; by default nothing).
    pub policy: ScopePolicy,
    /// Where the client learns the pace ([`Client::with_learned_pace`](crate::Client::with_learned_pace))
    /// and the last block taught one: how many attempts start on the scope per span, at most.
    pub pace: Option<LearnedPace>,
}

/// The pace a scope served at in the run its last block ended, which the attempts after that
/// block keep to ([`Client::with_learned_pace`](crate::Client::with_learned_pace)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LearnedPace {
    /// How many attempts start together, at most: the `2xx` answers of that run.
    pub turns: u32,
    /// How long one batch's turn lasts: from the run's start to the block's end.
    pub span: Duration,
}

/// A scope's retry tokens: what is left, in thousandths of a token, and the rule that set it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPurse {
    /// Thousandths of a token left: a retry needs 1,000.
    pub left: u32,
    /// The purse's size and refill, from the scope's policy.
    pub tokens: RetryTokens,
}

/// What taking a token from a shared purse came to ([`Client::handle_token`](crate::Client::handle_token)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenTaken {
    /// Whether a whole token was there, and was taken.
    pub took: bool,
    /// What the shared purse holds after, in thousandths of a token.
    pub left: u32,
}

impl RetryPurse {
    /// One token, in the thousandths a purse counts.
    pub const TOKEN: u32 = 1000;

    /// The most a purse holds, in thousandths: its size, full.
    pub const fn full(&self) -> u32 {
        self.tokens.max.saturating_mul(Self::TOKEN)
    }

    /// What one success earns back, in thousandths.
    pub const fn refill(&self) -> u32 {
        self.tokens.refill_percent.saturating_mul(Self::TOKEN / 100)
    }

    /// Whether a whole token is left for one retry.
    pub const fn has_token(&self) -> bool {
        self.left >= Self::TOKEN
    }
}

/// Whether nothing about a scope is live at `now`, so the ledger may forget it: no read holds a
/// place on it (in flight, queued, waiting), its block and its quota window have ended, and
/// the app gave it no policy (a policy, and the retry purse it fills, are kept). What a
/// forgotten scope knew no longer decides anything: the next read on it finds it open.
fn is_idle(now: Duration, kept: &Kept) -> bool {
    let ended = |t: Option<Duration>| t.is_none_or(|t| t <= now);
    let state = &kept.state;
    ended(state.block.map(|b| b.until))
        && ended(state.quota_resets)
        && state.policy == ScopePolicy::new()
        && kept.places.is_empty()
}

/// What the ledger keeps of one scope: its state, and the reads with a place on it.
#[derive(Clone, Debug, Default)]
struct Kept {
    state: ScopeState,
    places: Places,
    pace: Pace,
}

/// Every live scope's state, keyed by the scope's name (by default the API's origin). A scope
/// is forgotten once nothing about it is live ([`forget`](Self::forget)), so a server whose
/// scopes are per visitor holds only the live ones, and finding one costs the same however
/// many there are.
#[derive(Clone, Debug, Default)]
pub(crate) struct ScopeLedger {
    scopes: ScopeMap<Kept>,
    /// Whether each scope learns its pace from its answers ([`Pace`]).
    learns_pace: bool,
}

impl ScopeLedger {
    /// An empty ledger: every scope open.
    pub const fn new() -> Self {
        Self {
            scopes: ScopeMap::new(),
            learns_pace: false,
        }
    }

    /// Whether each scope learns the pace it serves at ([`Pace`]) and holds back the attempts
    /// that start on it after a block to that pace (only a client built with the pace can).
    #[cfg(feature = "learned-pace")]
    pub(crate) const fn learn_pace(&mut self, on: bool) {
        self.learns_pace = on;
    }

    /// Whether each scope learns its pace: never in a build without the pace, where every
    /// branch on it is known to be dead.
    pub(crate) const fn learns_pace(&self) -> bool {
        cfg!(feature = "learned-pace") && self.learns_pace
    }

    /// A response arrived at `now` on `scope`, already read. A `429` whose `Retry-After` is
    /// valid (and, for a date, readable with the receipt's clock evidence, as the action reads
    /// it) blocks the scope until its end; RateLimit fields that say nothing is left block it
    /// until their reset, whatever the status. Returns the scope's block when this answer made
    /// it longer; `None` when nothing changed.
    pub(crate) fn learn(
        &mut self,
        now: Duration,
        scope: &str,
        status: u16,
        reading: &Reading,
    ) -> Option<ScopeBlock> {
        let block = |asked: Duration, cause| ScopeBlock {
            until: now.saturating_add(asked),
            asked,
            cause,
        };
        // A 429's own block first: where the fields name the same end, the 429 is the reason.
        let mut blocks = Vec::new();
        if self.learns_pace() && is_success(status) {
            self.scopes.entry(scope).pace.served(now);
        }
        if blocks_scope(status) {
            self.entry(scope).refusals += 1;
            if let Some(Ok(hint)) = reading.retry_after {
                if let Ok(reason) = WaitReason::from_hint(hint, reading.wall_clock) {
                    blocks.push(block(reason.asked(), BlockCause::TooManyRequests));
                }
            }
        }
        if let Some(quota) = reading.quota {
            let state = self.entry(scope);
            let resets = quota.reset.map(|r| now.saturating_add(r));
            match (state.remaining, state.quota_resets) {
                // The same window: a stale answer that says more is left changes nothing.
                (Some(left), Some(until)) if now < until => {
                    state.remaining = Some(left.min(quota.remaining));
                }
                _ => {
                    state.remaining = Some(quota.remaining);
                    state.quota_resets = resets;
                    if let Some(until) = resets {
                        self.scopes.note_expiry(until, scope);
                    }
                }
            }
            blocks.extend(quota.spent_for().map(|d| block(d, BlockCause::QuotaSpent)));
        }
        let mut longer = false;
        for b in blocks {
            longer |= self.handle_block(scope, b);
        }
        longer.then(|| self.state(scope).block).flatten()
    }

    /// Gives `scope` its policy: once, before or after reads on it have started (the ledger
    /// counts every read on the scope either way). A policy with retry tokens fills the scope's
    /// purse. Refused if it is not valid, or if the scope already has another one; giving the
    /// same one again changes nothing.
    pub(crate) fn set_policy(
        &mut self,
        scope: &str,
        policy: ScopePolicy,
    ) -> Result<(), ScopePolicyError> {
        policy.validate()?;
        let state = self.entry(scope);
        if state.policy == policy {
            return Ok(());
        }
        if state.policy != ScopePolicy::new() {
            return Err(ScopePolicyError::AlreadySet {
                scope: scope.to_owned(),
            });
        }
        state.policy = policy;
        state.retry_purse = policy.retry_tokens().map(|tokens| {
            let empty = RetryPurse { left: 0, tokens };
            RetryPurse {
                left: empty.full(),
                tokens,
            }
        });
        Ok(())
    }

    /// What `scope`'s reads share ([`ScopePolicy::new`] for a scope given none).
    pub(crate) fn policy(&self, scope: &str) -> ScopePolicy {
        self.find(scope).map(|s| s.policy).unwrap_or_default()
    }

    /// Whether a read on `scope` may retry: the scope has no retry tokens, or its purse holds a
    /// whole token.
    pub(crate) fn may_retry(&self, scope: &str) -> bool {
        self.find(scope)
            .and_then(|s| s.retry_purse)
            .is_none_or(|purse| purse.has_token())
    }

    /// `scope`'s retry purse, where its policy has retry tokens.
    pub(crate) fn purse(&self, scope: &str) -> Option<RetryPurse> {
        self.find(scope).and_then(|s| s.retry_purse)
    }

    /// A read on `scope` retries: one token leaves the purse, where the scope has one.
    pub(crate) fn spend_retry(&mut self, scope: &str) {
        if let Some(purse) = self.entry(scope).retry_purse.as_mut() {
            purse.left = purse.left.saturating_sub(RetryPurse::TOKEN);
        }
    }

    /// A 2xx arrived on `scope`: its purse, if it has one, earns back its refill.
    pub(crate) fn refill(&mut self, scope: &str) {
        if let Some(purse) = self.entry(scope).retry_purse.as_mut() {
            purse.left = purse.left.saturating_add(purse.refill()).min(purse.full());
        }
    }

    /// `scope`'s purse holds `left` thousandths of a token, as learned elsewhere (the other
    /// processes reading the same quota): kept, within the purse's size, where the scope has
    /// a purse.
    pub(crate) fn set_purse(&mut self, scope: &str, left: u32) {
        if let Some(purse) = self.entry(scope).retry_purse.as_mut() {
            purse.left = left.min(purse.full());
        }
    }

    /// A block learned elsewhere (another tab, say): kept if it ends later than the one the
    /// scope has, and ignored otherwise. Returns whether it was kept.
    pub(crate) fn handle_block(&mut self, scope: &str, block: ScopeBlock) -> bool {
        let learns_pace = self.learns_pace();
        let kept = self.scopes.entry(scope);
        if kept.state.block.is_some_and(|b| b.until >= block.until) {
            return false;
        }
        kept.state.block = Some(block);
        if learns_pace {
            kept.pace.blocked(block.until);
        }
        self.scopes.note_expiry(block.until, scope);
        true
    }

    /// An attempt is about to start on `scope` at `now`, the scope open: where a learned pace
    /// holds it back, the block it waits for (until its turn; the cause and the delay asked
    /// are the last block's), its turn taken. `None`: it starts now (its turn, if the scope is
    /// paced, taken at `now`).
    pub(crate) fn take_turn(&mut self, now: Duration, scope: &str) -> Option<(ScopeBlock, Turn)> {
        if !self.learns_pace() || self.poll_block(now, scope).is_some() {
            return None;
        }
        let kept = self.scopes.get_mut(scope)?;
        let turn = kept.pace.take_turn(now).filter(|turn| turn.at > now)?;
        let last = kept.state.block?;
        let held = ScopeBlock {
            until: turn.at,
            ..last
        };
        Some((held, turn))
    }

    /// Where the scope learns its pace, the most requests it may have in flight at `now`
    /// beside the scope's own policy: its opening window while no pace holds (unless the
    /// policy has an in-flight limit of its own), and what the RateLimit fields say is left of
    /// a window still running. `None`s: nothing of the kind.
    fn learned_limits(&self, now: Duration, scope: &str) -> (Option<u32>, Option<u32>) {
        let Some(kept) = self.scopes.get(scope).filter(|_| self.learns_pace()) else {
            return (None, None);
        };
        let state = &kept.state;
        let window_runs = state.quota_resets.is_some_and(|reset| reset > now);
        let left = (state.remaining.filter(|_| window_runs))
            .map(|left| u32::try_from(left).unwrap_or(u32::MAX));
        // An app that set the scope's in-flight limit said how many may go at once.
        let opening =
            (kept.pace.opening_window()).filter(|_| state.policy.in_flight_limit().is_none());
        (opening, left)
    }

    /// The in-flight limit an attempt starting on `scope` at `now` queues under: the scope
    /// policy's, or, where what the ledger learned allows fewer in flight than are running
    /// (and queued) now, that (so an attempt that would start at once is not queued).
    pub(crate) fn start_limit(&self, now: Duration, scope: &str) -> Option<u32> {
        let policy = self.policy(scope).in_flight_limit();
        let (opening, left) = self.learned_limits(now, scope);
        let Some(learned) = opening.into_iter().chain(left).min() else {
            return policy;
        };
        let limit = policy.map_or(learned, |p| p.min(learned));
        let state = self.state(scope);
        let running = state.in_flight.saturating_add(state.queued);
        if running >= limit {
            Some(limit)
        } else {
            policy
        }
    }

    /// Whether an attempt starting on `scope` at `now` would wait for its turn
    /// ([`take_turn`](Self::take_turn)), no turn taken.
    fn would_wait_turn(&self, now: Duration, scope: &str) -> bool {
        let Some(kept) = self.scopes.get(scope).filter(|_| self.learns_pace()) else {
            return false;
        };
        let mut pace = kept.pace.clone();
        pace.take_turn(now).is_some_and(|turn| turn.at > now)
    }

    /// `turn` on `scope` goes unused (its read stopped, or was handed over, before it came):
    /// the next attempt takes it.
    pub(crate) fn give_back_turn(&mut self, scope: &str, turn: Turn) {
        if let Some(kept) = self.scopes.get_mut(scope) {
            kept.pace.give_back(turn);
        }
    }

    /// The block an attempt starting at `now` on `scope` must wait for; `None` when the scope
    /// is open.
    pub(crate) fn poll_block(&self, now: Duration, scope: &str) -> Option<ScopeBlock> {
        self.find(scope)?.block.filter(|block| block.until > now)
    }

    /// Brings the ledger in line with where the read `ticket` on `scope` stands now, `place`
    /// (a queued read's `limit` is the most in flight it may start beside, and `priority` its
    /// turn). A read that queued joins the scope's queue; one whose attempt started without a
    /// grant takes a place in flight; one that left the queue, or whose attempt ended, gives
    /// its place back.
    pub(crate) fn set_place(
        &mut self,
        scope: &str,
        ticket: u64,
        place: Place,
        limit: u32,
        priority: Priority,
    ) {
        if place == self.place(scope, ticket) {
            return;
        }
        if place == Place::Unplaced {
            if let Some(kept) = self.scopes.get_mut(scope) {
                kept.places.remove(ticket);
            }
        } else {
            let taken = Taken {
                place,
                limit,
                priority,
            };
            self.places(scope).insert(ticket, taken);
        }
    }

    /// Where the read `ticket` on `scope` stands.
    pub(crate) fn place(&self, scope: &str, ticket: u64) -> Place {
        self.scopes
            .get(scope)
            .map_or(Place::Unplaced, |kept| kept.places.of(ticket))
    }

    /// One read holding a place on `scope`, if any does (one running on it).
    pub(crate) fn any_ticket(&self, scope: &str) -> Option<u64> {
        self.scopes.get(scope)?.places.any()
    }

    /// The reads holding a place on `scope` (in flight, queued or waiting): every running read
    /// on it, in no particular order.
    pub(crate) fn tickets(&self, scope: &str) -> Vec<u64> {
        let Some(kept) = self.scopes.get(scope) else {
            return Vec::new();
        };
        kept.places.tickets()
    }

    /// The read `ticket` on `scope` no longer holds a place in flight: its request was
    /// answered, failed or was aborted, or a place [`poll_grant`](Self::poll_grant) granted
    /// went unused. Nothing happens if it holds none.
    pub(crate) fn handle_attempt_ended(&mut self, scope: &str, ticket: u64) {
        if let Some(kept) = self.scopes.get_mut(scope) {
            if kept.places.of(ticket) == Place::InFlight {
                kept.places.remove(ticket);
            }
        }
    }

    /// The queued read on `scope` whose turn has come at `now`, if any: the first in the
    /// scope's queue of its highest priority, once fewer than its limit are in flight and the scope is not blocked. It
    /// leaves the queue, and holds a place in flight from now until
    /// [`handle_attempt_ended`](Self::handle_attempt_ended). Call it until `None` after every
    /// change: a queue, an end, a block's end.
    pub(crate) fn poll_grant(&mut self, now: Duration, scope: &str) -> Option<u64> {
        if self.poll_block(now, scope).is_some() {
            return None;
        }
        let (opening, left) = self.learned_limits(now, scope);
        let policy = self.policy(scope).in_flight_limit();
        let places = &mut self.scopes.get_mut(scope)?.places;
        // The first to queue among the scope's reads of the highest priority queued.
        let (ticket, queued_under) = places.next_queued()?;
        // A limit learned now replaces the one learned when the read queued: an opening window
        // only grows, what is left of a quota only shrinks; the scope's policy bounds both.
        let grown = opening.map_or(queued_under, |open| {
            queued_under.max(open).min(policy.unwrap_or(u32::MAX))
        });
        let limit = left.map_or(grown, |left| grown.min(left));
        if places.count(Place::InFlight) >= limit {
            return None;
        }
        let granted = Taken {
            place: Place::InFlight,
            limit: 0,
            priority: Priority::Interactive,
        };
        places.insert(ticket, granted);
        Some(ticket)
    }

    /// Every scope blocked past `now`, with its block, in no particular order.
    pub(crate) fn running_blocks(&self, now: Duration) -> impl Iterator<Item = (&str, ScopeBlock)> {
        (self.scopes.iter())
            .filter_map(move |(scope, kept)| Some((scope, kept.state.block?)))
            .filter(move |(_, block)| block.until > now)
    }

    /// Forgets, at `now`, what is no longer live ([`is_idle`]): `scope`, which an input just
    /// touched, and the scopes kept only until a time that has passed (a block's end, a quota
    /// window's reset).
    pub(crate) fn forget(&mut self, now: Duration, scope: &str) {
        (self.scopes).forget(now, scope, |_, kept| is_idle(now, kept));
    }

    /// How many scopes the ledger holds now.
    pub(crate) fn known(&self) -> usize {
        self.scopes.len()
    }

    /// Reads on `scope` delayed now: waiting for their next attempt, or queued.
    pub(crate) fn delayed(&self, scope: &str) -> u32 {
        let state = self.state(scope);
        state.waiting + state.queued
    }

    /// Whether a read of `priority` starting on `scope` at `now` would be delayed: the scope
    /// is blocked, or its in-flight limit would queue the read without a grant at once (it
    /// queues behind every read of its priority or a higher one, as
    /// [`poll_grant`](Self::poll_grant) serves them).
    pub(crate) fn would_delay(&self, now: Duration, scope: &str, priority: Priority) -> bool {
        if self.poll_block(now, scope).is_some() || self.would_wait_turn(now, scope) {
            return true;
        }
        self.start_limit(now, scope).is_some_and(|limit| {
            let state = self.state(scope);
            let ahead = (self.scopes.get(scope))
                .is_some_and(|kept| kept.places.queued_at_or_above(priority));
            ahead || state.in_flight >= limit
        })
    }

    /// What the ledger knows of `scope`.
    pub(crate) fn state(&self, scope: &str) -> ScopeState {
        let Some(kept) = self.scopes.get(scope) else {
            return ScopeState::default();
        };
        ScopeState {
            in_flight: kept.places.count(Place::InFlight),
            queued: kept.places.count(Place::Queued),
            waiting: kept.places.count(Place::Waiting),
            pace: (kept.pace.learned()).map(|(turns, span)| LearnedPace { turns, span }),
            ..kept.state
        }
    }

    fn find(&self, scope: &str) -> Option<&ScopeState> {
        self.scopes.get(scope).map(|kept| &kept.state)
    }

    fn entry(&mut self, scope: &str) -> &mut ScopeState {
        &mut self.scopes.entry(scope).state
    }

    fn places(&mut self, scope: &str) -> &mut Places {
        &mut self.scopes.entry(scope).places
    }
}
