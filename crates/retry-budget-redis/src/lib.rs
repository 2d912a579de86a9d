#![doc = include_str!("../README.md")]
//!
//! ## Inside
//!
//! - `share`: [`RedisShare`], the [`LedgerShare`](retry_budget_tokio::LedgerShare) on Redis:
//!   its scripts, its one connection, and what it does while Redis is away.
//! - `record`: how a block, a purse and a scope's places are kept in Redis, and read back.
//! - `error`: why Redis cannot be used, named.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// What is counted, through `metrics` with the feature and not at all without it: one file each.
#[cfg_attr(feature = "metrics", path = "counts.rs")]
#[cfg_attr(not(feature = "metrics"), path = "no_counts.rs")]
mod counts;
mod error;
mod record;
mod share;

pub use error::RedisShareError;
pub use share::{RedisShare, ShareOptions, ShareStatus};
