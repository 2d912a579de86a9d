//! Every sentence the user reads, in one room: the stop message, the progress lines, why a
//! wait is as long as it is, and the timeline's labels. The sentences themselves are private:
//! an app reads them through the `Display` of the typed values ([`StopMessage`], [`Progress`],
//! [`BodyProblem`], [`TransportFailure`](crate::report::TransportFailure)), and an app in another
//! language writes its own words from the facts those values carry. Public here: those values,
//! and how a number of seconds is written ([`seconds_text`]) and when its text next changes.

use std::fmt;
use std::time::Duration;

use super::block::BlockCause;
use super::body::BodyProblem;
use super::report::{Cancelled, HeldBy, Outcome, OutcomeKind, Overrun, StopReport};
pub use super::seconds::{next_change, seconds_text, Precision};
pub use super::shown::quoted;
use super::wait::WaitReason;

/// "1 second", "2 seconds", "2.5 seconds": to the tenth, as a person reads a duration. A real
/// clock's 2.013 s reads "2 seconds".
pub(crate) fn seconds_words(d: Duration) -> String {
    match seconds_text(d, Precision::Tenths).as_str() {
        "1" => "1 second".to_owned(),
        n => format!("{n} seconds"),
    }
}

/// "1 MiB", "64 KiB", "1000 bytes": a size as a person reads it, exact.
fn bytes_words(n: u64) -> String {
    const KIB: u64 = 1024;
    match n {
        1 => "1 byte".to_owned(),
        n if n >= KIB * KIB && n % (KIB * KIB) == 0 => format!("{} MiB", n / (KIB * KIB)),
        n if n >= KIB && n % KIB == 0 => format!("{} KiB", n / KIB),
        n => format!("{n} bytes"),
    }
}

/// "At most 2 requests to this API may be in flight at once.": the scope's in-flight limit.
fn in_flight_words(limit: u32) -> String {
    match limit {
        1 => "At most 1 request to this API may be in flight at once.".to_owned(),
        n => format!("At most {n} requests to this API may be in flight at once."),
    }
}

/// Why a wait is as long as it is: "The service asked for 3 s."
fn wait_words(f: &mut fmt::Formatter<'_>, reason: &WaitReason) -> fmt::Result {
    let s = |d: Duration| seconds_text(d, Precision::Exact);
    match reason {
        WaitReason::ServerDelay(d) => write!(f, "The service asked for {} s.", s(*d)),
        WaitReason::ServerDate { until, delay, .. } => write!(
            f,
            "The service named a time, {until} ({} s from the answer).",
            s(*delay)
        ),
        WaitReason::Fallback { wait, .. } => write!(
            f,
            "The service gave no usable hint; waiting the {} s fallback.",
            s(*wait)
        ),
        WaitReason::ScopeBlocked {
            asked,
            cause: BlockCause::TooManyRequests,
            ..
        } => write!(
            f,
            "The service asked every request to this API to wait {} s.",
            s(*asked)
        ),
        WaitReason::ScopeBlocked {
            asked,
            cause: BlockCause::QuotaSpent,
            ..
        } => write!(
            f,
            "This API's quota is used up; the service said it resets in {} s.",
            s(*asked)
        ),
    }
}

/// What was wrong with a 2xx's body, as the stop message says it: the kind and the place, never
/// a word of what the body held.
impl fmt::Display for BodyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            BodyProblem::Empty => f.write_str("Its answer had no body."),
            BodyProblem::NotJson { line, column } => {
                write!(f, "Its body is not JSON (line {line}, column {column}).")
            }
            BodyProblem::WrongShape { line, column } => write!(
                f,
                "Its body is JSON, but not of the shape expected (line {line}, column {column})."
            ),
            BodyProblem::Truncated { line, column } => write!(
                f,
                "Its body ended before its JSON did (line {line}, column {column})."
            ),
            BodyProblem::TooLarge { limit } => write!(
                f,
                "Its body is larger than {}, so reading stopped there.",
                bytes_words(limit)
            ),
            BodyProblem::Interrupted => f.write_str("Its body stopped arriving part way."),
        }
    }
}

