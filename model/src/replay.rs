//! Replays a case through the budget core on a virtual clock, and compares with `expect`.

use std::time::{Duration, SystemTime};

use serde_json::{json, Map, Value};

use palette_list::body::BodyReader;
use palette_list::budget::{
    is_success, seconds, words, BodyProblem, ClockSource, DropReason, Event, Failure, HeaderNote,
    Phase, Precision, RateLimitFields, ReadAction, Response, ScopeLedger, Step, StopReport,
    TraceEvent, WaitReason,
};
use palette_list::palettes::PaletteCollection;

use crate::fixture::{seconds_to_json as sec_json, Answer, Body, Case, CaseError};

/// What replaying a case produced: the `expect` values, derived from the trace.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The case's id.
    pub id: String,
    /// The policy's budget, for `remaining_at_receipt_s`.
    pub budget: Duration,
    /// The whole trace.
    pub trace: Vec<TraceEvent>,
    /// The stop report.
    pub report: StopReport,
}

impl Replay {
    /// Each attempt's start.
    pub fn starts(&self) -> Vec<Duration> {
        self.events()
            .filter_map(|(at, e)| matches!(e, Event::AttemptStarted { .. }).then_some(at))
            .collect()
    }

    /// Each used response's receipt.
    pub fn receipts(&self) -> Vec<Duration> {
        self.events()
            .filter_map(|(at, e)| matches!(e, Event::ResponseReceived { .. }).then_some(at))
            .collect()
    }

    /// Each receipt's wall-clock time, where there was evidence.
    pub fn receipt_wall_clock(&self) -> Vec<Option<(SystemTime, ClockSource)>> {
        self.events()
            .filter_map(|(_, e)| match e {
                Event::ResponseReceived { wall_clock, .. } => Some(*wall_clock),
                _ => None,
            })
            .collect()
    }

    /// Time actually waited: each planned wait up to its wake, or to the stop that cut it.
    pub fn waits(&self) -> Vec<Duration> {
        let mut waits = Vec::new();
        let mut since = None;
        for (at, e) in self.events() {
            match e {
                Event::WaitPlanned { .. } => since = Some(at),
                Event::TimerWoke { .. } | Event::Stopped(_) => {
                    if let Some(s) = since.take() {
                        waits.push(at - s);
                    }
                }
                _ => {}
            }
        }
        waits
    }

    /// What each retryable response's `Retry-After` lacked, in order.
    pub fn header_notes(&self) -> Vec<&HeaderNote> {
        self.events()
            .filter_map(|(_, e)| match e {
                Event::ResponseReceived { note, .. } => note.as_ref(),
                _ => None,
            })
            .collect()
    }

    fn events(&self) -> impl Iterator<Item = (Duration, &Event)> {
        self.trace.iter().map(|t| (t.at, &t.event))
    }

    /// The result as one JSON object with the `expect` key names, plus `trace`.
    pub fn to_json(&self) -> Map<String, Value> {
        let r = &self.report;
        let list = |v: Vec<Duration>| Value::Array(v.into_iter().map(sec_json).collect());
        let mut m = Map::new();
        m.insert("id".into(), json!(self.id));
        m.insert("outcome".into(), json!(r.outcome.name()));
        m.insert("stopped_at_s".into(), sec_json(r.at));
        m.insert("starts_s".into(), list(self.starts()));
        m.insert("receipts_s".into(), list(self.receipts()));
        m.insert(
            "receipt_wall_clock".into(),
            Value::Array(
                self.receipt_wall_clock()
                    .into_iter()
                    .map(|w| w.map_or(Value::Null, |(t, _)| json!(httpdate::fmt_http_date(t))))
                    .collect(),
            ),
        );
        m.insert("waits_s".into(), list(self.waits()));
        m.insert(
            "remaining_at_receipt_s".into(),
            list(
                self.receipts()
                    .into_iter()
                    .map(|t| self.budget.saturating_sub(t))
                    .collect(),
            ),
        );
        m.insert("request_s".into(), sec_json(r.request_time));
        m.insert("waited_s".into(), sec_json(r.waited_time));
        m.insert(
            "last_status".into(),
            r.last_response
                .as_ref()
                .map_or(Value::Null, |l| json!(l.status)),
        );
        m.insert(
            "requested_delay_s".into(),
            r.requested_delay.map_or(Value::Null, sec_json),
        );
        m.insert(
            "header_notes".into(),
            Value::Array(
                self.header_notes()
                    .into_iter()
                    .map(|n| json!(n.kind()))
                    .collect(),
            ),
        );
        m.insert("message".into(), json!(r.message()));
        m.insert(
            "trace".into(),
            Value::Array(self.trace.iter().map(event_json).collect()),
        );
        m
    }
}

