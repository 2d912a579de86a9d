//! Where one process's ledger meets the other processes' reading the same quota (opt-in,
//! [`Client::share_with`](crate::Client::share_with)): each block this process learns is
//! published as it is learned, and each read asks for the others' block on its scope before it
//! starts. Where a scope has retry tokens, a refusal's retry is paid from the purse they all
//! share, taken before the core hears the answer. Times cross processes as what remains of a block, so no two machines' clocks are
//! ever compared. A share that cannot reach its store answers nothing: the process reads with
//! its own ledger meanwhile.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use retry_budget::scope::{BlockCause, RetryPurse, ScopeBlock, TokenTaken};

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

/// A store the processes reading one quota share their blocks through (such as Redis), and
/// their scopes' retry purses.
pub trait LedgerShare: Send + Sync + 'static {
    /// `scope` is blocked as `block` says: tell the other processes. It returns at once (the
    /// store is reached from a task of the share's own), and a block the store cannot take
    /// now is the share's to publish once it can.
    fn publish(&self, scope: &str, block: SharedBlock);

    /// The block the other processes hold on `scope`, if one runs. `None` as well when the
    /// store cannot answer within the share's own short timeout: a read is never held long
    /// for it.
    fn fetch<'a>(
        &'a self,
        scope: &'a str,
    ) -> Pin<Box<dyn Future<Output = Option<SharedBlock>> + Send + 'a>>;

    /// Takes one retry token from `scope`'s purse, which every process shares (`purse` gives
    /// its size; full when first used). `None` where the store cannot answer within the
    /// share's timeout, or keeps no purses (the default): the process's own purse decides.
    fn take_token<'a>(
        &'a self,
        scope: &'a str,
        purse: RetryPurse,
    ) -> Pin<Box<dyn Future<Output = Option<TokenTaken>> + Send + 'a>> {
        let _ = (scope, purse);
        Box::pin(std::future::ready(None))
    }

    /// Puts `thousandths` of a token back into `scope`'s shared purse, within its size: a
    /// success's refill, or a token taken for a retry that did not happen. Returns at once.
    fn give_back(&self, scope: &str, thousandths: u32, purse: RetryPurse) {
        let _ = (scope, thousandths, purse);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
