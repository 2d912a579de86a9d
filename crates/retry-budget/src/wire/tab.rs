//! What one tab of a page tells the page's other tabs about its ledger, over whatever carries
//! text between them (a `BroadcastChannel` in a browser), and the protocol's rules, apart from
//! the channel:
//!
//! - A block's end crosses as wall-clock time, the sending page's time origin plus its own
//!   monotonic clock, in microseconds, and is read back onto the receiving page's monotonic
//!   clock.
//! - Every message carries its sender's epoch (unique among the tabs) and a sequence number
//!   counting that tab's messages. A message whose sequence is not past the last heard from its
//!   epoch is stale or repeated, and is dropped; so is a tab's own message, and any text that
//!   is not one of this protocol's.
//! - A tab misses what was sent while it was frozen, hidden or not yet open, so it asks
//!   ([`TabMessage::Ask`]), and a tab that hears an ask answers with the blocks it knows still
//!   run.

use std::time::Duration;

use crate::block::{BlockCause, ScopeBlock};

/// The protocol's version, the first field of every message.
const VERSION: &str = "2";

/// What one tab tells the others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TabMessage {
    /// `scope` is blocked; read on the receiving page's clock.
    Block {
        /// The scope.
        scope: String,
        /// Its block.
        block: ScopeBlock,
    },
    /// "Tell me every block you know still runs."
    Ask,
}

/// One tab's end of the protocol: its epoch, how many messages it has sent, and the last
/// sequence it heard from each other tab.
///
/// ```
/// use std::time::Duration;
/// use retry_budget::scope::{BlockCause, ScopeBlock};
/// use retry_budget::wire::{Tab, TabMessage};
///
/// // Two tabs whose pages began 2 s apart on the wall clock (in microseconds).
/// let (mut first, mut second) = (Tab::new(1), Tab::new(2));
/// let block = ScopeBlock {
///     until: Duration::from_secs(12),
///     asked: Duration::from_secs(10),
///     cause: BlockCause::TooManyRequests,
/// };
/// let text = first.write(&TabMessage::Block { scope: "api".into(), block }, 5_000_000);
/// // The second page reads the block's end on its own clock: 2 s earlier.
/// let heard = second.read(&text, 7_000_000).unwrap();
/// let until = Duration::from_secs(10);
/// assert_eq!(heard, TabMessage::Block { scope: "api".into(), block: ScopeBlock { until, ..block } });
/// // The same message again is stale.
/// assert_eq!(second.read(&text, 7_000_000), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tab {
    epoch: u64,
    sent: u64,
    heard: Vec<(u64, u64)>,
}

impl Tab {
    /// A tab whose epoch is `epoch`, unique among the page's tabs (a browser takes its time
    /// origin in microseconds, with random bits beneath).
    pub const fn new(epoch: u64) -> Self {
        Self {
            epoch,
            sent: 0,
            heard: Vec::new(),
        }
    }

    /// The text of this tab's next message, as other tabs read it; `time_origin_us` is this
    /// page's time origin on the wall clock, in microseconds since the Unix epoch.
    ///
    /// Tab-separated: the version, the epoch and the sequence, then `ask`, or `block` with its
    /// end on the wall clock and the delay asked, in microseconds, its cause, and the scope.
    pub fn write(&mut self, message: &TabMessage, time_origin_us: u64) -> String {
        self.sent += 1;
        let (epoch, seq) = (self.epoch, self.sent);
        match message {
            TabMessage::Ask => format!("{VERSION}\t{epoch}\t{seq}\task"),
            TabMessage::Block { scope, block } => {
                let until = time_origin_us.saturating_add(micros(block.until));
                let (asked, why) = (micros(block.asked), block.cause.name());
                format!("{VERSION}\t{epoch}\t{seq}\tblock\t{until}\t{asked}\t{why}\t{scope}")
            }
        }
    }

    /// What another tab's `text` says, on this page's clock (`time_origin_us`, as for
    /// [`write`](Self::write)); `None` for this tab's own message, a stale or repeated one,
    /// or text that is not one of this protocol's.
    pub fn read(&mut self, text: &str, time_origin_us: u64) -> Option<TabMessage> {
        let mut parts = text.splitn(8, '\t');
        let (Some(VERSION), Some(epoch), Some(seq), Some(kind)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return None;
        };
        let (epoch, seq): (u64, u64) = (epoch.parse().ok()?, seq.parse().ok()?);
        let message = match (kind, parts.next(), parts.next(), parts.next(), parts.next()) {
            ("ask", None, ..) => TabMessage::Ask,
            ("block", Some(until), Some(asked), Some(why), Some(scope)) => {
                let until: u64 = until.parse().ok()?;
                let block = ScopeBlock {
                    until: Duration::from_micros(until.saturating_sub(time_origin_us)),
                    asked: Duration::from_micros(asked.parse().ok()?),
                    cause: BlockCause::from_name(why)?,
                };
                let scope = scope.to_owned();
                TabMessage::Block { scope, block }
            }
            _ => return None,
        };
        (epoch != self.epoch && self.fresh(epoch, seq)).then_some(message)
    }

