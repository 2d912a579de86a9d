//! The timeline of one read action as a picture, drawn from its trace and nothing else: where
//! the attempts ran, the cap reserved before each start, how long each wait was and why, how
//! late its timer woke, where the deadline is, and how the action stopped.
//!
//! [`Timeline::from_trace`] lays it out as plain data (times in seconds of elapsed time, so tests
//! read positions directly); [`Timeline::to_svg`] draws it as one self-contained SVG. The same
//! function draws the `Timeline` component of `leptos-retry-budget`, the demo's Scenarios page
//! and `replay --svg`, natively and in wasm.

use std::fmt::Write;
use std::time::Duration;

use crate::action::WaitReason;
use crate::report::{OutcomeKind, StopReport};
use crate::trace::{Event, Failure, TraceEvent};
use crate::words::{self, seconds_text, Precision};

/// The picture's width in SVG units; it scales to its container.
pub const WIDTH: f64 = 720.0;
/// The picture's height in SVG units.
pub const HEIGHT: f64 = 136.0;
const LEFT: f64 = 28.0;
const RIGHT: f64 = 24.0;
const BAR_Y: f64 = 38.0;
const BAR_H: f64 = 20.0;
const AXIS_Y: f64 = 96.0;
/// How late a wake must be for the picture to say so in words.
const LATE_WORTH_A_LABEL: Duration = Duration::from_millis(100);
/// The longest `Retry-After` value a label shows whole (the full value is the bar's tooltip).
const LABEL_VALUE: usize = 12;

/// Places labels on two rows so that none overlaps the one before it on its row.
struct Rows {
    ys: [f64; 2],
    ends: [f64; 2],
}

impl Rows {
    fn new(ys: [f64; 2]) -> Self {
        Rows {
            ys,
            ends: [f64::MIN; 2],
        }
    }

    /// The row for a label of `text` starting at `x`: the first with room, else the one that
    /// ends first.
    fn place(&mut self, x: f64, text: &str) -> f64 {
        // About 6 units a character at font-size 11, and a gap.
        let end = x + 6.2 * text.chars().count() as f64 + 6.0;
        let row = (0..2)
            .find(|r| self.ends[*r] <= x)
            .unwrap_or(if self.ends[0] <= self.ends[1] { 0 } else { 1 });
        self.ends[row] = end;
        self.ys[row]
    }
}

/// One read action, laid out from its trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Timeline {
    /// The total budget: where the deadline stands.
    pub budget: Duration,
    /// The per-attempt cap, reserved before every start.
    pub cap: Duration,
    /// Attempts allowed.
    pub max_attempts: u32,
    /// Every attempt started, in order.
    pub attempts: Vec<AttemptBar>,
    /// Every wait planned, in order.
    pub waits: Vec<WaitSpan>,
    /// How the action stopped, once it has.
    pub stop: Option<StopMark>,
    /// The elapsed time now, while the action runs and it is known.
    pub now: Option<Duration>,
    /// The right end of the time axis: the budget, or later where something happened later.
    pub end: Duration,
}

/// An attempt: from its start to its end, with the cap reserved for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttemptBar {
    /// Which attempt (1-based).
    pub number: u32,
    /// When it started.
    pub start: Duration,
    /// When it ended (its receipt, failure, abort or the user leaving); `None` while in flight.
    pub end: Option<Duration>,
    /// How it ended.
    pub answer: BarAnswer,
    /// `start + cap`: the end of the time reserved for it.
    pub cap_end: Duration,
}

/// How an attempt ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BarAnswer {
    /// A response, with its `Retry-After` as received.
    Status {
        /// The status.
        status: u16,
        /// `Retry-After`, as received.
        retry_after: Option<String>,
    },
    /// The network failed.
    Failed,
    /// Aborted at its cap.
    TimedOut,
    /// The user left while it was in flight.
    Left,
    /// Still in flight.
    InFlight,
}

/// A wait between attempts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitSpan {
    /// When it began (the receipt that planned it).
    pub from: Duration,
    /// Its planned end.
    pub planned_until: Duration,
    /// Why it is this long.
    pub reason: WaitReason,
    /// When it really ended: its timer's wake, or the stop that cut it short; `None` while waiting.
    pub ended: Option<Duration>,
    /// How late its timer woke (zero when on time or cut short).
    pub late: Duration,
}

