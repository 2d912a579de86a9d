//! The policy: how much time and how many attempts one read action may spend.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use super::seconds::{seconds_text, Precision};

/// The SPEC's fallback waits: 2 s after attempt 1, 4 s after attempt 2 (and after every later one).
pub const DEFAULT_FALLBACK_WAITS: &[Duration] = &[Duration::from_secs(2), Duration::from_secs(4)];

/// The largest body a read accepts by default: 1 MiB. A larger one is not read whole.
pub const DEFAULT_MAX_BODY_BYTES: u64 = 1 << 20;

/// Whether `status` is a success (2xx): the one rule for what ends an action as `succeeded`,
/// and what a policy may never retry.
pub const fn is_success(status: u16) -> bool {
    matches!(status, 200..=299)
}

/// A set of HTTP status codes (100–599), small enough to build in a `const`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct StatusSet {
    bits: [u64; 8],
    /// A code outside 100–599 that was asked for; kept so `validate` can name it.
    out_of_range: Option<u16>,
}

impl StatusSet {
    /// The empty set: nothing is retried.
    pub const fn new() -> Self {
        Self {
            bits: [0; 8],
            out_of_range: None,
        }
    }

    /// This set with `status` added. A code outside 100–599 makes the policy invalid.
    pub const fn with(mut self, status: u16) -> Self {
        if status < 100 || status > 599 {
            if self.out_of_range.is_none() {
                self.out_of_range = Some(status);
            }
            return self;
        }
        let i = (status - 100) as usize;
        self.bits[i / 64] |= 1 << (i % 64);
        self
    }

    /// Whether `status` is in the set.
    pub const fn contains(&self, status: u16) -> bool {
        if status < 100 || status > 599 {
            return false;
        }
        let i = (status - 100) as usize;
        self.bits[i / 64] & (1 << (i % 64)) != 0
    }

    /// The codes in the set, in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        (100..=599).filter(|s| self.contains(*s))
    }
}

impl Default for StatusSet {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for StatusSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// The finite retry budget of one read action.
///
/// Every number is configurable; [`RetryPolicy::new`] gives the SPEC's defaults:
///
/// | setting | default |
/// |---|---|
/// | total budget, from the first attempt's start | 20 s |
/// | attempts, the first included | 3 |
/// | per-attempt cap, reserved in full before each start | 4 s |
/// | retryable statuses | 429 |
/// | local floor on every wait | 1 s |
/// | fallback waits (Retry-After missing or invalid) | 2 s, then 4 s (the last repeats) |
/// | trust the local wall clock to read a `Retry-After` date | yes |
/// | largest body read, in bytes ([`DEFAULT_MAX_BODY_BYTES`]) | 1 MiB |
/// | jitter: added percent / full jitter on fallback waits | 0 % / off |
/// | jitter after a server's delay, in percent of it | 0 % (off: start at the server's moment) |
/// | priority in the scope's queue | [`Priority::Interactive`] |
///
/// What the reads of one scope share (an in-flight limit, a cap on delayed reads, retry
/// tokens) is the scope's, not a read's: a [`ScopePolicy`](super::ScopePolicy), given once to
/// the [`Client`](super::Client) that keeps the scope's ledger.
///
/// ```
/// use std::time::Duration;
/// use retry_budget::RetryPolicy;
///
/// const POLICY: RetryPolicy = RetryPolicy::new()
///     .with_budget(Duration::from_secs(30))
///     .with_max_attempts(4);
/// assert_eq!(POLICY.attempt_cap(), Duration::from_secs(4));
/// assert!(POLICY.validate().is_ok());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    budget: Duration,
    max_attempts: u32,
    attempt_cap: Duration,
    retry_statuses: StatusSet,
    min_wait: Duration,
    fallback_waits: Cow<'static, [Duration]>,
    trust_local_clock: bool,
    max_body_bytes: u64,
    scope: Option<Cow<'static, str>>,
    jitter_percent: u32,
    full_jitter: bool,
    server_jitter_percent: u32,
    coalesce: bool,
    priority: Priority,
    server_hold: Duration,
}

/// Which reads a scope's queue serves first ([`RetryPolicy::with_priority`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// Someone is looking at it: served before every background read (the default).
    #[default]
    Interactive,
    /// Prefetching, refreshing, paging through: served when no interactive read is queued.
    Background,
}

