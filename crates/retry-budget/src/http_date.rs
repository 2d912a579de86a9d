//! HTTP dates (RFC 9110 §5.6.7), read as a recipient must: the three forms, any year a date
//! can name (before 1970 too), and RFC 850's two-digit year resolved against the receipt.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const DAY: i64 = 86_400;
const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const LONG_WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// An HTTP date, to the second.
///
/// Any date an HTTP date can write is kept as it is, from year 0 to 9999: a date before 1970 is
/// a date in the past, not an error. An RFC 850 date (`Sunday, 06-Nov-94 08:49:37 GMT`) carries
/// only two digits of its year; until [`resolved`](Self::resolved) against the receipt it reads
/// them in 1970–2069, and it prints in its own form.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use retry_budget::headers::HttpDate;
///
/// let d = HttpDate::parse("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
/// assert_eq!(d.unix_seconds(), 784_111_777);
/// assert_eq!(d.to_string(), "Sun, 06 Nov 1994 08:49:37 GMT");
/// // Before 1970 is simply earlier.
/// assert!(HttpDate::parse("Sun, 06 Nov 1960 08:49:37 GMT").unwrap().unix_seconds() < 0);
/// // RFC 850, read in 2030: '81 is more than 50 years ahead, so it is 1981.
/// let receipt = UNIX_EPOCH + Duration::from_secs(1_893_456_000); // 1 Jan 2030
/// let d = HttpDate::parse("Thursday, 01-Jan-81 00:00:00 GMT").unwrap().resolved(receipt);
/// assert_eq!(d.to_string(), "Thu, 01 Jan 1981 00:00:00 GMT");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HttpDate {
    /// Seconds since 1970-01-01T00:00:00Z; negative before.
    secs: i64,
    /// Written with a two-digit year (RFC 850) and not yet resolved against a receipt.
    two_digit_year: bool,
}

