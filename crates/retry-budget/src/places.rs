//! The places on one scope: which reads hold one (waiting, queued or in flight), and the order
//! the queued ones are served in (higher priority first, then the order they queued).
//!
//! Two layouts of one set, chosen by target, as the reads' map is (`reads`): a browser page
//! runs a few reads on a scope, and one list in the order they took their places is all it
//! needs (no tree in every app that embeds a screen); a server may queue tens of thousands on
//! one scope behind its in-flight limit, so it finds a read by its ticket in a tree, keeps
//! the queue ordered, and counts each place as it changes, and no input costs more for the
//! reads it does not touch. Both give the same answers; the client's tests run on both.

use super::policy::Priority;

/// Where one read stands with its scope's places in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Place {
    /// Neither waiting, queued nor in flight: stopped.
    #[default]
    Unplaced,
    /// Waiting for its next attempt.
    Waiting,
    /// In the scope's queue.
    Queued,
    /// Holding a place in flight: its attempt runs, or the ledger granted it one.
    InFlight,
}

/// A read's place on its scope, as it takes it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Taken {
    /// Where it stands (never [`Place::Unplaced`]: such a read holds no place).
    pub(crate) place: Place,
    /// The most requests in flight it may start beside (queued reads only).
    pub(crate) limit: u32,
    /// Which queued reads it goes before.
    pub(crate) priority: Priority,
}

#[cfg(not(target_arch = "wasm32"))]
pub(crate) use by_ticket::Places;
#[cfg(target_arch = "wasm32")]
pub(crate) use in_order::Places;

/// A page's few places, in the order they were taken.
#[cfg(target_arch = "wasm32")]
mod in_order {
    use super::*;

    #[derive(Clone, Debug, Default)]
    pub(crate) struct Places(Vec<(u64, Taken)>);

    impl Places {
        /// Where the read `ticket` stands.
        pub(crate) fn of(&self, ticket: u64) -> Place {
            let held = self.0.iter().find(|(t, _)| *t == ticket);
            held.map_or(Place::Unplaced, |(_, taken)| taken.place)
        }

        /// How many reads stand at `place`.
        pub(crate) fn count(&self, place: Place) -> u32 {
            let n = self
                .0
                .iter()
                .filter(|(_, taken)| taken.place == place)
                .count();
            u32::try_from(n).unwrap_or(u32::MAX)
        }

        /// The read `ticket` gives up whatever place it holds.
        pub(crate) fn remove(&mut self, ticket: u64) {
            self.0.retain(|(t, _)| *t != ticket);
        }

        /// The read `ticket` takes a place, giving up any it held; a queued one queues last
        /// among its priority.
        pub(crate) fn insert(&mut self, ticket: u64, taken: Taken) {
            self.remove(ticket);
            self.0.push((ticket, taken));
        }

        /// The queued read served next, and its limit.
        pub(crate) fn next_queued(&self) -> Option<(u64, u32)> {
            let queued = self.0.iter().enumerate();
            let queued = queued.filter(|(_, (_, taken))| taken.place == Place::Queued);
            let (_, (ticket, taken)) = queued.min_by_key(|(i, (_, taken))| (taken.priority, *i))?;
            Some((*ticket, taken.limit))
        }

        /// Whether a read of `priority` or a higher one is queued.
        pub(crate) fn queued_at_or_above(&self, priority: Priority) -> bool {
            let mut queued = self.0.iter().filter(|(_, t)| t.place == Place::Queued);
            queued.any(|(_, taken)| taken.priority <= priority)
        }

        /// One read holding a place, if any does.
        pub(crate) fn any(&self) -> Option<u64> {
            self.0.first().map(|(ticket, _)| *ticket)
        }

        /// Every read holding a place, in no particular order.
        pub(crate) fn tickets(&self) -> Vec<u64> {
            self.0.iter().map(|(ticket, _)| *ticket).collect()
        }

        pub(crate) fn is_empty(&self) -> bool {
            self.0.is_empty()
        }
    }
}

/// A server's places, by ticket, the queue kept in the order it is served, each place counted.
#[cfg(not(target_arch = "wasm32"))]
mod by_ticket {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;

    #[derive(Clone, Debug, Default)]
    pub(crate) struct Places {
        /// Each read holding a place, and when it queued (if it did).
        held: BTreeMap<u64, (Taken, u64)>,
        /// The queued reads in the order they are served: priority, when they queued, ticket.
        queue: BTreeSet<(Priority, u64, u64)>,
        /// Reads waiting, and in flight (the queued are the queue's length).
        waiting: u32,
        in_flight: u32,
        /// Counts the reads that have queued, so that each queues after the ones before it.
        queued_so_far: u64,
    }

    impl Places {
        pub(crate) fn of(&self, ticket: u64) -> Place {
            self.held
                .get(&ticket)
                .map_or(Place::Unplaced, |(t, _)| t.place)
        }

        pub(crate) fn count(&self, place: Place) -> u32 {
            match place {
                Place::Unplaced => 0,
                Place::Waiting => self.waiting,
                Place::Queued => u32::try_from(self.queue.len()).unwrap_or(u32::MAX),
                Place::InFlight => self.in_flight,
            }
        }

        pub(crate) fn remove(&mut self, ticket: u64) {
            let Some((taken, queued)) = self.held.remove(&ticket) else {
                return;
            };
            match taken.place {
                Place::Unplaced => {}
                Place::Waiting => self.waiting -= 1,
                Place::Queued => {
                    self.queue.remove(&(taken.priority, queued, ticket));
                }
                Place::InFlight => self.in_flight -= 1,
            }
        }

        pub(crate) fn insert(&mut self, ticket: u64, taken: Taken) {
            self.remove(ticket);
            let queued = self.queued_so_far;
            match taken.place {
                Place::Unplaced => return,
                Place::Waiting => self.waiting += 1,
                Place::Queued => {
                    self.queued_so_far += 1;
                    self.queue.insert((taken.priority, queued, ticket));
                }
                Place::InFlight => self.in_flight += 1,
            }
            self.held.insert(ticket, (taken, queued));
        }

        pub(crate) fn next_queued(&self) -> Option<(u64, u32)> {
            let &(_, _, ticket) = self.queue.first()?;
            Some((ticket, self.held.get(&ticket)?.0.limit))
        }

        pub(crate) fn queued_at_or_above(&self, priority: Priority) -> bool {
            self.queue
                .first()
                .is_some_and(|(first, _, _)| *first <= priority)
        }

        pub(crate) fn any(&self) -> Option<u64> {
            self.held.keys().next().copied()
        }

        pub(crate) fn tickets(&self) -> Vec<u64> {
            self.held.keys().copied().collect()
        }

        pub(crate) fn is_empty(&self) -> bool {
            self.held.is_empty()
        }
    }
}
