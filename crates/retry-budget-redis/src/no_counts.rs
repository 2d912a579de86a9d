//! Without the `metrics` feature nothing is counted.

pub(crate) fn away() {}
