//! Fuzzing the two parsers that read what others wrote: `Retry-After` values, and fixture files
//! (then replaying whatever they accept). Neither may panic, and every refusal has a reason.
//!
//! `cargo test` runs proptest's default count (256 inputs a property). For a long run:
//! `PROPTEST_CASES=1000000 cargo test --release -p palette-list-model --test fuzz`.
#![cfg(not(target_arch = "wasm32"))]

use std::time::{Duration, UNIX_EPOCH};

use palette_list_model::{replay, Fixture};
use proptest::prelude::*;
use retry_budget::headers::{parse_retry_after, RetryAfter};
use serde_json::{json, Map, Value};

/// The weekdays by their long names, Monday first.
const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// Text that looks like a `Retry-After` value more often than random text does: digits, signs,
/// dots, commas, date words and spaces, in any order; real dates in each of the three forms, and
/// each with one character changed; a value sent twice.
fn header_text() -> impl Strategy<Value = String> {
    let date = (0u64..253_402_300_799, 0usize..3).prop_map(|(secs, form)| {
        let imf = httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(secs));
        // "Sun, 06 Nov 1994 08:49:37 GMT" rewritten as RFC 850 or asctime.
        let (wd, day, mon, year, time) = (
            &imf[..3],
            &imf[5..7],
            &imf[8..11],
            &imf[12..16],
            &imf[17..25],
        );
        match form {
            0 => imf.clone(),
            1 => {
                let long = WEEKDAYS
                    .into_iter()
                    .find(|l| l.starts_with(wd))
                    .unwrap_or(wd);
                format!("{long}, {day}-{mon}-{} {time} GMT", &year[2..])
            }
            _ => format!(
                "{wd} {mon} {:>2} {time} {year}",
                day.trim_start_matches('0')
            ),
        }
    });
    // The same date under another weekday's name (short or long), which no form allows.
    let other_weekday = (date.clone(), 1usize..7).prop_map(|(d, by)| {
        let i = WEEKDAYS
            .iter()
            .position(|l| d.starts_with(&l[..3]))
            .unwrap_or(0);
        let (name, other) = (WEEKDAYS[i], WEEKDAYS[(i + by) % 7]);
        match d.strip_prefix(name) {
            Some(rest) => format!("{other}{rest}"),
            None => format!("{}{}", &other[..3], &d[3..]),
        }
    });
    let changed = (date.clone(), any::<prop::sample::Index>(), "[ -~]").prop_map(|(d, at, c)| {
        let at = at.index(d.len());
        format!("{}{c}{}", &d[..at], &d[at + 1..])
    });
    prop_oneof![
        "\\PC{0,40}",
        "[0-9 ,.+\\-eE]{0,24}",
        "(Mon|Tue|Sun|Monday|Thu)?,? ?[0-9]{0,2}[ -]?(Jan|Feb|Dec|Foo)?[ -]?[0-9]{0,4} [0-9]{0,2}:[0-9]{0,2}:[0-9]{0,2}( GMT)?(, [0-9]{1,3})?",
        any::<u128>().prop_map(|n| n.to_string()),
        "[ \t]{0,2}[0-9]{1,45}[ \t]{0,2}",
        date.clone(),
        other_weekday,
        changed,
        (date, "[0-9]{1,3}").prop_map(|(d, n)| format!("{n}, {d}")),
    ]
}

/// A JSON value from the fixture format's vocabulary: keys it knows (and some it does not),
/// and values of every type, nested.
fn value() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "policy",
        "budget_s",
        "max_attempts",
        "attempt_cap_s",
        "retry_statuses",
        "min_wait_s",
        "fallback_waits_s",
        "request",
        "method",
        "query",
        "collection",
        "wall_clock_at_zero",
        "cases",
        "id",
        "attempts",
        "duration_s",
        "status",
        "headers",
        "Retry-After",
        "Date",
        "body",
        "body_text",
        "body_bytes",
        "max_body_bytes",
        "failure",
        "user_leaves_at_s",
        "timer_late_by_s",
        "expect",
        "outcome",
        "stopped_at_s",
        "starts_s",
        "header_notes",
        "message",
        "bodies",
        "invalid_fixtures",
        "expect_error",
        "other",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (0u64..700).prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e30f64..1e30).prop_map(|x| json!(x)),
        prop::sample::select(vec![
            "GET",
            "POST",
            "3",
            "1.5",
            "Mon, 01 Jan 2024 12:00:06 GMT",
            "transport",
            "no_answer",
            "coast",
            "succeeded",
            "unreadable_response",
            "<html>",
            "{\"collection\": \"coast\", \"palettes\": []}",
            "Sun, 06 Nov 1960 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "missing",
            "invalid",
            "",
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..8).prop_map(|kv| Value::Object(
                kv.into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect::<Map<_, _>>()
            )),
        ]
    })
}

