//! The retry policies the fleet compares: two baselines written here, and this crate's core.

use std::time::Duration;

use retry_budget::policy::PolicyError;
use retry_budget::scope::{RetryTokens, ScopePolicyError};
use retry_budget::{RetryPolicy, ScopePolicy};

/// A baseline retrier, written here as its library behaves by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Baseline {
    /// A classic per-request retrier: after a 429 it waits 2 s, then 4 s, whatever the server
    /// said; 3 attempts; no deadline, no shared state.
    Classic,
    /// As ky does by default: `Retry-After` honoured whatever its length (else 0.3 s doubling);
    /// 3 attempts (its retry limit of 2); no total budget, no shared state.
    KyLike,
}

impl Baseline {
    /// The attempts either baseline makes at most, the first included.
    pub const ATTEMPTS: u32 = 3;

    /// The wait after `attempts` refused attempts, given the answer's `Retry-After` in seconds.
    pub fn wait(self, attempts: u32, retry_after: Option<u64>) -> Duration {
        match self {
            Self::Classic => Duration::from_secs(if attempts <= 1 { 2 } else { 4 }),
            Self::KyLike => match retry_after {
                Some(seconds) => Duration::from_secs(seconds),
                None => Duration::from_millis(300) * 2u32.pow(attempts.saturating_sub(1)),
            },
        }
    }
}

/// How a client retries a read that was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FleetPolicy {
    /// A baseline retrier.
    Baseline(Baseline),
    /// This crate: each client is a [`Client`](retry_budget::Client) running the core, its reads
    /// under `read`, the API's scope under `scope`.
    Budget {
        /// Each read's budget.
        read: Box<RetryPolicy>,
        /// What the client's reads of the API share.
        scope: ScopePolicy,
        /// Whether each client's page learns the scope's pace
        /// ([`Client::with_learned_pace`](retry_budget::Client::with_learned_pace)), alone.
        learned_pace: bool,
    },
}

impl FleetPolicy {
    /// This crate's core: reads under `read` on a scope that shares nothing but its blocks.
    pub fn budget(read: RetryPolicy) -> Self {
        Self::Budget {
            read: Box::new(read),
            scope: ScopePolicy::new(),
            learned_pace: false,
        }
    }
}

/// Why a run was refused before it began: its policy is one the core refuses, by name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RefusedPolicy {
    /// The reads' policy.
    #[error(transparent)]
    Read(#[from] PolicyError),
    /// The scope's policy.
    #[error(transparent)]
    Scope(#[from] ScopePolicyError),
}

/// A named policy in the fleet's table.
#[derive(Clone, Debug)]
pub struct Contender {
    /// Its name in the table and the chart.
    pub name: &'static str,
    /// What it does.
    pub policy: FleetPolicy,
}

/// The retry tokens the fleet's "retry tokens" row uses, on each client's page: 2 tokens,
/// each success earning back a tenth. gRPC's `maxTokens 10` is sized for a channel carrying
/// many requests; a browser's page makes a few reads, and 10 tokens would never run out.
pub const FLEET_TOKENS: RetryTokens = RetryTokens::new(2, 10);

/// The name of the learned pace's row: each browser's page learns alone, as a server's one
/// ledger learns for every caller (the fleet shows what a browser, seeing only its own reads,
/// gains from it).
pub const LEARNED_PACE: &str = "+ learned pace (each page alone)";

/// The name of [`RetryPolicy::for_shared_quota`] in the table.
pub const SHARED_QUOTA: &str = "for a shared quota";

/// Every policy the fleet compares: the baselines, this crate's defaults and single settings,
/// then the setting recommended for a shared quota.
pub fn contenders() -> Vec<Contender> {
    let defaults = RetryPolicy::new();
    vec![
        Contender {
            name: "classic 2 s / 4 s",
            policy: FleetPolicy::Baseline(Baseline::Classic),
        },
        Contender {
            name: "ky-like",
            policy: FleetPolicy::Baseline(Baseline::KyLike),
        },
        Contender {
            name: "palette-list defaults",
            policy: FleetPolicy::budget(defaults.clone()),
        },
        Contender {
            name: "+ jitter 50 %",
            policy: FleetPolicy::budget(defaults.clone().with_jitter(50)),
        },
        Contender {
            name: "+ full jitter",
            policy: FleetPolicy::budget(defaults.clone().with_full_jitter(true)),
        },
        Contender {
            name: "+ retry tokens (2, 10 %)",
            policy: FleetPolicy::Budget {
                read: Box::new(defaults.clone()),
                scope: ScopePolicy::new().with_retry_tokens(FLEET_TOKENS),
                learned_pace: false,
            },
        },
        Contender {
            name: LEARNED_PACE,
            policy: FleetPolicy::Budget {
                read: Box::new(defaults),
                scope: ScopePolicy::new(),
                learned_pace: true,
            },
        },
        Contender {
            name: SHARED_QUOTA,
            policy: FleetPolicy::budget(RetryPolicy::for_shared_quota()),
        },
    ]
}
