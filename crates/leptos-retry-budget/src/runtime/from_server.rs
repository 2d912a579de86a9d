//! What a server's render knew of a read, carried in the HTML to the browser as a Leptos
//! resource's value would be: the data, the stop, or the wait handed over. The server reads while it
//! renders (`ssr`, see [`ServerReads`](super::ServerReads)); the hydrating browser takes what
//! the server knew without a request (`hydrate`).
//!
//! The value is a text the core writes and reads ([`wire::Part`]: the stop or the hand-over, the
//! trace, one version for all), the data in it as the server's JSON of it, read back by the
//! read's own parser: so a hydrating app needs no serde of its own for the hand-over, and the
//! server's render shows exactly what the browser will read back. Without `ssr` or `hydrate` there is no resource,
//! and a CSR app compiles none of this but a type with no values.

use std::time::Duration;

use retry_budget::wire::{self, HandOverError};
use retry_budget::{HandOver, Outcome, StopReport};

use super::state::ReadState;

/// What the server's render knew of a read when it sent the page, as read back from its text.
#[cfg_attr(not(any(feature = "ssr", feature = "hydrate")), allow(dead_code))]
#[derive(Clone, Debug, PartialEq)]
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
    },
    /// The read stopped without data; nothing more is sent for it.
    Stopped(StopReport),
    /// The read waits, and the browser goes on with it.
    HandedOver(HandOver),
    /// The server refused to send the read (a URL it may not read, an invalid request): its
    /// log says why. The page is not told, as the server's request is the server's own.
    RefusedOnServer,
    /// What the server sent cannot be read here (a page of another version, say).
    Unreadable(HandOverError),
}