/// A fixture file: mostly well formed, with random values where the fuzz puts them.
fn fixture_text() -> impl Strategy<Value = String> {
    let policy = json!({"budget_s": 20, "max_attempts": 3, "attempt_cap_s": 4,
        "retry_statuses": [429], "min_wait_s": 1, "fallback_waits_s": [2, 4]});
    (value(), prop::collection::vec(value(), 0..4), any::<bool>()).prop_map(
        move |(top, cases, keep)| {
            let mut root = match top {
                Value::Object(m) if !keep => m,
                _ => Map::new(),
            };
            root.entry("policy").or_insert_with(|| policy.clone());
            root.entry("cases").or_insert_with(|| Value::Array(cases));
            Value::Object(root).to_string()
        },
    )
}

proptest! {
    /// Every value is read as the references read it, or refused where they refuse it too:
    /// delay-seconds as its decimal value (saturating), a date as `httpdate` reads it, and a
    /// refusal only of what is neither digits nor a date `httpdate` reads. Two differences are
    /// meant: `httpdate` refuses the dates before 1970, which are valid (past) dates; and it
    /// reads an RFC 850 two-digit year in 1970-2069 always, where RFC 9110 has the receipt
    /// resolve its century (50 years ahead at most), so those are not compared.
    #[test]
    fn any_retry_after_is_read_as_the_references_read_it(s in header_text()) {
        let v = s.trim_matches([' ', '\t']);
        let digits = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
        // RFC 850's form: a weekday spelled out, then a comma.
        let rfc850 = v.split_once(',').is_some_and(|(weekday, _)| weekday.len() > 3);
        match parse_retry_after(&s) {
            Ok(RetryAfter::Delay(d)) => {
                prop_assert!(digits, "{:?} read as delay-seconds", s);
                let want = v.parse::<u128>().map_or(u64::MAX, |n| u64::try_from(n).unwrap_or(u64::MAX));
                prop_assert_eq!(d, Duration::from_secs(want), "{:?}", s);
            }
            Ok(RetryAfter::Date(d)) => {
                prop_assert!(!digits, "{:?} read as a date", s);
                if d.unix_seconds() >= 0 && !rfc850 {
                    prop_assert_eq!(httpdate::parse_http_date(v).ok(), d.to_system_time(), "{:?}", s);
                }
            }
            Err(e) => {
                prop_assert!(!digits, "{:?}: delay-seconds refused ({})", s, e.reason);
                prop_assert!(
                    rfc850 || httpdate::parse_http_date(v).is_err(),
                    "{:?}: a date httpdate reads was refused ({})", s, e.reason
                );
            }
        }
    }

    #[test]
    fn any_body_is_palettes_or_a_problem_that_quotes_nothing(
        body in prop::collection::vec(any::<u8>(), 0..200),
        limit in 1u64..300,
        chunk in 1usize..64,
    ) {
        let mut received = retry_budget::body::LimitedBody::new(limit, None).unwrap();
        let parsed = body
            .chunks(chunk)
            .try_for_each(|c| received.push(c))
            .and_then(|()| received.finish(palette_list::palettes::PaletteCollection::from_json));
        if let Err(problem) = parsed {
            let words = problem.to_string();
            // Only the kind and the place: no byte of the body is ever quoted.
            let quoted = words.chars().any(|c| !c.is_ascii_alphanumeric() && !" ,.()".contains(c));
            prop_assert!(!quoted, "{words}");
            prop_assert_eq!(body.len() as u64 > limit, matches!(problem, retry_budget::body::BodyProblem::TooLarge { .. }));
        }
    }

    #[test]
    fn any_fixture_is_read_or_refused_and_what_is_read_replays(text in fixture_text()) {
        // The text cut short too: it must be refused, not panic.
        let half = text.char_indices().nth(text.chars().count() / 2).map_or(0, |(i, _)| i);
        prop_assert!(Fixture::parse(&text[..half]).is_err());
        if let Ok(fixture) = Fixture::parse(&text) {
            for case in fixture.cases.iter().flatten() {
                // Replays settle or refuse with a reason, never panic.
                if let Err(e) = replay(case) {
                    prop_assert!(!e.problem.is_empty());
                }
            }
        }
    }
}
