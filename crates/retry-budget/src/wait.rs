//! Why a wait is as long as it is: a server's delay or date, the policy's fallback, or the
//! scope's block; and the one rule that turns a valid `Retry-After` into a delay.

use std::fmt;
use std::time::{Duration, SystemTime};

use super::block::BlockCause;
use super::clock::ClockSource;
use super::http_date::HttpDate;
use super::retry_after::{HeaderNote, RetryAfter};
use super::seconds::trace_seconds as t;

/// Where a planned wait came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitReason {
    /// `Retry-After` delay-seconds.
    ServerDelay(Duration),
    /// A `Retry-After` date, read against the receipt's clock evidence.
    ServerDate {
        /// The date named (an RFC 850 date resolved against the receipt).
        until: HttpDate,
        /// The date minus the receipt's wall-clock time (clamped at 0, rounded up).
        delay: Duration,
        /// Where the receipt's wall-clock time came from.
        evidence: ClockSource,
    },
    /// No usable hint: the policy's fallback wait.
    Fallback {
        /// The fallback wait for this attempt.
        wait: Duration,
        /// What was wrong with the header.
        note: HeaderNote,
    },
    /// A `429` on the same scope asked every request to the API to wait: no attempt starts
    /// before that block ends (see [`Client`](super::Client)).
    ScopeBlocked {
        /// From this decision to the block's end.
        wait: Duration,
        /// The delay the service gave, from the answer that set the block.
        asked: Duration,
        /// Why the scope is blocked.
        cause: BlockCause,
    },
}

impl WaitReason {
    /// What a valid `Retry-After` asks of the answer it came with: its delay, or for a date the
    /// date read once, at receipt, against the receipt's wall-clock time. Without clock
    /// evidence a date cannot be read at all (never as 0): `Err` gives it back.
    pub fn from_hint(
        hint: RetryAfter,
        wall_clock: Option<(SystemTime, ClockSource)>,
    ) -> Result<WaitReason, HttpDate> {
        match hint {
            RetryAfter::Delay(d) => Ok(WaitReason::ServerDelay(d)),
            RetryAfter::Date(date) => {
                let Some((receipt, evidence)) = wall_clock else {
                    return Err(date);
                };
                // RFC 850's century, then the wait on the monotonic clock.
                let until = date.resolved(receipt);
                Ok(WaitReason::ServerDate {
                    until,
                    delay: until.delay_after(receipt),
                    evidence,
                })
            }
        }
    }

    /// The server's requested delay, if the wait came from a valid hint to this action.
    pub fn requested(&self) -> Option<Duration> {
        match *self {
            WaitReason::ServerDelay(delay) | WaitReason::ServerDate { delay, .. } => Some(delay),
            WaitReason::Fallback { .. } | WaitReason::ScopeBlocked { .. } => None,
        }
    }

    /// The wait before the local floor.
    pub fn asked(&self) -> Duration {
        match *self {
            WaitReason::ServerDelay(d) => d,
            WaitReason::ServerDate { delay, .. } => delay,
            WaitReason::Fallback { wait, .. } | WaitReason::ScopeBlocked { wait, .. } => wait,
        }
    }
}

impl fmt::Display for WaitReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WaitReason::ServerDelay(d) => write!(f, "server asked for {} s", t(*d)),
            WaitReason::ServerDate {
                until,
                delay,
                evidence,
            } => write!(f, "server date {until} ({} s by the {evidence})", t(*delay)),
            WaitReason::Fallback { wait, note } => {
                write!(f, "no usable hint ({note}), fallback {} s", t(*wait))
            }
            WaitReason::ScopeBlocked { wait, asked, cause } => write!(
                f,
                "scope blocked by {} for {} s; {} s to its end",
                match cause {
                    BlockCause::TooManyRequests => "a 429's Retry-After",
                    BlockCause::QuotaSpent => "a spent quota's reset",
                },
                t(*asked),
                t(*wait)
            ),
        }
    }
}