#[cfg_attr(not(any(feature = "ssr", feature = "hydrate")), allow(dead_code))]
impl<T> ServerPart<T> {
    /// Reads a part's text ([`text`](Self::text)), the data with `parse`, the read's own parser.
    /// What cannot be read is [`Unreadable`](Self::Unreadable), by name, never guessed.
    pub(crate) fn read(text: &str, parse: impl FnOnce(&[u8]) -> Option<T>) -> Self {
        let (stop, data) = match wire::Part::parse(text) {
            Ok(wire::Part::NotRead) => return ServerPart::NotRead,
            Ok(wire::Part::Refused) => return ServerPart::RefusedOnServer,
            Ok(wire::Part::HandedOver { hand_over, .. }) => {
                return match HandOver::parse(hand_over) {
                    Ok(hand_over) => ServerPart::HandedOver(hand_over),
                    Err(e) => ServerPart::Unreadable(e),
                };
            }
            Ok(wire::Part::Ended { stop, data, .. }) => (stop, data),
            Err(e) => return ServerPart::Unreadable(e),
        };
        match StopReport::parse(stop) {
            Ok(report) if report.outcome == Outcome::Succeeded => match parse(data.as_bytes()) {
                Some(data) => ServerPart::Loaded { data, report },
                None => ServerPart::Unreadable(HandOverError::Field("data")),
            },
            Ok(report) => ServerPart::Stopped(report),
            Err(e) => ServerPart::Unreadable(e),
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

    /// The hand-over, where the server handed the read over.
    pub(crate) fn hand_over(&self) -> Option<&HandOver> {
        match self {
            ServerPart::HandedOver(hand_over) => Some(hand_over),
            _ => None,
        }
    }
}

// A CSR app has no refusal of the server's to show (`ServerRefusal` has no values there).
#[cfg(any(feature = "ssr", feature = "hydrate", not(target_arch = "wasm32")))]
#[cfg_attr(not(any(feature = "ssr", feature = "hydrate")), allow(dead_code))]
impl<T: Clone> ServerPart<T> {
    /// What a screen shows of it at `now` on the runtime's clock (the server's is zero), where
    /// the server read; `None` where it did not, and the read starts in the browser.
    pub(crate) fn state(&self, of: u32, now: Duration) -> Option<ReadState<T>> {
        use super::state::{Misconfigured, ServerRefusal};
        Some(match self {
            ServerPart::NotRead => return None,
            ServerPart::Loaded { data, report } => ReadState::Loaded {
                data: data.clone(),
                report: report.clone(),
            },
            ServerPart::Stopped(report) => ReadState::Stopped(report.clone()),
            ServerPart::HandedOver(h) => ReadState::Waiting {
                next: h.attempts + 1,
                of,
                until: now.saturating_add(h.wait),
                reason: h.reason.clone(),
            },
            ServerPart::RefusedOnServer => {
                ReadState::Refused(Misconfigured::FromServer(ServerRefusal::ON_SERVER))
            }
            ServerPart::Unreadable(e) => ReadState::Refused(Misconfigured::FromServer(
                ServerRefusal::hand_over(e.clone()),
            )),
        })
    }
}

/// The text of what a server's read came to ([`wire::Part`]), as [`ServerPart::read`] reads it
/// back. Data that cannot be written is not handed over: the browser reads for itself.
#[cfg(feature = "ssr")]
pub(crate) fn text<T: serde::Serialize>(
    served: Result<retry_budget_tokio::Served<T>, retry_budget_tokio::ReadError>,
) -> String {
    use retry_budget::wire::handed_trace;
    use retry_budget_tokio::{ReadError, Served};
    match served {
        Ok(Served::Loaded(loaded)) => match serde_json::to_string(&loaded.data) {
            Ok(data) => wire::Part::Ended {
                stop: &loaded.report.handed().to_string(),
                trace: &handed_trace(&loaded.trace).to_string(),
                data: &data,
            }
            .to_string(),
            Err(e) => {
                leptos::logging::warn!("a budgeted read's data cannot be handed over: {e}");
                not_read()
            }
        },
        Ok(Served::HandedOver { hand_over, trace }) => wire::Part::HandedOver {
            hand_over: &hand_over.to_string(),
            trace: &handed_trace(&trace).to_string(),
        }
        .to_string(),
        // Given up unsent, queued past the render's hold: the browser reads for itself.
        Ok(Served::NotSent) => not_read(),
        Err(ReadError::Stopped { report, trace }) => wire::Part::Ended {
            stop: &report.handed().to_string(),
            trace: &handed_trace(&trace).to_string(),
            data: "",
        }
        .to_string(),
        Err(refused) => {
            leptos::logging::warn!("a budgeted read was not sent from the server: {refused}");
            wire::Part::Refused.to_string()
        }
    }
}

/// The text of a part the server did not read.
#[cfg(feature = "ssr")]
pub(crate) fn not_read() -> String {
    wire::Part::NotRead.to_string()
}

/// The server's trace in a part's text, read back; empty where the text holds none, or
/// cannot be read (the screen then says why the part cannot be read).
#[cfg_attr(not(any(feature = "ssr", feature = "hydrate")), allow(dead_code))]
pub(crate) fn server_trace(text: &str) -> Vec<retry_budget::TraceEvent> {
    (wire::Part::parse(text).and_then(|part| part.trace_events())).unwrap_or_default()
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

    pub(crate) fn hand_over(&self) -> Option<&HandOver> {
        match self.0 {}
    }

    pub(crate) fn state(&self, _of: u32, _now: Duration) -> Option<ReadState<T>> {
        match self.0 {}
    }
}

/// A server part not yet taken up by the read's first action, in the browser.
#[cfg(target_arch = "wasm32")]
pub(crate) type Pending<T> = std::cell::RefCell<Option<Part<T>>>;

#[cfg(feature = "ssr")]
pub(crate) use on_server::FromServer;

#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
pub(crate) use hydrating::FromServer;

#[cfg(not(any(feature = "ssr", feature = "hydrate")))]
pub(crate) use without::FromServer;

/// Where a suspended view waits for the server's part, on the server.
#[cfg(feature = "ssr")]
mod suspended {
    use std::sync::Arc;

    use leptos::prelude::*;

    /// A read's views, type-erased, so that an app compiles one `<Suspense>` for all its
    /// reads' views however many kinds it shows (6 KB less, gzipped, for one screen).
    pub(super) type Views = Arc<dyn Fn() -> AnyView + Send + Sync>;

    /// `children`, erased.
    pub(super) fn erase<V: IntoView + 'static>(
        children: impl Fn() -> V + Send + Sync + 'static,
    ) -> Views {
        Arc::new(move || children().into_any())
    }

    /// `ready` in a `<Suspense>` whose fallback is `views` as the read is at first.
    pub(super) fn boundary<C: IntoView + 'static>(
        views: Views,
        ready: impl Fn() -> C + Send + Sync + 'static,
    ) -> AnyView {
        view! { <Suspense fallback=move || views()>{ready}</Suspense> }.into_any()
    }
}

