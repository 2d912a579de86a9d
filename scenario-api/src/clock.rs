//! A fixture's answer moved onto the real clock.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use axum::body::Body;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use palette_list::budget::{parse_retry_after, receipt_clock, RetryAfter};
use palette_list_model::Case;
use serde_json::Value;

use crate::routes::error;

/// How much before its attempt's cap the server sends an answer that the fixture times at (or
/// within this much of) the cap. The fixture's times are the client's, from its start to its
/// receipt; the request and the answer spend a few milliseconds on the wire, so an answer sent at
/// exactly the cap would land just after it, and the client would rightly abort it.
pub const AT_CAP_MARGIN: Duration = Duration::from_millis(50);

/// The fixture's answer, moved onto the real clock. The run's first request is the scenario's
/// elapsed zero, so the fixture's wall-clock time of this receipt is `wall_clock_at_zero` plus the
/// real elapsed time (or the attempt's own `Date`). The server sends its real time as `Date`, and
/// a date-form `Retry-After` at the fixture's distance from the receipt, in whole seconds as HTTP
/// dates carry. Where the fixture has no clock evidence at all, no `Date` is sent and the
/// `Retry-After` date goes out as written: the client must have nothing to read it with.
pub(crate) fn answer(
    case: &Case,
    bodies: &BTreeMap<String, Value>,
    status: u16,
    headers: &[(String, String)],
    body: Option<&str>,
    elapsed: Duration,
) -> Response {
    let secs = |t: SystemTime| {
        t.duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs()
    };
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(secs(SystemTime::now()));
    // The fixture's clock evidence for this receipt, by the same rules the client uses.
    let fixture_date = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("date"))
        .map(|(_, v)| v.as_str());
    let receipt = receipt_clock(
        fixture_date,
        case.wall_clock_at(elapsed),
        case.client_policy().trust_local_clock(),
    )
    .map(|(t, _)| t);
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