    /// Whether `(epoch, seq)` is news: past the last heard from its epoch (then remembered).
    fn fresh(&mut self, epoch: u64, seq: u64) -> bool {
        match self.heard.iter_mut().find(|(e, _)| *e == epoch) {
            Some((_, last)) if *last >= seq => false,
            Some((_, last)) => {
                *last = seq;
                true
            }
            None => {
                self.heard.push((epoch, seq));
                true
            }
        }
    }
}

/// Whole microseconds.
fn micros(d: Duration) -> u64 {
    d.as_secs()
        .saturating_mul(1_000_000)
        .saturating_add(u64::from(d.subsec_micros()))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const ORIGIN: u64 = 1_700_000_000_000_000;

    fn block(until_us: u64) -> ScopeBlock {
        ScopeBlock {
            until: Duration::from_micros(until_us),
            asked: Duration::from_secs(10),
            cause: BlockCause::QuotaSpent,
        }
    }

    #[test]
    fn a_block_crosses_to_another_tab_on_its_own_clock_to_the_microsecond() {
        let (mut sender, mut same_page, mut later_page) = (Tab::new(7), Tab::new(8), Tab::new(9));
        // A scope's name may hold anything but a line of its own; a tab crosses whole.
        let scope = "account:ops\twith a tab".to_owned();
        let message = TabMessage::Block {
            scope: scope.clone(),
            block: block(12_345_678),
        };
        let text = sender.write(&message, ORIGIN);
        assert!(text.starts_with("2\t7\t1\tblock\t"), "{text}");
        assert_eq!(same_page.read(&text, ORIGIN), Some(message));
        // A page that began 2 s later reads the same end 2 s sooner on its clock.
        let later = later_page.read(&text, ORIGIN + 2_000_000);
        let block = block(10_345_678);
        assert_eq!(later, Some(TabMessage::Block { scope, block }));
        // An end already past on the receiving page reads as now (zero): it changes nothing.
        let mut much_later = Tab::new(10);
        let gone = much_later.read(&text, ORIGIN + 60_000_000);
        assert!(
            matches!(gone, Some(TabMessage::Block { block, .. }) if block.until == Duration::ZERO)
        );
    }

    #[test]
    fn stale_repeated_and_own_messages_are_dropped() {
        let (mut a, mut b, mut c) = (Tab::new(1), Tab::new(2), Tab::new(3));
        let first = a.write(&TabMessage::Ask, ORIGIN);
        let second = a.write(&TabMessage::Ask, ORIGIN);
        // Heard in order, each once.
        assert_eq!(b.read(&first, ORIGIN), Some(TabMessage::Ask));
        assert_eq!(b.read(&first, ORIGIN), None, "repeated");
        assert_eq!(b.read(&second, ORIGIN), Some(TabMessage::Ask));
        // Out of order, the older is stale; another tab keeps its own count.
        assert_eq!(c.read(&second, ORIGIN), Some(TabMessage::Ask));
        assert_eq!(c.read(&first, ORIGIN), None, "stale");
        let from_b = b.write(&TabMessage::Ask, ORIGIN);
        assert_eq!(c.read(&from_b, ORIGIN), Some(TabMessage::Ask));
        // A tab does not hear itself.
        let own = a.write(&TabMessage::Ask, ORIGIN);
        assert_eq!(a.read(&own, ORIGIN), None);
    }

    #[test]
    fn text_that_is_not_this_protocols_is_dropped() {
        let mut tab = Tab::new(1);
        for other in [
            "",
            "1\t1\t1\t429\tx",
            "2\t7\t1\tnap",
            "2\t7\t1\task\tmore",
            "2\tsoon\t1\task",
            "2\t7\tnext\task",
            "2\t7\t1\tblock\tsoon\t1\t429\tx",
            "2\t7\t1\tblock\t1\t1\tnap\tx",
            "2\t7\t1\tblock\t1\t1\t429",
        ] {
            assert_eq!(tab.read(other, ORIGIN), None, "{other:?}");
        }
    }
}
