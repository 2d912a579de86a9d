//! What a server's render sends the browser for one read, whole, as one text of one version:
//! whether the server read at all, and where it did, the stop or the hand-over, the read's
//! trace, and for data, the data's own text (the app's serialization of it, which the read's
//! parser reads back). Written once, by the server ([`Part`]'s `Display`); read once, by the
//! browser ([`Part::parse`]). Nothing secret travels: no URL, no request header, no body but
//! the data the page shows anyway.

use std::fmt;

use super::hand_over::{parts, HandOverError};
use super::trace::parse_trace;
use crate::trace::TraceEvent;

/// What the text of a part begins with, its version after it.
const HEADER: &str = "retry-budget part ";

/// What one read came to in a server's render, as the browser reads it back.
///
/// ```
/// use std::time::Duration;
/// use retry_budget::wire::{handed_trace, Part};
/// use retry_budget::report::Outcome;
/// use retry_budget::StopReport;
///
/// let report = StopReport {
///     outcome: Outcome::Succeeded,
///     at: Duration::from_millis(40),
///     attempts: 1,
///     max_attempts: 3,
///     last_response: None,
///     request_time: Duration::from_millis(40),
///     waited_time: Duration::ZERO,
/// };
/// let (stop, trace) = (report.handed().to_string(), handed_trace(&[]).to_string());
/// let part = Part::Ended { stop: &stop, trace: &trace, data: r#"{"items":[]}"# };
/// let text = part.to_string();
/// assert!(text.starts_with("retry-budget part 1;ended\nretry-budget stop 1;outcome=succeeded;"));
/// let Ok(Part::Ended { stop, data, .. }) = Part::parse(&text) else { panic!() };
/// assert_eq!((StopReport::parse(stop), data), (Ok(report), r#"{"items":[]}"#));
/// assert_eq!(Part::parse("retry-budget part 1;not-read"), Ok(Part::NotRead));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part<'t> {
    /// The server made no request for the read (it had no way to read, its first attempt
    /// would have queued past the render's hold, or the render ended first): the browser
    /// reads for itself.
    NotRead,
    /// The server refused to send the read (a URL it may not read, an invalid request). Its
    /// log says why; the page is not told, as the server's request is the server's own.
    Refused,
    /// The read ended on the server: how ([`StopReport::handed`](crate::StopReport::handed)'s text,
    /// read by [`StopReport::parse`](crate::StopReport::parse)), what it did ([`handed_trace`](super::handed_trace)'s text, read by
    /// [`trace_events`](Part::trace_events)), and for data, the data's text (empty for a read
    /// that stopped without data). Each is read only when asked: a page that shows no trace
    /// compiles no reader of one.
    Ended {
        /// How it ended, as text.
        stop: &'t str,
        /// What it did, as text.
        trace: &'t str,
        /// The data's text, for the read's parser.
        data: &'t str,
    },
    /// The read waits, and the browser goes on with it: from the hand-over
    /// ([`HandOver`](super::HandOver)'s text, read by [`HandOver::parse`](super::HandOver::parse)),
    /// after what it did on the server.
    HandedOver {
        /// The hand-over, as text.
        hand_over: &'t str,
        /// What it did on the server, as text.
        trace: &'t str,
    },
}

impl fmt::Display for Part<'_> {
    /// The part as text, as [`parse`](Part::parse) reads it: a header line naming the kind,
    /// then the stop's or the hand-over's own text, the trace's, and the data's, a line each.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{HEADER}{}", super::hand_over::VERSION)?;
        match self {
            Part::NotRead => f.write_str(";not-read"),
            Part::Refused => f.write_str(";refused"),
            Part::Ended { stop, trace, data } => write!(f, ";ended\n{stop}\n{trace}\n{data}"),
            Part::HandedOver { hand_over, trace } => {
                write!(f, ";handed-over\n{hand_over}\n{trace}")
            }
        }
    }
}

