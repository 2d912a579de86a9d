//! A replay as JSON (FORMAT.md: the `expect` keys, then `trace`), by serde's derive. Seconds
//! are written by [`seconds_to_json`], the format's one rule for them.

use std::time::{Duration, SystemTime};

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use retry_budget::action::WaitReason;
use retry_budget::headers::ClockSource;
use retry_budget::trace::{DropReason, Failure};
use retry_budget::{Event, TraceEvent};

use crate::replay::Replay;
use crate::values::seconds_to_json;

impl Replay {
    /// The result as one JSON object with the `expect` key names, plus `trace`.
    pub fn to_json(&self) -> Map<String, Value> {
        match serde_json::to_value(ReplayJson::new(self)) {
            Ok(Value::Object(m)) => m,
            // Strings, numbers and lists under string keys: always an object.
            other => panic!("a replay is written as a JSON object, got {other:?}"),
        }
    }
}

/// What [`Replay::to_json`] writes, in the order it writes it.
#[derive(Serialize)]
pub(crate) struct ReplayJson<'a> {
    id: &'a str,
    outcome: &'static str,
    #[serde(serialize_with = "seconds")]
    stopped_at_s: Duration,
    #[serde(serialize_with = "seconds_list")]
    starts_s: Vec<Duration>,
    #[serde(serialize_with = "seconds_list")]
    receipts_s: Vec<Duration>,
    receipt_wall_clock: Vec<Option<String>>,
    #[serde(serialize_with = "seconds_list")]
    waits_s: Vec<Duration>,
    #[serde(serialize_with = "seconds_list")]
    queued_s: Vec<Duration>,
    #[serde(serialize_with = "seconds_list")]
    remaining_at_receipt_s: Vec<Duration>,
    #[serde(serialize_with = "seconds")]
    request_s: Duration,
    #[serde(serialize_with = "seconds")]
    waited_s: Duration,
    last_status: Option<u16>,
    #[serde(serialize_with = "seconds_or_null")]
    requested_delay_s: Option<Duration>,
    header_notes: Vec<&'static str>,
    message: Vec<String>,
    trace: Vec<EventJson<'a>>,
}

impl<'a> ReplayJson<'a> {
    pub(crate) fn new(r: &'a Replay) -> Self {
        let report = &r.report;
        let receipts = r.receipts();
        ReplayJson {
            id: &r.id,
            outcome: report.outcome.name(),
            stopped_at_s: report.at,
            starts_s: r.starts(),
            remaining_at_receipt_s: receipts
                .iter()
                .map(|t| r.budget.saturating_sub(*t))
                .collect(),
            receipts_s: receipts,
            receipt_wall_clock: r
                .receipt_wall_clock()
                .into_iter()
                .map(|w| w.map(|(t, _)| http_date(t)))
                .collect(),
            waits_s: r.waits(),
            queued_s: r.queued(),
            request_s: report.request_time,
            waited_s: report.waited_time,
            last_status: report.last_response.as_ref().map(|l| l.status),
            requested_delay_s: report.outcome.requested_delay(),
            header_notes: r.header_notes().into_iter().map(|n| n.kind()).collect(),
            message: report.message().lines().map(|l| l.to_string()).collect(),
            trace: r.trace.iter().map(EventJson::new).collect(),
        }
    }
}

/// One trace event: when, its fields under its name in `event`, and its English in `text`.
#[derive(Serialize)]
struct EventJson<'a> {
    #[serde(serialize_with = "seconds")]
    at_s: Duration,
    #[serde(flatten)]
    fields: Fields<'a>,
    text: String,
}

/// Each event's fields, named as FORMAT.md names them.
#[derive(Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum Fields<'a> {
    ActionStarted {
        #[serde(serialize_with = "seconds")]
        budget_s: Duration,
        max_attempts: u32,
        #[serde(serialize_with = "seconds")]
        attempt_cap_s: Duration,
    },
    AttemptStarted {
        attempt: u32,
    },
    ResponseReceived {
        attempt: u32,
        status: u16,
        retry_after: Option<&'a str>,
        date: Option<&'a str>,
        wall_clock: Option<String>,
        clock_evidence: Option<&'static str>,
        header_note: Option<&'static str>,
        header_note_detail: Option<String>,
        quota_remaining: Option<u64>,
        #[serde(serialize_with = "seconds_or_null")]
        quota_reset_s: Option<Duration>,
        rate_limit_ignored: Vec<String>,
    },
    AttemptFailed {
        attempt: u32,
        failure: &'static str,
        /// Only for a transport failure: which one.
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    WaitPlanned {
        #[serde(serialize_with = "seconds")]
        wait_s: Duration,
        #[serde(serialize_with = "seconds")]
        jitter_s: Duration,
        why: &'static str,
        detail: String,
        #[serde(serialize_with = "seconds")]
        remaining_s: Duration,
    },
    Queued {
        attempt: u32,
        in_flight_limit: u32,
    },
    TimerWoke {
        #[serde(serialize_with = "seconds")]
        late_s: Duration,
    },
    ResponseDropped {
        status: Option<u16>,
        reason: &'static str,
    },
    MovedOn,
    HandedOver {
        attempts: u32,
        #[serde(serialize_with = "seconds")]
        wait_s: Duration,
    },
    Stopped {
        outcome: &'static str,
        last_status: Option<u16>,
        attempts: u32,
        max_attempts: u32,
        #[serde(serialize_with = "seconds")]
        elapsed_s: Duration,
    },
}

