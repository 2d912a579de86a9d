//! A scenario API on loopback: it plays a fixture case request by request, so the browser
//! runtime meets on the wire what the model meets on paper, and it records every request that
//! reached it (arrival, answer or abort) so tests count requests on the wire.
//!
//! | route | what |
//! |---|---|
//! | `GET /fixture` | the (first) fixture file the server plays, as text |
//! | `POST /runs?scenario=ID[&expose=none][&moved_to=ORIGIN]` | a new run of case `ID`: `201 {"run", "scenario", "base"}`; with `expose=none` its answers do not expose `Retry-After` and `Date` to a page on another origin; with `moved_to=http://HOST:PORT` a request for its palettes on any other host is redirected there (307), and only the request that arrives there counts |
//! | `GET /runs/{run}/palettes?collection=…` | the run's next attempt, as the fixture says |
//! | `GET /runs/{run}` | what reached the server in that run |
//! | `GET /runs` | every run so far, with its scenario and request count |
//! | `POST /limits?quota=N&window_s=S[&kind=K][&fields=0][&spent=K][&answer_ms=MS]` | a new rate limit: `quota` requests per `window_s` seconds, counted as `kind` says (`fixed` windows, the default; `gcra`; `sliding`), the first `K` used already, the RateLimit fields on every answer unless `fields=0`, each answer held `MS` ms (at most 60000): `201 {"limit", "base"}` |
//! | `GET /limits/{limit}/palettes?collection=…` | the collection (a body the fixture files name; the earliest file's where several do) if the limit admits the request; else `429` with `Retry-After`; both with `Date` and (unless `fields=0`) the RateLimit fields |
//! | `GET /limits/{limit}` | every request that reached the limit: when it arrived and was answered, how many were in flight at the limiter then (itself included), for what, its status and the `Retry-After` a refusal said; and the most in flight at once |
//!
//! With [`with_static`], the API moves under `/api` and a built app is served from a folder,
//! so a release build and its API share one origin.
//!
//! Errors are JSON `{"error": "…"}` with a 4xx status that says what was wrong.
#![forbid(unsafe_code)]
#![warn(missing_docs)]
//!
//! | module | job |
//! |---|---|
//! | `runs` | the run registry: which case each run plays, and every request it saw |
//! | `routes` | the HTTP routes and their handlers, with JSON errors |
//! | `cors` | CORS headers, and the two deliberate exceptions |
//! | `limits` | a rate limiter (fixed windows, a GCRA or a sliding log) with the RateLimit fields, and its log |
//! | `clock` | a fixture's answer moved onto the real clock |
//! | `files` | a built app served beside the API |
//! | `serve` | the hyper loop, and the API on a free loopback port |

mod clock;
mod cors;
mod error;
mod files;
mod limits;
mod routes;
mod runs;
mod serve;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use palette_list_model::{Case, CaseError, Fixture, FixtureError};

pub use clock::AT_CAP_MARGIN;
pub use files::with_static;
pub use serve::{serve, serve_on_loopback};

/// The fixture being played and every run so far.
#[derive(Clone)]
pub struct Scenarios {
    inner: Arc<Inner>,
}

struct Inner {
    /// The first fixture file, as served by `GET /fixture`.
    text: String,
    /// Every case of every file (each attempt carries its own body).
    cases: Vec<Case>,
    runs: Mutex<runs::Runs>,
    /// Every file's named bodies, the earlier file's where two share a name: the collections
    /// a limit serves.
    bodies: BTreeMap<String, Value>,
    limits: Mutex<limits::Limits>,
}

/// Why a set of fixture files cannot be played. Files are named by their position, from 1.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// No fixture file was given.
    #[error("no fixture file given")]
    NoFiles,
    /// A file is not a fixture file.
    #[error("fixture file {file}: {source}")]
    Fixture {
        /// Which file.
        file: usize,
        /// Why.
        source: FixtureError,
    },
    /// A case the model refuses: the server would play what the model cannot.
    #[error("fixture file {file}: {source}")]
    Case {
        /// Which file.
        file: usize,
        /// Why.
        source: CaseError,
    },
    /// Two files have a case with the same id.
    #[error("fixture file {file}: case {id} is also in an earlier file")]
    Duplicate {
        /// The later file.
        file: usize,
        /// The id.
        id: String,
    },
}

impl Scenarios {
    /// Plays the cases of one or more fixture files (ids must be unique across them). Refuses
    /// a file the model refuses.
    pub fn new(texts: Vec<String>) -> Result<Self, LoadError> {
        let mut cases: Vec<Case> = Vec::new();
        let mut bodies: BTreeMap<String, Value> = BTreeMap::new();
        for (i, text) in texts.iter().enumerate() {
            let file = i + 1;
            let fixture =
                Fixture::parse(text).map_err(|source| LoadError::Fixture { file, source })?;
            for (name, body) in fixture.bodies {
                // Where files name the same body, the earlier file's is served.
                bodies.entry(name).or_insert(body);
            }
            for case in fixture.cases {
                let case = case.map_err(|source| LoadError::Case { file, source })?;
                if cases.iter().any(|c| c.id == case.id) {
                    return Err(LoadError::Duplicate { file, id: case.id });
                }
                cases.push(case);
            }
        }
        let text = texts.into_iter().next().ok_or(LoadError::NoFiles)?;
        Ok(Self {
            inner: Arc::new(Inner {
                text,
                cases,
                runs: Mutex::new(runs::Runs::default()),
                bodies,
                limits: Mutex::new(limits::Limits::default()),
            }),
        })
    }

    /// The HTTP routes, with CORS that exposes `Retry-After` and `Date`.
    pub fn router(self) -> axum::Router {
        routes::router(self)
    }

    fn case(&self, i: usize) -> &Case {
        &self.inner.cases[i]
    }

    fn find(&self, id: &str) -> Option<usize> {
        self.inner.cases.iter().position(|c| c.id == id)
    }
}
