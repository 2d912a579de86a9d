//! The browser's clocks, and how a deadline becomes a `setTimeout` delay.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The longest delay `setTimeout` holds (2^31 - 1 ms, about 24.8 days); a longer one fires at
/// once.
const MAX_TIMEOUT_MS: u32 = i32::MAX as u32;

/// The monotonic clock: `performance.now()` as a `Duration`.
pub fn now() -> Duration {
    let ms = web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now());
    // To the nanosecond, rounded; `as` maps NaN to 0 and saturates.
    Duration::from_nanos((ms.max(0.0) * 1e6 + 0.5) as u64)
}

/// The local wall clock, `Date.now()`.
pub(super) fn wall_clock() -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(js_sys::Date::now().max(0.0) as u64)
}

/// The delay to arm for a deadline `wait` away: rounded up to the millisecond (a timer that
/// fires a little early is re-armed; one that fires late is real), and at most what
/// `setTimeout` can hold, so a longer wait or cap is armed in chunks: the core ignores a wake
/// before its deadline, and the driver arms the rest. Under half a millisecond left, it is 0
/// (the next task): a browser's coarsened `performance.now()` can read a wake a fraction of a
/// millisecond before its deadline, and a whole millisecond more would make that start late.
pub(super) fn timer_ms(wait: Duration) -> u32 {
    if wait < Duration::from_micros(500) {
        return 0;
    }
    // Whole microseconds, rounded up to the millisecond.
    let ms = wait
        .as_secs()
        .saturating_mul(1000)
        .saturating_add(u64::from(wait.subsec_micros().div_ceil(1000)));
    u32::try_from(ms).unwrap_or(u32::MAX).min(MAX_TIMEOUT_MS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_timer_is_armed_rounded_up_and_within_what_set_timeout_holds_and_a_crumb_is_the_next_task()
    {
        assert_eq!(timer_ms(Duration::ZERO), 0);
        // A wake read a little early: the rest is the next task, not a whole millisecond.
        assert_eq!(timer_ms(Duration::from_micros(1)), 0);
        assert_eq!(timer_ms(Duration::from_micros(499)), 0);
        assert_eq!(timer_ms(Duration::from_micros(500)), 1);
        assert_eq!(timer_ms(Duration::from_millis(1500)), 1500);
        // Whole microseconds count: 1.0005 ms is 1000 µs, 1.001 ms rounds up.
        assert_eq!(timer_ms(Duration::from_nanos(1_000_500)), 1);
        assert_eq!(timer_ms(Duration::from_nanos(1_001_000)), 2);
        assert_eq!(timer_ms(Duration::new(2, 999_999_999)), 3000);
        // A 30-day wait: the first chunk is the longest setTimeout holds, not an instant wake.
        assert_eq!(timer_ms(Duration::from_secs(30 * 86_400)), 2_147_483_647);
        assert_eq!(timer_ms(Duration::from_secs(u64::MAX)), 2_147_483_647);
    }
}
