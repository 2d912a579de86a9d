//! The page's reads that screens may join, by what makes two reads the same read.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::rc::{Rc, Weak};

use retry_budget::request::ReadRequest;
use retry_budget::RetryPolicy;

/// What makes two reads the same read, so that they may share one action.
#[derive(PartialEq)]
pub(super) struct ReadKey {
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
pub(super) struct ParserKind(Option<TypeId>);

impl ParserKind {
    /// A parser of type `R`: known by its type where it holds no state (a `fn` item, a closure
    /// that captures nothing), which is stable and unique, unlike a function's address. A
    /// parser that holds state has no identity: its type alone does not say what it reads.
    pub(super) fn of<R: 'static>() -> Self {
        Self((size_of::<R>() == 0).then(TypeId::of::<R>))
    }
}

impl ReadKey {
    /// The key of a read of `request` on `scope` under `policy`, whose body `parser` reads as
    /// `T`; `None` where the parser has no identity, so that no other read is the same.
    pub(super) fn new<T: 'static>(
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

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use retry_budget::request::ReadRequest;
    use retry_budget::RetryPolicy;

    use super::{add, find, Joinable, ParserKind, ReadKey};

    const URL: &str = "https://api.example.com/v1/palettes";

    fn parse_number(body: &[u8]) -> Option<u32> {
        std::str::from_utf8(body).ok()?.parse().ok()
    }

    fn kind_of<R: Fn(&[u8]) -> Option<u32> + 'static>(_: &R) -> ParserKind {
        ParserKind::of::<R>()
    }

    fn key(request: &ReadRequest, policy: &RetryPolicy) -> Option<ReadKey> {
        ReadKey::new::<u32>("api".into(), request, policy, kind_of(&parse_number))
    }

    #[test]
    fn reads_that_differ_only_in_a_header_are_two_reads() {
        let policy = RetryPolicy::new();
        let a = ReadRequest::get(URL).with_header("Authorization", "Bearer a");
        let b = ReadRequest::get(URL).with_header("Authorization", "Bearer b");
        assert!(key(&a, &policy) == key(&a.clone(), &policy));
        assert!(key(&a, &policy) != key(&b, &policy));
        assert!(key(&a, &policy) != key(&ReadRequest::get(URL), &policy));
    }

    #[test]
    fn another_scope_policy_data_type_or_parser_is_another_read() {
        let request = ReadRequest::get(URL);
        let policy = RetryPolicy::new();
        let one = key(&request, &policy);
        let scope = ReadKey::new::<u32>("other".into(), &request, &policy, kind_of(&parse_number));
        let more = key(&request, &policy.clone().with_max_attempts(5));
        let data = ReadKey::new::<u64>("api".into(), &request, &policy, kind_of(&parse_number));
        let by_hand = |body: &[u8]| parse_number(body);
        let parser = ReadKey::new::<u32>("api".into(), &request, &policy, kind_of(&by_hand));
        for other in [scope, more, data, parser] {
            assert!(other.is_some() && other != one);
        }
    }

    #[test]
    fn a_parser_that_holds_state_makes_a_read_no_other_read_joins() {
        let base = 10;
        let with_state = move |body: &[u8]| parse_number(body).map(|n| n + base);
        let key = ReadKey::new::<u32>(
            "api".into(),
            &ReadRequest::get(URL),
            &RetryPolicy::new(),
            kind_of(&with_state),
        );
        assert!(key.is_none());
    }

    struct Read(Cell<bool>);

    impl Joinable for Read {
        fn joinable(&self) -> bool {
            self.0.get()
        }
    }

    #[test]
    fn a_screen_joins_a_read_only_while_it_is_joinable_and_held() {
        let request = ReadRequest::get(format!("{URL}?joins"));
        let policy = RetryPolicy::new();
        let read = Rc::new(Read(Cell::new(true)));
        add(key(&request, &policy).unwrap(), &read);
        let found = find::<Read>(&key(&request, &policy).unwrap());
        assert!(found.is_some_and(|found| Rc::ptr_eq(&found, &read)));
        read.0.set(false);
        assert!(find::<Read>(&key(&request, &policy).unwrap()).is_none());
        read.0.set(true);
        drop(read);
        assert!(find::<Read>(&key(&request, &policy).unwrap()).is_none());
    }
}
