//! Where the ledger keeps its scopes, by name, and when each may next be forgotten.
//!
//! Two layouts of one map, chosen by target, because the two clients differ by orders of
//! magnitude: a browser page reads a few APIs, and a list searched in order is all it needs (a
//! hash map would cost every app that embeds a screen about 3.7 KB of gzipped wasm, measured by
//! the size gate); a server may read one scope per visitor, so it finds a scope by hash (keys
//! drawn at random, so visitors cannot be fed names that collide) and keeps the times at which
//! scopes may be forgotten in a heap. Both give the same answers; the tests run on both.

use std::time::Duration;

#[cfg(not(target_arch = "wasm32"))]
pub(crate) use by_hash::ScopeMap;
#[cfg(target_arch = "wasm32")]
pub(crate) use in_order::ScopeMap;

/// A browser page's few scopes, each with its `V`.
#[cfg(target_arch = "wasm32")]
mod in_order {
    use super::*;

    #[derive(Clone, Debug, Default)]
    pub(crate) struct ScopeMap<V>(Vec<(String, V)>);

    impl<V: Default> ScopeMap<V> {
        pub(crate) const fn new() -> Self {
            Self(Vec::new())
        }

        pub(crate) fn get(&self, scope: &str) -> Option<&V> {
            self.0.iter().find(|(s, _)| s == scope).map(|(_, st)| st)
        }

        pub(crate) fn get_mut(&mut self, scope: &str) -> Option<&mut V> {
            self.0
                .iter_mut()
                .find(|(s, _)| s == scope)
                .map(|(_, st)| st)
        }

        /// The scope's state, made empty if it had none.
        pub(crate) fn entry(&mut self, scope: &str) -> &mut V {
            let i = match self.0.iter().position(|(s, _)| s == scope) {
                Some(i) => i,
                None => {
                    self.0.push((scope.to_owned(), V::default()));
                    self.0.len() - 1
                }
            };
            &mut self.0[i].1
        }

        pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
            self.0.iter().map(|(s, st)| (s.as_str(), st))
        }

        pub(crate) fn len(&self) -> usize {
            self.0.len()
        }

        /// `scope` may be forgotten from `_at` on: a page's few scopes are all looked at by
        /// [`forget`](Self::forget), so nothing needs noting.
        pub(crate) fn note_expiry(&mut self, _at: Duration, _scope: &str) {}

        /// Forgets every scope `idle` says is idle: a page's few, all looked at.
        pub(crate) fn forget(
            &mut self,
            _now: Duration,
            _touched: &str,
            idle: impl Fn(&str, &V) -> bool,
        ) {
            // Smaller in the browser's wasm than `retain` (91 bytes gzipped, by the size gate).
            while let Some(i) = self.0.iter().position(|(scope, v)| idle(scope, v)) {
                self.0.swap_remove(i);
            }
        }
    }
}

/// A server's scopes, however many, each with its `V`: found by hash, their expiries in a heap.
#[cfg(not(target_arch = "wasm32"))]
mod by_hash {
    use std::cell::OnceCell;
    use std::cmp::Reverse;
    use std::collections::hash_map::{DefaultHasher, RandomState};
    use std::collections::{BinaryHeap, HashMap};
    use std::hash::BuildHasher;

    use super::*;

    #[derive(Clone, Debug, Default)]
    pub(crate) struct ScopeMap<V> {
        scopes: HashMap<String, V, Keys>,
        /// When a scope kept only by time (a block, a quota window) may be forgotten,
        /// earliest first; a scope may be noted more than once.
        expiries: BinaryHeap<Reverse<(Duration, String)>>,
    }

    impl<V: Default> ScopeMap<V> {
        pub(crate) const fn new() -> Self {
            Self {
                scopes: HashMap::with_hasher(Keys(OnceCell::new())),
                expiries: BinaryHeap::new(),
            }
        }

        pub(crate) fn get(&self, scope: &str) -> Option<&V> {
            self.scopes.get(scope)
        }

        pub(crate) fn get_mut(&mut self, scope: &str) -> Option<&mut V> {
            self.scopes.get_mut(scope)
        }

        /// The scope's state, made empty if it had none.
        pub(crate) fn entry(&mut self, scope: &str) -> &mut V {
            self.scopes.entry(scope.to_owned()).or_default()
        }

        pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
            self.scopes.iter().map(|(s, st)| (s.as_str(), st))
        }

        pub(crate) fn len(&self) -> usize {
            self.scopes.len()
        }

        /// `scope` may be forgotten from `at` on (its block or its quota window ends then).
        pub(crate) fn note_expiry(&mut self, at: Duration, scope: &str) {
            self.expiries.push(Reverse((at, scope.to_owned())));
        }

        /// Forgets `touched` and the scopes noted for a time that has passed by `now`, where
        /// `idle` says they are idle.
        pub(crate) fn forget(
            &mut self,
            now: Duration,
            touched: &str,
            idle: impl Fn(&str, &V) -> bool,
        ) {
            if self.scopes.get(touched).is_some_and(|v| idle(touched, v)) {
                self.scopes.remove(touched);
            }
            while self
                .expiries
                .peek()
                .is_some_and(|Reverse((t, _))| *t <= now)
            {
                let Some(Reverse((_, scope))) = self.expiries.pop() else {
                    break;
                };
                if self.scopes.get(&scope).is_some_and(|v| idle(&scope, v)) {
                    self.scopes.remove(&scope);
                }
            }
        }
    }

    /// Scope names hashed with keys drawn when the first scope is seen (std's `RandomState`);
    /// drawn late, so that a ledger can be built in a `const`.
    #[derive(Clone, Debug, Default)]
    struct Keys(OnceCell<RandomState>);

    impl BuildHasher for Keys {
        type Hasher = DefaultHasher;

        fn build_hasher(&self) -> DefaultHasher {
            self.0.get_or_init(RandomState::new).build_hasher()
        }
    }
}