/// Replays `case` through the core: a virtual clock jumps from event to event (the user leaving,
/// an answer arriving, the core's one timer), in a loop bounded by the case's size.
///
/// Events at the same instant are taken in this order: the user leaving, then an answer, then
/// the timer. So an answer exactly at the cap counts, and a leave at the instant of an answer
/// wins (the answer is dropped).
pub fn replay(case: &Case) -> Result<Replay, CaseError> {
    let err = |field: &str, problem: String| CaseError {
        case: case.id.clone(),
        field: field.to_owned(),
        problem,
    };
    let mut action =
        ReadAction::start_under(Duration::ZERO, case.client_policy(), None, case.jitter_seed)
            .map_err(|e| err("policy", e.to_string()))?;
    let mut ledger = ScopeLedger::new();
    // The attempt in flight: its index, and when its answer comes (None: never).
    let mut in_flight: Option<(usize, Option<Duration>)> = None;
    let mut leave = case.user_leaves_at;
    let mut waits = 0usize;
    let mut now = Duration::ZERO;
    let bound = 4 * (case.attempts.len() + case.timer_late_by.len()) + 8;
    for _ in 0..bound {
        match action.poll_action() {
            Some(Step::StartAttempt { number, .. }) => {
                let i = number as usize - 1;
                let Some(attempt) = case.attempts.get(i) else {
                    return Err(err(
                        "attempts",
                        format!(
                            "attempt {number} was started but the case lists only {}",
                            case.attempts.len()
                        ),
                    ));
                };
                in_flight = Some((i, attempt.duration.map(|d| now + d)));
            }
            Some(Step::Wait { .. }) => waits += 1,
            Some(Step::Stop(_)) => leave = None,
            None => {}
        }
        let answer = in_flight.and_then(|(_, at)| at);
        let timer = action.poll_timeout().map(|t| match action.phase() {
            Phase::Waiting { .. } => {
                t + case
                    .timer_late_by
                    .get(waits - 1)
                    .copied()
                    .unwrap_or_default()
            }
            _ => t,
        });
        let next = [(leave, 0), (answer, 1), (timer, 2)]
            .into_iter()
            .filter_map(|(t, order)| t.map(|t| (t, order)))
            .min();
        let Some((at, which)) = next else {
            return Ok(Replay {
                id: case.id.clone(),
                budget: case.policy.budget(),
                trace: action.trace().to_vec(),
                report: action
                    .report()
                    .cloned()
                    .ok_or_else(|| err("attempts", "the action never stopped".into()))?,
            });
        };
        now = at;
        match which {
            0 => {
                leave = None;
                action.handle_leave(now);
            }
            1 => {
                let (i, _) = in_flight
                    .take()
                    .expect("an answer time implies an attempt in flight");
                match &case.attempts[i].answer {
                    Answer::Response { status, body, .. } => {
                        let a = &case.attempts[i].answer;
                        let mut response = Response::new(*status);
                        response.retry_after = a.header("Retry-After").map(str::to_owned);
                        response.date = a.header("Date").map(str::to_owned);
                        for name in RateLimitFields::NAMES {
                            if let Some(v) = a.header(name) {
                                response.rate_limit.set(name, v);
                            }
                        }
                        let clock = case.wall_clock_at(now);
                        // As the browser does: the scope's ledger first (the case is its own
                        // scope), then the action.
                        let trust = case.client_policy().trust_local_clock();
                        if let Some(block) =
                            ledger.handle_response(now, &case.id, &response, clock, trust)
                        {
                            action.handle_scope_block(now, block);
                        }
                        match read_body(*status, body.as_ref(), case.policy.max_body_bytes()) {
                            Ok(()) => action.handle_response(now, &response, clock),
                            Err(problem) => {
                                action.handle_unreadable_response(now, &response, clock, problem)
                            }
                        }
                    }
                    Answer::TransportFailure => {
                        action.handle_transport_failure(now, words::NETWORK_FAILED)
                    }
                    Answer::NoAnswer => {
                        unreachable!("an attempt with no answer has no answer time")
                    }
                }
            }
            _ => {
                if matches!(action.phase(), Phase::InFlight { .. }) {
                    in_flight = None; // aborted at its cap
                }
                action.handle_timeout(now);
            }
        }
    }
    Err(err(
        "attempts",
        format!("the replay did not settle within {bound} steps"),
    ))
}

