//! The page (wasm32): the budget core driven with the browser's clocks, fetches and timers, for
//! the two modes that run in it (`browser`, `hydrating`). One file a job: a read's lifecycle and
//! steps (`read`), a read the server began taken up (`take_up`, `hydrate` only), the page's one
//! registry of reads on the browser (`client`), the other tabs (`tabs`), the screens of a read
//! (`screens`), one attempt on the wire (`fetch`), origins (`origin`) and clocks (`time`). The
//! rules are the core's; which reads are the same read, and how the registry carries out the
//! client's events, are `page_rules`' (native, tested without a browser).

mod client;
mod fetch;
mod origin;
mod read;
mod screens;
mod tabs;
#[cfg(feature = "hydrate")]
pub(crate) mod take_up;
mod time;

pub use client::{provide_scope_policy, scope_state};
pub(crate) use read::Driver;
pub use time::now;
