//! The page's reads that screens may join, by what makes two reads the same read.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::rc::{Rc, Weak};

use retry_budget::request::ReadRequest;
use retry_budget::RetryPolicy;

/// What makes two reads the same read, so that they may share one action.
#[derive(PartialEq)]
pub(crate) struct ReadKey {
    scope: Rc<str>,
    /// The URL, the headers (two reads that differ only in a header are two reads) and the
    /// credentials mode.
    request: ReadRequest,
    policy: RetryPolicy,
    data: TypeId,
    parser: TypeId,
}

/// A body parser's identity, where it has one.
#[derive(Clone, Copy)]
pub(crate) struct ParserKind(Option<TypeId>);

impl ParserKind {
    /// A parser of type `R`: known by its type where it holds no state (a `fn` item, a closure
    /// that captures nothing), which is stable and unique, unlike a function's address. A
    /// parser that holds state has no identity: its type alone does not say what it reads.
    pub(crate) fn of<R: 'static>() -> Self {
        Self((size_of::<R>() == 0).then(TypeId::of::<R>))
    }
}

impl ReadKey {
    /// The key of a read of `request` on `scope` under `policy`, whose body `parser` reads as
    /// `T`; `None` where the parser has no identity, so that no other read is the same.
    pub(crate) fn new<T: 'static>(
        scope: Rc<str>,
        request: &ReadRequest,
        policy: &RetryPolicy,
        parser: ParserKind,
    ) -> Option<ReadKey> {
        let parser = parser.0?;
        Some(ReadKey {
            scope,
            request: request.clone(),
            policy: policy.clone(),
            data: TypeId::of::<T>(),
            parser,
        })
    }
}

/// A read screens may still join.
pub(crate) trait Joinable {
    /// Whether a screen may join it now (it is loading or waiting, or about to start).
    fn joinable(&self) -> bool;
}

thread_local! {
    static READS: RefCell<Vec<(ReadKey, Weak<dyn Any>)>> = const { RefCell::new(Vec::new()) };
}

/// A read with this key that a screen may join.
pub(crate) fn find<S: Joinable + 'static>(key: &ReadKey) -> Option<Rc<S>> {
    READS.with_borrow(|reads| {
        reads
            .iter()
            .filter(|(k, _)| k == key)
            .filter_map(|(_, w)| w.upgrade()?.downcast::<S>().ok())
            .find(|shared| shared.joinable())
    })
}

/// Makes `shared` joinable under `key`; forgets reads that are gone.
pub(crate) fn add<S: 'static>(key: ReadKey, shared: &Rc<S>) {
    let any: Rc<dyn Any> = shared.clone();
    READS.with_borrow_mut(|reads| {
        reads.retain(|(_, w)| w.strong_count() > 0);
        reads.push((key, Rc::downgrade(&any)));
    });
}
