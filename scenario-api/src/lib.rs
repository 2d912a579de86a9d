//! A scenario API on loopback: it plays a fixture case request by request, so the browser
//! runtime meets on the wire what the model meets on paper, and it records every request that
//! reached it (arrival, answer or abort) so tests count requests on the wire.
//!
//! | route | what |
//! |---|---|
//! | `GET /fixture` | the (first) fixture file the server plays, as text |
//! | `POST /runs?scenario=ID[&expose=none]` | a new run of case `ID`: `201 {"run", "scenario", "base"}`; with `expose=none` its answers do not expose `Retry-After` and `Date` to a page on another origin |
//! | `GET /runs/{run}/palettes?collection=…` | the run's next attempt, as the fixture says |
//! | `GET /runs/{run}` | what reached the server in that run |
//! | `GET /runs` | every run so far, with its scenario and request count |
//!
//! With [`with_static`], the API moves under `/api` and a built app is served from a folder,
//! so a release build and its API share one origin.
//!
//! Errors are JSON `{"error": "…"}` with a 4xx status that says what was wrong.
#![forbid(unsafe_code)]

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use palette_list::budget::{parse_retry_after, RetryAfter};
use palette_list::model::{Answer, Case, Fixture};
use serde_json::{json, Value};

/// The fixture being played and every run so far.
#[derive(Clone)]
pub struct Scenarios {
    inner: Arc<Inner>,
}

struct Inner {
    /// The first fixture file, as served by `GET /fixture`.
    text: String,
    /// Every case of every file, with its file's bodies.
    cases: Vec<(Case, Arc<BTreeMap<String, Value>>)>,
    runs: Mutex<Runs>,
}

#[derive(Default)]
struct Runs {
    next: u64,
    by_id: HashMap<u64, Run>,
}

struct Run {
    case: usize,
    /// Whether answers name `Retry-After` and `Date` in `Access-Control-Expose-Headers`.
    expose: bool,
    /// When the run's first request arrived: elapsed zero of the scenario.
    first_arrival: Option<Instant>,
    requests: Vec<Record>,
}

/// One request as the server saw it.
struct Record {
    arrived: Instant,
    ended: Option<(Instant, Ended)>,
}

#[derive(Clone, Copy)]
enum Ended {
    Answered(u16),
    Aborted,
}

/// How much before its attempt's cap the server sends an answer that the fixture times at (or
/// within this much of) the cap. The fixture's times are the client's, from its start to its
/// receipt; the request and the answer spend a few milliseconds on the wire, so an answer sent at
/// exactly the cap would land just after it, and the client would rightly abort it.
pub const AT_CAP_MARGIN: Duration = Duration::from_millis(50);

/// Marks a response the CORS layer must leave bare (a failure that looks like a network error).
#[derive(Clone, Copy)]
struct NoCors;

/// Marks a response whose `Retry-After` and `Date` the CORS layer must not expose (a run
/// started with `expose=none`: a misconfigured cross-origin API).
#[derive(Clone, Copy)]
struct HideHeaders;

impl Scenarios {
    /// Plays the cases of one or more fixture files (ids must be unique across them). Refuses
    /// a file the model refuses, naming the file by its position.
    pub fn new(texts: Vec<String>) -> Result<Self, String> {
        let mut cases: Vec<(Case, Arc<BTreeMap<String, Value>>)> = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let file = |e: String| format!("fixture file {}: {e}", i + 1);
            let fixture = Fixture::parse(text).map_err(|e| file(e.to_string()))?;
            let bodies = Arc::new(fixture.bodies);
            for case in fixture.cases {
                let case = case.map_err(|e| file(e.to_string()))?;
                if cases.iter().any(|(c, _)| c.id == case.id) {
                    return Err(file(format!("case {} is also in an earlier file", case.id)));
                }
                cases.push((case, bodies.clone()));
            }
        }
        let text = texts.into_iter().next().ok_or("no fixture file given")?;
        Ok(Self {
            inner: Arc::new(Inner {
                text,
                cases,
                runs: Mutex::new(Runs::default()),
            }),
        })
    }

    /// The HTTP routes, with CORS that exposes `Retry-After` and `Date`.
    pub fn router(self) -> Router {
        Router::new()
            .route("/fixture", get(fixture))
            .route("/runs", post(new_run).get(list_runs))
            .route("/runs/{run}", get(run_report))
            .route("/runs/{run}/palettes", get(palettes))
            .fallback(not_found)
            .layer(axum::middleware::from_fn(preflight))
            .layer(axum::middleware::map_response(cors))
            .with_state(self)
    }

    fn case(&self, i: usize) -> &Case {
        &self.inner.cases[i].0
    }

    fn find(&self, id: &str) -> Option<usize> {
        self.inner.cases.iter().position(|(c, _)| c.id == id)
    }
}

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

