//! `--api ORIGIN`: the rate-limited API lives in a process of its own, read by several replicas
//! of this server. Their renders read it there; `GET /api/palettes` here forwards a browser's
//! read to it, so that the browser's continuation of a handed-over read meets the same limit
//! the renders met. What is forwarded: the query, the browser's `User-Agent` and the app's key
//! header; what comes back: the status, `Retry-After`, `Content-Type` and the body.

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::app::KEY_HEADER;

#[derive(Clone)]
struct Forward {
    http: reqwest::Client,
    api: String,
}

/// `GET /api/palettes`, forwarded to the API at `api` (an origin).
pub fn router<S: Clone + Send + Sync + 'static>(api: String) -> Router<S> {
    Router::new()
        .route("/api/palettes", get(forward))
        .with_state(Forward {
            http: reqwest::Client::new(),
            api,
        })
}

async fn forward(
    State(f): State<Forward>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let url = format!("{}/api/palettes?{}", f.api, query.unwrap_or_default());
    let mut request = f.http.get(url);
    for name in [header::USER_AGENT.as_str(), KEY_HEADER] {
        if let Some(value) = headers.get(name) {
            request = request.header(name, value);
        }
    }
    let Ok(answer) = request.send().await else {
        return (StatusCode::BAD_GATEWAY, "the API did not answer").into_response();
    };
    let mut response = Response::builder().status(answer.status());
    for name in [header::RETRY_AFTER, header::CONTENT_TYPE] {
        if let Some(value) = answer.headers().get(&name) {
            response = response.header(name, value);
        }
    }
    match answer.bytes().await {
        Ok(body) => response
            .body(Body::from(body))
            .unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response()),
        Err(_) => (StatusCode::BAD_GATEWAY, "the API's answer broke off").into_response(),
    }
}
