//! The Palette List's own JSON parser, [`PaletteCollection::from_json`], held to `serde_json`:
//! on every body generated here (palettes, palettes of the wrong shape, unknown keys holding any
//! JSON, keys given twice or missing, structs written as arrays, escapes good and bad, numbers
//! at the edge of an `f64`, bytes that are not UTF-8), on every prefix of each, and on each with
//! one byte changed, the two give the same answer: the same data, or the same problem at the
//! same line and column. One difference is meant, and only it is let through: a number past an
//! `f64`'s range where a string belongs, which `serde_json` refuses as out of range and the
//! palettes parser (which never makes a number's value) finds to be JSON of the wrong shape.
//!
//! `cargo test` runs proptest's default count (256 bodies a property). For a long run:
//! `PROPTEST_CASES=100000 cargo test --release -p palette-list --test json_parser`.
#![cfg(not(target_arch = "wasm32"))]

use palette_list::palettes::PaletteCollection;
use proptest::prelude::*;
use retry_budget::body::parse_json;
use retry_budget::body::BodyProblem;

/// Both parsers on `body`, which must agree, but for the one meant difference.
fn agree(body: &[u8]) -> Result<(), TestCaseError> {
    let own = PaletteCollection::from_json(body);
    let serde = parse_json::<PaletteCollection>(body);
    let shown = || String::from_utf8_lossy(body).into_owned();
    if let (Err(BodyProblem::WrongShape { .. }), Err(BodyProblem::NotJson { .. })) = (&own, &serde)
    {
        let why = serde_json::from_slice::<PaletteCollection>(body).unwrap_err();
        prop_assert!(
            why.to_string().starts_with("number out of range"),
            "on {:?}: {:?} against serde_json's {}",
            shown(),
            own,
            why
        );
        return Ok(());
    }
    prop_assert_eq!(&own, &serde, "on {:?}", shown());
    Ok(())
}

fn join(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// JSON whitespace, or none.
fn ws() -> impl Strategy<Value = Vec<u8>> {
    prop::sample::select(vec!["", "", "", " ", "\n", "\t", "\r\n", " \n  "]).prop_map(Into::into)
}

/// Numbers at the edges: malformed ones, integers past a `u64`, values at and past the largest
/// `f64`, exponents past an `i32`.
const EDGE_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "01",
    "-",
    "1.",
    "1.5",
    ".5",
    "+1",
    "1e",
    "1e+",
    "1E-5",
    "2.5e+3",
    "1x",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678901234567890",
    "1.7976931348623157e308",
    "1.7976931348623158e308",
    "1.8e308",
    "17976931348623158e292",
    "9e307",
    "0.5e309",
    "0e999999999999",
    "1e999999999999",
    "1e-999999999999",
    "5e-324",
    "99999999999999999999.5e289",
    "-1e400",
    "1.00000000000000000000001",
    "0.0e",
    "0e400",
    "0.000e309",
    "-0e1000",
    "1.75e308",
    "17976931348623157e292",
    "1797693134862315708e290",
];

/// Numbers, well and badly formed: signs, leading zeros, fractions and exponents, integers past
/// a `u64`, and values at and past the largest `f64`.
fn number() -> impl Strategy<Value = Vec<u8>> {
    let edge = prop::sample::select(EDGE_NUMBERS.to_vec());
    prop_oneof![
        edge.prop_map(Into::into),
        "-?(0|[1-9][0-9]{0,24})(\\.[0-9]{0,22})?([eE][+-]?[0-9]{0,4})?".prop_map(Into::into),
        (1u64..=u64::MAX, 280i32..320).prop_map(|(s, e)| format!("{s}e{e}").into()),
    ]
}

fn literal() -> impl Strategy<Value = Vec<u8>> {
    prop::sample::select(vec![
        "null", "true", "false", "nul", "tru", "fals", "nulx", "truE",
    ])
    .prop_map(Into::into)
}