impl RetryPolicy {
    /// The SPEC's policy: 20 s, 3 attempts, 4 s cap, retry 429, 1 s floor, fallback 2 s then 4 s.
    pub const fn new() -> Self {
        Self {
            budget: Duration::from_secs(20),
            max_attempts: 3,
            attempt_cap: Duration::from_secs(4),
            retry_statuses: StatusSet::new().with(429),
            min_wait: Duration::from_secs(1),
            fallback_waits: Cow::Borrowed(DEFAULT_FALLBACK_WAITS),
            trust_local_clock: true,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            scope: None,
            jitter_percent: 0,
            full_jitter: false,
            server_jitter_percent: 0,
            coalesce: true,
            server_hold: Duration::ZERO,
            priority: Priority::Interactive,
        }
    }

    /// The setting for a quota many clients share, as the fleet measured it (docs/fleet.md):
    /// [`new`](Self::new) with a 1 s attempt cap, so that a read refused late in its budget
    /// still has room for an attempt; up to 100 % added to the waits it chooses
    /// ([`with_jitter`](Self::with_jitter)); and up to 800 % of a server's delay after it
    /// ([`with_server_jitter`](Self::with_server_jitter)), since a limiter tells everyone it
    /// refuses the same moment. The cap suits an API that answers well within a second (the
    /// fleet's answers in 100 ms); give a slower one more with
    /// [`with_attempt_cap`](Self::with_attempt_cap).
    pub const fn for_shared_quota() -> Self {
        Self::new()
            .with_attempt_cap(Duration::from_secs(1))
            .with_jitter(100)
            .with_server_jitter(800)
    }

    /// Total elapsed time the action may span, from the first attempt's start (default 20 s).
    pub const fn with_budget(mut self, budget: Duration) -> Self {
        self.budget = budget;
        self
    }

    /// Attempts at most, the first included (default 3).
    pub const fn with_max_attempts(mut self, max_attempts: u32) -> Self {
        self.max_attempts = max_attempts;
        self
    }

    /// The longest one attempt may run; reserved before every start (default 4 s).
    pub const fn with_attempt_cap(mut self, attempt_cap: Duration) -> Self {
        self.attempt_cap = attempt_cap;
        self
    }

    /// The statuses that may be retried (default: 429 only). 2xx can never be retried.
    pub const fn with_retry_statuses(mut self, statuses: StatusSet) -> Self {
        self.retry_statuses = statuses;
        self
    }

    /// The local floor on every wait, whatever the server asked (default 1 s).
    pub const fn with_min_wait(mut self, min_wait: Duration) -> Self {
        self.min_wait = min_wait;
        self
    }

    /// Whether the local wall clock may date a receipt when the response has no usable `Date`
    /// header (default `true`). Without either, a `Retry-After` date stops the action as
    /// `clock_untrusted`.
    pub const fn with_trust_local_clock(mut self, trust: bool) -> Self {
        self.trust_local_clock = trust;
        self
    }

    /// The largest 2xx body read, in bytes (default 1 MiB). A larger one is not read whole:
    /// reading stops at the limit, the fetch is aborted, and the action stops as
    /// `unreadable_response`. A `Content-Length` beyond it stops the read before any byte.
    pub const fn with_max_body_bytes(mut self, bytes: u64) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// The waits used when `Retry-After` is missing or invalid: entry `i` after attempt `i + 1`,
    /// the last entry repeating (default 2 s, 4 s). Not `const`: the list may be built at run time.
    pub fn with_fallback_waits(mut self, waits: impl Into<Cow<'static, [Duration]>>) -> Self {
        self.fallback_waits = waits.into();
        self
    }

    /// Adds up to `percent` % at random to every wait the client chooses: a fallback wait, and
    /// the wait for a scope's block to end, so that reads held back together do not return in
    /// one wave (default 0: off, every wait exact). A server's own delay is never jittered,
    /// no wait is ever shortened, and jitter never costs an attempt: it is trimmed to what the
    /// budget leaves. At most 100.
    pub const fn with_jitter(mut self, percent: u32) -> Self {
        self.jitter_percent = percent;
        self
    }

