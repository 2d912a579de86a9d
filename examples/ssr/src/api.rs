//! The rate-limited API the app's screens read, served beside the app:
//!
//! - `GET /api/palettes?collection=NAME`: a collection, at most `quota` answers a window of
//!   `window`; past that, `429` with `Retry-After` (whole seconds to the window's end). The
//!   first window opens at the first request, already spent (as a quota other clients used
//!   up) unless the server was started with `--first-window open`.
//! - `GET /api/log`: every request so far: its collection, its status, whether it carried the
//!   app's key (`as_expected`, `missing` or `other`, never the key itself), who sent it (`from`:
//!   `browser`, which names itself in `User-Agent`, or `server`, the renders' client, which
//!   does not), when it arrived and was answered (`at_ms`, `answered_ms`, since the API
//!   started), a `429`'s `retry_after` in seconds, and when its window ends (`block_end_ms`,
//!   the same for every refusal in one window).
//! - `GET /api/stats`: the most requests the API held at once (`in_flight_max`) and the
//!   server process's resident memory (`rss_kb`).
//!
//! Every answer takes the API's latency (`--api-latency-ms`, default none), as a real API's
//! would, so requests sent together are in flight together.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::{API_KEY, KEY_HEADER};

/// The API's routes, at most `quota` answers every `window`; the first window spent unless
/// `first_open`; every answer `latency` after its request.
pub fn router<S: Clone + Send + Sync + 'static>(
    quota: u32,
    window: Duration,
    first_open: bool,
    latency: Duration,
) -> Router<S> {
    let api = Arc::new(Api {
        limit: Mutex::new(Limit {
            quota,
            window,
            opened: None,
            used: 0,
            first_open,
        }),
        log: Mutex::new(Vec::new()),
        started: Instant::now(),
        latency,
        in_flight: AtomicU32::new(0),
        in_flight_max: AtomicU32::new(0),
    });
    Router::new()
        .route("/api/palettes", get(palettes))
        .route("/api/log", get(log))
        .route("/api/stats", get(stats))
        .with_state(api)
}

struct Api {
    limit: Mutex<Limit>,
    log: Mutex<Vec<Value>>,
    started: Instant,
    latency: Duration,
    in_flight: AtomicU32,
    in_flight_max: AtomicU32,
}

/// A fixed window: `quota` answers from `opened` to `opened + window`.
struct Limit {
    quota: u32,
    window: Duration,
    opened: Option<Instant>,
    used: u32,
    /// The first window has its whole quota.
    first_open: bool,
}

impl Limit {
    /// Admits a request arriving `now`, or says how long until the window with room opens.
    fn admit(&mut self, now: Instant) -> Result<(), Duration> {
        // The first window opens with the first request, spent unless said otherwise.
        let mut opened = *self.opened.get_or_insert_with(|| {
            self.used = if self.first_open { 0 } else { self.quota };
            now
        });
        let windows = now.duration_since(opened).as_nanos() / self.window.as_nanos();
        if windows > 0 {
            opened += self.window * u32::try_from(windows).unwrap_or(u32::MAX);
            self.opened = Some(opened);
            self.used = 0;
        }
        if self.used < self.quota {
            self.used += 1;
            return Ok(());
        }
        Err(self.window.saturating_sub(now.duration_since(opened)))
    }
}

#[derive(Deserialize)]
struct Asked {
    collection: Option<String>,
}

async fn palettes(
    State(api): State<Arc<Api>>,
    Query(asked): Query<Asked>,
    headers: HeaderMap,
) -> Response {
    let arrived = api.started.elapsed();
    let _held = InFlight::count(&api);
    let from = if headers.contains_key(header::USER_AGENT) {
        "browser"
    } else {
        "server"
    };
    let key = match headers.get(KEY_HEADER) {
        None => "missing",
        Some(v) if v == API_KEY => "as_expected",
        Some(_) => "other",
    };
    let collection = asked.collection.unwrap_or_default();
    let mut block_end = None;
    // An unknown collection is refused before the limit is asked: it spends no quota.
    let response = match palettes_of(&collection) {
        None => (
            StatusCode::NOT_FOUND,
            Json(json!({"error": format!("no collection {collection:?}: try coast, dune or harbour")})),
        )
            .into_response(),
        Some(palettes) => match api.limit.lock().unwrap().admit(Instant::now()) {
            Ok(()) => Json(palettes).into_response(),
            Err(wait) => {
                block_end = Some((api.started.elapsed() + wait).as_millis());
                let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                (
                    StatusCode::TOO_MANY_REQUESTS,
                    [(header::RETRY_AFTER, seconds.to_string())],
                    Json(json!({"error": "over the limit"})),
                )
                    .into_response()
            }
        },
    };
    tokio::time::sleep(api.latency).await;
    let retry_after = (response.headers().get(header::RETRY_AFTER))
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    api.log.lock().unwrap().push(json!({
        "collection": collection,
        "status": response.status().as_u16(),
        "key": key,
        "from": from,
        "at_ms": arrived.as_millis(),
        "answered_ms": api.started.elapsed().as_millis(),
        "retry_after": retry_after,
        "block_end_ms": block_end,
    }));
    response
}

/// One request the API holds, counted from its arrival until it is answered or its client goes
/// away (the handler dropped: a replica killed mid-request is not held for ever).
struct InFlight<'a>(&'a Api);

impl<'a> InFlight<'a> {
    fn count(api: &'a Api) -> Self {
        let now = api.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        api.in_flight_max.fetch_max(now, Ordering::SeqCst);
        Self(api)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn log(State(api): State<Arc<Api>>) -> Json<Value> {
    Json(Value::Array(api.log.lock().unwrap().clone()))
}

async fn stats(State(api): State<Arc<Api>>) -> Json<Value> {
    Json(json!({
        "in_flight_max": api.in_flight_max.load(Ordering::SeqCst),
        "rss_kb": resident_kb(),
    }))
}

/// This process's resident memory, from Linux's `/proc/self/status`; `None` elsewhere.
fn resident_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The example's data: three small collections.
fn palettes_of(collection: &str) -> Option<Value> {
    let palettes = match collection {
        "coast" => json!([
            {"id": "tide", "name": "Tide Pool", "colors": ["#0a3d62", "#3c6382", "#82ccdd"]},
            {"id": "sand", "name": "Sandbar", "colors": ["#f8efba", "#e2c290", "#b8860b"]}
        ]),
        "dune" => json!([
            {"id": "ridge", "name": "Ridge", "colors": ["#c2956b", "#8e6c4a", "#5d4037"]}
        ]),
        "harbour" => json!([
            {"id": "quay", "name": "Quay", "colors": ["#2c3e50", "#95a5a6", "tomato"]}
        ]),
        _ => return None,
    };
    Some(json!({"collection": collection, "palettes": palettes}))
}
