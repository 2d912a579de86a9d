//! What an answer's headers say, each read by one rule: `Retry-After` as delay-seconds or any
//! of the three HTTP-date forms ([`parse_retry_after`], [`HttpDate`]), `Date` and the clock
//! evidence that dates a receipt ([`receipt_clock`]), and the RateLimit fields
//! ([`RateLimitFields`], through `sfv`). A [`Response`](crate::Response) reads them once for
//! every decision; they are public for a server that must answer as a client will read it.

pub use crate::clock::{parse_date_header, receipt_clock, ClockSource};
pub use crate::http_date::{HttpDate, MIN_SECS as FIRST_HTTP_DATE};
pub use crate::rate_limit::{IgnoredField, Quota, QuotaForm, RateLimitFields};
pub use crate::retry_after::{parse_retry_after, HeaderNote, InvalidRetryAfter, RetryAfter};