    /// Full jitter on the waits the client picks when `Retry-After` is missing or invalid
    /// (default `false`): the wait after attempt `n` is drawn uniformly between the local floor
    /// and the `n`th fallback wait, which is the ceiling of the draw (`2 s`, then `4 s` by
    /// default), instead of being that wait exactly. It replaces the added percent on those
    /// waits; a scope's block still gets the percent. A server's delay is never drawn from,
    /// and the draw is trimmed to what the budget leaves, so it never costs an attempt.
    ///
    /// The draw starts at the floor, not at zero as in the textbook `uniform(0, cap)`: a draw
    /// below the floor would be raised to it, sending a share of the fleet back together at
    /// exactly the floor.
    pub const fn with_full_jitter(mut self, full: bool) -> Self {
        self.full_jitter = full;
        self
    }

    /// Adds up to `percent` % of a server's delay at random after it (default 0: off, the next
    /// attempt starts at the server's moment): the end of a 429's `Retry-After`, and of a
    /// scope's block, which releases every read it held back (the larger of this and
    /// [`with_jitter`](Self::with_jitter) spreads a block). A server's delay is a floor:
    /// nothing ever starts before it, the gate reads it, and the draw is trimmed to what the
    /// budget leaves, so it never costs an attempt. At most 1000: a GCRA tells every client it
    /// refuses to come back in 1 s, and a spread of a few seconds is what breaks up that wave.
    ///
    /// Off by default, so that a client given one delay comes back at that moment. On a quota
    /// many clients share, the server tells everyone it refuses the same moment, and coming
    /// back exactly is coming back together: docs/fleet.md measures what a spread buys, and
    /// where it costs (a fixed window serves exact returns in the order they were refused).
    pub const fn with_server_jitter(mut self, percent: u32) -> Self {
        self.server_jitter_percent = percent;
        self
    }

    /// Whether screens that read the same URL on the same scope, under the same policy, while
    /// one read of it is loading or waiting, share that read: one request on the wire, every
    /// screen showing the same state (default `true`). Turn it off for a read whose freshness
    /// matters, so each screen sends its own.
    pub const fn with_coalescing(mut self, coalesce: bool) -> Self {
        self.coalesce = coalesce;
        self
    }

    /// How long a server's render may hold its page for this read, counted from the read's
    /// start, before it hands the read's wait to the browser (default: 0, never: the server
    /// makes its attempt and hands any wait over). A driver that cannot hand a read over (a
    /// native program's) waits as the budget allows, whatever this says.
    pub const fn with_server_hold(mut self, hold: Duration) -> Self {
        self.server_hold = hold;
        self
    }

    /// Where this read stands in its scope's queue (default [`Priority::Interactive`]): a
    /// queued interactive read is granted a place before every queued background read, and
    /// reads of one priority are granted in the order they queued. A background read waits
    /// while interactive ones keep coming, and stops at its last start, as any queued read.
    pub const fn with_priority(mut self, priority: Priority) -> Self {
        self.priority = priority;
        self
    }

    /// The name of the rate limit this read shares with others (see
    /// [`Client`](super::Client)), e.g. an account: `"account:ops"`. Default: the
    /// API's origin, so every read of one API on the page shares one limit. Not `const`: the
    /// name may be built at run time.
    pub fn with_scope(mut self, scope: impl Into<Cow<'static, str>>) -> Self {
        self.scope = Some(scope.into());
        self
    }

    /// Total elapsed budget.
    pub const fn budget(&self) -> Duration {
        self.budget
    }

    /// Attempts at most, the first included.
    pub const fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// Per-attempt cap.
    pub const fn attempt_cap(&self) -> Duration {
        self.attempt_cap
    }

    /// Retryable statuses.
    pub const fn retry_statuses(&self) -> &StatusSet {
        &self.retry_statuses
    }

    /// Local floor on every wait.
    pub const fn min_wait(&self) -> Duration {
        self.min_wait
    }

    /// Whether the local wall clock is trusted to date a receipt.
    pub const fn trust_local_clock(&self) -> bool {
        self.trust_local_clock
    }

    /// The largest 2xx body read, in bytes.
    pub const fn max_body_bytes(&self) -> u64 {
        self.max_body_bytes
    }

