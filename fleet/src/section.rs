//! The fleet's table is twelve sections: three kinds of limiter, arrivals all at once or as a
//! stream, against an API whose hints the browser sees or not. Each section runs every policy
//! at every fleet size on the same arrivals.

use std::time::Duration;

use crate::figures::Figures;
use crate::limiter::LimiterKind;
use crate::policy::contenders;
use crate::run::{run, Arrivals, Scenario};

/// The fleet sizes the table and the chart report.
pub const FLEET_SIZES: [u32; 4] = [10, 100, 1_000, 10_000];

/// The stream's arrivals: the clients come over a minute on average.
pub const STREAM: Arrivals = Arrivals::Poisson(Duration::from_secs(60));

/// The windows of the two window limiters: shorter than a user's patience (20 s), so a read
/// refused in one window may load in the next, and everyone refused returns at once.
pub const WINDOW: Duration = Duration::from_secs(10);

/// The limiter kinds, in the table's order.
pub const LIMITERS: [LimiterKind; 3] = [
    LimiterKind::Gcra,
    LimiterKind::FixedWindow(WINDOW),
    LimiterKind::SlidingWindow(WINDOW),
];

/// One of the table's sections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Section {
    /// How the API counts its quota.
    pub limiter: LimiterKind,
    /// When the clients arrive.
    pub arrivals: Arrivals,
    /// Whether the browser sees `Retry-After` and the RateLimit fields.
    pub hints_exposed: bool,
}

impl Section {
    /// The twelve sections, in the table's order: by limiter, then arrivals, then hints.
    pub const ALL: [Section; 12] = {
        let mut all = [Section {
            limiter: LimiterKind::Gcra,
            arrivals: Arrivals::AllAtOnce,
            hints_exposed: true,
        }; 12];
        let mut i = 0;
        while i < 12 {
            all[i] = Section {
                limiter: LIMITERS[i / 4],
                arrivals: if i % 4 < 2 {
                    Arrivals::AllAtOnce
                } else {
                    STREAM
                },
                hints_exposed: i % 2 == 0,
            };
            i += 1;
        }
        all
    };

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
        format!("{} · {arrivals} · {hints}", self.limiter.name())
    }

    /// The scenario for `clients` in this section, seeded with `seed`.
    pub fn scenario(&self, clients: u32, seed: u64) -> Scenario {
        let mut scenario = Scenario::new(clients, self.arrivals);
        scenario.api = (scenario.api)
            .with_limiter(self.limiter)
            .with_hints_exposed(self.hints_exposed);
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
