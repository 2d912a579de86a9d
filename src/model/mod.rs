//! The model: reads fixture files and replays each case through the budget core on a virtual
//! clock. There is no second implementation of the rules here; every decision is the core's.

mod fixture;
mod replay;

pub use fixture::{
    Answer, Attempt, Case, CaseError, Fixture, FixtureError, InvalidFixture, Request,
};
pub use replay::{compare, replay, sec_json, timeline, Mismatch, Replay};
