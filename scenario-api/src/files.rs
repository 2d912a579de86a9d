//! A built app (a `trunk build` output) served beside the API, on one origin.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;

use crate::error::error;

/// The API under `/api`, and the files of `dir` (a `trunk build` output) at `/`: a path with
/// no file behind it gets `index.html`, so the app's own routes load.
pub fn with_static(api: Router, dir: std::path::PathBuf) -> Router {
    Router::new()
        .nest("/api", api)
        .fallback(move |uri: axum::http::Uri| serve_file(dir.clone(), uri))
}

async fn serve_file(dir: std::path::PathBuf, uri: axum::http::Uri) -> Response {
    let rel = uri.path().trim_start_matches('/');
    if rel
        .split('/')
        .any(|part| part == ".." || part.starts_with('.'))
    {
        return error(StatusCode::BAD_REQUEST, "no such file").into_response();
    }
    let mut path = dir.join(rel);
    if rel.is_empty() || !path.is_file() {
        path = dir.join("index.html");
    }
    let kind = match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css",
        Some("json") => "application/json",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    };
    match tokio::fs::read(&path).await {
        Ok(bytes) => ([(header::CONTENT_TYPE, kind)], bytes).into_response(),
        Err(e) => error(
            StatusCode::NOT_FOUND,
            format!("cannot read {}: {e}", path.display()),
        )
        .into_response(),
    }
}
