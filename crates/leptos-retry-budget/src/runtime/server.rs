//! A server that reads while it renders (`ssr`): each component's read is made as the render
//! starts it, through the process's one [`Client`] (so one ledger for every render), with the
//! request the app makes for the server from the one the component was given. What it came to
//! (the data, the stop, or the wait handed over, with its trace) goes into the HTML as a Leptos
//! resource's value would (the shared context, by the same id order as the browser's), and the
//! read's views, suspended until then, show it as the browser will read it back. Nothing is
//! driven here: there is no page clock, and a server's ledger is its `Client`'s.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use leptos::prelude::*;
use retry_budget::wire::{self, handed_trace};
use retry_budget::{ReadRequest, RetryPolicy, TraceEvent};
use retry_budget_tokio::{Client, ReadError, Served};
use tokio::sync::{oneshot, watch};

use super::mode::Mode;
use super::part::{server_trace, ServerPart};
use super::state::{Parse, ReadData, ReadState, View};
use crate::leptos_line::next_data_id;

pub use super::no_page::{now, provide_scope_policy, scope_state};

/// What a read's state is read through: a signal derived from what the read in the render
/// came to, never written (a server renders one page's views from several tasks at once).
pub type StateSignal<T> = Signal<ReadState<T>>;

/// How a server's renders read: through `client`, one per process, and with the request
/// `for_server` makes from the one a component was given for the browser (the API's address
/// as the server reaches it, the server's own key). None of what the server sends reaches
/// the page: the page gets the data, the stop, or the wait.
///
/// ```no_run
/// use leptos_retry_budget::{provide_server_reads, ReadRequest, ServerReads};
/// use retry_budget_tokio::{AllowedOrigins, Client};
///
/// let client = Client::new(AllowedOrigins::new(["http://10.0.0.7:8080"]).unwrap());
/// let reads = ServerReads::new(client, |browser: &ReadRequest| {
///     // The browser asks `/api/...` of its origin; the server asks the API directly.
///     ReadRequest::get(format!("http://10.0.0.7:8080{}", browser.url()))
///         .with_header("Authorization", "Bearer the-server-key")
/// });
/// // In `leptos_routes_with_context`, for every render:
/// provide_server_reads(reads.clone());
/// ```
#[derive(Clone)]
pub struct ServerReads {
    client: Client,
    for_server: Arc<dyn Fn(&ReadRequest) -> ReadRequest + Send + Sync>,
}

impl ServerReads {
    /// Reads through `client`, each read's request made by `for_server` from the browser's.
    pub fn new(
        client: Client,
        for_server: impl Fn(&ReadRequest) -> ReadRequest + Send + Sync + 'static,
    ) -> Self {
        Self {
            client,
            for_server: Arc::new(for_server),
        }
    }
}

/// Makes the budgeted reads of the current render read on the server through `reads`: call
/// it in the context every render gets (`leptos_routes_with_context`). Without it, the server
/// renders each read's first state, sends nothing, and the browser reads.
pub fn provide_server_reads(reads: ServerReads) {
    provide_context(reads);
}

/// The read of `request` in the current render, as the text of what it came to: it holds the
/// render no longer than the policy's [`server_hold`](RetryPolicy::server_hold), and is left
/// (nothing more sent for it) if the render ends first, as when the visitor goes away.
fn read_in_render<T, R>(
    request: ReadRequest,
    policy: RetryPolicy,
    parse: Arc<R>,
) -> impl std::future::Future<Output = String> + Send + 'static
where
    T: ReadData,
    R: Parse<T>,
{
    let reads = use_context::<ServerReads>();
    // The render's owner ends (its stream is dropped): the read is left.
    let (ended, render_ended) = oneshot::channel::<()>();
    on_cleanup(move || drop(ended));
    async move {
        let Some(reads) = reads else {
            return not_read();
        };
        let on_server = (reads.for_server)(&request);
        let read = reads
            .client
            .read_or_hand_over(&on_server, policy, |body: &[u8]| parse(body));
        tokio::select! {
            served = read => text(served),
            _ = render_ended => not_read(),
        }
    }
}

