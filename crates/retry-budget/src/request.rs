//! What a budgeted read asks the API for: a `GET` of a URL, with the headers and the
//! credentials mode the API needs. Header values are secrets: they are sent, compared and
//! dropped, and never shown (not by `Debug`, not in an error, the trace or a message).

use std::fmt;

use crate::shown::quoted;

/// A `GET` of `url` with its headers, as a budgeted read sends it on every attempt. Built with
/// [`get`](Self::get) and the `with_*` builders; a `String` or `&str` is a plain `GET`.
///
/// ```
/// use retry_budget::request::{Credentials, ReadRequest};
///
/// let request = ReadRequest::get("https://api.example.com/v1/items?page=2")
///     .with_header("Authorization", "Bearer s3cret")
///     .with_credentials(Credentials::Include);
/// assert!(request.validate().is_ok());
/// assert!(!format!("{request:?}").contains("s3cret"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ReadRequest {
    url: String,
    headers: Vec<(String, String)>,
    credentials: Credentials,
}

/// Whether the browser sends cookies and HTTP authentication with the request: the fetch
/// `credentials` mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Credentials {
    /// Only to the page's own origin (the fetch default).
    #[default]
    SameOrigin,
    /// To any origin (a cross-origin API must then answer with
    /// `Access-Control-Allow-Credentials: true` and name the page's origin).
    Include,
    /// Never.
    Omit,
}

/// Why a request cannot be sent as described. Each names the header, never its value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// A header name that is not an HTTP token (RFC 9110 §5.6.2).
    #[error("header name {} is not an HTTP token", quoted(.0))]
    NotAToken(String),
    /// A header the browser never lets a page set: it would be dropped without a word.
    #[error("header {0} is one a browser never lets a page set")]
    Forbidden(String),
    /// A header a server's HTTP client sets itself (`Host`, `Content-Length`, a hop-by-hop
    /// one): given by hand it would clash.
    #[error("header {0} is one the HTTP client sets itself; give it none")]
    ClientSet(String),
    /// A header that asks the server for another method: this read is `GET` only.
    #[error("header {0} asks the server for another method; these reads are GET only")]
    MethodOverride(String),
    /// The same header given twice.
    #[error("header {0} is given twice; give it once")]
    Twice(String),
    /// A value no header can carry: a line break, a control character, a character past
    /// U+00FF, or white space at either end (which the browser would strip).
    #[error("the value of header {0} cannot be sent as it is")]
    BadValue(String),
}

impl ReadRequest {
    /// A `GET` of `url` (relative to the page, or absolute), with no headers of its own and the
    /// fetch default credentials mode ([`Credentials::SameOrigin`]).
    pub fn get(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headers: Vec::new(),
            credentials: Credentials::SameOrigin,
        }
    }

    /// Adds header `name: value` to every attempt (`Authorization`, an API key header).
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sets the credentials mode (default: [`Credentials::SameOrigin`]).
    pub fn with_credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = credentials;
        self
    }

    /// The URL read.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The headers sent, in order: name and value.
    pub fn headers(&self) -> impl Iterator<Item = (&str, &str)> {
        self.headers.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// The credentials mode.
    pub fn credentials(&self) -> Credentials {
        self.credentials
    }

    /// Whether the request can be sent as described from a browser: every header name a token,
    /// given once, one a page may set and not a method override, and every value one a header
    /// can carry. A read whose request is not valid is refused before anything is sent.
    pub fn validate(&self) -> Result<(), RequestError> {
        self.check(|lower| {
            (FORBIDDEN.contains(&lower) || lower.starts_with("proxy-") || lower.starts_with("sec-"))
                .then_some(RequestError::Forbidden as fn(String) -> RequestError)
        })
    }

    /// [`validate`](Self::validate) as a server sends it: a server may send what a browser
    /// keeps to itself (`Cookie`, to forward a visitor's session; `Origin`; `Referer`), but not
    /// the headers its HTTP client sets itself (`Host`, `Content-Length`, the hop-by-hop ones).
    pub fn validate_on_server(&self) -> Result<(), RequestError> {
        self.check(|lower| {
            CLIENT_SET
                .contains(&lower)
                .then_some(RequestError::ClientSet as fn(String) -> RequestError)
        })
    }

    /// The checks both places share, with `refused` saying which names this place refuses.
    fn check(
        &self,
        refused: impl Fn(&str) -> Option<fn(String) -> RequestError>,
    ) -> Result<(), RequestError> {
        for (i, (name, value)) in self.headers.iter().enumerate() {
            if !is_token(name) {
                return Err(RequestError::NotAToken(name.clone()));
            }
            let lower = name.to_ascii_lowercase();
            if METHOD_OVERRIDES.contains(&lower.as_str()) {
                return Err(RequestError::MethodOverride(name.clone()));
            }
            if let Some(error) = refused(&lower) {
                return Err(error(name.clone()));
            }
            if self.headers[..i]
                .iter()
                .any(|(earlier, _)| earlier.eq_ignore_ascii_case(name))
            {
                return Err(RequestError::Twice(name.clone()));
            }
            if !sendable(value) {
                return Err(RequestError::BadValue(name.clone()));
            }
        }
        Ok(())
    }
}

