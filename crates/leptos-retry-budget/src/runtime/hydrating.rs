//! A page that hydrates a server's render: a read the server read is taken up from the text the
//! server wrote into the HTML for it (the data or the stop with no request; the wait handed
//! over, gone on with as the same action); a read the server did not read, or a screen mounted
//! after hydration, reads as a CSR page does.

use leptos::prelude::*;

use super::mode::Mode;
use super::page::take_up::TakenUp;
use super::page::Driver;
use super::part::{server_trace, ServerPart};
use super::state::{Parse, ReadData, ReadState, View};
use crate::leptos_line::{in_place_of_suspense, next_data_id};
use retry_budget::{ReadRequest, RetryPolicy, TraceEvent};

pub use super::page::{now, provide_scope_policy, scope_state};

/// What a read's state is read through: the page's own signal, which the runtime writes (set
/// first to what the server's HTML shows).
pub type StateSignal<T> = ReadSignal<ReadState<T>>;

/// A read in a hydrating page.
pub(crate) struct Read<T: ReadData> {
    driver: Driver<T>,
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

    /// Finds the text the server wrote for this read, by the same id order as the server's
    /// (none for a screen mounted after hydration, which reads for itself), shows at once what
    /// the server's HTML shows, and takes the read up from there.
    fn attach<R: Parse<T>>(
        request: Signal<ReadRequest>,
        policy: RetryPolicy,
        parse: R,
        view: View<T>,
    ) -> Self {
        let of = policy.max_attempts();
        let taken = written_by_server().and_then(|text| taken_up(text, of, &parse, view));
        Read {
            driver: Driver::take_up(request, policy, parse, view, taken),
            state: view.state.read_only(),
        }
    }

    fn state(&self) -> Self::State {
        self.state
    }

    fn try_again(&self) {
        self.driver.try_again();
    }

    fn cancel(&self) {
        self.driver.cancel();
    }

    fn trace(&self) -> Vec<TraceEvent> {
        self.driver.trace(server_trace)
    }

    /// `children` as they are, hydrating what the server's `<Suspense>` wrote: the part is
    /// in the HTML before anything waits, so the boundary has nothing to wait for in the
    /// browser. Once its read has come to something, the server's out-of-order chunk puts
    /// the children's own HTML where the fallback was, and takes the boundary's markers
    /// away; in order, the children's HTML is all the boundary writes. So the browser
    /// compiles no `<Suspense>` (5 KB gzipped) and no erased views, and hydrates the
    /// children where they are.
    ///
    /// The one thing the browser keeps of the boundary is how it numbers serialized data:
    /// leptos's `<Suspense>` takes an id as it is made (and on Leptos 0.9 numbers what is
    /// inside it within that id), on the server as in the browser, and every read's part is
    /// found by its id. This stands where the server's boundary stood, numbering as it did
    /// (`part::tests::the_browser_numbers_data_as_the_servers_suspense_does` holds the two
    /// to each other).
    fn suspend<V: IntoView + 'static>(
        self,
        children: impl Fn() -> V + Send + Sync + 'static,
    ) -> impl IntoView {
        in_place_of_suspense(children)
    }
}

/// The text the server wrote for the read being set up, taking its id; none where the page
/// was not rendered by a server, or for a screen mounted after hydration. Hydrating, a read
/// the server wrote nothing for is an empty text, which cannot be read: the screen says so.
fn written_by_server() -> Option<String> {
    let context = Owner::current_shared_context()?;
    let id = next_data_id(&*context);
    match context.read_data(&id) {
        Some(text) => Some(text),
        None if context.during_hydration() => Some(String::new()),
        None => None,
    }
}

/// Shows at once what the server's `text` says of the read (a read of `of` attempts), and
/// gives what the page takes up from it; `None` where the server did not read, and the page
/// reads for itself.
fn taken_up<T: ReadData>(
    text: String,
    of: u32,
    parse: &impl Parse<T>,
    view: View<T>,
) -> Option<TakenUp> {
    let part = ServerPart::read(&text, |body: &[u8]| parse(body).ok());
    if let Some(shown) = part.state(of, now()) {
        view.state.set(shown);
        view.clock.set(now());
    }
    let hand_over = match part {
        ServerPart::NotRead => return None,
        ServerPart::HandedOver(hand_over) => Some(hand_over),
        _ => None,
    };
    Some(TakenUp {
        hand_over,
        text: text.into(),
    })
}
