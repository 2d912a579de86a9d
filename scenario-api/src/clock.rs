//! A fixture's answer moved onto the real clock.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::body::Body;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use palette_list_model::{Body as FixtureBody, Case};
use retry_budget::headers::{
    parse_retry_after, receipt_clock, HttpDate, RetryAfter, FIRST_HTTP_DATE,
};

use crate::error::error;

/// How much before its attempt's cap the server sends an answer that the fixture times at (or
/// within this much of) the cap. The fixture's times are the client's, from its start to its
/// receipt; the request and the answer spend a few milliseconds on the wire, so an answer sent at
/// exactly the cap would land just after it, and the client would rightly abort it.
pub const AT_CAP_MARGIN: Duration = Duration::from_millis(50);

/// `t` as an HTTP date (the library's one way of writing one), or `None` past year 9999, which
/// the format cannot carry.
fn http_date(t: SystemTime) -> Option<String> {
    HttpDate::from_system_time(t).map(|d| d.to_string())
}

/// Whether `case` can be played starting `now`: every `Retry-After` date it names, moved onto the
/// real clock (at most its distance from the case's earliest wall-clock time, plus the budget),
/// must still be an HTTP date. `Err` names the attempt that cannot.
pub(crate) fn playable(case: &Case, now: SystemTime) -> Result<(), String> {
    for (i, attempt) in case.attempts.iter().enumerate() {
        let Some(Ok(RetryAfter::Date(date))) =
            attempt.answer.header("Retry-After").map(parse_retry_after)
        else {
            continue;
        };
        let earliest = attempt
            .answer
            .header("Date")
            .and_then(retry_budget::headers::parse_date_header)
            .or(case.wall_clock_at_zero);
        let Some(earliest) = earliest else {
            continue; // sent as written: nothing is moved
        };
        let ahead = date.resolved(earliest).delay_after(earliest) + case.policy.budget();
        // The library's one rule for which times an HTTP date can write.
        let fits = now
            .checked_add(ahead)
            .and_then(HttpDate::from_system_time)
            .is_some();
        if !fits {
            return Err(format!(
                "scenario {} cannot be played: attempt {}'s Retry-After date, moved onto today's \
                 clock, would fall after year 9999, which an HTTP date cannot carry",
                case.id,
                i + 1
            ));
        }
    }
    Ok(())
}

/// The fixture's answer, moved onto the real clock. The run's first request is the scenario's
/// elapsed zero, so the fixture's wall-clock time of this receipt is `wall_clock_at_zero` plus the
/// real elapsed time (or the attempt's own `Date`). The server sends its real time as `Date`, and
/// a date-form `Retry-After` at the fixture's distance from the receipt, in whole seconds as HTTP
/// dates carry. Where the fixture has no clock evidence at all, no `Date` is sent and the
/// `Retry-After` date goes out as written: the client must have nothing to read it with.
pub(crate) fn answer(
    case: &Case,
    status: u16,
    headers: &[(String, String)],
    body: Option<&FixtureBody>,
    elapsed: Duration,
    body_sent: Arc<AtomicU64>,
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
        if let (true, Some(receipt), Ok(RetryAfter::Date(date))) = (
            name.eq_ignore_ascii_case("retry-after"),
            receipt,
            parse_retry_after(&value),
        ) {
            // As the client reads it: RFC 850's century against this receipt.
            let resolved = date.resolved(receipt);
            let d = resolved.to_system_time().unwrap_or(SystemTime::UNIX_EPOCH);
            let distance = |a: SystemTime, b: SystemTime| {
                Duration::from_secs(
                    a.duration_since(b)
                        .map_or(0, |x| x.as_secs_f64().round() as u64),
                )
            };
            // A date before 1970 stays one, back to the first an HTTP date can write (as past as
            // it gets); one past 9999 cannot be sent.
            let first =
                SystemTime::UNIX_EPOCH - Duration::from_secs(FIRST_HTTP_DATE.unsigned_abs());
            let moved = if d >= receipt {
                now.checked_add(distance(d, receipt))
            } else {
                Some(
                    now.checked_sub(distance(receipt, d))
                        .map_or(first, |t| t.max(first)),
                )
            };
            let Some(text) = moved.and_then(http_date) else {
                return error(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!(
                        "scenario {}: this Retry-After date, moved onto today's clock, falls after year 9999",
                        case.id
                    ),
                )
                .into_response();
            };
            value = text;
        }
        builder = builder.header(name.as_str(), value);
    }
    if let (Some(_), Some(date)) = (receipt, http_date(now)) {
        builder = builder.header(header::DATE, date);
    }
    let body = match body {
        None => Body::empty(),
        // Made as it is sent, with no Content-Length: the client sees a body with no end in
        // sight, and the run's report shows how much of it was taken.
        Some(filler @ FixtureBody::Filler(_)) => {
            builder = builder.header(header::CONTENT_TYPE, "application/json");
            let chunks = filler.chunks().map(move |chunk| {
                body_sent.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                Ok::<_, Infallible>(chunk)
            });
            Body::from_stream(futures_util::stream::iter(chunks))
        }
        Some(b) => {
            let bytes: Vec<u8> = b.chunks().flatten().collect();
            let html = bytes.first() == Some(&b'<');
            let kind = if html {
                "text/html"
            } else {
                "application/json"
            };
            builder = builder.header(header::CONTENT_TYPE, kind);
            body_sent.fetch_add(bytes.len() as u64, Ordering::Relaxed);
            Body::from(bytes)
        }
    };
    builder.body(body).unwrap_or_else(|e| {
        error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the fixture's answer is not valid HTTP: {e}"),
        )
        .into_response()
    })
}
