//! One run of the fleet: clients arrive, each reads a few times through its policy, and every
//! request meets the one limiter. Virtual time, jumped from one event to the next; no sleeping.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Duration;

use retry_budget::{
    Client, ClientEvent, Outcome, ReadId, Response, RetryPolicy, ScopePolicy, Step,
};

use crate::api::{Api, ApiConfig};
use crate::figures::Figures;
use crate::policy::{Baseline, FleetPolicy, RefusedPolicy};
use crate::random::Draws;

/// The scope every read of the fleet shares on its own page: the API's origin.
const SCOPE: &str = "https://api.example.com";

/// When clients arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrivals {
    /// Every client at 0 s: a wave after an outage, a push notification.
    AllAtOnce,
    /// A Poisson stream: the clients arrive at random over this long on average.
    Poisson(Duration),
}

/// What one run simulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// How many clients (browsers).
    pub clients: u32,
    /// When they arrive.
    pub arrivals: Arrivals,
    /// Reads each client makes, one after another.
    pub reads_per_client: u32,
    /// From one read's end to the client's next read.
    pub think: Duration,
    /// The API.
    pub api: ApiConfig,
    /// How long a user waits for data: a read loaded later is counted as loaded, but not
    /// within its budget (this crate's default budget, 20 s).
    pub patience: Duration,
    /// Where every random number of the run comes from.
    pub seed: u64,
}

impl Scenario {
    /// `clients` arriving as `arrivals`, three reads each 2 s apart, the default API, 20 s of
    /// patience, seed 1.
    pub const fn new(clients: u32, arrivals: Arrivals) -> Self {
        Self {
            clients,
            arrivals,
            reads_per_client: 3,
            think: Duration::from_secs(2),
            api: ApiConfig::new(),
            patience: Duration::from_secs(20),
            seed: 1,
        }
    }
}

/// What happens next to one client.
enum Happening {
    /// The client starts its next read.
    Start,
    /// A request of the client's reaches the limiter.
    Arrive { read: Option<ReadId> },
    /// Its answer reaches the client.
    Answer {
        read: Option<ReadId>,
        response: Response,
    },
    /// A timer the client armed fires.
    Timer,
}

/// How a client runs its reads.
enum Engine<'a> {
    /// A page running this crate's core under `policy`; `armed` is the page's one timer.
    Budget {
        page: Box<Client>,
        policy: &'a RetryPolicy,
        armed: Option<Duration>,
    },
    /// A baseline retrier; `attempts` of the read under way (0 between reads).
    Baseline { retrier: Baseline, attempts: u32 },
}

/// One simulated browser: how it reads, and what it has left to read.
struct Browser<'a> {
    engine: Engine<'a>,
    reads_left: u32,
    /// When the read under way started.
    read_started: Duration,
}

/// The event queue: times with a sequence number (so ties keep their order), and the events.
struct Events {
    heap: BinaryHeap<Reverse<(Duration, u64)>>,
    slots: Vec<Option<(u32, Happening)>>,
}

impl Events {
    fn push(&mut self, at: Duration, client: u32, what: Happening) {
        let seq = self.slots.len() as u64;
        self.slots.push(Some((client, what)));
        self.heap.push(Reverse((at, seq)));
    }

    fn pop(&mut self) -> Option<(Duration, u32, Happening)> {
        let Reverse((at, seq)) = self.heap.pop()?;
        let (client, what) = self.slots[seq as usize].take()?;
        Some((at, client, what))
    }
}

