//! A read handed from one client to another while it waits: what a server knew when it handed
//! its render's read to the browser, as text the browser reads back, so that the browser goes
//! on with the same action ([`ReadAction::resume`](crate::ReadAction::resume)).
//!
//! It carries the attempts made, the wait still to come and why, and the last response's
//! status and `Retry-After`: nothing secret (no URL, no request header, no body). Text of
//! another version, or text that is not a hand-over, is refused by name; a continuation is
//! never guessed.

use std::fmt::{self, Write};
use std::time::Duration;

use crate::block::BlockCause;
use crate::clock::ClockSource;
use crate::http_date::HttpDate;
use crate::report::LastResponse;
use crate::retry_after::{parse_retry_after, HeaderNote};
use crate::wait::WaitReason;

/// What the text of a hand-over begins with, its version included.
const HEADER: &str = "retry-budget hand-over ";
/// The version this library writes and reads (of a hand-over, and of a stop handed over).
pub(crate) const VERSION: &str = "1";

/// A read handed over while it waited.
///
/// ```
/// use std::time::Duration;
/// use retry_budget::action::WaitReason;
/// use retry_budget::report::LastResponse;
/// use retry_budget::HandOver;
///
/// let hand_over = HandOver {
///     attempts: 1,
///     wait: Duration::from_millis(2_400),
///     reason: WaitReason::ServerDelay(Duration::from_secs(3)),
///     last_response: Some(LastResponse { status: 429, retry_after: Some("3".into()), note: None }),
/// };
/// let text = hand_over.to_string();
/// assert_eq!(text, "retry-budget hand-over 1;attempts=1;wait_us=2400000;reason=delay:3000000;last=429;ra=3;note=none");
/// assert_eq!(HandOver::parse(&text), Ok(hand_over));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandOver {
    /// Attempts started before the hand-over.
    pub attempts: u32,
    /// The wait still to come when it was handed over.
    pub wait: Duration,
    /// Why the wait is as long as it is.
    pub reason: WaitReason,
    /// The last response, as the trace records it.
    pub last_response: Option<LastResponse>,
}

/// Why a hand-over's text cannot be read. The read it came with is not continued.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HandOverError {
    /// The text is not a hand-over at all.
    #[error("it is not a retry-budget hand-over")]
    NotAHandOver,
    /// A hand-over written by another version of this library.
    #[error("it is a hand-over of version {0}, and this library reads version {VERSION}")]
    OtherVersion(String),
    /// A field is missing, or cannot be read.
    #[error("its field {0} is missing or cannot be read")]
    Field(&'static str),
}

impl fmt::Display for HandOver {
    /// The hand-over as text, as [`parse`](Self::parse) reads it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{HEADER}{VERSION};attempts={};wait_us={};reason=",
            self.attempts,
            // Rounded up: read back, the wait is never shorter than the one handed over.
            micros(self.wait.saturating_add(Duration::from_nanos(999)))
        )?;
        write_reason_in(f, &self.reason, Unit::Micros)?;
        write_last(f, self.last_response.as_ref())
    }
}

/// The unit a text counts a reason's durations in: a hand-over's microseconds, a trace's
/// nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    /// Whole microseconds.
    Micros,
    /// Whole nanoseconds.
    Nanos,
}

impl Unit {
    fn count(self, d: Duration) -> u64 {
        match self {
            Unit::Micros => micros(d),
            Unit::Nanos => ns(d),
        }
    }

    fn duration(self, n: u64) -> Duration {
        match self {
            Unit::Micros => Duration::from_micros(n),
            Unit::Nanos => Duration::from_nanos(n),
        }
    }
}

/// Writes a wait's reason, its durations in `unit`, as [`read_reason_in`] reads it.
pub(crate) fn write_reason_in(
    f: &mut fmt::Formatter<'_>,
    reason: &WaitReason,
    unit: Unit,
) -> fmt::Result {
    match reason {
        WaitReason::ServerDelay(d) => write!(f, "delay:{}", unit.count(*d)),
        WaitReason::ServerDate {
            until,
            delay,
            evidence,
        } => {
            let evidence = evidence_name(*evidence);
            write!(f, "date:{}:{evidence}:", unit.count(*delay))?;
            escape(f, &until.to_string())
        }
        WaitReason::Fallback { wait, note } => {
            write!(f, "fallback:{}:{}", unit.count(*wait), note_name(note))?;
            if let HeaderNote::Invalid(invalid) = note {
                f.write_char(':')?;
                escape(f, &invalid.value)?;
            }
            Ok(())
        }
        WaitReason::ScopeBlocked { wait, asked, cause } => {
            let cause = cause.name();
            write!(
                f,
                "block:{}:{}:{cause}",
                unit.count(*wait),
                unit.count(*asked)
            )
        }
    }
}