/// The text of what a server's read came to ([`wire::Part`]), as [`ServerPart::read`] reads it
/// back. Data that cannot be written is not handed over: the browser reads for itself.
fn text<T: serde::Serialize>(
    served: Result<retry_budget_tokio::Served<T>, retry_budget_tokio::ReadError>,
) -> String {
    match served {
        Ok(Served::Loaded(loaded)) => match serde_json::to_string(&loaded.data) {
            Ok(data) => wire::Part::Ended {
                stop: &loaded.report.handed().to_string(),
                trace: &handed_trace(&loaded.trace).to_string(),
                data: &data,
            }
            .to_string(),
            Err(e) => {
                tracing::warn!(error = %e, "a budgeted read's data cannot be handed over");
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
            tracing::warn!(error = %refused, "a budgeted read was not sent from the server");
            wire::Part::Refused.to_string()
        }
    }
}

/// The text of a part the server did not read.
fn not_read() -> String {
    wire::Part::NotRead.to_string()
}

/// A read in a server's render.
pub(crate) struct Read<T: ReadData> {
    /// The part's text, once the read has come to something.
    text: StoredValue<watch::Receiver<Option<String>>>,
    state: StateSignal<T>,
}

impl<T: ReadData> Clone for Read<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ReadData> Copy for Read<T> {}

impl<T: ReadData> Mode<T> for Read<T> {
    type State = StateSignal<T>;

    /// Starts the read in the render, whose text goes into the HTML for the browser (its id
    /// taken whether or not the page hydrates, as the browser takes it).
    fn attach<R: Parse<T>>(
        request: Signal<ReadRequest>,
        policy: RetryPolicy,
        parse: R,
        view: View<T>,
    ) -> Self {
        let of = policy.max_attempts();
        let parse = Arc::new(parse);
        let read = read_in_render(request.get_untracked(), policy, parse.clone());
        let (done, text) = watch::channel(None);
        leptos::task::spawn(async move {
            let _ = done.send(Some(read.await));
        });
        if let Some(context) = Owner::current_shared_context() {
            let id = next_data_id(&*context);
            if context.get_is_hydrating() {
                let mut text = text.clone();
                context.write_async(id, Box::pin(async move { arrived(&mut text).await }));
            }
        }
        let text = StoredValue::new(text);
        // What the views show: the read's first state until the read in the render has come
        // to something, then what that came to, as the browser will read it back. Derived,
        // never written: a server renders its views from several tasks at once, and a signal
        // written while another task reads it cannot be read.
        let first = view.state.get_untracked();
        let came_to = Arc::new(OnceLock::new());
        let state = Signal::derive(move || {
            let arrived = text.try_with_value(|t| t.borrow().clone()).flatten();
            let shown = arrived.and_then(|arrived| {
                let shown = came_to.get_or_init(|| {
                    ServerPart::read(&arrived, |body: &[u8]| parse(body).ok())
                        .state(of, Duration::ZERO)
                });
                shown.clone()
            });
            shown.unwrap_or_else(|| first.clone())
        });
        Read { text, state }
    }

    fn state(&self) -> Self::State {
        self.state
    }

    /// Nothing is driven in a render.
    fn try_again(&self) {}

    /// Nothing is driven in a render.
    fn cancel(&self) {}

    /// What the read did in this render, once it has come to something.
    fn trace(&self) -> Vec<TraceEvent> {
        let text = self.text.with_value(|text| text.borrow().clone());
        text.as_deref().map(server_trace).unwrap_or_default()
    }

    /// `children`, once the read in the render has come to something, which the state then
    /// shows; until then, `children` in the read's first state.
    fn suspend<V: IntoView + 'static>(
        self,
        children: impl Fn() -> V + Send + Sync + 'static,
    ) -> impl IntoView {
        waiting(self.text, erase(children))
    }
}

/// A read's views, type-erased, so that an app compiles one `<Suspense>` for all its reads'
/// views however many kinds it shows (6 KB less, gzipped, for one screen).
type Views = Arc<dyn Fn() -> AnyView + Send + Sync>;

/// `children`, erased.
fn erase<V: IntoView + 'static>(children: impl Fn() -> V + Send + Sync + 'static) -> Views {
    Arc::new(move || children().into_any())
}

/// `views` in a `<Suspense>` whose fallback is `views` as the read is at first, and whose
/// `Suspend` waits for the part (made anew for each render of the boundary).
fn waiting(text: StoredValue<watch::Receiver<Option<String>>>, views: Views) -> AnyView {
    let ready = views.clone();
    let fallback = views;
    let ready = move || {
        let mut text = text.get_value();
        let views = ready.clone();
        Suspend::new(async move {
            arrived(&mut text).await;
            views()
        })
    };
    view! { <Suspense fallback=move || fallback()>{ready}</Suspense> }.into_any()
}