/// On a server that reads while it renders: the read starts with the render, its text goes
/// into the HTML as a resource's value would (Leptos's shared context, by the same id order
/// as the browser's), and the suspended views show it once it is there.
#[cfg(feature = "ssr")]
mod on_server {
    use std::future::Future;

    use leptos::prelude::*;
    use tokio::sync::watch;

    use super::suspended::{boundary, erase, Views};
    use super::{not_read, ServerPart};
    use crate::runtime::state::{ReadData, ReadState, StateSignal, StateStorage};

    /// A read's server part on the server.
    pub(crate) struct FromServer<T: ReadData> {
        /// The part's text, once the read has come to something.
        text: StoredValue<watch::Receiver<Option<String>>>,
        /// How the server shows a part's text: as the browser will read it back.
        shown: StoredValue<Shown<T>>,
    }

    /// How the server shows a part's text.
    type Shown<T> = std::sync::Arc<dyn Fn(&str) -> Option<ReadState<T>> + Send + Sync>;

    impl<T: ReadData> Clone for FromServer<T> {
        fn clone(&self) -> Self {
            *self
        }
    }

    impl<T: ReadData> Copy for FromServer<T> {}

    impl<T: ReadData> FromServer<T> {
        /// Starts `read`, whose text goes into the HTML for the browser and which the views
        /// show as `parse` reads it back ([`state`](Self::state)).
        pub(crate) fn new(
            read: impl Future<Output = String> + Send + 'static,
            parse: impl Fn(&[u8]) -> Option<T> + Send + Sync + 'static,
            of: u32,
        ) -> Self {
            let (done, text) = watch::channel(None);
            leptos::task::spawn(async move {
                let _ = done.send(Some(read.await));
            });
            if let Some(context) = Owner::current_shared_context() {
                // The id is taken whether or not the page hydrates, as the browser takes it.
                let id = context.next_id();
                if context.get_is_hydrating() {
                    let mut text = text.clone();
                    context.write_async(id, Box::pin(async move { arrived(&mut text).await }));
                }
            }
            let shown: Shown<T> = std::sync::Arc::new(move |text: &str| {
                ServerPart::read(text, &parse).state(of, std::time::Duration::ZERO)
            });
            Self {
                text: StoredValue::new(text),
                shown: StoredValue::new(shown),
            }
        }

        /// Nothing is here yet as the read is set up: its read has only started.
        pub(crate) fn now(&self, _parse: &impl Fn(&[u8]) -> Option<T>) -> Option<ServerPart<T>> {
            None
        }

