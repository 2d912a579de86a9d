//! The reads a server makes while it renders (`ssr`): each component's read, made through the
//! process's one [`Client`] (so one ledger for every render), with the request the app makes
//! for the server from the one the component was given. What it came to is the read's server
//! part, which the HTML carries to the browser.

use std::sync::Arc;

use leptos::prelude::*;
use retry_budget::{ReadRequest, RetryPolicy};
use retry_budget_tokio::Client;
use tokio::sync::oneshot;

use super::from_server::{not_read, text};
use super::state::{Parse, ReadData};

/// How a server's renders read: through `client`, one per process, and with the request
/// `for_server` makes from the one a component was given for the browser (the API's address
/// as the server reaches it, the server's own key). None of what the server sends reaches
/// the page: the page gets the data, the stop, or the wait.
///
/// ```no_run
/// use leptos_retry_budget::{provide_server_reads, ReadRequest, ServerReads};
/// use retry_budget_tokio::{AllowedOrigins, Client};
///
/// let client = Client::new(AllowedOrigins::new(["http://10.0.0.7:8080"]).unwrap());
/// let reads = ServerReads::new(client, |browser: &ReadRequest| {
///     // The browser asks `/api/...` of its origin; the server asks the API directly.
///     ReadRequest::get(format!("http://10.0.0.7:8080{}", browser.url()))
///         .with_header("Authorization", "Bearer the-server-key")
/// });
/// // In `leptos_routes_with_context`, for every render:
/// provide_server_reads(reads.clone());
/// ```
#[derive(Clone)]
pub struct ServerReads {
    client: Client,
    for_server: Arc<dyn Fn(&ReadRequest) -> ReadRequest + Send + Sync>,
}

impl ServerReads {
    /// Reads through `client`, each read's request made by `for_server` from the browser's.
    pub fn new(
        client: Client,
        for_server: impl Fn(&ReadRequest) -> ReadRequest + Send + Sync + 'static,
    ) -> Self {
        Self {
            client,
            for_server: Arc::new(for_server),
        }
    }
}

/// Makes the budgeted reads of the current render read on the server through `reads`: call
/// it in the context every render gets (`leptos_routes_with_context`). Without it, the server
/// renders each read's first state, sends nothing, and the browser reads.
pub fn provide_server_reads(reads: ServerReads) {
    provide_context(reads);
}

/// The read of `request` in the current render, as the text of what it came to: it holds the
/// render no longer than the policy's [`server_hold`](RetryPolicy::server_hold), and is left
/// (nothing more sent for it) if the render ends first, as when the visitor goes away.
pub(super) fn read_in_render<T, R>(
    request: ReadRequest,
    policy: RetryPolicy,
    parse: Arc<R>,
) -> impl std::future::Future<Output = String> + Send + 'static
where
    T: ReadData,
    R: Parse<T>,
{
    let reads = use_context::<ServerReads>();
    // The render's owner ends (its stream is dropped): the read is left.
    let (ended, render_ended) = oneshot::channel::<()>();
    on_cleanup(move || drop(ended));
    async move {
        let Some(reads) = reads else {
            return not_read();
        };
        let on_server = (reads.for_server)(&request);
        let read = reads
            .client
            .read_or_hand_over(&on_server, policy, |body: &[u8]| parse(body));
        tokio::select! {
            served = read => text(served),
            _ = render_ended => not_read(),
        }
    }
}
