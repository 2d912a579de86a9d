//! Prints the fleet's table: every policy side by side on the same arrivals, for each fleet
//! size, in four sections. `--svg PATH` also writes the chart; `--seed N` picks the arrivals.

use std::process::ExitCode;
use std::time::Instant;

use palette_list_fleet::{chart, measure, Row, Section, HEADER};

/// The seed the README's table and chart were drawn with.
const SEED: u64 = 1;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut svg, mut seed) = (None, SEED);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--svg", Some(path)) => svg = Some(path),
            ("--seed", Some(n)) => match n.parse() {
                Ok(n) => seed = n,
                Err(_) => return usage(&format!("--seed takes a whole number, got {n:?}")),
            },
            (other, _) => return usage(&format!("{other:?} is not an option")),
        }
    }
    let started = Instant::now();
    let mut all = Vec::new();
    for section in Section::ALL {
        println!("\n### {}\n\n{HEADER}", section.title());
        for m in measure(section, seed) {
            let row = Row {
                policy: m.policy,
                clients: m.clients,
                figures: &m.figures,
            };
            println!("{row}");
            all.push(m);
        }
    }
    println!(
        "\n(seed {seed}; {} runs simulated in {:.1} s)",
        all.len(),
        started.elapsed().as_secs_f64()
    );
    if let Some(path) = svg {
        if let Err(e) = std::fs::write(&path, chart::svg(&all)) {
            eprintln!("cannot write the chart to {path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("{problem}\nusage: palette-list-fleet [--seed N] [--svg PATH]");
    ExitCode::from(2)
}