/// A running read's progress as one line the user reads; its `Display` is the sentence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress<'a> {
    /// Attempt `attempt` of `of` is in flight: "Attempt 2 of 3".
    InFlight {
        /// Which attempt.
        attempt: u32,
        /// Attempts allowed.
        of: u32,
    },
    /// `left` before attempt `next` starts: "Attempt 2 of 3 in 3 s", in whole seconds rounded
    /// up (it reads "in 1 s" until the moment the attempt starts).
    Countdown {
        /// The attempt that comes next.
        next: u32,
        /// Attempts allowed.
        of: u32,
        /// Time left before it starts.
        left: Duration,
    },
    /// A wait begins (what a live region says once, never the ticking number): "Waiting before
    /// attempt 2 of 3. The service asked for 3 s."
    Waiting {
        /// The attempt that comes next.
        next: u32,
        /// Attempts allowed.
        of: u32,
        /// Why the wait is this long.
        reason: &'a WaitReason,
    },
    /// Why the wait before the next attempt is this long: "The service asked for 3 s."
    Reason(&'a WaitReason),
    /// Queued for a place in flight: "Attempt 1 of 3 waits its turn. At most 1 request to this
    /// API may be in flight at once."
    Queued {
        /// The attempt that comes next.
        next: u32,
        /// Attempts allowed.
        of: u32,
        /// The most requests to the scope in flight at once.
        limit: u32,
    },
}

impl fmt::Display for Progress<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Progress::InFlight { attempt, of } => write!(f, "Attempt {attempt} of {of}"),
            Progress::Countdown { next, of, left } => write!(
                f,
                "Attempt {next} of {of} in {} s",
                seconds_text(left, Precision::Countdown)
            ),
            Progress::Waiting { next, of, reason } => {
                write!(f, "Waiting before attempt {next} of {of}. ")?;
                wait_words(f, reason)
            }
            Progress::Reason(reason) => wait_words(f, reason),
            Progress::Queued { next, of, limit } => write!(
                f,
                "Attempt {next} of {of} waits its turn. {}",
                in_flight_words(limit)
            ),
        }
    }
}

/// The message the user reads when a read stops, in three typed lines: the
/// [`headline`](Self::headline) (the outcome), the [`last_response`](Self::last_response)
/// line (with the attempts and the elapsed time), then the [`detail`](Self::detail) (what
/// happened to the next request). Its `Display` joins them, one per line. It never claims the
/// service recovered or failed for good. For the contract's wait-exceeds case:
///
/// ```text
/// Stopped: retry budget cannot fit another request.
/// Last response: 429. Attempts: 1 of 3. Elapsed: 2 seconds.
/// The service requested a 30-second delay. No retry was sent.
/// ```
#[derive(Clone, Copy, Debug)]
pub struct StopMessage<'a> {
    report: &'a StopReport,
}

/// One line of a [`StopMessage`]; its `Display` is the sentence.
#[derive(Clone, Copy, Debug)]
pub struct MessageLine<'a> {
    report: &'a StopReport,
    line: Line,
}

/// Which line of the message.
#[derive(Clone, Copy, Debug)]
enum Line {
    Headline,
    LastResponse,
    Detail,
}

impl StopReport {
    /// The message the user reads ([`StopMessage`]).
    pub fn message(&self) -> StopMessage<'_> {
        StopMessage { report: self }
    }
}

impl<'a> StopMessage<'a> {
    /// The outcome: "Stopped: retry budget cannot fit another request."
    pub fn headline(self) -> MessageLine<'a> {
        self.line(Line::Headline)
    }

    /// The last response, the attempts and the elapsed time: "Last response: 429. Attempts:
    /// 1 of 3. Elapsed: 2 seconds."
    pub fn last_response(self) -> MessageLine<'a> {
        self.line(Line::LastResponse)
    }

    /// What happened to the next request, or why none was sent; none for a read that
    /// succeeded.
    pub fn detail(self) -> Option<MessageLine<'a>> {
        (self.report.outcome != Outcome::Succeeded).then(|| self.line(Line::Detail))
    }

    /// The lines, in order.
    pub fn lines(self) -> impl Iterator<Item = MessageLine<'a>> {
        [self.headline(), self.last_response()]
            .into_iter()
            .chain(self.detail())
    }

    fn line(self, line: Line) -> MessageLine<'a> {
        MessageLine {
            report: self.report,
            line,
        }
    }
}

impl fmt::Display for StopMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, line) in self.lines().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            line.fmt(f)?;
        }
        Ok(())
    }
}

impl fmt::Display for MessageLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.report;
        match self.line {
            Line::Headline => headline(f, r),
            Line::LastResponse => {
                match &r.last_response {
                    Some(last) => write!(f, "Last response: {}.", last.status)?,
                    None => f.write_str("Last response: none.")?,
                }
                write!(
                    f,
                    " Attempts: {} of {}. Elapsed: {}.",
                    r.attempts,
                    r.max_attempts,
                    seconds_words(r.at)
                )
            }
            Line::Detail => detail(f, r),
        }
    }
}

