//! A read's trace handed from one client to another: what a server's render did before it
//! handed the read over (or stopped it), as text, so that the browser shows one timeline for
//! one action. Every event reads back whole; durations to the nanosecond. Nothing secret: the
//! trace never held a URL, a request header or a body. Another version's text, or text of
//! another shape, is refused by name.

use std::fmt::{self, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::hand_over::{
    escape, evidence_name, note_name, ns, parts, read_evidence, read_note, read_reason_in,
    unescape, write_reason_in, HandOverError, Unit, VERSION,
};
use crate::rate_limit::{IgnoredField, Quota, QuotaForm, RateLimitFields};
use crate::report::{StopReport, TransportFailure};
use crate::trace::{DropReason, Event, Failure, TraceEvent};

/// What the text of a handed trace begins with; its version follows.
const HEADER: &str = "retry-budget trace ";

/// A trace as the text another client reads back ([`handed_trace`], [`parse_trace`]).
#[derive(Clone, Copy, Debug)]
pub struct HandedTrace<'a>(&'a [TraceEvent]);

/// `trace` as text for another client, which reads it back whole with [`parse_trace`].
pub fn handed_trace(trace: &[TraceEvent]) -> HandedTrace<'_> {
    HandedTrace(trace)
}

/// Reads a trace handed over as text ([`handed_trace`]); refused by name otherwise.
pub fn parse_trace(text: &str) -> Result<Vec<TraceEvent>, HandOverError> {
    parts(text, HEADER)?
        .filter(|e| !e.is_empty())
        .map(read_event)
        .collect()
}

impl fmt::Display for HandedTrace<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{HEADER}{VERSION}")?;
        for e in self.0 {
            write!(f, ";{}:", ns(e.at))?;
            write_event(f, &e.event)?;
        }
        Ok(())
    }
}

/// An event, `:`-separated after its short name.
fn write_event(f: &mut fmt::Formatter<'_>, event: &Event) -> fmt::Result {
    match event {
        Event::ActionStarted {
            budget,
            max_attempts,
            attempt_cap,
        } => write!(
            f,
            "start:{}:{max_attempts}:{}",
            ns(*budget),
            ns(*attempt_cap)
        ),
        Event::HandedOver { attempts, wait } => write!(f, "handed:{attempts}:{}", ns(*wait)),
        Event::AttemptStarted { attempt } => write!(f, "attempt:{attempt}"),
        Event::ResponseReceived {
            attempt,
            status,
            retry_after,
            date,
            wall_clock,
            note,
            quota,
            ignored,
        } => {
            write!(f, "response:{attempt}:{status}:")?;
            optional(f, retry_after.as_deref())?;
            f.write_char(':')?;
            optional(f, date.as_deref())?;
            f.write_char(':')?;
            if let Some((at, source)) = wall_clock {
                let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
                write!(f, "{}/{}", ns(since), evidence_name(*source))?;
            }
            f.write_char(':')?;
            f.write_str(note.as_ref().map_or("", note_name))?;
            f.write_char(':')?;
            if let Some(q) = quota {
                let form = match q.form {
                    QuotaForm::Structured => "s",
                    QuotaForm::Separate => "p",
                    QuotaForm::Legacy => "l",
                };
                write!(f, "{}/{form}/", q.remaining)?;
                if let Some(reset) = q.reset {
                    write!(f, "{}", ns(reset))?;
                }
            }
            f.write_char(':')?;
            for (i, ignored) in ignored.iter().enumerate() {
                if i > 0 {
                    f.write_char(',')?;
                }
                escape(f, ignored.field)?;
                f.write_char('/')?;
                escape(f, &ignored.reason)?;
            }
            Ok(())
        }
        Event::AttemptFailed { attempt, failure } => {
            let how = match failure {
                Failure::Transport(TransportFailure::Network) => "network",
                Failure::Transport(TransportFailure::CannotAbort) => "abort",
                Failure::TimedOut => "timeout",
            };
            write!(f, "failed:{attempt}:{how}")
        }
        Event::WaitPlanned {
            wait,
            jitter,
            reason,
            remaining,
        } => {
            write!(f, "wait:{}:{}:{}:", ns(*wait), ns(*jitter), ns(*remaining))?;
            write_reason_in(f, reason, Unit::Nanos)
        }
        Event::Queued { attempt, limit } => write!(f, "queued:{attempt}:{limit}"),
        Event::TimerWoke { late } => write!(f, "woke:{}", ns(*late)),
        Event::ResponseDropped { status, reason } => {
            let reason = match reason {
                DropReason::NotOwned => "not_owned",
                DropReason::PastCap => "past_cap",
            };
            match status {
                Some(status) => write!(f, "dropped:{status}:{reason}"),
                None => write!(f, "dropped::{reason}"),
            }
        }
        Event::MovedOn => f.write_str("moved"),
        Event::Stopped(report) => {
            f.write_str("stopped:")?;
            escape(f, &report.handed().to_string())
        }
    }
}

