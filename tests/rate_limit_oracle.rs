//! The `RateLimit` field as the library reads it (sfv's grammar, visited without building a
//! tree), against an oracle that builds sfv's parsed `List` and reads it the plain way:
//! random values, valid and not, must give the same quota and the same verdict.
#![cfg(not(target_arch = "wasm32"))]

use std::time::Duration;

use palette_list::budget::Response;
use proptest::prelude::*;

/// What the oracle makes of a `RateLimit` value: the tightest policy's (remaining, reset),
/// or `Err` with whether the value failed the grammar (rather than naming a bad policy).
fn oracle(v: &str) -> Result<(u64, Option<u64>), bool> {
    let Ok(list) = sfv::Parser::new(v).parse::<sfv::List>() else {
        return Err(true);
    };
    let mut best: Option<(u64, Option<u64>)> = None;
    for entry in &list {
        let sfv::ListEntry::Item(item) = entry else {
            return Err(false);
        };
        let param = |key: &str| match item.params.get(key) {
            None => Ok(None),
            Some(value) => value
                .as_integer()
                .and_then(|i| u64::try_from(i64::from(i)).ok())
                .map(Some)
                .ok_or(false),
        };
        let r = param("r")?.ok_or(false)?;
        let t = param("t")?;
        let tighter =
            best.is_none_or(|(br, bt)| (r, std::cmp::Reverse(t)) < (br, std::cmp::Reverse(bt)));
        if tighter {
            best = Some((r, t));
        }
    }
    best.ok_or(false)
}

/// What the library makes of it, in the same terms.
fn library(v: &str) -> Result<(u64, Option<u64>), bool> {
    let fields = Response::new(200).rate_limit("RateLimit", v).rate_limit;
    let (quota, ignored) = fields.read(None);
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
            Err(why.starts_with("RateLimit ignored: not a structured-field List"))
        }
    }
}

/// A policy: a name, then parameters, some of them `r` and `t`, whole numbers or not, a key
/// perhaps twice; or an inner list.
fn member() -> impl Strategy<Value = String> {
    let name = prop_oneof![
        Just("\"w\"".to_owned()),
        Just("day".to_owned()),
        Just("?1".to_owned()),
        Just(":AQ==:".to_owned()),
        Just("(\"w\" day)".to_owned()),
    ];
    let value = prop_oneof![
        4 => (0u64..100).prop_map(|n| n.to_string()),
        1 => Just("-1".to_owned()),
        1 => Just("1.5".to_owned()),
        1 => Just("tok".to_owned()),
        1 => Just("?0".to_owned()),
    ];
    let param = (
        prop_oneof![3 => Just("r"), 3 => Just("t"), 1 => Just("q")],
        value,
    )
        .prop_map(|(k, v)| format!(";{k}={v}"));
    (name, prop::collection::vec(param, 0..4)).prop_map(|(n, p)| n + &p.concat())
}

/// RateLimit values: Lists of policies, and the same with a piece of grammar broken.
fn value() -> impl Strategy<Value = String> {
    let list = || prop::collection::vec(member(), 0..4).prop_map(|m| m.join(", "));
    let broken = (
        list(),
        any::<prop::sample::Index>(),
        prop_oneof![
            Just(","),
            Just(";"),
            Just("="),
            Just("\""),
            Just("("),
            Just(" ,"),
            Just("\\"),
            Just("@"),
            Just("%")
        ],
    )
        .prop_map(|(l, at, bad)| {
            let i = at.index(l.len() + 1);
            let i = (0..=i).rev().find(|i| l.is_char_boundary(*i)).unwrap_or(0);
            format!("{}{bad}{}", &l[..i], &l[i..])
        });
    prop_oneof![3 => list(), 1 => broken]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]

    #[test]
    fn the_library_reads_every_value_as_sfvs_parsed_list_does(v in value()) {
        prop_assert_eq!(library(&v), oracle(&v), "{:?}", v);
    }
}

#[test]
fn the_oracle_sees_each_kind_of_value() {
    // So the property above compares more than refusals.
    assert_eq!(oracle("\"a\";r=5;t=9, \"b\";r=2;t=60"), Ok((2, Some(60))));
    assert_eq!(oracle("\"a\";r=1;r=3"), Ok((3, None)), "the last r counts");
    assert_eq!(oracle("(\"a\");r=1"), Err(false));
    assert_eq!(oracle("\"a\";t=1"), Err(false));
    assert_eq!(oracle("\"a\";r=1,"), Err(true));
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
