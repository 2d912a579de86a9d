//! Blocks shared with the page's other tabs, over a `BroadcastChannel` ([`CHANNEL`]). A block's
//! end crosses as wall-clock time, `performance.timeOrigin + performance.now()` in
//! microseconds, and is read back onto the receiving page's own monotonic clock; as with any
//! block, one that ends sooner than what a scope has changes nothing there. A message that is
//! not one this crate sends is ignored.

use std::time::Duration;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{BroadcastChannel, MessageEvent};

use super::CHANNEL;
use crate::budget::{BlockCause, ScopeBlock};

/// The page's end of the channel: blocks this page learns go out on it.
pub(super) struct Tabs(BroadcastChannel);

impl Tabs {
    /// Opens the channel; every block another tab sends reaches `hear`, on this page's clock.
    /// `None` where the browser has no `BroadcastChannel`: the page keeps its blocks to itself.
    pub(super) fn open(hear: impl Fn(String, ScopeBlock) + 'static) -> Option<Tabs> {
        let channel = BroadcastChannel::new(CHANNEL).ok()?;
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            if let Some((scope, block)) = event.data().as_string().and_then(|m| decode(&m)) {
                hear(scope, block);
            }
        });
        channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // The channel lives as long as the page, and so does its listener.
        on_message.forget();
        Some(Tabs(channel))
    }

    /// Tells the other tabs that `scope` is blocked until `block.until`.
    pub(super) fn post(&self, scope: &str, block: ScopeBlock) {
        // A channel that cannot post (the page is closing) leaves the block to this page.
        let _ = self.0.post_message(&encode(scope, block).into());
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

/// A block as other tabs read it: `1`, its end and the delay asked in microseconds (the end
/// on the wall clock), why, and the scope, tab-separated.
fn encode(scope: &str, block: ScopeBlock) -> String {
    let until = time_origin_us()
        .unwrap_or(0)
        .saturating_add(micros(block.until));
    let why = match block.cause {
        BlockCause::TooManyRequests => "429",
        BlockCause::QuotaSpent => "quota",
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
        "429" => BlockCause::TooManyRequests,
        "quota" => BlockCause::QuotaSpent,
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
            cause: why,
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
            cause: BlockCause::QuotaSpent,
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
