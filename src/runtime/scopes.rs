//! The page's one scope ledger: every budgeted read on the page reads it before it starts and
//! tells it of every answer, and every running read on the same scope hears of a longer block
//! at once. Leaving a screen never clears it.
//!
//! Other tabs of the same origin hear of every block through a `BroadcastChannel`
//! ([`CHANNEL`]). A block's end crosses as wall-clock time, `performance.timeOrigin +
//! performance.now()` in microseconds, and is read back onto the receiving page's own
//! monotonic clock; as with any block, one that ends sooner than what a scope has changes
//! nothing. A message that is not one this crate sends is ignored.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, SystemTime};

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{BroadcastChannel, MessageEvent};

use crate::budget::{BlockWhy, Phase, Response, ScopeBlock, ScopeLedger, ScopeState};

/// The name of the channel tabs share blocks on.
pub const CHANNEL: &str = "palette-list:scope-ledger:1";

/// A read on a scope, as the page's ledger sees it.
pub(super) trait Member {
    /// The scope is blocked until `block.until`: act on it now.
    fn hear(&self, block: ScopeBlock);
    /// Whether the read is still running (and so still needs to hear); once not, it is
    /// forgotten.
    fn running(&self) -> bool;
    /// The read's name in the scope's queue.
    fn ticket(&self) -> u64;
    /// The read's turn came: its place in flight is held for it, and it starts now. Returns
    /// `false` if the read is gone, so that the place goes to the next.
    fn granted(&self) -> bool;
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
    /// The channel to other tabs, opened with the first read (`None` where the browser has
    /// none: the page then keeps its blocks to itself).
    static TABS: Option<BroadcastChannel> = open_channel();
}

/// The block an attempt starting at `now` on `scope` must wait for.
pub(super) fn block(now: Duration, scope: &str) -> Option<ScopeBlock> {
    PAGE.with_borrow(|page| page.ledger.poll_block(now, scope))
}

/// What the page's ledger knows of `scope` (for a screen that shows it, as the demo does).
/// From the first call on, the page also hears the blocks of other tabs.
pub fn scope_state(scope: &str) -> ScopeState {
    TABS.with(|_| {});
    PAGE.with_borrow(|page| page.ledger.state(scope))
}

/// A read on `scope` is running: it hears of every longer block while it runs.
pub(super) fn join(scope: Rc<str>, member: Rc<dyn Member>) {
    TABS.with(|_| {}); // from now on, this page hears the other tabs
    PAGE.with_borrow_mut(|page| {
        page.members.retain(|(_, m)| m.running());
        page.members.push((scope, member));
    });
}

/// A read (`ticket`) on `scope` has taken its steps and is now in `phase`: the ledger follows.
/// Then call [`grant`] with no read's state borrowed.
pub(super) fn settle(scope: &str, ticket: u64, phase: &Phase) {
    PAGE.with_borrow_mut(|page| page.ledger.handle_phase(scope, ticket, phase));
}

/// Every queued read on `scope` whose turn has come at `now` starts, in the order they queued.
/// Must be called with no read's state borrowed: a granted read starts at once.
pub(super) fn grant(now: Duration, scope: &str) {
    // Each grant is taken out of the ledger before the read hears of it, so a read that
    // settles (and grants) in turn sees the ledger as it is.
    while let Some((ticket, member)) = PAGE.with_borrow_mut(|page| {
        let ticket = page.ledger.poll_slot(now, scope)?;
        let member = page.members.iter().find(|(_, m)| m.ticket() == ticket);
        Some((ticket, member.map(|(_, m)| m.clone())))
    }) {
        // A read that is gone cannot use the place: it goes to the next.
        if !member.is_some_and(|m| m.granted()) {
            PAGE.with_borrow_mut(|page| page.ledger.handle_attempt_ended(ticket));
        }
    }
}

