//! The `expect` contract, in one room: the keys there are and the type of each, how a produced
//! value compares with an expected one (exactly, or within a tolerance for a real clock), and
//! what an absent key means. The verdicts built on it are in [`crate::judge`].

use std::time::Duration;

use retry_budget::report::OutcomeKind;
use serde_json::{json, Map, Value};

use crate::values::{kind, seconds_from_json, status};

/// Keys of `expect` the model produces, with the JSON type each must have.
pub const KEYS: &[(&str, Kind)] = &[
    ("outcome", Kind::Outcome),
    ("stopped_at_s", Kind::Seconds),
    ("starts_s", Kind::SecondsList),
    ("receipts_s", Kind::SecondsList),
    ("receipt_wall_clock", Kind::DateList),
    ("waits_s", Kind::SecondsList),
    ("queued_s", Kind::SecondsList),
    ("remaining_at_receipt_s", Kind::SecondsList),
    ("request_s", Kind::Seconds),
    ("waited_s", Kind::Seconds),
    ("last_status", Kind::StatusOrNull),
    ("requested_delay_s", Kind::SecondsOrNull),
    ("header_notes", Kind::Notes),
    ("message", Kind::Lines),
];

/// The JSON type of an `expect` key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An outcome name, e.g. `budget_exhausted`.
    Outcome,
    /// A number of seconds.
    Seconds,
    /// A number of seconds, or null.
    SecondsOrNull,
    /// An array of numbers of seconds.
    SecondsList,
    /// An array of HTTP dates (or nulls).
    DateList,
    /// An HTTP status, or null.
    StatusOrNull,
    /// An array of `"missing"` / `"invalid"`.
    Notes,
    /// An array of strings.
    Lines,
}

/// What an `expect` key means when the fixture leaves it out: `None` where it is simply not
/// compared; for `header_notes` and `requested_delay_s` "none", since the format gives them
/// only where something was wrong and where the delay decided the stop.
pub fn absent(key: &str) -> Option<Value> {
    match key {
        "header_notes" => Some(json!([])),
        "requested_delay_s" => Some(Value::Null),
        _ => None,
    }
}

/// Checks an `expect` block's types at parse time: `Err((key, problem))` for the first value
/// of the wrong type. `outcome` is required.
pub(crate) fn check(m: &Map<String, Value>) -> Result<Map<String, Value>, (String, String)> {
    if !m.contains_key("outcome") {
        return Err((
            "outcome".into(),
            "is missing: an expect block names the outcome".into(),
        ));
    }
    for (key, ty) in KEYS {
        let Some(v) = m.get(*key) else { continue };
        check_value(*ty, v).map_err(|(at, p)| (format!("{key}{at}"), p))?;
    }
    Ok(m.clone())
}

/// `Err((index suffix, problem))`.
fn check_value(ty: Kind, v: &Value) -> Result<(), (String, String)> {
    let whole = |r: Result<(), String>| r.map_err(|p| (String::new(), p));
    let list = |each: &dyn Fn(&Value) -> Result<(), String>| {
        let a = v
            .as_array()
            .ok_or_else(|| (String::new(), format!("must be an array, got {}", kind(v))))?;
        for (i, item) in a.iter().enumerate() {
            each(item).map_err(|p| (format!("[{i}]"), p))?;
        }
        Ok(())
    };
    match ty {
        Kind::Outcome => whole(match v.as_str() {
            Some(name) if OutcomeKind::from_name(name).is_some() => Ok(()),
            _ => Err(format!("{v} is not an outcome the contract names")),
        }),
        Kind::SecondsOrNull | Kind::StatusOrNull if v.is_null() => Ok(()),
        Kind::Seconds | Kind::SecondsOrNull => whole(seconds_from_json(v).map(drop)),
        Kind::StatusOrNull => whole(status(v).map(drop)),
        Kind::SecondsList => list(&|x| seconds_from_json(x).map(drop)),
        Kind::DateList => list(&|x| match x {
            Value::Null => Ok(()),
            Value::String(s) => httpdate::parse_http_date(s)
                .map(drop)
                .map_err(|_| format!("{s:?} is not an HTTP date")),
            other => Err(format!("must be an HTTP date or null, got {}", kind(other))),
        }),
        Kind::Notes => list(&|x| match x.as_str() {
            Some("missing" | "invalid") => Ok(()),
            _ => Err(format!("{x} is not \"missing\" or \"invalid\"")),
        }),
        Kind::Lines => list(&|x| {
            x.as_str()
                .map(drop)
                .ok_or_else(|| format!("must be a string, got {}", kind(x)))
        }),
    }
}

