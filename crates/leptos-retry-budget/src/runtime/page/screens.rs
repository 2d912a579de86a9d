//! The screens that show one read: more than one when identical reads share it. Each write is
//! `try_`, as a screen's owner may be gone.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use leptos::prelude::{Set, Update};

use super::time::now;
use crate::runtime::state::{ReadData, ReadState, View};

thread_local! {
    /// The last screen id handed out on the page.
    static LAST_SCREEN: Cell<u64> = const { Cell::new(0) };
}

/// A new screen's id, unique on the page.
pub(super) fn next_screen() -> u64 {
    LAST_SCREEN.with(|n| {
        n.set(n.get() + 1);
        n.get()
    })
}

/// Every screen showing one read, by id, and what they show now.
pub(super) struct Screens<T: 'static> {
    views: RefCell<Vec<(u64, View<T>)>>,
    /// What the screens show now, for one that joins.
    shown: RefCell<Option<ReadState<T>>>,
}

impl<T: 'static> Screens<T> {
    /// No screens yet.
    pub(super) const fn new() -> Self {
        Self {
            views: RefCell::new(Vec::new()),
            shown: RefCell::new(None),
        }
    }

    /// Screen `id` leaves. Returns whether it was the last.
    pub(super) fn leave(&self, id: u64) -> bool {
        let mut views = self.views.borrow_mut();
        views.retain(|(v, _)| *v != id);
        views.is_empty()
    }

    /// Whether no screen shows the read.
    pub(super) fn is_empty(&self) -> bool {
        self.views.borrow().is_empty()
    }
}

impl<T: ReadData> Screens<T> {
    /// Screen `id` joins: it shows what the others show from now on.
    pub(super) fn join(&self, id: u64, view: View<T>) {
        if let Some(state) = self.shown.borrow().clone() {
            view.state.try_set(state);
            view.clock.try_set(now());
        }
        self.views.borrow_mut().push((id, view));
    }

    /// Every screen shows `state`.
    pub(super) fn show(&self, state: ReadState<T>) {
        for (_, view) in self.views.borrow().iter() {
            view.state.try_set(state.clone());
        }
        self.shown.replace(Some(state));
    }

    /// The read's trace grew: every screen that shows it reads it again.
    pub(super) fn show_trace(&self) {
        for (_, view) in self.views.borrow().iter() {
            view.traced.try_update(|n| *n += 1);
        }
    }

    /// Every screen's clock reads `at`.
    pub(super) fn show_clock(&self, at: Duration) {
        for (_, view) in self.views.borrow().iter() {
            view.clock.try_set(at);
        }
    }
}
