//! What a server's render knew of a read, carried in the HTML to the browser as a Leptos
//! resource: the data, the stop, or the wait handed over. The server reads while it renders
//! (`ssr`, see [`ServerReads`](super::ServerReads)); the hydrating browser takes what the server
//! knew without a request (`hydrate`). Without either mode there is no resource at all, and a
//! CSR app compiles none of this but the type that says so.

use std::time::Duration;

use retry_budget::{HandOver, HandOverError, StopReport, TraceEvent};

use super::{Misconfigured, ReadState};

/// What the server's render knew of a read when it sent the page. Without a mode that crosses
/// from server to browser it is named (the drivers take one) but never made.
#[cfg_attr(not(any(feature = "ssr", feature = "hydrate")), allow(dead_code))]
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    any(feature = "ssr", feature = "hydrate"),
    derive(serde::Serialize, serde::Deserialize)
)]
pub(crate) enum ServerPart<T> {
    /// The server made no request: it has no [`ServerReads`](super::ServerReads), or the read
    /// began in the browser (a screen mounted after hydration).
    NotRead,
    /// The data arrived.
    Loaded {
        /// The data.
        data: T,
        /// How the read ended.
        report: StopReport,
        /// What happened to it on the server.
        trace: Vec<TraceEvent>,
    },
    /// The read stopped without data; nothing more is sent for it.
    Stopped {
        /// Why.
        report: StopReport,
        /// What happened to it on the server.
        trace: Vec<TraceEvent>,
    },
    /// The read waits, and the browser goes on with it: the [`HandOver`]'s text, which the
    /// browser reads back (and refuses by name if it cannot).
    HandedOver {
        /// The hand-over, as text.
        hand_over: String,
        /// What happened to the read on the server, up to the hand-over.
        trace: Vec<TraceEvent>,
    },
    /// The server refused to send the read (a URL it may not read, an invalid request): its
    /// log says why. The page is not told, as the server's request is the server's own.
    RefusedOnServer,
    /// What the server sent could not be read in the browser (another version's page, say).
    /// Never sent: the browser's own finding.
    Unreadable,
}

#[cfg_attr(not(any(feature = "ssr", feature = "hydrate")), allow(dead_code))]
impl<T: Clone> ServerPart<T> {
    /// What a screen shows of it at `now` on the runtime's clock (the server's is zero), where
    /// the server read; `None` where it did not, and the read starts in the browser.
    pub(crate) fn state(&self, of: u32, now: Duration) -> Option<ReadState<T>> {
        Some(match self {
            ServerPart::NotRead => return None,
            ServerPart::Loaded { data, report, .. } => ReadState::Loaded {
                data: data.clone(),
                report: report.clone(),
            },
            ServerPart::Stopped { report, .. } => ReadState::Stopped(report.clone()),
            ServerPart::HandedOver { hand_over, .. } => match HandOver::parse(hand_over) {
                Ok(h) => ReadState::Waiting {
                    next: h.attempts + 1,
                    of,
                    until: now.saturating_add(h.wait),
                    reason: h.reason,
                },
                Err(e) => ReadState::Refused(Misconfigured::HandOver(e)),
            },
            ServerPart::RefusedOnServer => ReadState::Refused(Misconfigured::OnServer),
            ServerPart::Unreadable => {
                ReadState::Refused(Misconfigured::HandOver(HandOverError::NotAHandOver))
            }
        })
    }
}

#[cfg_attr(not(any(feature = "ssr", feature = "hydrate")), allow(dead_code))]
impl<T> ServerPart<T> {
    /// What happened to the read on the server.
    pub(crate) fn trace(&self) -> &[TraceEvent] {
        match self {
            ServerPart::Loaded { trace, .. }
            | ServerPart::Stopped { trace, .. }
            | ServerPart::HandedOver { trace, .. } => trace,
            _ => &[],
        }
    }
}

/// What the browser's driver asks of a part (a server's render asks nothing).
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
impl<T> ServerPart<T> {
    /// Whether the server read at all.
    pub(crate) fn was_read(&self) -> bool {
        !matches!(self, ServerPart::NotRead)
    }

