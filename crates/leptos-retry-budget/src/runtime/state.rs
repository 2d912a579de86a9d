//! What a read is and shows, which every part of the runtime names: its state
//! ([`ReadState`]), why it could not start ([`Misconfigured`]), what its data and its parser
//! must be in each rendering mode ([`ReadData`], [`Parse`]), and the signals a driver writes
//! to (`View`). A leaf: it imports nothing of the runtime.

use std::time::Duration;

use leptos::prelude::*;

use retry_budget::action::WaitReason;
use retry_budget::body::BodyProblem;
use retry_budget::policy::PolicyError;
use retry_budget::request::RequestError;
use retry_budget::wire::HandOverError;
use retry_budget::StopReport;

/// What a budgeted read shows at any moment.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadState<T> {
    /// Attempt `attempt` of `of` is in flight (also the initial state, and all the server renders).
    Loading {
        /// Which attempt.
        attempt: u32,
        /// Attempts allowed.
        of: u32,
    },
    /// Waiting before attempt `next`.
    Waiting {
        /// The attempt that comes next.
        next: u32,
        /// Attempts allowed.
        of: u32,
        /// When it starts, on the runtime's monotonic clock (`now()` in the browser).
        until: Duration,
        /// Why this long.
        reason: WaitReason,
    },
    /// Attempt `next` is queued for a place among its scope's requests in flight (the policy's
    /// [`in_flight_limit`](retry_budget::ScopePolicy::in_flight_limit)).
    Queued {
        /// The attempt that comes next.
        next: u32,
        /// Attempts allowed.
        of: u32,
        /// The most requests to the scope in flight at once.
        limit: u32,
    },
    /// The data arrived.
    Loaded {
        /// The data.
        data: T,
        /// How the action ended (succeeded), for its attempts and elapsed time.
        report: StopReport,
    },
    /// The action stopped without data; the report says why.
    Stopped(StopReport),
    /// The policy or the request is not valid, so no action could start and nothing was sent.
    Refused(Misconfigured),
}

/// Why a read could not start. It names what was wrong, never a header's value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Misconfigured {
    /// The policy is not valid ([`RetryPolicy::validate`](retry_budget::RetryPolicy::validate)).
    #[error("This read is misconfigured: {0}")]
    Policy(#[from] PolicyError),
    /// The request cannot be sent as described ([`ReadRequest::validate`](retry_budget::request::ReadRequest::validate)).
    #[error("This read is misconfigured: {0}")]
    Request(#[from] RequestError),
    /// What the server's render knew of the read cannot be taken up here: the server refused
    /// to send it, or its hand-over cannot be read. Only a server-rendered page has one.
    #[error("This read is misconfigured: {0}")]
    FromServer(ServerRefusal),
}

/// Why a read could not go on from what the server's render knew of it (see
/// [`hand_over_error`](Self::hand_over_error)). A CSR app never has one: without `ssr` or
/// `hydrate` this type has no values, so none of its words are compiled into the app.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerRefusal(refusal::Refusal);

impl ServerRefusal {
    /// Why the server's hand-over could not be read, where that is the refusal; `None` where
    /// the server refused to send the read.
    pub fn hand_over_error(&self) -> Option<&HandOverError> {
        self.0.hand_over_error()
    }
}

impl std::fmt::Display for ServerRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The refusals where a page may meet them: on a server that reads while it renders, and in a
/// hydrating browser.
#[cfg(any(feature = "ssr", feature = "hydrate"))]
mod refusal {
    use retry_budget::wire::HandOverError;

    use super::ServerRefusal;

    #[derive(Clone, Debug, PartialEq, Eq)]
    pub(super) enum Refusal {
        /// The server refused to send the read it was to make while rendering (a URL it may
        /// not read, say); its log says why, as its request is its own.
        OnServer,
        /// The server handed the read over, and this page cannot read the hand-over (a page
        /// of another version, say). Nothing is sent: the server may just have been told to
        /// wait.
        HandOver(HandOverError),
    }

    impl ServerRefusal {
        /// The server refused to send the read; its log says why.
        pub(crate) const ON_SERVER: Self = ServerRefusal(Refusal::OnServer);

        /// The page cannot read the server's hand-over, for `why`.
        pub(crate) fn hand_over(why: HandOverError) -> Self {
            ServerRefusal(Refusal::HandOver(why))
        }
    }

    impl Refusal {
        pub(super) fn hand_over_error(&self) -> Option<&HandOverError> {
            match self {
                Refusal::OnServer => None,
                Refusal::HandOver(why) => Some(why),
            }
        }
    }

    impl std::fmt::Display for Refusal {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self {
                Refusal::OnServer => {
                    f.write_str("the server refused to send it (its log says why).")
                }
                Refusal::HandOver(why) => {
                    write!(f, "the server's hand-over cannot be read: {why}.")
                }
            }
        }
    }
}

/// Where no server's read crosses to the page (a CSR app, a render that does not read), no
/// refusal of the server's has a value.
#[cfg(not(any(feature = "ssr", feature = "hydrate")))]
mod refusal {
    use retry_budget::wire::HandOverError;

    #[derive(Clone, Debug, PartialEq, Eq)]
    pub(super) enum Refusal {}

    impl Refusal {
        pub(super) fn hand_over_error(&self) -> Option<&HandOverError> {
            match *self {}
        }
    }

    impl std::fmt::Display for Refusal {
        fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match *self {}
        }
    }
}

/// What a read's data must be, in every rendering mode alike (as a Leptos `Resource`'s): `Clone`,
/// as every screen of a shared read gets its own copy; `Send + Sync`, since a server may render
/// on any of its threads; and `Serialize`, as a server that reads while it renders writes it
/// into the HTML (the browser reads it back with the read's own parser). So an app that turns
/// `ssr` on later changes none of its types.
///
/// ```
/// fn is_read_data<T: leptos_retry_budget::ReadData>() {}
/// is_read_data::<Vec<String>>();
/// ```
///
/// Data only one thread may hold is refused in every build, not only once `ssr` is on:
///
/// ```compile_fail
/// fn is_read_data<T: leptos_retry_budget::ReadData>() {}
/// is_read_data::<std::rc::Rc<String>>();
/// ```
pub trait ReadData: Clone + Send + Sync + serde::Serialize + 'static {}
impl<T: Clone + Send + Sync + serde::Serialize + 'static> ReadData for T {}

/// How a 2xx body becomes a read's data: any closure that is `Send + Sync`, in every rendering
/// mode alike, as a server's read runs on the server's threads.
pub trait Parse<T>: Fn(&[u8]) -> Result<T, BodyProblem> + Send + Sync + 'static {}
impl<T, R: Fn(&[u8]) -> Result<T, BodyProblem> + Send + Sync + 'static> Parse<T> for R {}

impl<T> ReadState<T> {
    /// Whether an action is still running (loading, waiting or queued), so it can be cancelled.
    pub fn is_running(&self) -> bool {
        matches!(
            self,
            ReadState::Loading { .. } | ReadState::Waiting { .. } | ReadState::Queued { .. }
        )
    }
}

/// What the runtime writes to; every write is `try_`, as the owner may be gone.
pub(crate) struct View<T: 'static> {
    pub(crate) state: RwSignal<ReadState<T>>,
    pub(crate) traced: RwSignal<u64>,
    pub(crate) clock: RwSignal<Duration>,
}

impl<T: 'static> Clone for View<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: 'static> Copy for View<T> {}
