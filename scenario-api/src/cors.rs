//! CORS: every answer allows any origin and exposes `Retry-After`, `Date` and the
//! RateLimit fields, except the two
//! deliberate misconfigurations a scenario can ask for.

use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};

/// Marks a response the CORS layer must leave bare (a failure that looks like a network error).
#[derive(Clone, Copy)]
pub(crate) struct NoCors;

/// Marks a response whose `Retry-After` and `Date` the CORS layer must not expose (a run
/// started with `expose=none`: a misconfigured cross-origin API).
#[derive(Clone, Copy)]
pub(crate) struct HideHeaders;

pub(crate) async fn cors(method: Method, mut response: Response) -> Response {
    if response.extensions().get::<NoCors>().is_some() {
        return response;
    }
    let expose = response.extensions().get::<HideHeaders>().is_none();
    let h = response.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    if expose {
        h.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(
                "Retry-After, Date, RateLimit, RateLimit-Policy, RateLimit-Limit, \
                 RateLimit-Remaining, RateLimit-Reset",
            ),
        );
    }
    if method == Method::OPTIONS {
        h.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST"),
        );
        h.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static("content-type, authorization"),
        );
    }
    response
}

/// Answers every CORS preflight, whatever the route.
pub(crate) async fn preflight(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if request.method() == Method::OPTIONS {
        return StatusCode::NO_CONTENT.into_response();
    }
    next.run(request).await
}
