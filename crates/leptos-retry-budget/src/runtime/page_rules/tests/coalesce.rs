//! Which reads are the same read.

use std::cell::Cell;
use std::rc::Rc;

use retry_budget::request::ReadRequest;
use retry_budget::RetryPolicy;

use crate::runtime::page_rules::coalesce::{add, find, Joinable, ParserKind, ReadKey};

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
