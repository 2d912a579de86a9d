//! The fixture format (see the crate docs), read strictly: unknown keys are ignored, anything
//! malformed is refused with the case and the field.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::time::{Duration, SystemTime};

use serde_json::{Map, Value};

use palette_list::budget::{
    is_success, seconds_text, Precision, RetryPolicy, StatusSet, DEFAULT_MAX_BODY_BYTES,
};

use crate::expect;

/// A fixture file, parsed. Each case is parsed on its own, so one bad case does not hide the
/// others.
#[derive(Clone, Debug)]
pub struct Fixture {
    /// The file's `about`, if any.
    pub about: Option<String>,
    /// The `cases`, in file order.
    pub cases: Vec<Result<Case, CaseError>>,
    /// The `invalid_fixtures`: cases the model must refuse.
    pub invalid_fixtures: Vec<InvalidFixture>,
    /// Response bodies by name.
    pub bodies: BTreeMap<String, Value>,
    /// (Extension) the `scopes`: several actions on one scope, in file order.
    pub scopes: Vec<Result<ScopeCase, CaseError>>,
}

/// Several read actions on one scope (one API): each starts at its own time and sees what the
/// scope's ledger knows (a project extension, the top-level `scopes`).
#[derive(Clone, Debug)]
pub struct ScopeCase {
    /// Its `id`.
    pub id: String,
    /// Where it comes from.
    pub source: Option<String>,
    /// The actions, in file order.
    pub actions: Vec<ScopeAction>,
}

/// One action of a [`ScopeCase`].
#[derive(Clone, Debug)]
pub struct ScopeAction {
    /// When it starts, from the scope's zero (the wall clock's `wall_clock_at_zero`).
    pub start: Duration,
    /// What it observes and must produce, as a case whose times run from its own start; its
    /// id is the scope's with `#` and its place, from 1 (`three-screens#2`).
    pub case: Case,
}

/// A case the model must refuse, with the reason it must give.
#[derive(Clone, Debug)]
pub struct InvalidFixture {
    /// Its `id`.
    pub id: String,
    /// Where it comes from, if the file says.
    pub source: Option<String>,
    /// The error the model must give (without the case and field).
    pub expect_error: String,
    /// What parsing made of it.
    pub parsed: Result<Case, CaseError>,
}

/// One case, ready to replay.
#[derive(Clone, Debug)]
pub struct Case {
    /// Its `id`.
    pub id: String,
    /// Where in the source document it comes from.
    pub source: Option<String>,
    /// The policy in force (the file's, with the case's overrides).
    pub policy: RetryPolicy,
    /// The read; always `GET`.
    pub request: Request,
    /// The wall clock at elapsed 0; `None` means no usable clock evidence (see
    /// [`Case::client_policy`]).
    pub wall_clock_at_zero: Option<SystemTime>,
    /// What each started attempt observes, in order.
    pub attempts: Vec<Attempt>,
    /// When the user leaves, if they do.
    pub user_leaves_at: Option<Duration>,
    /// How late the 1st, 2nd, … wait's timer wakes.
    pub timer_late_by: Vec<Duration>,
    /// Where the policy's jitter is drawn from (default 0).
    pub jitter_seed: u64,
    /// What the model must produce, if given.
    pub expect: Option<Map<String, Value>>,
}

/// The read being modelled. There is no method field: only `GET` is accepted. Its `path` is
/// not kept: the model and the scenario API read the palettes path whatever the file names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// The query parameters (e.g. `collection`); empty when the file gives none.
    pub query: BTreeMap<String, String>,
}

impl Request {
    /// What a 2xx whose fixture gives no body sends: the data expected, with no palettes,
    /// `{"collection":"coast","palettes":[]}` (the collection from `query`, else empty).
    pub fn expected_data(&self) -> String {
        let collection = self.query.get("collection").map_or("", String::as_str);
        serde_json::json!({"collection": collection, "palettes": []}).to_string()
    }
}