        /// What a read's views show on the server: its first state until the read in the
        /// render has come to something, then what that came to, as the browser will read it
        /// back. Derived, never written: a server renders its views from several tasks at
        /// once, and a signal written while another task reads it cannot be read.
        pub(crate) fn state(&self, first: RwSignal<ReadState<T>, StateStorage>) -> StateSignal<T> {
            let Self { text, shown, .. } = *self;
            let first = first.get_untracked();
            let came_to = std::sync::Arc::new(std::sync::OnceLock::new());
            Signal::derive(move || {
                let arrived = text.try_with_value(|t| t.borrow().clone()).flatten();
                let shown = arrived.and_then(|arrived| {
                    let state = came_to.get_or_init(|| shown.try_with_value(|s| s(&arrived)));
                    state.clone().flatten()
                });
                shown.unwrap_or_else(|| first.clone())
            })
        }

        /// What the read did in this render, once it has come to something.
        pub(crate) fn trace(&self) -> Vec<retry_budget::TraceEvent> {
            let text = self.text.with_value(|text| text.borrow().clone());
            text.as_deref().map(super::server_trace).unwrap_or_default()
        }

        /// `children`, once the read in the render has come to something, which the state
        /// then shows; until then, `children` in the read's first state.
        pub(crate) fn suspend<V: IntoView + 'static>(
            &self,
            children: impl Fn() -> V + Send + Sync + 'static,
        ) -> AnyView {
            waiting(self.text, erase(children))
        }
    }

    /// `views` in a `Suspend` that waits for the part (made anew for each render of the
    /// boundary).
    fn waiting(text: StoredValue<watch::Receiver<Option<String>>>, views: Views) -> AnyView {
        let ready = views.clone();
        boundary(views, move || {
            let mut text = text.get_value();
            let views = ready.clone();
            Suspend::new(async move {
                arrived(&mut text).await;
                views()
            })
        })
    }

    /// The part's text, once the read has come to something (or has gone: not read).
    async fn arrived(text: &mut watch::Receiver<Option<String>>) -> String {
        match text.wait_for(Option::is_some).await {
            Ok(text) => text.clone().unwrap_or_default(),
            Err(_) => not_read(),
        }
    }
}

/// Hydrating: the part's text is what the server wrote into the HTML.
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
mod hydrating {
    use leptos::prelude::*;

    use super::ServerPart;
    use crate::runtime::state::{ReadData, ReadState, StateSignal, StateStorage};

    /// A read's server part in the browser: the text the server's HTML holds for it.
    pub(crate) struct FromServer<T: ReadData> {
        text: StoredValue<Option<String>>,
        data: std::marker::PhantomData<fn() -> T>,
    }

    impl<T: ReadData> Clone for FromServer<T> {
        fn clone(&self) -> Self {
            *self
        }
    }

    impl<T: ReadData> Copy for FromServer<T> {}

    impl<T: ReadData> FromServer<T> {
        /// The text the server wrote for this read, by the same id order as the server's;
        /// none for a screen mounted after hydration, which reads for itself.
        pub(crate) fn new() -> Self {
            let text = Owner::current_shared_context().and_then(|context| {
                let id = context.next_id();
                match context.read_data(&id) {
                    Some(text) => Some(text),
                    // Hydrating, and nothing from the server: it cannot be read here.
                    None if context.during_hydration() => Some(String::new()),
                    None => None,
                }
            });
            Self {
                text: StoredValue::new(text),
                data: std::marker::PhantomData,
            }
        }

        /// What the server knew, read back with `parse`; `None` for a screen mounted after
        /// hydration.
        pub(crate) fn now(&self, parse: &impl Fn(&[u8]) -> Option<T>) -> Option<ServerPart<T>> {
            self.text
                .with_value(|text| text.as_deref().map(|text| ServerPart::read(text, parse)))
        }

        /// What a read's views show: the read's own state, which the hook has already set to
        /// what the server's HTML shows.
        pub(crate) fn state(&self, own: RwSignal<ReadState<T>, StateStorage>) -> StateSignal<T> {
            own.read_only()
        }

        /// What the read did on the server, read back from the HTML when asked (a screen that
        /// shows no trace never reads it).
        pub(crate) fn trace(&self) -> Vec<retry_budget::TraceEvent> {
            (self.text)
                .with_value(|text| text.as_deref().map(super::server_trace))
                .unwrap_or_default()
        }

