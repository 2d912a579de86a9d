//! The page's one [`Client`]: every budgeted read on the page and the scope ledger they share.
//! This file only does IO for it: it reads the clock for every input, arms the page's one
//! timer, carries each event to the read it is for, and sends the blocks the page learns to
//! the other tabs (and takes theirs, and answers a tab that asks what it missed). Every rule of how reads and their ledger meet is the
//! core's ([`Client`]). Leaving a screen never clears the ledger.

use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::time::Duration;

use gloo_timers::callback::Timeout;

use super::tabs::Tabs;
use super::time::{now, timer_ms};
use retry_budget::policy::PolicyError;
use retry_budget::scope::{ScopePolicyError, ScopeState};
use retry_budget::wire::TabMessage;
use retry_budget::{Client, ClientEvent, ReadAction, ReadId, RetryPolicy, ScopePolicy, Step};

/// A read running in the page, which carries out the steps the page decides for it: its fetch,
/// its screens.
pub(super) trait RunningRead {
    /// Carry out `step`, which the page decided for this read.
    fn carry_out(self: Rc<Self>, step: Step);
    /// The read's trace grew: show it.
    fn traced(&self);
}

thread_local! {
    static CLIENT: RefCell<Client> = const { RefCell::new(Client::new()) };
    /// Who carries out each read's steps.
    static RUNNING: RefCell<Vec<(ReadId, Weak<dyn RunningRead>)>> = const { RefCell::new(Vec::new()) };
    /// The page's one timer, at [`Client::poll_timeout`]; dropping it clears it.
    static TIMER: RefCell<Option<Timeout>> = const { RefCell::new(None) };
    /// The channel to other tabs, opened with the first read or the first look at the ledger.
    static TABS: Option<Tabs> = Tabs::open(|heard| match heard {
        TabMessage::Block { scope, block } => input(None, |client, now| {
            client.handle_block(now, &scope, block);
        }),
        TabMessage::Ask => {
            let blocks = CLIENT.with_borrow(|client| client.running_blocks(now()));
            TABS.with(|tabs| {
                if let Some(tabs) = tabs {
                    for (scope, block) in &blocks {
                        tabs.post(scope, *block);
                    }
                }
            });
        }
    });
}

/// A read starts now on `scope` under `policy`; `running` makes the running read that carries out its steps,
/// given the read's name. Its first step follows at once.
pub(super) fn start<C: RunningRead + 'static>(
    scope: &str,
    policy: RetryPolicy,
    running: impl FnOnce(ReadId) -> Rc<C>,
) -> Result<Rc<C>, PolicyError> {
    // Each read's own random seed, so reads held back together are released apart.
    let seed = (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64;
    begin(running, |client, now| {
        client.handle_start(now, scope, policy, seed)
    })
}

/// A read `open`s on the page now; `running` makes the running read that carries out its steps from the first.
pub(super) fn begin<C: RunningRead + 'static>(
    running: impl FnOnce(ReadId) -> Rc<C>,
    open: impl FnOnce(&mut Client, Duration) -> Result<ReadId, PolicyError>,
) -> Result<Rc<C>, PolicyError> {
    // From now on, this page hears the other tabs.
    TABS.with(|_| {});
    let at = now();
    let read = CLIENT.with_borrow_mut(|client| open(client, at))?;
    let run = running(read);
    let dyn_run: Rc<dyn RunningRead> = run.clone();
    RUNNING.with_borrow_mut(|c| {
        c.retain(|(_, c)| c.strong_count() > 0);
        c.push((read, Rc::downgrade(&dyn_run)));
    });
    drive(Some(read));
    Ok(run)
}

/// An input to the page at the time now, for `read` if it is one read's; then every event it
/// caused is carried out.
pub(super) fn input(read: Option<ReadId>, handle: impl FnOnce(&mut Client, Duration)) {
    let at = now();
    CLIENT.with_borrow_mut(|client| handle(client, at));
    drive(read);
}

/// The driver no longer needs `read`: it is left (if it still runs) and forgotten.
pub(super) fn forget(read: ReadId) {
    input(Some(read), |client, now| client.handle_leave(now, read));
    CLIENT.with_borrow_mut(|client| client.remove(read));
    RUNNING.with_borrow_mut(|c| c.retain(|(r, _)| *r != read));
}

/// `read`'s action, to look at.
pub(super) fn with_read<R>(read: ReadId, look: impl FnOnce(&ReadAction) -> R) -> Option<R> {
    CLIENT.with_borrow(|client| client.read(read).map(look))
}

/// Gives `scope` the policy its reads on this page share ([`ScopePolicy`]): once, before its
/// first read. Refused, by name, if it is not valid or the scope already has another.
pub fn provide_scope_policy(scope: &str, policy: ScopePolicy) -> Result<(), ScopePolicyError> {
    CLIENT.with_borrow_mut(|client| client.handle_scope_policy(scope, policy))
}

/// What the page's ledger knows of `scope` (for a screen that shows it, as the demo does).
/// From the first call on, the page also hears the blocks of other tabs.
pub fn scope_state(scope: &str) -> ScopeState {
    TABS.with(|_| {});
    CLIENT.with_borrow(|client| client.scope_state(scope))
}

/// Carries out every event the page has decided, in order, then shows the trace of every read
/// that moved (and of `read`, the input's), then arms the page's one timer. A running read may give
/// the page another input: its events are carried out then, in the same order.
fn drive(read: Option<ReadId>) {
    let mut moved: Vec<ReadId> = read.into_iter().collect();
    while let Some(event) = CLIENT.with_borrow_mut(Client::poll_event) {
        match event {
            ClientEvent::Step { read, step } => {
                if !moved.contains(&read) {
                    moved.push(read);
                }
                if let Some(run) = running(read) {
                    run.carry_out(step);
                }
            }
            ClientEvent::Blocked { scope, block } => TABS.with(|tabs| {
                if let Some(tabs) = tabs {
                    tabs.post(&scope, block);
                }
            }),
            // A page's retry purses and places in flight are its own (it never calls
            // `handle_shared_response` nor shares its leases): the client asks it for no token
            // and no place, and gives nothing back.
            ClientEvent::TakeToken { .. }
            | ClientEvent::GiveBack { .. }
            | ClientEvent::TakeLease { .. }
            | ClientEvent::GiveLease { .. } => {}
        }
    }
    for read in moved {
        if let Some(run) = running(read) {
            run.traced();
        }
    }
    let next = CLIENT.with_borrow(Client::poll_timeout);
    let timer = next.map(|deadline| {
        Timeout::new(timer_ms(deadline.saturating_sub(now())), || {
            input(None, |client, now| client.handle_timeout(now));
        })
    });
    TIMER.replace(timer);
}

fn running(read: ReadId) -> Option<Rc<dyn RunningRead>> {
    RUNNING.with_borrow(|c| c.iter().find(|(r, _)| *r == read)?.1.upgrade())
}
