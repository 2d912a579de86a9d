//! Fuzzing the two parsers that read what others wrote: `Retry-After` values, and fixture files
//! (then replaying whatever they accept). Neither may panic, and every refusal has a reason.
//!
//! `cargo test` runs proptest's default count (256 inputs a property). For a long run:
//! `PROPTEST_CASES=1000000 cargo test --release -p palette-list --test fuzz`.
#![cfg(not(target_arch = "wasm32"))]

use palette_list::budget::{parse_retry_after, RetryAfter};
use palette_list_model::{replay, Fixture};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Text that looks like a `Retry-After` value more often than random text does: digits, signs,
/// dots, commas, date words and spaces, in any order.
fn header_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,40}",
        "[0-9 ,.+\\-eE]{0,24}",
        "(Mon|Tue|Sun|Monday|Thu)?,? ?[0-9]{0,2}[ -]?(Jan|Feb|Dec|Foo)?[ -]?[0-9]{0,4} [0-9]{0,2}:[0-9]{0,2}:[0-9]{0,2}( GMT)?(, [0-9]{1,3})?",
        any::<u128>().prop_map(|n| n.to_string()),
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
    #[test]
    fn any_retry_after_is_valid_or_refused_with_a_reason(s in header_text()) {
        match parse_retry_after(&s) {
            Ok(RetryAfter::Delay(_)) => {
                prop_assert!(s.trim_matches([' ', '\t']).bytes().all(|b| b.is_ascii_digit()))
            }
            Ok(RetryAfter::Date(_)) => {}
            Err(e) => prop_assert!(!e.reason.is_empty() && e.value == s),
        }
    }

    #[test]
    fn any_body_is_palettes_or_a_problem_that_quotes_nothing(
        body in prop::collection::vec(any::<u8>(), 0..200),
        limit in 1u64..300,
        chunk in 1usize..64,
    ) {
        let mut reader = palette_list::body::BodyReader::new(limit, None).unwrap();
        let read = body
            .chunks(chunk)
            .try_for_each(|c| reader.push(c))
            .and_then(|()| reader.finish(palette_list::palettes::PaletteCollection::from_json));
        if let Err(problem) = read {
            let words = palette_list::budget::words::body_problem(problem);
            // Only the kind and the place: no byte of the body is ever quoted.
            let quoted = words.chars().any(|c| !c.is_ascii_alphanumeric() && !" ,.()".contains(c));
            prop_assert!(!quoted, "{words}");
            prop_assert_eq!(body.len() as u64 > limit, matches!(problem, palette_list::budget::BodyProblem::TooLarge { .. }));
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