/// Serves `router` on `listener` until `stop` completes. HTTP/1.1 through hyper, with its
/// automatic `Date` header turned off: the scenarios decide when the client has clock evidence.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    stop: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let service = hyper_util::service::TowerToHyperService::new(router);
    tokio::pin!(stop);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => accepted?,
            () = &mut stop => return Ok(()),
        };
        let service = service.clone();
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            // A connection the client drops mid-answer is an ordinary end here.
            let _ = hyper::server::conn::http1::Builder::new()
                .auto_date_header(false)
                .serve_connection(io, service)
                .await;
        });
    }
}

/// An error answer: a 4xx (or 5xx) with a JSON body that says what was wrong.
struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, axum::Json(json!({ "error": self.1 }))).into_response()
    }
}

fn error(status: StatusCode, message: impl Into<String>) -> ApiError {
    ApiError(status, message.into())
}

async fn cors(method: Method, mut response: Response) -> Response {
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
            HeaderValue::from_static("Retry-After, Date"),
        );
    }
    if method == Method::OPTIONS {
        h.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST"),
        );
        h.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static("content-type"),
        );
    }
    response
}

/// Answers every CORS preflight, whatever the route.
async fn preflight(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    if request.method() == Method::OPTIONS {
        return StatusCode::NO_CONTENT.into_response();
    }
    next.run(request).await
}

async fn not_found() -> ApiError {
    error(
        StatusCode::NOT_FOUND,
        "no such route: try GET /fixture, POST /runs?scenario=ID, GET /runs/{run}/palettes?collection=…, GET /runs/{run}",
    )
}

async fn fixture(State(s): State<Scenarios>) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        s.inner.text.clone(),
    )
        .into_response()
}

/// Parses a query string strictly: each of `allowed` at most once, nothing else, no empty value.
fn query(raw: Option<&str>, allowed: &[&str]) -> Result<HashMap<String, String>, ApiError> {
    let mut out = HashMap::new();
    for (k, v) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        if !allowed.contains(&k.as_ref()) {
            return Err(error(
                StatusCode::BAD_REQUEST,
                format!(
                    "unknown query parameter {k:?} (expected: {})",
                    allowed.join(", ")
                ),
            ));
        }
        if v.is_empty() {
            return Err(error(
                StatusCode::BAD_REQUEST,
                format!("query parameter {k} is empty"),
            ));
        }
        if out.insert(k.to_string(), v.to_string()).is_some() {
            return Err(error(
                StatusCode::BAD_REQUEST,
                format!("query parameter {k} is given twice"),
            ));
        }
    }
    Ok(out)
}

async fn new_run(
    State(s): State<Scenarios>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let q = query(raw.as_deref(), &["scenario", "expose"])?;
    let expose = match q.get("expose").map(String::as_str) {
        None | Some("all") => true,
        Some("none") => false,
        Some(other) => {
            return Err(error(
                StatusCode::BAD_REQUEST,
                format!("expose={other:?}: use all (the default) or none"),
            ))
        }
    };
    let Some(id) = q.get("scenario") else {
        return Err(error(
            StatusCode::BAD_REQUEST,
            "query parameter scenario is missing",
        ));
    };
    let Some(case) = s.find(id) else {
        return Err(error(
            StatusCode::NOT_FOUND,
            format!("no scenario {id:?} in the fixture file"),
        ));
    };
    let mut runs = s.inner.runs.lock().unwrap();
    runs.next += 1;
    let run = runs.next;
    runs.by_id.insert(
        run,
        Run {
            case,
            expose,
            first_arrival: None,
            requests: Vec::new(),
        },
    );
    Ok((
        StatusCode::CREATED,
        axum::Json(json!({"run": run.to_string(), "scenario": id, "base": format!("/runs/{run}")})),
    )
        .into_response())
}