/// The part's text, once the read has come to something (or has gone: not read).
async fn arrived(text: &mut watch::Receiver<Option<String>>) -> String {
    match text.wait_for(Option::is_some).await {
        Ok(text) => text.clone().unwrap_or_default(),
        Err(_) => not_read(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::time::Duration;

    use retry_budget::action::WaitReason;
    use retry_budget::report::{LastResponse, Overrun};
    use retry_budget::request::RequestError;
    use retry_budget::{Event, HandOver, Outcome, StopReport, TraceEvent};
    use retry_budget_tokio::{Loaded, ReadError, Served};

    use super::text;
    use crate::runtime::part::{server_trace, ServerPart};

    /// A part as the browser reads it back, the data with serde's JSON.
    fn read_back<T: serde::de::DeserializeOwned>(text: &str) -> ServerPart<T> {
        ServerPart::read(text, |body: &[u8]| serde_json::from_slice(body).ok())
    }

    fn report(outcome: Outcome) -> StopReport {
        StopReport {
            outcome,
            at: Duration::from_millis(1_250),
            attempts: 2,
            max_attempts: 3,
            last_response: Some(LastResponse {
                status: 429,
                retry_after: Some("1".into()),
                note: None,
            }),
            request_time: Duration::from_millis(250),
            waited_time: Duration::from_secs(1),
        }
    }

    fn trace() -> Vec<TraceEvent> {
        vec![
            TraceEvent {
                at: Duration::ZERO,
                event: Event::AttemptStarted { attempt: 1 },
            },
            TraceEvent {
                at: Duration::from_millis(1_250),
                event: Event::AttemptStarted { attempt: 2 },
            },
        ]
    }

    /// What the server writes for each way a read can end in the render, the browser reads
    /// back as the same thing, its trace with it: the writer and the reader of the part are
    /// held to each other, not each to a text written by hand.
    #[test]
    fn what_the_render_writes_the_browser_reads_back_as_it_was() {
        let loaded = report(Outcome::Succeeded);
        let written = text(Ok(Served::Loaded(Loaded {
            data: vec!["coast".to_owned(), "dusk".to_owned()],
            report: loaded.clone(),
            trace: trace(),
        })));
        assert_eq!(
            read_back::<Vec<String>>(&written),
            ServerPart::Loaded {
                data: vec!["coast".to_owned(), "dusk".to_owned()],
                report: loaded,
            }
        );
        assert_eq!(server_trace(&written), trace());

        let stopped = report(Outcome::BudgetExhausted(Overrun::ServerDelay(
            Duration::from_secs(30),
        )));
        let written = text::<Vec<String>>(Err(ReadError::Stopped {
            report: stopped.clone(),
            trace: trace(),
        }));
        assert_eq!(
            read_back::<Vec<String>>(&written),
            ServerPart::Stopped(stopped)
        );
        assert_eq!(server_trace(&written), trace());

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
        let written = text::<Vec<String>>(Ok(Served::HandedOver {
            hand_over: hand_over.clone(),
            trace: trace(),
        }));
        assert_eq!(
            read_back::<Vec<String>>(&written),
            ServerPart::HandedOver(hand_over)
        );
        assert_eq!(server_trace(&written), trace());
    }

    /// Where the server sent nothing, the browser reads; where it refused to send, the page is
    /// told no more than that; data JSON cannot hold is not handed over half-written.
    #[test]
    fn what_the_render_did_not_read_the_browser_reads_itself() {
        let not_sent = text::<Vec<String>>(Ok(Served::NotSent));
        assert_eq!(read_back::<Vec<String>>(&not_sent), ServerPart::NotRead);
        let refused = text::<Vec<String>>(Err(ReadError::Request(RequestError::Forbidden(
            "Cookie".into(),
        ))));
        assert_eq!(
            read_back::<Vec<String>>(&refused),
            ServerPart::RefusedOnServer
        );
        assert!(server_trace(&refused).is_empty());
        // A map keyed by pairs has no JSON: the browser reads for itself.
        let unwritable = BTreeMap::from([((1u8, 2u8), 3u8)]);
        let written = text(Ok(Served::Loaded(Loaded {
            data: unwritable,
            report: report(Outcome::Succeeded),
            trace: trace(),
        })));
        assert_eq!(read_back::<Vec<String>>(&written), ServerPart::NotRead);
    }
}