// The two rules below are RFC 9110's, written here rather than taken from the `http` crate
// (which an embedder's tree already holds) because its parsers cost a browser app about 8 KB
// gzipped: `HeaderName` carries its table of standard names, `HeaderValue` copies into `Bytes`.
// `tests/header_oracle.rs` holds both to `http` on arbitrary input.

/// A token (RFC 9110 §5.6.2): one or more of the visible ASCII characters that are not
/// delimiters.
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Whether `value` goes out as it is: every character a byte the browser's `Headers` takes
/// (at most U+00FF) and a field value may hold (RFC 9110 §5.5: visible ASCII, obs-text, space
/// and tab; no control character), with no white space at either end for the browser to strip.
fn sendable(value: &str) -> bool {
    let edge = |c: char| c == ' ' || c == '\t';
    !value.starts_with(edge)
        && !value.ends_with(edge)
        && value
            .chars()
            .all(|c| c == '\t' || (c >= ' ' && c != '\u{7f}' && c <= '\u{ff}'))
}

/// The Fetch standard's forbidden request-header names, lowercase (`proxy-` and `sec-` names
/// are forbidden too).
const FORBIDDEN: [&str; 21] = [
    "accept-charset",
    "accept-encoding",
    "access-control-request-headers",
    "access-control-request-method",
    "connection",
    "content-length",
    "cookie",
    "cookie2",
    "date",
    "dnt",
    "expect",
    "host",
    "keep-alive",
    "origin",
    "referer",
    "set-cookie",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "via",
];

