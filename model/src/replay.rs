//! Replays a case through the budget core on a virtual clock, as a trace and the `expect` values
//! derived from it; [`crate::judge`] holds them against the case's `expect`.

use std::time::{Duration, SystemTime};

use retry_budget::action::Phase;
use retry_budget::body::{BodyProblem, LimitedBody};
use retry_budget::headers::{ClockSource, HeaderNote, RateLimitFields};
use retry_budget::policy::is_success;
use retry_budget::report::TransportFailure;
use retry_budget::words::{seconds_text, Precision};
use retry_budget::{
    Client, ClientEvent, Event, ReadId, Response, ScopePolicy, Step, StopReport, TraceEvent,
};

use crate::data::parse_data;
use crate::fixture::{Answer, Body, Case, CaseError, ScopeCase};

/// What replaying a case produced: the `expect` values, derived from the trace.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The case's id.
    pub id: String,
    /// The policy's budget, for `remaining_at_receipt_s`.
    pub budget: Duration,
    /// The whole trace.
    pub trace: Vec<TraceEvent>,
    /// The stop report.
    pub report: StopReport,
}

impl Replay {
    /// Each attempt's start.
    pub fn starts(&self) -> Vec<Duration> {
        self.events()
            .filter_map(|(at, e)| matches!(e, Event::AttemptStarted { .. }).then_some(at))
            .collect()
    }

    /// Each used response's receipt.
    pub fn receipts(&self) -> Vec<Duration> {
        self.events()
            .filter_map(|(at, e)| matches!(e, Event::ResponseReceived { .. }).then_some(at))
            .collect()
    }

    /// Each receipt's wall-clock time, where there was evidence.
    pub fn receipt_wall_clock(&self) -> Vec<Option<(SystemTime, ClockSource)>> {
        self.events()
            .filter_map(|(_, e)| match e {
                Event::ResponseReceived { wall_clock, .. } => Some(*wall_clock),
                _ => None,
            })
            .collect()
    }

    /// Time actually waited: each planned wait up to its wake, or to the stop that cut it.
    pub fn waits(&self) -> Vec<Duration> {
        let mut waits = Vec::new();
        let mut since = None;
        for (at, e) in self.events() {
            match e {
                // A wait a scope's block lengthens is still one wait, from its first plan.
                Event::WaitPlanned { .. } => {
                    since.get_or_insert(at);
                }
                Event::TimerWoke { .. } | Event::Stopped(_) => {
                    if let Some(s) = since.take() {
                        waits.push(at - s);
                    }
                }
                _ => {}
            }
        }
        waits
    }

    /// Time each attempt spent queued for a place in flight: from queueing to its start, or to
    /// the stop that ended the queue.
    pub fn queued(&self) -> Vec<Duration> {
        let mut queued = Vec::new();
        let mut since = None;
        for (at, e) in self.events() {
            match e {
                Event::Queued { .. } => since = Some(at),
                // A block learned in the queue ends the queueing with a wait.
                Event::AttemptStarted { .. } | Event::WaitPlanned { .. } | Event::Stopped(_) => {
                    if let Some(s) = since.take() {
                        queued.push(at - s);
                    }
                }
                _ => {}
            }
        }
        queued
    }

    /// What each retryable response's `Retry-After` lacked, in order.
    pub fn header_notes(&self) -> Vec<&HeaderNote> {
        self.events()
            .filter_map(|(_, e)| match e {
                Event::ResponseReceived { note, .. } => note.as_ref(),
                _ => None,
            })
            .collect()
    }

    fn events(&self) -> impl Iterator<Item = (Duration, &Event)> {
        self.trace.iter().map(|t| (t.at, &t.event))
    }
}

/// Replays `case` through the core: a virtual clock jumps from event to event (the user leaving,
/// an answer arriving, the core's one timer), in a loop bounded by the case's size.
///
/// Events at the same instant are taken in this order: the user leaving, then an answer, then
/// the timer. So an answer exactly at the cap counts, and a leave at the instant of an answer
/// wins (the answer is dropped).
pub fn replay(case: &Case) -> Result<Replay, CaseError> {
    let mut played = play(&case.id, ScopePolicy::new(), &[(Duration::ZERO, case)])?;
    Ok(played.actions.remove(0))
}

/// What replaying several actions on one scope produced: each action's own replay (its times
/// from its own start), and every event of them all in the order it happened.
#[derive(Clone, Debug)]
pub struct ScopeReplay {
    /// The scope case's id.
    pub id: String,
    /// Each action's replay, in the case's order.
    pub actions: Vec<Replay>,
    /// Every event, as (time since the scope's zero, which action from 0, the event).
    pub merged: Vec<(Duration, usize, TraceEvent)>,
}