impl HttpDate {
    /// Parses IMF-fixdate, RFC 850 or asctime form, exactly as RFC 9110 writes them (no
    /// surrounding spaces): the calendar date must exist and the weekday must be its own. An
    /// RFC 850 weekday is checked against the year read in 1970–2069 or a century either side.
    pub fn parse(text: &str) -> Result<HttpDate, &'static str> {
        let b = text.as_bytes();
        let (weekday, year, month, day, time, two_digit_year) = if b.get(3) == Some(&b',') {
            // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
            if b.len() != 29 || &b[4..5] != b" " || &b[7..8] != b" " || &b[11..12] != b" " {
                return Err(INVALID);
            }
            if &b[16..17] != b" " || &b[25..] != b" GMT" {
                return Err(INVALID);
            }
            let year = digits(&b[12..16])?;
            (
                name(&b[..3], &WEEKDAYS)?,
                year,
                name(&b[8..11], &MONTHS)?,
                digits(&b[5..7])?,
                &b[17..25],
                false,
            )
        } else if let Some(comma) = b.iter().position(|c| *c == b',') {
            // RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT"
            let rest = &b[comma..];
            if rest.len() != 24 || &rest[..2] != b", " || rest[4] != b'-' || rest[8] != b'-' {
                return Err(INVALID);
            }
            if rest[11] != b' ' || &rest[20..] != b" GMT" {
                return Err(INVALID);
            }
            (
                name(&b[..comma], &LONG_WEEKDAYS)?,
                1900 + digits(&rest[9..11])?,
                name(&rest[5..8], &MONTHS)?,
                digits(&rest[2..4])?,
                &rest[12..20],
                true,
            )
        } else {
            // asctime: "Sun Nov  6 08:49:37 1994"
            if b.len() != 24 || b[3] != b' ' || b[7] != b' ' || b[10] != b' ' || b[19] != b' ' {
                return Err(INVALID);
            }
            let day = match b[8] {
                b' ' => digits(&b[9..10])?,
                _ => digits(&b[8..10])?,
            };
            (
                name(&b[..3], &WEEKDAYS)?,
                digits(&b[20..24])?,
                name(&b[4..7], &MONTHS)?,
                day,
                &b[11..19],
                false,
            )
        };
        if time[2] != b':' || time[5] != b':' {
            return Err(INVALID);
        }
        let (h, m, s) = (
            digits(&time[..2])?,
            digits(&time[3..5])?,
            digits(&time[6..])?,
        );
        if h > 23 || m > 59 || s > 59 {
            return Err(INVALID);
        }
        let month = month as i64 + 1;
        let at = |year: i64| days_from_civil(year, month, day) * DAY + h * 3600 + m * 60 + s;
        let real = |year: i64| {
            (1..=days_in_month(year, month)).contains(&day) && weekday_of(at(year)) == weekday
        };
        if two_digit_year {
            // Read in 1970–2069 until the receipt is known. The date must be real, weekday
            // included, in that reading or a century either side: the 50-year rule may pick
            // either, and 29 February of '00 exists in 2000 but not in 1900.
            let year = if year < 1970 { year + 100 } else { year };
            if ![year - 100, year, year + 100].into_iter().any(real) {
                return Err(INVALID);
            }
        } else if !real(year) {
            return Err(INVALID);
        }
        Ok(HttpDate {
            secs: at(year),
            two_digit_year,
        })
    }

    /// The date as the receipt at `receipt` reads it. An RFC 850 date's century follows RFC 9110:
    /// a date that appears to be more than 50 years in the future is the most recent past year
    /// with the same last two digits. Other dates are returned as they are.
    pub fn resolved(self, receipt: SystemTime) -> HttpDate {
        if !self.two_digit_year {
            return self;
        }
        let (rd, rs) = split(unix_of(receipt));
        let (ry, rm, rday) = civil_from_days(rd);
        let fifty_on =
            days_from_civil(ry + 50, rm, rday.min(days_in_month(ry + 50, rm))) * DAY + rs;
        let (days, secs_of_day) = split(self.secs);
        let (y, m, d) = civil_from_days(days);
        let at = |year: i64| days_from_civil(year, m, d) * DAY + secs_of_day;
        // The candidate in the receipt's century, then the one a century on if still within 50
        // years; past 50 years ahead, a century back.
        let mut year = ry - ry.rem_euclid(100) + y.rem_euclid(100);
        if at(year + 100) <= fifty_on {
            year += 100;
        }
        while at(year) > fifty_on {
            year -= 100;
        }
        HttpDate {
            secs: at(year),
            two_digit_year: false,
        }
    }

    /// The date as a `SystemTime`, where the platform can hold it: dates before 1970 are `None`
    /// on targets whose `SystemTime` starts at the epoch (wasm32).
    pub fn to_system_time(self) -> Option<SystemTime> {
        match u64::try_from(self.secs) {
            Ok(s) => UNIX_EPOCH.checked_add(Duration::from_secs(s)),
            Err(_) => UNIX_EPOCH.checked_sub(Duration::from_secs(self.secs.unsigned_abs())),
        }
    }

    /// The date of a `SystemTime`, to the second (rounded down). `None` before year 0 or past
    /// year 9999, which no HTTP date can write.
    pub fn from_system_time(t: SystemTime) -> Option<HttpDate> {
        let secs = unix_of(t);
        (MIN_SECS..=MAX_SECS).contains(&secs).then_some(HttpDate {
            secs,
            two_digit_year: false,
        })
    }

    /// Seconds since 1970-01-01T00:00:00Z, negative before (as read until resolved).
    pub const fn unix_seconds(&self) -> i64 {
        self.secs
    }

    /// The time from `receipt` until this date: 0 for a date in the past, and a sub-second
    /// difference rounded up to the next whole second (HTTP dates carry whole seconds; rounding
    /// down could send the request before the time the server named).
    pub fn delay_after(&self, receipt: SystemTime) -> Duration {
        // The date is a whole second, so the delay rounded up is the date minus the receipt's
        // second rounded down: no 128-bit division, which costs a browser bytes (it is held to
        // the division in the tests).
        let receipt_floor = match receipt.duration_since(UNIX_EPOCH) {
            Ok(d) => i128::from(d.as_secs()),
            Err(e) => {
                let d = e.duration();
                -i128::from(d.as_secs()) - i128::from(d.subsec_nanos() > 0)
            }
        };
        let whole = i128::from(self.secs) - receipt_floor;
        Duration::from_secs(u64::try_from(whole.max(0)).unwrap_or(u64::MAX))
    }
}

/// 0000-01-01T00:00:00Z, the first second an HTTP date can write.
pub const MIN_SECS: i64 = -62_167_219_200;
/// 9999-12-31T23:59:59Z, the last second an HTTP date can write.
const MAX_SECS: i64 = 253_402_300_799;
/// Why a text is not an HTTP date; one reason for all, as the trace gives it.
const INVALID: &str = "not a valid HTTP date (form, calendar date or weekday is wrong)";