    /// Whether identical reads share one action.
    pub const fn coalesce(&self) -> bool {
        self.coalesce
    }

    /// How long a server's render may hold for this read ([`with_server_hold`](Self::with_server_hold)).
    pub const fn server_hold(&self) -> Duration {
        self.server_hold
    }

    /// Where this read stands in its scope's queue.
    pub const fn priority(&self) -> Priority {
        self.priority
    }

    /// The jitter, in percent of a wait the client chooses (0: off).
    pub const fn jitter_percent(&self) -> u32 {
        self.jitter_percent
    }

    /// The jitter after a server's delay, in percent of it (0: off).
    pub const fn server_jitter_percent(&self) -> u32 {
        self.server_jitter_percent
    }

    /// Whether a fallback wait is drawn between the floor and its listed value.
    pub const fn full_jitter(&self) -> bool {
        self.full_jitter
    }

    /// The scope set by [`with_scope`](Self::with_scope); `None` for the API's origin.
    pub fn scope(&self) -> Option<&str> {
        self.scope.as_deref()
    }

    /// Fallback waits, by completed attempt.
    pub fn fallback_waits(&self) -> &[Duration] {
        &self.fallback_waits
    }

    /// The fallback wait after `completed` attempts (1-based; past the list its last entry).
    /// `None` only for an invalid policy whose list is empty.
    pub fn fallback_after(&self, completed: u32) -> Option<Duration> {
        let i = (completed.max(1) - 1) as usize;
        self.fallback_waits
            .get(i)
            .or_else(|| self.fallback_waits.last())
            .copied()
    }

    /// Refuses a policy that cannot work; otherwise reports what it can at best afford.
    pub fn validate(&self) -> Result<FittingAttempts, PolicyError> {
        if self.max_attempts == 0 {
            return Err(PolicyError::NoAttempts);
        }
        if self.attempt_cap.is_zero() {
            return Err(PolicyError::ZeroCap);
        }
        if self.attempt_cap > self.budget {
            return Err(PolicyError::CapBeyondBudget {
                cap: self.attempt_cap,
                budget: self.budget,
            });
        }
        if self.fallback_waits.is_empty() {
            return Err(PolicyError::EmptyFallback);
        }
        if self.max_body_bytes == 0 {
            return Err(PolicyError::NoBodyRoom);
        }
        if self.jitter_percent > 100 {
            return Err(PolicyError::JitterTooLarge(self.jitter_percent));
        }
        if self.server_jitter_percent > 1000 {
            return Err(PolicyError::ServerJitterTooLarge(
                self.server_jitter_percent,
            ));
        }
        if self.scope.as_deref().is_some_and(|s| s.trim().is_empty()) {
            return Err(PolicyError::BlankScope);
        }
        if let Some(status) = self.retry_statuses.out_of_range {
            return Err(PolicyError::NotAStatus(status));
        }
        if let Some(status) = self.retry_statuses.iter().find(|s| is_success(*s)) {
            return Err(PolicyError::SuccessRetried(status));
        }
        Ok(self.fitting_attempts())
    }

    fn fitting_attempts(&self) -> FittingAttempts {
        // At best every answer is instant and every wait is the floor.
        let at_best = self.attempts_fitting(|_| self.min_wait);
        let on_fallback = self.attempts_fitting(|completed| {
            self.min_wait
                .max(self.fallback_after(completed).unwrap_or_default())
        });
        FittingAttempts {
            max_attempts: self.max_attempts,
            at_best,
            on_fallback,
        }
    }

    /// How many attempts fit when answers are instant and the wait after attempt `k` is
    /// `wait(k)`: attempt `k + 1` starts at the sum of the first `k` waits and needs its cap.
    fn attempts_fitting(&self, wait: impl Fn(u32) -> Duration) -> u32 {
        let room = self.budget.saturating_sub(self.attempt_cap);
        let mut start = Duration::ZERO;
        let mut fitted = 1;
        // Walk the list's entries one by one; past them every wait is the same, so divide.
        let listed = u32::try_from(self.fallback_waits.len()).unwrap_or(u32::MAX);
        while fitted < self.max_attempts && fitted <= listed {
            match start.checked_add(wait(fitted)) {
                Some(next) if next <= room => start = next,
                _ => return fitted,
            }
            fitted += 1;
        }
        if fitted >= self.max_attempts {
            return self.max_attempts;
        }
        let step = wait(fitted);
        if step.is_zero() {
            return self.max_attempts;
        }
        let more = (room - start).as_nanos() / step.as_nanos();
        let total = u128::from(fitted) + more;
        u32::try_from(total)
            .unwrap_or(u32::MAX)
            .min(self.max_attempts)
    }
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self::new()
    }
}