/// A string literal: plain text, escapes (good, bad, cut short), surrogate pairs and lone
/// halves, raw UTF-8, bytes that are not UTF-8, control bytes.
fn string() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop::sample::select(vec![
        &b"coast"[..],
        b"",
        b"#0b3c5d",
        b"red",
        b"\\n",
        b"\\\"",
        b"\\/",
        b"\\u00e9",
        b"\\u00E9",
        b"\\ud83c\\udf0a",
        b"\\ud83c",
        b"\\udf0a",
        b"\\ud83cx",
        b"\\ud83c\\n",
        b"\\ud83c\\u0041",
        b"\\q",
        b"\\u12",
        b"\\u12G4",
        "\u{e9}t\u{e9}".as_bytes(),
        "\u{1f30a}".as_bytes(),
        b"\xff",
        b"a\xc3",
        b"\x01",
        b"\t",
        b"\\",
    ]);
    prop::collection::vec(piece, 0..4).prop_map(|pieces| {
        let mut s = vec![b'"'];
        for p in pieces {
            s.extend_from_slice(p);
        }
        s.push(b'"');
        s
    })
}

/// Any JSON value (and some that are nearly JSON), nested.
fn any_value() -> BoxedStrategy<Vec<u8>> {
    let leaf = prop_oneof![number(), literal(), string()];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            (prop::collection::vec((ws(), inner.clone()), 0..4), ws()).prop_map(|(items, end)| {
                let items: Vec<Vec<u8>> = items.into_iter().map(|(w, v)| join(&[&w, &v])).collect();
                join(&[b"[", &items.join(&b","[..]), &end, b"]"])
            }),
            (prop::collection::vec((string(), ws(), inner), 0..4), ws()).prop_map(
                |(members, end)| {
                    let members: Vec<Vec<u8>> = members
                        .into_iter()
                        .map(|(k, w, v)| join(&[&w, &k, &w, b":", &w, &v]))
                        .collect();
                    join(&[b"{", &members.join(&b","[..]), &end, b"}"])
                }
            ),
        ]
    })
    .boxed()
}

/// A value where a string belongs: usually one.
fn text_value() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![6 => string(), 1 => any_value()]
}

/// A list of `item`s, usually; now and then with a comma too many.
fn list_of(item: BoxedStrategy<Vec<u8>>) -> BoxedStrategy<Vec<u8>> {
    let comma = prop::sample::select(vec!["", "", "", "", ",", " , "]);
    prop_oneof![
        6 => (prop::collection::vec((ws(), item), 0..4), comma, ws()).prop_map(|(items, comma, end)| {
            let items: Vec<Vec<u8>> = items.into_iter().map(|(w, v)| join(&[&w, &v])).collect();
            join(&[b"[", &items.join(&b","[..]), comma.as_bytes(), &end, b"]"])
        }),
        1 => any_value(),
    ]
    .boxed()
}

