#![doc = include_str!("../README.md")]
//!
//! ## Inside
//!
//! Pure and deterministic. No clock, no network, no browser: `now` is passed in, and every
//! decision (start, wait, stop) comes from a [`ReadAction`], one per read; the reads of one
//! client meet the ledger of the APIs they share in a [`Client`].
//!
//! The shape is sans-IO: inputs are `handle_*(now, …)`, outputs are `poll_*`: one step at a
//! time ([`ReadAction::poll_action`], [`Client::poll_event`]) and one timer (`poll_timeout`).
//! The fixture model, the fleet simulator and the browser runtime drive the same [`Client`]. The
//! rules it keeps are in [`contract`].
//!
//! The root holds what a read needs on its main path; the rest is in modules named for what
//! they hold:
//!
//! | module | what |
//! |---|---|
//! | [`action`] | [`ReadAction`], one read's state machine: its [`Step`]s, its phase, why it waits |
//! | [`policy`] | [`RetryPolicy`]: one read's budget, its `const fn` builders and its validation |
//! | [`scope`] | what the reads of one API share: [`ScopePolicy`], its ledger's state, its block |
//! | [`headers`] | what an answer's headers say: `Retry-After`, `Date`, the RateLimit fields |
//! | [`report`] | how a read ended: [`Outcome`], each with its own facts, apart from its last response |
//! | [`trace`] | [`Event`]: what the trace records, and how each event reads |
//! | [`words`] | the sentences a user reads: [`StopMessage`], [`Progress`], how seconds are written |
//! | [`wire`] | every text that crosses to another client: a read handed from a server's render to the browser ([`HandOver`]), its stop and trace, a message to another tab |
//! | [`request`] | [`ReadRequest`]: what a read sends, checked before anything is sent |
//! | [`body`] | the one rule for reading a 2xx body |
//! | [`timeline`] | an action drawn from its trace alone |
//!
//! Inside, the files in layers, each importing only from the layers above it in this table:
//!
//! | layer | file | what |
//! |---|---|---|
//! | 1, leaves | `seconds` | how a duration is written, everywhere |
//! | | `http_date` | the three HTTP-date forms, any year, RFC 850's century |
//! | | `shown` | how a value a server sent is shown to a reader |
//! | | `block` | a scope's block: no attempt on it starts before its end |
//! | | `pace` | the pace a scope served at before its last block, and the turns it gives after |
//! | | `random` | the seeded random numbers jitter is drawn from |
//! | | `scope_map` | where the ledger keeps its scopes by name: a list in a browser, a hash map on a server |
//! | | `reads` | where a client keeps its reads by name, their timers and its events: a list in a browser, a hash map and a heap on a server |
//! | | `body` | the body rule, and [`BodyProblem`](body::BodyProblem) |
//! | 2, rules and parsers | `policy`, `scope_policy`, `clock` (the evidence that dates a receipt), `retry_after`, `rate_limit`; `headers` names the last three's public items |
//! | 3, what an answer says | `response` | [`Response`], read once for the ledger and the action |
//! | | `wait` | why a wait is as long as it is; a valid hint made a delay |
//! | | `report` | a read's ending |
//! | 4, records and ledger | `trace` | the trace's events |
//! | | `words` | every sentence the user reads |
//! | | `places` | which reads hold a place on one scope, and its queue's order: a list in a browser, a tree and counts on a server |
//! | | `scope` | the scope ledger: what every request to one API has been told, and its queue |
//! | | `wire/` | every text that crosses to another client: a read handed over (`hand_over`), its stop (`stop`), its trace (`trace`), all of a render's read at once (`part`), a message to another tab (`tab`) |
//! | 5, one read | `action` | one read's state machine |
//! | 6, one client | `client` | [`Client`]: a client's reads and their ledger (a browser page's, a server process's), and the rules of their meeting |
//!
//! Beside the layers: `request` and `timeline`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod block;
mod client;
mod clock;
mod http_date;
mod lease;
mod pace;
mod places;
mod random;
mod rate_limit;
mod reads;
mod response;
mod retry_after;
mod scope_map;
mod scope_policy;
mod seconds;
mod shown;
mod wait;

pub mod action;
pub mod body;
pub mod headers;
pub mod policy;
pub mod report;
pub mod request;
pub mod scope;
pub mod timeline;
pub mod trace;
pub mod wire;
pub mod words;

#[doc = include_str!("../docs/contract.md")]
pub mod contract {}

#[cfg(test)]
mod test_clock;
#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[cfg(all(test, feature = "shared-leases"))]
mod lease_tests;
#[cfg(all(test, feature = "learned-pace"))]
mod pace_tests;
#[cfg(test)]
mod tests;

pub use action::{ReadAction, Step};
pub use client::{Client, ClientEvent, ReadId};
pub use policy::RetryPolicy;
pub use report::{Outcome, StopReport};
pub use request::ReadRequest;
pub use response::Response;
pub use scope::ScopePolicy;
pub use trace::{Event, TraceEvent};
pub use wire::HandOver;
pub use words::{Progress, StopMessage};
