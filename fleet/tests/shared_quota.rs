//! The setting recommended for a shared quota ([`RetryPolicy::for_shared_quota`]) against both
//! baselines, in every section, at every fleet size, on seeds 1 to 8: it sends no more requests
//! per loaded read than either, and loads at least as large a share within the budget. Where
//! one of the two cannot hold, the cell is listed below with why, and what does hold there is
//! held instead; a listed cell that comes to hold on every seed fails too, so the list is
//! always the truth. docs/fleet.md shows the figures.
//!
//! About 30 s in a release build (scripts/test.sh runs this crate's tests with `--release`);
//! a debug build skips it.

use palette_list_fleet::policy::{Baseline, FleetPolicy};
use palette_list_fleet::{run, Arrivals, Figures, LimiterKind, Section, FLEET_SIZES};
use retry_budget::RetryPolicy;

/// The seeds the claims hold on.
const SEEDS: std::ops::RangeInclusive<u64> = 1..=8;

/// Which of the two inequalities a listed cell breaks.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Breaks {
    /// More requests per loaded read than a baseline: by at most this share of it.
    Requests { within: f64 },
    /// A smaller share loaded in time than a baseline: by at most these percentage points,
    /// and with strictly fewer requests per loaded read.
    Share { within_points: f64 },
}

/// A cell where an inequality cannot hold, and why.
struct Exception {
    limiter: LimiterKind,
    arrivals: Arrivals,
    clients: u32,
    breaks: Breaks,
    #[allow(dead_code)] // read by whoever reads this list
    why: &'static str,
}

const FIXED: LimiterKind = LimiterKind::FixedWindow(palette_list_fleet::section::WINDOW);

/// Every listed cell has the hints seen: hidden, the client chooses its waits and nothing here
/// is exact.
static EXCEPTIONS: [Exception; 3] = [
    Exception {
        limiter: LimiterKind::Gcra,
        arrivals: Arrivals::AllAtOnce,
        clients: 100,
        breaks: Breaks::Requests { within: 0.01 },
        why: "100 browsers at once against a bucket of 50: ky's exact 1 s return meets the \
              refill; a spread sends a request or two into a second already spent (1.17 to 1.18 \
              requests per loaded read against 1.17 on seeds 1, 5 and 8, all loaded either way)",
    },
    Exception {
        limiter: FIXED,
        arrivals: Arrivals::AllAtOnce,
        clients: 1_000,
        breaks: Breaks::Share {
            within_points: 16.0,
        },
        why: "a fixed window serves returns in the order they were refused: 1,000 browsers \
              coming back exactly at each reset load every read within 20 s (ky); any spread \
              reorders them, and 85 to 86 % load in time, with 2.21 to 2.23 requests per \
              loaded read against ky's 2.50",
    },
    Exception {
        limiter: FIXED,
        arrivals: palette_list_fleet::section::STREAM,
        clients: 10_000,
        breaks: Breaks::Share { within_points: 0.5 },
        why: "the same order at each reset, far past the quota: 20.0 to 20.1 % loaded in time \
              against ky's 20.1 to 20.4 %, with 10.4 to 10.5 requests per loaded read against \
              14.0 to 14.3",
    },
];

fn listed(section: Section, clients: u32) -> Option<&'static Exception> {
    EXCEPTIONS.iter().find(|e| {
        section.hints_exposed
            && e.limiter == section.limiter
            && e.arrivals == section.arrivals
            && e.clients == clients
    })
}

/// One cell on one seed: the recommended setting's figures, and the two baselines'.
struct Cell {
    section: Section,
    clients: u32,
    seed: u64,
    ours: Figures,
    baselines: [Figures; 2],
}

fn cells() -> Vec<Cell> {
    let mut all = Vec::new();
    for seed in SEEDS {
        for section in Section::ALL {
            for clients in FLEET_SIZES {
                all.push((section, clients, seed));
            }
        }
    }
    let ours = FleetPolicy::budget(RetryPolicy::for_shared_quota());
    let baselines = [Baseline::Classic, Baseline::KyLike].map(FleetPolicy::Baseline);
    let half = all.len().div_ceil(2);
    std::thread::scope(|s| {
        let runs: Vec<_> = all
            .chunks(half)
            .map(|chunk| {
                let (ours, baselines) = (&ours, &baselines);
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|&(section, clients, seed)| {
                            let scenario = section.scenario(clients, seed);
                            Cell {
                                section,
                                clients,
                                seed,
                                ours: run(&scenario, ours).unwrap(),
                                baselines: baselines.each_ref().map(|b| run(&scenario, b).unwrap()),
                            }
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        runs.into_iter().flat_map(|r| r.join().unwrap()).collect()
    })
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "run in a release build: scripts/test.sh, core stage"
)]
fn for_a_shared_quota_costs_no_more_and_loads_no_less_than_every_baseline() {
    const EPSILON: f64 = 1e-9;
    let mut broken = vec![false; EXCEPTIONS.len()];
    for cell in cells() {
        let at = format!(
            "{} at {} on seed {}",
            cell.section.title(),
            cell.clients,
            cell.seed
        );
        let (sent, share) = (cell.ours.requests_per_loaded(), cell.ours.loaded_in_time());
        for theirs in &cell.baselines {
            let more = sent > theirs.requests_per_loaded() + EPSILON;
            let less = share + EPSILON < theirs.loaded_in_time();
            if !more && !less {
                continue;
            }
            let exception = listed(cell.section, cell.clients);
            match exception.map(|e| e.breaks) {
                Some(Breaks::Requests { within }) if !less => assert!(
                    sent <= theirs.requests_per_loaded() * (1.0 + within),
                    "{at}: {sent} requests per loaded read, more than {within} over {}",
                    theirs.requests_per_loaded()
                ),
                Some(Breaks::Share { within_points }) if !more => assert!(
                    (theirs.loaded_in_time() - share) * 100.0 <= within_points
                        && sent < theirs.requests_per_loaded(),
                    "{at}: {share} loaded, {sent} requests per loaded read, against {} and {}",
                    theirs.loaded_in_time(),
                    theirs.requests_per_loaded()
                ),
                _ => panic!(
                    "{at}: {sent:.3} requests per loaded read and {:.1} % loaded, against a \
                     baseline's {:.3} and {:.1} %",
                    share * 100.0,
                    theirs.requests_per_loaded(),
                    theirs.loaded_in_time() * 100.0
                ),
            }
            let i = EXCEPTIONS
                .iter()
                .position(|e| std::ptr::eq(e, exception.unwrap()))
                .unwrap();
            broken[i] = true;
        }
    }
    for (e, broken) in EXCEPTIONS.iter().zip(broken) {
        assert!(
            broken,
            "{:?} {:?} at {} holds on every seed now: take it off the list",
            e.limiter, e.arrivals, e.clients
        );
    }
}
