//! The rate-limited API the fleet reads from: `governor`'s GCRA on its fake clock, answering
//! as a real API does, and counting what reached it.

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, FakeRelativeClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};
use retry_budget::Response;

/// How the API limits and how fast it answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ApiConfig {
    /// Requests it allows per second, sustained.
    pub per_second: NonZeroU32,
    /// Requests it allows at once from a full bucket.
    pub burst: NonZeroU32,
    /// From a request's start to its answer; the limiter sees the request halfway.
    pub latency: Duration,
    /// Whether the browser sees `Retry-After` and the RateLimit fields. A cross-origin API
    /// must list them in `Access-Control-Expose-Headers`; many do not, and then a client
    /// falls back on waits of its own.
    pub exposes_hints: bool,
}

impl ApiConfig {
    /// 50 requests a second, bursts of 50, answers in 100 ms, hints exposed.
    pub const fn new() -> Self {
        Self {
            per_second: NonZeroU32::new(50).unwrap(),
            burst: NonZeroU32::new(50).unwrap(),
            latency: Duration::from_millis(100),
            exposes_hints: true,
        }
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

type Limiter = RateLimiter<NotKeyed, InMemoryState, FakeRelativeClock, StateInformationMiddleware>;

/// The API: its limiter, its clock, and what reached it.
pub struct Api {
    config: ApiConfig,
    limiter: Limiter,
    clock: FakeRelativeClock,
    /// Where the fake clock stands, to advance it by differences.
    clock_at: Duration,
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
        let (rate, burst) = (config.per_second, config.burst);
        let clock = FakeRelativeClock::default();
        let limiter = RateLimiter::direct_with_clock(
            Quota::per_second(rate).allow_burst(burst),
            clock.clone(),
        )
        .with_middleware::<StateInformationMiddleware>();
        Self {
            config,
            limiter,
            clock,
            clock_at: Duration::ZERO,
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
    /// the browser sees it. A refusal is a 429 with `Retry-After` in whole seconds, rounded up, and the RateLimit
    /// fields saying nothing is left until then; an answer says what is left and when the
    /// bucket is full again.
    pub fn handle_request(&mut self, now: Duration) -> Response {
        self.clock.advance(now.saturating_sub(self.clock_at));
        self.clock_at = self.clock_at.max(now);
        let second = usize::try_from(now.as_secs()).unwrap_or(usize::MAX);
        if self.by_second.len() <= second {
            self.by_second.resize(second + 1, 0);
        }
        self.by_second[second] += 1;
        self.requests += 1;
        let answer = match self.limiter.check() {
            Ok(snapshot) => {
                let left = snapshot.remaining_burst_capacity();
                let used = self.config.burst.get().saturating_sub(left);
                let refill = f64::from(used) / f64::from(self.config.per_second.get());
                Response::new(200)
                    .rate_limit("RateLimit-Remaining", left.to_string())
                    .rate_limit("RateLimit-Reset", (refill.ceil() as u64).to_string())
            }
            Err(not_until) => {
                self.refusals += 1;
                let wait = not_until.wait_time_from(self.clock.now());
                let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
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