impl<'a> EventJson<'a> {
    fn new(t: &'a TraceEvent) -> Self {
        let fields = match &t.event {
            &Event::ActionStarted {
                budget,
                max_attempts,
                attempt_cap,
            } => Fields::ActionStarted {
                budget_s: budget,
                max_attempts,
                attempt_cap_s: attempt_cap,
            },
            &Event::AttemptStarted { attempt } => Fields::AttemptStarted { attempt },
            Event::ResponseReceived {
                attempt,
                status,
                retry_after,
                date,
                wall_clock,
                note,
                quota,
                ignored,
            } => Fields::ResponseReceived {
                attempt: *attempt,
                status: *status,
                retry_after: retry_after.as_deref(),
                date: date.as_deref(),
                wall_clock: wall_clock.map(|(t, _)| http_date(t)),
                clock_evidence: wall_clock.map(|(_, source)| match source {
                    ClockSource::DateHeader => "date_header",
                    ClockSource::LocalClock => "local_clock",
                }),
                header_note: note.as_ref().map(|n| n.kind()),
                header_note_detail: note.as_ref().map(ToString::to_string),
                quota_remaining: quota.map(|q| q.remaining),
                quota_reset_s: quota.and_then(|q| q.reset),
                rate_limit_ignored: ignored.iter().map(ToString::to_string).collect(),
            },
            Event::AttemptFailed { attempt, failure } => Fields::AttemptFailed {
                attempt: *attempt,
                failure: match failure {
                    Failure::Transport(_) => "transport",
                    Failure::TimedOut => "timed_out",
                },
                detail: match failure {
                    Failure::Transport(why) => Some(why.to_string()),
                    Failure::TimedOut => None,
                },
            },
            Event::WaitPlanned {
                wait,
                jitter,
                reason,
                remaining,
            } => Fields::WaitPlanned {
                wait_s: *wait,
                jitter_s: *jitter,
                why: match reason {
                    WaitReason::ServerDelay(_) => "server_delay",
                    WaitReason::ServerDate { .. } => "server_date",
                    WaitReason::Fallback { .. } => "fallback",
                    WaitReason::ScopeBlocked { .. } => "scope_blocked",
                },
                detail: reason.to_string(),
                remaining_s: *remaining,
            },
            &Event::Queued { attempt, limit } => Fields::Queued {
                attempt,
                in_flight_limit: limit,
            },
            &Event::TimerWoke { late } => Fields::TimerWoke { late_s: late },
            Event::ResponseDropped { status, reason } => Fields::ResponseDropped {
                status: *status,
                reason: match reason {
                    DropReason::NotOwned => "not_owned",
                    DropReason::PastCap => "past_cap",
                },
            },
            Event::MovedOn => Fields::MovedOn,
            &Event::HandedOver { attempts, wait } => Fields::HandedOver {
                attempts,
                wait_s: wait,
            },
            Event::Stopped(r) => Fields::Stopped {
                outcome: r.outcome.name(),
                last_status: r.last_response.as_ref().map(|l| l.status),
                attempts: r.attempts,
                max_attempts: r.max_attempts,
                elapsed_s: r.at,
            },
        };
        EventJson {
            at_s: t.at,
            fields,
            text: t.event.to_string(),
        }
    }
}

fn http_date(t: SystemTime) -> String {
    httpdate::fmt_http_date(t)
}

fn seconds<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    seconds_to_json(*d).serialize(s)
}

fn seconds_or_null<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    d.map(seconds_to_json).serialize(s)
}

fn seconds_list<S: Serializer>(d: &[Duration], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(d.iter().map(|d| seconds_to_json(*d)))
}