/// A struct with these fields: usually an object with each once, in any order, among unknown
/// keys; sometimes a key twice or missing; sometimes an array of the values in order, of any
/// length.
fn record(fields: Vec<(&'static str, BoxedStrategy<Vec<u8>>)>) -> BoxedStrategy<Vec<u8>> {
    let n = fields.len();
    let names: Vec<&'static str> = fields.iter().map(|(name, _)| *name).collect();
    let values: Vec<BoxedStrategy<Vec<u8>>> = fields.into_iter().map(|(_, v)| v).collect();
    let unknown = prop::collection::vec((string(), any_value()), 0..2);
    (
        values,
        unknown,
        0..10usize,
        ws(),
        any::<prop::sample::Index>(),
    )
        .prop_flat_map(move |(values, unknown, form, w, index)| {
            let mut members: Vec<(Vec<u8>, Vec<u8>)> = names
                .iter()
                .map(|name| format!("\"{name}\"").into_bytes())
                .zip(values.iter().cloned())
                .collect();
            let as_array = form == 0;
            match form {
                1 => drop(members.remove(index.index(n))),
                2 => {
                    let again = members[index.index(n)].clone();
                    members.push(again);
                }
                _ => {}
            }
            members.extend(unknown);
            let w2 = w.clone();
            Just(members).prop_shuffle().prop_map(move |members| {
                if as_array {
                    let items: Vec<Vec<u8>> = members.into_iter().map(|(_, v)| v).collect();
                    join(&[b"[", &w2, &items.join(&b","[..]), b"]"])
                } else {
                    let members: Vec<Vec<u8>> = members
                        .into_iter()
                        .map(|(k, v)| join(&[&w2, &k, &w2, b":", &w2, &v]))
                        .collect();
                    join(&[b"{", &members.join(&b","[..]), &w, b"}"])
                }
            })
        })
        .boxed()
}

/// A body that is, or is close to, a palette collection.
fn body() -> impl Strategy<Value = Vec<u8>> {
    let palette = record(vec![
        ("id", text_value().boxed()),
        ("name", text_value().boxed()),
        ("colors", list_of(text_value().boxed())),
    ]);
    let collection = record(vec![
        ("collection", text_value().boxed()),
        ("palettes", list_of(palette)),
    ]);
    prop_oneof![
        8 => (ws(), collection, ws()).prop_map(|(a, c, b)| join(&[&a, &c, &b])),
        1 => any_value(),
        1 => (any_value(), any_value()).prop_map(|(a, b)| join(&[&a, b" ", &b])),
    ]
}

proptest! {
    #[test]
    fn the_two_parsers_agree_on_every_body(body in body()) {
        agree(&body)?;
    }

    #[test]
    fn and_on_every_prefix(body in body()) {
        for end in 1..=body.len() {
            agree(&body[..end])?;
        }
    }

    #[test]
    fn and_with_one_byte_changed(
        body in body(),
        at in any::<prop::sample::Index>(),
        byte in prop::sample::select(b"{}[]\",:\\ \n0-.e+tnfu\x00\x80a".to_vec()),
        how in 0..3u8,
    ) {
        let mut body = body;
        if body.is_empty() {
            return Ok(());
        }
        let i = at.index(body.len());
        match how {
            0 => body[i] = byte,
            1 => body.insert(i, byte),
            _ => drop(body.remove(i)),
        }
        if !body.is_empty() {
            agree(&body)?;
        }
    }
}

/// Cases worth naming, each checked against `serde_json` like the generated ones.
#[test]
fn named_cases_agree() {
    let ok = br##"{"collection": "coast", "palettes": [{"id": "a", "name": "\u00c9t\u00e9 \ud83c\udf0a", "colors": ["#fff", "navy"]}]}"##;
    let named: &[&[u8]] = &[
        ok,
        br#"["coast", [["a", "A", []]]]"#,
        br#"["coast", [], 1]"#,
        br#"["coast"]"#,
        br#"{"collection": "coast", "collection": "x", "palettes": []}"#,
        br#"{"collection": "coast" , "collection" : "x"}"#,
        br#"{"palettes": []}"#,
        br#"{"collection": "coast", "palettes": [], "extra": {"a": [1, 2.5e3, -0, null, true]}}"#,
        br#"{"collection": "coast", "palettes": [], "extra": [1, }"#,
        br#"{"collection": 1.8e308, "palettes": []}"#,
        br#"{"collection": 1e999999999999, "palettes": []}"#,
        br#"{"collection": "co\ud83cast", "palettes": []}"#,
        b"{\"collection\": \"co\xffast\", \"palettes\": []}",
        b"{\"collection\": \"\\u00e9\xff\", \"palettes\": []}",
        b"{\"collection\": \"coast\",\n \"palettes\": [\n {\"id\": 1}]}",
        b"<html><body>502 Bad Gateway</body></html>",
        b"  ",
        br#"{"extra": {1: 2}, "collection": "coast", "palettes": []}"#,
        br#"{"extra": {"a": 1,}, "collection": "coast", "palettes": []}"#,
        br#"{"extra": {"a" 1}, "collection": "coast", "palettes": []}"#,
        br#"{"extra": [1 2], "collection": "coast", "palettes": []}"#,
        br#"{"extra": [1,], "collection": "coast", "palettes": []}"#,
        br#"{"extra": ["\q"], "collection": "coast", "palettes": []}"#,
        br#"{"extra": "\u12", "collection": "coast", "palettes": []}"#,
        br#"{"collection": [], "palettes": []}"#,
        br#"{"collection": {}, "palettes": []}"#,
        br##"{"collection": "coast", "palettes": [{"id": "a", "name": "A", "colors": "#fff"}]}"##,
        b"{\"collection\": \"coast\", \"palettes\": []} x",
    ];
    for body in named {
        agree(body).unwrap();
    }
    for n in EDGE_NUMBERS {
        for body in [
            format!(r#"{{"collection": {n}, "palettes": []}}"#),
            format!(r#"{{"collection": "coast", "palettes": [], "extra": {n}}}"#),
            format!(r#"["coast", [["a", "A", [{n}]]]]"#),
            format!("[{n}"),
            n.to_string(),
        ] {
            agree(body.as_bytes()).unwrap();
        }
    }
    assert_eq!(
        PaletteCollection::from_json(ok).unwrap().palettes[0].name,
        "\u{c9}t\u{e9} \u{1f30a}"
    );
}
