//! Every worked case, replayed through the core: natively with `cargo test`, and inside
//! WebAssembly in headless Chromium (`bash scripts/test.sh wasm`). In wasm there is
//! no file system, so the fixture files are embedded at compile time from the same paths.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use palette_list_model::expect::{compare, Comparison};
use palette_list_model::judge::{check_case, check_scope, judge_invalid, InvalidVerdict};
use palette_list_model::{replay, Fixture};

mod common;

use common::{
    BODIES, EDGE_CASES as EDGE, SCHEDULES as SHIPPED, SCOPES, WRITTEN_ELSEWHERE as ELSEWHERE,
};

/// Replays every case and judges every invalid fixture; returns how many were checked.
fn check_all(text: &str) -> usize {
    let fixture = Fixture::parse(text).expect("the fixture file parses");
    let mut checked = 0;
    for case in &fixture.cases {
        let case = case.as_ref().unwrap_or_else(|e| panic!("{e}"));
        let c = check_case(case).unwrap_or_else(|e| panic!("{e}"));
        let compared = c.compared.expect("every case has an expect");
        assert!(compared.matches(), "{}: {:?}", case.id, compared.mismatches);
        assert!(
            compared.not_compared.is_empty(),
            "{}: unknown expect keys {:?}",
            case.id,
            compared.not_compared
        );
        checked += 1;
    }
    for scope in &fixture.scopes {
        let scope = scope.as_ref().unwrap_or_else(|e| panic!("{e}"));
        let (_, actions) = check_scope(scope).unwrap_or_else(|e| panic!("{e}"));
        for (c, action) in actions.iter().zip(&scope.actions) {
            let compared = c.compared.as_ref().expect("every action has an expect");
            assert!(
                compared.matches(),
                "{}: {:?}",
                action.case.id,
                compared.mismatches
            );
            assert!(compared.not_compared.is_empty(), "{}", action.case.id);
            checked += 1;
        }
    }
    for inv in &fixture.invalid_fixtures {
        match judge_invalid(inv) {
            InvalidVerdict::RefusedAsExpected(e) => assert_eq!(e.case, inv.id),
            other => panic!("{}: {other:?}, expected {:?}", inv.id, inv.expect_error),
        }
        checked += 1;
    }
    checked
}

#[test]
fn every_shipped_case_replays_to_its_expect() {
    // 14 cases and 1 invalid fixture: a file that lost cases must not pass quietly.
    assert_eq!(check_all(SHIPPED), 15);
}

#[test]
fn every_edge_case_replays_to_its_expect() {
    assert_eq!(check_all(EDGE), 30);
}

#[test]
fn a_file_written_elsewhere_replays() {
    assert_eq!(check_all(ELSEWHERE), 4);
}

#[test]
fn answers_as_real_apis_send_them_replay() {
    assert_eq!(check_all(BODIES), 13);
}

#[test]
fn several_actions_on_one_scope_replay_to_their_expects() {
    // Twelve scopes, thirty actions: three scopes with an in-flight limit, then one each for
    // jitter after a server's delay, full jitter, retry tokens, the cap on delayed reads and
    // priority in the queue.
    assert_eq!(check_all(SCOPES), 30);
}

