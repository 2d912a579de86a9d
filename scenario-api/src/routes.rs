//! The HTTP routes and their handlers. A refusal is an `ApiError` (`error.rs`): JSON that says
//! what was wrong, with a 4xx status.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use axum::extract::{OriginalUri, Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use palette_list_model::Answer;
use serde_json::{json, Value};

use crate::clock::{answer, AT_CAP_MARGIN};
use crate::cors::{cors, preflight, HideHeaders, NoCors};
use crate::error::{error, ApiError};
use crate::limits::{Kind, Limit};
use crate::runs::{AbortGuard, Credential, Ended, Record, Run};
use crate::Scenarios;

pub(crate) fn router(s: Scenarios) -> Router {
    Router::new()
        .route("/fixture", get(fixture))
        .route("/runs", post(new_run).get(list_runs))
        .route("/runs/{run}", get(run_report))
        .route("/runs/{run}/palettes", get(palettes))
        .route("/limits", post(new_limit))
        .route("/limits/{limit}", get(limit_log))
        .route("/limits/{limit}/palettes", get(limited_palettes))
        .fallback(not_found)
        .layer(axum::middleware::from_fn(preflight))
        .layer(axum::middleware::map_response(cors))
        .with_state(s)
}

async fn not_found() -> ApiError {
    error(
        StatusCode::NOT_FOUND,
        "no such route: try GET /fixture, POST /runs?scenario=ID[&authorization=V], GET /runs/{run}/palettes?collection=…, GET /runs/{run}, POST /limits?quota=N&window_s=S[&kind=fixed|gcra|sliding][&fields=0][&spent=K][&answer_ms=MS], GET /limits/{limit}/palettes?collection=…, GET /limits/{limit}",
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
    let q = query(
        raw.as_deref(),
        &["scenario", "expose", "moved_to", "authorization"],
    )?;
    // An origin the run's palettes have moved to: a request that reaches them on any other
    // host is redirected there (307), so a page can meet a redirect across origins.
    let moved_to = match q.get("moved_to") {
        None => None,
        Some(origin) => match origin.strip_prefix("http://") {
            Some(host) if !host.is_empty() && !host.contains(['/', '?', '#', '@']) => {
                Some(origin.clone())
            }
            _ => {
                return Err(error(
                    StatusCode::BAD_REQUEST,
                    format!("moved_to={origin:?}: give an origin, http://HOST:PORT, with no path"),
                ))
            }
        },
    };
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
    let id = required(&q, "scenario")?;
    let Some(case) = s.find(id) else {
        return Err(error(
            StatusCode::NOT_FOUND,
            format!("no scenario {id:?} in the fixture file"),
        ));
    };
    crate::clock::playable(s.case(case), std::time::SystemTime::now())
        .map_err(|e| error(StatusCode::UNPROCESSABLE_ENTITY, e))?;
    let mut runs = s.inner.runs.lock().unwrap();
    runs.next += 1;
    let run = runs.next;
    runs.by_id.insert(
        run,
        Run {
            case,
            expose,
            moved_to,
            authorization: q.get("authorization").cloned(),
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

/// The number of a run or a limit (`what`), from its path segment.
fn number_of(what: &str, raw: &str) -> Result<u64, ApiError> {
    raw.parse().map_err(|_| {
        error(
            StatusCode::BAD_REQUEST,
            format!("{what} {raw:?} is not a {what} number"),
        )
    })
}

/// A query parameter the route cannot do without.
fn required<'q>(q: &'q HashMap<String, String>, name: &str) -> Result<&'q String, ApiError> {
    q.get(name).ok_or_else(|| {
        error(
            StatusCode::BAD_REQUEST,
            format!("query parameter {name} is missing"),
        )
    })
}

async fn run_report(
    State(s): State<Scenarios>,
    Path(run): Path<String>,
) -> Result<Response, ApiError> {
    let run = number_of("run", &run)?;
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
            let body_bytes = rec.body_sent.load(Ordering::Relaxed);
            json!({"n": i + 1, "arrived_ms": ms(rec.arrived), "state": state, "status": status, "ended_ms": ended_ms, "body_bytes": body_bytes, "authorization": rec.authorization.name()})
        })
        .collect();
    Ok(axum::Json(json!({
        "run": run.to_string(),
        "scenario": s.case(r.case).id,
        "requests": requests,
    }))
    .into_response())
}

