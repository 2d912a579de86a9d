//! The places in flight a scope's policy allows, shared by every client reading the quota (a
//! server's replicas): each attempt holds one, taken from the store before it is sent and
//! given back once it is over ([`Client::with_shared_leases`](crate::Client::with_shared_leases)).

use std::time::Duration;

/// What asking the store for one of a scope's shared places in flight came to
/// ([`Client::handle_lease`](crate::Client::handle_lease)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lease {
    /// A place was free, and is the attempt's until it is given back or its time runs out.
    Taken,
    /// Every place is taken, by this client or another: the attempt waits and asks again.
    AllTaken,
}

/// Where a read stands with its attempt's shared place.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Leasing {
    /// No place taken, none asked for.
    #[default]
    None,
    /// Granted a place among this client's, the read has asked the store for the shared one;
    /// the answer is awaited, and the attempt with it.
    Asking,
    /// Every shared place was taken: the read keeps its place here and asks again at this time.
    AgainAt(Duration),
    /// The attempt in flight holds a shared place.
    Held,
}

/// How long a read that found every shared place taken waits before it asks again: a place
/// another client gives back is found within this, for at most 40 calls a second to the store
/// for each read asking (a client asks for no more reads on a scope than its own limit).
pub(crate) const ASK_AGAIN: Duration = Duration::from_millis(25);
