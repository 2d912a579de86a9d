//! Why a read did not load: refused before anything was sent, or stopped with its report.

use retry_budget::policy::PolicyError;
use retry_budget::request::RequestError;
use retry_budget::{StopReport, TraceEvent};

/// Why a read did not load.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The policy is not valid; nothing was sent.
    #[error("the policy is not valid: {0}")]
    Policy(#[from] PolicyError),
    /// The request cannot be sent as described; nothing was sent.
    #[error("the request cannot be sent: {0}")]
    Request(#[from] RequestError),
    /// The URL is not one this client may read; nothing was sent.
    #[error("the URL is refused: {0}")]
    Origin(#[from] OriginError),
    /// The read ran and stopped without data; the report says why (its message, in full).
    #[error("{}", .report.message())]
    Stopped {
        /// How it ended.
        report: StopReport,
        /// What happened to it, event by event.
        trace: Vec<TraceEvent>,
    },
}

/// Why a URL may not be read from this server. It names the origin at most, never a path, a
/// query or a credential, which may hold secrets.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OriginError {
    /// Not an absolute URL: on a server a read needs one (there is no page to be relative to).
    #[error("it is not an absolute URL")]
    NotAbsolute,
    /// A scheme other than `http` or `https`.
    #[error("its scheme, {0}, is not http or https")]
    Scheme(String),
    /// An origin the app did not allow: a server that reads what a visitor names would read
    /// anything (server-side request forgery).
    #[error("its origin, {0}, is not one this server may read")]
    NotAllowed(String),
}
