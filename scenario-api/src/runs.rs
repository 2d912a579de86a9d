//! The run registry: which case each run plays, and every request that reached it.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Instant;

use crate::Scenarios;

#[derive(Default)]
pub(crate) struct Runs {
    pub(crate) next: u64,
    pub(crate) by_id: HashMap<u64, Run>,
}

pub(crate) struct Run {
    pub(crate) case: usize,
    /// Whether answers name `Retry-After` and `Date` in `Access-Control-Expose-Headers`.
    pub(crate) expose: bool,
    /// The origin (`http://HOST:PORT`) its palettes moved to: other hosts are redirected there.
    pub(crate) moved_to: Option<String>,
    /// The `Authorization` value its requests should carry (`authorization=` when the run was
    /// made); each request records only whether it matched.
    pub(crate) authorization: Option<String>,
    /// When the run's first request arrived: elapsed zero of the scenario.
    pub(crate) first_arrival: Option<Instant>,
    pub(crate) requests: Vec<Record>,
}

/// One request as the server saw it.
pub(crate) struct Record {
    pub(crate) arrived: Instant,
    /// Whether it carried the run's `Authorization`, never the value.
    pub(crate) authorization: Credential,
    pub(crate) ended: Option<(Instant, Ended)>,
    /// Body bytes handed to the connection so far (a streamed body stops growing once the
    /// client aborts).
    pub(crate) body_sent: Arc<AtomicU64>,
}

/// What a request's `Authorization` was, against the value its run expects.
#[derive(Clone, Copy)]
pub(crate) enum Credential {
    /// The value the run expects.
    AsExpected,
    /// None at all.
    Missing,
    /// Another value (or one where the run expects none).
    Other,
}

impl Credential {
    /// How `sent` compares with `expected`.
    pub(crate) fn of(sent: Option<&[u8]>, expected: Option<&str>) -> Self {
        match (sent, expected) {
            (None, _) => Credential::Missing,
            (Some(s), Some(e)) if s == e.as_bytes() => Credential::AsExpected,
            (Some(_), _) => Credential::Other,
        }
    }

    /// Its name in a run's report.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Credential::AsExpected => "as_expected",
            Credential::Missing => "missing",
            Credential::Other => "other",
        }
    }
}

#[derive(Clone, Copy)]
pub(crate) enum Ended {
    Answered(u16),
    Aborted,
}

/// Records an abort if the request's future is dropped before it answered (the client went).
pub(crate) struct AbortGuard {
    pub(crate) scenarios: Scenarios,
    pub(crate) run: u64,
    pub(crate) index: usize,
    pub(crate) answered: bool,
}

impl AbortGuard {
    pub(crate) fn end(&mut self, ended: Ended) {
        self.answered = true;
        let mut runs = self.scenarios.inner.runs.lock().unwrap();
        if let Some(rec) = runs
            .by_id
            .get_mut(&self.run)
            .and_then(|r| r.requests.get_mut(self.index))
        {
            rec.ended.get_or_insert((Instant::now(), ended));
        }
    }
}

impl Drop for AbortGuard {
    fn drop(&mut self) {
        if !self.answered {
            self.end(Ended::Aborted);
        }
    }
}