/// The first line: how the read ended.
fn headline(f: &mut fmt::Formatter<'_>, r: &StopReport) -> fmt::Result {
    match r.outcome {
        Outcome::Succeeded => f.write_str("Loaded."),
        Outcome::BudgetExhausted(Overrun::Scope(HeldBy::MaxWaiting { .. })) => {
            f.write_str("Stopped: too many reads are waiting on this API.")
        }
        Outcome::BudgetExhausted(_) => {
            f.write_str("Stopped: retry budget cannot fit another request.")
        }
        Outcome::AttemptsExhausted => {
            write!(f, "Stopped: all {} attempts were used.", r.max_attempts)
        }
        Outcome::UserLeft { .. } => f.write_str("Stopped: you left before the read finished."),
        Outcome::ClockUntrusted { .. } => f.write_str(
            "Stopped: the service named a retry time, and no trusted clock could read it.",
        ),
        Outcome::NonRetryableResponse { status } => write!(
            f,
            "Stopped: the service answered {status}, which is not retried."
        ),
        Outcome::TransportFailure(_) => {
            f.write_str("Stopped: the request failed before any answer arrived.")
        }
        Outcome::AttemptTimedOut { cap } => write!(
            f,
            "Stopped: the service did not answer within {}.",
            seconds_words(cap)
        ),
        Outcome::UnreadableResponse(_) => {
            f.write_str("Stopped: the service answered, but not with data this screen can use.")
        }
    }
}

/// The third line: what happened to the next request, and why.
fn detail(f: &mut fmt::Formatter<'_>, r: &StopReport) -> fmt::Result {
    let no_retry = match r.attempts {
        0 => "No request was sent.",
        1 => "No retry was sent.",
        _ => "No further retry was sent.",
    };
    match r.outcome {
        Outcome::Succeeded => Ok(()),
        Outcome::BudgetExhausted(overrun) => {
            overrun_words(f, overrun)?;
            write!(f, " {no_retry}")
        }
        Outcome::AttemptsExhausted => {
            f.write_str("The service was still asking to slow down when the last attempt ended.")
        }
        Outcome::UserLeft {
            cancelled: Cancelled::InFlight,
        } => f.write_str(
            "The request in flight was cancelled; the service may still have processed it.",
        ),
        Outcome::UserLeft {
            cancelled: Cancelled::Pending,
        } => f.write_str("The pending retry was cancelled; no further request was sent."),
        Outcome::ClockUntrusted { date } => {
            write!(f, "The service asked to retry after {date}. {no_retry}")
        }
        Outcome::NonRetryableResponse { .. } => f.write_str("You can try again."),
        Outcome::TransportFailure(failure) => write!(f, "{failure} {no_retry}"),
        Outcome::AttemptTimedOut { .. } => f.write_str(
            "The request was cancelled at its time limit; the service may still have processed \
             it.",
        ),
        Outcome::UnreadableResponse(problem) => write!(f, "{problem} {no_retry}"),
    }
}

/// Why the next attempt could not fit the budget.
fn overrun_words(f: &mut fmt::Formatter<'_>, overrun: Overrun) -> fmt::Result {
    match overrun {
        Overrun::Scope(HeldBy::Queue { limit }) => write!(
            f,
            "{} Its turn did not come while the next attempt could still fit this read's budget.",
            in_flight_words(limit)
        ),
        Overrun::Scope(HeldBy::MaxWaiting { max: 1 }) => f.write_str(
            "1 read on this API is already waiting. This one would have been the next, so it was \
             not started.",
        ),
        Overrun::Scope(HeldBy::MaxWaiting { max }) => write!(
            f,
            "{max} reads on this API are already waiting. This one would have been the next, so \
             it was not started."
        ),
        Overrun::Scope(HeldBy::RetryTokens) => f.write_str(
            "Too many recent requests to this API needed a retry; retries resume as requests \
             succeed.",
        ),
        Overrun::Scope(HeldBy::Block {
            wait,
            cause: BlockCause::TooManyRequests,
        }) => write!(
            f,
            "The service asked every request to this API to wait, and that wait ends in {}, past \
             this read's budget.",
            seconds_words(wait)
        ),
        Overrun::Scope(HeldBy::Block {
            wait,
            cause: BlockCause::QuotaSpent,
        }) => write!(
            f,
            "This API's quota is used up, and it resets in {}, past this read's budget.",
            seconds_words(wait)
        ),
        // A saturated delay says "at least" rather than print a false number.
        Overrun::ServerDelay(delay) if delay.as_secs() == u64::MAX => write!(
            f,
            "The service requested a delay of at least {} seconds.",
            u64::MAX
        ),
        Overrun::ServerDelay(delay) => write!(
            f,
            "The service requested a {}-second delay.",
            seconds_text(delay, Precision::Exact)
        ),
        Overrun::WokeLate(late) => write!(
            f,
            "The wait ended {} late, too late to fit another attempt.",
            seconds_words(late)
        ),
        Overrun::LocalWait => f.write_str("The local wait before the next attempt would not fit."),
    }
}