impl<'t> Part<'t> {
    /// Reads a part's text, as its `Display` writes it: the envelope only (its version, its
    /// kind, its lines); another version's text, or text of another shape, is refused by name.
    pub fn parse(text: &'t str) -> Result<Part<'t>, HandOverError> {
        let mut lines = text.splitn(4, '\n');
        let mut kind = parts(lines.next().unwrap_or_default(), HEADER)?;
        let kind = (kind.next(), kind.next());
        let mut line = || lines.next().ok_or(HandOverError::NotAHandOver);
        let part = match kind {
            (Some("not-read"), None) => Part::NotRead,
            (Some("refused"), None) => Part::Refused,
            (Some("ended"), None) => Part::Ended {
                stop: line()?,
                trace: line()?,
                // Only data may hold line breaks of its own.
                data: line()?,
            },
            (Some("handed-over"), None) => Part::HandedOver {
                hand_over: line()?,
                trace: line()?,
            },
            _ => return Err(HandOverError::NotAHandOver),
        };
        match (&part, lines.next()) {
            (Part::Ended { .. }, _) | (_, None) => Ok(part),
            (_, Some(_)) => Err(HandOverError::NotAHandOver),
        }
    }

    /// The read's trace on the server, read back; empty for a part without one.
    pub fn trace_events(&self) -> Result<Vec<TraceEvent>, HandOverError> {
        match self {
            Part::Ended { trace, .. } | Part::HandedOver { trace, .. } => parse_trace(trace),
            Part::NotRead | Part::Refused => Ok(Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::action::WaitReason;
    use crate::report::{LastResponse, Outcome, Overrun, StopReport};
    use crate::trace::Event;
    use crate::wire::HandOver;

    fn trace() -> Vec<TraceEvent> {
        let at = Duration::from_nanos;
        vec![
            TraceEvent {
                at: at(1),
                event: Event::AttemptStarted { attempt: 1 },
            },
            TraceEvent {
                at: at(40_000_001),
                event: Event::AttemptStarted { attempt: 2 },
            },
        ]
    }

    fn report(outcome: Outcome) -> StopReport {
        StopReport {
            outcome,
            at: Duration::from_millis(120),
            attempts: 1,
            max_attempts: 3,
            last_response: Some(LastResponse {
                status: 429,
                retry_after: Some("30".into()),
                note: None,
            }),
            request_time: Duration::from_millis(120),
            waited_time: Duration::ZERO,
        }
    }

    #[test]
    fn every_part_reads_back_as_it_was_written() {
        let trace_text = super::super::handed_trace(&trace()).to_string();
        let (with_trace, without) = (trace_text.as_str(), "retry-budget hand-over 1");
        let loaded = report(Outcome::Succeeded).handed().to_string();
        let stopped = report(Outcome::BudgetExhausted(Overrun::ServerDelay(
            Duration::from_secs(30),
        )))
        .handed()
        .to_string();
        let hand_over = HandOver {
            attempts: 1,
            wait: Duration::from_millis(2_400),
            reason: WaitReason::ServerDelay(Duration::from_secs(3)),
            last_response: None,
        }
        .to_string();
        let parts = [
            Part::NotRead,
            Part::Refused,
            // Data keeps its own line breaks.
            Part::Ended {
                stop: &loaded,
                trace: with_trace,
                data: "{\n  \"a\": [1, 2]\n}",
            },
            Part::Ended {
                stop: &stopped,
                trace: without,
                data: "",
            },
            Part::HandedOver {
                hand_over: &hand_over,
                trace: with_trace,
            },
        ];
        for part in parts {
            let text = part.to_string();
            let read = Part::parse(&text);
            assert_eq!(read, Ok(part.clone()), "{text}");
            assert_eq!(read.unwrap().trace_events(), part.trace_events());
        }
        let text = parts_text(with_trace);
        assert_eq!(Part::parse(&text).unwrap().trace_events(), Ok(trace()));
    }

    /// An ended part's text with `trace`.
    fn parts_text(trace: &str) -> String {
        let stop = report(Outcome::Succeeded).handed().to_string();
        Part::Ended {
            stop: &stop,
            trace,
            data: "42",
        }
        .to_string()
    }

    #[test]
    fn text_of_another_version_or_shape_is_refused_by_name() {
        let refused = |text: &str| Part::parse(text).unwrap_err();
        assert_eq!(
            refused("retry-budget part 2;not-read"),
            HandOverError::OtherVersion("2".into())
        );
        // The unversioned markers of before are not parts.
        assert_eq!(refused("not read"), HandOverError::NotAHandOver);
        assert_eq!(
            refused("retry-budget part 1;lost"),
            HandOverError::NotAHandOver
        );
        assert_eq!(
            refused("retry-budget part 1;refused;x"),
            HandOverError::NotAHandOver
        );
        assert_eq!(
            refused("retry-budget part 1;refused\nmore"),
            HandOverError::NotAHandOver
        );
        // A part whose lines are cut short is not a part.
        let trace_text = super::super::handed_trace(&trace()).to_string();
        let ended = parts_text(&trace_text);
        let cut = &ended[..ended.rfind('\n').unwrap()];
        assert_eq!(refused(cut), HandOverError::NotAHandOver);
        // The stop, the hand-over and the trace inside are read by their own readers, when
        // asked (`StopReport::parse`, `HandOver::parse`, `Part::trace_events`).
        // A trace that cannot be read is refused by name when it is asked for.
        let bad_trace = parts_text("retry-budget hand-over 1;x");
        assert!(Part::parse(&bad_trace).unwrap().trace_events().is_err());
    }
}
