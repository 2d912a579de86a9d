//! A fixture case played for real, from a page (wasm32): a run started on the scenario API,
//! what the server saw of it, and the case's leave and late timers staged against a live read.
//! The demo's Scenarios page and the browser tests both play cases through here.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use gloo_timers::callback::Timeout;
use leptos::prelude::*;
use leptos_retry_budget::runtime::now;
use leptos_retry_budget::ReadData;
use palette_list::{BudgetedRead, ReadState};
use send_wrapper::SendWrapper;
use serde_json::Value;

use palette_list_model::Case;

/// Why a call to the scenario API did not give what was asked.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The request did not reach the scenario API, or its answer could not be read.
    #[error("the scenario API did not answer ({0}); is it running?")]
    Unreachable(#[from] gloo_net::Error),
    /// The scenario API answered with an error.
    #[error("the scenario API answered {status}: {error}")]
    Refused {
        /// Its status.
        status: u16,
        /// Its `error` text.
        error: String,
    },
    /// The answer was JSON, but not of the shape the scenario API sends.
    #[error("the scenario API's answer has no {0}")]
    Malformed(&'static str),
}

/// Starts a run on the scenario API at `api` with this query (`scenario=ID`, and
/// `&expose=none` for a misconfigured cross-origin API); returns the run's URL prefix, under
/// which `/palettes?collection=…` plays the case.
pub async fn new_run(api: &str, query: &str) -> Result<String, LiveError> {
    created(&format!("{api}/runs?{query}"), api).await
}

/// Makes a rate limit on the scenario API at `api` with this query (`quota=N&window_s=S`, and
/// `&spent=K` for a first window partly used); returns its URL prefix, under which
/// `/palettes?collection=…` is limited. It is also where [`limit_requests`] reads its log.
pub async fn new_limit(api: &str, query: &str) -> Result<String, LiveError> {
    created(&format!("{api}/limits?{query}"), api).await
}

/// POSTs to `url` and expects `201` with a `base`: returns `api` + `base`.
async fn created(url: &str, api: &str) -> Result<String, LiveError> {
    let r = gloo_net::http::Request::post(url).send().await?;
    let status = r.status();
    let v: Value = r.json().await?;
    if status != 201 {
        return Err(LiveError::Refused {
            status,
            error: v["error"].as_str().unwrap_or("(no error text)").to_owned(),
        });
    }
    let base = v["base"].as_str().ok_or(LiveError::Malformed("base"))?;
    Ok(format!("{api}{base}"))
}

/// One request as a rate limit saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitedRequest {
    /// When it arrived, since the limit was made.
    pub arrived: Duration,
    /// The collection it asked for.
    pub collection: String,
    /// 200 (admitted) or 429 (refused).
    pub status: u16,
    /// Requests in flight at the limiter when it arrived, itself included.
    pub in_flight: u32,
    /// When its answer was sent (or its client went away), since the limit was made; `None`
    /// while it is held.
    pub answered: Option<Duration>,
}

/// Every request that reached the limit at `base` (a [`new_limit`] prefix), in order.
pub async fn limit_requests(base: &str) -> Result<Vec<LimitedRequest>, LiveError> {
    requests_at(base, |r| {
        Ok(LimitedRequest {
            arrived: ms_field(r, "arrived_ms").ok_or(LiveError::Malformed("arrived_ms"))?,
            collection: r["collection"]
                .as_str()
                .ok_or(LiveError::Malformed("collection"))?
                .to_owned(),
            status: r["status"]
                .as_u64()
                .and_then(|s| u16::try_from(s).ok())
                .ok_or(LiveError::Malformed("status"))?,
            in_flight: r["in_flight"]
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or(LiveError::Malformed("in_flight"))?,
            answered: match &r["answered_ms"] {
                Value::Null => None,
                _ => Some(ms_field(r, "answered_ms").ok_or(LiveError::Malformed("answered_ms"))?),
            },
        })
    })
    .await
}

