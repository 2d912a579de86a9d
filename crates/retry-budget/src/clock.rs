//! The clock evidence that dates a receipt, the one rule for the action and the ledger alike:
//! the response's own `Date`, else the local wall clock where the policy trusts it, else none.

use std::fmt;
use std::time::SystemTime;

use super::http_date::HttpDate;

/// Where a receipt's wall-clock time came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockSource {
    /// The response's own `Date` header: the same clock as the server's `Retry-After`.
    DateHeader,
    /// The local wall clock, which the policy trusts.
    LocalClock,
}

impl fmt::Display for ClockSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ClockSource::DateHeader => "response's Date",
            ClockSource::LocalClock => "local clock",
        })
    }
}

/// Parses an HTTP `Date` header for clock evidence; `None` when it is not a valid HTTP date, or
/// names a time before 1970 (no clock that dates a receipt today reads that). An RFC 850 `Date`
/// is read in 1970–2069: there is no other clock to resolve it against.
pub fn parse_date_header(value: &str) -> Option<SystemTime> {
    HttpDate::parse(value.trim_matches([' ', '\t']))
        .ok()
        .filter(|d| d.unix_seconds() >= 0)
        .and_then(HttpDate::to_system_time)
}

/// The clock evidence for a receipt, the one rule: the response's own `Date` (the server's
/// clock, the same one its `Retry-After` date is on), else the local wall clock where the policy
/// trusts it (`trust_local`), else none, and a `Retry-After` date cannot be read at all.
pub fn receipt_clock(
    date_header: Option<&str>,
    local: Option<SystemTime>,
    trust_local: bool,
) -> Option<(SystemTime, ClockSource)> {
    if let Some(t) = date_header.and_then(parse_date_header) {
        return Some((t, ClockSource::DateHeader));
    }
    local
        .filter(|_| trust_local)
        .map(|t| (t, ClockSource::LocalClock))
}
