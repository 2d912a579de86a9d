//! What the reads of one scope share, set once for the scope: how many of its requests may be
//! in flight at once, how many of its reads may be delayed at once, and its purse of retry
//! tokens. A read's own budget is its [`RetryPolicy`](super::RetryPolicy); these are the
//! scope's, so two reads cannot disagree about them.

use std::fmt;

/// The settings one scope's reads share, given once to the [`Client`](super::Client) that keeps
/// the scope's ledger ([`Client::handle_scope_policy`](super::Client::handle_scope_policy)). A
/// scope given none shares only what its answers say (blocks, the RateLimit fields).
///
/// | setting | default |
/// |---|---|
/// | requests in flight at once ([`with_in_flight_limit`](Self::with_in_flight_limit)) | no limit |
/// | reads delayed at once ([`with_max_waiting`](Self::with_max_waiting)) | no cap |
/// | retry tokens ([`with_retry_tokens`](Self::with_retry_tokens)) | off |
///
/// ```
/// use retry_budget::scope::RetryTokens;
/// use retry_budget::ScopePolicy;
///
/// /// The source document's shared credentials: two in flight, 25 delayed, 10 retry tokens.
/// const SHARED: ScopePolicy = ScopePolicy::new()
///     .with_in_flight_limit(2)
///     .with_max_waiting(25)
///     .with_retry_tokens(RetryTokens::new(10, 10));
/// assert_eq!(SHARED.in_flight_limit(), Some(2));
/// assert!(SHARED.validate().is_ok());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScopePolicy {
    in_flight_limit: Option<u32>,
    max_waiting: Option<u32>,
    retry_tokens: Option<RetryTokens>,
}

impl ScopePolicy {
    /// A scope that shares nothing but what its answers say: no limit, no cap, no tokens.
    pub const fn new() -> Self {
        Self {
            in_flight_limit: None,
            max_waiting: None,
            retry_tokens: None,
        }
    }

    /// At most `n` requests to the scope in flight at once (default: no limit): an attempt
    /// that would be one more queues behind the attempts that queued before it on the scope
    /// (interactive reads before background ones, see
    /// [`RetryPolicy::with_priority`](super::RetryPolicy::with_priority)), and starts when one
    /// of those in flight ends. Its turn must come while the attempt still fits its read's
    /// budget with its full cap; otherwise the read stops as `budget_exhausted`, with no
    /// request sent. In the browser the count is the page's own: other tabs share blocks, not
    /// places. At least 1.
    pub const fn with_in_flight_limit(mut self, n: u32) -> Self {
        self.in_flight_limit = Some(n);
        self
    }

    /// At most `n` reads on the scope delayed at once, waiting or queued (default: no cap), as
    /// the source document's `max_delayed_requests`. A new read that would be the next one
    /// delayed stops at its start as `budget_exhausted`, sends nothing, and says that the API
    /// already has `n` reads waiting; a read that can start at once is never turned away. At
    /// least 1.
    pub const fn with_max_waiting(mut self, n: u32) -> Self {
        self.max_waiting = Some(n);
        self
    }

    /// The scope's retries spend tokens from one purse ([`RetryTokens`]; default: off, every
    /// retry a read's budget fits is sent). The purse starts full; every success on the scope
    /// refills it.
    pub const fn with_retry_tokens(mut self, tokens: RetryTokens) -> Self {
        self.retry_tokens = Some(tokens);
        self
    }

    /// The most requests to the scope in flight at once; `None`: no limit.
    pub const fn in_flight_limit(&self) -> Option<u32> {
        self.in_flight_limit
    }

    /// The most reads delayed on the scope before a new one is turned away; `None`: no cap.
    pub const fn max_waiting(&self) -> Option<u32> {
        self.max_waiting
    }

    /// The scope's retry tokens; `None`: off.
    pub const fn retry_tokens(&self) -> Option<RetryTokens> {
        self.retry_tokens
    }

    /// Refuses settings that cannot work, naming the one that is wrong.
    pub fn validate(&self) -> Result<(), ScopePolicyError> {
        if self.in_flight_limit == Some(0) {
            return Err(ScopePolicyError::NoneInFlight);
        }
        if self.max_waiting == Some(0) {
            return Err(ScopePolicyError::NoneWaiting);
        }
        if let Some(tokens) = self.retry_tokens {
            if tokens.max == 0 {
                return Err(ScopePolicyError::NoRetryTokens);
            }
            if tokens.refill_percent == 0 || tokens.refill_percent > 100 {
                return Err(ScopePolicyError::RefillOutOfRange(tokens.refill_percent));
            }
        }
        Ok(())
    }
}

