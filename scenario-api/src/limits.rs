//! A real rate limiter in front of the palettes: each limit admits `quota` requests per fixed
//! window of `window` seconds (windows counted from the limit's creation), as most public APIs
//! do, and answers the rest `429` with `Retry-After` and the RateLimit fields. It keeps a log
//! of every request that reached it, so tests count at the server: when it arrived, how many
//! requests were in flight at the limiter then (itself included), and when it was answered. A
//! limit may hold every answer for a while, as a slow API does, so that requests overlap.
//!
//! A fixed window, not a token bucket (GCRA, as the `governor` crate keeps): after a refusal a
//! token bucket frees one request at a time, so its `Retry-After` and `RateLimit` fields
//! describe one slot; a window frees the whole quota at the reset its fields name, which is
//! what the client's ledger is tested against.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Every limit so far, by id.
#[derive(Default)]
pub(crate) struct Limits {
    pub(crate) next: u64,
    pub(crate) by_id: HashMap<u64, Limit>,
}

/// One limit and its log.
pub(crate) struct Limit {
    pub(crate) quota: u32,
    pub(crate) window: Duration,
    created: Instant,
    /// The window `used` counts in (0 is the first).
    current: u64,
    used: u32,
    /// How long each answer is held before it is sent.
    pub(crate) answer_after: Duration,
    /// Requests arrived and not yet answered.
    in_flight: u32,
    pub(crate) log: Vec<Entry>,
}

/// One request as the limiter saw it.
pub(crate) struct Entry {
    pub(crate) arrived: Duration,
    pub(crate) collection: String,
    pub(crate) status: u16,
    /// Requests in flight at the limiter when it arrived, itself included.
    pub(crate) in_flight: u32,
    /// When its answer was sent (or its client went away); `None` while it is held.
    pub(crate) answered: Option<Duration>,
}

/// The limiter's verdict, with what its fields say.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Verdict {
    pub(crate) admitted: bool,
    /// Requests left in this window after this one.
    pub(crate) remaining: u32,
    /// Whole seconds, rounded up, until the window resets.
    pub(crate) reset_s: u64,
}

impl Limit {
    /// A limit whose first window has `spent` of its `quota` used already (an API the page
    /// meets after others have used it).
    pub(crate) fn new(
        quota: u32,
        window: Duration,
        spent: u32,
        answer_after: Duration,
        now: Instant,
    ) -> Self {
        Self {
            quota,
            window,
            created: now,
            current: 0,
            used: spent.min(quota),
            answer_after,
            in_flight: 0,
            log: Vec::new(),
        }
    }

    /// The request logged as number `n` (from 0) was answered at `now`, or its client went
    /// away.
    pub(crate) fn answered(&mut self, n: usize, now: Instant) {
        if let Some(entry) = self.log.get_mut(n).filter(|e| e.answered.is_none()) {
            entry.answered = Some(now.saturating_duration_since(self.created));
            self.in_flight -= 1;
        }
    }

    /// The most requests in flight at the limiter at once, so far.
    pub(crate) fn most_in_flight(&self) -> u32 {
        self.log.iter().map(|e| e.in_flight).max().unwrap_or(0)
    }

    /// A request for `collection` arrived at `now`: admitted or refused, and logged, in flight
    /// until [`answered`](Self::answered).
    pub(crate) fn admit(&mut self, now: Instant, collection: &str) -> Verdict {
        let since = now.saturating_duration_since(self.created);
        let window_ns = self.window.as_nanos().max(1);
        let index = (since.as_nanos() / window_ns) as u64;
        if index != self.current {
            self.current = index;
            self.used = 0;
        }
        let ends = Duration::from_nanos(((u128::from(index) + 1) * window_ns) as u64);
        let left = ends - since;
        let reset_s = left.as_secs() + u64::from(left.subsec_nanos() > 0);
        let admitted = self.used < self.quota;
        if admitted {
            self.used += 1;
        }
        self.in_flight += 1;
        self.log.push(Entry {
            arrived: since,
            collection: collection.to_owned(),
            status: if admitted { 200 } else { 429 },
            in_flight: self.in_flight,
            answered: None,
        });
        Verdict {
            admitted,
            remaining: self.quota - self.used,
            reset_s,
        }
    }

    /// The RateLimit fields for a verdict, in the IETF draft's structured form
    /// (`RateLimit-Policy`, `RateLimit`) and the older separate form (`RateLimit-Limit`,
    /// `-Remaining`, `-Reset`).
    pub(crate) fn fields(&self, v: &Verdict) -> [(&'static str, String); 5] {
        let (q, w) = (self.quota, self.window.as_secs());
        [
            ("ratelimit-policy", format!("\"window\";q={q};w={w}")),
            (
                "ratelimit",
                format!("\"window\";r={};t={}", v.remaining, v.reset_s),
            ),
            ("ratelimit-limit", q.to_string()),
            ("ratelimit-remaining", v.remaining.to_string()),
            ("ratelimit-reset", v.reset_s.to_string()),
        ]
    }
}
