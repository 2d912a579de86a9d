//! What an operator sees of the reads, through `tracing`: a span per read (`retry_budget.read`,
//! with its scope, and its attempts and outcome once it stops) and an event per decision; and
//! with the `metrics` feature, the same decisions counted (`counts.rs` names them). The
//! names are the only vocabulary here; every decision is the core's. Nothing of a request's
//! URL past its scope, its headers or a body is ever written: a scope is an origin or the
//! app's name for it.
//!
//! Levels: a stop without data is `WARN`; a block learned or taken from another process, a
//! wait planned, a hand-over and a stop with data are `INFO` (a rate-limited API's blocks are
//! its ordinary answers);
//! each attempt, answer and queue is `DEBUG`.

use std::time::Duration;

use retry_budget::action::WaitReason;
use retry_budget::wire::SharedBlock;
use retry_budget::{HandOver, Response, Step, StopReport};
use tracing::field::Empty;
use tracing::{debug, info, warn, Span};

// What is counted, through `metrics` with the feature and not at all without it: one file each.
#[cfg_attr(feature = "metrics", path = "counts.rs")]
#[cfg_attr(not(feature = "metrics"), path = "no_counts.rs")]
mod counts;

/// The span of one read on `scope`; `attempts` and `outcome` are recorded as it stops.
pub(crate) fn read_span(scope: &str) -> Span {
    tracing::info_span!(
        "retry_budget.read",
        scope,
        attempts = Empty,
        outcome = Empty
    )
}

/// The step the core decided for the read, at `now`.
pub(crate) fn step(span: &Span, step: &Step, now: Duration) {
    match step {
        Step::StartAttempt { number, deadline } => debug!(
            parent: span,
            attempt = number,
            cap_ms = millis(deadline.saturating_sub(now)),
            "attempt started"
        ),
        Step::Queue { number, limit, .. } => debug!(
            parent: span,
            attempt = number,
            in_flight_limit = limit,
            "queued for a place among the scope's requests in flight"
        ),
        Step::Wait {
            next,
            until,
            reason,
        } => {
            let wait = until.saturating_sub(now);
            info!(
                parent: span,
                next_attempt = next,
                wait_ms = millis(wait),
                %reason,
                "wait planned"
            );
            counts::wait_planned(wait, server_asked(reason));
        }
        Step::Stop(report) => stopped(span, report),
    }
}

/// An attempt's answer, as the core reads it: its status and the delay it asked for.
pub(crate) fn answer(span: &Span, response: &Response) {
    counts::attempt_answered(Some(response.status));
    debug!(
        parent: span,
        http.response.status_code = response.status,
        retry_after = response.retry_after.as_deref(),
        "answer"
    );
}

/// An attempt that had no HTTP answer (the connection failed, or was refused).
pub(crate) fn no_answer(span: &Span) {
    counts::attempt_answered(None);
    debug!(parent: span, "no answer");
}

/// A block another process holds on the read's scope, taken before anything is sent.
pub(crate) fn block_taken(span: &Span, block: &SharedBlock) {
    info!(
        parent: span,
        remaining_ms = millis(block.remaining),
        cause = block.cause.name(),
        "block taken from another process"
    );
}

/// A block this process learned on `scope` (every read on it holds until it ends).
pub(crate) fn block_learned(scope: &str, block: &SharedBlock) {
    counts::block_learned(block.cause);
    info!(
        scope,
        remaining_ms = millis(block.remaining),
        cause = block.cause.name(),
        "scope blocked"
    );
}

/// The read's wait handed over to the browser.
pub(crate) fn handed_over(span: &Span, hand_over: &HandOver) {
    counts::handed_over();
    info!(
        parent: span,
        attempts = hand_over.attempts,
        wait_ms = millis(hand_over.wait),
        "handed over"
    );
}

/// The read stopped as `report` says.
fn stopped(span: &Span, report: &StopReport) {
    let outcome = report.outcome.kind();
    counts::read_stopped(outcome);
    span.record("attempts", report.attempts);
    span.record("outcome", tracing::field::display(outcome));
    let waited_ms = millis(report.waited_time);
    if outcome == retry_budget::report::OutcomeKind::Succeeded {
        info!(parent: span, %outcome, attempts = report.attempts, waited_ms, "read stopped");
    } else {
        // The report's lines as one, so a log line holds the whole stop.
        let message = report.message().to_string().replace('\n', " ");
        warn!(parent: span, %outcome, attempts = report.attempts, waited_ms, %message, "read stopped");
    }
}

/// The read's future was dropped before it stopped: it left.
pub(crate) fn left(span: &Span) {
    counts::read_left();
    span.record("outcome", "user_left");
    info!(parent: span, outcome = "user_left", "read left");
}

/// The delay a server asked for, where a wait has one (not a fallback's).
fn server_asked(reason: &WaitReason) -> Option<Duration> {
    match *reason {
        WaitReason::ServerDelay(asked)
        | WaitReason::ServerDate { delay: asked, .. }
        | WaitReason::ScopeBlocked { asked, .. } => Some(asked),
        WaitReason::Fallback { .. } => None,
    }
}

/// Milliseconds, as the events count them.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