    /// The hand-over's text, where the server handed the read over.
    pub(crate) fn hand_over(&self) -> Option<&str> {
        match self {
            ServerPart::HandedOver { hand_over, .. } => Some(hand_over),
            _ => None,
        }
    }
}

/// What the drivers are given of the server's part: the part itself, where a mode crosses from
/// server to browser.
#[cfg(any(feature = "ssr", feature = "hydrate"))]
pub(crate) type Part<T> = ServerPart<T>;

/// What the drivers are given of the server's part: elsewhere a type with no values, so that
/// every path that would take one up is left out of the app.
#[cfg(not(any(feature = "ssr", feature = "hydrate")))]
pub(crate) struct Part<T>(
    std::convert::Infallible,
    std::marker::PhantomData<fn() -> T>,
);

#[cfg(not(any(feature = "ssr", feature = "hydrate")))]
#[allow(dead_code)]
impl<T> Part<T> {
    pub(crate) fn was_read(&self) -> bool {
        match self.0 {}
    }

    pub(crate) fn hand_over(&self) -> Option<&str> {
        match self.0 {}
    }

    pub(crate) fn trace(&self) -> &[TraceEvent] {
        match self.0 {}
    }

    pub(crate) fn state(&self, _of: u32, _now: Duration) -> Option<ReadState<T>> {
        match self.0 {}
    }
}

#[cfg(any(feature = "ssr", feature = "hydrate"))]
pub(crate) use resource::FromServer;

#[cfg(not(any(feature = "ssr", feature = "hydrate")))]
pub(crate) use without::FromServer;

/// A server part not yet taken up by the read's first action, in the browser.
#[cfg(target_arch = "wasm32")]
pub(crate) type Pending<T> = std::cell::RefCell<Option<Part<T>>>;

/// The server's part of a read, as a resource the server's render fills and the HTML carries.
#[cfg(any(feature = "ssr", feature = "hydrate"))]
mod resource {
    use leptos::prelude::*;

    use super::ServerPart;
    use crate::runtime::{ReadData, ReadState, StateStorage};

    /// A read's server part: a resource, filled by the server's read in its render (`ssr`),
    /// read back from the HTML while hydrating (`hydrate`).
    pub(crate) struct FromServer<T: ReadData> {
        part: Resource<ServerPart<T>>,
        /// Where the server shows what it read.
        state: RwSignal<ReadState<T>, StateStorage>,
        of: u32,
    }

    impl<T: ReadData> Clone for FromServer<T> {
        fn clone(&self) -> Self {
            *self
        }
    }

    impl<T: ReadData> Copy for FromServer<T> {}

    impl<T: ReadData> FromServer<T> {
        /// The resource, its value made by `fetch` on the server; `state` shows it there.
        pub(crate) fn new<F>(
            fetch: impl Fn() -> F + Send + Sync + 'static,
            state: RwSignal<ReadState<T>, StateStorage>,
            of: u32,
        ) -> Self
        where
            F: std::future::Future<Output = ServerPart<T>> + Send + 'static,
        {
            Self {
                part: Resource::new(|| (), move |()| fetch()),
                state,
                of,
            }
        }

        /// What the server knew, where it is already here: in the browser, read back from the
        /// HTML while hydrating (unreadable there: [`ServerPart::Unreadable`]), else `None`. On
        /// the server it is never here yet: its read has only started.
        pub(crate) fn now(&self) -> Option<ServerPart<T>> {
            if cfg!(feature = "ssr") {
                return None;
            }
            // What the resource holds, read once as the read is set up: the screen shows it
            // from the first, as the server's HTML does.
            let part = (*self.part).get_untracked();
            let hydrating = Owner::current_shared_context().is_some_and(|c| c.during_hydration());
            match part {
                None if hydrating => Some(ServerPart::Unreadable),
                part => part,
            }
        }

        /// What happened to the read on the server, once it is known (for the server's view).
        #[cfg(not(target_arch = "wasm32"))]
        pub(crate) fn trace(&self) -> Vec<retry_budget::TraceEvent> {
            self.part
                .with_untracked(|p| p.as_ref().map(|p| p.trace().to_vec()))
                .unwrap_or_default()
        }

