//! The replay tool as a user runs it: its output, its JSON and its exit codes.
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

/// The contract's worked cases, as this project ships them.
const SHIPPED: &str = "../tests/fixtures/schedules.json";
const EDGE: &str = "../tests/fixtures/edge-cases.json";

fn replay(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_replay"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the replay binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// A fixture file of our own in the temp directory, removed when dropped.
struct TempFixture(PathBuf);

impl TempFixture {
    fn new(name: &str, text: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("palette-list-{}-{name}.json", std::process::id()));
        std::fs::write(&path, text).unwrap();
        Self(path)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn the_shipped_fixtures_all_pass_in_text() {
    let o = replay(&[SHIPPED]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let out = stdout(&o);
    assert_eq!(out.matches("\n   OK").count(), 14);
    assert!(out.contains(
        "refused as expected: case duration-beyond-cap, attempts[0].duration_s: attempt 1 lasts 5 s, beyond the 4 s per-attempt cap"
    ));
    // The timeline shows starts, receipts, waits, remaining budget, the reason and the message.
    assert!(out.contains("2 s  wait 3 s: server asked for 3 s; 18 s of budget left"));
    assert!(out.contains("14 s  stopped: succeeded after 3 of 3 attempts"));
    assert!(out.contains("       The service requested a 30-second delay. No retry was sent."));
    assert!(out.ends_with("15 cases and invalid fixtures: 15 as expected, 0 not\n"));
}

/// The `--json` output, checked against the fixture file's own `expect` blocks by this test,
/// independently of the tool's comparison.
#[test]
fn the_json_output_parses_and_matches_every_expect() {
    let o = replay(&[SHIPPED, "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let got: Vec<Value> = serde_json::from_slice(&o.stdout).expect("--json prints JSON");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(SHIPPED).unwrap()).unwrap();
    let cases = file["cases"].as_array().unwrap();
    assert_eq!(got.len(), cases.len() + 1);
    for (case, result) in cases.iter().zip(&got) {
        assert_eq!(result["id"], case["id"]);
        for (key, expected) in case["expect"].as_object().unwrap() {
            let produced = &result[key];
            let equal = match (expected.as_f64(), produced.as_f64()) {
                (Some(a), Some(b)) => a == b,
                _ => expected == produced,
            };
            assert!(
                equal,
                "{} {key}: expected {expected}, got {produced}",
                case["id"]
            );
        }
        for key in [
            "outcome",
            "stopped_at_s",
            "starts_s",
            "receipts_s",
            "waits_s",
            "request_s",
            "waited_s",
            "last_status",
            "requested_delay_s",
            "header_notes",
            "message",
            "trace",
        ] {
            assert!(result.get(key).is_some(), "{} lacks {key}", case["id"]);
        }
        let trace = result["trace"].as_array().unwrap();
        let stops = trace.iter().filter(|e| e["event"] == "stopped").count();
        assert_eq!(stops, 1);
    }
    let refused = got.last().unwrap();
    assert_eq!(refused["id"], "duration-beyond-cap");
    assert_eq!(
        refused["error"],
        "attempt 1 lasts 5 s, beyond the 4 s per-attempt cap"
    );
}

#[test]
fn the_edge_cases_pass_too() {
    let o = replay(&[EDGE]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn a_mismatch_exits_1_and_says_exactly_what_differs() {
    let text = std::fs::read_to_string(SHIPPED).unwrap().replacen(
        "\"waits_s\": [3, 4],",
        "\"waits_s\": [3, 5],",
        1,
    );
    let f = TempFixture::new("mismatch", &text);
    let o = replay(&[f.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("   MISMATCH waits_s: expected [3,5], got [3,4]"));
    let o = replay(&[f.path(), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let got: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(got[0]["mismatches"][0]["key"], "waits_s");
}

#[test]
fn an_invalid_fixture_that_is_accepted_is_a_failure() {
    let text = std::fs::read_to_string(SHIPPED).unwrap().replacen(
        "{ \"duration_s\": 5, \"status\": 200",
        "{ \"duration_s\": 4, \"status\": 200",
        1,
    );
    let f = TempFixture::new("accepted", &text);
    let o = replay(&[f.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o)
        .contains("NOT REFUSED: expected \"attempt 1 lasts 5 s, beyond the 4 s per-attempt cap\""));
}

#[test]
fn a_refused_case_exits_1_and_is_an_error_object_in_json() {
    let text = std::fs::read_to_string(SHIPPED).unwrap().replacen(
        "\"status\": 429, \"headers\": { \"Retry-After\": \"3\" }",
        "\"status\": \"429\"",
        1,
    );
    let f = TempFixture::new("refused", &text);
    let o = replay(&[f.path(), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let got: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(got[0]["id"], "schedule-a-seconds");
    assert_eq!(got[0]["field"], "attempts[0].status");
    assert_eq!(got[0]["error"], "\"429\" is not an HTTP status (100-599)");
    assert_eq!(
        got[1]["outcome"], "succeeded",
        "the other cases still replay"
    );
}

#[test]
fn unreadable_files_exit_2() {
    let o = replay(&["no/such/file.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read no/such/file.json"));
    let f = TempFixture::new("not-json", "{\"cases\": [");
    let o = replay(&[f.path()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not valid JSON"));
    assert_eq!(replay(&[]).status.code(), Some(2));
    assert_eq!(replay(&[SHIPPED, "--yaml"]).status.code(), Some(2));
}

#[test]
fn help_says_what_it_takes_and_an_unknown_flag_is_refused_by_name() {
    let o = replay(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = stdout(&o);
    for word in ["Usage: replay", "<FILE>", "--json", "--svg <DIR>"] {
        assert!(help.contains(word), "{word:?} is not in:\n{help}");
    }
    let o = replay(&[SHIPPED, "--yaml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unexpected argument '--yaml'"));
    let o = replay(&[SHIPPED, EDGE]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains(EDGE));
    assert!(stdout(&o).is_empty(), "nothing replayed");
}

#[test]
fn a_product_persons_own_schedule_replays() {
    // Another policy and a case without an expect: it replays and shows its timeline.
    let text = r#"{
      "policy": { "budget_s": 60, "max_attempts": 4, "attempt_cap_s": 10,
                  "retry_statuses": [429], "min_wait_s": 2, "fallback_waits_s": [5] },
      "request": { "method": "GET" },
      "wall_clock_at_zero": null,
      "cases": [ { "id": "mine", "attempts": [
          { "duration_s": 8, "status": 429, "headers": { "Retry-After": "20" } },
          { "duration_s": 9, "status": 429 },
          { "duration_s": 1, "status": 200 } ] } ]
    }"#;
    let f = TempFixture::new("mine", text);
    let o = replay(&[f.path()]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    // 8 + 20 = 28 (fits: 38 <= 60); 28 + 9 = 37, fallback 5 → 42 (fits: 52); 42 + 1 = 43.
    assert!(out.contains("     28 s  attempt 2 started"), "{out}");
    assert!(out.contains("     42 s  attempt 3 started"), "{out}");
    assert!(
        out.contains("     43 s  stopped: succeeded after 3 of 4 attempts"),
        "{out}"
    );
    assert!(out.contains("(no expect: nothing compared)"));
}

#[test]
fn svg_draws_one_timeline_per_replayed_case() {
    let dir = std::env::temp_dir().join(format!("palette-list-svg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let o = replay(&[SHIPPED, "--svg", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    // 14 cases replay; the invalid fixture is refused and has no picture.
    assert_eq!(names.len(), 14);
    assert!(names.contains(&"schedule-a-seconds.svg".to_owned()));
    let svg = std::fs::read_to_string(dir.join("wait-exceeds-budget.svg")).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.contains(r#"data-outcome="budget_exhausted""#));
    std::fs::remove_dir_all(&dir).unwrap();

    assert_eq!(replay(&[SHIPPED, "--svg"]).status.code(), Some(2));
}

#[test]
fn scopes_print_one_merged_timeline_and_each_actions_verdict() {
    let o = replay(&["../tests/fixtures/scopes.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(out.contains("== three-screens-one-429 (3 actions on one scope)"));
    // The late screens start when the first one's 429 block ends, on the scope's clock.
    for line in [
        "     10.2 s  [1] attempt 2 started",
        "     10.2 s  [2] attempt 1 started",
        "     10.2 s  [3] attempt 1 started",
    ] {
        assert!(out.contains(line), "{line:?} not in\n{out}");
    }
    // The queue: the second screen starts when the first one's answer frees the one place.
    for line in [
        "      0.5 s  [2] attempt 1 queued: at most 1 in flight on this API",
        "        1 s  [2] attempt 1 started",
    ] {
        assert!(out.contains(line), "{line:?} not in\n{out}");
    }
    assert!(out.ends_with("30 cases and invalid fixtures: 30 as expected, 0 not\n"));
    let o = replay(&["../tests/fixtures/scopes.json", "--json"]);
    let all: Value = serde_json::from_slice(&o.stdout).unwrap();
    let second = &all[1];
    assert_eq!(second["id"], "three-screens-one-429#2");
    assert_eq!(second["scope"], "three-screens-one-429");
    assert_eq!(second["start_s"], 1);
    assert_eq!(second["starts_s"], serde_json::json!([9.2]));
}
