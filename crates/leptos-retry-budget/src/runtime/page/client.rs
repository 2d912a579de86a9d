//! The page's one [`Registry`] of reads, on the browser: its clock is `performance.now()`, its
//! one timer a gloo-timers `Timeout`, and the blocks it learns go to the other tabs (and theirs
//! come to it, and it answers a tab that asks what it missed). Every rule of how reads and
//! their ledger meet is the core's ([`Client`]); how the page carries out their events is the
//! registry's. Leaving a screen never clears the ledger.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use gloo_timers::callback::Timeout;

use super::tabs::Tabs;
use super::time::{now, timer_ms};
use crate::runtime::page_rules::registry::{Host, Registry, RunningRead};
use retry_budget::policy::PolicyError;
use retry_budget::scope::{ScopeBlock, ScopePolicyError, ScopeState};
use retry_budget::{Client, ReadAction, ReadId, RetryPolicy, ScopePolicy};

/// The browser a page runs on.
struct Browser {
    /// The page's one timer; replacing it clears the one before.
    timer: RefCell<Option<Timeout>>,
}

impl Host for Browser {
    fn now(&self) -> Duration {
        now()
    }

    fn arm(&self, deadline: Option<Duration>) {
        let timer = deadline.map(|deadline| {
            Timeout::new(timer_ms(deadline.saturating_sub(now())), || {
                input(None, |client, now| client.handle_timeout(now));
            })
        });
        self.timer.replace(timer);
    }

    fn post(&self, scope: &str, block: ScopeBlock) {
        TABS.with(|tabs| {
            if let Some(tabs) = tabs {
                tabs.post(scope, block);
            }
        });
    }
}

thread_local! {
    static PAGE: Registry<Browser> = const {
        Registry::new(Browser {
            timer: RefCell::new(None),
        })
    };
    /// The channel to other tabs, opened with the first read or the first look at the ledger.
    static TABS: Option<Tabs> = Tabs::open(|heard| PAGE.with(|page| page.heard(heard)));
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
    PAGE.with(|page| page.begin(running, open))
}

/// An input to the page at the time now, for `read` if it is one read's; then every event it
/// caused is carried out.
pub(super) fn input(read: Option<ReadId>, handle: impl FnOnce(&mut Client, Duration)) {
    PAGE.with(|page| page.input(read, handle));
}

/// `read`'s action, to look at.
pub(super) fn with_read<R>(read: ReadId, look: impl FnOnce(&ReadAction) -> R) -> Option<R> {
    PAGE.with(|page| page.look(|client| client.read(read).map(look)))
}

/// Gives `scope` the policy its reads on this page share ([`ScopePolicy`]): once, before its
/// first read. Refused, by name, if it is not valid or the scope already has another.
pub fn provide_scope_policy(scope: &str, policy: ScopePolicy) -> Result<(), ScopePolicyError> {
    PAGE.with(|page| page.set(|client| client.handle_scope_policy(scope, policy)))
}

/// What the page's ledger knows of `scope` (for a screen that shows it, as the demo does).
/// From the first call on, the page also hears the blocks of other tabs.
pub fn scope_state(scope: &str) -> ScopeState {
    TABS.with(|_| {});
    PAGE.with(|page| page.look(|client| client.scope_state(scope)))
}
