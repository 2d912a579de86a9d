//! One read action: a sans-IO state machine that decides start / wait / stop.

use std::fmt;
use std::time::{Duration, SystemTime};

use super::policy::{PolicyError, RetryPolicy};
use super::report::{LastResponse, Outcome, RequestedDelay, StopReport, StoppedWhile};
use super::retry_after::{
    delay_until, parse_date_header, parse_retry_after, HeaderNote, RetryAfter,
};
use super::secs_ms as secs;

/// An HTTP response as the core needs it: the status and the two headers that matter.
/// There is no body and no method here; the read action is `GET` only.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The `Retry-After` value, as received.
    pub retry_after: Option<String>,
    /// The `Date` value, as received.
    pub date: Option<String>,
    /// The response came cross-origin, so a missing header may only be hidden by CORS.
    pub cross_origin: bool,
}

impl Response {
    /// A response with this status and no headers.
    pub const fn new(status: u16) -> Self {
        Self {
            status,
            retry_after: None,
            date: None,
            cross_origin: false,
        }
    }

    /// With a `Retry-After` value.
    pub fn retry_after(mut self, value: impl Into<String>) -> Self {
        self.retry_after = Some(value.into());
        self
    }

    /// With a `Date` value.
    pub fn date(mut self, value: impl Into<String>) -> Self {
        self.date = Some(value.into());
        self
    }

    /// Marked as cross-origin.
    pub const fn cross_origin(mut self, cross_origin: bool) -> Self {
        self.cross_origin = cross_origin;
        self
    }
}

/// What the driver must do next. `now` and `until` are on the driver's monotonic clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Start attempt `number` (1-based) now; abort it if it runs past `deadline`.
    StartAttempt {
        /// Which attempt.
        number: u32,
        /// When its cap runs out (also what `poll_timeout` returns while it is in flight).
        deadline: Duration,
    },
    /// Send nothing until `until`, then call `handle_timeout`.
    Wait {
        /// The planned wake.
        until: Duration,
        /// Why this long.
        reason: WaitReason,
    },
    /// The action is over: abort any fetch, clear any timer, show the report.
    Stop(StopReport),
}

/// Where a planned wait came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitReason {
    /// `Retry-After` delay-seconds.
    ServerDelay(Duration),
    /// A `Retry-After` date, read against the receipt's clock evidence.
    ServerDate {
        /// The date named.
        until: SystemTime,
        /// The date minus the receipt's wall-clock time (clamped at 0, rounded up).
        delay: Duration,
        /// Where the receipt's wall-clock time came from.
        evidence: ClockSource,
    },
    /// No usable hint: the policy's fallback wait.
    Fallback {
        /// The fallback wait for this attempt.
        wait: Duration,
        /// What was wrong with the header.
        note: HeaderNote,
    },
}

impl WaitReason {
    /// The server's requested delay, if the wait came from a valid hint.
    pub fn requested(&self) -> Option<RequestedDelay> {
        match *self {
            WaitReason::ServerDelay(delay) => Some(RequestedDelay { delay, until: None }),
            WaitReason::ServerDate { until, delay, .. } => Some(RequestedDelay {
                delay,
                until: Some(until),
            }),
            WaitReason::Fallback { .. } => None,
        }
    }

    /// The wait before the local floor.
    pub fn asked(&self) -> Duration {
        match *self {
            WaitReason::ServerDelay(d) => d,
            WaitReason::ServerDate { delay, .. } => delay,
            WaitReason::Fallback { wait, .. } => wait,
        }
    }
}

impl fmt::Display for WaitReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WaitReason::ServerDelay(d) => write!(f, "server asked for {} s", secs(*d)),
            WaitReason::ServerDate {
                until,
                delay,
                evidence,
            } => write!(
                f,
                "server date {} ({} s by the {evidence})",
                httpdate::fmt_http_date(*until),
                secs(*delay)
            ),
            WaitReason::Fallback { wait, note } => {
                write!(f, "no usable hint ({note}), fallback {} s", secs(*wait))
            }
        }
    }
}

/// Where a receipt's wall-clock time came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockSource {
    /// The response's own `Date` header: the same clock as the server's `Retry-After`.
    DateHeader,
    /// The local wall clock, which the policy trusts.
    LocalClock,
}

impl fmt::Display for ClockSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ClockSource::DateHeader => "response's Date",
            ClockSource::LocalClock => "local clock",
        })
    }
}

