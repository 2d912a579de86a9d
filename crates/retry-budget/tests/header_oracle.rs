//! The header grammar a request is checked against (`ReadRequest::validate`, written by hand to
//! keep the `http` crate's parsers out of the browser's download), against `http` itself: for
//! random names and values, valid and not, the same verdict.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use retry_budget::request::{ReadRequest, RequestError};

/// What `validate` says of one header.
fn verdict(name: &str, value: &str) -> Result<(), RequestError> {
    ReadRequest::get("/").with_header(name, value).validate()
}

/// A byte string (each character a byte) that `http` takes as a header value.
fn http_takes_value(value: &str) -> bool {
    let bytes: Option<Vec<u8>> = value.chars().map(|c| u8::try_from(c).ok()).collect();
    bytes.is_some_and(|b| http::HeaderValue::from_bytes(&b).is_ok())
}

/// Names: mostly the characters that decide (every ASCII one, and a few beyond), some empty.
fn name() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            8 => (0u8..128).prop_map(char::from),
            1 => prop::sample::select(vec!['\u{e9}', '\u{ff}', '\u{100}', '\u{2028}']),
        ],
        0..12,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

/// Values: every Latin-1 character, and a few past it.
fn value() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            8 => (0u8..=255).prop_map(char::from),
            1 => prop::sample::select(vec!['\u{100}', '\u{20ac}', '\u{1f600}']),
        ],
        0..12,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

proptest! {
    #[test]
    fn a_name_is_a_token_exactly_where_http_says_so(name in name()) {
        let ours = !matches!(verdict(&name, "v"), Err(RequestError::NotAToken(_)));
        let http = http::HeaderName::from_bytes(name.as_bytes()).is_ok();
        prop_assert_eq!(ours, http, "{:?}", name);
    }

    #[test]
    fn a_value_is_sent_exactly_where_http_takes_it_and_no_white_space_would_be_stripped(
        value in value()
    ) {
        let ours = verdict("x-test", &value).is_ok();
        let stripped = value.trim_matches([' ', '\t']).len() != value.len();
        prop_assert_eq!(ours, http_takes_value(&value) && !stripped, "{:?}", value);
    }
}