/// The timeline picture's title.
pub(crate) fn timeline_title() -> String {
    "Timeline of the read: attempts, waits, the reserved cap and the deadline".to_owned()
}

/// The timeline picture's description, for screen readers: the whole action in one sentence.
/// `at` is the stop (or now), `outcome` `None` while it runs.
pub(crate) fn timeline_summary(
    attempts: usize,
    max_attempts: u32,
    at: Duration,
    budget: Duration,
    outcome: Option<OutcomeKind>,
) -> String {
    let end = match outcome {
        Some(o) => format!("stopped {}", o.name()),
        None => "still running".to_owned(),
    };
    format!(
        "{attempts} of {max_attempts} attempts in {} of a {}-second budget; {end}.",
        seconds_words(at),
        seconds_text(budget, Precision::Exact)
    )
}

/// A wait's label on the timeline: why it is this long, briefly.
pub(crate) fn wait_label(reason: &WaitReason) -> String {
    let s = |d: Duration| seconds_text(d, Precision::Exact);
    match reason {
        WaitReason::ServerDelay(d) => format!("server asked {} s", s(*d)),
        WaitReason::ServerDate { delay, .. } => format!("server date, {} s", s(*delay)),
        WaitReason::Fallback { wait, .. } => format!("fallback {} s", s(*wait)),
        WaitReason::ScopeBlocked { wait, .. } => format!("API blocked, {} s", s(*wait)),
    }
}

/// How late a wait's timer woke, on the timeline.
pub(crate) fn late_label(late: Duration) -> String {
    format!("woke {} s late", seconds_text(late, Precision::Millis))
}

