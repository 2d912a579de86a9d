//! Every text that crosses from one client to another, each written once and read once, and
//! each of another version or shape refused, never guessed.
//!
//! A read handed from one client to another: a server's render hands the browser the
//! read it began ([`HandOver`], while it waits), how it ended ([`StopReport::handed`]) and what
//! it did ([`handed_trace`]), and the browser reads each back ([`HandOver::parse`],
//! [`StopReport::parse`], [`parse_trace`]). Nothing secret travels (no URL, no request header, no
//! body); text of another version, or of another shape, is refused by name
//! ([`HandOverError`]), never guessed. A render sends all it knows of one read as one [`Part`].
//!
//! A page's tabs tell each other of blocks ([`Tab`], [`TabMessage`]); processes tell each other
//! through a store they share ([`SharedBlock`]).
//!
//! [`StopReport::handed`]: crate::StopReport::handed
//! [`StopReport::parse`]: crate::StopReport::parse

mod hand_over;
mod part;
mod shared;
mod stop;
mod tab;
mod trace;

pub use hand_over::{HandOver, HandOverError};
pub use part::Part;
pub use shared::SharedBlock;
pub use stop::HandedStop;
pub use tab::{Tab, TabMessage};
pub use trace::{handed_trace, parse_trace, HandedTrace};
