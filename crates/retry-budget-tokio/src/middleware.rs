//! The budget as `reqwest` middleware (feature `middleware`): every `GET` sent through a
//! `reqwest_middleware::ClientWithMiddleware` is read under a [`Client`]'s one ledger, each
//! attempt made by the rest of the middleware chain. This file only adapts: the read is the
//! client's, its rules the core's.

use std::sync::{Mutex, PoisonError};

use http::Extensions;
use reqwest::{Method, Request, Response};
use reqwest_middleware::{Middleware, Next};
use retry_budget::request::ReadRequest;
use retry_budget::RetryPolicy;

use crate::attempt::{unread, Answer};
use crate::client::{Client, NotLoaded, ReadRecord};

/// A finite retry budget for every `GET` a `reqwest_middleware::ClientWithMiddleware` sends:
/// `Retry-After` honoured exactly, each attempt capped, the whole read within its deadline, and
/// every read of the process on the [`Client`]'s one ledger (a `429` met by one holds back the
/// others on its scope). Other methods pass through untouched: a write is not retried here.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use retry_budget_tokio::{AllowedOrigins, Budget, Client, RetryPolicy};
///
/// let allowed = AllowedOrigins::new(["https://api.example.com"])?;
/// let budget = Budget::new(Client::new(allowed.clone()), RetryPolicy::new());
/// // The client under the budget follows redirects only to the allowed origins.
/// let http = reqwest::Client::builder().redirect(allowed.redirect_policy()).build()?;
/// let http = reqwest_middleware::ClientBuilder::new(http).with(budget).build();
///
/// match http.get("https://api.example.com/v1/items").send().await {
///     Ok(items) => println!("{}", items.text().await?),
///     Err(e) => match retry_budget_tokio::Stopped::of(&e) {
///         Some(stopped) => println!("{}", stopped.record.report.message()),
///         None => println!("not read: {e}"),
///     },
/// }
/// # Ok(())
/// # }
/// ```
///
/// - **Which reads.** `GET` only; any other method is sent once, as the chain sends it. A `GET`
///   whose body is a stream (which cannot be sent twice) is refused before anything is sent.
/// - **The policy.** The one given to [`new`](Self::new), or a request's own: a
///   [`RetryPolicy`] in its extensions (`RequestBuilder::with_extension`). Its scope, or the
///   URL's origin, is the ledger's scope.
/// - **What comes back.** The first `2xx` response, its body unread (the app reads it, as it
///   would without the budget), with a [`ReadRecord`] in its extensions. One whose
///   `Content-Length` is past the policy's body limit stops the read, not retried (the core's
///   body rule, before a byte is read); a body with no length declared is the app's to bound. A read that stops without one is a
///   [`Stopped`] error, holding the last response it had. A request refused before anything is
///   sent (its URL's origin, its policy) is a [`ReadError`](crate::ReadError).
/// - **Time.** The policy's attempt cap ends an attempt that has no response headers by then
///   (the request is dropped, so aborted); a request's own `timeout` still applies inside each
///   attempt, and a timeout is a failed attempt. Dropping the future leaves the read.
/// - **Origins.** Each read's URL must be on the [`Client`]'s allowed origins. An answer from
///   any other (a redirect the HTTP client under the chain followed) is refused, never handed
///   on; to send nothing there at all, give that client
///   [`AllowedOrigins::redirect_policy`](crate::AllowedOrigins::redirect_policy).
#[derive(Clone)]
pub struct Budget {
    client: Client,
    policy: RetryPolicy,
}

impl Budget {
    /// Reads each `GET` through `client`'s ledger under `policy` (unless the request carries
    /// its own). One `Client` per process, shared with the app's other reads.
    pub fn new(client: Client, policy: RetryPolicy) -> Self {
        Self { client, policy }
    }
}

/// A read the budget stopped without a `2xx`: out of attempts or time, or stopped by a
/// `Retry-After` it could not wait out. Its message is the report's.
#[derive(Debug, thiserror::Error)]
#[error("{}", .record.report.message())]
pub struct Stopped {
    /// How the read went.
    pub record: ReadRecord,
    /// The last response the read had (a `429`, a `503`), if any: its body unread.
    pub last: Option<Response>,
}

impl Stopped {
    /// The stop inside a middleware chain's error, if that is what it is.
    pub fn of(error: &reqwest_middleware::Error) -> Option<&Stopped> {
        match error {
            reqwest_middleware::Error::Middleware(e) => e.downcast_ref(),
            _ => None,
        }
    }
}

#[async_trait::async_trait]
impl Middleware for Budget {
    async fn handle(
        &self,
        request: Request,
        extensions: &mut Extensions,
        next: Next<'_>,
    ) -> reqwest_middleware::Result<Response> {
        if request.method() != Method::GET {
            return next.run(request, extensions).await;
        }
        if request.try_clone().is_none() {
            return Err(reqwest_middleware::Error::middleware(NotResendable));
        }
        let policy =
            (extensions.get::<RetryPolicy>().cloned()).unwrap_or_else(|| self.policy.clone());
        // The URL is what the budget reads of the request: its origin and scope. The headers
        // go as the app set them, already valid, and are never copied into a trace.
        let read = ReadRequest::get(request.url().as_str());
        let allowed = self.client.allowed();
        let limit = policy.max_body_bytes();
        let last = Mutex::new(None);
        // Each attempt owns what it sends: a copy of the request, of the rest of the chain and
        // of the extensions (what a later middleware puts in them stays with its attempt).
        let send = || {
            let attempt = request.try_clone();
            let (next, mut extensions, last) = (next.clone(), extensions.clone(), &last);
            async move {
                let Some(attempt) = attempt else {
                    return Ok(Answer::Failed);
                };
                let Ok(response) = next.run(attempt, &mut extensions).await else {
                    return Ok(Answer::Failed);
                };
                allowed.check(response.url().as_str())?;
                let status = response.status().as_u16();
                Ok(unread(response, status, Response::headers, limit, |kept| {
                    *last.lock().unwrap_or_else(PoisonError::into_inner) = Some(kept);
                }))
            }
        };
        match self.client.carry(&read, policy, send).await {
            Ok((mut response, record)) => {
                response.extensions_mut().insert(record);
                Ok(response)
            }
            Err(NotLoaded::Stopped(record)) => {
                Err(reqwest_middleware::Error::middleware(Stopped {
                    record,
                    last: last.into_inner().unwrap_or_else(PoisonError::into_inner),
                }))
            }
            Err(NotLoaded::Refused(refused)) => Err(reqwest_middleware::Error::middleware(refused)),
        }
    }
}

/// A `GET` whose body is a stream: it cannot be sent a second time, so it is not read under a
/// budget; nothing was sent.
#[derive(Debug, thiserror::Error)]
#[error(
    "a GET whose body is a stream cannot be sent twice, so it is not retried; nothing was sent"
)]
pub struct NotResendable;