#[test]
fn a_scope_is_refused_with_the_field_that_is_wrong() {
    let file = |scopes: &str| {
        format!(
            r#"{{"policy": {{"budget_s": 20, "max_attempts": 3, "attempt_cap_s": 4,
                "retry_statuses": [429], "min_wait_s": 1, "fallback_waits_s": [2]}},
                "cases": [], "scopes": {scopes}}}"#
        )
    };
    let attempt = r#"[{"duration_s": 0.1, "status": 200}]"#;
    for (scopes, expected) in [
        (r#"[{"id": "s"}]"#.to_owned(), "case s, actions: is missing"),
        (
            r#"[{"id": "s", "actions": []}]"#.to_owned(),
            "case s, actions: is empty",
        ),
        (
            format!(r#"[{{"id": "s", "actions": [{{"attempts": {attempt}}}]}}]"#),
            "case s, actions[0].start_s: is missing",
        ),
        (
            format!(
                r#"[{{"id": "s", "actions": [{{"id": "x", "start_s": 0, "attempts": {attempt}}}]}}]"#
            ),
            "case s, actions[0].id: an action is named by its place; give the id to the scope",
        ),
        (
            r#"[{"id": "s", "actions": [{"start_s": 1, "attempts": []}]}]"#.to_owned(),
            "case s#1, attempts: is empty: the first attempt always starts",
        ),
        (
            format!(
                r#"[{{"id": "s", "scope_policy": {{"in_flight_limit": 0}},
                    "actions": [{{"start_s": 0, "attempts": {attempt}}}]}}]"#
            ),
            "case s, scope_policy: in_flight_limit is 0: at least one request must be allowed \
             in flight",
        ),
        (
            format!(
                r#"[{{"id": "s", "scope_policy": {{"in_flight_limit": "two"}},
                    "actions": [{{"start_s": 0, "attempts": {attempt}}}]}}]"#
            ),
            "case s, scope_policy.in_flight_limit: must be a whole number of requests, got \"two\"",
        ),
        (
            format!(
                r#"[{{"id": "s", "scope_policy": {{"max_waiting": 1, "retry_tokens": {{"max": 0,
                    "refill_percent": 10}}}}, "actions": [{{"start_s": 0, "attempts": {attempt}}}]}}]"#
            ),
            "case s, scope_policy: retry_tokens max is 0: no retry could ever be sent; use \
             max_attempts 1 for that",
        ),
        // A scope's setting in one read's policy would be a second place to say it: refused.
        (
            format!(
                r#"[{{"id": "s", "actions": [{{"start_s": 0, "attempts": {attempt},
                    "policy": {{"in_flight_limit": 1}}}}]}}]"#
            ),
            "case s#1, policy.in_flight_limit: is the scope's setting, not a read's: give it in \
             the scope's scope_policy",
        ),
        (
            format!(
                r#"[{{"id": "s", "actions": [{{"start_s": 0, "attempts": {attempt},
                    "policy": {{"retry_tokens": {{"max": 1, "refill_percent": 50}}}}}}]}}]"#
            ),
            "case s#1, policy.retry_tokens: is the scope's setting, not a read's: give it in \
             the scope's scope_policy",
        ),
    ] {
        let fixture = Fixture::parse(&file(&scopes)).unwrap();
        let e = fixture.scopes[0].as_ref().unwrap_err();
        assert_eq!(e.to_string(), expected, "{scopes}");
    }
}

#[test]
fn no_body_text_reaches_the_trace_or_the_message() {
    let fixture = Fixture::parse(BODIES).unwrap();
    for case in fixture.cases.iter().flatten() {
        let out = replay(case).unwrap().to_json();
        let text = serde_json::Value::Object(out).to_string();
        for secret in [
            "SECRET-TOKEN-42",
            "Bad Gateway",
            "tracker.example",
            "tide-pool",
        ] {
            assert!(!text.contains(secret), "{}: {secret} in {text}", case.id);
        }
    }
}

#[test]
fn a_huge_expected_delay_equals_the_saturated_one_and_no_other() {
    let fixture = Fixture::parse(ELSEWHERE).unwrap();
    let case = fixture.cases[0].as_ref().unwrap();
    let got = replay(case).unwrap().to_json();
    let mut expect = case.expect.clone().unwrap();
    assert!(compare(&expect, &got, Comparison::Exact).matches());
    // A large number that is not past u64::MAX seconds is a different delay.
    expect.insert("requested_delay_s".into(), serde_json::json!(1e19));
    let c = compare(&expect, &got, Comparison::Exact);
    assert_eq!(c.mismatches.len(), 1);
    assert_eq!(c.mismatches[0].key, "requested_delay_s");
}

#[test]
fn real_time_comparison_allows_the_tolerance_and_no_more() {
    let fixture = Fixture::parse(SHIPPED).unwrap();
    let case = fixture.cases[0].as_ref().unwrap();
    let expect = case.expect.clone().unwrap();
    let mut got = replay(case).unwrap().to_json();
    got.insert("stopped_at_s".into(), serde_json::json!(14.1));
    let within = Comparison::RealTime {
        tolerance: std::time::Duration::from_millis(150),
    };
    assert!(compare(&expect, &got, within).matches());
    assert!(!compare(&expect, &got, Comparison::Exact).matches());
    got.insert("stopped_at_s".into(), serde_json::json!(14.2));
    assert_eq!(
        compare(&expect, &got, within).mismatches[0].key,
        "stopped_at_s"
    );
}

