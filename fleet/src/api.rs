//! The rate-limited API the fleet reads from: a limiter of one kind on the run's virtual clock
//! ([`LimiterKind`]), answering as a real API does, and counting what reached it.

use std::num::NonZeroU32;
use std::time::Duration;

use retry_budget::Response;

use crate::limiter::{Limiter, LimiterKind, Verdict};

/// How the API limits and how fast it answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ApiConfig {
    /// How it counts its quota.
    pub limiter: LimiterKind,
    /// Requests it allows per second, sustained.
    pub per_second: NonZeroU32,
    /// Requests it allows at once from a full bucket (GCRA only: a window's quota is its
    /// length times the rate).
    pub burst: NonZeroU32,
    /// From a request's start to its answer; the limiter sees the request halfway.
    pub latency: Duration,
    /// Whether the browser sees `Retry-After` and the RateLimit fields. A cross-origin API
    /// must list them in `Access-Control-Expose-Headers`; many do not, and then a client
    /// falls back on waits of its own.
    pub exposes_hints: bool,
}

impl ApiConfig {
    /// A GCRA of 50 requests a second, bursts of 50, answers in 100 ms, hints exposed.
    pub const fn new() -> Self {
        Self {
            limiter: LimiterKind::Gcra,
            per_second: NonZeroU32::new(50).unwrap(),
            burst: NonZeroU32::new(50).unwrap(),
            latency: Duration::from_millis(100),
            exposes_hints: true,
        }
    }

    /// This API counting its quota with `limiter`.
    pub const fn with_limiter(mut self, limiter: LimiterKind) -> Self {
        self.limiter = limiter;
        self
    }

    /// The most requests it can admit from 0 to `horizon`.
    pub fn most_admitted(&self, horizon: Duration) -> u64 {
        self.limiter
            .most_admitted(self.per_second, self.burst, horizon)
    }

    /// This API with its hints exposed to the browser, or not.
    pub const fn with_hints_exposed(mut self, exposed: bool) -> Self {
        self.exposes_hints = exposed;
        self
    }
}

impl Default for ApiConfig {
    fn default() -> Self {
        Self::new()
    }
}

/// The API: its limiter, its clock, and what reached it.
pub struct Api {
    config: ApiConfig,
    limiter: Limiter,
    /// Requests that reached the limiter, by whole second of arrival.
    by_second: Vec<u32>,
    /// Every request that reached it.
    pub requests: u64,
    /// The ones it refused with 429.
    pub refusals: u64,
}

impl Api {
    /// A fresh API, its bucket full, its clock at zero.
    pub fn new(config: ApiConfig) -> Self {
        Self {
            config,
            limiter: Limiter::new(config.limiter, config.per_second, config.burst),
            by_second: Vec::new(),
            requests: 0,
            refusals: 0,
        }
    }

    /// How the API limits and answers.
    pub const fn config(&self) -> ApiConfig {
        self.config
    }

    /// A request reaches the limiter at `now` (never earlier than the last): its answer, as
    /// the browser sees it. A refusal is a 429 with `Retry-After` in whole seconds, rounded up,
    /// and the RateLimit fields saying nothing is left until then; an answer says what is left
    /// and when the count is whole again.
    pub fn handle_request(&mut self, now: Duration) -> Response {
        let second = usize::try_from(now.as_secs()).unwrap_or(usize::MAX);
        if self.by_second.len() <= second {
            self.by_second.resize(second + 1, 0);
        }
        self.by_second[second] += 1;
        self.requests += 1;
        let answer = match self.limiter.check(now) {
            Verdict::Admitted { left, reset } => Response::new(200)
                .rate_limit("RateLimit-Remaining", left.to_string())
                .rate_limit("RateLimit-Reset", whole_seconds(reset).to_string()),
            Verdict::Refused { wait } => {
                self.refusals += 1;
                let seconds = whole_seconds(wait);
                Response::new(429)
                    .retry_after(seconds.to_string())
                    .rate_limit("RateLimit-Remaining", "0")
                    .rate_limit("RateLimit-Reset", seconds.to_string())
            }
        };
        if self.config.exposes_hints {
            answer
        } else {
            // What a cross-origin page sees of it: the status, and that headers may be hidden.
            let mut seen = Response::new(answer.status);
            seen.cross_origin = true;
            seen
        }
    }

    /// The most requests that reached the limiter in one whole second.
    pub fn peak_per_second(&self) -> u32 {
        self.by_second.iter().copied().max().unwrap_or(0)
    }
}

/// `d` in whole seconds, rounded up, as `Retry-After` and `RateLimit-Reset` carry it.
fn whole_seconds(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}