/// How produced values are held against expected ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// The model on its virtual clock: every value exactly (seconds as durations, dates as
    /// instants).
    Exact,
    /// A real run on a real clock: seconds within `tolerance`; `receipt_wall_clock` is not
    /// compared (the real wall clock is not the fixture's); a message's durations in words
    /// ("Elapsed: 5.5 seconds") within `tolerance` plus the half tenth they are rounded by, and
    /// every other word and number of it exactly; everything else exactly.
    RealTime {
        /// How far a time may be from the fixture's.
        tolerance: Duration,
    },
}

/// A difference between `expect` and what was produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// The `expect` key.
    pub key: String,
    /// What the fixture expects.
    pub expected: Value,
    /// What was produced.
    pub got: Value,
}

/// The result of holding a replay (or a real run) against its case's `expect`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Compared {
    /// Every key that differs.
    pub mismatches: Vec<Mismatch>,
    /// `expect` keys the model does not produce: reported, not compared.
    pub not_compared: Vec<String>,
}

impl Compared {
    /// Whether every compared key matched.
    pub fn matches(&self) -> bool {
        self.mismatches.is_empty()
    }
}

/// Holds `got` (a [`Replay::to_json`](crate::Replay::to_json)) against `expect`, key by key.
pub fn compare(expect: &Map<String, Value>, got: &Map<String, Value>, how: Comparison) -> Compared {
    let mut mismatches = Vec::new();
    for (key, ty) in KEYS {
        if *key == "receipt_wall_clock" && matches!(how, Comparison::RealTime { .. }) {
            continue;
        }
        let Some(expected) = expect.get(*key).cloned().or_else(|| absent(key)) else {
            continue;
        };
        let produced = got.get(*key).cloned().unwrap_or(Value::Null);
        if !same(*ty, &expected, &produced, how) {
            mismatches.push(Mismatch {
                key: (*key).to_owned(),
                expected,
                got: produced,
            });
        }
    }
    let not_compared = expect
        .keys()
        .filter(|k| !KEYS.iter().any(|(known, _)| known == k))
        .cloned()
        .collect();
    Compared {
        mismatches,
        not_compared,
    }
}

fn same(ty: Kind, a: &Value, b: &Value, how: Comparison) -> bool {
    let tolerance = match how {
        Comparison::Exact => Duration::ZERO,
        Comparison::RealTime { tolerance } => tolerance,
    };
    let secs_eq = |x: &Value, y: &Value| match (seconds_from_json(x), seconds_from_json(y)) {
        (Ok(x), Ok(y)) => x.abs_diff(y) <= tolerance,
        _ => x == y,
    };
    let date_eq = |x: &Value, y: &Value| match (x.as_str(), y.as_str()) {
        (Some(x), Some(y)) => {
            httpdate::parse_http_date(x).ok() == httpdate::parse_http_date(y).ok()
        }
        _ => x == y,
    };
    let lists = |eq: &dyn Fn(&Value, &Value) -> bool| match (a.as_array(), b.as_array()) {
        (Some(x), Some(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| eq(x, y)),
        _ => false,
    };
    let line_eq = |x: &Value, y: &Value| match (x.as_str(), y.as_str()) {
        (Some(x), Some(y)) => line_matches(x, y, how),
        _ => x == y,
    };
    match ty {
        Kind::Seconds | Kind::SecondsOrNull => secs_eq(a, b),
        Kind::SecondsList => lists(&secs_eq),
        Kind::DateList => lists(&date_eq),
        Kind::Lines => lists(&line_eq),
        _ => a == b,
    }
}

/// Whether a message line matches the expected one: exactly, or on a real clock with every
/// duration in words within the tolerance plus the half tenth it is rounded by.
pub fn line_matches(expected: &str, got: &str, how: Comparison) -> bool {
    let Comparison::RealTime { tolerance } = how else {
        return expected == got;
    };
    let ((x, xs), (y, ys)) = (durations_in(expected), durations_in(got));
    let room = tolerance.as_secs_f64() + 0.05 + 1e-9;
    x == y && xs.len() == ys.len() && xs.iter().zip(&ys).all(|(a, b)| (a - b).abs() <= room)
}

/// A message line with the durations it writes in words (a number followed by " second" or
/// " seconds") taken out: the rest of the line, with `# seconds` in their places, and those
/// durations in seconds. The plural goes too, since it follows the number ("1 second" against a
/// real "1.1 seconds"). Every other number (a status, a count, a line and column) stays.
fn durations_in(line: &str) -> (String, Vec<f64>) {
    let mut text = String::new();
    let mut durations = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        text.push_str(&rest[..start]);
        let digits = &rest[start..];
        let end = digits
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(digits.len());
        let (number, after) = digits.split_at(end);
        match (number.parse::<f64>(), after.strip_prefix(" second")) {
            (Ok(n), Some(unit_rest)) => {
                text.push_str("# seconds");
                durations.push(n);
                rest = unit_rest.strip_prefix('s').unwrap_or(unit_rest);
            }
            _ => {
                text.push_str(number);
                rest = after;
            }
        }
    }
    text.push_str(rest);
    (text, durations)
}