/// Why an attempt ended without a response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The network failed; the transport's words.
    Transport(String),
    /// The attempt reached its cap and was aborted.
    TimedOut,
}

/// Why a response was not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The action had already stopped (the user left, or it ended otherwise).
    NotOwned,
    /// It arrived after its attempt's cap.
    PastCap,
}

/// One entry of the trace. `at` is elapsed time since the action started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    /// Elapsed time since the action started.
    pub at: Duration,
    /// What happened.
    pub event: Event,
}

/// What the trace records: the SPEC's list, and nothing else (never a body or credential).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The action started with this budget.
    ActionStarted {
        /// Total budget.
        budget: Duration,
        /// Attempts allowed.
        max_attempts: u32,
        /// Per-attempt cap.
        attempt_cap: Duration,
    },
    /// An attempt started.
    AttemptStarted {
        /// Which one (1-based).
        attempt: u32,
    },
    /// A response arrived for the attempt in flight.
    ResponseReceived {
        /// Which attempt.
        attempt: u32,
        /// Its status.
        status: u16,
        /// `Retry-After`, as received.
        retry_after: Option<String>,
        /// `Date`, as received.
        date: Option<String>,
        /// The receipt's wall-clock time, where there was usable evidence.
        wall_clock: Option<(SystemTime, ClockSource)>,
        /// What was wrong with `Retry-After` (retryable statuses only).
        note: Option<HeaderNote>,
    },
    /// An attempt ended without a response.
    AttemptFailed {
        /// Which attempt.
        attempt: u32,
        /// How.
        failure: Failure,
    },
    /// A wait before the next attempt.
    WaitPlanned {
        /// How long (after the local floor).
        wait: Duration,
        /// Why.
        reason: WaitReason,
        /// Budget left at the decision.
        remaining: Duration,
    },
    /// The wait's timer woke.
    TimerWoke {
        /// How much later than planned.
        late: Duration,
    },
    /// A response (or a failure) that arrived when the action could not use it.
    ResponseDropped {
        /// Its status; `None` for a transport failure.
        status: Option<u16>,
        /// Why it was dropped.
        reason: DropReason,
    },
    /// The terminal event: exactly one per action.
    Stopped(StopReport),
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::ActionStarted {
                budget,
                max_attempts,
                attempt_cap,
            } => write!(
                f,
                "action started: budget {} s, at most {max_attempts} attempts, {} s cap each",
                secs(*budget),
                secs(*attempt_cap)
            ),
            Event::AttemptStarted { attempt } => write!(f, "attempt {attempt} started"),
            Event::ResponseReceived {
                attempt,
                status,
                retry_after,
                date,
                wall_clock,
                note,
            } => {
                write!(f, "attempt {attempt} answered {status}")?;
                if let Some(v) = retry_after {
                    write!(f, ", Retry-After: {v}")?;
                }
                if let Some(v) = date {
                    write!(f, ", Date: {v}")?;
                }
                if let Some((t, source)) = wall_clock {
                    write!(
                        f,
                        " (received at {} by the {source})",
                        httpdate::fmt_http_date(*t)
                    )?;
                }
                if let Some(n) = note {
                    write!(f, "; {n}")?;
                }
                Ok(())
            }
            Event::AttemptFailed { attempt, failure } => match failure {
                Failure::Transport(why) => write!(f, "attempt {attempt} failed: {why}"),
                Failure::TimedOut => write!(f, "attempt {attempt} aborted at its cap"),
            },
            Event::WaitPlanned {
                wait,
                reason,
                remaining,
            } => write!(
                f,
                "wait {} s: {reason}; {} s of budget left",
                secs(*wait),
                secs(*remaining)
            ),
            Event::TimerWoke { late } if late.is_zero() => f.write_str("timer woke on time"),
            Event::TimerWoke { late } => write!(f, "timer woke {} s late", secs(*late)),
            Event::ResponseDropped { status, reason } => {
                match status {
                    Some(s) => write!(f, "response {s} dropped")?,
                    None => f.write_str("transport failure dropped")?,
                }
                f.write_str(match reason {
                    DropReason::NotOwned => ": the action is no longer owned",
                    DropReason::PastCap => ": it came after the attempt's cap",
                })
            }
            Event::Stopped(r) => write!(
                f,
                "stopped: {} after {} of {} attempts",
                r.outcome, r.attempts, r.max_attempts
            ),
        }
    }
}