/// Writes the last response's fields (`;last=…;ra=…;note=…`), where there was one.
pub(crate) fn write_last(f: &mut fmt::Formatter<'_>, last: Option<&LastResponse>) -> fmt::Result {
    if let Some(last) = last {
        write!(f, ";last={}", last.status)?;
        if let Some(value) = &last.retry_after {
            f.write_str(";ra=")?;
            escape(f, value)?;
        }
        write!(f, ";note={}", last.note.as_ref().map_or("none", note_name))?;
    }
    Ok(())
}

/// Reads the last response from its fields, as [`write_last`] writes them.
pub(crate) fn read_last(
    last: Option<&str>,
    ra: Option<&str>,
    note: Option<&str>,
) -> Result<Option<LastResponse>, HandOverError> {
    let Some(status) = last else {
        return match (ra, note) {
            (None, None) => Ok(None),
            _ => Err(HandOverError::Field("last")),
        };
    };
    let status = u16::try_from(number(Some(status), "last")?)
        .ok()
        .filter(|s| (100..=599).contains(s))
        .ok_or(HandOverError::Field("last"))?;
    let retry_after = ra.map(|v| unescape(v, "ra")).transpose()?;
    let note = match note {
        Some("none") => None,
        Some(name) => {
            Some(read_note(name, retry_after.as_deref()).ok_or(HandOverError::Field("note"))?)
        }
        None => return Err(HandOverError::Field("note")),
    };
    Ok(Some(LastResponse {
        status,
        retry_after,
        note,
    }))
}

/// The `;`-separated parts of `text` after `header` and this library's version; another
/// version's, or text without the header, refused by name.
pub(crate) fn parts<'t>(
    text: &'t str,
    header: &str,
) -> Result<std::str::Split<'t, char>, HandOverError> {
    let rest = text
        .strip_prefix(header)
        .ok_or(HandOverError::NotAHandOver)?;
    let mut parts = rest.split(';');
    let version = parts.next().unwrap_or_default();
    if version != VERSION {
        return Err(HandOverError::OtherVersion(
            version.chars().take(16).collect(),
        ));
    }
    Ok(parts)
}

/// The `;`-separated `name=value` fields after a header and its version, each of `NAMES` at
/// most once, in `NAMES`'s order; refused by name otherwise.
pub(crate) fn fields<'t, const N: usize>(
    text: &'t str,
    header: &str,
    names: [&'static str; N],
) -> Result<[Option<&'t str>; N], HandOverError> {
    let mut found: [Option<&str>; N] = [None; N];
    for field in parts(text, header)? {
        let (name, value) = field.split_once('=').ok_or(HandOverError::NotAHandOver)?;
        let i = (names.iter().position(|n| *n == name)).ok_or(HandOverError::NotAHandOver)?;
        if found[i].replace(value).is_some() {
            return Err(HandOverError::Field(names[i]));
        }
    }
    Ok(found)
}

impl HandOver {
    /// Reads a hand-over's text, as its `Display` writes it; refused by name otherwise.
    pub fn parse(text: &str) -> Result<HandOver, HandOverError> {
        const NAMES: [&str; 6] = ["attempts", "wait_us", "reason", "last", "ra", "note"];
        let [attempts, wait, reason, last, ra, note] = fields(text, HEADER, NAMES)?;
        let attempts = number(attempts, "attempts")?;
        let attempts = u32::try_from(attempts).map_err(|_| HandOverError::Field("attempts"))?;
        let wait = Duration::from_micros(number(wait, "wait_us")?);
        let reason = read_reason(reason.ok_or(HandOverError::Field("reason"))?)?;
        let last_response = read_last(last, ra, note)?;
        Ok(HandOver {
            attempts,
            wait,
            reason,
            last_response,
        })
    }
}

/// The wait's reason, from its field.
fn read_reason(text: &str) -> Result<WaitReason, HandOverError> {
    read_reason_in(text, Unit::Micros)
}

