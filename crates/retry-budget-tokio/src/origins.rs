//! The origins a server may read. A URL built from a visitor's input (a collection's name, a
//! path) could point anywhere, and a server that fetches what a visitor names is the classic
//! server-side request forgery: every read's URL, and every redirect, must be on an origin the
//! app allowed.

use reqwest::Url;

use crate::error::OriginError;

/// The origins a [`Client`](crate::Client) may read, each `scheme://host[:port]`.
///
/// ```
/// use retry_budget_tokio::{AllowedOrigins, OriginError};
///
/// let allowed = AllowedOrigins::new(["https://api.example.com"]).unwrap();
/// assert_eq!(
///     allowed.check("https://api.example.com/v1/items?page=2").unwrap(),
///     "https://api.example.com"
/// );
/// assert_eq!(
///     allowed.check("http://169.254.169.254/latest/meta-data"),
///     Err(OriginError::NotAllowed("http://169.254.169.254".into()))
/// );
/// assert_eq!(allowed.check("file:///etc/passwd"), Err(OriginError::Scheme("file".into())));
/// assert_eq!(allowed.check("/palettes"), Err(OriginError::NotAbsolute));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowedOrigins(Vec<String>);

impl AllowedOrigins {
    /// These origins, each given as a URL (only its origin counts). Refused, by name, if one is
    /// not an absolute `http` or `https` URL.
    pub fn new<I>(origins: I) -> Result<Self, OriginError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let origins = (origins.into_iter())
            .map(|o| origin_of(o.as_ref()))
            .collect::<Result<_, _>>()?;
        Ok(Self(origins))
    }

    /// The origin of `url` (`https://api.example.com`), if it is one of these; refused by name
    /// otherwise.
    pub fn check(&self, url: &str) -> Result<String, OriginError> {
        let origin = origin_of(url)?;
        if self.0.contains(&origin) {
            Ok(origin)
        } else {
            Err(OriginError::NotAllowed(origin))
        }
    }

    /// Whether `url`, already parsed (a redirect's target), is on one of these origins.
    pub(crate) fn allows(&self, url: &Url) -> bool {
        self.0.contains(&url.origin().ascii_serialization())
    }

    /// The redirect policy that keeps a `reqwest` client on these origins: a redirect is
    /// followed only to one of them, at most 10 in a row; any other is not followed, and the
    /// `3xx` itself is the answer. [`Client::with_http`](crate::Client::with_http) sets it on
    /// the client it builds; give it to the client under a [`Budget`](crate::Budget)
    /// (`reqwest::ClientBuilder::redirect`).
    pub fn redirect_policy(&self) -> reqwest::redirect::Policy {
        let allowed = self.clone();
        reqwest::redirect::Policy::custom(move |to| {
            if to.previous().len() < 10 && allowed.allows(to.url()) {
                to.follow()
            } else {
                to.stop()
            }
        })
    }
}

/// The origin of an absolute `http` or `https` URL.
fn origin_of(url: &str) -> Result<String, OriginError> {
    let url = Url::parse(url).map_err(|_| OriginError::NotAbsolute)?;
    match url.scheme() {
        "http" | "https" => Ok(url.origin().ascii_serialization()),
        other => Err(OriginError::Scheme(other.to_owned())),
    }
}