/// Every run so far, oldest first: its id, scenario and how many requests reached it.
async fn list_runs(State(s): State<Scenarios>) -> Response {
    let runs = s.inner.runs.lock().unwrap();
    let mut ids: Vec<_> = runs.by_id.keys().copied().collect();
    ids.sort_unstable();
    let list: Vec<Value> = ids
        .into_iter()
        .map(|id| {
            let r = &runs.by_id[&id];
            json!({"run": id.to_string(), "scenario": s.case(r.case).id, "requests": r.requests.len()})
        })
        .collect();
    axum::Json(list).into_response()
}

fn run_id(raw: &str) -> Result<u64, ApiError> {
    raw.parse().map_err(|_| {
        error(
            StatusCode::BAD_REQUEST,
            format!("run {raw:?} is not a run number"),
        )
    })
}

async fn run_report(
    State(s): State<Scenarios>,
    Path(run): Path<String>,
) -> Result<Response, ApiError> {
    let run = run_id(&run)?;
    let runs = s.inner.runs.lock().unwrap();
    let Some(r) = runs.by_id.get(&run) else {
        return Err(error(StatusCode::NOT_FOUND, format!("no run {run}")));
    };
    let zero = r.first_arrival;
    let ms = |t: Instant| zero.map_or(0, |z| t.duration_since(z).as_millis() as u64);
    let requests: Vec<Value> = r
        .requests
        .iter()
        .enumerate()
        .map(|(i, rec)| {
            let (state, status, ended_ms) = match rec.ended {
                None => ("in_flight", None, None),
                Some((t, Ended::Answered(s))) => ("answered", Some(s), Some(ms(t))),
                Some((t, Ended::Aborted)) => ("aborted", None, Some(ms(t))),
            };
            json!({"n": i + 1, "arrived_ms": ms(rec.arrived), "state": state, "status": status, "ended_ms": ended_ms})
        })
        .collect();
    Ok(axum::Json(json!({
        "run": run.to_string(),
        "scenario": s.case(r.case).id,
        "requests": requests,
    }))
    .into_response())
}

/// Records an abort if the request's future is dropped before it answered (the client went).
struct AbortGuard {
    scenarios: Scenarios,
    run: u64,
    index: usize,
    answered: bool,
}

impl AbortGuard {
    fn end(&mut self, ended: Ended) {
        self.answered = true;
        let mut runs = self.scenarios.inner.runs.lock().unwrap();
        if let Some(rec) = runs
            .by_id
            .get_mut(&self.run)
            .and_then(|r| r.requests.get_mut(self.index))
        {
            rec.ended.get_or_insert((Instant::now(), ended));
        }
    }
}

impl Drop for AbortGuard {
    fn drop(&mut self) {
        if !self.answered {
            self.end(Ended::Aborted);
        }
    }
}