impl fmt::Display for HttpDate {
    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`); an unresolved RFC 850 date in its own
    /// form, since its century is not known yet.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (days, s) = split(self.secs);
        let (y, m, d) = civil_from_days(days);
        let wd = weekday_of(self.secs);
        let (h, min, sec) = (s / 3600, s / 60 % 60, s % 60);
        let month = MONTHS[(m - 1) as usize];
        if self.two_digit_year {
            let long = LONG_WEEKDAYS[wd];
            let yy = y.rem_euclid(100);
            write!(
                f,
                "{long}, {d:02}-{month}-{yy:02} {h:02}:{min:02}:{sec:02} GMT"
            )
        } else {
            let wd = WEEKDAYS[wd];
            write!(
                f,
                "{wd}, {d:02} {month} {y:04} {h:02}:{min:02}:{sec:02} GMT"
            )
        }
    }
}

/// Whole seconds since the epoch, negative before (rounded down).
fn unix_of(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => {
            let d = e.duration();
            -i64::try_from(d.as_secs() + u64::from(d.subsec_nanos() > 0)).unwrap_or(i64::MAX)
        }
    }
}

fn split(secs: i64) -> (i64, i64) {
    (secs.div_euclid(DAY), secs.rem_euclid(DAY))
}

fn digits(b: &[u8]) -> Result<i64, &'static str> {
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return Err(INVALID);
    }
    Ok(b.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')))
}

fn name(b: &[u8], names: &[&str]) -> Result<usize, &'static str> {
    names.iter().position(|n| n.as_bytes() == b).ok_or(INVALID)
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Monday is 0. 1970-01-01 was a Thursday.
fn weekday_of(secs: i64) -> usize {
    (secs.div_euclid(DAY) + 3).rem_euclid(7) as usize
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day since 1970-01-01: (year, month 1–12, day 1–31).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_clock::{at, NOON};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn secs(text: &str) -> i64 {
        HttpDate::parse(text).unwrap().unix_seconds()
    }

    #[test]
    fn the_three_forms_name_the_same_second() {
        assert_eq!(secs("Sun, 06 Nov 1994 08:49:37 GMT"), 784_111_777);
        assert_eq!(secs("Sunday, 06-Nov-94 08:49:37 GMT"), 784_111_777);
        assert_eq!(secs("Sun Nov  6 08:49:37 1994"), 784_111_777);
        assert_eq!(secs("Sun Nov 06 08:49:37 1994"), 784_111_777);
    }

    #[test]
    fn agrees_with_httpdate_from_1970_to_9999() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..5_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let t = at(x % (MAX_SECS as u64 + 1));
            let text = httpdate::fmt_http_date(t);
            let d = HttpDate::parse(&text).unwrap();
            assert_eq!(d.to_system_time(), Some(t), "{text}");
            assert_eq!(d.to_string(), text);
            assert_eq!(HttpDate::from_system_time(t), Some(d));
        }
    }

    #[test]
    fn dates_before_1970_are_dates() {
        let d = HttpDate::parse("Sun, 06 Nov 1960 08:49:37 GMT").unwrap();
        assert_eq!(d.to_string(), "Sun, 06 Nov 1960 08:49:37 GMT");
        assert!(d.unix_seconds() < 0);
        assert_eq!(d.delay_after(at(NOON)), Duration::ZERO);
        assert_eq!(
            secs("Thu, 01 Jan 1970 00:00:00 GMT") - secs("Wed, 31 Dec 1969 23:59:59 GMT"),
            1
        );
        assert_eq!(
            HttpDate::parse("Sat, 01 Jan 0000 00:00:00 GMT")
                .unwrap()
                .to_string(),
            "Sat, 01 Jan 0000 00:00:00 GMT"
        );
    }

    #[test]
    fn rfc_850_follows_the_fifty_year_rule_against_the_receipt() {
        let jan_2030 = at(1_893_456_000);
        let read =
            |text: &str, receipt| HttpDate::parse(text).unwrap().resolved(receipt).to_string();
        // 49 years ahead stays ahead; 51 years ahead is the past century.
        assert_eq!(
            read("Sunday, 01-Jan-79 00:00:00 GMT", jan_2030),
            "Sun, 01 Jan 2079 00:00:00 GMT"
        );
        assert_eq!(
            read("Thursday, 01-Jan-81 00:00:00 GMT", jan_2030),
            "Thu, 01 Jan 1981 00:00:00 GMT"
        );
        // Exactly 50 years ahead is not "more than 50": it stays.
        assert_eq!(
            read("Monday, 01-Jan-80 00:00:00 GMT", jan_2030),
            "Mon, 01 Jan 2080 00:00:00 GMT"
        );
        // One second past 50 years is the past century.
        assert_eq!(
            read("Tuesday, 01-Jan-80 00:00:01 GMT", jan_2030),
            "Tue, 01 Jan 1980 00:00:01 GMT"
        );
        // Read in 2024, '94 is 1994 and '24 is 2024, as httpdate's fixed window also says.
        let noon_2024 = at(NOON);
        assert_eq!(
            read("Sunday, 06-Nov-94 08:49:37 GMT", noon_2024),
            "Sun, 06 Nov 1994 08:49:37 GMT"
        );
        // Read in 2060: 2115 would be 55 years ahead, so '15 is 2015 ...
        let y2060 = at(2_840_140_800);
        assert_eq!(
            read("Thursday, 01-Jan-15 00:00:00 GMT", y2060),
            "Thu, 01 Jan 2015 00:00:00 GMT"
        );
        // ... and '05 is 2105, 45 years ahead (a fixed 1970-2069 window says 2005).
        assert_eq!(
            read("Thursday, 01-Jan-05 00:00:00 GMT", y2060),
            "Thu, 01 Jan 2105 00:00:00 GMT"
        );
        // Unresolved, it prints as written.
        assert_eq!(
            HttpDate::parse("Sunday, 06-Nov-94 08:49:37 GMT")
                .unwrap()
                .to_string(),
            "Sunday, 06-Nov-94 08:49:37 GMT"
        );
    }

    #[test]
    fn malformed_and_impossible_dates_are_refused() {
        for text in [
            "Fri, 30 Feb 2024 12:00:00 GMT",
            "Thu, 29 Feb 2023 12:00:00 GMT",
            "Tue, 01 Jan 2024 12:00:00 GMT",
            "Mon, 01 Jan 2024 24:00:00 GMT",
            "Mon, 01 Jan 2024 12:00:60 GMT",
            "Mon, 01 Jan 2024 12:00:06",
            "Mon, 01 Jan 2024 12:00:06 UTC",
            "Mon, 1 Jan 2024 12:00:06 GMT",
            "mon, 01 Jan 2024 12:00:06 GMT",
            "Mon, 01 Jan 2024 12:00:06 GMT ",
            "Mon,  01 Jan 2024 12:00:06 GMT",
            "Mon, 01 Jan -024 12:00:06 GMT",
            "Mon, 01 Jan 2024 1a:00:06 GMT",
            "Funday, 06-Nov-94 08:49:37 GMT",
            "Sunday, 06-Nov-1994 08:49:37 GMT",
            "Sunday, 31-Nov-94 08:49:37 GMT",
            "Monday, 29-Feb-01 00:00:00 GMT",
            "Sun Nov 6 08:49:37 1994",
            "Sun Nov  6 08:49:37 94",
            "",
            ",",
            "é, 01 Jan 2024 12:00:06 GMT",
        ] {
            assert!(HttpDate::parse(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn delays_round_up_and_clamp() {
        let d = HttpDate::parse("Mon, 01 Jan 2024 12:00:06 GMT").unwrap();
        let noon = at(NOON);
        assert_eq!(d.delay_after(noon), Duration::from_secs(6));
        assert_eq!(
            d.delay_after(noon + Duration::from_millis(2_300)),
            Duration::from_secs(4)
        );
        assert_eq!(d.delay_after(noon + Duration::from_secs(9)), Duration::ZERO);
        assert_eq!(d.delay_after(noon + Duration::from_secs(6)), Duration::ZERO);
        assert_eq!(
            d.delay_after(noon + Duration::from_nanos(5_999_999_999)),
            Duration::from_secs(1)
        );
        assert_eq!(HttpDate::from_system_time(at(MAX_SECS as u64 + 1)), None);
        assert_eq!(
            HttpDate::parse("Sat, 01 Jan 0000 00:00:00 GMT")
                .unwrap()
                .unix_seconds(),
            MIN_SECS
        );
    }

    /// The rule as first written: the delay in nanoseconds, divided and rounded up.
    fn delay_by_division(date: &HttpDate, receipt: SystemTime) -> Duration {
        let receipt = match receipt.duration_since(UNIX_EPOCH) {
            Ok(d) => d.as_nanos() as i128,
            Err(e) => -(e.duration().as_nanos() as i128),
        };
        let nanos = i128::from(date.secs) * 1_000_000_000 - receipt;
        if nanos <= 0 {
            return Duration::ZERO;
        }
        let whole = nanos.div_euclid(1_000_000_000) + i128::from(nanos % 1_000_000_000 != 0);
        Duration::from_secs(u64::try_from(whole).unwrap_or(u64::MAX))
    }

    #[test]
    fn the_delay_is_the_divisions_on_both_sides_of_the_epoch() {
        let dates = [MIN_SECS, -86_401, -1, 0, 1, 784_111_777, MAX_SECS];
        let nanos = [0, 1, 499_999_999, 500_000_000, 999_999_999];
        let secs = [0, 1, 59, 86_400, 784_111_776, 784_111_777, 253_402_300_800];
        for date in dates.map(|secs| HttpDate {
            secs,
            two_digit_year: false,
        }) {
            for (s, n) in secs.iter().flat_map(|s| nanos.map(|n| (*s, n))) {
                let d = Duration::new(s, n);
                // A platform's SystemTime may not reach before 1970 (wasm32's does not).
                let receipts = [UNIX_EPOCH.checked_add(d), UNIX_EPOCH.checked_sub(d)];
                for receipt in receipts.into_iter().flatten() {
                    assert_eq!(
                        date.delay_after(receipt),
                        delay_by_division(&date, receipt),
                        "{date:?} {receipt:?}"
                    );
                }
            }
        }
    }
}
