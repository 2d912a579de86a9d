//! What an operator sees of the reads, through `tracing`: a span per read (`retry_budget.read`,
//! with its scope, and its attempts and outcome once it stops) and an event per decision. The
//! names are the only vocabulary here; every decision is the core's. Nothing of a request's
//! URL past its scope, its headers or a body is ever written: a scope is an origin or the
//! app's name for it.
//!
//! Levels: a stop without data and a block learned are `WARN`; a wait
//! planned, a hand-over, a block taken from another process and a stop with data are `INFO`;
//! each attempt, answer and queue is `DEBUG`.

use std::time::Duration;

use retry_budget::wire::SharedBlock;
use retry_budget::{HandOver, Response, Step, StopReport};
use tracing::field::Empty;
use tracing::{debug, info, warn, Span};

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
        } => info!(
            parent: span,
            next_attempt = next,
            wait_ms = millis(until.saturating_sub(now)),
            %reason,
            "wait planned"
        ),
        Step::Stop(report) => stopped(span, report),
    }
}

/// An attempt's answer, as the core reads it: its status and the delay it asked for.
pub(crate) fn answer(span: &Span, response: &Response) {
    debug!(
        parent: span,
        http.response.status_code = response.status,
        retry_after = response.retry_after.as_deref(),
        "answer"
    );
}

/// An attempt that had no HTTP answer (the connection failed, or was refused).
pub(crate) fn no_answer(span: &Span) {
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
    warn!(
        scope,
        remaining_ms = millis(block.remaining),
        cause = block.cause.name(),
        "scope blocked"
    );
}

/// The read's wait handed over to the browser.
pub(crate) fn handed_over(span: &Span, hand_over: &HandOver) {
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
    span.record("outcome", "user_left");
    info!(parent: span, outcome = "user_left", "read left");
}

/// Milliseconds, as the events count them.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