impl Case {
    /// The policy a client plays this case with: the case's, trusting the local wall clock only
    /// where the case has one. With [`Case::wall_clock_at`] this is the one rule for clock
    /// evidence in a fixture: `wall_clock_at_zero` null or absent means no clock evidence but a
    /// response's own `Date`. The replay, the scenario API and the browser tests all use it.
    pub fn client_policy(&self) -> RetryPolicy {
        self.policy
            .clone()
            .with_trust_local_clock(self.wall_clock_at_zero.is_some())
    }

    /// The fixture's wall clock at `elapsed` (it advances exactly with elapsed time); `None`
    /// where the case has no clock evidence.
    pub fn wall_clock_at(&self, elapsed: Duration) -> Option<SystemTime> {
        self.wall_clock_at_zero.map(|w| w + elapsed)
    }
}

/// What one attempt observes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// From its start to its answer (or failure); `None` for an attempt that never answers.
    pub duration: Option<Duration>,
    /// What comes back.
    pub answer: Answer,
}

/// What comes back for an attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// An HTTP response.
    Response {
        /// Its status.
        status: u16,
        /// Its headers, as sent by the server.
        headers: Vec<(String, String)>,
        /// Its body, if it has one.
        body: Option<Body>,
    },
    /// (Extension) the network fails after `duration_s`: `"failure": "transport"`.
    TransportFailure,
    /// (Extension) no answer at all, so the cap aborts the attempt: `"failure": "no_answer"`.
    NoAnswer,
}

/// The longest body a fixture may stream (`body_bytes`): 1 GiB. Replaying one reads up to the
/// policy's `max_body_bytes` of it, as a browser would.
pub const MAX_FILLER: u64 = 1 << 30;

/// An answer's body: what the server sends, byte for byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// `"body": NAME`: an entry of the file's `bodies`, sent as its JSON text.
    Named {
        /// Its name in `bodies`.
        name: String,
        /// Its value there.
        value: Value,
    },
    /// (Extension) `"body_text": TEXT`: exactly this text, whatever it is (an HTML error page
    /// from a proxy, JSON cut short, JSON of another shape).
    Text(String),
    /// (Extension) `"body_bytes": N`: N bytes of a JSON array that never closes (`[0,0,0,…`),
    /// streamed with no `Content-Length` (a body too large to hold, arriving as it is made).
    Filler(u64),
}

impl Body {
    /// The body's bytes, in the chunks the scenario API sends them (a filler in 64 KiB chunks,
    /// made as they are taken, so not even the model holds it whole).
    pub fn chunks(&self) -> Box<dyn Iterator<Item = Vec<u8>> + Send + 'static> {
        const CHUNK: u64 = 64 * 1024;
        match self {
            Body::Named { value, .. } => Box::new(std::iter::once(value.to_string().into_bytes())),
            Body::Text(text) => Box::new(std::iter::once(text.clone().into_bytes())),
            Body::Filler(n) => {
                let n = *n;
                Box::new((0..n.div_ceil(CHUNK)).map(move |i| {
                    let len = CHUNK.min(n - i * CHUNK) as usize;
                    // "[0,0,0,…": after the bracket, odd offsets hold 0 and even ones a comma;
                    // a chunk starts at an even offset. Bulk copies, quick even in debug.
                    let mut chunk = if i == 0 { b"[".to_vec() } else { Vec::new() };
                    let unit: &[u8] = if i == 0 { b"0," } else { b",0" };
                    chunk.extend_from_slice(&unit.repeat(len.div_ceil(2)));
                    chunk.truncate(len);
                    chunk
                }))
            }
        }
    }
}

impl Answer {
    /// The value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        match self {
            Answer::Response { headers, .. } => headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str()),
            _ => None,
        }
    }
}

