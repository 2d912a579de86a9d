//! The workspace's test suites live in this package's test targets (`readme.rs`, `browser/`); the
//! library holds only the workspace README's examples, compiled and run as doc tests.

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The examples of `docs/scopes.md`, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../docs/scopes.md")]
pub struct ScopesDoctests;