/// Where the action is now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// An attempt is in flight.
    InFlight {
        /// Which one.
        attempt: u32,
        /// When it started (driver's clock).
        started: Duration,
        /// When its cap runs out (driver's clock).
        deadline: Duration,
    },
    /// Waiting for the next attempt.
    Waiting {
        /// When the wait began (driver's clock).
        since: Duration,
        /// The planned wake (driver's clock).
        until: Duration,
        /// Why.
        reason: WaitReason,
    },
    /// Over; the report says how.
    Stopped,
}

/// One read action with its own finite budget.
///
/// Inputs are `handle_*(now, …)`; outputs are [`poll_action`](Self::poll_action) and the one
/// timer [`poll_timeout`](Self::poll_timeout). `now` is any monotonic clock reading as a
/// [`Duration`] from a fixed origin; the action never reads a clock itself.
///
/// ```
/// use std::time::Duration;
/// use palette_list::budget::{ReadAction, Response, RetryPolicy, Step, Outcome};
///
/// let s = Duration::from_secs;
/// let mut action = ReadAction::start(s(0), RetryPolicy::new()).unwrap();
/// assert!(matches!(action.poll_action(), Some(Step::StartAttempt { number: 1, .. })));
/// action.handle_response(s(2), &Response::new(429).retry_after("30"), None);
/// let Some(Step::Stop(report)) = action.poll_action() else { panic!() };
/// assert_eq!(report.outcome, Outcome::BudgetExhausted);
/// assert_eq!(report.message()[2], "The service requested a 30-second delay. No retry was sent.");
/// ```
#[derive(Clone, Debug)]
pub struct ReadAction {
    policy: RetryPolicy,
    origin: Duration,
    phase: Phase,
    attempts: u32,
    request_time: Duration,
    waited_time: Duration,
    last_response: Option<LastResponse>,
    pending: Option<Step>,
    trace: Vec<TraceEvent>,
    report: Option<StopReport>,
}

impl ReadAction {
    /// Starts an action at `now` under `policy` (refused if the policy is invalid). Its first
    /// step is to start attempt 1 at once.
    pub fn start(now: Duration, policy: RetryPolicy) -> Result<Self, PolicyError> {
        policy.validate()?;
        let mut action = Self {
            origin: now,
            phase: Phase::Stopped,
            attempts: 0,
            request_time: Duration::ZERO,
            waited_time: Duration::ZERO,
            last_response: None,
            pending: None,
            trace: Vec::new(),
            report: None,
            policy,
        };
        action.record(
            now,
            Event::ActionStarted {
                budget: action.policy.budget(),
                max_attempts: action.policy.max_attempts(),
                attempt_cap: action.policy.attempt_cap(),
            },
        );
        action.start_attempt(now);
        Ok(action)
    }

