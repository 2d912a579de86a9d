//! The kinds of limiter an API counts its quota with, each driven on the run's virtual clock,
//! each admitting `per_second` requests a second on average:
//!
//! - **GCRA** (`governor`): the leaky bucket as a meter, as nginx's `limit_req` (with `nodelay`)
//!   and Shopify's bucket count; a refusal is told when the next request fits, so the fleet is
//!   told one second, over and over.
//! - **Fixed windows** (GitHub's hourly primary limit, X's 15-minute windows): a count reset at
//!   each window's start; everyone refused in a window is told the same moment, its end.
//! - **A sliding window** as Cloudflare approximates one: the count of the window so far, plus
//!   the previous window's count weighted by how much of it the sliding window still covers.
//!
//! Only admitted requests are counted, as governor counts them. The two windows are a few lines
//! here (no crate that takes its time from the caller counts them), held to cases worked by hand
//! in the tests below.

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, FakeRelativeClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};

/// How an API counts its quota.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimiterKind {
    /// GCRA, a bucket of `burst` refilled at the rate (a leaky bucket as a meter).
    Gcra,
    /// Fixed windows this long, `per_second` × its length requests in each.
    FixedWindow(Duration),
    /// A sliding window this long, `per_second` × its length requests in any, estimated from
    /// the fixed windows' counts.
    SlidingWindow(Duration),
}

impl LimiterKind {
    /// Its name, short enough for the chart's panels.
    pub fn name(&self) -> String {
        match self {
            Self::Gcra => "GCRA".to_owned(),
            Self::FixedWindow(w) => format!("fixed {} s windows", w.as_secs()),
            Self::SlidingWindow(w) => format!("sliding {} s window", w.as_secs()),
        }
    }

    /// The most requests it can admit from 0 to `horizon`: the bucket and what refills it, or
    /// the quota of every window the span touches (a sliding window never admits more than
    /// its quota within one fixed window, as its estimate counts that window whole).
    pub fn most_admitted(
        &self,
        per_second: NonZeroU32,
        burst: NonZeroU32,
        horizon: Duration,
    ) -> u64 {
        let rate = u64::from(per_second.get());
        match self {
            Self::Gcra => {
                u64::from(burst.get())
                    + (horizon.as_nanos() * u128::from(rate) / 1_000_000_000) as u64
            }
            Self::FixedWindow(w) | Self::SlidingWindow(w) => {
                let windows = (horizon.as_nanos() / w.as_nanos()) as u64 + 1;
                windows * quota_of(per_second, *w)
            }
        }
    }
}

/// A window's quota: `per_second` for each of its seconds.
fn quota_of(per_second: NonZeroU32, window: Duration) -> u64 {
    (u128::from(per_second.get()) * window.as_nanos() / 1_000_000_000) as u64
}

/// What a limiter said of one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Admitted: this many more would be now, and the count is whole again this long after.
    Admitted { left: u64, reset: Duration },
    /// Refused: no request is admitted before this long from now.
    Refused { wait: Duration },
}

type Governor = RateLimiter<NotKeyed, InMemoryState, FakeRelativeClock, StateInformationMiddleware>;

/// A limiter of one kind, on the run's clock.
pub enum Limiter {
    /// `governor` on its fake clock, and where that clock stands.
    Gcra {
        limiter: Governor,
        clock: FakeRelativeClock,
        at: Duration,
        per_second: NonZeroU32,
        burst: NonZeroU32,
    },
    /// Fixed windows: the window counted, and its count.
    Fixed {
        window: Duration,
        quota: u64,
        current: u64,
        count: u64,
    },
    /// A sliding window: the fixed window counted, its count and the one before's.
    Sliding {
        window: Duration,
        quota: u64,
        current: u64,
        count: u64,
        previous: u64,
    },
}

impl Limiter {
    /// A limiter of `kind` admitting `per_second` (GCRA: from a bucket of `burst`), at 0 s.
    pub fn new(kind: LimiterKind, per_second: NonZeroU32, burst: NonZeroU32) -> Self {
        match kind {
            LimiterKind::Gcra => {
                let clock = FakeRelativeClock::default();
                let limiter = RateLimiter::direct_with_clock(
                    Quota::per_second(per_second).allow_burst(burst),
                    clock.clone(),
                )
                .with_middleware::<StateInformationMiddleware>();
                Self::Gcra {
                    limiter,
                    clock,
                    at: Duration::ZERO,
                    per_second,
                    burst,
                }
            }
            LimiterKind::FixedWindow(window) => Self::Fixed {
                window,
                quota: quota_of(per_second, window),
                current: 0,
                count: 0,
            },
            LimiterKind::SlidingWindow(window) => Self::Sliding {
                window,
                quota: quota_of(per_second, window),
                current: 0,
                count: 0,
                previous: 0,
            },
        }
    }