async fn palettes(
    State(s): State<Scenarios>,
    Path(run): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let run = run_id(&run)?;
    let q = query(raw.as_deref(), &["collection"])?;
    let now = Instant::now();
    let (case, index, zero, expose) = {
        let mut runs = s.inner.runs.lock().unwrap();
        let Some(r) = runs.by_id.get_mut(&run) else {
            return Err(error(StatusCode::NOT_FOUND, format!("no run {run}")));
        };
        let case = s.case(r.case);
        let Some(collection) = q.get("collection") else {
            return Err(error(
                StatusCode::BAD_REQUEST,
                "query parameter collection is missing",
            ));
        };
        if let Some(serves) = case.request.query.get("collection") {
            if serves != collection {
                return Err(error(
                    StatusCode::NOT_FOUND,
                    format!(
                        "no collection {collection:?} in scenario {} (it serves {serves:?})",
                        case.id
                    ),
                ));
            }
        }
        let zero = *r.first_arrival.get_or_insert(now);
        r.requests.push(Record {
            arrived: now,
            ended: None,
        });
        (r.case, r.requests.len() - 1, zero, r.expose)
    };
    let mut guard = AbortGuard {
        scenarios: s.clone(),
        run,
        index,
        answered: false,
    };
    let case_index = case;
    let case = s.case(case);
    let Some(attempt) = case.attempts.get(index) else {
        guard.end(Ended::Answered(409));
        return Err(error(
            StatusCode::CONFLICT,
            format!(
                "scenario {} lists {} attempts; this is request {}",
                case.id,
                case.attempts.len(),
                index + 1
            ),
        ));
    };
    // No duration: the attempt never answers; the client's cap must abort it (the guard records
    // that when the connection goes).
    let Some(delay) = attempt.duration else {
        return std::future::pending().await;
    };
    let delay = delay.min(case.policy.attempt_cap().saturating_sub(AT_CAP_MARGIN));
    tokio::time::sleep(delay).await;
    let response = match &attempt.answer {
        Answer::Response {
            status,
            headers,
            body,
        } => answer(&s, case_index, *status, headers, body.as_deref(), zero),
        Answer::TransportFailure => {
            // What a limiter without CORS headers looks like to a page on another origin.
            let mut r = error(
                StatusCode::SERVICE_UNAVAILABLE,
                "no CORS headers on purpose",
            )
            .into_response();
            r.extensions_mut().insert(NoCors);
            r
        }
        // The model refuses a duration on an attempt with no answer; never answer it either way.
        Answer::NoAnswer => return std::future::pending().await,
    };
    let mut response = response;
    if !expose {
        response.extensions_mut().insert(HideHeaders);
    }
    guard.end(Ended::Answered(response.status().as_u16()));
    Ok(response)
}

/// The fixture's answer, moved onto the real clock. The run's first request is the scenario's
/// elapsed zero, so the fixture's wall-clock time of this receipt is `wall_clock_at_zero` plus the
/// real elapsed time (or the attempt's own `Date`). The server sends its real time as `Date`, and
/// a date-form `Retry-After` at the fixture's distance from the receipt, in whole seconds as HTTP
/// dates carry. Where the fixture has no clock evidence at all, no `Date` is sent and the
/// `Retry-After` date goes out as written: the client must have nothing to read it with.
fn answer(
    s: &Scenarios,
    index: usize,
    status: u16,
    headers: &[(String, String)],
    body: Option<&str>,
    zero: Instant,
) -> Response {
    let case = s.case(index);
    let secs = |t: SystemTime| {
        t.duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs()
    };
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(secs(SystemTime::now()));
    let fixture_date = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("date"))
        .and_then(|(_, v)| httpdate::parse_http_date(v).ok());
    let receipt = fixture_date.or_else(|| case.wall_clock_at_zero.map(|w0| w0 + zero.elapsed()));
    let mut builder = Response::builder().status(status);
    for (name, value) in headers {
        if name.eq_ignore_ascii_case("date") {
            continue; // sent below, on the real clock
        }
        let mut value = value.clone();
        if let (true, Some(receipt), Ok(RetryAfter::Date(d))) = (
            name.eq_ignore_ascii_case("retry-after"),
            receipt,
            parse_retry_after(&value),
        ) {
            let distance = |a: SystemTime, b: SystemTime| {
                Duration::from_secs(
                    a.duration_since(b)
                        .map_or(0, |x| x.as_secs_f64().round() as u64),
                )
            };
            let moved = if d >= receipt {
                now + distance(d, receipt)
            } else {
                now - distance(receipt, d)
            };
            value = httpdate::fmt_http_date(moved);
        }
        builder = builder.header(name.as_str(), value);
    }
    if receipt.is_some() {
        builder = builder.header(header::DATE, httpdate::fmt_http_date(now));
    }
    let bodies = &s.inner.cases[index].1;
    let body = match body.and_then(|b| bodies.get(b)) {
        Some(v) => {
            builder = builder.header(header::CONTENT_TYPE, "application/json");
            Body::from(v.to_string())
        }
        None => Body::empty(),
    };
    builder.body(body).unwrap_or_else(|e| {
        error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the fixture's answer is not valid HTTP: {e}"),
        )
        .into_response()
    })
}