/// Where the action stopped, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopMark {
    /// When.
    pub at: Duration,
    /// The outcome's kind.
    pub outcome: OutcomeKind,
    /// The server's requested delay, where it decided the stop (drawn running past the deadline).
    pub requested: Option<Duration>,
}

impl Timeline {
    /// Lays out a trace; `now` is the elapsed time now, for a live action (`None` once stopped or
    /// when unknown). `None` for a trace without its `ActionStarted` event.
    pub fn from_trace(trace: &[TraceEvent], now: Option<Duration>) -> Option<Timeline> {
        let Some(Event::ActionStarted {
            budget,
            max_attempts,
            attempt_cap,
        }) = trace.first().map(|t| &t.event)
        else {
            return None;
        };
        let mut t = Timeline {
            budget: *budget,
            cap: *attempt_cap,
            max_attempts: *max_attempts,
            attempts: Vec::new(),
            waits: Vec::new(),
            stop: None,
            now: None,
            end: *budget,
        };
        for e in trace {
            let at = e.at;
            match &e.event {
                // A queued attempt's time shows as the gap before its bar. The attempts made
                // before a hand-over were traced elsewhere: the picture starts with the wait
                // that follows it.
                Event::ActionStarted { .. }
                | Event::ResponseDropped { .. }
                | Event::Queued { .. }
                | Event::HandedOver { .. }
                | Event::MovedOn => {}
                Event::AttemptStarted { attempt } => t.attempts.push(AttemptBar {
                    number: *attempt,
                    start: at,
                    end: None,
                    answer: BarAnswer::InFlight,
                    cap_end: at + t.cap,
                }),
                Event::ResponseReceived {
                    status,
                    retry_after,
                    ..
                } => t.end_attempt(
                    at,
                    BarAnswer::Status {
                        status: *status,
                        retry_after: retry_after.clone(),
                    },
                ),
                Event::AttemptFailed { failure, .. } => t.end_attempt(
                    at,
                    match failure {
                        Failure::Transport(_) => BarAnswer::Failed,
                        Failure::TimedOut => BarAnswer::TimedOut,
                    },
                ),
                Event::WaitPlanned { wait, reason, .. } => {
                    // A scope's block that lengthens a wait ends the wait planned before it.
                    if let Some(w) = t.waits.last_mut().filter(|w| w.ended.is_none()) {
                        w.ended = Some(at);
                    }
                    t.waits.push(WaitSpan {
                        from: at,
                        planned_until: at + *wait,
                        reason: reason.clone(),
                        ended: None,
                        late: Duration::ZERO,
                    })
                }
                Event::TimerWoke { late } => {
                    if let Some(w) = t.waits.last_mut().filter(|w| w.ended.is_none()) {
                        w.ended = Some(at);
                        w.late = *late;
                    }
                }
                Event::Stopped(report) => t.stopped(at, report),
            }
        }
        t.now = now.filter(|_| t.stop.is_none());
        let latest = trace.iter().map(|e| e.at).chain(t.now).max();
        t.end = t.end.max(latest.unwrap_or_default());
        Some(t)
    }

    fn end_attempt(&mut self, at: Duration, answer: BarAnswer) {
        if let Some(a) = self.attempts.last_mut().filter(|a| a.end.is_none()) {
            a.end = Some(at);
            a.answer = answer;
        }
    }

    fn stopped(&mut self, at: Duration, report: &StopReport) {
        if report.outcome.kind() == OutcomeKind::UserLeft {
            self.end_attempt(at, BarAnswer::Left);
        }
        if let Some(w) = self.waits.last_mut().filter(|w| w.ended.is_none()) {
            w.ended = Some(at);
        }
        self.stop = Some(StopMark {
            at,
            outcome: report.outcome.kind(),
            requested: report.outcome.requested_delay(),
        });
    }

