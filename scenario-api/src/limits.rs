//! A real rate limiter in front of the palettes: each limit admits `quota` requests per
//! `window` seconds, in one of three ways ([`Kind`]), and answers the rest `429` with
//! `Retry-After` and (unless told not to) the RateLimit fields. It keeps a log of every request
//! that reached it, so tests count at the server: when it arrived, how many requests were in
//! flight at the limiter then (itself included), and when it was answered. A limit may hold
//! every answer for a while, as a slow API does, so that requests overlap.
//!
//! Every delay it writes (`Retry-After`, the fields' reset) is in whole seconds, rounded up,
//! as HTTP writes them.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// Every limit so far, by id.
#[derive(Default)]
pub(crate) struct Limits {
    pub(crate) next: u64,
    pub(crate) by_id: HashMap<u64, Limit>,
}

/// How a limit counts `quota` requests per `window`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Fixed windows counted from the limit's creation, as most public APIs count: the whole
    /// quota frees at each window's start.
    Fixed,
    /// A generic cell rate algorithm (a token bucket, as the `governor` crate keeps): one
    /// request every `window / quota`, with a burst of `quota`; a refusal frees one slot.
    Gcra,
    /// A sliding log: at most `quota` admitted in any `window` before now.
    Sliding,
}

impl Kind {
    /// The kind named `name` in a query (`fixed`, `gcra`, `sliding`).
    pub(crate) fn from_name(name: &str) -> Option<Kind> {
        match name {
            "fixed" => Some(Kind::Fixed),
            "gcra" => Some(Kind::Gcra),
            "sliding" => Some(Kind::Sliding),
            _ => None,
        }
    }

    /// Its name in a query and in the log.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Kind::Fixed => "fixed",
            Kind::Gcra => "gcra",
            Kind::Sliding => "sliding",
        }
    }
}

/// One limit and its log.
pub(crate) struct Limit {
    pub(crate) quota: u32,
    pub(crate) window: Duration,
    pub(crate) kind: Kind,
    /// Whether answers carry the RateLimit fields.
    pub(crate) fields: bool,
    created: Instant,
    /// Fixed: the window `used` counts in (0 is the first).
    current: u64,
    /// Fixed: requests admitted in the current window.
    used: u32,
    /// GCRA: the theoretical arrival time of the next request, from the limit's creation.
    tat: Duration,
    /// Sliding: when each request admitted in the last window arrived, oldest first.
    admitted: VecDeque<Duration>,
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
    /// The `Retry-After` it was answered with, in seconds, if it was refused.
    pub(crate) retry_after_s: Option<u64>,
    /// Requests in flight at the limiter when it arrived, itself included.
    pub(crate) in_flight: u32,
    /// When its answer was sent (or its client went away); `None` while it is held.
    pub(crate) answered: Option<Duration>,
}

/// What a limit's count says of one request.
struct Counted {
    admitted: bool,
    remaining: u32,
    /// How long until a refused request would be admitted, or the quota is whole again.
    reset: Duration,
}

/// The limiter's verdict, with what its fields say.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Verdict {
    pub(crate) admitted: bool,
    /// Requests left after this one, as the fields say it.
    pub(crate) remaining: u32,
    /// Whole seconds, rounded up: for a refusal, until a request would be admitted (its
    /// `Retry-After`); for an admission, until the quota is whole again.
    pub(crate) reset_s: u64,
}