/// A response arrived at `now` on `scope`: the ledger first, so a block it sets is known to
/// every read on the scope (and to the other tabs) before the answering one plans its own
/// wait. Must be called with no read's state borrowed: the reads that hear of the block act
/// on it at once.
pub(super) fn answered(
    now: Duration,
    scope: &str,
    response: &Response,
    local_wall_clock: Option<SystemTime>,
    trust_local_clock: bool,
) {
    let block = PAGE.with_borrow_mut(|page| {
        page.ledger
            .handle_response(now, scope, response, local_wall_clock, trust_local_clock)
    });
    if let Some(block) = block {
        tell(scope, block);
        TABS.with(|tabs| {
            if let Some(tabs) = tabs {
                let _ = tabs.post_message(&encode(scope, block).into());
            }
        });
    }
}

/// Every running read on `scope` hears of its longer block. Outside the page's borrow: a read
/// that hears may stop, and write to its view.
fn tell(scope: &str, block: ScopeBlock) {
    let on_scope: Vec<Rc<dyn Member>> = PAGE.with_borrow(|page| {
        page.members
            .iter()
            .filter(|(s, m)| &**s == scope && m.running())
            .map(|(_, m)| m.clone())
            .collect()
    });
    for member in on_scope {
        member.hear(block);
    }
}

fn open_channel() -> Option<BroadcastChannel> {
    let channel = BroadcastChannel::new(CHANNEL).ok()?;
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(|event: MessageEvent| {
        let Some((scope, block)) = event.data().as_string().and_then(|m| decode(&m)) else {
            return;
        };
        let kept = PAGE.with_borrow_mut(|page| page.ledger.handle_block(&scope, block));
        if kept {
            tell(&scope, block);
        }
    });
    channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The channel lives as long as the page, and so does its listener.
    on_message.forget();
    Some(channel)
}

/// `performance.timeOrigin` in whole microseconds since the Unix epoch.
fn time_origin_us() -> Option<u64> {
    let origin = web_sys::window()?.performance()?.time_origin();
    (origin.is_finite() && origin > 0.0).then_some((origin * 1000.0) as u64)
}

fn micros(d: Duration) -> u64 {
    d.as_secs()
        .saturating_mul(1_000_000)
        .saturating_add(u64::from(d.subsec_micros()))
}

/// A block as other tabs read it: `1`, its end and the delay asked in microseconds (the end
/// on the wall clock), why, and the scope, tab-separated.
fn encode(scope: &str, block: ScopeBlock) -> String {
    let until = time_origin_us()
        .unwrap_or(0)
        .saturating_add(micros(block.until));
    let why = match block.why {
        BlockWhy::TooManyRequests => "429",
        BlockWhy::QuotaSpent => "quota",
    };
    format!("1\t{until}\t{}\t{why}\t{scope}", micros(block.asked))
}

/// A block another tab sent, on this page's clock; `None` for anything else.
fn decode(message: &str) -> Option<(String, ScopeBlock)> {
    let mut parts = message.splitn(5, '\t');
    let (Some("1"), Some(until), Some(asked), Some(why), Some(scope)) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) else {
        return None;
    };
    let why = match why {
        "429" => BlockWhy::TooManyRequests,
        "quota" => BlockWhy::QuotaSpent,
        _ => return None,
    };
    let until: u64 = until.parse().ok()?;
    let asked: u64 = asked.parse().ok()?;
    let here = until.saturating_sub(time_origin_us()?);
    Some((
        scope.to_owned(),
        ScopeBlock {
            until: Duration::from_micros(here),
            asked: Duration::from_micros(asked),
            why,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_block_crosses_to_another_tab_on_its_own_clock() {
        let block = ScopeBlock {
            until: Duration::from_micros(12_345_678),
            asked: Duration::from_secs(10),
            why: BlockWhy::QuotaSpent,
        };
        let message = encode("account:ops\twith a tab", block);
        assert!(message.starts_with("1\t"));
        // Read back on the same page: the same block, to the microsecond.
        assert_eq!(
            decode(&message),
            Some(("account:ops\twith a tab".to_owned(), block))
        );
        for other in [
            "",
            "2\t1\t1\t429\tx",
            "1\tsoon\t1\t429\tx",
            "1\t1\t1\tnap\tx",
            "1\t1\t1\t429",
        ] {
            assert_eq!(decode(other), None, "{other:?}");
        }
    }
}
