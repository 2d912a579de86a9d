//! A hydrating page takes up a read the server's render began: the same read, its first action
//! the server's (its data or its stop already shown, or the wait it handed over, gone on with
//! here). Only a `hydrate` build has it.

use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;

use super::client;
use super::read::{run_of, Driver, ServerFirst, ServerText, Shared};
use crate::runtime::state::{Parse, ReadData, ReadState, View};
use retry_budget::{HandOver, ReadRequest, RetryPolicy};

/// What a hydrating page takes up from the server's render of a read: the wait it handed
/// over, if it handed one over (else its data or its stop, which the screen already shows),
/// and the text it wrote, which holds what it did.
pub(crate) struct TakenUp {
    /// The wait the server handed over, which the page goes on with as the same action.
    pub(crate) hand_over: Option<HandOver>,
    /// The text the server wrote, its trace of the action read back when a screen asks.
    pub(crate) text: ServerText,
}

impl<T: ReadData> Driver<T> {
    /// [`attach`](Self::attach), for a read the server's render may have read (`taken`): the
    /// read is then the server's and no other screen's, and its first action takes up what
    /// the server knew (the data or the stop, with no request; or the wait handed over, which
    /// it goes on with). Where the server did not read, the page reads as a CSR page does.
    pub(crate) fn take_up<R: Parse<T>>(
        request: Signal<ReadRequest>,
        policy: RetryPolicy,
        parse: R,
        view: View<T>,
        taken: Option<TakenUp>,
    ) -> Self {
        let first = taken.map(|TakenUp { hand_over, text }| ServerFirst {
            action: Box::new(move |shared: &Rc<Shared<T>>, generation| {
                if let Some(hand_over) = hand_over {
                    resume(shared, &hand_over, generation);
                }
            }),
            text,
        });
        Self::attach(request, policy, parse, view, first)
    }
}

/// The first action goes on with the wait the server's render handed over, as the same action
/// ([`Client::handle_resume`](retry_budget::Client::handle_resume)), its deadline counted from
/// the page's time origin (zero on `performance.now()`), which came before the server started
/// the read.
fn resume<T: ReadData>(shared: &Rc<Shared<T>>, hand_over: &HandOver, generation: u64) {
    let scope = shared.scope.clone();
    let policy = shared.policy.clone();
    let resumed = client::begin(run_of(shared, generation), |client, now| {
        client.handle_resume(now, Duration::ZERO, &scope, policy, hand_over)
    });
    if let Err(e) = resumed {
        shared.screens.show(ReadState::Refused(e.into()));
    }
}
