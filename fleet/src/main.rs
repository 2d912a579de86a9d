//! Prints the fleet's table: every policy side by side on the same arrivals, for each fleet
//! size, in four sections. `--svg PATH` also writes the chart; `--seed N` picks the arrivals.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use palette_list_fleet::{chart, measure, Row, Section, HEADER, SHARED_QUOTA};

/// Simulates a fleet of browsers reading one rate-limited API, every policy on the same
/// arrivals, and prints the table (virtual time: seconds of work).
#[derive(Parser)]
#[command(name = "palette-list-fleet")]
struct Args {
    /// The seed the arrivals are drawn from (the README's table and chart: 1).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also draws the chart, as SVG, into this file.
    #[arg(long, value_name = "PATH")]
    svg: Option<PathBuf>,
}

fn main() -> ExitCode {
    let Args { seed, svg } = Args::parse();
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
    // How far the setting for a shared quota is from the fewest any policy could send.
    let ratios: Vec<(f64, String)> = all
        .iter()
        .filter(|m| m.policy == SHARED_QUOTA && m.figures.refusals > 0)
        .map(|m| {
            let at = format!("{} at {}", m.section.title(), m.clients);
            (m.figures.requests_per_loaded() / m.figures.bound, at)
        })
        .collect();
    if let Some((worst, at)) = ratios.iter().max_by(|a, b| a.0.total_cmp(&b.0)) {
        let best = ratios.iter().map(|r| r.0).fold(f64::INFINITY, f64::min);
        println!(
            "\n{SHARED_QUOTA}, wherever the API refused anything: {best:.2} to {worst:.2} times \
             the bound (the most at {at})"
        );
    }
    println!(
        "\n(seed {seed}; {} runs simulated in {:.1} s)",
        all.len(),
        started.elapsed().as_secs_f64()
    );
    if let Some(path) = svg {
        if let Err(e) = std::fs::write(&path, chart::svg(&all)) {
            eprintln!("cannot write the chart to {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
