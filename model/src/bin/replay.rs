//! `replay FILE [--json] [--svg DIR]`: replays every case of a fixture file through the budget
//! core.
//!
//! Prints a readable timeline per case and OK or the exact mismatches (or, with `--json`, one
//! JSON array with an object per case). With `--svg DIR` it also draws each replayed case's
//! timeline into `DIR/<id>.svg`, with the same code the screen uses. Exits 0 when every case matches its `expect` and every
//! invalid fixture is refused with its reason, 1 otherwise, 2 when the file cannot be read.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;

use palette_list_model::judge::{self, check_case, judge_invalid, InvalidVerdict};
use palette_list_model::{scope_timeline, timeline, Case, CaseError, Fixture, ScopeCase};
use retry_budget::timeline::Timeline;
use retry_budget::words::{seconds_text, Precision};
use serde_json::{json, Map, Value};

/// Replays every case of a fixture file through the budget core, and says whether each matches
/// its `expect` block. Exits 0 when all do and every invalid fixture is refused with its reason,
/// 1 otherwise, 2 when the file cannot be read.
#[derive(Parser)]
#[command(name = "replay")]
struct Args {
    /// The fixture file.
    file: String,
    /// Prints one JSON array, an object per case, in place of the readable timelines.
    #[arg(long)]
    json: bool,
    /// Also draws each replayed case's timeline into the folder DIR, one SVG a case, named after
    /// the case's id.
    #[arg(long, value_name = "DIR")]
    svg: Option<PathBuf>,
}

fn main() -> ExitCode {
    let Args {
        file,
        json: as_json,
        svg: svg_dir,
    } = Args::parse();
    let fixture = match Fixture::load(&file) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("replay: {file}: {e}");
            return ExitCode::from(2);
        }
    };
    let all = results(&fixture);
    if let Some(dir) = &svg_dir {
        match write_pictures(dir, &all) {
            Ok(n) => eprintln!("replay: drew {n} timelines in {}", dir.display()),
            Err(e) => {
                eprintln!("replay: --svg {}: {e}", dir.display());
                return ExitCode::from(2);
            }
        }
    }
    let (out, ok) = if as_json {
        run_json(all)
    } else {
        run_text(&fixture, &all)
    };
    println!("{out}");
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// One case's result: its JSON object and its readable lines, whether it passed, and its
/// timeline picture where it replayed.
struct Checked {
    json: Map<String, Value>,
    lines: Vec<String>,
    ok: bool,
    picture: Option<(String, String)>,
}

/// Writes each replayed case's picture to `dir/<id>.svg`; an id's characters other than ASCII
/// letters, digits, `.`, `-` and `_` become `_`. Returns how many were written.
fn write_pictures(dir: &Path, all: &[Checked]) -> Result<usize, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let mut written = HashSet::new();
    for (id, svg) in all.iter().filter_map(|c| c.picture.as_ref()) {
        let name: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if !written.insert(name.clone()) {
            return Err(format!("two cases would both be drawn as {name}.svg"));
        }
        let path = dir.join(format!("{name}.svg"));
        std::fs::write(&path, svg).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(written.len())
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
        let s = |d| seconds_text(d, Precision::Exact);
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
    let picture = Timeline::from_trace(&checked.replay.trace, None)
        .map(|t| (case.id.clone(), t.to_svg(&case.id)));
    let ok = checked.passes();
    let mut json = checked.json.clone();
    json.insert("source".into(), json!(case.source));
    report(&checked, &mut lines, &mut json);
    Checked {
        json,
        lines,
        ok,
        picture,
    }
}

/// Adds what a comparison found to a case's lines and JSON.
fn report(checked: &judge::Checked, lines: &mut Vec<String>, json: &mut Map<String, Value>) {
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
}

/// A scope's actions, replayed together: one entry per action, the first with the merged
/// timeline.
fn check_scope_case(parsed: &Result<ScopeCase, CaseError>) -> Vec<Checked> {
    let scope = match parsed {
        Ok(s) => s,
        Err(e) => return vec![refused(e, "REFUSED")],
    };
    let (played, checked) = match judge::check_scope(scope) {
        Ok(r) => r,
        Err(e) => return vec![refused(&e, "REFUSED")],
    };
    let mut lines = vec![format!(
        "== {} ({} actions on one scope){}",
        scope.id,
        scope.actions.len(),
        scope
            .source
            .as_ref()
            .map(|s| format!(": {s}"))
            .unwrap_or_default()
    )];
    lines.extend(
        scope_timeline(&played)
            .into_iter()
            .map(|l| format!("   {l}")),
    );
    let mut all = Vec::new();
    for (n, (c, action)) in checked.iter().zip(&scope.actions).enumerate() {
        lines.push(format!("  [{}] {}", n + 1, action.case.id));
        let mut json = c.json.clone();
        json.insert("scope".into(), json!(scope.id));
        json.insert(
            "start_s".into(),
            palette_list_model::fixture::seconds_to_json(action.start),
        );
        report(c, &mut lines, &mut json);
        all.push(Checked {
            json,
            lines: std::mem::take(&mut lines),
            ok: c.passes(),
            picture: None,
        });
    }
    all
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
        picture: None,
    }
}

fn results(fixture: &Fixture) -> Vec<Checked> {
    let mut all: Vec<Checked> = fixture.cases.iter().map(check).collect();
    all.extend(fixture.scopes.iter().flat_map(check_scope_case));
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
                picture: None,
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

fn run_text(fixture: &Fixture, all: &[Checked]) -> (String, bool) {
    let mut out = Vec::new();
    if let Some(about) = &fixture.about {
        out.push(about.clone());
    }
    for c in all {
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

fn run_json(all: Vec<Checked>) -> (String, bool) {
    let ok = all.iter().all(|c| c.ok);
    let array = Value::Array(all.into_iter().map(|c| Value::Object(c.json)).collect());
    (
        serde_json::to_string_pretty(&array).expect("JSON values always serialize"),
        ok,
    )
}