/// A 2xx's body read as the browser reads it (the library's one body rule, [`BodyReader`]), as
/// the Palette List's data; any other status's body is not read.
fn read_body(status: u16, body: Option<&Body>, limit: u64) -> Result<(), BodyProblem> {
    if !is_success(status) {
        return Ok(());
    }
    let mut reader = BodyReader::new(limit, None)?;
    for chunk in body.map(Body::chunks).into_iter().flatten() {
        reader.push(&chunk)?;
    }
    reader.finish(PaletteCollection::from_json).map(drop)
}

fn event_json(t: &TraceEvent) -> Value {
    let mut m = Map::new();
    m.insert("at_s".into(), sec_json(t.at));
    let (name, fields): (&str, Value) = match &t.event {
        Event::ActionStarted {
            budget,
            max_attempts,
            attempt_cap,
        } => (
            "action_started",
            json!({"budget_s": sec_json(*budget), "max_attempts": max_attempts, "attempt_cap_s": sec_json(*attempt_cap)}),
        ),
        Event::AttemptStarted { attempt } => ("attempt_started", json!({ "attempt": attempt })),
        Event::ResponseReceived {
            attempt,
            status,
            retry_after,
            date,
            wall_clock,
            note,
            quota,
            ignored,
        } => (
            "response_received",
            json!({
                "attempt": attempt,
                "status": status,
                "retry_after": retry_after,
                "date": date,
                "wall_clock": wall_clock.map(|(t, _)| httpdate::fmt_http_date(t)),
                "clock_evidence": wall_clock.map(|(_, s)| match s {
                    ClockSource::DateHeader => "date_header",
                    ClockSource::LocalClock => "local_clock",
                }),
                "header_note": note.as_ref().map(|n| n.kind()),
                "header_note_detail": note.as_ref().map(|n| n.to_string()),
                "quota_remaining": quota.map(|q| q.remaining),
                "quota_reset_s": quota.and_then(|q| q.reset).map(sec_json),
                "rate_limit_ignored": ignored.iter().map(ToString::to_string).collect::<Vec<_>>(),
            }),
        ),
        Event::AttemptFailed { attempt, failure } => (
            "attempt_failed",
            match failure {
                Failure::Transport(why) => {
                    json!({"attempt": attempt, "failure": "transport", "detail": why})
                }
                Failure::TimedOut => json!({"attempt": attempt, "failure": "timed_out"}),
            },
        ),
        Event::WaitPlanned {
            wait,
            jitter,
            reason,
            remaining,
        } => (
            "wait_planned",
            json!({
                "wait_s": sec_json(*wait),
                "jitter_s": sec_json(*jitter),
                "why": match reason {
                    WaitReason::ServerDelay(_) => "server_delay",
                    WaitReason::ServerDate { .. } => "server_date",
                    WaitReason::Fallback { .. } => "fallback",
                    WaitReason::ScopeBlocked { .. } => "scope_blocked",
                },
                "detail": reason.to_string(),
                "remaining_s": sec_json(*remaining),
            }),
        ),
        Event::TimerWoke { late } => ("timer_woke", json!({ "late_s": sec_json(*late) })),
        Event::ResponseDropped { status, reason } => (
            "response_dropped",
            json!({
                "status": status,
                "reason": match reason {
                    DropReason::NotOwned => "not_owned",
                    DropReason::PastCap => "past_cap",
                },
            }),
        ),
        Event::Stopped(r) => (
            "stopped",
            json!({
                "outcome": r.outcome.name(),
                "last_status": r.last_response.as_ref().map(|l| l.status),
                "attempts": r.attempts,
                "max_attempts": r.max_attempts,
                "elapsed_s": sec_json(r.at),
            }),
        ),
    };
    m.insert("event".into(), json!(name));
    if let Value::Object(f) = fields {
        m.extend(f);
    }
    m.insert("text".into(), json!(t.event.to_string()));
    Value::Object(m)
}

/// A readable timeline of a replay: each event with its elapsed time, then what the user sees.
pub fn timeline(r: &Replay) -> Vec<String> {
    let mut lines = Vec::new();
    for t in &r.trace {
        let mut line = format!("{:>7} s  {}", seconds(t.at, Precision::Exact), t.event);
        if let Event::ResponseReceived { .. } = t.event {
            line.push_str(&format!(
                " [{} s of budget left]",
                seconds(r.budget.saturating_sub(t.at), Precision::Exact)
            ));
        }
        lines.push(line);
    }
    lines.push("  user sees:".into());
    lines.extend(r.report.message().into_iter().map(|l| format!("    {l}")));
    lines
}
