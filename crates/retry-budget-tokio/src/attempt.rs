//! One attempt on the wire: the request as the read describes it, the headers the core reads,
//! and a 2xx body streamed up to its limit under the core's one body rule. Dropping the future
//! drops the request, which aborts it.

use reqwest::header::{HeaderMap, CONTENT_LENGTH};
use retry_budget::body::{BodyProblem, LimitedBody};
use retry_budget::policy::is_success;
use retry_budget::request::ReadRequest;
use retry_budget::Response;

/// What an attempt came to.
pub(crate) enum Answer<T> {
    /// An HTTP response, as the core reads it, and for a 2xx its body parsed (any other
    /// status's body is not read: `None`).
    Response(Response, Option<Result<T, BodyProblem>>),
    /// No HTTP response could be read (the connection failed, or was refused).
    Failed,
}

/// Sends `request` once with `http`, and reads the answer: a 2xx's body at most `limit` bytes,
/// parsed by `parse`.
pub(crate) async fn send<T>(
    http: &reqwest::Client,
    request: &ReadRequest,
    limit: u64,
    parse: &(dyn Fn(&[u8]) -> Result<T, BodyProblem> + Sync),
) -> Answer<T> {
    let mut builder = http.get(request.url());
    for (name, value) in request.headers() {
        builder = builder.header(name, value);
    }
    let Ok(mut answer) = builder.send().await else {
        return Answer::Failed;
    };
    let response = core_response(answer.status().as_u16(), answer.headers());
    if !is_success(response.status) {
        return Answer::Response(response, None);
    }
    let length = header(answer.headers(), CONTENT_LENGTH.as_str());
    let body = match LimitedBody::new(limit, length.as_deref()) {
        Ok(mut body) => loop {
            match answer.chunk().await {
                Ok(Some(chunk)) => {
                    if let Err(problem) = body.push(&chunk) {
                        // Past the limit: the rest is never read (the request is dropped).
                        break Err(problem);
                    }
                }
                Ok(None) => break body.finish(parse),
                Err(_) => break Err(BodyProblem::Interrupted),
            }
        },
        Err(problem) => Err(problem),
    };
    Answer::Response(response, Some(body))
}

/// The status and the headers the core reads, which it names. A server's answer is never
/// cross-origin: nothing hides a header from it.
pub(crate) fn core_response(status: u16, headers: &HeaderMap) -> Response {
    Response::from_headers(status, |name| header(headers, name))
}

/// An answer whose body is the app's to read (through the middleware or the layer), as the
/// read hears it: a 2xx whose declared length is within `limit` (the core's body rule, before a
/// byte is read) is handed on whole; anything else goes to `keep_last`, the read's last answer,
/// with the core told of it (a 2xx past the limit, or a status whose body is not read).
#[cfg(any(feature = "middleware", feature = "tower"))]
pub(crate) fn unread<T>(
    answer: T,
    status: u16,
    headers_of: impl Fn(&T) -> &HeaderMap,
    limit: u64,
    keep_last: impl FnOnce(T),
) -> Answer<T> {
    let headers = headers_of(&answer);
    let response = core_response(status, headers);
    let body = if is_success(status) {
        let length = header(headers, CONTENT_LENGTH.as_str());
        match LimitedBody::new(limit, length.as_deref()) {
            Ok(_) => return Answer::Response(response, Some(Ok(answer))),
            Err(problem) => Some(Err(problem)),
        }
    } else {
        None
    };
    keep_last(answer);
    Answer::Response(response, body)
}

/// A header's value, as text: bytes that are not UTF-8 are kept as replacement characters, so
/// the core finds the value invalid rather than missing.
fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    (headers.get(name)).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}
