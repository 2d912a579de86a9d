//! The page's one scope ledger: every budgeted read on the page reads it before it starts and
//! tells it of every `429`, and every running read on the same scope hears of a longer block
//! at once. Leaving a screen never clears it.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, SystemTime};

use crate::budget::{Response, ScopeBlock, ScopeLedger, ScopeState};

/// A read on a scope, as the page's ledger sees it.
pub(super) trait Member {
    /// The scope is blocked until `block.until`: act on it now.
    fn hear(&self, block: ScopeBlock);
    /// Whether the read is still running (and so still needs to hear); once not, it is
    /// forgotten.
    fn running(&self) -> bool;
}

struct Page {
    ledger: ScopeLedger,
    members: Vec<(Rc<str>, Rc<dyn Member>)>,
}

thread_local! {
    static PAGE: RefCell<Page> = const {
        RefCell::new(Page {
            ledger: ScopeLedger::new(),
            members: Vec::new(),
        })
    };
}

/// The block an attempt starting at `now` on `scope` must wait for.
pub(super) fn block(now: Duration, scope: &str) -> Option<ScopeBlock> {
    PAGE.with_borrow(|page| page.ledger.poll_block(now, scope))
}

/// What the page's ledger knows of `scope` (for a screen that shows it, as the demo does).
pub fn scope_state(scope: &str) -> ScopeState {
    PAGE.with_borrow(|page| page.ledger.state(scope))
}

/// A read on `scope` is running: it hears of every longer block while it runs.
pub(super) fn join(scope: Rc<str>, member: Rc<dyn Member>) {
    PAGE.with_borrow_mut(|page| {
        page.members.retain(|(_, m)| m.running());
        page.members.push((scope, member));
    });
}

/// A response arrived at `now` on `scope`: the ledger first, so a `429`'s block is known to
/// every read on the scope before the answering one plans its own wait. Must be called with
/// no read's state borrowed: the reads that hear of the block act on it at once.
pub(super) fn answered(
    now: Duration,
    scope: &str,
    response: &Response,
    local_wall_clock: Option<SystemTime>,
    trust_local_clock: bool,
) {
    let heard = PAGE.with_borrow_mut(|page| {
        let block = page.ledger.handle_response(
            now,
            scope,
            response,
            local_wall_clock,
            trust_local_clock,
        )?;
        let on_scope: Vec<Rc<dyn Member>> = page
            .members
            .iter()
            .filter(|(s, m)| &**s == scope && m.running())
            .map(|(_, m)| m.clone())
            .collect();
        Some((block, on_scope))
    });
    // Outside the page's borrow: a read that hears may stop, and write to its view.
    if let Some((block, on_scope)) = heard {
        for member in on_scope {
            member.hear(block);
        }
    }
}