/// Why a scope's policy was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScopePolicyError {
    /// An in-flight limit of 0.
    #[error("in_flight_limit is 0: at least one request must be allowed in flight")]
    NoneInFlight,
    /// A cap of 0 delayed reads.
    #[error(
        "max_waiting is 0: a read that must wait could never start; leave it unset for no cap"
    )]
    NoneWaiting,
    /// A purse of 0 retry tokens.
    #[error("retry_tokens max is 0: no retry could ever be sent; use max_attempts 1 for that")]
    NoRetryTokens,
    /// A refill outside 1–100 % of a token per success.
    #[error("retry_tokens refill is {0} %: each success must earn back 1 to 100 % of a token")]
    RefillOutOfRange(u32),
    /// The scope was already given another policy: a scope has one, given once.
    #[error("scope {} already has another policy: a scope's policy is given once", Quoted(.scope))]
    AlreadySet {
        /// The scope's name.
        scope: String,
    },
}

/// A scope's name, quoted as every value is shown ([`quoted`](super::quoted)).
struct Quoted<'a>(&'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&super::shown::quoted(self.0))
    }
}

/// A retry budget shared by every read on one scope, after gRPC's retry throttling and
/// Finagle's `RetryBudget`: retries (never first attempts) spend tokens that successes earn
/// back, so a fleet of clients stops multiplying its load on a service that keeps refusing.
///
/// The scope's purse starts full, at `max` tokens. Each retry spends one; each 2xx on the
/// scope earns back `refill_percent` % of one, up to `max`. A read whose answer asks for a
/// retry when less than one whole token is left stops as `budget_exhausted` and says why.
/// `RetryTokens::new(10, 10)` allows 10 retries at once, then about one retry per 10 successes:
/// gRPC's `maxTokens 10, tokenRatio 0.1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryTokens {
    /// The most tokens the purse holds, and what it starts with.
    pub max: u32,
    /// The percent of one token each success earns back.
    pub refill_percent: u32,
}

impl RetryTokens {
    /// A purse of `max` tokens, refilled by `refill_percent` % of one per success.
    pub const fn new(max: u32, refill_percent: u32) -> Self {
        Self {
            max,
            refill_percent,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn each_setting_is_kept_and_each_impossible_one_is_refused_by_name() {
        let p = ScopePolicy::new();
        assert_eq!(p, ScopePolicy::default());
        assert_eq!(
            (p.in_flight_limit(), p.max_waiting(), p.retry_tokens()),
            (None, None, None)
        );
        assert_eq!(p.with_in_flight_limit(2).in_flight_limit(), Some(2));
        assert_eq!(p.with_max_waiting(3).max_waiting(), Some(3));
        let tokens = RetryTokens::new(2, 10);
        assert_eq!(p.with_retry_tokens(tokens).retry_tokens(), Some(tokens));
        assert_eq!(
            p.with_in_flight_limit(0)
                .validate()
                .unwrap_err()
                .to_string(),
            "in_flight_limit is 0: at least one request must be allowed in flight"
        );
        assert_eq!(
            p.with_max_waiting(0).validate(),
            Err(ScopePolicyError::NoneWaiting)
        );
        for (tokens, error, words) in [
            (
                RetryTokens::new(0, 10),
                ScopePolicyError::NoRetryTokens,
                "retry_tokens max is 0: no retry could ever be sent; use max_attempts 1 for that",
            ),
            (
                RetryTokens::new(1, 0),
                ScopePolicyError::RefillOutOfRange(0),
                "retry_tokens refill is 0 %: each success must earn back 1 to 100 % of a token",
            ),
            (
                RetryTokens::new(1, 101),
                ScopePolicyError::RefillOutOfRange(101),
                "retry_tokens refill is 101 %: each success must earn back 1 to 100 % of a token",
            ),
        ] {
            assert_eq!(p.with_retry_tokens(tokens).validate(), Err(error.clone()));
            assert_eq!(error.to_string(), words);
        }
        assert!(p
            .with_retry_tokens(RetryTokens::new(10, 10))
            .validate()
            .is_ok());
        assert!(p
            .with_retry_tokens(RetryTokens::new(1, 100))
            .validate()
            .is_ok());
        assert_eq!(
            ScopePolicyError::AlreadySet {
                scope: "account:ops".into()
            }
            .to_string(),
            "scope \u{201c}account:ops\u{201d} already has another policy: a scope's policy is given once"
        );
    }
}