    /// The whole action in one sentence, for screen readers (the picture's `<desc>`).
    pub fn summary(&self) -> String {
        let at = self
            .stop
            .as_ref()
            .map(|m| m.at)
            .or(self.now)
            .unwrap_or_default();
        words::timeline_summary(
            self.attempts.len(),
            self.max_attempts,
            at,
            self.budget,
            self.stop.as_ref().map(|m| m.outcome),
        )
    }

    /// The horizontal position of elapsed time `t`, in SVG units.
    pub fn x(&self, t: Duration) -> f64 {
        let span = self.end.as_secs_f64();
        let frac = if span > 0.0 {
            (t.as_secs_f64() / span).min(1.0)
        } else {
            0.0
        };
        LEFT + frac * (WIDTH - LEFT - RIGHT)
    }

    /// The tick step of the axis: whole seconds, at most 20 ticks.
    pub fn tick_step(&self) -> Duration {
        const STEPS: [u64; 16] = [
            1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 43200, 86400,
        ];
        let span = self.end.as_secs_f64();
        let step = STEPS
            .into_iter()
            .find(|s| span / *s as f64 <= 20.0)
            .unwrap_or_else(|| (span / 20.0).ceil() as u64);
        Duration::from_secs(step.max(1))
    }

    /// The picture as one SVG document. `id` keeps its pattern's name apart from other
    /// timelines on the same page (only ASCII letters, digits, `-` and `_` of it are used).
    pub fn to_svg(&self, id: &str) -> String {
        let id: String = id
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
            .collect();
        let hatch = format!("cap-hatch-{id}");
        let mut s = String::new();
        let _ = write!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" role="img" aria-labelledby="{id}-title {id}-desc" font-family="system-ui, sans-serif" font-size="11" class="timeline">"#
        );
        let _ = write!(
            s,
            r#"<title id="{id}-title">{}</title><desc id="{id}-desc">{}</desc>"#,
            esc(&words::timeline_title()),
            esc(&self.summary()),
        );
        let _ = write!(
            s,
            r##"<defs><pattern id="{hatch}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#eef1f4"/><line x1="0" y1="0" x2="0" y2="6" stroke="#8a97a6" stroke-width="2"/></pattern></defs>"##
        );
        self.axis(&mut s);
        let mut above = Rows::new([BAR_Y - 5.0, BAR_Y - 17.0]);
        for a in &self.attempts {
            self.attempt(&mut s, a, &hatch, &mut above);
        }
        let mut below = Rows::new([BAR_Y + BAR_H + 13.0, BAR_Y + BAR_H + 25.0]);
        for w in &self.waits {
            self.wait(&mut s, w, &mut below);
        }
        self.deadline(&mut s);
        if let Some(now) = self.now {
            let x = self.x(now);
            let _ = write!(
                s,
                r##"<g data-kind="now"><line x1="{x:.1}" y1="{y1}" x2="{x:.1}" y2="{AXIS_Y}" stroke="#1f6f8b" stroke-width="1.5"/><text x="{x:.1}" y="{y1}" text-anchor="middle" fill="#1f6f8b">now</text></g>"##,
                y1 = BAR_Y - 12.0,
            );
        }
        if let Some(stop) = &self.stop {
            self.stop_mark(&mut s, stop);
        }
        s.push_str("</svg>");
        s
    }

    fn axis(&self, s: &mut String) {
        let (x0, x1) = (self.x(Duration::ZERO), self.x(self.end));
        let _ = write!(
            s,
            r##"<g data-kind="axis" fill="#5b6b7c"><line x1="{x0:.1}" y1="{AXIS_Y}" x2="{x1:.1}" y2="{AXIS_Y}" stroke="#8a97a6"/>"##
        );
        let step = self.tick_step();
        let mut t = Duration::ZERO;
        while t <= self.end {
            let x = self.x(t);
            // The last tick carries the unit.
            let unit = if t + step > self.end { " s" } else { "" };
            let _ = write!(
                s,
                r##"<line data-kind="tick" x1="{x:.1}" y1="{AXIS_Y}" x2="{x:.1}" y2="{}" stroke="#8a97a6"/><text x="{x:.1}" y="{}" text-anchor="middle">{}{unit}</text>"##,
                AXIS_Y + 4.0,
                AXIS_Y + 15.0,
                seconds_text(t, Precision::Exact),
            );
            t += step;
        }
        s.push_str("</g>");
    }

    fn attempt(&self, s: &mut String, a: &AttemptBar, hatch: &str, rows: &mut Rows) {
        let x = self.x(a.start);
        let end = a.end.or(self.now).unwrap_or(a.start);
        let x_end = self.x(end);
        let x_cap = self.x(a.cap_end);
        let (fill, label, full) = match &a.answer {
            BarAnswer::Status {
                status,
                retry_after,
            } => (
                status_colour(*status),
                match retry_after {
                    Some(v) if v.chars().count() > LABEL_VALUE => format!(
                        "{status} · Retry-After {}…",
                        v.chars().take(LABEL_VALUE).collect::<String>()
                    ),
                    Some(v) => format!("{status} · Retry-After {v}"),
                    None => status.to_string(),
                },
                match retry_after {
                    Some(v) => format!("attempt {}: {status}, Retry-After: {v}", a.number),
                    None => format!("attempt {}: {status}", a.number),
                },
            ),
            BarAnswer::Failed => ("#6b7785", "network failed".to_owned(), String::new()),
            BarAnswer::TimedOut => ("#6b7785", "aborted at the cap".to_owned(), String::new()),
            BarAnswer::Left => ("#6b7785", "left".to_owned(), String::new()),
            BarAnswer::InFlight => ("#1f6f8b", format!("attempt {}", a.number), String::new()),
        };
        let full = if full.is_empty() {
            format!("attempt {}: {label}", a.number)
        } else {
            full
        };
        let ly = rows.place(x, &label);
        let _ = write!(
            s,
            r##"<g data-kind="attempt" data-attempt="{n}"><title>{full}</title><rect data-kind="cap" x="{x_end:.1}" y="{BAR_Y}" width="{w_cap:.1}" height="{BAR_H}" fill="url(#{hatch})" stroke="#8a97a6" stroke-dasharray="2 2"/><rect data-kind="bar" x="{x:.1}" y="{BAR_Y}" width="{w:.1}" height="{BAR_H}" rx="2" fill="{fill}"/><text x="{x:.1}" y="{ly}">{label}</text></g>"##,
            n = a.number,
            w_cap = (x_cap - x_end).max(0.0),
            w = (x_end - x).max(1.0),
            label = esc(&label),
            full = esc(&full),
        );
    }

    fn wait(&self, s: &mut String, w: &WaitSpan, rows: &mut Rows) {
        let y = BAR_Y + BAR_H / 2.0;
        let (x0, x_plan) = (self.x(w.from), self.x(w.planned_until));
        // A wait cut short (the user left) is drawn to its stop; the rest of the plan, faintly.
        let waited_to = w
            .ended
            .or(self.now)
            .map_or(x_plan, |t| self.x(t).min(x_plan));
        let label = words::wait_label(&w.reason);
        let ly = rows.place(x0, &label);
        let _ = write!(
            s,
            r##"<g data-kind="wait"><line x1="{x0:.1}" y1="{y}" x2="{waited_to:.1}" y2="{y}" stroke="#1c2a39" stroke-width="1.5" stroke-dasharray="4 3"/><line x1="{waited_to:.1}" y1="{y}" x2="{x_plan:.1}" y2="{y}" stroke="#1c2a39" stroke-opacity="0.3" stroke-width="1.5" stroke-dasharray="4 3"/><line x1="{x_plan:.1}" y1="{a}" x2="{x_plan:.1}" y2="{b}" stroke="#1c2a39"/><text x="{x0:.1}" y="{ly}">{label}</text>"##,
            a = y - 5.0,
            b = y + 5.0,
            label = esc(&label),
        );
        if !w.late.is_zero() {
            let x_woke = self.x(w.planned_until + w.late);
            let _ = write!(
                s,
                r##"<line data-kind="late" x1="{x_plan:.1}" y1="{y}" x2="{x_woke:.1}" y2="{y}" stroke="#b3261e" stroke-width="3"/>"##
            );
            // A few milliseconds late is every timer's jitter: drawn, but not labelled.
            if w.late >= LATE_WORTH_A_LABEL {
                let late = words::late_label(w.late);
                let ly = rows.place(x_plan, &late);
                let _ = write!(
                    s,
                    r##"<text x="{x_plan:.1}" y="{ly}" fill="#b3261e">{}</text>"##,
                    esc(&late)
                );
            }
        }
        s.push_str("</g>");
    }

    fn deadline(&self, s: &mut String) {
        let x = self.x(self.budget);
        let _ = write!(
            s,
            r##"<g data-kind="deadline"><line x1="{x:.1}" y1="14" x2="{x:.1}" y2="{}" stroke="#8a2d1c" stroke-width="1.5"/><text x="{x:.1}" y="11" text-anchor="end" fill="#8a2d1c">{}</text></g>"##,
            AXIS_Y + 4.0,
            esc(&words::deadline_label(self.budget)),
        );
    }

    fn stop_mark(&self, s: &mut String, stop: &StopMark) {
        let x = self.x(stop.at);
        let y = BAR_Y + BAR_H / 2.0;
        let _ = write!(
            s,
            r##"<g data-kind="stop" data-outcome="{o}">"##,
            o = stop.outcome.name()
        );
        if let Some(asked) = stop.requested {
            // The delay the server asked for runs on past the deadline: that is why it stopped.
            let x_to = self.x(stop.at.saturating_add(asked));
            let _ = write!(
                s,
                r##"<line data-kind="requested" x1="{x:.1}" y1="{y}" x2="{x_to:.1}" y2="{y}" stroke="#8a2d1c" stroke-dasharray="1 3" stroke-width="1.5"/><path d="M{x_to:.1},{y} l-6,-4 v8 z" fill="#8a2d1c"/>"##
            );
        }
        let _ = write!(
            s,
            r##"<path d="M{x:.1},{a} l6,8 l-6,8 l-6,-8 z" fill="#1c2a39"/><text x="{x:.1}" y="{ty}" text-anchor="{anchor}" font-weight="600">{o}</text></g>"##,
            a = y - 8.0,
            ty = AXIS_Y + 31.0,
            anchor = if x > WIDTH / 2.0 { "end" } else { "start" },
            o = stop.outcome.name(),
        );
    }
}