/// A whole file that cannot be read as a fixture.
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A top-level field is malformed.
    #[error("{field}: {problem}")]
    Field {
        /// The field.
        field: String,
        /// What is wrong.
        problem: String,
    },
}

/// A case the model refuses, naming the case and the field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("case {case}, {field}: {problem}")]
pub struct CaseError {
    /// The case's `id` (or its position when it has none).
    pub case: String,
    /// The field, as a path (`attempts[0].duration_s`).
    pub field: String,
    /// What is wrong.
    pub problem: String,
}

impl Fixture {
    /// Reads and parses a fixture file.
    pub fn load(path: &str) -> Result<Fixture, FixtureError> {
        let text = std::fs::read_to_string(path).map_err(|source| FixtureError::Io {
            path: path.to_owned(),
            source,
        })?;
        Fixture::parse(&text)
    }

    /// Parses fixture text.
    pub fn parse(text: &str) -> Result<Fixture, FixtureError> {
        let root: Value = serde_json::from_str(text)?;
        let top = |field: &str, problem: String| FixtureError::Field {
            field: field.to_owned(),
            problem,
        };
        let root = root.as_object().ok_or_else(|| {
            top(
                "(top level)",
                format!("must be an object, got {}", kind(&root)),
            )
        })?;
        for key in ["policy", "request"] {
            if let Some(v) = root.get(key).filter(|v| !v.is_object()) {
                return Err(top(key, format!("must be an object, got {}", kind(v))));
            }
        }
        let about = match root.get("about") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(v) => return Err(top("about", format!("must be a string, got {}", kind(v)))),
        };
        let bodies = match root.get("bodies") {
            None => BTreeMap::new(),
            Some(Value::Object(m)) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            Some(v) => return Err(top("bodies", format!("must be an object, got {}", kind(v)))),
        };
        let list = |key: &str, required: bool| -> Result<Vec<Value>, FixtureError> {
            match root.get(key) {
                None if !required => Ok(Vec::new()),
                None => Err(top(key, "is missing".into())),
                Some(Value::Array(a)) => Ok(a.clone()),
                Some(v) => Err(top(key, format!("must be an array, got {}", kind(v)))),
            }
        };
        let cases = list("cases", true)?;
        let invalid = list("invalid_fixtures", false)?;
        let scope_list = list("scopes", false)?;

        let defaults = Defaults {
            root,
            bodies: &bodies,
        };
        // Case and scope ids share one namespace: each names itself in the output and errors.
        let mut seen = HashSet::new();
        let mut unique = |id: &str| {
            if seen.insert(id.to_owned()) {
                Ok(())
            } else {
                Err(CaseError {
                    case: id.to_owned(),
                    field: "id".into(),
                    problem: "another case has the same id".into(),
                })
            }
        };
        let mut parsed = Vec::new();
        for (i, raw) in cases.iter().enumerate() {
            let case = defaults.case(raw, &format!("cases[{i}]"));
            parsed.push(case.and_then(|c| unique(&c.id).map(|()| c)));
        }
        let mut invalid_fixtures = Vec::new();
        for (i, raw) in invalid.iter().enumerate() {
            let at = format!("invalid_fixtures[{i}]");
            let obj = raw
                .as_object()
                .ok_or_else(|| top(&at, format!("must be an object, got {}", kind(raw))))?;
            let id = match obj.get("id") {
                Some(Value::String(s)) => s.clone(),
                _ => return Err(top(&format!("{at}.id"), "must be a string".into())),
            };
            let expect_error = match obj.get("expect_error") {
                Some(Value::String(s)) => s.clone(),
                _ => {
                    return Err(top(
                        &format!("{at}.expect_error"),
                        "must be a string".into(),
                    ))
                }
            };
            invalid_fixtures.push(InvalidFixture {
                source: obj.get("source").and_then(Value::as_str).map(str::to_owned),
                parsed: defaults.case(raw, &at),
                id,
                expect_error,
            });
        }
        let mut scopes = Vec::new();
        for (i, raw) in scope_list.iter().enumerate() {
            let scope = defaults.scope(raw, &format!("scopes[{i}]"));
            scopes.push(scope.and_then(|s| unique(&s.id).map(|()| s)));
        }
        Ok(Fixture {
            about,
            cases: parsed,
            invalid_fixtures,
            bodies,
            scopes,
        })
    }
}