        /// `children` as they are, hydrating what the server's `<Suspense>` wrote: the part is
        /// in the HTML before anything waits, so the boundary has nothing to wait for in the
        /// browser. Once its read has come to something, the server's out-of-order chunk puts
        /// the children's own HTML where the fallback was, and takes the boundary's markers
        /// away; in order, the children's HTML is all the boundary writes. So the browser
        /// compiles no `<Suspense>` (5 KB gzipped) and no erased views, and hydrates the
        /// children where they are.
        ///
        /// The one thing the browser keeps of the boundary is its id: leptos's `<Suspense>`
        /// takes the shared context's next id as it is made, on the server as in the browser,
        /// and every read's part after it is found by the ids that follow. The id is taken
        /// here, where the server's boundary takes it (`tests::a_suspense_takes_one_id` holds
        /// leptos to one).
        pub(crate) fn suspend<V: IntoView>(&self, children: impl Fn() -> V) -> V {
            if let Some(context) = Owner::current_shared_context() {
                let _boundary = context.next_id();
            }
            children()
        }
    }
}

/// No rendering mode that crosses from server to browser: nothing from the server, ever.
#[cfg(not(any(feature = "ssr", feature = "hydrate")))]
mod without {
    use std::marker::PhantomData;

    use leptos::prelude::*;

    use super::Part;

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

        pub(crate) fn now(&self, _parse: &impl Fn(&[u8]) -> Option<T>) -> Option<Part<T>> {
            None
        }

        pub(crate) fn suspend<V: IntoView>(&self, children: impl Fn() -> V) -> V {
            children()
        }

        pub(crate) fn trace(&self) -> Vec<retry_budget::TraceEvent> {
            Vec::new()
        }