/// Replays several actions on one scope, each starting at its time, through one [`Client`], as
/// the browser's page drives it: the page's own rules decide how an answer reaches the ledger,
/// who hears of a block and when a queued read's turn comes. Ties at one instant: leaving,
/// answers, the page's timer, then starts; among actions, in the case's order.
pub fn replay_scope(scope: &ScopeCase) -> Result<ScopeReplay, CaseError> {
    let actions: Vec<(Duration, &Case)> =
        scope.actions.iter().map(|a| (a.start, &a.case)).collect();
    play(&scope.id, scope.scope_policy, &actions)
}

/// One action of a replay, on the scope's clock.
struct Player<'c> {
    case: &'c Case,
    start: Duration,
    /// The page's name for the read, once it has started.
    read: Option<ReadId>,
    /// The attempt in flight: its index, and when its answer comes (None: never).
    in_flight: Option<(usize, Option<Duration>)>,
    leave: Option<Duration>,
    waits: usize,
    /// Trace events already merged.
    merged: usize,
}

impl<'c> Player<'c> {
    fn err(&self, field: &str, problem: String) -> CaseError {
        CaseError {
            case: self.case.id.clone(),
            field: field.to_owned(),
            problem,
        }
    }

    /// Carries out a step the page decided for this action.
    fn take_step(&mut self, now: Duration, step: Step) -> Result<(), CaseError> {
        match step {
            Step::StartAttempt { number, .. } => {
                let i = number as usize - 1;
                let Some(attempt) = self.case.attempts.get(i) else {
                    return Err(self.err(
                        "attempts",
                        format!(
                            "attempt {number} was started but the case lists only {}",
                            self.case.attempts.len()
                        ),
                    ));
                };
                self.in_flight = Some((i, attempt.duration.map(|d| now + d)));
            }
            Step::Wait { .. } => self.waits += 1,
            // The scope's queue is the page's.
            Step::Queue { .. } => {}
            Step::Stop(_) => self.leave = None,
        }
        Ok(())
    }

    /// The action's next event of its own (not the page's timer): (when, its order at one
    /// instant).
    fn next_event(&self) -> Option<(Duration, u8)> {
        if self.read.is_none() {
            return Some((self.start, 3));
        }
        let answer = self.in_flight.and_then(|(_, at)| at);
        [(self.leave, 0), (answer, 1)]
            .into_iter()
            .filter_map(|(t, order)| t.map(|t| (t, order)))
            .min()
    }

    /// When the page's timer wakes for this action: its own timer, plus the case's lateness
    /// for the wait it is in (`timer_late_by`).
    fn timer(&self, page: &Client) -> Option<Duration> {
        let action = page.read(self.read?)?;
        let at = action.poll_timeout()?;
        Some(match action.phase() {
            Phase::Waiting { .. } => {
                at + self
                    .case
                    .timer_late_by
                    .get(self.waits - 1)
                    .copied()
                    .unwrap_or_default()
            }
            _ => at,
        })
    }
}

fn play(
    scope: &str,
    shared: ScopePolicy,
    actions: &[(Duration, &Case)],
) -> Result<ScopeReplay, CaseError> {
    let mut players: Vec<Player> = actions
        .iter()
        .map(|&(start, case)| Player {
            case,
            start,
            read: None,
            in_flight: None,
            leave: case.user_leaves_at.map(|l| start + l),
            waits: 0,
            merged: 0,
        })
        .collect();
    let mut page = Client::new();
    // Checked when the file was read.
    page.handle_scope_policy(scope, shared)
        .map_err(|e| CaseError {
            case: scope.to_owned(),
            field: "scope_policy".to_owned(),
            problem: e.to_string(),
        })?;
    let mut merged = Vec::new();
    let mut now = Duration::ZERO;
    let bound: usize = actions
        .iter()
        .map(|(_, c)| 4 * (c.attempts.len() + c.timer_late_by.len()) + 9)
        .sum();
    for _ in 0..bound {
        while let Some(event) = page.poll_event() {
            if let ClientEvent::Step { read, step } = event {
                if let Some(p) = players.iter_mut().find(|p| p.read == Some(read)) {
                    p.take_step(now, step)?;
                }
            }
        }
        for (n, p) in players.iter_mut().enumerate() {
            if let Some(action) = p.read.and_then(|r| page.read(r)) {
                for e in &action.trace()[p.merged..] {
                    merged.push((p.start + e.at, n, e.clone()));
                }
                p.merged = action.trace().len();
            }
        }
        // The page has one timer: it wakes for the action whose wake comes first.
        let timer = players
            .iter()
            .filter_map(|p| p.timer(&page))
            .min()
            .map(|t| (t, 2, 0));
        let next = players
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.next_event().map(|(t, order)| (t, order, i)))
            .chain(timer)
            .min();
        let Some((at, which, i)) = next else {
            let mut done = Vec::new();
            for p in players {
                let action = p
                    .read
                    .and_then(|r| page.read(r))
                    .expect("every action has started");
                done.push(Replay {
                    id: p.case.id.clone(),
                    budget: p.case.policy.budget(),
                    trace: action.trace().to_vec(),
                    report: action
                        .report()
                        .cloned()
                        .ok_or_else(|| p.err("attempts", "the action never stopped".into()))?,
                });
            }
            return Ok(ScopeReplay {
                id: scope.to_owned(),
                actions: done,
                merged,
            });
        };
        now = at;
        match which {
            0 => {
                let p = &mut players[i];
                p.leave = None;
                if let Some(read) = p.read {
                    page.handle_leave(now, read);
                }
            }
            1 => answer(&mut players[i], now, &mut page),
            2 => {
                // An attempt whose cap is due is aborted: its answer never comes.
                for p in &mut players {
                    let capped = p.read.and_then(|r| page.read(r)).is_some_and(|a| {
                        matches!(a.phase(), Phase::InFlight { deadline, .. } if *deadline <= now)
                    });
                    if capped {
                        p.in_flight = None;
                    }
                }
                page.handle_timeout(now);
            }
            _ => {
                let p = &mut players[i];
                let policy = p.case.client_policy();
                let read = page
                    .handle_start(now, scope, policy, p.case.jitter_seed)
                    .map_err(|e| p.err("policy", e.to_string()))?;
                p.read = Some(read);
            }
        }
    }
    Err(CaseError {
        case: scope.to_owned(),
        field: "attempts".into(),
        problem: format!("the replay did not settle within {bound} steps"),
    })
}

