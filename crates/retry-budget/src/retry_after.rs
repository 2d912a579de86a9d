//! `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP date, and nothing else.

use std::fmt;
use std::time::Duration;

use super::http_date::HttpDate;
use super::shown::quoted;

/// A valid `Retry-After` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetryAfter {
    /// delay-seconds; a value too large for `u64` saturates at `u64::MAX` seconds.
    Delay(Duration),
    /// An HTTP date, in any of the three forms RFC 9110 asks recipients to accept (an RFC 850
    /// date is [resolved](HttpDate::resolved) against the receipt).
    Date(HttpDate),
}

/// Why a `Retry-After` value is not one of the two valid forms.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Retry-After {} is invalid: {reason}", quoted(.value))]
pub struct InvalidRetryAfter {
    /// The value as received.
    pub value: String,
    /// What is wrong with it, for the trace.
    pub reason: &'static str,
}

/// What was wrong with a retryable response's `Retry-After`, where something was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderNote {
    /// No `Retry-After` in the response (or, cross-origin, not exposed to the page).
    Missing {
        /// The header may exist but be hidden by CORS (`Access-Control-Expose-Headers`).
        maybe_hidden: bool,
    },
    /// A `Retry-After` that is neither delay-seconds nor an HTTP date.
    Invalid(InvalidRetryAfter),
}

impl HeaderNote {
    /// The fixture's name for this note: `missing` or `invalid`.
    pub const fn kind(&self) -> &'static str {
        match self {
            HeaderNote::Missing { .. } => "missing",
            HeaderNote::Invalid(_) => "invalid",
        }
    }
}

impl fmt::Display for HeaderNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderNote::Missing {
                maybe_hidden: false,
            } => f.write_str("Retry-After missing"),
            HeaderNote::Missing { maybe_hidden: true } => f.write_str(
                "Retry-After missing (cross-origin: the server may send it without exposing it)",
            ),
            HeaderNote::Invalid(e) => e.fmt(f),
        }
    }
}

/// Parses a `Retry-After` field value.
///
/// delay-seconds is one or more ASCII digits and nothing else; a huge number is valid and
/// saturates. An HTTP date may be IMF-fixdate, RFC 850 or asctime form, and must be a real
/// calendar date with the right weekday; a date before 1970 is valid (and past). Surrounding
/// spaces and tabs are not part of a field value (RFC 9110 §5.5) and are ignored; everything
/// else that is not one of the two forms is invalid, with the reason.
///
/// ```
/// use std::time::Duration;
/// use retry_budget::headers::{parse_retry_after, RetryAfter};
///
/// assert_eq!(parse_retry_after("3"), Ok(RetryAfter::Delay(Duration::from_secs(3))));
/// assert!(matches!(parse_retry_after("Mon, 01 Jan 2024 12:00:06 GMT"), Ok(RetryAfter::Date(_))));
/// assert_eq!(parse_retry_after("1.5").unwrap_err().reason, "a fraction is not delay-seconds");
/// ```
pub fn parse_retry_after(value: &str) -> Result<RetryAfter, InvalidRetryAfter> {
    let v = value.trim_matches([' ', '\t']);
    let invalid = |reason| InvalidRetryAfter {
        value: value.to_owned(),
        reason,
    };
    if v.is_empty() {
        return Err(invalid("the value is empty"));
    }
    if v.bytes().all(|b| b.is_ascii_digit()) {
        let secs = v.bytes().fold(0u64, |n, d| {
            n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
        });
        return Ok(RetryAfter::Delay(Duration::from_secs(secs)));
    }
    if let Ok(date) = HttpDate::parse(v) {
        return Ok(RetryAfter::Date(date));
    }
    Err(invalid(why_invalid(v)))
}

