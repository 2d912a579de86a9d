//! The budget as a `tower` layer (feature `tower`): every `GET` a service stack sends (a hyper
//! client, a proxy's upstream) is read under a [`Client`]'s one ledger, each attempt made by
//! the inner service. Like `middleware.rs`, this file only adapts: the read is the client's,
//! its rules the core's.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::task::{Context, Poll};

use http::{Method, Request, Response};
use retry_budget::request::ReadRequest;
use retry_budget::RetryPolicy;
use tower_layer::Layer;
use tower_service::Service;

use crate::attempt::{unread, Answer};
use crate::client::{Client, NotLoaded, ReadRecord};

/// The error a [`BudgetService`] answers with, as tower's own layers do.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A finite retry budget for every `GET` through a tower service stack: `Retry-After`
/// honoured exactly, each attempt capped, the whole read within its deadline, every read of
/// the process on the [`Client`]'s one ledger. Other methods pass through untouched.
///
/// ```no_run
/// # fn run(http: impl Clone) -> Result<(), Box<dyn std::error::Error>> {
/// use retry_budget_tokio::{AllowedOrigins, BudgetLayer, Client, RetryPolicy};
/// use tower_layer::Layer;
///
/// let allowed = AllowedOrigins::new(["https://api.example.com"])?;
/// let layer = BudgetLayer::new(Client::new(allowed), RetryPolicy::new());
/// // `http`: any `Service<http::Request<B>>` answering `http::Response<_>`, e.g. hyper-util's
/// // legacy client; `B` is cloned for each attempt.
/// let budgeted = layer.layer(http);
/// # let _ = budgeted;
/// # Ok(())
/// # }
/// ```
///
/// - **Which reads.** `GET` only; any other method is called once on the inner service. The
///   request's URI must be absolute and on the client's allowed origins; its body (empty, for
///   a `GET`) and headers are cloned for each attempt, never copied into a trace.
/// - **The policy.** The one given to [`new`](Self::new), or a request's own: a
///   [`RetryPolicy`] in its extensions. Its scope, or the URI's origin, is the ledger's scope.
/// - **What comes back.** The first `2xx` response, its body unread, with a [`ReadRecord`] in
///   its extensions. One whose `Content-Length` is past the policy's body limit stops the read.
///   A read that stops without a `2xx` fails with [`LayerStopped`] (the report, and the last
///   response's status and headers); one refused before anything is sent with a
///   [`ReadError`](crate::ReadError); an inner service that is not ready fails the attempt,
///   not the read.
/// - **Time.** The policy's attempt cap ends an attempt that has no response by then (its
///   future is dropped); dropping the call's future leaves the read.
#[derive(Clone)]
pub struct BudgetLayer {
    client: Client,
    policy: RetryPolicy,
}

impl BudgetLayer {
    /// Reads each `GET` through `client`'s ledger under `policy` (unless the request carries
    /// its own). One `Client` per process, shared with the app's other reads.
    pub fn new(client: Client, policy: RetryPolicy) -> Self {
        Self { client, policy }
    }
}

impl<S> Layer<S> for BudgetLayer {
    type Service = BudgetService<S>;

    fn layer(&self, inner: S) -> BudgetService<S> {
        BudgetService {
            inner,
            client: self.client.clone(),
            policy: self.policy.clone(),
        }
    }
}

/// The service a [`BudgetLayer`] wraps around `S`.
#[derive(Clone)]
pub struct BudgetService<S> {
    inner: S,
    client: Client,
    policy: RetryPolicy,
}

/// A read the layer stopped without a `2xx`. Its message is the report's.
#[derive(Debug, thiserror::Error)]
#[error("{}", .record.report.message())]
pub struct LayerStopped {
    /// How the read went.
    pub record: ReadRecord,
    /// The last response the read had (a `429`, a `503`), its status and headers; its body
    /// was not read, and is dropped.
    pub last: Option<Response<()>>,
}

impl<S, B, R> Service<Request<B>> for BudgetService<S>
where
    S: Service<Request<B>, Response = Response<R>> + Clone + Send + 'static,
    S::Future: Send,
    S::Error: Into<BoxError>,
    B: Clone + Send + Sync + 'static,
    R: Send + 'static,
{
    type Response = Response<R>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Response<R>, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // The service made ready serves the first attempt (tower's contract); a clone serves
        // each one after it, made ready first.
        let fresh = self.inner.clone();
        let ready = std::mem::replace(&mut self.inner, fresh);
        if request.method() != Method::GET {
            let mut ready = ready;
            return Box::pin(async move { ready.call(request).await.map_err(Into::into) });
        }
        let policy = (request.extensions().get::<RetryPolicy>().cloned())
            .unwrap_or_else(|| self.policy.clone());
        let (client, inner) = (self.client.clone(), self.inner.clone());
        Box::pin(async move { read(client, policy, ready, inner, request).await })
    }
}

/// `request` read to its stop under `policy`: its first attempt sent by `ready`, each later
/// one by a clone of `inner`.
async fn read<S, B, R>(
    client: Client,
    policy: RetryPolicy,
    ready: S,
    inner: S,
    request: Request<B>,
) -> Result<Response<R>, BoxError>
where
    S: Service<Request<B>, Response = Response<R>> + Clone + Send,
    S::Future: Send,
    B: Clone + Send + Sync,
{
    let read = ReadRequest::get(request.uri().to_string());
    let limit = policy.max_body_bytes();
    let first = Mutex::new(Some(ready));
    let last = Mutex::new(None);
    // `inner` is the closure's own, so a service that is `Send` but not `Sync` will do.
    let (first, last, request) = (&first, &last, &request);
    let send = move || {
        let taken = first.lock().unwrap_or_else(PoisonError::into_inner).take();
        let mut service = taken.unwrap_or_else(|| inner.clone());
        let attempt = copy(request);
        async move {
            if poll_fn(|cx| service.poll_ready(cx)).await.is_err() {
                return Ok(Answer::Failed);
            }
            let Ok(response) = service.call(attempt).await else {
                return Ok(Answer::Failed);
            };
            let status = response.status().as_u16();
            Ok(unread(response, status, Response::headers, limit, |kept| {
                // Its head only: the body was not read, and goes with the answer.
                let (head, _body) = kept.into_parts();
                *last.lock().unwrap_or_else(PoisonError::into_inner) =
                    Some(Response::from_parts(head, ()));
            }))
        }
    };
    match client.carry(&read, policy, send).await {
        Ok((mut response, record)) => {
            response.extensions_mut().insert(record);
            Ok(response)
        }
        Err(NotLoaded::Stopped(record)) => Err(Box::new(LayerStopped {
            record,
            last: last.lock().unwrap_or_else(PoisonError::into_inner).take(),
        })),
        Err(NotLoaded::Refused(refused)) => Err(Box::new(refused)),
    }
}

/// Another copy of `request` to send: its method, URI, version, headers, body and extensions.
fn copy<B: Clone>(request: &Request<B>) -> Request<B> {
    let mut copy = Request::new(request.body().clone());
    *copy.method_mut() = request.method().clone();
    *copy.uri_mut() = request.uri().clone();
    *copy.version_mut() = request.version();
    *copy.headers_mut() = request.headers().clone();
    *copy.extensions_mut() = request.extensions().clone();
    copy
}
