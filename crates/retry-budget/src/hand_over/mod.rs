//! A read handed from one client to another, as text: a server's render hands the browser the
//! read it began ([`HandOver`], while it waits), how it ended ([`StopReport::handed`]) and what
//! it did ([`handed_trace`]), and the browser reads each back ([`HandOver::parse`],
//! [`StopReport::parse`], [`parse_trace`]). Nothing secret travels (no URL, no request header, no
//! body); text of another version, or of another shape, is refused by name
//! ([`HandOverError`]), never guessed. A render sends all it knows of one read as one [`Part`].
//!
//! [`StopReport::handed`]: crate::StopReport::handed
//! [`StopReport::parse`]: crate::StopReport::parse

mod part;
mod read;
mod stop;
mod trace;

pub use part::Part;
pub use read::{HandOver, HandOverError};
pub use stop::HandedStop;
pub use trace::{handed_trace, parse_trace, HandedTrace};
