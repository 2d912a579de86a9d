//! The fleet's table is four sections: arrivals all at once or as a stream, against an API
//! whose hints the browser sees or not. Each section runs every policy at every fleet size
//! on the same arrivals.

use std::time::Duration;

use crate::figures::Figures;
use crate::policy::contenders;
use crate::run::{run, Arrivals, Scenario};

/// The fleet sizes the table and the chart report.
pub const FLEET_SIZES: [u32; 4] = [10, 100, 1_000, 10_000];

/// The stream's arrivals: the clients come over a minute on average.
pub const STREAM: Arrivals = Arrivals::Poisson(Duration::from_secs(60));

/// One of the table's four sections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Section {
    /// When the clients arrive.
    pub arrivals: Arrivals,
    /// Whether the browser sees `Retry-After` and the RateLimit fields.
    pub hints_exposed: bool,
}

impl Section {
    /// The four sections, in the table's order.
    pub const ALL: [Section; 4] = [
        Section {
            arrivals: Arrivals::AllAtOnce,
            hints_exposed: true,
        },
        Section {
            arrivals: Arrivals::AllAtOnce,
            hints_exposed: false,
        },
        Section {
            arrivals: STREAM,
            hints_exposed: true,
        },
        Section {
            arrivals: STREAM,
            hints_exposed: false,
        },
    ];

    /// Its heading, short enough for the chart's panels.
    pub fn title(&self) -> String {
        let arrivals = match self.arrivals {
            Arrivals::AllAtOnce => "all at once".to_owned(),
            Arrivals::Poisson(over) => format!("Poisson over {} s", over.as_secs()),
        };
        let hints = if self.hints_exposed {
            "hints seen"
        } else {
            "Retry-After hidden by CORS"
        };
        format!("{arrivals} · {hints}")
    }

    /// The scenario for `clients` in this section, seeded with `seed`.
    pub fn scenario(&self, clients: u32, seed: u64) -> Scenario {
        let mut scenario = Scenario::new(clients, self.arrivals);
        scenario.api = scenario.api.with_hints_exposed(self.hints_exposed);
        scenario.seed = seed;
        scenario
    }
}

/// What one policy measured at one size in one section.
#[derive(Clone, Debug)]
pub struct Measured {
    /// The section.
    pub section: Section,
    /// Clients in the fleet.
    pub clients: u32,
    /// The policy's name.
    pub policy: &'static str,
    /// What it measured.
    pub figures: Figures,
}

/// Every policy at every fleet size in `section`, on the arrivals `seed` draws.
pub fn measure(section: Section, seed: u64) -> Vec<Measured> {
    let mut all = Vec::new();
    for clients in FLEET_SIZES {
        let scenario = section.scenario(clients, seed);
        for c in contenders() {
            all.push(Measured {
                section,
                clients,
                policy: c.name,
                figures: run(&scenario, &c.policy).expect("the contenders' policies are valid"),
            });
        }
    }
    all
}