/// GETs the log at `base` (a run's or a limit's) and reads each of its `requests` with `one`.
async fn requests_at<R>(
    base: &str,
    one: impl Fn(&Value) -> Result<R, LiveError>,
) -> Result<Vec<R>, LiveError> {
    let r = gloo_net::http::Request::get(base).send().await?;
    let v: Value = r.json().await?;
    v["requests"]
        .as_array()
        .ok_or(LiveError::Malformed("requests"))?
        .iter()
        .map(one)
        .collect()
}

/// A number of milliseconds in `r` under `key`, as a duration.
fn ms_field(r: &Value, key: &str) -> Option<Duration> {
    r[key].as_u64().map(Duration::from_millis)
}

/// One request of a run, as the server saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerRequest {
    /// Its place in the run, from 1.
    pub n: u64,
    /// When it arrived, since the run's first request.
    pub arrived: Duration,
    /// When it ended (answered or aborted), since the run's first request.
    pub ended: Option<Duration>,
    /// `answered`, `aborted` or `in_flight`.
    pub state: String,
    /// The status it was answered with.
    pub status: Option<u16>,
    /// Body bytes the server handed to the connection (a streamed body stops growing once the
    /// client aborts).
    pub body_bytes: u64,
    /// Whether it carried the `Authorization` its run expects: `as_expected`, `missing` or
    /// `other` (the server keeps no value).
    pub authorization: String,
}

/// Every request that reached the server in the run at `base` (a [`new_run`] prefix).
pub async fn server_requests(base: &str) -> Result<Vec<ServerRequest>, LiveError> {
    requests_at(base, |r| {
        Ok(ServerRequest {
            n: r["n"].as_u64().ok_or(LiveError::Malformed("n"))?,
            arrived: ms_field(r, "arrived_ms").ok_or(LiveError::Malformed("arrived_ms"))?,
            ended: ms_field(r, "ended_ms"),
            state: r["state"]
                .as_str()
                .ok_or(LiveError::Malformed("state"))?
                .to_owned(),
            status: r["status"].as_u64().and_then(|s| u16::try_from(s).ok()),
            body_bytes: r["body_bytes"]
                .as_u64()
                .ok_or(LiveError::Malformed("body_bytes"))?,
            authorization: r["authorization"]
                .as_str()
                .ok_or(LiveError::Malformed("authorization"))?
                .to_owned(),
        })
    })
    .await
}

/// Stages what `case` says the user and the browser do, against a live `read`, for as long as
/// the calling component lives: the user cancels at `user_leaves_at_s`, and the wait before
/// attempt N + 1 wakes `timer_late_by_s[N - 1]` late, because the main thread is blocked
/// across its planned wake (as in a backgrounded tab). Call it in the component that owns the
/// read, right after the hook.
pub fn stage<T: ReadData>(case: &Case, read: BudgetedRead<T>) {
    let timers = Rc::new(RefCell::new(Vec::<Timeout>::new()));
    if let Some(leave) = case.user_leaves_at {
        timers
            .borrow_mut()
            .push(Timeout::new(millis(leave), move || read.cancel()));
    }
    let late = case.timer_late_by.clone();
    // The attempt whose wait was last looked at: each wait is staged once.
    let seen = Cell::new(0u32);
    let armed = timers.clone();
    Effect::new(move || {
        let ReadState::Waiting { next, until, .. } = read.state.get() else {
            return;
        };
        if seen.replace(next) == next {
            return;
        }
        // The wait before attempt `next` is wait number `next - 1`.
        let index = next.saturating_sub(2) as usize;
        if let Some(late) = late.get(index).copied().filter(|l| !l.is_zero()) {
            let lead = until.saturating_sub(now() + Duration::from_millis(150));
            armed.borrow_mut().push(Timeout::new(
                millis(lead),
                move || {
                    while now() < until + late {}
                },
            ));
        }
    });
    let timers = SendWrapper::new(timers);
    on_cleanup(move || timers.borrow_mut().clear());
}

fn millis(d: Duration) -> u32 {
    u32::try_from(d.as_millis()).unwrap_or(u32::MAX)
}