/// The headers a server's HTTP client sets itself, lowercase: given by hand they would clash
/// with its own.
const CLIENT_SET: [&str; 9] = [
    "connection",
    "content-length",
    "expect",
    "host",
    "keep-alive",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// Headers that ask a server to treat a request as another method.
const METHOD_OVERRIDES: [&str; 3] = [
    "x-http-method",
    "x-http-method-override",
    "x-method-override",
];

impl From<String> for ReadRequest {
    fn from(url: String) -> Self {
        Self::get(url)
    }
}

impl From<&str> for ReadRequest {
    fn from(url: &str) -> Self {
        Self::get(url)
    }
}

/// Shows the URL, the credentials mode and the header names; every value is hidden.
impl fmt::Debug for ReadRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Hidden<'a>(&'a [(String, String)]);
        impl fmt::Debug for Hidden<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_map()
                    .entries(self.0.iter().map(|(n, _)| (n, format_args!("(hidden)"))))
                    .finish()
            }
        }
        f.debug_struct("ReadRequest")
            .field("url", &self.url)
            .field("headers", &Hidden(&self.headers))
            .field("credentials", &self.credentials)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(name: &str, value: &str) -> Result<(), RequestError> {
        ReadRequest::get("/x").with_header(name, value).validate()
    }

    #[test]
    fn the_headers_an_api_needs_are_sent() {
        for (name, value) in [
            ("Authorization", "Bearer abc.def-ghi"),
            ("X-Api-Key", "k"),
            ("Accept", "application/json"),
            ("If-None-Match", "W/\"1\""),
            ("X-Note", "caf\u{e9}"), // Latin-1: a byte string
        ] {
            assert_eq!(with(name, value), Ok(()), "{name}");
        }
    }

    #[test]
    fn what_cannot_be_sent_is_refused_by_name() {
        let cases = [
            ("Bad Name", "v", RequestError::NotAToken("Bad Name".into())),
            ("", "v", RequestError::NotAToken(String::new())),
            ("Cookie", "a=b", RequestError::Forbidden("Cookie".into())),
            (
                "proxy-authorization",
                "x",
                RequestError::Forbidden("proxy-authorization".into()),
            ),
            (
                "Sec-Fetch-Mode",
                "x",
                RequestError::Forbidden("Sec-Fetch-Mode".into()),
            ),
            (
                "X-HTTP-Method-Override",
                "DELETE",
                RequestError::MethodOverride("X-HTTP-Method-Override".into()),
            ),
            (
                "X-Key",
                "a\r\nSet-Cookie: b",
                RequestError::BadValue("X-Key".into()),
            ),
            ("X-Key", "a\u{0}", RequestError::BadValue("X-Key".into())),
            ("X-Key", "\u{20ac}", RequestError::BadValue("X-Key".into())),
            ("X-Key", " padded", RequestError::BadValue("X-Key".into())),
        ];
        for (name, value, expected) in cases {
            assert_eq!(with(name, value), Err(expected), "{name}: {value:?}");
        }
        let twice = ReadRequest::get("/x")
            .with_header("Authorization", "a")
            .with_header("authorization", "b");
        assert_eq!(
            twice.validate(),
            Err(RequestError::Twice("authorization".into()))
        );
    }

    #[test]
    fn a_server_may_send_what_a_browser_keeps_but_not_what_its_client_sets() {
        let on_server = |name: &str, value: &str| {
            ReadRequest::get("/x")
                .with_header(name, value)
                .validate_on_server()
        };
        for (name, value) in [
            ("Cookie", "session=v"),
            ("Origin", "https://app.example"),
            ("Sec-Fetch-Mode", "cors"),
        ] {
            assert_eq!(on_server(name, value), Ok(()), "{name}");
            assert_eq!(
                with(name, value),
                Err(RequestError::Forbidden(name.into())),
                "{name}"
            );
        }
        assert_eq!(
            on_server("Host", "internal"),
            Err(RequestError::ClientSet("Host".into()))
        );
        assert_eq!(
            RequestError::ClientSet("Host".into()).to_string(),
            "header Host is one the HTTP client sets itself; give it none"
        );
        // What both places refuse, the server refuses too.
        assert_eq!(
            on_server("X-HTTP-Method-Override", "DELETE"),
            Err(RequestError::MethodOverride(
                "X-HTTP-Method-Override".into()
            ))
        );
        assert_eq!(
            on_server("Cookie", "a\r\nb"),
            Err(RequestError::BadValue("Cookie".into()))
        );
    }

    #[test]
    fn no_value_is_ever_shown() {
        const SECRET: &str = "tok-6f1c-SECRET";
        let request = ReadRequest::get("/x")
            .with_header("Authorization", format!("Bearer {SECRET}"))
            .with_header("X-Key", format!("{SECRET}\n"));
        let shown = format!("{request:?} {request:#?}");
        assert!(!shown.contains(SECRET), "{shown}");
        assert!(
            shown.contains("Authorization") && shown.contains("X-Key"),
            "{shown}"
        );
        let error = request.validate().unwrap_err();
        let said = format!("{error} {error:?}");
        assert!(!said.contains(SECRET) && said.contains("X-Key"), "{said}");
    }
}