/// A wait's reason, its durations in `unit`, as [`write_reason_in`] writes it.
pub(crate) fn read_reason_in(text: &str, unit: Unit) -> Result<WaitReason, HandOverError> {
    let bad = HandOverError::Field("reason");
    let mut parts = text.splitn(4, ':');
    let kind = parts.next().unwrap_or_default();
    let mut next = || parts.next().ok_or(bad.clone());
    let us = |t: &str| t.parse().map(|n| unit.duration(n)).map_err(|_| bad.clone());
    let reason = match kind {
        "delay" => WaitReason::ServerDelay(us(next()?)?),
        "date" => {
            let delay = us(next()?)?;
            let evidence = read_evidence(next()?).ok_or(bad.clone())?;
            let until = unescape(next()?, "reason")?;
            let until = HttpDate::parse(&until).map_err(|_| bad.clone())?;
            WaitReason::ServerDate {
                until,
                delay,
                evidence,
            }
        }
        "fallback" => {
            let wait = us(next()?)?;
            let name = next()?;
            let value = match name {
                "invalid" => Some(unescape(next()?, "reason")?),
                _ => None,
            };
            let note = read_note(name, value.as_deref()).ok_or(bad)?;
            WaitReason::Fallback { wait, note }
        }
        "block" => {
            let wait = us(next()?)?;
            let asked = us(next()?)?;
            let cause = BlockCause::from_name(next()?).ok_or(bad)?;
            WaitReason::ScopeBlocked { wait, asked, cause }
        }
        _ => return Err(bad),
    };
    Ok(reason)
}

/// Clock evidence in the text.
pub(crate) fn evidence_name(source: ClockSource) -> &'static str {
    match source {
        ClockSource::DateHeader => "date",
        ClockSource::LocalClock => "local",
    }
}

/// The clock evidence named `name`.
pub(crate) fn read_evidence(name: &str) -> Option<ClockSource> {
    match name {
        "date" => Some(ClockSource::DateHeader),
        "local" => Some(ClockSource::LocalClock),
        _ => None,
    }
}

/// A `Retry-After` note's name in the text.
pub(crate) fn note_name(note: &HeaderNote) -> &'static str {
    match note {
        HeaderNote::Missing {
            maybe_hidden: false,
        } => "missing",
        HeaderNote::Missing { maybe_hidden: true } => "hidden",
        HeaderNote::Invalid(_) => "invalid",
    }
}

/// The note named `name`. An invalid one is the value's own: `value`, the header as received,
/// read again says what was wrong with it.
pub(crate) fn read_note(name: &str, value: Option<&str>) -> Option<HeaderNote> {
    match name {
        "missing" => Some(HeaderNote::Missing {
            maybe_hidden: false,
        }),
        "hidden" => Some(HeaderNote::Missing { maybe_hidden: true }),
        "invalid" => value
            .and_then(|v| parse_retry_after(v).err())
            .map(HeaderNote::Invalid),
        _ => None,
    }
}

/// A whole number field.
pub(crate) fn number(text: Option<&str>, name: &'static str) -> Result<u64, HandOverError> {
    text.filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|t| t.parse().ok())
        .ok_or(HandOverError::Field(name))
}

/// A duration in whole nanoseconds, saturating (past 584 years).
pub(crate) fn ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// A duration in whole microseconds, saturating.
fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// Writes `text` with every byte that could end a field or a part (`;`, `:`, `=`, and the
/// trace's `,` and `/`), or is not printable ASCII, as `%XX`.
pub(crate) fn escape(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    for b in text.bytes() {
        if b.is_ascii_graphic() && !matches!(b, b'%' | b';' | b':' | b'=' | b',' | b'/')
            || b == b' '
        {
            f.write_char(char::from(b))?;
        } else {
            write!(f, "%{b:02X}")?;
        }
    }
    Ok(())
}