    /// A request at `now` (never earlier than the last): admitted or refused.
    pub fn check(&mut self, now: Duration) -> Verdict {
        match self {
            Self::Gcra {
                limiter,
                clock,
                at,
                per_second,
                burst,
            } => {
                clock.advance(now.saturating_sub(*at));
                *at = (*at).max(now);
                match limiter.check() {
                    Ok(snapshot) => {
                        let left = snapshot.remaining_burst_capacity();
                        let used = burst.get().saturating_sub(left);
                        Verdict::Admitted {
                            left: u64::from(left),
                            // The time the bucket takes to refill what was used.
                            reset: Duration::from_nanos(
                                u64::from(used) * 1_000_000_000 / u64::from(per_second.get()),
                            ),
                        }
                    }
                    Err(not_until) => Verdict::Refused {
                        wait: not_until.wait_time_from(clock.now()),
                    },
                }
            }
            Self::Fixed {
                window,
                quota,
                current,
                count,
            } => {
                let (index, into) = split(now, *window);
                if index != *current {
                    (*current, *count) = (index, 0);
                }
                let end = *window - into;
                if *count < *quota {
                    *count += 1;
                    Verdict::Admitted {
                        left: *quota - *count,
                        reset: end,
                    }
                } else {
                    Verdict::Refused { wait: end }
                }
            }
            Self::Sliding {
                window,
                quota,
                current,
                count,
                previous,
            } => {
                let (index, into) = split(now, *window);
                if index != *current {
                    *previous = if index == *current + 1 { *count } else { 0 };
                    (*current, *count) = (index, 0);
                }
                let w = window.as_nanos();
                let left_of_previous = w - into.as_nanos();
                // Admitted while previous × (w − into) / w + count + 1 ≤ quota, kept whole.
                let fits = |previous: u64, left_of_previous: u128, count: u64| {
                    u128::from(previous) * left_of_previous + u128::from(count + 1) * w
                        <= u128::from(*quota) * w
                };
                if fits(*previous, left_of_previous, *count) {
                    *count += 1;
                    let estimate =
                        (u128::from(*previous) * left_of_previous + u128::from(*count) * w) / w;
                    Verdict::Admitted {
                        left: (*quota).saturating_sub(estimate as u64),
                        reset: *window - into,
                    }
                } else {
                    Verdict::Refused {
                        wait: sliding_wait(*window, into, *quota, *previous, *count),
                    }
                }
            }
        }
    }
}

/// Which window `now` falls in, and how far into it.
fn split(now: Duration, window: Duration) -> (u64, Duration) {
    let w = window.as_nanos();
    let index = now.as_nanos() / w;
    let into = now.as_nanos() - index * w;
    (index as u64, Duration::from_nanos(into as u64))
}

/// From `into` a sliding window's fixed window, how long until one more request fits, if none
/// is admitted meanwhile: later in this window, as the previous one's weight fades, or in the
/// next, once this one's count is the previous one's.
fn sliding_wait(
    window: Duration,
    into: Duration,
    quota: u64,
    previous: u64,
    count: u64,
) -> Duration {
    let w = window.as_nanos();
    // The least `e` into a window with `before` before it and `now` in it, where one more fits:
    // before × (w − e) ≤ (quota − now − 1) × w.
    let least_into = |before: u64, now: u64| -> Option<u128> {
        let room = u128::from(quota.checked_sub(now + 1)?) * w;
        if before == 0 {
            return Some(0);
        }
        Some(w.saturating_sub(room / u128::from(before)))
    };
    let at = match least_into(previous, count) {
        Some(e) if e < w => e,
        _ => w + least_into(count, 0).unwrap_or(w),
    };
    Duration::from_nanos((at - into.as_nanos()) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(secs: f64) -> Duration {
        Duration::from_secs_f64(secs)
    }

    /// One request a second over windows of 4 s: 4 in each.
    fn four_in_four(kind: fn(Duration) -> LimiterKind) -> Limiter {
        let one = NonZeroU32::new(1).unwrap();
        Limiter::new(kind(Duration::from_secs(4)), one, one)
    }

    #[test]
    fn a_fixed_window_tells_everyone_it_refuses_the_same_moment() {
        let mut fixed = four_in_four(LimiterKind::FixedWindow);
        for (t, left) in [(0.0, 3), (0.5, 2), (1.0, 1), (1.5, 0)] {
            assert_eq!(
                fixed.check(s(t)),
                Verdict::Admitted {
                    left,
                    reset: s(4.0 - t)
                }
            );
        }
        assert_eq!(fixed.check(s(2.0)), Verdict::Refused { wait: s(2.0) });
        assert_eq!(fixed.check(s(3.5)), Verdict::Refused { wait: s(0.5) });
        assert_eq!(
            fixed.check(s(4.0)),
            Verdict::Admitted {
                left: 3,
                reset: s(4.0)
            }
        );
    }

    #[test]
    fn a_sliding_window_weighs_the_window_before_by_what_it_still_covers() {
        let mut sliding = four_in_four(LimiterKind::SlidingWindow);
        for t in [0.0, 0.5, 1.0, 1.5] {
            assert!(matches!(sliding.check(s(t)), Verdict::Admitted { .. }));
        }
        // Full: one more fits once 4 × (4 − e) / 4 + 1 ≤ 4 in the next window: e = 1 s, at 5 s.
        assert_eq!(sliding.check(s(2.0)), Verdict::Refused { wait: s(3.0) });
        // At 5 s: 4 × 3 / 4 = 3, and one more is 4.
        assert_eq!(
            sliding.check(s(5.0)),
            Verdict::Admitted {
                left: 0,
                reset: s(3.0)
            }
        );
        // Another fits once 4 × (4 − e) / 4 + 2 ≤ 4: e = 2 s, 1 s from now.
        assert_eq!(sliding.check(s(5.0)), Verdict::Refused { wait: s(1.0) });
        assert!(matches!(sliding.check(s(6.0)), Verdict::Admitted { .. }));
        // A window with none before it counts its own alone.
        assert!(matches!(
            sliding.check(s(13.0)),
            Verdict::Admitted { left: 3, .. }
        ));
    }

    #[test]
    fn the_most_a_limiter_admits_is_its_bucket_and_refill_or_its_windows_quotas() {
        let (rate, burst) = (NonZeroU32::new(50).unwrap(), NonZeroU32::new(50).unwrap());
        assert_eq!(LimiterKind::Gcra.most_admitted(rate, burst, s(10.0)), 550);
        let fixed = LimiterKind::FixedWindow(Duration::from_secs(10));
        // 0 to 25 s touches three windows of 500.
        assert_eq!(fixed.most_admitted(rate, burst, s(25.0)), 1_500);
    }
}
