//! The unit tests' clock, which every module's tests share.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Mon, 01 Jan 2024 12:00:00 GMT in Unix seconds: the noon the fixtures' dates are written
/// against.
pub(crate) const NOON: u64 = 1_704_110_400;

/// `n` seconds.
pub(crate) const fn s(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// The wall clock `secs` seconds after the Unix epoch.
pub(crate) fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + s(secs)
}

/// [`NOON`] on the wall clock.
pub(crate) fn noon() -> SystemTime {
    at(NOON)
}