impl Limit {
    /// A limit of `kind` whose first `spent` requests of its `quota` are used already (an API
    /// the page meets after others have used it).
    pub(crate) fn new(
        (quota, window, kind): (u32, Duration, Kind),
        spent: u32,
        fields: bool,
        answer_after: Duration,
        now: Instant,
    ) -> Self {
        let spent = spent.min(quota);
        let interval = window / quota.max(1);
        Self {
            quota,
            window,
            kind,
            fields,
            created: now,
            current: 0,
            used: spent,
            tat: interval * spent,
            admitted: std::iter::repeat_n(Duration::ZERO, spent as usize).collect(),
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
        let Counted {
            admitted,
            remaining,
            reset,
        } = match self.kind {
            Kind::Fixed => self.fixed(since),
            Kind::Gcra => self.gcra(since),
            Kind::Sliding => self.sliding(since),
        };
        let reset_s = reset.as_secs() + u64::from(reset.subsec_nanos() > 0);
        self.in_flight += 1;
        self.log.push(Entry {
            arrived: since,
            collection: collection.to_owned(),
            status: if admitted { 200 } else { 429 },
            retry_after_s: (!admitted).then_some(reset_s),
            in_flight: self.in_flight,
            answered: None,
        });
        Verdict {
            admitted,
            remaining,
            reset_s,
        }
    }

    /// A request at `since` against fixed windows: the reset is the window's end.
    fn fixed(&mut self, since: Duration) -> Counted {
        let window_ns = self.window.as_nanos().max(1);
        let index = (since.as_nanos() / window_ns) as u64;
        if index != self.current {
            self.current = index;
            self.used = 0;
        }
        let ends = Duration::from_nanos(((u128::from(index) + 1) * window_ns) as u64);
        let admitted = self.used < self.quota;
        self.used += u32::from(admitted);
        Counted {
            admitted,
            remaining: self.quota - self.used,
            reset: ends - since,
        }
    }

    /// A request at `since` against a GCRA: admitted if it conforms (the theoretical arrival
    /// time, one interval on, is within the window of now); the reset of a refusal is when it
    /// would conform, of an admission when the bucket is full again.
    fn gcra(&mut self, since: Duration) -> Counted {
        let interval = self.window / self.quota.max(1);
        let next = self.tat.max(since) + interval;
        let admitted = next <= since + self.window;
        if admitted {
            self.tat = next;
        }
        let used = self.tat.saturating_sub(since);
        let remaining = (self.window.saturating_sub(used)).as_nanos() / interval.as_nanos().max(1);
        let reset = match admitted {
            true => used,
            false => next - (since + self.window),
        };
        Counted {
            admitted,
            remaining: u32::try_from(remaining).unwrap_or(u32::MAX),
            reset,
        }
    }

    /// A request at `since` against a sliding log: the reset is when the oldest admission in
    /// the window leaves it.
    fn sliding(&mut self, since: Duration) -> Counted {
        while (self.admitted.front()).is_some_and(|t| *t + self.window <= since) {
            self.admitted.pop_front();
        }
        let admitted = self.admitted.len() < self.quota as usize;
        if admitted {
            self.admitted.push_back(since);
        }
        let oldest = self.admitted.front().copied().unwrap_or(since);
        Counted {
            admitted,
            remaining: self.quota - self.admitted.len() as u32,
            reset: (oldest + self.window).saturating_sub(since),
        }
    }

    /// The RateLimit fields for a verdict, in the IETF draft's structured form
    /// (`RateLimit-Policy`, `RateLimit`) and the older separate form (`RateLimit-Limit`,
    /// `-Remaining`, `-Reset`); none where the limit sends no fields.
    pub(crate) fn fields(&self, v: &Verdict) -> Vec<(&'static str, String)> {
        if !self.fields {
            return Vec::new();
        }
        let (q, w) = (self.quota, self.window.as_secs());
        vec![
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// What a limit of `kind`, 4 a second, answers requests at these moments: the status and
    /// `Retry-After` (or the fields' reset), with what is left.
    fn answers(kind: Kind, at: &[u64]) -> Vec<(bool, u32, u64)> {
        let start = Instant::now();
        let mut limit = Limit::new((4, ms(1000), kind), 0, true, Duration::ZERO, start);
        (at.iter())
            .map(|&t| {
                let v = limit.admit(start + ms(t), "coast");
                (v.admitted, v.remaining, v.reset_s)
            })
            .collect()
    }

    #[test]
    fn a_fixed_window_frees_its_whole_quota_at_its_end() {
        let got = answers(Kind::Fixed, &[0, 0, 0, 0, 900, 1000, 1000]);
        let four = [(true, 3, 1), (true, 2, 1), (true, 1, 1), (true, 0, 1)];
        assert_eq!(got[..4], four);
        assert_eq!(got[4..], [(false, 0, 1), (true, 3, 1), (true, 2, 1)]);
    }

    #[test]
    fn a_gcra_takes_a_burst_then_frees_one_request_an_interval() {
        let got = answers(Kind::Gcra, &[0, 0, 0, 0, 0, 240, 250, 260]);
        assert_eq!(got[3], (true, 0, 1));
        // Refused at 0 ms: one request conforms again at 250 ms.
        assert_eq!(got[4], (false, 0, 1));
        assert_eq!(got[5], (false, 0, 1));
        assert_eq!(got[6], (true, 0, 1));
        assert!(!got[7].0);
    }

    #[test]
    fn a_sliding_log_admits_again_as_each_admission_leaves_the_window() {
        let got = answers(
            Kind::Sliding,
            &[0, 100, 200, 300, 400, 999, 1000, 1050, 1100],
        );
        assert!(got[..4].iter().all(|a| a.0));
        // Full: the oldest (0 ms) leaves at 1,000 ms.
        assert_eq!(got[4], (false, 0, 1));
        assert_eq!(got[5], (false, 0, 1));
        assert_eq!(got[6], (true, 0, 1));
        assert!(!got[7].0);
        assert!(got[8].0);
    }

    #[test]
    fn every_kind_reads_back_from_its_name_and_nothing_else_does() {
        for kind in [Kind::Fixed, Kind::Gcra, Kind::Sliding] {
            assert_eq!(Kind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(Kind::from_name("token-bucket"), None);
    }

    #[test]
    fn a_limit_told_to_send_no_fields_sends_none() {
        let start = Instant::now();
        let limit = Limit::new((4, ms(1000), Kind::Fixed), 0, false, Duration::ZERO, start);
        let mut with = Limit::new((4, ms(1000), Kind::Fixed), 0, true, Duration::ZERO, start);
        let v = with.admit(start, "coast");
        assert!(limit.fields(&v).is_empty());
        assert_eq!(with.fields(&v).len(), 5);
    }
}
