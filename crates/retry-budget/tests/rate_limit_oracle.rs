//! The `RateLimit` field as the library reads it (`sfv`'s visitor, with the policies taken as
//! they are parsed), against an oracle that builds `sfv`'s parsed `List` and reads it the plain
//! way: random values, valid and not, must give the same quota, the same verdict, and a grammar
//! failure at the same byte.
#![cfg(not(target_arch = "wasm32"))]

use std::time::Duration;

use proptest::prelude::*;
use retry_budget::Response;

/// Why a value gives no quota: the byte at which it fails the grammar, or `None` where it
/// parses and a policy in it is not one.
type Refusal = Option<usize>;

/// What the oracle makes of a `RateLimit` value: the tightest policy's (remaining, reset), or
/// why not.
fn oracle(v: &str) -> Result<(u64, Option<u64>), Refusal> {
    let list = match sfv::Parser::new(v).parse::<sfv::List>() {
        Ok(list) => list,
        Err(e) => return Err(Some(e.index().expect("a grammar error has a place"))),
    };
    let mut best: Option<(u64, Option<u64>)> = None;
    for entry in &list {
        let sfv::ListEntry::Item(item) = entry else {
            return Err(None);
        };
        let param = |key: &str| match item.params.get(key) {
            None => Ok(None),
            Some(value) => value
                .as_integer()
                .and_then(|i| u64::try_from(i64::from(i)).ok())
                .map(Some)
                .ok_or(None),
        };
        let r = param("r")?.ok_or(None)?;
        let t = param("t")?;
        let tighter =
            best.is_none_or(|(br, bt)| (r, std::cmp::Reverse(t)) < (br, std::cmp::Reverse(bt)));
        if tighter {
            best = Some((r, t));
        }
    }
    best.ok_or(None)
}

/// What the library makes of it, in the same terms.
fn library(v: &str) -> Result<(u64, Option<u64>), Refusal> {
    let fields = Response::new(200).rate_limit("RateLimit", v).rate_limit;
    let (quota, ignored) = fields.quota(None);
    match quota {
        Some(q) => {
            assert!(ignored.is_empty(), "{v:?}: {ignored:?}");
            Ok((q.remaining, q.reset.map(|d: Duration| d.as_secs())))
        }
        None => {
            let why = ignored
                .first()
                .expect("an unused field is named")
                .to_string();
            let at = why
                .strip_prefix("RateLimit ignored: not a structured-field List (at byte ")
                .map(|rest| rest.trim_end_matches(')').parse().expect("a byte offset"));
            Err(at)
        }
    }
}

/// A policy: a name (a bare item of any kind), then parameters, some of them `r` and `t`,
/// whole numbers or not, a key perhaps twice; or an inner list.
fn member() -> impl Strategy<Value = String> {
    let name = prop::sample::select(vec![
        "\"w\"",
        "\"a\\\"b\\\\\"",
        "day",
        "*t:/x",
        "?1",
        ":AQ==:",
        ":AQ:",
        "::",
        "@1700000000",
        "%\"caf%c3%a9\"",
        "1.25",
        "-7",
        "(\"w\" day)",
        "( 1  2 );a=1",
    ])
    .prop_map(str::to_owned);
    let value = prop_oneof![
        6 => (0u64..100).prop_map(|n| n.to_string()),
        1 => Just("999999999999999".to_owned()),
        1 => Just("1234567890123456".to_owned()),
        1 => Just("-1".to_owned()),
        1 => Just("1.5".to_owned()),
        1 => Just("1.2345".to_owned()),
        1 => Just("999999999999.999".to_owned()),
        1 => Just("1234567890123.5".to_owned()),
        1 => Just("tok".to_owned()),
        1 => Just("?0".to_owned()),
        1 => Just("@12".to_owned()),
        1 => Just(":AQ=:".to_owned()),
    ];
    let param = (
        prop_oneof![3 => Just("r"), 3 => Just("t"), 1 => Just("q"), 1 => Just(" r")],
        prop::option::weighted(0.9, value),
    )
        .prop_map(|(k, v)| match v {
            Some(v) => format!(";{k}={v}"),
            None => format!(";{k}"),
        });
    (name, prop::collection::vec(param, 0..4)).prop_map(|(n, p)| n + &p.concat())
}

/// RateLimit values: Lists of policies, and the same with a piece of grammar broken.
fn value() -> impl Strategy<Value = String> {
    let list = || {
        (
            prop::collection::vec(member(), 0..4),
            prop::sample::select(vec![", ", ",", " ,\t", "\t, "]),
        )
            .prop_map(|(m, sep)| m.join(sep))
    };
    let broken = (
        list(),
        any::<prop::sample::Index>(),
        prop::sample::select(vec![
            ",", ";", "=", "\"", "(", ")", " ,", " ", "\t", "\\", "@", "%", ":", ".", "-", "?",
            "A", "é", "\u{7f}",
        ]),
    )
        .prop_map(|(l, at, bad)| {
            let i = at.index(l.len() + 1);
            let i = (0..=i).rev().find(|i| l.is_char_boundary(*i)).unwrap_or(0);
            format!("{}{bad}{}", &l[..i], &l[i..])
        });
    prop_oneof![3 => list(), 2 => broken]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]

    #[test]
    fn the_library_reads_every_value_as_sfvs_parsed_list_does(v in value()) {
        prop_assert_eq!(library(&v), oracle(&v), "{:?}", v);
    }

    /// Short runs of the grammar's own characters, mostly not a List: every failure at the
    /// byte `sfv` names.
    #[test]
    fn the_library_fails_where_sfv_fails(v in "[a-z0-9A=+/ ,;\"():?@%*.\\\\\t-]{0,14}") {
        prop_assert_eq!(library(&v), oracle(&v), "{:?}", v);
    }

    /// Byte sequences: base64 with and without padding, and broken.
    #[test]
    fn byte_sequences_are_judged_as_sfv_judges_them(b in "[AQw+/=!]{0,9}") {
        let v = format!(":{b}:;r=1");
        prop_assert_eq!(library(&v), oracle(&v), "{:?}", v);
    }

    /// Display strings: escapes that spell UTF-8 or not.
    #[test]
    fn display_strings_are_judged_as_sfv_judges_them(d in "(%[0-9a-fA-F]{0,2}|[a\"]){0,5}") {
        let v = format!("%\"{d}\";r=1");
        prop_assert_eq!(library(&v), oracle(&v), "{:?}", v);
    }
}

#[test]
fn the_oracle_sees_each_kind_of_value() {
    // So the property above compares more than refusals.
    assert_eq!(oracle("\"a\";r=5;t=9, \"b\";r=2;t=60"), Ok((2, Some(60))));
    assert_eq!(oracle("\"a\";r=1;r=3"), Ok((3, None)), "the last r counts");
    assert_eq!(oracle("(\"a\");r=1"), Err(None));
    assert_eq!(oracle("\"a\";t=1"), Err(None));
    assert_eq!(oracle("\"a\";r=1,"), Err(Some(7)));
    for v in [
        "\"a\";r=1;r=3",
        "(\"a\");r=1",
        "\"a\";t=1",
        "\"a\";r=1,",
        "\"a\";r=-1",
    ] {
        assert_eq!(library(v), oracle(v), "{v}");
    }
}