/// Runs `scenario` with every client under `policy`: the figures. This crate's policy is
/// refused, as the core refuses it, if it is not valid.
pub fn run(scenario: &Scenario, policy: &FleetPolicy) -> Result<Figures, RefusedPolicy> {
    if let FleetPolicy::Budget { read, scope, .. } = policy {
        read.validate()?;
        scope.validate()?;
    }
    let mut draws = Draws::new(scenario.seed);
    let mut api = Api::new(scenario.api);
    let mut figures = Figures::new(scenario.api.per_second.get(), scenario.patience);
    let mut events = Events {
        heap: BinaryHeap::new(),
        slots: Vec::new(),
    };
    let mut clients: Vec<Browser<'_>> = (0..scenario.clients)
        .map(|_| Browser {
            engine: match policy {
                FleetPolicy::Budget {
                    read,
                    scope,
                    learned_pace,
                } => Engine::Budget {
                    page: Box::new(page_with(*scope, *learned_pace)),
                    policy: read,
                    armed: None,
                },
                FleetPolicy::Baseline(retrier) => Engine::Baseline {
                    retrier: *retrier,
                    attempts: 0,
                },
            },
            reads_left: scenario.reads_per_client,
            read_started: Duration::ZERO,
        })
        .collect();
    let arrived = arrivals(scenario, &mut draws);
    figures.bound = bound(scenario, arrived.last().copied().unwrap_or_default());
    for (c, at) in (0..).zip(arrived) {
        events.push(at, c, Happening::Start);
    }
    let half = scenario.api.latency / 2;
    while let Some((now, c, what)) = events.pop() {
        let client = &mut clients[c as usize];
        match what {
            Happening::Arrive { read } => {
                let response = api.handle_request(now);
                events.push(now + half, c, Happening::Answer { read, response });
                continue;
            }
            Happening::Start => {
                client.reads_left -= 1;
                client.read_started = now;
                figures.reads += 1;
            }
            _ => {}
        }
        let ended = match &mut client.engine {
            Engine::Budget {
                page,
                policy,
                armed,
            } => {
                match what {
                    Happening::Start => {
                        page.handle_start(now, SCOPE, (*policy).clone(), draws.next())
                            .expect("validated before the run");
                    }
                    Happening::Answer { read, response } => {
                        let read = read.expect("a page's request names its read");
                        page.handle_response(now, read, &response, None, Ok(()));
                    }
                    Happening::Timer if *armed == Some(now) => {
                        *armed = None;
                        page.handle_timeout(now);
                    }
                    _ => {}
                }
                let ended = carry_out(page, now, half, c, &mut events);
                if let Some(t) = page.poll_timeout().filter(|t| *armed != Some(*t)) {
                    *armed = Some(t);
                    events.push(t, c, Happening::Timer);
                }
                ended
            }
            Engine::Baseline { retrier, attempts } => match what {
                Happening::Start | Happening::Timer => {
                    *attempts += 1;
                    events.push(now + half, c, Happening::Arrive { read: None });
                    None
                }
                Happening::Answer { response, .. } => {
                    let retry_after = response.retry_after.as_deref().and_then(|v| v.parse().ok());
                    if response.status == 200 {
                        *attempts = 0;
                        Some(true)
                    } else if *attempts < Baseline::ATTEMPTS {
                        let wait = retrier.wait(*attempts, retry_after);
                        events.push(now + wait, c, Happening::Timer);
                        None
                    } else {
                        *attempts = 0;
                        Some(false)
                    }
                }
                Happening::Arrive { .. } => None,
            },
        };
        if let Some(loaded) = ended {
            if loaded {
                figures.loaded(now - client.read_started);
            }
            if client.reads_left > 0 {
                events.push(now + scenario.think, c, Happening::Start);
            }
        }
    }
    figures.requests = api.requests;
    figures.refusals = api.refusals;
    figures.peak_per_second = api.peak_per_second();
    Ok(figures)
}

/// When each client arrives, drawn first from the run's `draws`.
fn arrivals(scenario: &Scenario, draws: &mut Draws) -> Vec<Duration> {
    let mut at = Duration::ZERO;
    (0..scenario.clients)
        .map(|_| {
            if let Arrivals::Poisson(over) = scenario.arrivals {
                at += draws.exponential(over / scenario.clients.max(1));
            }
            at
        })
        .collect()
}

/// The fewest requests per loaded read any client policy could send with `scenario`'s
/// arrivals and quota: every read's first request, over the most reads the quota can load
/// within the users' patience. A read loaded in time is admitted by then; a client's reads
/// follow one another, so its last is admitted at most its reads' patience and the thinking
/// between them after it arrives; the quota admits at most so many by the last client's
/// last such moment, `last` being when the last client arrives. (1 where the quota could load
/// every read.)
fn bound(scenario: &Scenario, last: Duration) -> f64 {
    let reads = u64::from(scenario.clients) * u64::from(scenario.reads_per_client);
    let chain = scenario.patience * scenario.reads_per_client
        + scenario.think * scenario.reads_per_client.saturating_sub(1);
    let most = scenario.api.most_admitted(last + chain).min(reads);
    if most == 0 {
        return f64::INFINITY;
    }
    reads as f64 / most as f64
}

/// Carries out what `page` decided at `now`: a started attempt's request leaves (it reaches
/// the limiter `half` later). Returns whether the client's read ended, and how: `Some(true)`
/// with data.
fn carry_out(
    page: &mut Client,
    now: Duration,
    half: Duration,
    client: u32,
    events: &mut Events,
) -> Option<bool> {
    let mut ended = None;
    while let Some(event) = page.poll_event() {
        // One page per browser: a block has no other tab to reach.
        let ClientEvent::Step { read, step } = event else {
            continue;
        };
        match step {
            Step::StartAttempt { .. } => {
                events.push(now + half, client, Happening::Arrive { read: Some(read) })
            }
            Step::Stop(report) => {
                page.remove(read);
                ended = Some(report.outcome == Outcome::Succeeded);
            }
            Step::Wait { .. } | Step::Queue { .. } => {}
        }
    }
    ended
}

/// A client's page, the API's scope given `scope` (validated by [`run`] before any client),
/// learning the scope's pace where `learned_pace` says.
fn page_with(scope: ScopePolicy, learned_pace: bool) -> Client {
    let mut page = Client::new().with_learned_pace(learned_pace);
    page.handle_scope_policy(SCOPE, scope)
        .expect("a valid scope policy, on a new page");
    page
}