        /// `children`, once the server's part is known: on the server after its read (the
        /// state then shows it), in the browser at once from the HTML. Until then, `children`
        /// in the read's first state.
        pub(crate) fn suspend<V>(&self, children: impl Fn() -> V + Send + Sync + 'static) -> AnyView
        where
            V: IntoView + 'static,
        {
            let Self { part, state, of } = *self;
            let children = std::sync::Arc::new(children);
            let fallback = children.clone();
            view! {
                <Suspense fallback=move || fallback()>
                    {
                        let children = children.clone();
                        move || {
                            let children = children.clone();
                            Suspend::new(async move {
                                let part = part.await;
                                if cfg!(feature = "ssr") {
                                    if let Some(shown) = part.state(of, std::time::Duration::ZERO) {
                                        state.try_set(shown);
                                    }
                                }
                                children()
                            })
                        }
                    }
                </Suspense>
            }
            .into_any()
        }
    }
}

/// No rendering mode that crosses from server to browser: nothing from the server, ever.
#[cfg(not(any(feature = "ssr", feature = "hydrate")))]
mod without {
    use std::marker::PhantomData;

    use leptos::prelude::*;

    /// Nothing from the server: there is no server render to read it (`csr`), or it renders
    /// without reading (a native build without `ssr`).
    pub(crate) struct FromServer<T>(PhantomData<fn() -> T>);

    impl<T> Clone for FromServer<T> {
        fn clone(&self) -> Self {
            *self
        }
    }

    impl<T> Copy for FromServer<T> {}

    impl<T> FromServer<T> {
        pub(crate) fn none() -> Self {
            FromServer(PhantomData)
        }

        pub(crate) fn now(&self) -> Option<super::Part<T>> {
            None
        }

        #[cfg(not(target_arch = "wasm32"))]
        pub(crate) fn trace(&self) -> Vec<retry_budget::TraceEvent> {
            Vec::new()
        }

        pub(crate) fn suspend<V: IntoView>(&self, children: impl Fn() -> V) -> V {
            children()
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use std::time::Duration;

    use retry_budget::{HandOver, HandOverError, LastResponse, WaitReason};

    use super::ServerPart;
    use crate::runtime::{Misconfigured, ReadState};

    fn handed_over(text: String) -> ServerPart<u8> {
        ServerPart::HandedOver {
            hand_over: text,
            trace: Vec::new(),
        }
    }

    #[test]
    fn a_wait_handed_over_shows_the_next_attempt_and_the_whole_wait_from_now() {
        let hand_over = HandOver {
            attempts: 1,
            wait: Duration::from_millis(2_600),
            reason: WaitReason::ServerDelay(Duration::from_secs(3)),
            last_response: Some(LastResponse {
                status: 429,
                retry_after: Some("3".into()),
                note: None,
            }),
        };
        let now = Duration::from_millis(400);
        assert_eq!(
            handed_over(hand_over.to_string()).state(3, now),
            Some(ReadState::Waiting {
                next: 2,
                of: 3,
                until: Duration::from_millis(3_000),
                reason: WaitReason::ServerDelay(Duration::from_secs(3)),
            })
        );
    }

    #[test]
    fn a_hand_over_this_page_cannot_read_stops_the_read_and_says_why() {
        let other_version = "retry-budget hand-over 2;attempts=1;wait_us=1".to_owned();
        assert_eq!(
            handed_over(other_version).state(3, Duration::ZERO),
            Some(ReadState::Refused(Misconfigured::HandOver(
                HandOverError::OtherVersion("2".into())
            )))
        );
        assert_eq!(
            handed_over("wait 3 s".into()).state(3, Duration::ZERO),
            Some(ReadState::Refused(Misconfigured::HandOver(
                HandOverError::NotAHandOver
            )))
        );
        assert_eq!(
            ServerPart::<u8>::Unreadable.state(3, Duration::ZERO),
            Some(ReadState::Refused(Misconfigured::HandOver(
                HandOverError::NotAHandOver
            )))
        );
    }

    #[test]
    fn a_read_the_server_did_not_make_starts_in_the_browser() {
        assert_eq!(ServerPart::<u8>::NotRead.state(3, Duration::ZERO), None);
        assert_eq!(
            ServerPart::<u8>::RefusedOnServer.state(3, Duration::ZERO),
            Some(ReadState::Refused(Misconfigured::OnServer))
        );
    }
}
