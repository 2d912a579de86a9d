//! The outcome tables in the README and the contract say what the library really writes: each
//! row is rebuilt here from `StopReport::message` for one example stop of that outcome.
#![cfg(not(target_arch = "wasm32"))]

use std::time::Duration;

use retry_budget::{
    BodyProblem, HttpDate, LastResponse, Outcome, StopReport, StoppedWhile, TransportFailure,
};

const README: &str = include_str!("../README.md");
const CONTRACT: &str = include_str!("../crates/retry-budget/docs/contract.md");

/// One example stop of `outcome`, as the README's third column describes it.
fn example(outcome: Outcome) -> StopReport {
    let status = match outcome {
        Outcome::Succeeded | Outcome::UnreadableResponse => 200,
        Outcome::NonRetryableResponse => 503,
        _ => 429,
    };
    let mut r = StopReport {
        outcome,
        at: Duration::from_secs(2),
        attempts: 1,
        max_attempts: 3,
        last_response: Some(LastResponse {
            status,
            retry_after: None,
            note: None,
        }),
        requested_delay: None,
        held_by: None,
        request_time: Duration::from_secs(2),
        waited_time: Duration::ZERO,
        stopped_while: StoppedWhile::Idle,
        failure: None,
        unreadable_date: None,
        body: None,
        attempt_cap: Duration::from_secs(4),
    };
    match outcome {
        Outcome::BudgetExhausted => r.requested_delay = Some(Duration::from_secs(30)),
        Outcome::UserLeft => r.stopped_while = StoppedWhile::Waiting,
        Outcome::ClockUntrusted => {
            r.unreadable_date = HttpDate::parse("Mon, 01 Jan 2024 12:00:06 GMT").ok()
        }
        Outcome::TransportFailure => {
            r.last_response = None;
            r.failure = Some(TransportFailure::Network);
        }
        Outcome::UnreadableResponse => r.body = Some(BodyProblem::TooLarge { limit: 1 << 20 }),
        _ => {}
    }
    r
}

#[test]
fn the_readmes_outcome_table_is_what_the_user_reads() {
    for outcome in Outcome::ALL {
        let lines = example(outcome).message();
        let last = match outcome {
            Outcome::Succeeded => "(the data is shown)",
            _ => lines.last().unwrap().as_str(),
        };
        let row = format!("| `{}` | {} | {last} |", outcome.name(), lines[0]);
        assert!(README.contains(&row), "the README lacks the row\n{row}");
    }
}

#[test]
fn the_contracts_outcome_table_is_what_the_user_reads() {
    for outcome in Outcome::ALL {
        let first = match outcome {
            Outcome::Succeeded => "(the data is shown)".to_owned(),
            _ => example(outcome).message().remove(0),
        };
        let row = format!("| `{}` | {first} |", outcome.name());
        assert!(CONTRACT.contains(&row), "the contract lacks the row\n{row}");
    }
}
