//! The page's reads that screens may join, by what makes two reads the same read.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::rc::{Rc, Weak};

use crate::budget::RetryPolicy;

/// What makes two reads the same read, so that they may share one action.
#[derive(PartialEq)]
pub(super) struct ReadKey {
    scope: Rc<str>,
    url: String,
    policy: RetryPolicy,
    data: TypeId,
    /// The body reader, by its type.
    reader: TypeId,
}

impl ReadKey {
    /// The key of a read of `url` on `scope` under `policy`, whose body `R` reads as `T`.
    /// `None` where the reader holds state (a closure that captures something): its type alone
    /// does not say what it reads, so no other read is the same. A reader without state (a
    /// `fn` item, a closure that captures nothing) is known by its type, which is stable and
    /// unique, unlike a function's address.
    pub(super) fn new<T: 'static, R: 'static>(
        scope: Rc<str>,
        url: String,
        policy: RetryPolicy,
    ) -> Option<ReadKey> {
        (size_of::<R>() == 0).then(|| ReadKey {
            scope,
            url,
            policy,
            data: TypeId::of::<T>(),
            reader: TypeId::of::<R>(),
        })
    }
}

/// A read screens may still join.
pub(super) trait Joinable {
    /// Whether a screen may join it now (it is loading or waiting, or about to start).
    fn joinable(&self) -> bool;
}

thread_local! {
    static READS: RefCell<Vec<(ReadKey, Weak<dyn Any>)>> = const { RefCell::new(Vec::new()) };
}

/// A read with this key that a screen may join.
pub(super) fn find<S: Joinable + 'static>(key: &ReadKey) -> Option<Rc<S>> {
    READS.with_borrow(|reads| {
        reads
            .iter()
            .filter(|(k, _)| k == key)
            .filter_map(|(_, w)| w.upgrade()?.downcast::<S>().ok())
            .find(|shared| shared.joinable())
    })
}

/// Makes `shared` joinable under `key`; forgets reads that are gone.
pub(super) fn add<S: 'static>(key: ReadKey, shared: &Rc<S>) {
    let any: Rc<dyn Any> = shared.clone();
    READS.with_borrow_mut(|reads| {
        reads.retain(|(_, w)| w.strong_count() > 0);
        reads.push((key, Rc::downgrade(&any)));
    });
}