    /// A response arrived at `now`. `local_wall_clock` is the local wall clock's time of receipt,
    /// if the driver has one; it is used only when the response has no readable `Date` and the
    /// policy trusts the local clock.
    pub fn handle_response(
        &mut self,
        now: Duration,
        response: &Response,
        local_wall_clock: Option<SystemTime>,
    ) {
        let Phase::InFlight {
            attempt,
            started,
            deadline,
        } = self.phase
        else {
            self.record(
                now,
                Event::ResponseDropped {
                    status: Some(response.status),
                    reason: DropReason::NotOwned,
                },
            );
            return;
        };
        if now > deadline {
            self.record(
                now,
                Event::ResponseDropped {
                    status: Some(response.status),
                    reason: DropReason::PastCap,
                },
            );
            self.time_out(now, attempt, started);
            return;
        }
        self.request_time += now - started;

        let retryable = self.policy.retry_statuses().contains(response.status);
        let wall_clock = self.receipt_wall_clock(response, local_wall_clock);
        let hint = match (&response.retry_after, retryable) {
            (_, false) => None,
            (None, true) => Some(Err(HeaderNote::Missing {
                maybe_hidden: response.cross_origin,
            })),
            (Some(v), true) => Some(parse_retry_after(v).map_err(HeaderNote::Invalid)),
        };
        let note = match &hint {
            Some(Err(n)) => Some(n.clone()),
            _ => None,
        };
        self.record(
            now,
            Event::ResponseReceived {
                attempt,
                status: response.status,
                retry_after: response.retry_after.clone(),
                date: response.date.clone(),
                wall_clock,
                note: note.clone(),
            },
        );
        self.last_response = Some(LastResponse {
            status: response.status,
            retry_after: response.retry_after.clone(),
            note,
        });

        if (200..300).contains(&response.status) {
            return self.stop(now, Outcome::Succeeded, StoppedWhile::Deciding);
        }
        let Some(hint) = hint else {
            return self.stop(now, Outcome::NonRetryableResponse, StoppedWhile::Deciding);
        };

        // Find the wait (SPEC step 2).
        let reason = match hint {
            Ok(RetryAfter::Delay(d)) => WaitReason::ServerDelay(d),
            Ok(RetryAfter::Date(until)) => match wall_clock {
                Some((receipt, evidence)) => WaitReason::ServerDate {
                    until,
                    delay: delay_until(until, receipt),
                    evidence,
                },
                None => {
                    return self.stop_with(
                        now,
                        Outcome::ClockUntrusted,
                        StoppedWhile::Deciding,
                        |r| {
                            r.unreadable_date = Some(until);
                        },
                    );
                }
            },
            Err(note) => WaitReason::Fallback {
                wait: self
                    .policy
                    .fallback_after(self.attempts)
                    .unwrap_or_default(),
                note,
            },
        };
        let wait = reason.asked().max(self.policy.min_wait());

        // The gate (SPEC step 3): ownership holds while we are here; attempts, then budget.
        if self.attempts >= self.policy.max_attempts() {
            return self.stop(now, Outcome::AttemptsExhausted, StoppedWhile::Deciding);
        }
        let Some(until) = now.checked_add(wait).filter(|t| self.fits(*t)) else {
            return self.stop_with(now, Outcome::BudgetExhausted, StoppedWhile::Deciding, |r| {
                r.requested_delay = reason.requested();
            });
        };
        self.record(
            now,
            Event::WaitPlanned {
                wait,
                reason: reason.clone(),
                remaining: self.remaining(now),
            },
        );
        self.phase = Phase::Waiting {
            since: now,
            until,
            reason: reason.clone(),
        };
        self.pending = Some(Step::Wait { until, reason });
    }

    /// The attempt in flight failed on the network at `now` (`detail` is shown to the user).
    /// Not retried: the action stops as `transport_failure`.
    pub fn handle_transport_failure(&mut self, now: Duration, detail: &str) {
        let Phase::InFlight {
            attempt, started, ..
        } = self.phase
        else {
            self.record(
                now,
                Event::ResponseDropped {
                    status: None,
                    reason: DropReason::NotOwned,
                },
            );
            return;
        };
        self.request_time += now - started;
        self.record(
            now,
            Event::AttemptFailed {
                attempt,
                failure: Failure::Transport(detail.to_owned()),
            },
        );
        self.stop_with(
            now,
            Outcome::TransportFailure,
            StoppedWhile::Deciding,
            |r| {
                r.failure = Some(detail.to_owned());
            },
        );
    }

    /// The timer from [`poll_timeout`](Self::poll_timeout) fired at `now`. At an attempt's cap the
    /// attempt is over (`attempt_timed_out`); at a wait's end the gate is checked again against
    /// `now`, and the next attempt starts or the action stops. Early calls change nothing.
    pub fn handle_timeout(&mut self, now: Duration) {
        match self.phase {
            Phase::InFlight {
                attempt,
                started,
                deadline,
            } if now >= deadline => self.time_out(now, attempt, started),
            Phase::Waiting { since, until, .. } if now >= until => {
                self.waited_time += now - since;
                self.record(now, Event::TimerWoke { late: now - until });
                // SPEC step 4: recheck against the time now, never reuse the earlier gate.
                if self.attempts >= self.policy.max_attempts() {
                    self.stop(now, Outcome::AttemptsExhausted, StoppedWhile::Deciding);
                } else if !self.fits(now) {
                    self.stop(
                        now,
                        Outcome::BudgetExhausted,
                        StoppedWhile::WokeLate(now - until),
                    );
                } else {
                    self.start_attempt(now);
                }
            }
            _ => {}
        }
    }

