//! What the test files share: the project's fixture files (embedded at compile time, so they
//! are there in wasm too, which has no file system) and the tests' clock.
// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The contract's worked cases, as this project ships them.
pub const SCHEDULES: &str = include_str!("../../../tests/fixtures/schedules.json");
/// This project's own edge cases, under another policy.
pub const EDGE_CASES: &str = include_str!("../../../tests/fixtures/edge-cases.json");
/// A file as another team might write it (no request, no clock, numbers JSON cannot hold).
pub const WRITTEN_ELSEWHERE: &str = include_str!("../../../tests/fixtures/written-elsewhere.json");
/// Answers as real APIs and proxies send them: 2xx bodies that are not palettes, dates before
/// 1970, RFC 850's two-digit year.
pub const BODIES: &str = include_str!("../../../tests/fixtures/bodies.json");
/// Several actions on one scope: one page's ledger.
pub const SCOPES: &str = include_str!("../../../tests/fixtures/scopes.json");

/// Every file whose `cases` are single reads (the scopes' file has none).
pub const SINGLE_READS: [&str; 4] = [SCHEDULES, EDGE_CASES, WRITTEN_ELSEWHERE, BODIES];

/// `n` seconds.
pub const fn s(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// `n` milliseconds.
pub const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Mon, 01 Jan 2024 12:00:00 GMT: the wall clock the fixtures' dates are written against.
pub fn noon() -> SystemTime {
    UNIX_EPOCH + s(1_704_110_400)
}
