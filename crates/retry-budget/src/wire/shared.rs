//! A scope's block as it crosses to other processes through a store they share (Redis,
//! say): what remains of it, never its end, so that no two machines' clocks are compared; and
//! beside it, as text, the delay the service gave and why (`"3000 429"`).

use std::time::Duration;

use crate::block::{BlockCause, ScopeBlock};

/// What one process tells the others of a scope's block, and hears from them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedBlock {
    /// How long the block still runs, from when it was told or read.
    pub remaining: Duration,
    /// The delay the service gave, counted from the answer that set the block.
    pub asked: Duration,
    /// Why.
    pub cause: BlockCause,
}

impl SharedBlock {
    /// `block` as it stands at `now` (the driver's clock); `None` once it has ended.
    pub fn of(block: &ScopeBlock, now: Duration) -> Option<Self> {
        let remaining = block.until.checked_sub(now).filter(|r| !r.is_zero())?;
        Some(Self {
            remaining,
            asked: block.asked,
            cause: block.cause,
        })
    }

    /// This block on the driver's clock, read at `now`.
    pub fn at(&self, now: Duration) -> ScopeBlock {
        ScopeBlock {
            until: now.saturating_add(self.remaining),
            asked: self.asked,
            cause: self.cause,
        }
    }
}

impl SharedBlock {
    /// What the store keeps beside what remains: the delay asked, in whole milliseconds, and
    /// the cause's name, as [`from_stored`](Self::from_stored) reads it.
    pub fn stored_value(&self) -> String {
        format!("{} {}", self.asked.as_millis(), self.cause.name())
    }

    /// What remains, in whole milliseconds, rounded up: a block is never told shorter than it
    /// is.
    pub fn remaining_ms(&self) -> u64 {
        u64::try_from(self.remaining.as_micros().div_ceil(1_000)).unwrap_or(u64::MAX)
    }

    /// The block a store holds: `remaining` as the store counts it, `value` as
    /// [`stored_value`](Self::stored_value) wrote it; `None` for a value of another shape
    /// (left alone, not guessed at).
    pub fn from_stored(remaining: Duration, value: &str) -> Option<Self> {
        let (asked, cause) = value.split_once(' ')?;
        Some(Self {
            remaining,
            asked: Duration::from_millis(asked.parse().ok()?),
            cause: BlockCause::from_name(cause)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_block_crosses_as_what_remains_of_it() {
        let s = Duration::from_secs;
        let block = ScopeBlock {
            until: s(10),
            asked: s(3),
            cause: BlockCause::TooManyRequests,
        };
        let told = SharedBlock::of(&block, s(8)).unwrap();
        assert_eq!(told.remaining, s(2));
        // Read by a process whose clock stands elsewhere: it ends 2 s after that process's now.
        assert_eq!(told.at(s(100)).until, s(102));
        assert_eq!(
            (told.at(s(100)).asked, told.at(s(100)).cause),
            (s(3), block.cause)
        );
        // Ended: nothing to tell.
        assert_eq!(SharedBlock::of(&block, s(10)), None);
    }

    #[test]
    fn a_stored_block_reads_back_as_it_was_written() {
        let block = SharedBlock {
            remaining: Duration::from_micros(2_999_001),
            asked: Duration::from_secs(3),
            cause: BlockCause::TooManyRequests,
        };
        assert_eq!(
            (block.stored_value(), block.remaining_ms()),
            ("3000 429".into(), 3_000)
        );
        let kept = Duration::from_millis(2_500);
        assert_eq!(
            SharedBlock::from_stored(kept, "3000 429"),
            Some(SharedBlock {
                remaining: kept,
                ..block
            })
        );
        let spent = SharedBlock::from_stored(kept, "1000 quota").unwrap();
        assert_eq!(spent.cause, BlockCause::QuotaSpent);
        for other in ["soon", "3000 teapot", "x 429", "3000", ""] {
            assert_eq!(SharedBlock::from_stored(kept, other), None, "{other:?}");
        }
    }
}
