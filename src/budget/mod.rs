//! The budget core: pure and deterministic. No clock, no network, no browser: `now` is passed
//! in, and every decision (start, wait, stop) comes from [`ReadAction`].
//!
//! The shape is sans-IO: inputs are `handle_*(now, …)`, outputs are
//! [`ReadAction::poll_action`] and one timer, [`ReadAction::poll_timeout`]. The fixture model
//! and the browser runtime drive this same code.

mod action;
mod policy;
mod report;
mod retry_after;

#[cfg(test)]
mod tests;

use std::time::Duration;

pub use action::{
    ClockSource, DropReason, Event, Failure, Phase, ReadAction, Response, Step, TraceEvent,
    WaitReason,
};
pub use policy::{Affordance, PolicyError, RetryPolicy, StatusSet, DEFAULT_FALLBACK_WAITS};
pub use report::{LastResponse, Outcome, RequestedDelay, StopReport, StoppedWhile};
pub use retry_after::{
    delay_until, parse_date_header, parse_retry_after, HeaderNote, InvalidRetryAfter, RetryAfter,
};

/// Seconds to the millisecond, for people reading a trace: `2.012` (a real clock's 2.0123 s).
pub fn secs_ms(d: Duration) -> String {
    let ms = (d.as_micros() + 500) / 1000;
    secs(Duration::from_millis(u64::try_from(ms).unwrap_or(u64::MAX)))
}

/// Seconds, exactly and briefly: `4`, `2.5`, `0.001`.
pub fn secs(d: Duration) -> String {
    let whole = d.as_secs();
    match d.subsec_nanos() {
        0 => whole.to_string(),
        n => {
            let frac = format!("{n:09}");
            format!("{whole}.{}", frac.trim_end_matches('0'))
        }
    }
}