async fn palettes(
    State(s): State<Scenarios>,
    Path(run): Path<String>,
    RawQuery(raw): RawQuery,
    OriginalUri(uri): OriginalUri,
    request_headers: HeaderMap,
) -> Result<Response, ApiError> {
    let run = number_of("run", &run)?;
    let q = query(raw.as_deref(), &["collection"])?;
    let now = Instant::now();
    let (case, index, zero, expose, body_sent) = {
        let mut runs = s.inner.runs.lock().unwrap();
        let Some(r) = runs.by_id.get_mut(&run) else {
            return Err(error(StatusCode::NOT_FOUND, format!("no run {run}")));
        };
        if let Some(origin) = &r.moved_to {
            let host = request_headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok());
            if host != origin.strip_prefix("http://") {
                // A hop, not an attempt: the run counts the request that arrives where it went.
                let to = format!("{origin}{uri}");
                return Ok(
                    (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, to)]).into_response()
                );
            }
        }
        let case = s.case(r.case);
        let collection = required(&q, "collection")?;
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
        let body_sent = Arc::new(AtomicU64::new(0));
        let sent = request_headers.get(header::AUTHORIZATION);
        r.requests.push(Record {
            arrived: now,
            authorization: Credential::of(
                sent.map(HeaderValue::as_bytes),
                r.authorization.as_deref(),
            ),
            ended: None,
            body_sent: body_sent.clone(),
        });
        (r.case, r.requests.len() - 1, zero, r.expose, body_sent)
    };
    let mut guard = AbortGuard {
        scenarios: s.clone(),
        run,
        index,
        answered: false,
    };
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
        } => answer(
            case,
            *status,
            headers,
            body.as_ref(),
            zero.elapsed(),
            body_sent,
        ),
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

/// Query parameter `name`'s value `v` as a whole number, at least `min`, or an error that
/// names it.
fn whole(name: &str, v: &str, min: u32) -> Result<u32, ApiError> {
    match v.parse::<u32>() {
        Ok(n) if n >= min => Ok(n),
        _ => Err(error(
            StatusCode::BAD_REQUEST,
            format!("{name}={v:?}: give a whole number, at least {min}"),
        )),
    }
}

/// Optional query parameter `name`: a whole number, 0 or more (as [`whole`] reads it), or
/// `default` when it is absent.
fn whole_or(q: &HashMap<String, String>, name: &str, default: u32) -> Result<u32, ApiError> {
    q.get(name).map_or(Ok(default), |v| whole(name, v, 0))
}

async fn new_limit(
    State(s): State<Scenarios>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let q = query(
        raw.as_deref(),
        &["quota", "window_s", "spent", "answer_ms", "kind", "fields"],
    )?;
    let quota = whole("quota", required(&q, "quota")?, 1)?;
    let window_s = whole("window_s", required(&q, "window_s")?, 1)?;
    let spent = whole_or(&q, "spent", 0)?;
    if spent > quota {
        return Err(error(
            StatusCode::BAD_REQUEST,
            format!("spent={spent} is more than quota={quota}"),
        ));
    }
    let kind = q.get("kind").map_or(Ok(Kind::Fixed), |name| {
        Kind::from_name(name).ok_or_else(|| {
            error(
                StatusCode::BAD_REQUEST,
                format!("kind={name:?} is not fixed, gcra or sliding"),
            )
        })
    })?;
    let fields = match q.get("fields").map(String::as_str) {
        None | Some("1") => true,
        Some("0") => false,
        Some(other) => {
            return Err(error(
                StatusCode::BAD_REQUEST,
                format!("fields={other:?} is not 0 or 1"),
            ))
        }
    };
    // How long every answer is held, as a slow API holds it: at most a minute.
    let answer_ms = whole_or(&q, "answer_ms", 0)?.min(60_000);
    let window = Duration::from_secs(window_s.into());
    let answer_after = Duration::from_millis(answer_ms.into());
    let mut limits = s.inner.limits.lock().unwrap();
    limits.next += 1;
    let id = limits.next;
    limits.by_id.insert(
        id,
        Limit::new(
            (quota, window, kind),
            spent,
            fields,
            answer_after,
            Instant::now(),
        ),
    );
    Ok((
        StatusCode::CREATED,
        axum::Json(json!({"limit": id.to_string(), "base": format!("/limits/{id}")})),
    )
        .into_response())
}