fn status_colour(status: u16) -> &'static str {
    match status {
        200..=299 => "#2e7d32",
        400..=499 => "#c77700",
        500..=599 => "#b3261e",
        _ => "#6b7785",
    }
}

/// Text made safe for SVG (XML) content and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_clock::s;
    use crate::{ReadAction, Response, RetryPolicy};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Schedule A: 429 (3 s) at 2, 429 (4 s) at 7, 200 at 14.
    fn schedule_a() -> Vec<TraceEvent> {
        let mut a = ReadAction::start(s(0), RetryPolicy::new()).unwrap();
        a.handle_response(s(2), &Response::new(429).retry_after("3"), None);
        a.handle_timeout(s(5));
        a.handle_response(s(7), &Response::new(429).retry_after("4"), None);
        a.handle_timeout(s(11));
        a.handle_response(s(14), &Response::new(200), None);
        a.trace().to_vec()
    }

    #[test]
    fn bars_end_at_their_receipts_and_hatches_at_start_plus_cap() {
        let t = Timeline::from_trace(&schedule_a(), None).unwrap();
        let spans: Vec<_> = t
            .attempts
            .iter()
            .map(|a| (a.start, a.end, a.cap_end))
            .collect();
        assert_eq!(
            spans,
            [
                (s(0), Some(s(2)), s(4)),
                (s(5), Some(s(7)), s(9)),
                (s(11), Some(s(14)), s(15)),
            ]
        );
        let waits: Vec<_> = t
            .waits
            .iter()
            .map(|w| (w.from, w.planned_until, w.ended))
            .collect();
        assert_eq!(
            waits,
            [(s(2), s(5), Some(s(5))), (s(7), s(11), Some(s(11)))]
        );
        assert_eq!(
            t.stop.as_ref().map(|m| (m.at, m.outcome)),
            Some((s(14), OutcomeKind::Succeeded))
        );
        assert_eq!(t.end, s(20), "the axis runs to the budget");
    }

    #[test]
    fn the_svg_places_every_element_where_the_trace_says() {
        let t = Timeline::from_trace(&schedule_a(), None).unwrap();
        let svg = t.to_svg("a");
        assert_eq!(svg.matches(r#"data-kind="attempt""#).count(), 3);
        assert_eq!(svg.matches(r#"data-kind="wait""#).count(), 2);
        assert_eq!(
            svg.matches(r#"data-kind="tick""#).count(),
            21,
            "0..=20 s, one a second"
        );
        // The deadline at 20 s is the right end of the plot; 10 s is halfway.
        let deadline = format!(r#"<line x1="{:.1}" y1="14""#, WIDTH - RIGHT);
        assert!(svg.contains(&deadline), "{svg}");
        assert_eq!(t.x(s(10)), LEFT + (WIDTH - LEFT - RIGHT) / 2.0);
        // Attempt 3's bar runs from 11 s to its receipt at 14 s; its hatch from 14 s to 15 s.
        let bar = format!(
            r#"<rect data-kind="bar" x="{:.1}" y="{BAR_Y}" width="{:.1}""#,
            t.x(s(11)),
            t.x(s(14)) - t.x(s(11))
        );
        assert!(svg.contains(&bar), "{svg}");
        let cap = format!(
            r#"<rect data-kind="cap" x="{:.1}" y="{BAR_Y}" width="{:.1}""#,
            t.x(s(14)),
            t.x(s(15)) - t.x(s(14))
        );
        assert!(svg.contains(&cap), "{svg}");
        assert!(svg.contains("<title id=\"a-title\">"));
        assert!(svg.contains(r#"data-outcome="succeeded""#));
    }

    #[test]
    fn a_late_wake_and_a_cut_off_delay_are_visible() {
        let mut a = ReadAction::start(s(0), RetryPolicy::new()).unwrap();
        a.handle_response(s(2), &Response::new(429).retry_after("3"), None);
        a.handle_timeout(s(15));
        let t = Timeline::from_trace(a.trace(), None).unwrap();
        assert_eq!(t.waits[0].late, s(10));
        assert!(t.to_svg("late").contains(r#"data-kind="late""#));

        let mut a = ReadAction::start(s(0), RetryPolicy::new()).unwrap();
        a.handle_response(s(2), &Response::new(429).retry_after("30"), None);
        let t = Timeline::from_trace(a.trace(), None).unwrap();
        assert_eq!(t.stop.as_ref().and_then(|m| m.requested), Some(s(30)));
        let svg = t.to_svg("cut");
        assert!(svg.contains(r#"data-kind="requested""#));
        assert!(svg.contains(r#"data-outcome="budget_exhausted""#));
    }

    #[test]
    fn a_live_action_shows_now_and_its_attempt_in_flight() {
        let mut a = ReadAction::start(s(0), RetryPolicy::new()).unwrap();
        a.handle_response(s(2), &Response::new(429).retry_after("8"), None);
        let t = Timeline::from_trace(a.trace(), Some(s(6))).unwrap();
        assert_eq!(t.now, Some(s(6)));
        assert_eq!(t.waits[0].ended, None);
        assert!(t.to_svg("live").contains(r#"data-kind="now""#));
    }

    #[test]
    fn server_text_is_escaped() {
        let mut a = ReadAction::start(s(0), RetryPolicy::new()).unwrap();
        a.handle_response(s(2), &Response::new(429).retry_after("<script>&\""), None);
        let svg = Timeline::from_trace(a.trace(), None)
            .unwrap()
            .to_svg("x\"><y");
        assert!(!svg.contains("<script>"), "{svg}");
        assert!(
            svg.contains("Retry-After: &lt;script&gt;&amp;&quot;"),
            "{svg}"
        );
        assert!(svg.contains("cap-hatch-xy\""), "{svg}");
    }

    #[test]
    fn a_long_budget_keeps_the_ticks_few() {
        let policy = RetryPolicy::new().with_budget(s(30 * 86_400));
        let a = ReadAction::start(s(0), policy).unwrap();
        let t = Timeline::from_trace(a.trace(), None).unwrap();
        assert!(t.tick_step() >= s(86_400));
        assert!(t.to_svg("long").matches(r#"data-kind="tick""#).count() <= 21);
    }
}
