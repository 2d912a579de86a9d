//! What a server's render knew of a read, carried in the HTML to the browser as a Leptos
//! resource's value would be: the data, the stop, or the wait handed over (`ssr` writes it,
//! `hydrate` reads it; a CSR app compiles none of it).
//!
//! The value is a text the core writes and reads ([`wire::Part`]: the stop or the hand-over, the
//! trace, one version for all), the data in it as the server's JSON of it, read back by the
//! read's own parser: so a hydrating app needs no serde of its own for the hand-over, and the
//! server's render shows exactly what the browser will read back.

use std::time::Duration;

use retry_budget::wire::{self, HandOverError};
use retry_budget::{HandOver, Outcome, StopReport};

use super::state::{Misconfigured, ReadState, ServerRefusal};

/// What the server's render knew of a read when it sent the page, as read back from its text.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ServerPart<T> {
    /// The server made no request: it has no [`ServerReads`](crate::ServerReads), or the read
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

impl<T: Clone> ServerPart<T> {
    /// What a screen shows of it at `now` on the runtime's clock (the server's is zero), where
    /// the server read; `None` where it did not, and the read starts in the browser.
    pub(crate) fn state(&self, of: u32, now: Duration) -> Option<ReadState<T>> {
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

/// The server's trace in a part's text, read back; empty where the text holds none, or
/// cannot be read (the screen then says why the part cannot be read).
pub(crate) fn server_trace(text: &str) -> Vec<retry_budget::TraceEvent> {
    (wire::Part::parse(text).and_then(|part| part.trace_events())).unwrap_or_default()
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

    /// What a hydrating page makes in place of the server's `<Suspense>` numbers serialized
    /// data as that boundary does: the data a read takes an id for before it, inside it and
    /// after it is found under the same ids. A boundary numbered otherwise would have every
    /// read after it find another read's part (on Leptos 0.9, with every read inside it).
    #[test]
    fn the_browser_numbers_data_as_the_servers_suspense_does() {
        use std::sync::{Arc, Mutex};

        use hydration_context::{SharedContext, SsrSharedContext};
        use leptos::prelude::*;

        use crate::leptos_line::{in_place_of_suspense, next_data_id};

        type Ids = Arc<Mutex<Vec<String>>>;

        fn take(ids: &Ids) {
            let context = Owner::current_shared_context().expect("a shared context");
            ids.lock()
                .unwrap()
                .push(format!("{:?}", next_data_id(&*context)));
        }

        /// The ids taken before `boundary`, inside it and after it, in a render of its own.
        fn around(boundary: impl FnOnce(Ids) -> AnyView) -> Vec<String> {
            let context: Arc<dyn SharedContext + Send + Sync> = Arc::new(SsrSharedContext::new());
            let ids = Ids::default();
            Owner::new_root(Some(context)).with(|| {
                take(&ids);
                let view = boundary(ids.clone());
                take(&ids);
                drop(view);
            });
            let taken = ids.lock().unwrap().clone();
            taken
        }

        let on_server = around(|ids| {
            view! {
                <Suspense fallback=|| "waiting">
                    {take(&ids); "ready"}
                </Suspense>
            }
            .into_any()
        });
        let in_browser = around(|ids| {
            in_place_of_suspense(move || {
                take(&ids);
                "ready"
            })
            .into_any()
        });
        assert_eq!(on_server.len(), 3, "{on_server:?}");
        assert_eq!(in_browser, on_server);
    }
}