/// The file-level values a case inherits.
struct Defaults<'a> {
    root: &'a Map<String, Value>,
    bodies: &'a BTreeMap<String, Value>,
}

/// Field access for one case, with errors that name the case and the field.
struct Fields<'a> {
    case: String,
    obj: &'a Map<String, Value>,
    prefix: String,
}

impl Fields<'_> {
    fn err(&self, field: &str, problem: impl fmt::Display) -> CaseError {
        CaseError {
            case: self.case.clone(),
            field: format!("{}{field}", self.prefix),
            problem: problem.to_string(),
        }
    }

    fn seconds(&self, field: &str, v: &Value) -> Result<Duration, CaseError> {
        seconds_from_json(v).map_err(|p| self.err(field, p))
    }

    fn opt_seconds(&self, field: &str) -> Result<Option<Duration>, CaseError> {
        match self.obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => self.seconds(field, v).map(Some),
        }
    }
}

/// A case or a scope: an object with a non-empty `id` and an optional `source` text. Until the
/// id is known, an error names the entry by its place `at`; `what` names the whole entry.
fn named<'v>(raw: &'v Value, at: &str, what: &str) -> Result<Named<'v>, CaseError> {
    let fail = |case: &str, field: &str, problem: String| CaseError {
        case: case.to_owned(),
        field: field.to_owned(),
        problem,
    };
    let obj = raw
        .as_object()
        .ok_or_else(|| fail(at, what, format!("must be an object, got {}", kind(raw))))?;
    let id = match obj.get("id") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        None => return Err(fail(at, "id", "is missing".into())),
        Some(v) => {
            return Err(fail(
                at,
                "id",
                format!("must be a non-empty string, got {}", kind(v)),
            ))
        }
    };
    let source = match obj.get("source") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(v) => {
            return Err(fail(
                &id,
                "source",
                format!("must be a string, got {}", kind(v)),
            ))
        }
    };
    Ok(Named { obj, id, source })
}

/// What [`named`] reads.
struct Named<'v> {
    obj: &'v Map<String, Value>,
    id: String,
    source: Option<String>,
}

