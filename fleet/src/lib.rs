//! Ten thousand browsers on one quota: a deterministic, seeded fleet simulation.
//!
//! N clients arrive (all at once, or as a Poisson stream), each reading a few times. Every
//! request meets one limiter (`governor`'s GCRA on its fake clock, fixed windows, or a sliding
//! window), answering as a real API does (429 with `Retry-After`, RateLimit fields) after a
//! fixed latency. The same arrivals are
//! replayed under each policy: two baselines written here, and this crate's core, each client
//! a [`Client`](retry_budget::Client) of its own, so the figures are the library's own
//! behaviour, not a model of it. Time is virtual: the run jumps from one event to the next.

pub mod api;
pub mod chart;
pub mod figures;
pub mod limiter;
pub mod policy;
mod random;
pub mod run;
pub mod section;

pub use api::{Api, ApiConfig};
pub use figures::{Figures, Row, HEADER};
pub use limiter::LimiterKind;
pub use policy::{
    contenders, Baseline, Contender, FleetPolicy, RefusedPolicy, LEARNED_PACE, SHARED_QUOTA,
};
pub use run::{run, Arrivals, Scenario};
pub use section::{measure, Measured, Section, FLEET_SIZES};
