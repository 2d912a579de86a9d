//! The format's rules for one JSON value, which the fixture reader, the `expect` contract and
//! the replay's JSON share: seconds read and written, an HTTP status, the kind of a value.

use std::time::Duration;

use serde_json::Value;

use retry_budget::words::{seconds_text, Precision};

/// A JSON number of seconds, the format's one rule for reading them: not negative; whole
/// numbers exactly; others to the nanosecond; and a number at or beyond `u64::MAX` seconds
/// saturates there, as delay-seconds do (JSON reads `99999999999999999999999` as 1e23).
pub fn seconds_from_json(v: &Value) -> Result<Duration, String> {
    if let Some(whole) = v.as_u64() {
        return Ok(Duration::from_secs(whole));
    }
    let Some(x) = v.as_f64() else {
        return Err(format!("must be a number of seconds, got {}", kind(v)));
    };
    if x < 0.0 {
        return Err(format!("{v} is negative"));
    }
    // 2^64 as f64: every larger value (and u64::MAX itself, which rounds to it) saturates.
    const SATURATED: f64 = 18_446_744_073_709_551_616.0;
    if x >= SATURATED {
        return Ok(Duration::from_secs(u64::MAX));
    }
    let nanos = (x * 1e9).round();
    if nanos < u64::MAX as f64 {
        return Ok(Duration::from_nanos(nanos as u64));
    }
    // Too many nanoseconds for a u64, fewer seconds than 2^64: whole seconds are exact enough.
    Ok(Duration::from_secs_f64(x))
}

/// A duration as a JSON number of seconds, the format's one rule for writing them: a whole
/// number when whole, else the shortest decimal that reads back as the same `f64`.
pub fn seconds_to_json(d: Duration) -> Value {
    let text = seconds_text(d, Precision::Exact);
    match text.parse::<u64>() {
        Ok(whole) => Value::from(whole),
        Err(_) => text.parse::<f64>().map_or(Value::Null, Value::from),
    }
}

pub(crate) fn status(v: &Value) -> Result<u16, String> {
    v.as_u64()
        .filter(|s| (100..=599).contains(s))
        .map(|s| s as u16)
        .ok_or_else(|| format!("{v} is not an HTTP status (100-599)"))
}

pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