/// One event from its text, as [`write_event`] writes it after its time.
fn read_event(text: &str) -> Result<TraceEvent, HandOverError> {
    let bad = || HandOverError::Field("trace");
    let (at, rest) = text.split_once(':').ok_or_else(bad)?;
    let at = Duration::from_nanos(at.parse().map_err(|_| bad())?);
    let (kind, rest) = rest.split_once(':').unwrap_or((rest, ""));
    // Every kind but the wait and the response has plain parts; those two read their own.
    let parts: Vec<&str> = rest.split(':').collect();
    let whole = |i: usize| -> Result<u64, HandOverError> {
        parts.get(i).and_then(|p| p.parse().ok()).ok_or_else(bad)
    };
    let small = |i: usize| u32::try_from(whole(i)?).map_err(|_| bad());
    let span = |i: usize| whole(i).map(Duration::from_nanos);
    let count = |n: usize| if parts.len() == n { Ok(()) } else { Err(bad()) };
    let event = match kind {
        "start" => {
            count(3)?;
            Event::ActionStarted {
                budget: span(0)?,
                max_attempts: small(1)?,
                attempt_cap: span(2)?,
            }
        }
        "handed" => {
            count(2)?;
            Event::HandedOver {
                attempts: small(0)?,
                wait: span(1)?,
            }
        }
        "attempt" => {
            count(1)?;
            Event::AttemptStarted { attempt: small(0)? }
        }
        "response" => read_response(&parts)?,
        "failed" => {
            count(2)?;
            let failure = match parts[1] {
                "network" => Failure::Transport(TransportFailure::Network),
                "abort" => Failure::Transport(TransportFailure::CannotAbort),
                "timeout" => Failure::TimedOut,
                _ => return Err(bad()),
            };
            Event::AttemptFailed {
                attempt: small(0)?,
                failure,
            }
        }
        "wait" => {
            let mut fields = rest.splitn(4, ':');
            let mut span = || -> Result<Duration, HandOverError> {
                let field = fields.next().ok_or_else(bad)?;
                field.parse().map(Duration::from_nanos).map_err(|_| bad())
            };
            let (wait, jitter, remaining) = (span()?, span()?, span()?);
            let reason =
                read_reason_in(fields.next().ok_or_else(bad)?, Unit::Nanos).map_err(|_| bad())?;
            Event::WaitPlanned {
                wait,
                jitter,
                reason,
                remaining,
            }
        }
        "queued" => {
            count(2)?;
            Event::Queued {
                attempt: small(0)?,
                limit: small(1)?,
            }
        }
        "woke" => {
            count(1)?;
            Event::TimerWoke { late: span(0)? }
        }
        "dropped" => {
            count(2)?;
            let status = match parts[0] {
                "" => None,
                _ => Some(u16::try_from(whole(0)?).map_err(|_| bad())?),
            };
            let reason = match parts[1] {
                "not_owned" => DropReason::NotOwned,
                "past_cap" => DropReason::PastCap,
                _ => return Err(bad()),
            };
            Event::ResponseDropped { status, reason }
        }
        "moved" if rest.is_empty() => Event::MovedOn,
        "stopped" => {
            count(1)?;
            Event::Stopped(StopReport::parse(&unescape(parts[0], "trace")?)?)
        }
        _ => return Err(bad()),
    };
    Ok(TraceEvent { at, event })
}

/// A response's event from its parts: attempt, status, Retry-After, Date, the receipt's wall
/// clock, the note, the quota and the ignored fields.
fn read_response(parts: &[&str]) -> Result<Event, HandOverError> {
    let bad = || HandOverError::Field("trace");
    let [attempt, status, retry_after, date, wall, note, quota, ignored] = parts else {
        return Err(bad());
    };
    let retry_after = read_optional(retry_after)?;
    let date = read_optional(date)?;
    let wall_clock = match *wall {
        "" => None,
        text => {
            let (since, source) = text.split_once('/').ok_or_else(bad)?;
            let since = Duration::from_nanos(since.parse().map_err(|_| bad())?);
            let source = read_evidence(source).ok_or_else(bad)?;
            Some((SystemTime::UNIX_EPOCH + since, source))
        }
    };
    let note = match *note {
        "" => None,
        name => Some(read_note(name, retry_after.as_deref()).ok_or_else(bad)?),
    };
    let quota = match *quota {
        "" => None,
        text => {
            let mut q = text.split('/');
            let remaining = q.next().and_then(|r| r.parse().ok()).ok_or_else(bad)?;
            let form = match q.next() {
                Some("s") => QuotaForm::Structured,
                Some("p") => QuotaForm::Separate,
                Some("l") => QuotaForm::Legacy,
                _ => return Err(bad()),
            };
            let reset = match q.next() {
                Some("") => None,
                Some(r) => Some(Duration::from_nanos(r.parse().map_err(|_| bad())?)),
                None => return Err(bad()),
            };
            Some(Quota {
                remaining,
                reset,
                form,
            })
        }
    };
    let ignored = match *ignored {
        "" => Vec::new(),
        text => text
            .split(',')
            .map(|one| {
                let (field, reason) = one.split_once('/').ok_or_else(bad)?;
                let field = unescape(field, "trace")?;
                let field = (RateLimitFields::FIELD_NAMES.into_iter())
                    .find(|known| *known == field)
                    .ok_or_else(bad)?;
                Ok(IgnoredField {
                    field,
                    reason: unescape(reason, "trace")?,
                })
            })
            .collect::<Result<_, HandOverError>>()?,
    };
    Ok(Event::ResponseReceived {
        attempt: attempt.parse().map_err(|_| bad())?,
        status: status.parse().map_err(|_| bad())?,
        retry_after,
        date,
        wall_clock,
        note,
        quota,
        ignored,
    })
}

/// An optional text: nothing for `None`, `=` and the escaped text for `Some` (an escaped text
/// never begins with `=`, which is escaped).
fn optional(f: &mut fmt::Formatter<'_>, text: Option<&str>) -> fmt::Result {
    match text {
        Some(text) => {
            f.write_char('=')?;
            escape(f, text)
        }
        None => Ok(()),
    }
}

fn read_optional(text: &str) -> Result<Option<String>, HandOverError> {
    match text {
        "" => Ok(None),
        text => {
            let value = text
                .strip_prefix('=')
                .ok_or(HandOverError::Field("trace"))?;
            unescape(value, "trace").map(Some)
        }
    }
}
