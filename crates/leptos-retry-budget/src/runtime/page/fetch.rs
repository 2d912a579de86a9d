//! One attempt on the wire: a gloo-net `GET` with its own `AbortController`, the headers the
//! core needs, and a 2xx body read as it streams in.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, ReadableStreamDefaultReader, ReadableStreamReadResult, RequestCredentials,
};

use super::origin::is_cross_origin;
use retry_budget::body::BodyProblem;
use retry_budget::body::LimitedBody;
use retry_budget::policy::is_success;
use retry_budget::request::{Credentials, ReadRequest};
use retry_budget::Response;

/// What one fetch came back with.
pub(super) enum Answer<T> {
    /// Headers arrived; for a 2xx, the body read as `T`, or why it could not be.
    Response(Response, Result<Option<T>, BodyProblem>),
    /// No HTTP response: the network failed, or the fetch was aborted.
    Failed,
}

/// Sends `request` (a `GET`, validated), aborted by `controller`; a 2xx body of at most `limit`
/// bytes is read by `read`.
pub(super) async fn fetch<T>(
    request: &ReadRequest,
    limit: u64,
    parse: &dyn Fn(&[u8]) -> Result<T, BodyProblem>,
    controller: &AbortController,
) -> Answer<T> {
    let signal = controller.signal();
    let url = request.url();
    let mut builder = gloo_net::http::Request::get(url)
        .abort_signal(Some(&signal))
        .credentials(match request.credentials() {
            Credentials::SameOrigin => RequestCredentials::SameOrigin,
            Credentials::Include => RequestCredentials::Include,
            Credentials::Omit => RequestCredentials::Omit,
        });
    for (name, value) in request.headers() {
        builder = builder.header(name, value);
    }
    let sent = builder.send().await;
    // The browser's own words ("Failed to fetch") say no more than the outcome does.
    let Ok(resp) = sent else {
        return Answer::Failed;
    };
    let header = |name: &str| resp.headers().get(name);
    // Where the answer came from, after any redirect, decides whether CORS may hide its
    // headers.
    let from = resp.url();
    let mut response = Response::from_headers(resp.status(), header);
    response.cross_origin = is_cross_origin(if from.is_empty() { url } else { &from });
    let body = if is_success(response.status) {
        receive_body(&resp, limit, parse, controller)
            .await
            .map(Some)
    } else {
        Ok(None)
    };
    Answer::Response(response, body)
}

/// Reads a 2xx body chunk by chunk as it streams in, through the one body rule
/// ([`LimitedBody`]): a declared or counted size past `limit` stops the read and aborts the
/// fetch, so a huge body is never held whole.
async fn receive_body<T>(
    resp: &gloo_net::http::Response,
    limit: u64,
    parse: &dyn Fn(&[u8]) -> Result<T, BodyProblem>,
    controller: &AbortController,
) -> Result<T, BodyProblem> {
    let too_large = |p| {
        controller.abort();
        p
    };
    let length = resp.headers().get("content-length");
    let mut body = LimitedBody::new(limit, length.as_deref()).map_err(too_large)?;
    // No stream at all: a 204, or a 200 with a null body.
    let Some(stream) = resp.body() else {
        return body.finish(parse);
    };
    let reader = ReadableStreamDefaultReader::new(&stream).map_err(|_| BodyProblem::Interrupted)?;
    loop {
        let Ok(next) = JsFuture::from(reader.read()).await else {
            return Err(BodyProblem::Interrupted);
        };
        // A read result is a plain `{ done, value }` object: a dictionary, which has no class
        // to check against.
        let next: ReadableStreamReadResult = next.unchecked_into();
        if next.get_done().unwrap_or(true) {
            break;
        }
        let value = next.get_value();
        let Some(chunk) = value.dyn_ref::<js_sys::Uint8Array>() else {
            return Err(BodyProblem::Interrupted);
        };
        let room = body.extend(chunk.length() as usize).map_err(too_large)?;
        chunk.copy_to(room);
    }
    body.finish(parse)
}