/// What a valid policy can afford, at best.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FittingAttempts {
    /// The policy's `max_attempts`.
    pub max_attempts: u32,
    /// Attempts that fit when every answer is instant and every wait is the local floor.
    pub at_best: u32,
    /// Attempts that fit when every answer is instant but no server hint is usable.
    pub on_fallback: u32,
}

impl fmt::Display for FittingAttempts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at best {} of {} attempts fit (instant answers, floor waits); {} with no usable server hint",
            self.at_best, self.max_attempts, self.on_fallback
        )
    }
}

/// Why a policy was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// `max_attempts` is 0.
    #[error("max_attempts is 0: at least one attempt is needed")]
    NoAttempts,
    /// The per-attempt cap is zero.
    #[error("attempt_cap is 0 s: an attempt needs time to run")]
    ZeroCap,
    /// The per-attempt cap is longer than the whole budget.
    #[error("attempt_cap ({} s) is longer than the budget ({} s): no attempt could start", seconds_text(*cap, Precision::Exact), seconds_text(*budget, Precision::Exact))]
    CapBeyondBudget {
        /// The cap asked for.
        cap: Duration,
        /// The budget asked for.
        budget: Duration,
    },
    /// The fallback list is empty.
    #[error(
        "fallback_waits is empty: a missing or invalid Retry-After needs a wait to fall back on"
    )]
    EmptyFallback,
    /// `max_body_bytes` is 0.
    #[error("max_body_bytes is 0: no answer's body could be read")]
    NoBodyRoom,
    /// Jitter above 100 %.
    #[error("jitter is {0} %: at most 100 % of a wait can be added")]
    JitterTooLarge(u32),
    /// Jitter after a server's delay above 1000 %.
    #[error("server jitter is {0} %: at most 1000 % of a server's delay can be added")]
    ServerJitterTooLarge(u32),
    /// The scope's name is empty or only spaces.
    #[error("scope is blank: name the rate limit this read shares, or leave it to the origin")]
    BlankScope,
    /// A retry status outside 100–599.
    #[error("retry status {0} is not an HTTP status (100-599)")]
    NotAStatus(u16),
    /// A 2xx in the retry set.
    #[error("retry status {0} is a success: a 2xx ends the action and is never retried")]
    SuccessRetried(u16),
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use crate::test_clock::s as S;

    #[test]
    fn defaults_are_the_specs() {
        let p = RetryPolicy::new();
        assert_eq!(p.budget(), S(20));
        assert_eq!(p.max_attempts(), 3);
        assert_eq!(p.attempt_cap(), S(4));
        assert_eq!(p.retry_statuses().iter().collect::<Vec<_>>(), vec![429]);
        assert_eq!(p.min_wait(), S(1));
        assert_eq!(p.fallback_waits(), &[S(2), S(4)]);
        assert!(p.trust_local_clock());
        assert_eq!(p, RetryPolicy::default());
    }

    #[test]
    fn fallback_repeats_its_last_entry() {
        let p = RetryPolicy::new();
        assert_eq!(p.fallback_after(1), Some(S(2)));
        assert_eq!(p.fallback_after(2), Some(S(4)));
        assert_eq!(p.fallback_after(3), Some(S(4)));
        assert_eq!(p.fallback_after(1000), Some(S(4)));
    }

    #[test]
    fn nonsense_is_refused_by_name() {
        let p = RetryPolicy::new();
        assert_eq!(
            p.clone().with_max_attempts(0).validate(),
            Err(PolicyError::NoAttempts)
        );
        assert_eq!(
            p.clone().with_attempt_cap(S(0)).validate(),
            Err(PolicyError::ZeroCap)
        );
        let e = p.clone().with_attempt_cap(S(21)).validate().unwrap_err();
        assert_eq!(
            e.to_string(),
            "attempt_cap (21 s) is longer than the budget (20 s): no attempt could start"
        );
        assert_eq!(
            p.clone().with_fallback_waits(Vec::new()).validate(),
            Err(PolicyError::EmptyFallback)
        );
        let e = p.clone().with_max_body_bytes(0).validate().unwrap_err();
        assert_eq!(
            e.to_string(),
            "max_body_bytes is 0: no answer's body could be read"
        );
        assert_eq!(p.max_body_bytes(), 1_048_576);
        for blank in ["", " \t"] {
            assert_eq!(
                p.clone().with_scope(blank).validate(),
                Err(PolicyError::BlankScope)
            );
        }
        assert_eq!(p.scope(), None);
        assert_eq!(p.jitter_percent(), 0);
        assert!(p.coalesce());
        assert!(!p.clone().with_coalescing(false).coalesce());
        assert_eq!(p.server_hold(), Duration::ZERO);
        let hold = Duration::from_secs(2);
        assert_eq!(p.clone().with_server_hold(hold).server_hold(), hold);
        assert!(p.clone().with_jitter(100).validate().is_ok());
        assert_eq!(
            p.clone()
                .with_jitter(101)
                .validate()
                .unwrap_err()
                .to_string(),
            "jitter is 101 %: at most 100 % of a wait can be added"
        );
        assert_eq!(p.server_jitter_percent(), 0);
        assert!(p.clone().with_server_jitter(1000).validate().is_ok());
        assert_eq!(
            p.clone()
                .with_server_jitter(1001)
                .validate()
                .unwrap_err()
                .to_string(),
            "server jitter is 1001 %: at most 1000 % of a server's delay can be added"
        );
        let named = p.clone().with_scope(format!("account:{}", "ops"));
        assert_eq!(
            (named.scope(), named.validate().is_ok()),
            (Some("account:ops"), true)
        );
        assert_eq!(
            p.clone()
                .with_retry_statuses(StatusSet::new().with(429).with(600))
                .validate(),
            Err(PolicyError::NotAStatus(600))
        );
        assert_eq!(
            p.clone()
                .with_retry_statuses(StatusSet::new().with(204))
                .validate(),
            Err(PolicyError::SuccessRetried(204))
        );
        // A budget of zero can fit no cap at all.
        assert!(matches!(
            p.with_budget(S(0)).validate(),
            Err(PolicyError::CapBeyondBudget { .. })
        ));
    }

    #[test]
    fn affordance_of_the_default_policy() {
        let a = RetryPolicy::new().validate().unwrap();
        assert_eq!(
            a,
            FittingAttempts {
                max_attempts: 3,
                at_best: 3,
                on_fallback: 3
            }
        );
    }

    #[test]
    fn affordance_reports_what_cannot_fit() {
        // 10 s budget, 4 s cap: starts must be <= 6 s. Floor 1 s: starts 0..=6 -> 7 attempts.
        // Fallback 2 s then 4 s: starts 0, 2, 6 -> 3 attempts.
        let p = RetryPolicy::new().with_budget(S(10)).with_max_attempts(100);
        let a = p.validate().unwrap();
        assert_eq!((a.at_best, a.on_fallback), (7, 3));
        // The same with the cap equal to the budget: only the first attempt fits.
        let a = p.with_attempt_cap(S(10)).validate().unwrap();
        assert_eq!((a.at_best, a.on_fallback), (1, 1));
    }

    #[test]
    fn affordance_with_a_zero_floor_is_bounded_by_attempts() {
        let p = RetryPolicy::new()
            .with_min_wait(S(0))
            .with_fallback_waits(vec![S(0)])
            .with_max_attempts(u32::MAX);
        let a = p.validate().unwrap();
        assert_eq!((a.at_best, a.on_fallback), (u32::MAX, u32::MAX));
    }

    #[test]
    fn status_set_holds_only_what_was_added() {
        let s = StatusSet::new().with(429).with(503).with(100).with(599);
        assert!(s.contains(429) && s.contains(503) && s.contains(100) && s.contains(599));
        assert!(!s.contains(500) && !s.contains(99) && !s.contains(600));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![100, 429, 503, 599]);
    }
}