#[test]
fn real_time_messages_allow_the_tolerance_on_durations_and_nothing_else() {
    let fixture = Fixture::parse(SHIPPED).unwrap();
    let case = fixture.cases[0].as_ref().unwrap();
    let mut expect = case.expect.clone().unwrap();
    let got = replay(case).unwrap().to_json();
    let within = Comparison::RealTime {
        tolerance: std::time::Duration::from_millis(150),
    };
    let message = |lines: &[&str]| serde_json::json!(lines);
    let with = |expect: &mut serde_json::Map<String, serde_json::Value>, lines: &[&str]| {
        expect.insert("message".into(), message(lines));
    };
    let produced: Vec<String> = serde_json::from_value(got["message"].clone()).unwrap();
    let produced: Vec<&str> = produced.iter().map(String::as_str).collect();
    assert!(produced[1].contains("Elapsed: 14 seconds."), "{produced:?}");
    // The fixture's 13.9 s against a real 14 s: within 150 ms and the rounding.
    let mut lines = produced.clone();
    let shifted = produced[1].replace("14 seconds", "13.9 seconds");
    lines[1] = &shifted;
    with(&mut expect, &lines);
    assert!(compare(&expect, &got, within).matches());
    assert!(!compare(&expect, &got, Comparison::Exact).matches());
    // 13.7 s is 300 ms off: a mismatch.
    let far = produced[1].replace("14 seconds", "13.7 seconds");
    lines[1] = &far;
    with(&mut expect, &lines);
    assert_eq!(compare(&expect, &got, within).mismatches[0].key, "message");
    // A status or a count is never a duration: it matches exactly or not at all.
    assert!(produced[1].contains("200") && produced[1].contains("Attempts: 3"));
    let status = produced[1].replace("200", "201");
    lines[1] = &status;
    with(&mut expect, &lines);
    assert!(!compare(&expect, &got, within).matches());
    let count = produced[1].replace("Attempts: 3", "Attempts: 2");
    lines[1] = &count;
    with(&mut expect, &lines);
    assert!(!compare(&expect, &got, within).matches());
    // A fixture's "1 second" against a real "1.1 seconds": the plural follows the number.
    let mut got = got;
    let one = produced[1].replace("14 seconds", "1 second");
    lines[1] = &one;
    with(&mut expect, &lines);
    for (real, matches) in [
        ("1.1 seconds", true),
        ("0.9 seconds", true),
        ("1.3 seconds", false),
    ] {
        let mut real_lines: Vec<String> = produced.iter().map(|l| l.to_string()).collect();
        real_lines[1] = produced[1].replace("14 seconds", real);
        got.insert("message".into(), serde_json::json!(real_lines));
        assert_eq!(compare(&expect, &got, within).matches(), matches, "{real}");
    }
}

#[test]
fn the_wait_exceeds_message_is_the_specs() {
    let fixture = Fixture::parse(SHIPPED).unwrap();
    let case = fixture
        .cases
        .iter()
        .flatten()
        .find(|c| c.id == "wait-exceeds-budget")
        .unwrap();
    assert_eq!(
        replay(case).unwrap().report.message().to_string(),
        "Stopped: retry budget cannot fit another request.\n\
         Last response: 429. Attempts: 1 of 3. Elapsed: 2 seconds.\n\
         The service requested a 30-second delay. No retry was sent."
    );
}

#[test]
fn a_wrong_expect_is_reported_key_by_key() {
    let text = SHIPPED.replacen("\"stopped_at_s\": 14,", "\"stopped_at_s\": 15,", 1);
    let fixture = Fixture::parse(&text).unwrap();
    let case = fixture.cases[0].as_ref().unwrap();
    let mismatches = compare(
        case.expect.as_ref().unwrap(),
        &replay(case).unwrap().to_json(),
        Comparison::Exact,
    )
    .mismatches;
    assert_eq!(mismatches.len(), 1);
    assert_eq!(mismatches[0].key, "stopped_at_s");
    assert_eq!(
        (mismatches[0].expected.as_u64(), mismatches[0].got.as_u64()),
        (Some(15), Some(14))
    );
}

#[test]
fn an_absent_header_notes_means_none() {
    // Remove the expected note: the model's "missing" must now be a mismatch, not ignored.
    let text = SHIPPED.replacen(",\n        \"header_notes\": [\"missing\"]", "", 1);
    assert_ne!(text, SHIPPED);
    let fixture = Fixture::parse(&text).unwrap();
    let case = fixture
        .cases
        .iter()
        .flatten()
        .find(|c| c.id == "missing-header")
        .unwrap();
    let mismatches = compare(
        case.expect.as_ref().unwrap(),
        &replay(case).unwrap().to_json(),
        Comparison::Exact,
    )
    .mismatches;
    assert_eq!(
        mismatches
            .iter()
            .map(|m| m.key.as_str())
            .collect::<Vec<_>>(),
        ["header_notes"]
    );
}

