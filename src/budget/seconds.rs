//! How a duration is written, everywhere: one function, four roundings.

use std::time::Duration;

/// How finely [`seconds`] writes a duration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// To the nanosecond, without trailing zeros: `4`, `2.5`, `0.001`. Policies and fixtures.
    Exact,
    /// Rounded to the millisecond: `2.012` for a real clock's 2.0123 s. Traces.
    Millis,
    /// Rounded to the tenth: `2` for 2.013 s, `2.1` for 2.05 s. What people read.
    Tenths,
    /// Rounded up to the whole second: `1` until the very end. Countdowns.
    WholeUp,
}

/// A duration in seconds, as a decimal number without a unit.
///
/// ```
/// use std::time::Duration;
/// use palette_list::budget::{seconds, Precision};
///
/// let d = Duration::from_micros(2_012_300);
/// assert_eq!(seconds(d, Precision::Exact), "2.0123");
/// assert_eq!(seconds(d, Precision::Millis), "2.012");
/// assert_eq!(seconds(d, Precision::Tenths), "2");
/// assert_eq!(seconds(d, Precision::WholeUp), "3");
/// ```
pub fn seconds(d: Duration, precision: Precision) -> String {
    const NANOS: u128 = 1_000_000_000;
    let unit: u128 = match precision {
        Precision::Exact => 1,
        Precision::Millis => 1_000_000,
        Precision::Tenths => 100_000_000,
        Precision::WholeUp => NANOS,
    };
    let n = d.as_nanos();
    let units = match precision {
        Precision::WholeUp => n.div_ceil(unit),
        _ => (n + unit / 2) / unit,
    };
    let rounded = units * unit;
    let (whole, frac) = (rounded / NANOS, rounded % NANOS);
    if frac == 0 {
        whole.to_string()
    } else {
        let digits = format!("{frac:09}");
        format!("{whole}.{}", digits.trim_end_matches('0'))
    }
}

/// When a countdown shown with [`Precision::WholeUp`] next changes: `left` is the time left now,
/// and the answer is how long until the shown number drops by one (`None` when it shows 1 or
/// less, which it keeps until the end). A countdown armed this way wakes once a second.
///
/// ```
/// use std::time::Duration;
/// use palette_list::budget::next_change;
///
/// let ms = Duration::from_millis;
/// assert_eq!(next_change(ms(2_300)), Some(ms(300))); // "3 s" becomes "2 s" in 0.3 s
/// assert_eq!(next_change(ms(2_000)), Some(ms(1_000))); // "2 s" becomes "1 s" in 1 s
/// assert_eq!(next_change(ms(900)), None); // "1 s" until the end
/// ```
pub fn next_change(left: Duration) -> Option<Duration> {
    const SECOND: Duration = Duration::from_secs(1);
    if left <= SECOND {
        return None;
    }
    let shown = left.as_nanos().div_ceil(SECOND.as_nanos());
    let next = Duration::from_secs(u64::try_from(shown - 1).unwrap_or(u64::MAX));
    Some(left - next)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn exact_keeps_every_digit_and_no_trailing_zero() {
        assert_eq!(seconds(Duration::from_secs(4), Precision::Exact), "4");
        assert_eq!(seconds(ms(2500), Precision::Exact), "2.5");
        assert_eq!(seconds(ms(1), Precision::Exact), "0.001");
        assert_eq!(
            seconds(Duration::from_nanos(1_000_000_001), Precision::Exact),
            "1.000000001"
        );
        assert_eq!(
            seconds(Duration::from_secs(u64::MAX), Precision::Exact),
            u64::MAX.to_string()
        );
    }

    #[test]
    fn millis_round_half_up() {
        assert_eq!(
            seconds(Duration::from_micros(2_012_300), Precision::Millis),
            "2.012"
        );
        assert_eq!(
            seconds(Duration::from_micros(2_012_500), Precision::Millis),
            "2.013"
        );
        assert_eq!(seconds(ms(3000), Precision::Millis), "3");
    }

    #[test]
    fn tenths_read_as_a_person_reads() {
        assert_eq!(seconds(ms(2013), Precision::Tenths), "2");
        assert_eq!(seconds(ms(2049), Precision::Tenths), "2");
        assert_eq!(seconds(ms(2050), Precision::Tenths), "2.1");
        assert_eq!(seconds(ms(999), Precision::Tenths), "1");
        assert_eq!(seconds(Duration::ZERO, Precision::Tenths), "0");
    }

    #[test]
    fn a_countdown_changes_exactly_when_its_number_does() {
        for left_ms in [1_001u64, 1_500, 2_000, 2_001, 7_999, 8_000, 30_000_123] {
            let left = ms(left_ms);
            let step = next_change(left).unwrap();
            let shown = |d| seconds(d, Precision::WholeUp);
            assert!(step > Duration::ZERO && step <= Duration::from_secs(1));
            // Just before the step the number is unchanged; at the step it is one less.
            assert_eq!(shown(left - step + Duration::from_nanos(1)), shown(left));
            let now: u64 = shown(left).parse().unwrap();
            assert_eq!(shown(left - step), (now - 1).to_string(), "{left_ms}");
        }
        assert_eq!(next_change(ms(1_000)), None);
        assert_eq!(next_change(Duration::ZERO), None);
    }

    #[test]
    fn whole_up_never_shows_zero_before_the_end() {
        assert_eq!(seconds(ms(1), Precision::WholeUp), "1");
        assert_eq!(seconds(ms(1000), Precision::WholeUp), "1");
        assert_eq!(seconds(ms(1001), Precision::WholeUp), "2");
        assert_eq!(seconds(Duration::ZERO, Precision::WholeUp), "0");
        assert_eq!(
            seconds(Duration::from_secs(u64::MAX), Precision::WholeUp),
            u64::MAX.to_string()
        );
    }
}
