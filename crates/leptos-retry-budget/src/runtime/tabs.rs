//! Blocks shared with the page's other tabs, over a `BroadcastChannel` ([`CHANNEL`]).
//!
//! - A block's end crosses as wall-clock time, `performance.timeOrigin + performance.now()` in
//!   microseconds, and is read back onto the receiving page's own monotonic clock; as with any
//!   block, one that ends sooner than what a scope has changes nothing there.
//! - Every message carries its sender's epoch (when the sending tab began, in microseconds,
//!   with random bits beneath so two tabs never share one) and a sequence number counting that
//!   tab's messages. A message whose sequence is not past the last heard from its epoch is
//!   stale or repeated, and is ignored.
//! - A tab misses every message sent while it was frozen in the back/forward cache, hidden and
//!   throttled, or not yet open (whatwg/html#7253). So it asks, when it opens, when it is
//!   restored (`pageshow` with `persisted`) and when it becomes visible again, and every tab
//!   that hears an ask answers with the blocks it knows still run.
//! - A message that is not one this crate sends is ignored.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{BroadcastChannel, Event, MessageEvent, PageTransitionEvent, VisibilityState};

use super::CHANNEL;
use retry_budget::scope::{BlockCause, ScopeBlock};

/// What one tab tells the others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Message {
    /// `scope` is blocked; read on the receiving page's clock.
    Block(String, ScopeBlock),
    /// "Tell me every block you know still runs": answered with [`Tabs::post`].
    Ask,
}

/// This tab's end of the channel: its epoch, its sequence, and the last sequence heard from
/// each other tab's epoch.
struct Sender {
    channel: BroadcastChannel,
    epoch: u64,
    sent: Cell<u64>,
    heard: RefCell<Vec<(u64, u64)>>,
}

impl Sender {
    fn send(&self, message: &Message) {
        let seq = self.sent.get() + 1;
        self.sent.set(seq);
        // A channel that cannot post (the page is closing) leaves the block to this page.
        let _ = (self.channel).post_message(&encode(self.epoch, seq, message).into());
    }

    /// Whether `(epoch, seq)` is news: past the last heard from its epoch (then remembered).
    fn fresh(&self, epoch: u64, seq: u64) -> bool {
        let mut heard = self.heard.borrow_mut();
        match heard.iter_mut().find(|(e, _)| *e == epoch) {
            Some((_, last)) if *last >= seq => false,
            Some((_, last)) => {
                *last = seq;
                true
            }
            None => {
                heard.push((epoch, seq));
                true
            }
        }
    }
}

/// The page's end of the channel: blocks this page learns go out on it.
pub(super) struct Tabs(Rc<Sender>);

impl Tabs {
    /// Opens the channel, and asks the other tabs what they know; everything another tab sends
    /// reaches `hear`, in order, stale messages left out. It asks again whenever the page is
    /// restored from the back/forward cache or becomes visible. `None` where the browser has
    /// no `BroadcastChannel`: the page keeps its blocks to itself.
    pub(super) fn open(hear: impl Fn(Message) + 'static) -> Option<Tabs> {
        let channel = BroadcastChannel::new(CHANNEL).ok()?;
        let salt = (js_sys::Math::random() * 1024.0) as u64;
        let sender = Rc::new(Sender {
            channel,
            epoch: time_origin_us().unwrap_or(0) << 10 | salt,
            sent: Cell::new(0),
            heard: RefCell::new(Vec::new()),
        });
        let receiver = sender.clone();
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            let Some((epoch, seq, message)) = event.data().as_string().and_then(|m| decode(&m))
            else {
                return;
            };
            if epoch != receiver.epoch && receiver.fresh(epoch, seq) {
                hear(message);
            }
        });
        sender
            .channel
            .set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // The channel lives as long as the page, and so do its listeners.
        on_message.forget();
        if let Some(window) = web_sys::window() {
            let asker = sender.clone();
            let on_back = Closure::<dyn Fn(Event)>::new(move |event: Event| {
                let restored = event
                    .dyn_ref::<PageTransitionEvent>()
                    .is_some_and(PageTransitionEvent::persisted);
                let shown = event.type_() == "visibilitychange"
                    && web_sys::window()
                        .and_then(|w| w.document())
                        .is_some_and(|d| d.visibility_state() == VisibilityState::Visible);
                if restored || shown {
                    asker.send(&Message::Ask);
                }
            });
            let listener = on_back.as_ref().unchecked_ref();
            let _ = window.add_event_listener_with_callback("pageshow", listener);
            let _ = window.add_event_listener_with_callback("visibilitychange", listener);
            on_back.forget();
        }
        sender.send(&Message::Ask);
        Some(Tabs(sender))
    }

    /// Tells the other tabs that `scope` is blocked until `block.until`.
    pub(super) fn post(&self, scope: &str, block: ScopeBlock) {
        self.0.send(&Message::Block(scope.to_owned(), block));
    }
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

/// A message as other tabs read it, tab-separated: `2`, the sender's epoch and sequence, then
/// `ask`, or `block` with its end and the delay asked in microseconds (the end on the wall
/// clock), why, and the scope.
fn encode(epoch: u64, seq: u64, message: &Message) -> String {
    match message {
        Message::Ask => format!("2\t{epoch}\t{seq}\task"),
        Message::Block(scope, block) => {
            let until = time_origin_us()
                .unwrap_or(0)
                .saturating_add(micros(block.until));
            let why = block.cause.name();
            let asked = micros(block.asked);
            format!("2\t{epoch}\t{seq}\tblock\t{until}\t{asked}\t{why}\t{scope}")
        }
    }
}

/// A message another tab sent, with its epoch and sequence, on this page's clock; `None` for
/// anything else.
fn decode(message: &str) -> Option<(u64, u64, Message)> {
    let mut parts = message.splitn(8, '\t');
    let (Some("2"), Some(epoch), Some(seq), Some(kind)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    let (epoch, seq) = (epoch.parse().ok()?, seq.parse().ok()?);
    let message = match (kind, parts.next(), parts.next(), parts.next(), parts.next()) {
        ("ask", None, ..) => Message::Ask,
        ("block", Some(until), Some(asked), Some(why), Some(scope)) => {
            let cause = BlockCause::from_name(why)?;
            let until: u64 = until.parse().ok()?;
            let block = ScopeBlock {
                until: Duration::from_micros(until.saturating_sub(time_origin_us()?)),
                asked: Duration::from_micros(asked.parse().ok()?),
                cause,
            };
            Message::Block(scope.to_owned(), block)
        }
        _ => return None,
    };
    Some((epoch, seq, message))
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
            cause: BlockCause::QuotaSpent,
        };
        let scope = "account:ops\twith a tab".to_owned();
        let message = encode(7, 3, &Message::Block(scope.clone(), block));
        assert!(message.starts_with("2\t7\t3\tblock\t"));
        // Read back on the same page: the same block, to the microsecond.
        assert_eq!(decode(&message), Some((7, 3, Message::Block(scope, block))));
        assert_eq!(
            decode(&encode(7, 4, &Message::Ask)),
            Some((7, 4, Message::Ask))
        );
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
            assert_eq!(decode(other), None, "{other:?}");
        }
    }
}
