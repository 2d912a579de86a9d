//! What a run measured, and the fleet's table.

use std::fmt;
use std::time::Duration;

/// What one run of the fleet measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Figures {
    /// Reads the clients started.
    pub reads: u64,
    /// Requests that reached the limiter.
    pub requests: u64,
    /// The limiter's 429s.
    pub refusals: u64,
    /// The most requests in one whole second at the limiter.
    pub peak_per_second: u32,
    /// The limiter's sustained allowance per second.
    pub allowance: u32,
    /// The fewest requests per loaded read any policy could send on these arrivals
    /// (every read's first request, over the most reads the quota can load in time).
    pub bound: f64,
    /// How long a user waits for data before the read counts as late.
    patience: Duration,
    /// From each loaded read's start to its data.
    times_to_data: Vec<Duration>,
}

impl Figures {
    /// Nothing measured yet, against an API allowing `allowance` a second.
    pub const fn new(allowance: u32, patience: Duration) -> Self {
        Self {
            reads: 0,
            requests: 0,
            refusals: 0,
            peak_per_second: 0,
            allowance,
            bound: 1.0,
            patience,
            times_to_data: Vec::new(),
        }
    }

    /// A read loaded, `took` after it started.
    pub fn loaded(&mut self, took: Duration) {
        self.times_to_data.push(took);
    }

    /// Reads that loaded, at any time.
    pub fn loaded_reads(&self) -> u64 {
        self.times_to_data.len() as u64
    }

    /// Requests at the limiter per loaded read (infinite when none loaded).
    pub fn requests_per_loaded(&self) -> f64 {
        self.requests as f64 / self.loaded_reads() as f64
    }

    /// 429s per loaded read (infinite when none loaded).
    pub fn refusals_per_loaded(&self) -> f64 {
        self.refusals as f64 / self.loaded_reads() as f64
    }

    /// The share of reads that loaded within the user's patience (the budget).
    pub fn loaded_in_time(&self) -> f64 {
        let in_time = self
            .times_to_data
            .iter()
            .filter(|t| **t <= self.patience)
            .count();
        in_time as f64 / self.reads as f64
    }

    /// The time to data at `percent` of loaded reads (nearest rank); `None` if none loaded.
    pub fn time_to_data(&self, percent: usize) -> Option<Duration> {
        let mut sorted = self.times_to_data.clone();
        sorted.sort_unstable();
        let rank = (sorted.len() * percent).div_ceil(100).max(1);
        sorted.get(rank - 1).copied()
    }
}

/// One row of the table: a policy, a fleet size and what it measured.
pub struct Row<'a> {
    /// The policy's name.
    pub policy: &'a str,
    /// Clients in the fleet.
    pub clients: u32,
    /// What was measured.
    pub figures: &'a Figures,
}

/// The table's header, in the columns [`Row`] prints.
pub const HEADER: &str =
    "| policy | clients | requests / loaded read (bound) | 429s / loaded read | \
loaded within 20 s | p50 to data | p99 to data | peak req/s (allowance) |\n\
|---|---:|---:|---:|---:|---:|---:|---:|";

impl fmt::Display for Row<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.figures;
        let secs = |p| match t.time_to_data(p) {
            Some(d) => format!("{:.1} s", d.as_secs_f64()),
            None => "none".to_owned(),
        };
        write!(
            f,
            "| {} | {} | {:.2} ({:.2}) | {:.2} | {:.1} % | {} | {} | {} ({}) |",
            self.policy,
            self.clients,
            t.requests_per_loaded(),
            t.bound,
            t.refusals_per_loaded(),
            100.0 * t.loaded_in_time(),
            secs(50),
            secs(99),
            t.peak_per_second,
            t.allowance
        )
    }
}
