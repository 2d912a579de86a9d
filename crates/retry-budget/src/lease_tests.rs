//! The places in flight a scope shares with other clients (a server's replicas), on a virtual
//! clock: an attempt starts only on a place the store gave it, holds it no longer than it is
//! in flight, and a read never waits for one past its budget.

use std::time::Duration;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;
use crate::report::{HeldBy, Overrun, TransportFailure};
use crate::scope::Lease;

const API: &str = "https://api.example.com";

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A client sharing the places of `API`, whose policy allows `limit` requests in flight.
fn sharing(limit: u32) -> Client {
    let mut client = Client::new().with_shared_leases(true);
    let policy = ScopePolicy::new().with_in_flight_limit(limit);
    client.handle_scope_policy(API, policy).unwrap();
    client
}

/// A read started at `now` under the SPEC's policy.
fn start(client: &mut Client, now: Duration) -> ReadId {
    client
        .handle_start(now, API, RetryPolicy::new(), 7)
        .unwrap()
}

/// What the client asked of its driver since last asked, as short words.
fn said(client: &mut Client) -> Vec<(ReadId, &'static str)> {
    std::iter::from_fn(|| client.poll_event())
        .filter_map(|event| match event {
            ClientEvent::Step { read, step } => match step {
                Step::StartAttempt { .. } => Some((read, "start")),
                Step::Stop(_) => Some((read, "stop")),
                _ => None,
            },
            ClientEvent::TakeLease {
                read,
                scope,
                limit,
                cap,
            } => {
                assert_eq!(
                    (scope.as_str(), cap),
                    (API, RetryPolicy::new().attempt_cap())
                );
                assert_eq!(limit, 2, "the scope's whole limit is asked of the store");
                Some((read, "take"))
            }
            ClientEvent::GiveLease { read, scope } => {
                assert_eq!(scope, API);
                Some((read, "give"))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn an_attempt_starts_on_a_place_the_store_gave_and_gives_it_back_with_its_answer() {
    let mut client = sharing(2);
    let a = start(&mut client, ms(0));
    assert_eq!(
        said(&mut client),
        [(a, "take")],
        "nothing is sent before the store answers"
    );
    client.handle_lease(ms(3), a, Some(Lease::Taken));
    assert_eq!(said(&mut client), [(a, "start")]);
    client.handle_response(ms(50), a, &Response::new(200), None, Ok(()));
    assert_eq!(said(&mut client), [(a, "give"), (a, "stop")]);
}

#[test]
fn every_place_taken_elsewhere_holds_the_read_here_and_it_asks_again_25_ms_later() {
    let mut client = sharing(2);
    let a = start(&mut client, ms(0));
    let b = start(&mut client, ms(0));
    let c = start(&mut client, ms(0));
    // Two places here: the third read queues here and asks nothing.
    assert_eq!(said(&mut client), [(a, "take"), (b, "take")]);
    client.handle_lease(ms(2), a, Some(Lease::AllTaken));
    client.handle_lease(ms(2), b, Some(Lease::AllTaken));
    assert_eq!(
        said(&mut client),
        [],
        "the third read keeps waiting for a place here"
    );
    assert_eq!(client.poll_timeout(), Some(ms(27)));
    client.handle_timeout(ms(26));
    assert_eq!(said(&mut client), []);
    client.handle_timeout(ms(27));
    assert_eq!(said(&mut client), [(a, "take"), (b, "take")]);
    client.handle_lease(ms(29), a, Some(Lease::Taken));
    assert_eq!(said(&mut client), [(a, "start")]);
    // Its answer frees a place here: the third read asks for it.
    client.handle_response(ms(80), a, &Response::new(200), None, Ok(()));
    assert_eq!(said(&mut client), [(a, "give"), (a, "stop"), (c, "take")]);
}

#[test]
fn a_read_whose_place_never_comes_stops_at_its_last_start_having_sent_nothing() {
    let mut client = sharing(2);
    let a = start(&mut client, ms(0));
    let policy = RetryPolicy::new();
    let latest = policy.budget() - policy.attempt_cap();
    let mut now = ms(0);
    let mut steps = said(&mut client);
    loop {
        assert!(
            steps.iter().all(|(_, s)| *s == "take"),
            "{steps:?} at {now:?}"
        );
        if !steps.is_empty() {
            client.handle_lease(now, a, Some(Lease::AllTaken));
        }
        let Some(next) = client.poll_timeout() else {
            break;
        };
        assert!(
            next > now,
            "a timer at {next:?} that did nothing at {now:?}"
        );
        now = next;
        client.handle_timeout(now);
        steps = said(&mut client);
        if steps.contains(&(a, "stop")) {
            break;
        }
    }
    assert_eq!(now, latest);
    let report = client.read(a).unwrap().report().unwrap();
    assert_eq!(
        report.outcome,
        Outcome::BudgetExhausted(Overrun::Scope(HeldBy::Queue { limit: 2 }))
    );
    assert_eq!(report.attempts, 0);
}

#[test]
fn the_place_goes_back_however_the_attempt_ends() {
    // Its cap runs out.
    let mut client = sharing(2);
    let a = start(&mut client, ms(0));
    client.handle_lease(ms(1), a, Some(Lease::Taken));
    said(&mut client);
    client.handle_timeout(ms(1) + RetryPolicy::new().attempt_cap());
    assert!(said(&mut client).contains(&(a, "give")));
    // The user leaves.
    let b = start(&mut client, ms(10_000));
    client.handle_lease(ms(10_001), b, Some(Lease::Taken));
    said(&mut client);
    client.handle_leave(ms(10_500), b);
    assert_eq!(said(&mut client), [(b, "give"), (b, "stop")]);
    // The network fails.
    let c = start(&mut client, ms(11_000));
    client.handle_lease(ms(11_001), c, Some(Lease::Taken));
    said(&mut client);
    client.handle_transport_failure(ms(11_200), c, TransportFailure::Network);
    assert!(said(&mut client).contains(&(c, "give")));
}

#[test]
fn a_place_that_comes_after_the_read_stopped_goes_back_at_once() {
    let mut client = sharing(2);
    let a = start(&mut client, ms(0));
    said(&mut client);
    client.handle_leave(ms(1), a);
    assert_eq!(said(&mut client), [(a, "stop")]);
    client.handle_lease(ms(3), a, Some(Lease::Taken));
    assert_eq!(said(&mut client), [(a, "give")]);
}

#[test]
fn a_store_that_cannot_answer_leaves_this_clients_limit_to_decide() {
    let mut client = sharing(2);
    let a = start(&mut client, ms(0));
    let b = start(&mut client, ms(0));
    let c = start(&mut client, ms(0));
    said(&mut client);
    client.handle_lease(ms(100), a, None);
    client.handle_lease(ms(100), b, None);
    assert_eq!(said(&mut client), [(a, "start"), (b, "start")]);
    // The place goes back all the same (a store that kept it to make true later forgets it);
    // the third read still waits for a place here.
    client.handle_response(ms(150), a, &Response::new(200), None, Ok(()));
    assert_eq!(said(&mut client), [(a, "give"), (a, "stop"), (c, "take")]);
}

#[test]
fn where_the_scope_limits_nothing_or_nothing_is_shared_no_place_is_asked_for() {
    let mut client = Client::new().with_shared_leases(true);
    let a = start(&mut client, ms(0));
    assert_eq!(said(&mut client), [(a, "start")]);
    let mut client = Client::new();
    let policy = ScopePolicy::new().with_in_flight_limit(2);
    client.handle_scope_policy(API, policy).unwrap();
    let b = start(&mut client, ms(0));
    assert_eq!(said(&mut client), [(b, "start")]);
}