/// The answer of `player`'s attempt in flight arrives at `now`, and goes to the page.
fn answer(player: &mut Player, now: Duration, page: &mut Client) {
    let case = player.case;
    let (n, _) = player
        .in_flight
        .take()
        .expect("an answer time implies an attempt in flight");
    let Some(read) = player.read else {
        return;
    };
    let a = &case.attempts[n].answer;
    let (status, body) = match a {
        Answer::Response { status, body, .. } => (*status, body),
        Answer::TransportFailure => {
            return page.handle_transport_failure(now, read, TransportFailure::Network);
        }
        // An attempt with no answer has no answer time, so it never comes here.
        Answer::NoAnswer => return,
    };
    let mut response = Response::new(status);
    response.retry_after = a.header("Retry-After").map(str::to_owned);
    response.date = a.header("Date").map(str::to_owned);
    for name in RateLimitFields::NAMES {
        if let Some(v) = a.header(name) {
            response.rate_limit.set(name, v);
        }
    }
    let body = parse_body(status, body.as_ref(), case.policy.max_body_bytes());
    page.handle_response(now, read, &response, case.wall_clock_at(now), body);
}

/// A 2xx's body read as the browser reads it (the library's one body rule, [`LimitedBody`]), as
/// the Palette List's data ([`parse_data`]); any other status's body is not read.
fn parse_body(status: u16, body: Option<&Body>, limit: u64) -> Result<(), BodyProblem> {
    if !is_success(status) {
        return Ok(());
    }
    let mut received = LimitedBody::new(limit, None)?;
    for chunk in body.map(Body::chunks).into_iter().flatten() {
        received.push(&chunk)?;
    }
    received.finish(parse_data)
}

/// A readable timeline of a replay: each event with its elapsed time, then what the user sees.
pub fn timeline(r: &Replay) -> Vec<String> {
    let mut lines = Vec::new();
    for t in &r.trace {
        let mut line = format!("{:>7} s  {}", seconds_text(t.at, Precision::Exact), t.event);
        if let Event::ResponseReceived { .. } = t.event {
            line.push_str(&format!(
                " [{} s of budget left]",
                seconds_text(r.budget.saturating_sub(t.at), Precision::Exact)
            ));
        }
        lines.push(line);
    }
    lines.push("  user sees:".into());
    lines.extend(r.report.message().lines().map(|l| format!("    {l}")));
    lines
}

/// A readable timeline of a scope's replay: every event of every action in the order it
/// happened, on the scope's clock, with the action's place (from 1); then what each user sees.
pub fn scope_timeline(r: &ScopeReplay) -> Vec<String> {
    let mut lines: Vec<String> = r
        .merged
        .iter()
        .map(|(at, n, e)| {
            format!(
                "{:>7} s  [{}] {}",
                seconds_text(*at, Precision::Exact),
                n + 1,
                e.event
            )
        })
        .collect();
    for (n, a) in r.actions.iter().enumerate() {
        lines.push(format!("  user of [{}] sees:", n + 1));
        lines.extend(a.report.message().lines().map(|l| format!("    {l}")));
    }
    lines
}
