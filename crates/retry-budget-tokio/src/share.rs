//! Where one process's ledger meets the other processes' reading the same quota (opt-in,
//! [`Client::share_with`](crate::Client::share_with)): each block this process learns is
//! published as it is learned, and each read asks for the others' block on its scope before it
//! starts. Where a scope has retry tokens, a retry is paid from the purse they all share: the
//! core asks for the token before its read decides. Where a scope limits its requests in
//! flight, every attempt takes one of the scope's places from the store before it is sent and
//! gives it back when it is over, so the processes together send no more at once than the
//! limit. Times cross processes as what remains of a
//! block ([`SharedBlock`]), so no two machines' clocks are ever compared. A share that cannot reach its store answers nothing: the process reads with
//! its own ledger meanwhile.

use std::future::Future;
use std::pin::Pin;

use std::time::Duration;

use retry_budget::scope::{Lease, RetryPurse, TokenTaken};
pub use retry_budget::wire::SharedBlock;

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

    /// Takes one of the `limit` places in flight on `scope` that every process shares, for the
    /// attempt this process calls `lease` (unique within the process while it runs), for no
    /// longer than `cap` and a margin the store states. `None` where the store cannot answer
    /// within the share's timeout, or keeps no places (the default): the process's own limit
    /// decides, and a share that keeps places makes the place true in the store once it can.
    fn take_lease<'a>(
        &'a self,
        scope: &'a str,
        lease: u64,
        limit: u32,
        cap: Duration,
    ) -> Pin<Box<dyn Future<Output = Option<Lease>> + Send + 'a>> {
        let _ = (scope, lease, limit, cap);
        Box::pin(std::future::ready(None))
    }

    /// The longest one call to the store takes before the share gives up on it (default
    /// none: a share that keeps nothing answers at once). A render's queued read waits at
    /// least this for its place before it is let go unsent, so that the round trip that asks
    /// for the place is not taken for a queue.
    fn answers_within(&self) -> Duration {
        Duration::ZERO
    }

    /// Gives back the place `lease` holds on `scope`, if it holds one: its attempt is over.
    /// Returns at once.
    fn give_lease(&self, scope: &str, lease: u64) {
        let _ = (scope, lease);
    }

    /// Puts `thousandths` of a token back into `scope`'s shared purse, within its size: a
    /// success's refill, or a token taken for a retry that did not happen. Returns at once.
    fn give_back(&self, scope: &str, thousandths: u32, purse: RetryPurse) {
        let _ = (scope, thousandths, purse);
    }
}
