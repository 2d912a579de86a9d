//! `replay FILE [--json]`: replays every case of a fixture file through the budget core.
//!
//! Prints a readable timeline per case and OK or the exact mismatches (or, with `--json`, one
//! JSON array with an object per case). Exits 0 when every case matches its `expect` and every
//! invalid fixture is refused with its reason, 1 otherwise, 2 when the file cannot be read.

use std::process::ExitCode;

use palette_list::budget::{seconds, Precision};
use palette_list_model::expect::{check_case, judge_invalid, InvalidVerdict};
use palette_list_model::{timeline, Case, CaseError, Fixture};
use serde_json::{json, Map, Value};

const USAGE: &str = "usage: replay FILE [--json]";

fn main() -> ExitCode {
    let mut file = None;
    let mut as_json = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--json" => as_json = true,
            "-h" | "--help" => {
                println!("{USAGE}\nReplays every case of a fixture file through the budget core.");
                return ExitCode::SUCCESS;
            }
            a if a.starts_with('-') => return usage(&format!("unknown option {a:?}")),
            a if file.is_none() => file = Some(a.to_owned()),
            a => return usage(&format!("one file at a time (got a second: {a:?})")),
        }
    }
    let Some(file) = file else {
        return usage("no fixture file given");
    };
    let fixture = match Fixture::load(&file) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("replay: {file}: {e}");
            return ExitCode::from(2);
        }
    };
    let (out, ok) = if as_json {
        run_json(&fixture)
    } else {
        run_text(&fixture)
    };
    println!("{out}");
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("replay: {problem}\n{USAGE}");
    ExitCode::from(2)
}

/// One case's result: its JSON object and its readable lines, and whether it passed.
struct Checked {
    json: Map<String, Value>,
    lines: Vec<String>,
    ok: bool,
}

fn check(parsed: &Result<Case, CaseError>) -> Checked {
    let case = match parsed {
        Ok(c) => c,
        Err(e) => return refused(e, "REFUSED"),
    };
    let mut lines = vec![format!(
        "== {}{}",
        case.id,
        case.source
            .as_ref()
            .map(|s| format!(": {s}"))
            .unwrap_or_default()
    )];
    let p = &case.policy;
    if let Ok(afford) = p.validate() {
        let s = |d| seconds(d, Precision::Exact);
        lines.push(format!(
            "   policy: budget {} s, {} attempts, {} s cap, floor {} s; {afford}",
            s(p.budget()),
            p.max_attempts(),
            s(p.attempt_cap()),
            s(p.min_wait())
        ));
    }
    let checked = match check_case(case) {
        Ok(c) => c,
        Err(e) => return refused(&e, "REFUSED"),
    };
    lines.extend(
        timeline(&checked.replay)
            .into_iter()
            .map(|l| format!("   {l}")),
    );
    let ok = checked.passes();
    let mut json = checked.json;
    json.insert("source".into(), json!(case.source));
    match &checked.compared {
        None => lines.push("   (no expect: nothing compared)".into()),
        Some(compared) => {
            for k in &compared.not_compared {
                lines.push(format!(
                    "   note: expect.{k} is not a key the model produces; not compared"
                ));
            }
            if compared.matches() {
                lines.push("   OK".into());
            }
            for m in &compared.mismatches {
                lines.push(format!(
                    "   MISMATCH {}: expected {}, got {}",
                    m.key, m.expected, m.got
                ));
            }
            json.insert(
                "mismatches".into(),
                Value::Array(
                    compared
                        .mismatches
                        .iter()
                        .map(|m| json!({"key": m.key, "expected": m.expected, "got": m.got}))
                        .collect(),
                ),
            );
            if !compared.not_compared.is_empty() {
                json.insert("not_compared".into(), json!(compared.not_compared));
            }
        }
    }
    Checked { json, lines, ok }
}

fn refused(e: &CaseError, label: &str) -> Checked {
    let mut json = Map::new();
    json.insert("id".into(), json!(e.case));
    json.insert("error".into(), json!(e.problem));
    json.insert("field".into(), json!(e.field));
    Checked {
        json,
        lines: vec![format!("== {}", e.case), format!("   {label}: {e}")],
        ok: false,
    }
}

fn results(fixture: &Fixture) -> Vec<Checked> {
    let mut all: Vec<Checked> = fixture.cases.iter().map(check).collect();
    for inv in &fixture.invalid_fixtures {
        let verdict = judge_invalid(inv);
        let mut c = match &verdict {
            InvalidVerdict::RefusedAsExpected(e) => refused(e, "refused as expected"),
            InvalidVerdict::RefusedOtherwise(e) => {
                let mut c = refused(e, "REFUSED FOR ANOTHER REASON");
                c.lines.push(format!("   expected: {}", inv.expect_error));
                c
            }
            InvalidVerdict::NotRefused => Checked {
                json: Map::from_iter([("id".to_owned(), json!(inv.id))]),
                lines: vec![
                    format!("== {}", inv.id),
                    format!("   NOT REFUSED: expected \"{}\"", inv.expect_error),
                ],
                ok: false,
            },
        };
        c.ok = verdict.passes();
        if let Some(source) = &inv.source {
            c.lines.insert(1, format!("   ({source})"));
        }
        c.json.insert("invalid_fixture".into(), json!(true));
        c.json.insert("source".into(), json!(inv.source));
        c.json
            .insert("expect_error".into(), json!(inv.expect_error));
        all.push(c);
    }
    all
}

fn run_text(fixture: &Fixture) -> (String, bool) {
    let all = results(fixture);
    let mut out = Vec::new();
    if let Some(about) = &fixture.about {
        out.push(about.clone());
    }
    for c in &all {
        out.extend(c.lines.iter().cloned());
    }
    let failed = all.iter().filter(|c| !c.ok).count();
    out.push(format!(
        "{} cases and invalid fixtures: {} as expected, {} not",
        all.len(),
        all.len() - failed,
        failed
    ));
    (out.join("\n"), failed == 0)
}

fn run_json(fixture: &Fixture) -> (String, bool) {
    let all = results(fixture);
    let ok = all.iter().all(|c| c.ok);
    let array = Value::Array(all.into_iter().map(|c| Value::Object(c.json)).collect());
    (
        serde_json::to_string_pretty(&array).expect("JSON values always serialize"),
        ok,
    )
}
