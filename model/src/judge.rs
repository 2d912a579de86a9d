//! The verdicts: a case replayed and held against its `expect`, a scope's actions each against
//! theirs, an invalid fixture refused for its reason. The replay tool, the fixture tests and the
//! browser tests all judge through here.

use serde_json::{Map, Value};

use crate::expect::{compare, Compared, Comparison};
use crate::fixture::{Case, CaseError, InvalidFixture, ScopeCase};
use crate::replay::{replay, replay_scope, Replay, ScopeReplay};

/// A case replayed and judged.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The replay.
    pub replay: Replay,
    /// The replay as JSON ([`Replay::to_json`]), what was compared.
    pub json: Map<String, Value>,
    /// The comparison with `expect`; `None` for a case without one (shown, not compared).
    pub compared: Option<Compared>,
}

impl Checked {
    /// Whether the case passes: no `expect`, or one that matches.
    pub fn passes(&self) -> bool {
        self.compared.as_ref().is_none_or(Compared::matches)
    }
}

/// Replays `case` and compares it exactly with its `expect`. `Err` when the replay refuses it.
pub fn check_case(case: &Case) -> Result<Checked, CaseError> {
    let replay = replay(case)?;
    let json = replay.to_json();
    let compared = case
        .expect
        .as_ref()
        .map(|e| compare(e, &json, Comparison::Exact));
    Ok(Checked {
        replay,
        json,
        compared,
    })
}

/// Replays a scope's actions together and compares each exactly with its own `expect`.
pub fn check_scope(scope: &ScopeCase) -> Result<(ScopeReplay, Vec<Checked>), CaseError> {
    let played = replay_scope(scope)?;
    let checked = played
        .actions
        .iter()
        .zip(&scope.actions)
        .map(|(replay, action)| {
            let json = replay.to_json();
            let compared = action
                .case
                .expect
                .as_ref()
                .map(|e| compare(e, &json, Comparison::Exact));
            Checked {
                replay: replay.clone(),
                json,
                compared,
            }
        })
        .collect();
    Ok((played, checked))
}

/// The verdict on an `invalid_fixtures` entry, which the model must refuse with its reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InvalidVerdict {
    /// Refused, with the expected reason: as it should be.
    RefusedAsExpected(CaseError),
    /// Refused, for another reason than the one expected.
    RefusedOtherwise(CaseError),
    /// Accepted and replayed: the model failed to refuse it.
    NotRefused,
}

impl InvalidVerdict {
    /// Whether the verdict is the one the fixture asks for.
    pub fn passes(&self) -> bool {
        matches!(self, InvalidVerdict::RefusedAsExpected(_))
    }
}

/// Judges an invalid fixture: refused when it is parsed, or when its replay finds it out (an
/// attempt started that the case does not list); the reason must be `expect_error` exactly.
pub fn judge_invalid(inv: &InvalidFixture) -> InvalidVerdict {
    let error = match &inv.parsed {
        Err(e) => e.clone(),
        Ok(case) => match replay(case) {
            Err(e) => e,
            Ok(_) => return InvalidVerdict::NotRefused,
        },
    };
    if error.problem == inv.expect_error {
        InvalidVerdict::RefusedAsExpected(error)
    } else {
        InvalidVerdict::RefusedOtherwise(error)
    }
}