async fn limit_log(
    State(s): State<Scenarios>,
    Path(limit): Path<String>,
) -> Result<Response, ApiError> {
    let id = number_of("limit", &limit)?;
    let limits = s.inner.limits.lock().unwrap();
    let Some(l) = limits.by_id.get(&id) else {
        return Err(error(StatusCode::NOT_FOUND, format!("no limit {id}")));
    };
    let requests: Vec<Value> = l
        .log
        .iter()
        .enumerate()
        .map(|(i, e)| {
            json!({
                "n": i + 1,
                "arrived_ms": e.arrived.as_millis() as u64,
                "answered_ms": e.answered.map(|a| a.as_millis() as u64),
                "in_flight": e.in_flight,
                "collection": e.collection,
                "status": e.status,
                "retry_after_s": e.retry_after_s,
            })
        })
        .collect();
    Ok(axum::Json(json!({
        "limit": id.to_string(),
        "quota": l.quota,
        "window_s": l.window.as_secs(),
        "kind": l.kind.name(),
        "fields": l.fields,
        "answer_ms": l.answer_after.as_millis() as u64,
        "most_in_flight": l.most_in_flight(),
        "requests": requests,
    }))
    .into_response())
}

async fn limited_palettes(
    State(s): State<Scenarios>,
    Path(limit): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let id = number_of("limit", &limit)?;
    let q = query(raw.as_deref(), &["collection"])?;
    let collection = required(&q, "collection")?;
    let Some(body) = s.inner.bodies.get(collection) else {
        let names: Vec<&str> = s.inner.bodies.keys().map(String::as_str).collect();
        return Err(error(
            StatusCode::NOT_FOUND,
            format!(
                "no collection {collection:?} (the fixture files name {})",
                names.join(", ")
            ),
        ));
    };
    let (mut response, hold, answered) = {
        let mut limits = s.inner.limits.lock().unwrap();
        let Some(l) = limits.by_id.get_mut(&id) else {
            return Err(error(StatusCode::NOT_FOUND, format!("no limit {id}")));
        };
        let response = limited_answer(l, collection, body);
        // The request `limited_answer` has just logged.
        let answered = Answered {
            scenarios: s.clone(),
            limit: id,
            n: l.log.len() - 1,
        };
        (response, l.answer_after, answered)
    };
    tokio::time::sleep(hold).await;
    let date = httpdate::fmt_http_date(SystemTime::now());
    let h = response.headers_mut();
    h.insert(header::DATE, date.parse().expect("an HTTP date is ASCII"));
    // Logged as answered here, or when the client goes away and the handler is dropped.
    drop(answered);
    Ok(response)
}

/// Marks a limiter's request answered when dropped: when its answer goes out, or when its
/// client went away while the answer was held.
struct Answered {
    scenarios: Scenarios,
    limit: u64,
    n: usize,
}

impl Drop for Answered {
    fn drop(&mut self) {
        if let Ok(mut limits) = self.scenarios.inner.limits.lock() {
            if let Some(l) = limits.by_id.get_mut(&self.limit) {
                l.answered(self.n, Instant::now());
            }
        }
    }
}

/// A limiter's answer to a request for `collection` (whose palettes are `body`) arriving now:
/// the palettes, or `429` with `Retry-After`; either with the RateLimit fields.
fn limited_answer(l: &mut Limit, collection: &str, body: &Value) -> Response {
    let verdict = l.admit(Instant::now(), collection);
    let mut response = if verdict.admitted {
        axum::Json(body.clone()).into_response()
    } else {
        let mut r = error(
            StatusCode::TOO_MANY_REQUESTS,
            format!("over the limit of {} per {} s", l.quota, l.window.as_secs()),
        )
        .into_response();
        r.headers_mut()
            .insert(header::RETRY_AFTER, verdict.reset_s.into());
        r
    };
    let h = response.headers_mut();
    for (name, value) in l.fields(&verdict) {
        h.insert(name, value.parse().expect("a field value is ASCII"));
    }
    response
}