impl Defaults<'_> {
    /// A `scopes` entry: an `id`, an optional `source`, and `actions`, each a case without an
    /// `id` plus its `start_s`.
    fn scope(&self, raw: &Value, at: &str) -> Result<ScopeCase, CaseError> {
        let fail = |case: &str, field: &str, problem: String| CaseError {
            case: case.to_owned(),
            field: field.to_owned(),
            problem,
        };
        let Named { obj, id, source } = named(raw, at, "(scope)")?;
        let list = match obj.get("actions") {
            Some(Value::Array(a)) if !a.is_empty() => a,
            Some(Value::Array(_)) => return Err(fail(&id, "actions", "is empty".into())),
            None => return Err(fail(&id, "actions", "is missing".into())),
            Some(v) => {
                return Err(fail(
                    &id,
                    "actions",
                    format!("must be an array, got {}", kind(v)),
                ))
            }
        };
        let mut actions = Vec::new();
        for (n, raw) in list.iter().enumerate() {
            let field = format!("actions[{n}]");
            let Some(action) = raw.as_object() else {
                return Err(fail(
                    &id,
                    &field,
                    format!("must be an object, got {}", kind(raw)),
                ));
            };
            if action.contains_key("id") {
                return Err(fail(
                    &id,
                    &format!("{field}.id"),
                    "an action is named by its place; give the id to the scope".into(),
                ));
            }
            let start = match action.get("start_s") {
                None => return Err(fail(&id, &format!("{field}.start_s"), "is missing".into())),
                Some(v) => {
                    seconds_from_json(v).map_err(|p| fail(&id, &format!("{field}.start_s"), p))?
                }
            };
            let mut named = action.clone();
            named.insert("id".into(), Value::String(format!("{id}#{}", n + 1)));
            let case = self.case(&Value::Object(named), &field)?;
            actions.push(ScopeAction { start, case });
        }
        Ok(ScopeCase {
            id,
            source,
            actions,
        })
    }

    fn case(&self, raw: &Value, at: &str) -> Result<Case, CaseError> {
        let Named { obj, id, source } = named(raw, at, "(case)")?;
        let f = Fields {
            case: id.clone(),
            obj,
            prefix: String::new(),
        };
        let policy = self.policy(&f)?;
        let request = self.request(&f)?;
        let wall_clock_at_zero =
            match obj
                .get("wall_clock_at_zero")
                .or_else(|| self.root.get("wall_clock_at_zero"))
            {
                // Absent, like null: no usable clock evidence.
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(httpdate::parse_http_date(s).map_err(|_| {
                    f.err("wall_clock_at_zero", format!("{s:?} is not an HTTP date"))
                })?),
                Some(v) => {
                    return Err(f.err(
                        "wall_clock_at_zero",
                        format!("must be an HTTP date or null, got {}", kind(v)),
                    ))
                }
            };
        let attempts = match obj.get("attempts") {
            Some(Value::Array(a)) if !a.is_empty() => a,
            Some(Value::Array(_)) => {
                return Err(f.err("attempts", "is empty: the first attempt always starts"))
            }
            Some(v) => return Err(f.err("attempts", format!("must be an array, got {}", kind(v)))),
            None => return Err(f.err("attempts", "is missing")),
        };
        let attempts = attempts
            .iter()
            .enumerate()
            .map(|(i, a)| self.attempt(&f, i, a, &policy, &request))
            .collect::<Result<Vec<_>, _>>()?;
        let user_leaves_at = f.opt_seconds("user_leaves_at_s")?;
        let timer_late_by = match obj.get("timer_late_by_s") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| f.seconds(&format!("timer_late_by_s[{i}]"), v))
                .collect::<Result<_, _>>()?,
            Some(v) => {
                return Err(f.err(
                    "timer_late_by_s",
                    format!("must be an array, got {}", kind(v)),
                ))
            }
        };
        // (Extension) the seed of the policy's jitter; absent, 0.
        let jitter_seed = match obj.get("jitter_seed") {
            None | Some(Value::Null) => 0,
            Some(v) => v.as_u64().ok_or_else(|| {
                f.err(
                    "jitter_seed",
                    format!("must be a whole number from 0 to 2^64 - 1, got {v}"),
                )
            })?,
        };
        let expect = match obj.get("expect") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(
                expect::check(m)
                    .map_err(|(key, problem)| f.err(&format!("expect.{key}"), problem))?,
            ),
            Some(v) => return Err(f.err("expect", format!("must be an object, got {}", kind(v)))),
        };
        Ok(Case {
            id,
            source,
            policy,
            request,
            wall_clock_at_zero,
            attempts,
            user_leaves_at,
            timer_late_by,
            jitter_seed,
            expect,
        })
    }

    /// The file's policy with the case's overrides, key by key.
    fn policy(&self, f: &Fields) -> Result<RetryPolicy, CaseError> {
        let mut merged = Map::new();
        for source in [self.root.get("policy"), f.obj.get("policy")]
            .into_iter()
            .flatten()
        {
            let m = source.as_object().ok_or_else(|| {
                f.err("policy", format!("must be an object, got {}", kind(source)))
            })?;
            merged.extend(m.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let get = |key: &str| {
            merged
                .get(key)
                .ok_or_else(|| f.err(&format!("policy.{key}"), "is missing"))
        };
        let secs_of = |key: &str| get(key).and_then(|v| f.seconds(&format!("policy.{key}"), v));
        let budget = secs_of("budget_s")?;
        let cap = secs_of("attempt_cap_s")?;
        let min_wait = secs_of("min_wait_s")?;
        let max_attempts = get("max_attempts")?;
        let max_attempts = max_attempts
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| {
                f.err(
                    "policy.max_attempts",
                    format!(
                        "must be a whole number from 0 to {}, got {max_attempts}",
                        u32::MAX
                    ),
                )
            })?;
        let statuses = get("retry_statuses")?
            .as_array()
            .ok_or_else(|| f.err("policy.retry_statuses", "must be an array of HTTP statuses"))?;
        let mut set = StatusSet::new();
        for (i, v) in statuses.iter().enumerate() {
            set =
                set.with(status(v).map_err(|p| f.err(&format!("policy.retry_statuses[{i}]"), p))?);
        }
        let fallback = get("fallback_waits_s")?
            .as_array()
            .ok_or_else(|| f.err("policy.fallback_waits_s", "must be an array of seconds"))?
            .iter()
            .enumerate()
            .map(|(i, v)| f.seconds(&format!("policy.fallback_waits_s[{i}]"), v))
            .collect::<Result<Vec<_>, _>>()?;
        // (Extension) the largest body read; absent, the library's default.
        let max_body_bytes = match merged.get("max_body_bytes") {
            None | Some(Value::Null) => DEFAULT_MAX_BODY_BYTES,
            Some(v) => v.as_u64().ok_or_else(|| {
                f.err(
                    "policy.max_body_bytes",
                    format!("must be a whole number of bytes, got {v}"),
                )
            })?,
        };
        // (Extensions) a whole number, or absent.
        let whole = |key: &str, unit: &str| match merged.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| {
                    f.err(
                        &format!("policy.{key}"),
                        format!("must be a whole number of {unit}, got {v}"),
                    )
                }),
        };
        // Jitter on the waits the client chooses; absent, off.
        let jitter = whole("jitter_percent", "percent")?.unwrap_or(0);
        // The most requests to the scope in flight at once; absent, no limit.
        let in_flight = whole("in_flight_limit", "requests")?;
        let mut policy = RetryPolicy::new()
            .with_jitter(jitter)
            .with_max_body_bytes(max_body_bytes)
            .with_budget(budget)
            .with_max_attempts(max_attempts)
            .with_attempt_cap(cap)
            .with_retry_statuses(set)
            .with_min_wait(min_wait)
            .with_fallback_waits(fallback);
        if let Some(n) = in_flight {
            policy = policy.with_in_flight_limit(n);
        }
        policy.validate().map_err(|e| f.err("policy", e))?;
        Ok(policy)
    }

    /// The file's request with the case's overrides; only `GET` is accepted.
    fn request(&self, f: &Fields) -> Result<Request, CaseError> {
        let mut merged = Map::new();
        for source in [self.root.get("request"), f.obj.get("request")]
            .into_iter()
            .flatten()
        {
            let m = source.as_object().ok_or_else(|| {
                f.err(
                    "request",
                    format!("must be an object, got {}", kind(source)),
                )
            })?;
            merged.extend(m.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        match merged.get("method") {
            // Absent (or no request at all): a GET, the only read there is.
            None => {}
            Some(Value::String(m)) if m == "GET" => {}
            Some(Value::String(m)) => {
                return Err(f.err(
                    "request.method",
                    format!("is {m:?}: the read action accepts GET only, and no write is retried"),
                ))
            }
            Some(v) => {
                return Err(f.err(
                    "request.method",
                    format!("must be \"GET\", got {}", kind(v)),
                ))
            }
        }
        let mut query = BTreeMap::new();
        match merged.get("query") {
            None => {}
            Some(Value::Object(q)) => {
                for (k, v) in q {
                    let v = v.as_str().ok_or_else(|| {
                        f.err(
                            &format!("request.query.{k}"),
                            format!("must be a string, got {}", kind(v)),
                        )
                    })?;
                    query.insert(k.clone(), v.to_owned());
                }
            }
            Some(v) => {
                return Err(f.err(
                    "request.query",
                    format!("must be an object, got {}", kind(v)),
                ))
            }
        }
        Ok(Request { query })
    }

    fn attempt(
        &self,
        f: &Fields,
        i: usize,
        raw: &Value,
        policy: &RetryPolicy,
        request: &Request,
    ) -> Result<Attempt, CaseError> {
        let at = format!("attempts[{i}]");
        let obj = raw
            .as_object()
            .ok_or_else(|| f.err(&at, format!("must be an object, got {}", kind(raw))))?;
        let a = Fields {
            case: f.case.clone(),
            obj,
            prefix: format!("{at}."),
        };
        let duration = a.opt_seconds("duration_s")?;
        if let Some(d) = duration {
            if d > policy.attempt_cap() {
                return Err(a.err(
                    "duration_s",
                    format!(
                        "attempt {} lasts {} s, beyond the {} s per-attempt cap",
                        i + 1,
                        seconds_text(d, Precision::Exact),
                        seconds_text(policy.attempt_cap(), Precision::Exact)
                    ),
                ));
            }
        }
        let failure = match obj.get("failure") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(v) => {
                return Err(a.err(
                    "failure",
                    format!("must be \"transport\" or \"no_answer\", got {}", kind(v)),
                ))
            }
        };
        // The keys that give this attempt a body: at most one, and none on a failure.
        let bodies_given: Vec<&str> = ["body", "body_text", "body_bytes"]
            .into_iter()
            .filter(|k| obj.get(*k).is_some_and(|v| !v.is_null()))
            .collect();
        let answer = match (failure, obj.get("status")) {
            (Some(_), Some(_)) => {
                return Err(a.err("failure", "an attempt that fails has no status"))
            }
            (Some("transport"), None) => {
                if duration.is_none() {
                    return Err(a.err("duration_s", "is missing (when does the transport fail?)"));
                }
                Answer::TransportFailure
            }
            (Some("no_answer"), None) => {
                if duration.is_some() {
                    return Err(a.err(
                        "duration_s",
                        "must be absent: an attempt with no answer runs to its cap",
                    ));
                }
                Answer::NoAnswer
            }
            (Some(other), None) => {
                return Err(a.err(
                    "failure",
                    format!("{other:?} is not \"transport\" or \"no_answer\""),
                ))
            }
            (None, None) => return Err(a.err("status", "is missing")),
            (None, Some(v)) => {
                if duration.is_none() {
                    return Err(a.err("duration_s", "is missing"));
                }
                let status = status(v).map_err(|p| a.err("status", p))?;
                let mut headers: Vec<(String, String)> = Vec::new();
                match obj.get("headers") {
                    None | Some(Value::Null) => {}
                    Some(Value::Object(h)) => {
                        for (k, v) in h {
                            let v = v.as_str().ok_or_else(|| {
                                a.err(
                                    &format!("headers.{k}"),
                                    format!("must be a string, got {}", kind(v)),
                                )
                            })?;
                            if headers.iter().any(|(seen, _)| seen.eq_ignore_ascii_case(k)) {
                                return Err(a.err(
                                    &format!("headers.{k}"),
                                    "is given twice (header names ignore case)",
                                ));
                            }
                            headers.push((k.clone(), v.to_owned()));
                        }
                    }
                    Some(v) => {
                        return Err(a.err("headers", format!("must be an object, got {}", kind(v))))
                    }
                }
                if let [first, second, ..] = bodies_given[..] {
                    return Err(a.err(
                        second,
                        format!("an attempt has one body, and {first} is given"),
                    ));
                }
                let body = match (obj.get("body"), obj.get("body_text"), obj.get("body_bytes")) {
                    (Some(Value::String(name)), _, _) if self.bodies.contains_key(name) => {
                        Some(Body::Named {
                            name: name.clone(),
                            value: self.bodies[name].clone(),
                        })
                    }
                    (Some(Value::String(name)), _, _) => {
                        return Err(a.err("body", format!("{name:?} is not in the file's bodies")))
                    }
                    (Some(v), _, _) if !v.is_null() => {
                        return Err(
                            a.err("body", format!("must name one of bodies, got {}", kind(v)))
                        )
                    }
                    (_, Some(Value::String(text)), _) => Some(Body::Text(text.clone())),
                    (_, Some(v), _) if !v.is_null() => {
                        return Err(a.err("body_text", format!("must be a string, got {}", kind(v))))
                    }
                    (_, _, Some(v)) if !v.is_null() => match v.as_u64() {
                        Some(n) if n <= MAX_FILLER => Some(Body::Filler(n)),
                        Some(n) => {
                            return Err(a.err(
                                "body_bytes",
                                format!("{n} is more than the {MAX_FILLER} bytes (1 GiB) a fixture may stream"),
                            ))
                        }
                        None => {
                            return Err(a.err(
                                "body_bytes",
                                format!("must be a whole number of bytes, got {v}"),
                            ))
                        }
                    },
                    // Not given: a 2xx is sent the data expected, so that a file about timing
                    // needs no bodies (a 204 or 205 carries none).
                    _ if is_success(status) && !matches!(status, 204 | 205) => {
                        Some(Body::Text(request.expected_data()))
                    }
                    _ => None,
                };
                Answer::Response {
                    status,
                    headers,
                    body,
                }
            }
        };
        if let (Some(_), Some(key)) = (failure, bodies_given.first()) {
            return Err(a.err(key, "an attempt that fails has no body"));
        }
        Ok(Attempt { duration, answer })
    }
}

