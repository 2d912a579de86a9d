//! The outcome tables in the README and the contract say what the library really writes: each
//! row is rebuilt here from `StopReport::message` for one example stop of that outcome.
#![cfg(not(target_arch = "wasm32"))]

use std::time::Duration;

use retry_budget::body::BodyProblem;
use retry_budget::headers::HttpDate;
use retry_budget::report::{Cancelled, LastResponse, OutcomeKind, Overrun, TransportFailure};
use retry_budget::{Outcome, StopReport};

const README: &str = include_str!("../README.md");
const CONTRACT: &str = include_str!("../crates/retry-budget/docs/contract.md");

/// One example stop of each kind, as the README's third column describes it.
fn example(kind: OutcomeKind) -> StopReport {
    let outcome = match kind {
        OutcomeKind::Succeeded => Outcome::Succeeded,
        OutcomeKind::BudgetExhausted => {
            Outcome::BudgetExhausted(Overrun::ServerDelay(Duration::from_secs(30)))
        }
        OutcomeKind::AttemptsExhausted => Outcome::AttemptsExhausted,
        OutcomeKind::UserLeft => Outcome::UserLeft {
            cancelled: Cancelled::Pending,
        },
        OutcomeKind::ClockUntrusted => Outcome::ClockUntrusted {
            date: HttpDate::parse("Mon, 01 Jan 2024 12:00:06 GMT").unwrap(),
        },
        OutcomeKind::NonRetryableResponse => Outcome::NonRetryableResponse { status: 503 },
        OutcomeKind::TransportFailure => Outcome::TransportFailure(TransportFailure::Network),
        OutcomeKind::AttemptTimedOut => Outcome::AttemptTimedOut {
            cap: Duration::from_secs(4),
        },
        OutcomeKind::UnreadableResponse => {
            Outcome::UnreadableResponse(BodyProblem::TooLarge { limit: 1 << 20 })
        }
    };
    let status = match outcome {
        Outcome::Succeeded | Outcome::UnreadableResponse(_) => Some(200),
        Outcome::NonRetryableResponse { status } => Some(status),
        Outcome::TransportFailure(_) => None,
        _ => Some(429),
    };
    StopReport {
        outcome,
        at: Duration::from_secs(2),
        attempts: 1,
        max_attempts: 3,
        last_response: status.map(|status| LastResponse {
            status,
            retry_after: None,
            note: None,
        }),
        request_time: Duration::from_secs(2),
        waited_time: Duration::ZERO,
    }
}

/// The message's lines.
fn lines(r: &StopReport) -> Vec<String> {
    r.message().lines().map(|l| l.to_string()).collect()
}

#[test]
fn the_readmes_outcome_table_is_what_the_user_reads() {
    for kind in OutcomeKind::ALL {
        let lines = lines(&example(kind));
        let last = match kind {
            OutcomeKind::Succeeded => "(the data is shown)",
            _ => lines.last().unwrap().as_str(),
        };
        let row = format!("| `{}` | {} | {last} |", kind.name(), lines[0]);
        assert!(README.contains(&row), "the README lacks the row\n{row}");
    }
}

#[test]
fn the_contracts_outcome_table_is_what_the_user_reads() {
    for kind in OutcomeKind::ALL {
        let first = match kind {
            OutcomeKind::Succeeded => "(the data is shown)".to_owned(),
            _ => lines(&example(kind)).remove(0),
        };
        let row = format!("| `{}` | {first} |", kind.name());
        assert!(CONTRACT.contains(&row), "the contract lacks the row\n{row}");
    }
}

/// The README's server excerpts are the SSR example's own code, which the test command
/// compiles: each line of each is there, in the same order.
#[test]
fn the_readmes_server_excerpts_are_the_examples_code() {
    let section = README
        .split("## Data from the server")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the README has its section");
    let excerpts: Vec<&str> = section
        .split("```rust,ignore\n")
        .skip(1)
        .filter_map(|rest| rest.split("```").next())
        .collect();
    assert_eq!(
        excerpts.len(),
        2,
        "the server, and sharing its ledger through Redis"
    );
    let example = include_str!("../examples/ssr/src/main.rs");
    for excerpt in excerpts {
        let mut lines = example.lines().map(str::trim);
        for wanted in excerpt.lines().map(str::trim).filter(|l| !l.is_empty()) {
            assert!(
                lines.any(|line| line == wanted),
                "{wanted:?} is not in examples/ssr/src/main.rs (in this order)"
            );
        }
    }
}

/// The README's middleware excerpt is the tokio crate's README example, which its doc tests
/// compile: each line of it is there, in the same order.
#[test]
fn the_readmes_middleware_excerpt_is_the_tokio_crates_compiled_example() {
    let section = README
        .split("## In any Rust server")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the README has its section");
    let excerpt = (section.split("```rust,ignore\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("the section has its excerpt");
    let example = include_str!("../crates/retry-budget-tokio/README.md");
    let mut lines = example.lines().map(str::trim);
    for wanted in excerpt.lines().map(str::trim).filter(|l| !l.is_empty()) {
        assert!(
            lines.any(|line| line == wanted),
            "{wanted:?} is not in crates/retry-budget-tokio/README.md (in this order)"
        );
    }
}