/// The deadline's label on the timeline.
pub(crate) fn deadline_label(budget: Duration) -> String {
    format!("deadline {} s", seconds_text(budget, Precision::Exact))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headers::HttpDate;
    use crate::report::{LastResponse, TransportFailure};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn report(outcome: Outcome) -> StopReport {
        StopReport {
            outcome,
            at: Duration::from_secs(2),
            attempts: 1,
            max_attempts: 3,
            last_response: Some(LastResponse {
                status: 429,
                retry_after: Some("30".into()),
                note: None,
            }),
            request_time: Duration::from_secs(2),
            waited_time: Duration::ZERO,
        }
    }

    fn lines(r: &StopReport) -> Vec<String> {
        r.message().lines().map(|l| l.to_string()).collect()
    }

    /// One outcome of each kind, with facts.
    fn every_outcome() -> [Outcome; 9] {
        [
            Outcome::Succeeded,
            Outcome::BudgetExhausted(Overrun::LocalWait),
            Outcome::AttemptsExhausted,
            Outcome::UserLeft {
                cancelled: Cancelled::Pending,
            },
            Outcome::ClockUntrusted {
                date: HttpDate::parse("Mon, 01 Jan 2024 12:00:06 GMT").unwrap(),
            },
            Outcome::NonRetryableResponse { status: 503 },
            Outcome::TransportFailure(TransportFailure::Network),
            Outcome::AttemptTimedOut {
                cap: Duration::from_secs(4),
            },
            Outcome::UnreadableResponse(BodyProblem::Empty),
        ]
    }

    #[test]
    fn the_contracts_wait_exceeds_message() {
        let r = report(Outcome::BudgetExhausted(Overrun::ServerDelay(
            Duration::from_secs(30),
        )));
        assert_eq!(
            r.message().to_string(),
            "Stopped: retry budget cannot fit another request.\n\
             Last response: 429. Attempts: 1 of 3. Elapsed: 2 seconds.\n\
             The service requested a 30-second delay. No retry was sent."
        );
        assert_eq!(
            r.message().headline().to_string(),
            "Stopped: retry budget cannot fit another request."
        );
    }

    #[test]
    fn every_outcome_keeps_the_last_response_on_its_own_line() {
        let kinds: Vec<OutcomeKind> = every_outcome().iter().map(Outcome::kind).collect();
        assert_eq!(kinds, OutcomeKind::ALL);
        for o in every_outcome() {
            let lines = lines(&report(o));
            assert_eq!(
                lines[1],
                "Last response: 429. Attempts: 1 of 3. Elapsed: 2 seconds."
            );
            assert_eq!(lines.len(), if o == Outcome::Succeeded { 2 } else { 3 });
            assert!(!lines[0].contains("429"), "{}", lines[0]);
            for l in &lines {
                assert!(
                    !l.contains("recovered") && !l.contains("permanently"),
                    "{l}"
                );
            }
        }
    }

    #[test]
    fn no_response_says_none() {
        let mut r = report(Outcome::TransportFailure(TransportFailure::Network));
        r.last_response = None;
        assert_eq!(
            lines(&r),
            [
                "Stopped: the request failed before any answer arrived.",
                "Last response: none. Attempts: 1 of 3. Elapsed: 2 seconds.",
                "The request failed on the network. A rate limiter that sends no CORS headers \
                 looks the same to a browser. No retry was sent.",
            ]
        );
    }

    #[test]
    fn seconds_read_naturally() {
        assert_eq!(seconds_words(Duration::from_secs(1)), "1 second");
        assert_eq!(seconds_words(Duration::from_millis(2500)), "2.5 seconds");
        assert_eq!(seconds_words(Duration::ZERO), "0 seconds");
        assert_eq!(seconds_words(Duration::from_millis(2013)), "2 seconds");
        assert_eq!(seconds_words(Duration::from_millis(999)), "1 second");
    }

    #[test]
    fn the_countdown_rounds_up_to_whole_seconds() {
        let countdown = |ms| {
            Progress::Countdown {
                next: 2,
                of: 3,
                left: Duration::from_millis(ms),
            }
            .to_string()
        };
        assert_eq!(countdown(2001), "Attempt 2 of 3 in 3 s");
        assert_eq!(countdown(1), "Attempt 2 of 3 in 1 s");
        let in_flight = Progress::InFlight { attempt: 1, of: 3 };
        assert_eq!(in_flight.to_string(), "Attempt 1 of 3");
    }

    #[test]
    fn an_unreadable_body_says_where_never_what() {
        let mut r = report(Outcome::UnreadableResponse(BodyProblem::WrongShape {
            line: 1,
            column: 17,
        }));
        r.last_response = Some(LastResponse {
            status: 200,
            retry_after: None,
            note: None,
        });
        assert_eq!(
            lines(&r),
            [
                "Stopped: the service answered, but not with data this screen can use.",
                "Last response: 200. Attempts: 1 of 3. Elapsed: 2 seconds.",
                "Its body is JSON, but not of the shape expected (line 1, column 17). \
                 No retry was sent.",
            ]
        );
        r.outcome = Outcome::UnreadableResponse(BodyProblem::TooLarge { limit: 1 << 20 });
        r.attempts = 2;
        assert_eq!(
            lines(&r)[2],
            "Its body is larger than 1 MiB, so reading stopped there. No further retry was sent."
        );
        assert_eq!(BodyProblem::Empty.to_string(), "Its answer had no body.");
    }

    #[test]
    fn sizes_read_exactly() {
        assert_eq!(bytes_words(1 << 20), "1 MiB");
        assert_eq!(bytes_words(3 << 20), "3 MiB");
        assert_eq!(bytes_words(64 << 10), "64 KiB");
        assert_eq!(bytes_words(1_000_000), "1000000 bytes");
        assert_eq!(bytes_words((1 << 20) + 1024), "1025 KiB");
        assert_eq!(bytes_words(1), "1 byte");
        assert_eq!(bytes_words(0), "0 bytes");
    }

    #[test]
    fn a_huge_delay_is_not_printed_as_a_false_number() {
        let r = report(Outcome::BudgetExhausted(Overrun::ServerDelay(
            Duration::from_secs(u64::MAX),
        )));
        assert_eq!(
            lines(&r)[2],
            format!(
                "The service requested a delay of at least {} seconds. No retry was sent.",
                u64::MAX
            )
        );
    }
}