        /// What a read's views show: the read's own state (natively, as a `Signal`).
        #[allow(clippy::useless_conversion)] // in the browser it is the signal itself
        pub(crate) fn state(
            &self,
            own: RwSignal<crate::runtime::ReadState<T>, crate::runtime::StateStorage>,
        ) -> crate::runtime::state::StateSignal<T>
        where
            T: crate::runtime::ReadData,
        {
            own.read_only().into()
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use std::time::Duration;

    use retry_budget::action::WaitReason;
    use retry_budget::report::{LastResponse, Overrun};
    use retry_budget::wire::{HandOverError, Part};
    use retry_budget::{HandOver, Outcome, StopReport};

    use super::ServerPart;
    use crate::runtime::state::{Misconfigured, ReadState, ServerRefusal};

    fn read(text: &str) -> ServerPart<u8> {
        ServerPart::read(text, |b: &[u8]| std::str::from_utf8(b).ok()?.parse().ok())
    }

    fn report(outcome: Outcome) -> StopReport {
        StopReport {
            outcome,
            at: Duration::from_millis(30),
            attempts: 1,
            max_attempts: 3,
            last_response: None,
            request_time: Duration::from_millis(30),
            waited_time: Duration::ZERO,
        }
    }

    /// A part's text as the server writes it.
    fn ended(report: &StopReport, trace: Vec<retry_budget::TraceEvent>, data: &str) -> String {
        let stop = &report.handed().to_string();
        let trace = &retry_budget::wire::handed_trace(&trace).to_string();
        Part::Ended { stop, trace, data }.to_string()
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
        let text = Part::HandedOver {
            hand_over: &hand_over.to_string(),
            trace: &retry_budget::wire::handed_trace(&[]).to_string(),
        }
        .to_string();
        assert_eq!(
            read(&text).state(3, now),
            Some(ReadState::Waiting {
                next: 2,
                of: 3,
                until: Duration::from_millis(3_000),
                reason: WaitReason::ServerDelay(Duration::from_secs(3)),
            })
        );
    }

    #[test]
    fn data_and_stops_read_back_with_the_reads_own_parser() {
        let loaded = report(Outcome::Succeeded);
        assert_eq!(
            read(&ended(&loaded, Vec::new(), "42")),
            ServerPart::Loaded {
                data: 42,
                report: loaded.clone()
            }
        );
        // The server's trace rides beside the data, and leaves it as it is.
        let trace = vec![retry_budget::TraceEvent {
            at: Duration::from_millis(30),
            event: retry_budget::Event::AttemptStarted { attempt: 1 },
        }];
        let text = ended(&loaded, trace.clone(), "42");
        assert_eq!(super::server_trace(&text), trace);
        assert!(matches!(read(&text), ServerPart::Loaded { data: 42, .. }));
        // Data the read's parser cannot read is not shown as something else.
        assert_eq!(
            read(&ended(&loaded, Vec::new(), "forty-two")),
            ServerPart::Unreadable(HandOverError::Field("data"))
        );
        let stopped = report(Outcome::BudgetExhausted(Overrun::ServerDelay(
            Duration::from_secs(30),
        )));
        assert_eq!(
            read(&ended(&stopped, Vec::new(), "")).state(3, Duration::ZERO),
            Some(ReadState::Stopped(stopped))
        );
    }

    #[test]
    fn a_part_this_page_cannot_read_stops_the_read_and_says_why() {
        assert_eq!(
            read("retry-budget part 2;not-read").state(3, Duration::ZERO),
            Some(ReadState::Refused(Misconfigured::FromServer(
                ServerRefusal::hand_over(HandOverError::OtherVersion("2".into()))
            )))
        );
        assert_eq!(
            read("wait 3 s").state(3, Duration::ZERO),
            Some(ReadState::Refused(Misconfigured::FromServer(
                ServerRefusal::hand_over(HandOverError::NotAHandOver)
            )))
        );
    }

    #[test]
    fn a_read_the_server_did_not_make_starts_in_the_browser() {
        assert_eq!(
            read(&Part::NotRead.to_string()).state(3, Duration::ZERO),
            None
        );
        assert_eq!(
            read(&Part::Refused.to_string()).state(3, Duration::ZERO),
            Some(ReadState::Refused(Misconfigured::FromServer(
                ServerRefusal::ON_SERVER
            )))
        );
    }

    #[test]
    fn the_servers_refusals_say_which_and_why() {
        let on_server = Misconfigured::FromServer(ServerRefusal::ON_SERVER);
        assert_eq!(
            on_server.to_string(),
            "This read is misconfigured: the server refused to send it (its log says why)."
        );
        assert_eq!(ServerRefusal::ON_SERVER.hand_over_error(), None);
        let other = HandOverError::OtherVersion("2".into());
        let unreadable = ServerRefusal::hand_over(other.clone());
        assert_eq!(unreadable.hand_over_error(), Some(&other));
        assert_eq!(
            Misconfigured::FromServer(unreadable).to_string(),
            format!("This read is misconfigured: the server's hand-over cannot be read: {other}.")
        );
    }

    /// The browser takes the id leptos's `<Suspense>` takes on the server, in its place
    /// (`hydrating::FromServer::suspend`): a leptos whose boundary took another number of ids
    /// would have every read after the first find another read's part.
    #[test]
    fn a_suspense_takes_one_id() {
        use std::sync::Arc;

        use hydration_context::{SharedContext, SsrSharedContext};
        use leptos::prelude::*;

        let context: Arc<dyn SharedContext + Send + Sync> = Arc::new(SsrSharedContext::new());
        Owner::new_root(Some(context.clone())).with(|| {
            let before = context.next_id().into_inner();
            let boundary = view! { <Suspense fallback=|| "waiting">"ready"</Suspense> };
            let after = context.next_id().into_inner();
            drop(boundary);
            assert_eq!(after - before, 2, "ids between two of ours");
        });
    }
}
