//! Where a client keeps its reads, by name, and when each one's timer is due; and the events
//! it holds for its driver.
//!
//! Two layouts of one map, chosen by target, as the scopes' map is (`scope_map`): a browser
//! page runs a few reads, and a list in the order they started, searched by halves and
//! scanned for the earliest timer, is all it needs (no hash map or heap in every app that
//! embeds a screen); a server may run tens of thousands at once, so it finds a read by hash and
//! keeps the reads' timers in a heap, and no input costs more for the reads it does not touch.
//! Both give the same answers; the client's tests run on both.

use std::time::Duration;

/// The client's name for one read, unique for as long as the client lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReadId(pub(crate) u64);

impl ReadId {
    /// The read's number: never given to another read of the same client.
    pub const fn number(self) -> u64 {
        self.0
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub(crate) use by_hash::{Events, Reads};

impl<V> Default for Reads<V> {
    fn default() -> Self {
        Self::new()
    }
}
#[cfg(target_arch = "wasm32")]
pub(crate) use in_order::{Events, Reads};

/// A browser page's few reads, each with its `V`, in the order they started.
#[cfg(target_arch = "wasm32")]
mod in_order {
    use super::*;

    #[derive(Clone, Debug)]
    pub(crate) struct Reads<V>(Vec<(ReadId, V)>);

    /// The events a page's driver has not polled yet, oldest first: a few at a time, so each
    /// is taken from the front of a list.
    #[derive(Clone, Debug)]
    pub(crate) struct Events<E>(Vec<E>);

    impl<E> Default for Events<E> {
        fn default() -> Self {
            Self::new()
        }
    }

    impl<E> Events<E> {
        pub(crate) const fn new() -> Self {
            Self(Vec::new())
        }

        pub(crate) fn push_back(&mut self, event: E) {
            self.0.push(event);
        }

        pub(crate) fn pop_front(&mut self) -> Option<E> {
            (!self.0.is_empty()).then(|| self.0.remove(0))
        }
    }

    impl<V> Reads<V> {
        pub(crate) const fn new() -> Self {
            Self(Vec::new())
        }

        fn index(&self, id: ReadId) -> Option<usize> {
            self.0.binary_search_by_key(&id, |(i, _)| *i).ok()
        }

        /// Adds the read `id`, named after every read already here.
        pub(crate) fn insert(&mut self, id: ReadId, read: V) {
            self.0.push((id, read));
        }

        pub(crate) fn get(&self, id: ReadId) -> Option<&V> {
            self.index(id).map(|i| &self.0[i].1)
        }

        pub(crate) fn get_mut(&mut self, id: ReadId) -> Option<&mut V> {
            self.index(id).map(|i| &mut self.0[i].1)
        }

        pub(crate) fn remove(&mut self, id: ReadId) -> Option<V> {
            self.index(id).map(|i| self.0.remove(i).1)
        }

        /// The reads `on` says are on a scope (a server's reads list them, `listed`), in the
        /// order they started: a page's few are all looked at in that order (so it compiles
        /// no sort).
        pub(crate) fn in_start_order(
            &self,
            _listed: impl FnOnce() -> Vec<ReadId>,
            on: impl Fn(&V) -> bool,
        ) -> Vec<ReadId> {
            self.ids_where(on)
        }

        /// The read `id`'s timer is now `at`: a page's few are all looked at when asked, so
        /// nothing needs noting.
        pub(crate) fn timer_moved(&mut self, _id: ReadId, _at: Option<Duration>) {}

        /// The earliest of the reads' timers, each read's as `timer` gives it.
        pub(crate) fn earliest(&self, timer: impl Fn(&V) -> Option<Duration>) -> Option<Duration> {
            self.0.iter().filter_map(|(_, read)| timer(read)).min()
        }

        /// The reads whose timer is due at `now`, in the order they started.
        pub(crate) fn due(
            &mut self,
            now: Duration,
            timer: impl Fn(&V) -> Option<Duration>,
        ) -> Vec<ReadId> {
            self.ids_where(|read| timer(read).is_some_and(|t| t <= now))
        }

        /// The reads `is` holds for, in the order they started.
        fn ids_where(&self, is: impl Fn(&V) -> bool) -> Vec<ReadId> {
            let mut ids = Vec::new();
            for (id, read) in &self.0 {
                if is(read) {
                    ids.push(*id);
                }
            }
            ids
        }
    }
}

/// A server's reads, however many, each with its `V`: found by hash, their timers in a heap.
#[cfg(not(target_arch = "wasm32"))]
mod by_hash {
    use std::cmp::Reverse;
    use std::collections::hash_map::DefaultHasher;
    use std::collections::{BinaryHeap, HashMap};
    use std::hash::BuildHasherDefault;

    use super::*;

    /// The events a server's driver has not polled yet, oldest first: a timer that fires for
    /// thousands of reads queues thousands of steps, each taken from the front in constant
    /// time.
    pub(crate) type Events<E> = std::collections::VecDeque<E>;

    /// Read names are the client's own counter, never a visitor's input: hashed with fixed keys.
    type ByName = BuildHasherDefault<DefaultHasher>;

    #[derive(Clone, Debug)]
    pub(crate) struct Reads<V> {
        /// Each read, with the timer the heap last heard of for it.
        reads: HashMap<ReadId, (V, Option<Duration>), ByName>,
        /// Every timer the reads have had, earliest first. An entry is current while its read
        /// is here with that timer; the earliest entry is always current (each change drops
        /// the ones that are not from the top), and the heap is rebuilt once more than half of
        /// it is stale.
        timers: BinaryHeap<Reverse<(Duration, ReadId)>>,
    }

    impl<V> Reads<V> {
        pub(crate) const fn new() -> Self {
            Self {
                reads: HashMap::with_hasher(BuildHasherDefault::new()),
                timers: BinaryHeap::new(),
            }
        }

        /// Adds the read `id`.
        pub(crate) fn insert(&mut self, id: ReadId, read: V) {
            self.reads.insert(id, (read, None));
        }

        pub(crate) fn get(&self, id: ReadId) -> Option<&V> {
            self.reads.get(&id).map(|(read, _)| read)
        }

        pub(crate) fn get_mut(&mut self, id: ReadId) -> Option<&mut V> {
            self.reads.get_mut(&id).map(|(read, _)| read)
        }

        pub(crate) fn remove(&mut self, id: ReadId) -> Option<V> {
            let (read, _) = self.reads.remove(&id)?;
            self.drop_stale();
            Some(read)
        }

        /// The reads `listed` gives (those `on` a scope), in the order they started (names
        /// are given in that order): only those are looked at.
        pub(crate) fn in_start_order(
            &self,
            listed: impl FnOnce() -> Vec<ReadId>,
            _on: impl Fn(&V) -> bool,
        ) -> Vec<ReadId> {
            let mut ids = listed();
            ids.sort_unstable();
            ids
        }

        /// The read `id`'s timer is now `at` (`None`: it has none).
        pub(crate) fn timer_moved(&mut self, id: ReadId, at: Option<Duration>) {
            let Some((_, timer)) = self.reads.get_mut(&id) else {
                return;
            };
            if *timer == at {
                return;
            }
            *timer = at;
            if let Some(at) = at {
                self.timers.push(Reverse((at, id)));
            }
            self.drop_stale();
        }

        /// The earliest of the reads' timers.
        pub(crate) fn earliest(&self, _timer: impl Fn(&V) -> Option<Duration>) -> Option<Duration> {
            self.timers.peek().map(|Reverse((at, _))| *at)
        }

        /// The reads whose timer is due at `now`, in the order they started. Each is taken
        /// off the heap: the caller tells [`timer_moved`](Self::timer_moved) what its timer is
        /// once it has taken it (or found it moved).
        pub(crate) fn due(
            &mut self,
            now: Duration,
            _timer: impl Fn(&V) -> Option<Duration>,
        ) -> Vec<ReadId> {
            let mut due = Vec::new();
            while let Some(&Reverse((at, id))) = self.timers.peek() {
                if at > now {
                    break;
                }
                self.timers.pop();
                if let Some((_, timer)) = self.reads.get_mut(&id) {
                    if *timer == Some(at) {
                        *timer = None;
                        due.push(id);
                    }
                }
            }
            self.drop_stale();
            due.sort_unstable();
            due
        }

        fn is_current(&self, at: Duration, id: ReadId) -> bool {
            self.reads.get(&id).is_some_and(|(_, t)| *t == Some(at))
        }

        /// Drops stale entries from the top, so the top is current; rebuilds the heap from the
        /// reads' timers once most of it is stale.
        fn drop_stale(&mut self) {
            while let Some(&Reverse((at, id))) = self.timers.peek() {
                if self.is_current(at, id) {
                    break;
                }
                self.timers.pop();
            }
            if self.timers.len() > 2 * self.reads.len() + 64 {
                self.timers = (self.reads.iter())
                    .filter_map(|(id, (_, t))| t.map(|at| Reverse((at, *id))))
                    .collect();
            }
        }
    }
}
