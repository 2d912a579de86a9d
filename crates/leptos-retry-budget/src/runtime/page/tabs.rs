//! Blocks shared with the page's other tabs, over a `BroadcastChannel` ([`CHANNEL`]). The
//! protocol's rules (the text, the clock a block's end is read on, which messages are fresh)
//! are the core's ([`Tab`]); this file is the channel, the page's clock and when to ask:
//!
//! - This tab's epoch is the page's time origin in microseconds, with random bits beneath so
//!   two tabs never share one.
//! - A tab misses every message sent while it was frozen in the back/forward cache, hidden and
//!   throttled, or not yet open (whatwg/html#7253). So it asks, when it opens, when it is
//!   restored (`pageshow` with `persisted`) and when it becomes visible again, and every tab
//!   that hears an ask answers with the blocks it knows still run.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{BroadcastChannel, Event, MessageEvent, PageTransitionEvent, VisibilityState};

use crate::runtime::CHANNEL;
use retry_budget::scope::ScopeBlock;
use retry_budget::wire::{Tab, TabMessage};

/// This tab's end of the channel, and of the protocol (the core's [`Tab`]: its epoch, its
/// sequence, what it heard from the others).
struct Sender {
    channel: BroadcastChannel,
    tab: RefCell<Tab>,
}

impl Sender {
    fn send(&self, message: &TabMessage) {
        let text = self
            .tab
            .borrow_mut()
            .write(message, time_origin_us().unwrap_or(0));
        // A channel that cannot post (the page is closing) leaves the block to this page.
        let _ = self.channel.post_message(&text.into());
    }
}

/// The page's end of the channel: blocks this page learns go out on it.
pub(super) struct Tabs(Rc<Sender>);

impl Tabs {
    /// Opens the channel, and asks the other tabs what they know; everything another tab sends
    /// reaches `hear`, in order, stale messages left out. It asks again whenever the page is
    /// restored from the back/forward cache or becomes visible. `None` where the browser has
    /// no `BroadcastChannel`: the page keeps its blocks to itself.
    pub(super) fn open(hear: impl Fn(TabMessage) + 'static) -> Option<Tabs> {
        let channel = BroadcastChannel::new(CHANNEL).ok()?;
        let salt = (js_sys::Math::random() * 1024.0) as u64;
        let epoch = time_origin_us().unwrap_or(0) << 10 | salt;
        let sender = Rc::new(Sender {
            channel,
            tab: RefCell::new(Tab::new(epoch)),
        });
        let receiver = sender.clone();
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            let (Some(text), Some(origin)) = (event.data().as_string(), time_origin_us()) else {
                return;
            };
            // Read, and the tab let go, before `hear` answers an ask through it.
            let message = receiver.tab.borrow_mut().read(&text, origin);
            if let Some(message) = message {
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
                    asker.send(&TabMessage::Ask);
                }
            });
            let listener = on_back.as_ref().unchecked_ref();
            let _ = window.add_event_listener_with_callback("pageshow", listener);
            let _ = window.add_event_listener_with_callback("visibilitychange", listener);
            on_back.forget();
        }
        sender.send(&TabMessage::Ask);
        Some(Tabs(sender))
    }

    /// Tells the other tabs that `scope` is blocked until `block.until`.
    pub(super) fn post(&self, scope: &str, block: ScopeBlock) {
        let scope = scope.to_owned();
        self.0.send(&TabMessage::Block { scope, block });
    }
}

/// `performance.timeOrigin` in whole microseconds since the Unix epoch.
fn time_origin_us() -> Option<u64> {
    let origin = web_sys::window()?.performance()?.time_origin();
    (origin.is_finite() && origin > 0.0).then_some((origin * 1000.0) as u64)
}