/// A short reason for a value that is neither form, for the trace.
fn why_invalid(v: &str) -> &'static str {
    if several_values(v) {
        return "several values: the header came more than once, and browsers join repeats with commas";
    }
    let first = v.as_bytes()[0];
    let numeric_tail = |s: &[u8]| {
        !s.is_empty()
            && s.iter()
                .all(|&b| b.is_ascii_digit() || b == b'.' || b == b'e' || b == b'E')
    };
    let after_sign = &v.as_bytes()[1..];
    if first == b'-' && numeric_tail(after_sign) {
        "a negative number is not delay-seconds"
    } else if first == b'+' && numeric_tail(after_sign) {
        "a sign is not allowed in delay-seconds"
    } else if first.is_ascii_digit()
        && v.contains(['.', ','])
        && numeric_tail(v.replace(',', "").as_bytes())
    {
        "a fraction is not delay-seconds"
    } else if first.is_ascii_digit() && !v.contains(' ') {
        "delay-seconds is digits only, with no unit or suffix"
    } else if v.contains(' ') && v.bytes().any(|b| b.is_ascii_digit()) {
        "not a valid HTTP date (form, calendar date or weekday is wrong)"
    } else {
        "neither delay-seconds nor an HTTP date"
    }
}

/// Whether `v` is two or more valid `Retry-After` values joined with `", "`, as `fetch`
/// presents a header that was sent more than once (`3, 3`). A date's own comma, after its
/// weekday, is part of the date; `1,5` (no space) is a decimal comma, not a list.
fn several_values(v: &str) -> bool {
    // `v.split(", ")`, by bytes: a string pattern's searcher costs a browser more than this.
    let mut parts = Vec::new();
    let mut rest = v;
    while let Some(at) = rest.as_bytes().windows(2).position(|w| w == b", ") {
        parts.push(rest.get(..at).unwrap_or_default());
        rest = rest.get(at + 2..).unwrap_or_default();
    }
    parts.push(rest);
    let mut values = 0;
    let mut i = 0;
    while i < parts.len() {
        let part = parts[i];
        if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
            i += 1;
        } else if HttpDate::parse(part).is_ok() {
            i += 1; // asctime, which has no comma
        } else if i + 1 < parts.len()
            && HttpDate::parse(&format!("{part}, {}", parts[i + 1])).is_ok()
        {
            i += 2; // a weekday, then the rest of its date
        } else {
            return false;
        }
        values += 1;
    }
    values >= 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::parse_date_header;
    use crate::test_clock::{at, NOON};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn reason(v: &str) -> &'static str {
        parse_retry_after(v).unwrap_err().reason
    }

    #[test]
    fn delay_seconds() {
        for (v, s) in [("0", 0), ("3", 3), ("0003", 3), ("30", 30), (" 4\t", 4)] {
            assert_eq!(
                parse_retry_after(v),
                Ok(RetryAfter::Delay(Duration::from_secs(s))),
                "{v:?}"
            );
        }
    }

    #[test]
    fn huge_delay_saturates_and_stays_valid() {
        assert_eq!(
            parse_retry_after("18446744073709551615"),
            Ok(RetryAfter::Delay(Duration::from_secs(u64::MAX)))
        );
        assert_eq!(
            parse_retry_after("99999999999999999999999999999999"),
            Ok(RetryAfter::Delay(Duration::from_secs(u64::MAX)))
        );
        assert_eq!(
            parse_retry_after("18446744073709551614"),
            Ok(RetryAfter::Delay(Duration::from_secs(u64::MAX - 1)))
        );
    }

    #[test]
    fn every_invalid_form_of_the_spec_is_refused_with_a_reason() {
        assert_eq!(reason("1.5"), "a fraction is not delay-seconds");
        assert_eq!(reason("-1"), "a negative number is not delay-seconds");
        assert_eq!(reason("+3"), "a sign is not allowed in delay-seconds");
        assert_eq!(
            reason("3s"),
            "delay-seconds is digits only, with no unit or suffix"
        );
        assert_eq!(reason("tomorrow"), "neither delay-seconds nor an HTTP date");
        assert_eq!(reason("NaN"), "neither delay-seconds nor an HTTP date");
        assert_eq!(reason(""), "the value is empty");
        assert_eq!(reason("  "), "the value is empty");
        assert_eq!(
            reason("Mon, 01 Jan 2024 12:00:06"),
            "not a valid HTTP date (form, calendar date or weekday is wrong)"
        );
        // Non-ASCII digits are not delay-seconds.
        assert!(parse_retry_after("３").is_err());
        assert!(parse_retry_after("1 2").is_err());
        assert!(parse_retry_after("0x10").is_err());
        assert!(parse_retry_after("1e3").is_err());
    }

    #[test]
    fn a_repeated_header_is_several_values() {
        let several =
            "several values: the header came more than once, and browsers join repeats with commas";
        for v in [
            "3, 3",
            "120, 0",
            "Mon, 01 Jan 2024 12:00:06 GMT, Mon, 01 Jan 2024 12:00:06 GMT",
            "3, Mon, 01 Jan 2024 12:00:06 GMT",
            "Mon Jan  1 12:00:06 2024, 5",
        ] {
            assert_eq!(reason(v), several, "{v:?}");
        }
        // One value with a stray comma, or a list with something invalid in it, is not.
        assert_eq!(reason("1,5"), "a fraction is not delay-seconds");
        assert_ne!(reason("3, soon"), several);
        assert_ne!(reason("3,"), several);
        assert_ne!(reason(", 3"), several);
        // A lone date keeps its comma and stays one valid value.
        assert!(parse_retry_after("Mon, 01 Jan 2024 12:00:06 GMT").is_ok());
    }

    #[test]
    fn invalid_keeps_the_value_as_received() {
        let e = parse_retry_after(" 1.5").unwrap_err();
        assert_eq!(e.value, " 1.5");
        assert_eq!(
            e.to_string(),
            "Retry-After \u{201c} 1.5\u{201d} is invalid: a fraction is not delay-seconds"
        );
    }

    #[test]
    fn the_three_date_forms() {
        let date = |v| match parse_retry_after(v) {
            Ok(RetryAfter::Date(d)) => d.resolved(at(NOON)).to_system_time(),
            other => panic!("{v:?}: {other:?}"),
        };
        let six = Some(at(NOON + 6));
        assert_eq!(date("Mon, 01 Jan 2024 12:00:06 GMT"), six);
        assert_eq!(date("Monday, 01-Jan-24 12:00:06 GMT"), six);
        assert_eq!(date("Mon Jan  1 12:00:06 2024"), six);
    }

    #[test]
    fn a_date_before_1970_is_a_past_date_not_an_invalid_one() {
        let Ok(RetryAfter::Date(d)) = parse_retry_after("Sun, 06 Nov 1960 08:49:37 GMT") else {
            panic!("refused");
        };
        assert_eq!(d.delay_after(at(NOON)), Duration::ZERO);
        // As a Date header it is no clock evidence.
        assert_eq!(parse_date_header("Sun, 06 Nov 1960 08:49:37 GMT"), None);
    }

    #[test]
    fn invalid_calendar_dates_are_refused() {
        // 30 February, 31 April, 29 February of a non-leap year, and a wrong weekday.
        for v in [
            "Fri, 30 Feb 2024 12:00:00 GMT",
            "Tue, 31 Apr 2024 12:00:00 GMT",
            "Thu, 29 Feb 2023 12:00:00 GMT",
            "Tue, 01 Jan 2024 12:00:00 GMT",
            "Mon, 01 Jan 2024 24:00:00 GMT",
            "Mon, 01 Jan 2024 12:60:00 GMT",
        ] {
            assert!(parse_retry_after(v).is_err(), "{v}");
        }
        // 29 February of a leap year is real.
        assert!(parse_retry_after("Thu, 29 Feb 2024 12:00:00 GMT").is_ok());
    }

    #[test]
    fn dates_round_trip_through_the_imf_form() {
        for secs in [0, NOON, NOON + 6, 951_782_400, 4_102_444_799] {
            let date = HttpDate::from_system_time(at(secs)).unwrap();
            let text = date.to_string();
            assert_eq!(parse_retry_after(&text), Ok(RetryAfter::Date(date)));
            assert_eq!(parse_date_header(&text), Some(at(secs)));
        }
    }

    #[test]
    fn notes_have_the_fixture_names() {
        assert_eq!(
            HeaderNote::Missing {
                maybe_hidden: false
            }
            .kind(),
            "missing"
        );
        let note = HeaderNote::Invalid(parse_retry_after("NaN").unwrap_err());
        assert_eq!(note.kind(), "invalid");
    }
}
