//! How a duration is written, everywhere: one function, four roundings.

use std::time::Duration;

/// How finely [`seconds_text`] writes a duration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// To the nanosecond, without trailing zeros: `4`, `2.5`, `0.001`. Policies and fixtures.
    Exact,
    /// Rounded to the millisecond: `2.012` for a real clock's 2.0123 s. Traces.
    Millis,
    /// Rounded to the tenth: `2` for 2.013 s, `2.1` for 2.05 s. What people read.
    Tenths,
    /// Rounded up to the whole second: `1` until the very end. What a countdown shows.
    Countdown,
}

/// A duration in seconds, as a decimal number without a unit.
///
/// ```
/// use std::time::Duration;
/// use retry_budget::words::{seconds_text, Precision};
///
/// let d = Duration::from_micros(2_012_300);
/// assert_eq!(seconds_text(d, Precision::Exact), "2.0123");
/// assert_eq!(seconds_text(d, Precision::Millis), "2.012");
/// assert_eq!(seconds_text(d, Precision::Tenths), "2");
/// assert_eq!(seconds_text(d, Precision::Countdown), "3");
/// ```
pub fn seconds_text(d: Duration, precision: Precision) -> String {
    const NANOS: u32 = 1_000_000_000;
    let unit = match precision {
        Precision::Exact => 1,
        Precision::Millis => 1_000_000,
        Precision::Tenths => 100_000_000,
        Precision::Countdown => NANOS,
    };
    let up = match precision {
        Precision::Countdown => unit - 1,
        _ => unit / 2,
    };
    // Rounded within the second (below 2^32 with what rounding adds), then carried. Whole
    // seconds and nanoseconds apart: no 128-bit arithmetic, which costs a browser bytes.
    let frac = (d.subsec_nanos() + up) / unit * unit;
    let (whole, frac) = match frac.checked_sub(NANOS) {
        Some(frac) => match d.as_secs().checked_add(1) {
            Some(whole) => (whole.to_string(), frac),
            // The one sum past a u64: Duration::MAX rounded up.
            None => ("18446744073709551616".to_owned(), frac),
        },
        None => (d.as_secs().to_string(), frac),
    };
    if frac == 0 {
        whole
    } else {
        let digits = format!("{frac:09}");
        format!("{whole}.{}", digits.trim_end_matches('0'))
    }
}

/// When a countdown shown with [`Precision::Countdown`] next changes: `left` is the time left now,
/// and the answer is how long until the shown number drops by one (`None` when it shows 1 or
/// less, which it keeps until the end). A countdown armed this way wakes once a second.
///
/// ```
/// use std::time::Duration;
/// use retry_budget::words::next_change;
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
    // The number shown is the whole seconds left, rounded up; the next one is one less.
    let next = match left.subsec_nanos() {
        0 => left.as_secs() - 1,
        _ => left.as_secs(),
    };
    Some(left - Duration::from_secs(next))
}

/// A trace time: to the millisecond (a real clock's 2.0123 s reads `2.012`).
pub(crate) fn trace_seconds(d: Duration) -> String {
    seconds_text(d, Precision::Millis)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// The rule written plainly, in 128-bit nanoseconds, to hold the function to.
    fn reference(d: Duration, precision: Precision) -> String {
        const NANOS: u128 = 1_000_000_000;
        let unit: u128 = match precision {
            Precision::Exact => 1,
            Precision::Millis => 1_000_000,
            Precision::Tenths => 100_000_000,
            Precision::Countdown => NANOS,
        };
        let units = match precision {
            Precision::Countdown => d.as_nanos().div_ceil(unit),
            _ => (d.as_nanos() + unit / 2) / unit,
        };
        let (whole, frac) = (units * unit / NANOS, units * unit % NANOS);
        match frac {
            0 => whole.to_string(),
            _ => format!("{whole}.{}", format!("{frac:09}").trim_end_matches('0')),
        }
    }

    #[test]
    fn every_rounding_and_carry_is_the_plain_rule() {
        let secs = [
            0,
            1,
            2,
            59,
            3_600,
            u64::from(u32::MAX),
            u64::MAX - 1,
            u64::MAX,
        ];
        let nanos = [
            0,
            1,
            499_999,
            500_000,
            49_999_999,
            50_000_000,
            949_999_999,
            950_000_000,
            999_499_999,
            999_500_000,
            999_999_999,
        ];
        for s in secs {
            for n in nanos {
                let d = Duration::new(s, n);
                for p in [
                    Precision::Exact,
                    Precision::Millis,
                    Precision::Tenths,
                    Precision::Countdown,
                ] {
                    assert_eq!(seconds_text(d, p), reference(d, p), "{d:?} {p:?}");
                }
                if d > Duration::from_secs(1) {
                    let step = next_change(d).unwrap();
                    let shown = reference(d, Precision::Countdown);
                    assert_eq!(
                        reference(d - step + Duration::from_nanos(1), Precision::Countdown),
                        shown
                    );
                    assert_ne!(reference(d - step, Precision::Countdown), shown, "{d:?}");
                }
            }
        }
        assert_eq!(
            seconds_text(Duration::MAX, Precision::Tenths),
            "18446744073709551616"
        );
    }

    #[test]
    fn exact_keeps_every_digit_and_no_trailing_zero() {
        assert_eq!(seconds_text(Duration::from_secs(4), Precision::Exact), "4");
        assert_eq!(seconds_text(ms(2500), Precision::Exact), "2.5");
        assert_eq!(seconds_text(ms(1), Precision::Exact), "0.001");
        assert_eq!(
            seconds_text(Duration::from_nanos(1_000_000_001), Precision::Exact),
            "1.000000001"
        );
        assert_eq!(
            seconds_text(Duration::from_secs(u64::MAX), Precision::Exact),
            u64::MAX.to_string()
        );
    }

    #[test]
    fn millis_round_half_up() {
        assert_eq!(
            seconds_text(Duration::from_micros(2_012_300), Precision::Millis),
            "2.012"
        );
        assert_eq!(
            seconds_text(Duration::from_micros(2_012_500), Precision::Millis),
            "2.013"
        );
        assert_eq!(seconds_text(ms(3000), Precision::Millis), "3");
    }

    #[test]
    fn tenths_read_as_a_person_reads() {
        assert_eq!(seconds_text(ms(2013), Precision::Tenths), "2");
        assert_eq!(seconds_text(ms(2049), Precision::Tenths), "2");
        assert_eq!(seconds_text(ms(2050), Precision::Tenths), "2.1");
        assert_eq!(seconds_text(ms(999), Precision::Tenths), "1");
        assert_eq!(seconds_text(Duration::ZERO, Precision::Tenths), "0");
    }

    #[test]
    fn a_countdown_changes_exactly_when_its_number_does() {
        for left_ms in [1_001u64, 1_500, 2_000, 2_001, 7_999, 8_000, 30_000_123] {
            let left = ms(left_ms);
            let step = next_change(left).unwrap();
            let shown = |d| seconds_text(d, Precision::Countdown);
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
        assert_eq!(seconds_text(ms(1), Precision::Countdown), "1");
        assert_eq!(seconds_text(ms(1000), Precision::Countdown), "1");
        assert_eq!(seconds_text(ms(1001), Precision::Countdown), "2");
        assert_eq!(seconds_text(Duration::ZERO, Precision::Countdown), "0");
        assert_eq!(
            seconds_text(Duration::from_secs(u64::MAX), Precision::Countdown),
            u64::MAX.to_string()
        );
    }
}
