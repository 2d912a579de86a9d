//! Why Redis cannot be used. Each names where Redis was looked for (host and port), never the
//! URL, which may hold a password.

use std::time::Duration;

/// Why Redis cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RedisShareError {
    /// The URL is not one a Redis client can use.
    #[error("the Redis URL cannot be used: {0}")]
    Url(String),
    /// Redis did not answer within the share's timeout.
    #[error("Redis at {place} did not answer within {} ms", .timeout.as_millis())]
    Timeout {
        /// Host and port.
        place: String,
        /// The share's timeout.
        timeout: Duration,
    },
    /// Redis answered with an error, or the connection failed.
    #[error("Redis at {place} cannot be used: {why}")]
    Failed {
        /// Host and port.
        place: String,
        /// What went wrong.
        why: String,
    },
}