/// Reads text written by [`escape`].
pub(crate) fn unescape(text: &str, name: &'static str) -> Result<String, HandOverError> {
    let bad = || HandOverError::Field(name);
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.bytes();
    while let Some(b) = rest.next() {
        if b == b'%' {
            let hex = [rest.next().ok_or_else(bad)?, rest.next().ok_or_else(bad)?];
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return Err(bad());
            }
            let hex = std::str::from_utf8(&hex).map_err(|_| bad())?;
            bytes.push(u8::from_str_radix(hex, 16).map_err(|_| bad())?);
        } else {
            bytes.push(b);
        }
    }
    String::from_utf8(bytes).map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn s(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    fn last(
        status: u16,
        retry_after: Option<&str>,
        note: Option<HeaderNote>,
    ) -> Option<LastResponse> {
        Some(LastResponse {
            status,
            retry_after: retry_after.map(str::to_owned),
            note,
        })
    }

    #[test]
    fn every_reason_reads_back_as_it_was_written() {
        let invalid = parse_retry_after("3; soon=%").unwrap_err();
        let date = HttpDate::parse("Mon, 01 Jan 2024 12:00:06 GMT").unwrap();
        let cases = [
            (
                WaitReason::ServerDelay(Duration::from_micros(2_500_001)),
                last(429, Some("2.5"), None),
            ),
            (
                WaitReason::ServerDate {
                    until: date,
                    delay: s(6),
                    evidence: ClockSource::DateHeader,
                },
                last(429, Some("Mon, 01 Jan 2024 12:00:06 GMT"), None),
            ),
            (
                WaitReason::Fallback {
                    wait: s(2),
                    note: HeaderNote::Invalid(invalid.clone()),
                },
                last(
                    503,
                    Some(&invalid.value),
                    Some(HeaderNote::Invalid(invalid.clone())),
                ),
            ),
            (
                WaitReason::Fallback {
                    wait: s(4),
                    note: HeaderNote::Missing { maybe_hidden: true },
                },
                last(429, None, Some(HeaderNote::Missing { maybe_hidden: true })),
            ),
            (
                WaitReason::ScopeBlocked {
                    wait: s(9),
                    asked: s(10),
                    cause: BlockCause::QuotaSpent,
                },
                None,
            ),
        ];
        for (reason, last_response) in cases {
            let hand_over = HandOver {
                attempts: 2,
                wait: Duration::from_millis(1_234),
                reason,
                last_response,
            };
            let text = hand_over.to_string();
            assert_eq!(HandOver::parse(&text), Ok(hand_over), "{text}");
            assert!(text.split(';').all(|f| !f.contains('\n')), "{text}");
        }
    }

    #[test]
    fn a_wait_read_back_is_never_shorter_than_the_one_handed_over() {
        for nanos in [1, 1_000, 1_500, 2_999_999_001] {
            let hand_over = HandOver {
                attempts: 1,
                wait: Duration::from_nanos(nanos),
                reason: WaitReason::ServerDelay(s(3)),
                last_response: None,
            };
            let back = HandOver::parse(&hand_over.to_string()).unwrap();
            assert!(back.wait >= hand_over.wait, "{nanos} ns");
            assert!(
                back.wait - hand_over.wait < Duration::from_micros(1),
                "{nanos} ns"
            );
        }
    }

    #[test]
    fn text_that_is_not_a_hand_over_of_this_version_is_refused_by_name() {
        let good = "retry-budget hand-over 1;attempts=1;wait_us=5;reason=delay:5";
        assert!(HandOver::parse(good).is_ok());
        let refused = |text: &str| HandOver::parse(text).unwrap_err().to_string();
        assert_eq!(refused("<html>"), "it is not a retry-budget hand-over");
        assert_eq!(
            refused("retry-budget hand-over 2;attempts=1"),
            "it is a hand-over of version 2, and this library reads version 1"
        );
        for (text, field) in [
            ("retry-budget hand-over 1;wait_us=5;reason=delay:5", "attempts"),
            ("retry-budget hand-over 1;attempts=-1;wait_us=5;reason=delay:5", "attempts"),
            ("retry-budget hand-over 1;attempts=1;wait_us=5;reason=nap:5", "reason"),
            ("retry-budget hand-over 1;attempts=1;attempts=2;wait_us=5;reason=delay:5", "attempts"),
            ("retry-budget hand-over 1;attempts=1;wait_us=5;reason=delay:5;last=700", "last"),
            ("retry-budget hand-over 1;attempts=1;wait_us=5;reason=delay:5;last=429;ra=%zz;note=none", "ra"),
            ("retry-budget hand-over 1;attempts=1;wait_us=5;reason=delay:5;last=429;ra=3;note=invalid", "note"),
        ] {
            assert_eq!(refused(text), format!("its field {field} is missing or cannot be read"), "{text}");
        }
        assert_eq!(
            refused(&format!("{good};secret=1")),
            "it is not a retry-budget hand-over"
        );
    }
}