    /// The user left at `now` (navigation, unmount or Cancel): the action stops as `user_left`;
    /// the driver aborts the fetch and clears the timer. Nothing happens to a stopped action.
    pub fn handle_leave(&mut self, now: Duration) {
        match self.phase {
            Phase::InFlight { started, .. } => {
                self.request_time += now.saturating_sub(started);
                self.stop(now, Outcome::UserLeft, StoppedWhile::InFlight);
            }
            Phase::Waiting { since, .. } => {
                self.waited_time += now.saturating_sub(since);
                self.stop(now, Outcome::UserLeft, StoppedWhile::Waiting);
            }
            Phase::Stopped => {}
        }
    }

    /// The next step for the driver, once; `None` when there is nothing new to do.
    pub fn poll_action(&mut self) -> Option<Step> {
        self.pending.take()
    }

    /// When to call [`handle_timeout`](Self::handle_timeout): the wait's end, or the cap of
    /// the attempt in flight. `None` once stopped.
    pub fn poll_timeout(&self) -> Option<Duration> {
        match self.phase {
            Phase::InFlight { deadline, .. } => Some(deadline),
            Phase::Waiting { until, .. } => Some(until),
            Phase::Stopped => None,
        }
    }

    /// Where the action is now.
    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// Attempts started so far.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The policy.
    pub fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// Elapsed time at `now` since the action started.
    pub fn elapsed(&self, now: Duration) -> Duration {
        now.saturating_sub(self.origin)
    }

    /// Every event so far, in order.
    pub fn trace(&self) -> &[TraceEvent] {
        &self.trace
    }

    /// How the action ended, once it has.
    pub fn report(&self) -> Option<&StopReport> {
        self.report.as_ref()
    }

    /// Whether an attempt starting at `start` (driver's clock) fits with its full cap.
    fn fits(&self, start: Duration) -> bool {
        self.elapsed(start)
            .checked_add(self.policy.attempt_cap())
            .is_some_and(|end| end <= self.policy.budget())
    }

    fn remaining(&self, now: Duration) -> Duration {
        self.policy.budget().saturating_sub(self.elapsed(now))
    }

    /// The receipt's wall-clock time: the response's `Date`, else the trusted local clock.
    fn receipt_wall_clock(
        &self,
        response: &Response,
        local: Option<SystemTime>,
    ) -> Option<(SystemTime, ClockSource)> {
        if let Some(t) = response.date.as_deref().and_then(parse_date_header) {
            return Some((t, ClockSource::DateHeader));
        }
        local
            .filter(|_| self.policy.trust_local_clock())
            .map(|t| (t, ClockSource::LocalClock))
    }

    fn start_attempt(&mut self, now: Duration) {
        self.attempts += 1;
        let deadline = now + self.policy.attempt_cap();
        self.phase = Phase::InFlight {
            attempt: self.attempts,
            started: now,
            deadline,
        };
        self.record(
            now,
            Event::AttemptStarted {
                attempt: self.attempts,
            },
        );
        self.pending = Some(Step::StartAttempt {
            number: self.attempts,
            deadline,
        });
    }

    fn time_out(&mut self, now: Duration, attempt: u32, started: Duration) {
        self.request_time += now - started;
        self.record(
            now,
            Event::AttemptFailed {
                attempt,
                failure: Failure::TimedOut,
            },
        );
        self.stop(now, Outcome::AttemptTimedOut, StoppedWhile::Deciding);
    }

    fn stop(&mut self, now: Duration, outcome: Outcome, stopped_while: StoppedWhile) {
        self.stop_with(now, outcome, stopped_while, |_| {});
    }

    /// Stops at `now`; `detail` fills in what only the caller knows.
    fn stop_with(
        &mut self,
        now: Duration,
        outcome: Outcome,
        stopped_while: StoppedWhile,
        detail: impl FnOnce(&mut StopReport),
    ) {
        let mut report = StopReport {
            outcome,
            at: self.elapsed(now),
            attempts: self.attempts,
            max_attempts: self.policy.max_attempts(),
            last_response: self.last_response.clone(),
            requested_delay: None,
            request_time: self.request_time,
            waited_time: self.waited_time,
            stopped_while,
            failure: None,
            unreadable_date: None,
            attempt_cap: self.policy.attempt_cap(),
        };
        detail(&mut report);
        self.phase = Phase::Stopped;
        self.record(now, Event::Stopped(report.clone()));
        self.pending = Some(Step::Stop(report.clone()));
        self.report = Some(report);
    }

    fn record(&mut self, now: Duration, event: Event) {
        let at = self.elapsed(now);
        self.trace.push(TraceEvent { at, event });
    }
}