#[test]
fn malformed_files_are_refused_with_the_field() {
    let err = |t: &str| Fixture::parse(t).unwrap_err().to_string();
    assert!(err("[").starts_with("not valid JSON"));
    assert_eq!(err("[]"), "(top level): must be an object, got an array");
    assert_eq!(err("{}"), "cases: is missing");
    assert_eq!(
        err(r#"{"cases": {}}"#),
        "cases: must be an array, got an object"
    );
    assert_eq!(
        err(r#"{"cases": [], "policy": 3}"#),
        "policy: must be an object, got a number"
    );
}

#[test]
fn a_bad_case_names_itself_and_its_field_and_spares_the_others() {
    let text = SHIPPED.replacen("\"duration_s\": 3,", "\"duration_s\": \"3\",", 1);
    let fixture = Fixture::parse(&text).unwrap();
    let e = fixture.cases[0].as_ref().unwrap_err();
    assert_eq!(
        e.to_string(),
        "case schedule-a-seconds, attempts[2].duration_s: must be a number of seconds, got a string"
    );
    assert!(fixture.cases[1..].iter().all(Result::is_ok));
}

#[test]
fn policy_keys_are_required_and_case_overrides_merge() {
    let text = SHIPPED.replacen("\"min_wait_s\": 1,", "", 1);
    let fixture = Fixture::parse(&text).unwrap();
    let e = fixture.cases[0].as_ref().unwrap_err();
    assert_eq!(
        (e.field.as_str(), e.problem.as_str()),
        ("policy.min_wait_s", "is missing")
    );

    let text = SHIPPED.replacen(
        "\"source\": \"Schedule A: the header contains seconds\",",
        "\"source\": \"A\", \"policy\": {\"budget_s\": 12},",
        1,
    );
    let fixture = Fixture::parse(&text).unwrap();
    let case = fixture.cases[0].as_ref().unwrap();
    assert_eq!(case.policy.budget().as_secs(), 12);
    assert_eq!(
        case.policy.max_attempts(),
        3,
        "the other keys come from the file"
    );
}

#[test]
fn duplicate_ids_are_refused() {
    let text = SHIPPED.replacen(
        "\"id\": \"schedule-b-date\"",
        "\"id\": \"schedule-a-seconds\"",
        1,
    );
    let fixture = Fixture::parse(&text).unwrap();
    let e = fixture.cases[1].as_ref().unwrap_err();
    assert_eq!(
        e.to_string(),
        "case schedule-a-seconds, id: another case has the same id"
    );
}

#[test]
fn a_streamed_filler_is_n_bytes_of_json_that_never_closes() {
    use palette_list::palettes::PaletteCollection;
    use palette_list_model::Body;
    use retry_budget::body::{parse_json, BodyProblem};
    for n in [1u64, 2, 3, 65_536, 65_537, 200_001] {
        let bytes: Vec<u8> = Body::Filler(n).chunks().flatten().collect();
        assert_eq!(bytes.len() as u64, n);
        assert!(bytes.starts_with(&b"[0,0"[..(n as usize).min(4)]), "{n}");
        // Cut anywhere, it is JSON that ended early, never something that is not JSON.
        assert!(
            matches!(
                parse_json::<PaletteCollection>(&bytes),
                Err(BodyProblem::Truncated { .. } | BodyProblem::WrongShape { .. })
            ),
            "{n}"
        );
        let text = String::from_utf8(bytes).unwrap();
        assert!(!text.contains("00") && !text.contains(",,"), "{n}");
    }
}

#[test]
fn the_fixture_body_reads_as_a_collection() {
    use palette_list::palettes::PaletteCollection;
    let text = common::SCHEDULES;
    let file: serde_json::Value = serde_json::from_str(text).unwrap();
    let coast: PaletteCollection = serde_json::from_value(file["bodies"]["coast"].clone()).unwrap();
    assert_eq!(coast.collection, "coast");
    assert_eq!(coast.palettes.len(), 4);
    assert_eq!(coast.palettes[0].name, "Tide Pool");
    assert_eq!(coast.palettes[0].colors[0], "#0b3c5d");
}

/// The model reads a 2xx body as the screen does: every body in every fixture file, and each
/// cut short at every length, gets the same answer (data, or the same problem at the same place)
/// from the model's reading and from the screen's own parser.
#[test]
fn the_model_reads_every_fixture_body_as_the_screen_does() {
    use palette_list::palettes::PaletteCollection;
    use palette_list_model::{parse_data, Answer, Body};
    let mut bodies: Vec<Vec<u8>> = Vec::new();
    for text in common::SINGLE_READS.iter().chain([&common::SCOPES]) {
        let fixture = Fixture::parse(text).unwrap();
        bodies.extend(fixture.bodies.values().map(|v| v.to_string().into_bytes()));
        for case in fixture.cases.iter().flatten() {
            for attempt in &case.attempts {
                if let Answer::Response {
                    body: Some(body @ (Body::Text(_) | Body::Named { .. })),
                    ..
                } = &attempt.answer
                {
                    bodies.push(body.chunks().flatten().collect());
                }
            }
        }
    }
    assert!(bodies.len() > 10, "only {} bodies found", bodies.len());
    for body in &bodies {
        for end in 0..=body.len() {
            let cut = &body[..end];
            assert_eq!(
                parse_data(cut),
                PaletteCollection::from_json(cut).map(drop),
                "{:?}",
                String::from_utf8_lossy(cut)
            );
        }
    }
}
