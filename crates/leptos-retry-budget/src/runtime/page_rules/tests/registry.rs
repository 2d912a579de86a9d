//! The registry of a page's reads, on a page of virtual time: what reaches the timer and the
//! other tabs, who carries out each step, and when a read is forgotten.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use retry_budget::report::TransportFailure;
use retry_budget::scope::{BlockCause, ScopeBlock};
use retry_budget::wire::TabMessage;
use retry_budget::{Outcome, ReadId, Response, RetryPolicy, Step};

use crate::runtime::page_rules::registry::{Host, Registry, RunningRead};

const SCOPE: &str = "https://api.example.com";

fn s(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// A page of virtual time: its clock is set by the test, and what it was asked to arm and to
/// post is kept.
#[derive(Clone, Default)]
struct Page(Rc<Seen>);

#[derive(Default)]
struct Seen {
    now: Cell<Duration>,
    armed: RefCell<Vec<Option<Duration>>>,
    posted: RefCell<Vec<(String, Duration)>>,
}

impl Host for Page {
    fn now(&self) -> Duration {
        self.0.now.get()
    }
    fn arm(&self, deadline: Option<Duration>) {
        self.0.armed.borrow_mut().push(deadline);
    }
    fn post(&self, scope: &str, block: ScopeBlock) {
        self.0
            .posted
            .borrow_mut()
            .push((scope.to_owned(), block.until));
    }
}

impl Page {
    fn at(&self, now: Duration) -> &Self {
        self.0.now.set(now);
        self
    }
    fn timer(&self) -> Option<Duration> {
        *self.0.armed.borrow().last().expect("the timer was armed")
    }
    fn posted(&self) -> Vec<(String, Duration)> {
        self.0.posted.borrow().clone()
    }
}

/// A read's steps as carried out, and how often its trace was shown.
#[derive(Default)]
struct Steps {
    steps: RefCell<Vec<Step>>,
    traced: Cell<u32>,
    /// Given the page's input when it is told to start an attempt (as a page that cannot make
    /// an abort controller is).
    cannot_start: Option<Rc<Registry<Page>>>,
    read: Cell<Option<ReadId>>,
}

impl RunningRead for Steps {
    fn carry_out(self: Rc<Self>, step: Step) {
        let start = matches!(step, Step::StartAttempt { .. });
        self.steps.borrow_mut().push(step);
        if let (true, Some(page), Some(read)) = (start, &self.cannot_start, self.read.get()) {
            page.input(Some(read), |client, now| {
                client.handle_transport_failure(now, read, TransportFailure::CannotAbort);
            });
        }
    }
    fn traced(&self) {
        self.traced.set(self.traced.get() + 1);
    }
}

impl Steps {
    fn kinds(&self) -> Vec<&'static str> {
        (self.steps.borrow().iter())
            .map(|step| match step {
                Step::StartAttempt { .. } => "start",
                Step::Queue { .. } => "queue",
                Step::Wait { .. } => "wait",
                Step::Stop(_) => "stop",
            })
            .collect()
    }
}

fn start(page: &Registry<Page>, steps: Steps) -> (ReadId, Rc<Steps>) {
    let mut id = None;
    let run = page
        .begin(
            |read| {
                id = Some(read);
                steps.read.set(Some(read));
                Rc::new(steps)
            },
            |client, now| client.handle_start(now, SCOPE, RetryPolicy::new(), 7),
        )
        .unwrap();
    (id.unwrap(), run)
}

fn answer(page: &Registry<Page>, read: ReadId, response: Response) {
    page.input(Some(read), |client, now| {
        client.handle_response(now, read, &response, None, Ok(()));
    });
}

#[test]
fn the_one_timer_is_armed_at_the_clients_next_deadline_and_cleared_when_it_has_none() {
    let host = Page::default();
    let page = Registry::new(host.clone());
    let (read, steps) = start(&page, Steps::default());
    let cap = RetryPolicy::new().attempt_cap();
    assert_eq!(steps.kinds(), ["start"]);
    assert_eq!(host.timer(), Some(cap), "armed at the attempt's cap");
    host.at(s(1));
    answer(&page, read, Response::new(200));
    assert_eq!(steps.kinds(), ["start", "stop"]);
    assert!(matches!(&steps.steps.borrow()[1], Step::Stop(r) if r.outcome == Outcome::Succeeded));
    assert_eq!(host.timer(), None, "nothing left to wake for");
    // Each input that moved the read showed its trace once.
    assert_eq!(steps.traced.get(), 2);
}

#[test]
fn a_block_this_page_meets_goes_to_the_other_tabs_and_an_ask_hears_every_block_still_running() {
    let host = Page::default();
    let page = Registry::new(host.clone());
    let (read, steps) = start(&page, Steps::default());
    host.at(s(1));
    answer(&page, read, Response::new(429).retry_after("10"));
    assert_eq!(steps.kinds(), ["start", "wait"]);
    assert_eq!(host.posted(), [(SCOPE.to_owned(), s(11))]);
    assert_eq!(host.timer(), Some(s(11)));
    // A tab that opens at 5 s asks: the block still runs.
    page.heard(TabMessage::Ask);
    host.at(s(5));
    page.heard(TabMessage::Ask);
    assert_eq!(host.posted().len(), 3);
    // Past its end, an ask hears nothing.
    host.at(s(12));
    page.heard(TabMessage::Ask);
    assert_eq!(host.posted().len(), 3);
}

#[test]
fn a_block_heard_from_another_tab_holds_the_next_read_until_its_end() {
    let host = Page::default();
    let page = Registry::new(host.clone());
    let block = ScopeBlock {
        until: s(10),
        asked: s(10),
        cause: BlockCause::TooManyRequests,
    };
    page.heard(TabMessage::Block {
        scope: SCOPE.to_owned(),
        block,
    });
    host.at(s(1));
    let (_, steps) = start(&page, Steps::default());
    assert_eq!(
        steps.kinds(),
        ["wait"],
        "nothing sent during another tab's block"
    );
    assert!(matches!(steps.steps.borrow()[0], Step::Wait { until, .. } if until == s(10)));
    assert_eq!(host.timer(), Some(s(10)));
    // What another tab said is not said back to it.
    assert!(host.posted().is_empty());
}

#[test]
fn a_read_nothing_carries_out_is_left_and_forgotten_at_the_pages_next_input() {
    let host = Page::default();
    let page = Registry::new(host.clone());
    let (gone, steps) = start(&page, Steps::default());
    drop(steps);
    // Nothing drives the page when the last holder lets go: the read is still there.
    assert!(page.look(|client| client.read(gone).is_some()));
    host.at(s(1));
    let (_, next) = start(&page, Steps::default());
    assert!(page.look(|client| client.read(gone).is_none()), "forgotten");
    assert_eq!(next.kinds(), ["start"]);
    // The one timer is the read that runs: the forgotten one's cap is not armed.
    assert_eq!(host.timer(), Some(s(1) + RetryPolicy::new().attempt_cap()));
}

#[test]
fn an_input_given_while_a_step_is_carried_out_has_its_events_carried_out_in_order() {
    let host = Page::default();
    let page = Rc::new(Registry::new(host.clone()));
    let steps = Steps {
        cannot_start: Some(page.clone()),
        ..Steps::default()
    };
    let (read, steps) = start(&page, steps);
    assert_eq!(steps.kinds(), ["start", "stop"]);
    let report = page.look(|client| client.read(read).unwrap().report().cloned());
    assert_eq!(
        report.map(|r| r.outcome),
        Some(Outcome::TransportFailure(TransportFailure::CannotAbort))
    );
    assert_eq!(host.timer(), None);
}
