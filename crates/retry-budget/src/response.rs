//! A response as the core needs it (the status and the headers that matter), and what it says,
//! read once for the scope's ledger and the answering action alike.

use std::time::SystemTime;

use super::clock::{receipt_clock, ClockSource};
use super::rate_limit::{IgnoredField, Quota, RateLimitFields};
use super::retry_after::{parse_retry_after, InvalidRetryAfter, RetryAfter};

/// An HTTP response as the core needs it: the status and the headers that matter.
/// There is no body and no method here; the read action is `GET` only.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The `Retry-After` value, as received.
    pub retry_after: Option<String>,
    /// The `Date` value, as received.
    pub date: Option<String>,
    /// The response came cross-origin, so a missing header may only be hidden by CORS.
    pub cross_origin: bool,
    /// The RateLimit fields, as received.
    pub rate_limit: RateLimitFields,
}

impl Response {
    /// A response with this status and no headers.
    pub const fn new(status: u16) -> Self {
        Self {
            status,
            retry_after: None,
            date: None,
            cross_origin: false,
            rate_limit: RateLimitFields::none(),
        }
    }

    /// The answer as the core reads it, from its status and a look-up of its headers by
    /// lower-case name: the one place that says which headers the core reads (`Retry-After`,
    /// `Date` and the RateLimit fields). A driver gives a value that is not text as text with
    /// replacement characters, so the core finds it invalid rather than missing.
    ///
    /// ```
    /// use retry_budget::Response;
    ///
    /// let date = "Mon, 01 Jan 2024 12:00:00 GMT";
    /// let headers = [("retry-after", "3"), ("date", date), ("x-ratelimit-reset", "3"), ("x-trace", "a")];
    /// let look_up = |name: &str| headers.iter().find(|h| h.0 == name).map(|h| h.1.to_owned());
    /// assert_eq!(
    ///     Response::from_headers(429, look_up),
    ///     Response::new(429).retry_after("3").date(date).rate_limit("X-RateLimit-Reset", "3")
    /// );
    /// ```
    pub fn from_headers(status: u16, header: impl Fn(&str) -> Option<String>) -> Self {
        let mut response = Self::new(status);
        response.retry_after = header("retry-after");
        response.date = header("date");
        for name in RateLimitFields::NAMES {
            if let Some(value) = header(name) {
                response.rate_limit.set(name, value);
            }
        }
        response
    }

    /// With a `Retry-After` value.
    pub fn retry_after(mut self, value: impl Into<String>) -> Self {
        self.retry_after = Some(value.into());
        self
    }

    /// With a `Date` value.
    pub fn date(mut self, value: impl Into<String>) -> Self {
        self.date = Some(value.into());
        self
    }

    /// With a rate-limit field (`RateLimit`, `RateLimit-Remaining`, … in any case); any other
    /// name is not one, and panics.
    pub fn rate_limit(mut self, name: &str, value: impl Into<String>) -> Self {
        assert!(
            self.rate_limit.set(name, value),
            "{name} is not a rate-limit field"
        );
        self
    }

    /// Marked as cross-origin.
    pub const fn cross_origin(mut self, cross_origin: bool) -> Self {
        self.cross_origin = cross_origin;
        self
    }
}

/// What a response says, read once: the receipt's clock evidence, `Retry-After`, and the
/// RateLimit fields.
#[derive(Clone, Debug)]
pub(crate) struct Reading {
    /// The receipt's wall-clock time, where there is evidence ([`receipt_clock`]).
    pub wall_clock: Option<(SystemTime, ClockSource)>,
    /// `Retry-After`, parsed; `None` when the response has none.
    pub retry_after: Option<Result<RetryAfter, InvalidRetryAfter>>,
    /// What the RateLimit fields said of the quota, if any did.
    pub quota: Option<Quota>,
    /// RateLimit fields present but not used, and why.
    pub ignored: Vec<IgnoredField>,
}

impl Response {
    /// Reads what the response says, once. `local_wall_clock` dates the receipt only where the
    /// response has no readable `Date` and the policy trusts the local clock (`trust_local`).
    pub(crate) fn read(&self, local_wall_clock: Option<SystemTime>, trust_local: bool) -> Reading {
        let wall_clock = receipt_clock(self.date.as_deref(), local_wall_clock, trust_local);
        let (quota, ignored) = self.rate_limit.quota(wall_clock.map(|(at, _)| at));
        Reading {
            wall_clock,
            retry_after: self.retry_after.as_deref().map(parse_retry_after),
            quota,
            ignored,
        }
    }
}
