//! What the reads come to, counted through the `metrics` facade (feature `metrics`), for
//! whichever recorder the app installs (a Prometheus exporter, say). Names and labels:
//!
//! | metric | kind | labels |
//! |---|---|---|
//! | `retry_budget_reads_total` | counter | `outcome`: how a read stopped (`succeeded`, `budget_exhausted`, …, `user_left`) |
//! | `retry_budget_attempts_total` | counter | `status_class`: its answer's (`2xx` … `5xx`), or `none` |
//! | `retry_budget_blocks_total` | counter | `cause`: `429` or `quota` |
//! | `retry_budget_hand_overs_total` | counter | |
//! | `retry_budget_wait_asked_seconds` | histogram | the delay a server asked for (`Retry-After`) |
//! | `retry_budget_wait_seconds` | histogram | each wait planned, as long as it is |
//!
//! A label never holds a scope, a URL or a header: its values are the few listed.

use std::time::Duration;

use metrics::{counter, histogram};
use retry_budget::report::OutcomeKind;
use retry_budget::scope::BlockCause;

/// A read stopped as `outcome`.
pub(crate) fn read_stopped(outcome: OutcomeKind) {
    counter!("retry_budget_reads_total", "outcome" => outcome.to_string()).increment(1);
}

/// A read was left (its future dropped) before it stopped.
pub(crate) fn read_left() {
    counter!("retry_budget_reads_total", "outcome" => "user_left").increment(1);
}

/// An attempt was answered with `status`, or had no answer (`None`).
pub(crate) fn attempt_answered(status: Option<u16>) {
    let class = match status {
        Some(200..=299) => "2xx",
        Some(300..=399) => "3xx",
        Some(400..=499) => "4xx",
        Some(500..=599) => "5xx",
        Some(_) => "other",
        None => "none",
    };
    counter!("retry_budget_attempts_total", "status_class" => class).increment(1);
}

/// This process learned a block on a scope.
pub(crate) fn block_learned(cause: BlockCause) {
    counter!("retry_budget_blocks_total", "cause" => cause.name()).increment(1);
}

/// A read's wait was handed over to the browser.
pub(crate) fn handed_over() {
    counter!("retry_budget_hand_overs_total").increment(1);
}

/// A wait was planned, `wait` long; a server asked for `asked`, where it did.
pub(crate) fn wait_planned(wait: Duration, asked: Option<Duration>) {
    histogram!("retry_budget_wait_seconds").record(wait.as_secs_f64());
    if let Some(asked) = asked {
        histogram!("retry_budget_wait_asked_seconds").record(asked.as_secs_f64());
    }
}