/// A JSON number of seconds, the format's one rule for reading them: not negative; whole
/// numbers exactly; others to the nanosecond; and a number at or beyond `u64::MAX` seconds
/// saturates there, as delay-seconds do (JSON reads `99999999999999999999999` as 1e23).
pub fn seconds_from_json(v: &Value) -> Result<Duration, String> {
    if let Some(whole) = v.as_u64() {
        return Ok(Duration::from_secs(whole));
    }
    let Some(x) = v.as_f64() else {
        return Err(format!("must be a number of seconds, got {}", kind(v)));
    };
    if x < 0.0 {
        return Err(format!("{v} is negative"));
    }
    // 2^64 as f64: every larger value (and u64::MAX itself, which rounds to it) saturates.
    const SATURATED: f64 = 18_446_744_073_709_551_616.0;
    if x >= SATURATED {
        return Ok(Duration::from_secs(u64::MAX));
    }
    let nanos = (x * 1e9).round();
    if nanos < u64::MAX as f64 {
        return Ok(Duration::from_nanos(nanos as u64));
    }
    // Too many nanoseconds for a u64, fewer seconds than 2^64: whole seconds are exact enough.
    Ok(Duration::from_secs_f64(x))
}

/// A duration as a JSON number of seconds, the format's one rule for writing them: a whole
/// number when whole, else the shortest decimal that reads back as the same `f64`.
pub fn seconds_to_json(d: Duration) -> Value {
    let text = seconds_text(d, Precision::Exact);
    match text.parse::<u64>() {
        Ok(whole) => Value::from(whole),
        Err(_) => text.parse::<f64>().map_or(Value::Null, Value::from),
    }
}

pub(crate) fn status(v: &Value) -> Result<u16, String> {
    v.as_u64()
        .filter(|s| (100..=599).contains(s))
        .map(|s| s as u16)
        .ok_or_else(|| format!("{v} is not an HTTP status (100-599)"))
}

pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
