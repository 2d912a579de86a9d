//! The Palette List API's data: what `GET /palettes?collection=…` returns.

use serde::{Deserialize, Serialize};

use retry_budget::body::BodyProblem;

mod json;

/// A collection of palettes, as the API sends it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaletteCollection {
    /// The collection's name, e.g. `coast`.
    pub collection: String,
    /// Its palettes, in order.
    pub palettes: Vec<Palette>,
}

impl PaletteCollection {
    /// Reads a collection from a 2xx body (the screen's body parser): the
    /// answer `serde_json` gives, data or problem, without shipping `serde_json`.
    ///
    /// ```
    /// use retry_budget::body::BodyProblem;
    /// use palette_list::palettes::PaletteCollection;
    ///
    /// let body = br#"{"collection": "coast", "palettes": []}"#;
    /// assert_eq!(PaletteCollection::from_json(body).unwrap().collection, "coast");
    /// let body = br#"{"collection": "coast", "palettes": "SECRET"}"#;
    /// assert_eq!(
    ///     PaletteCollection::from_json(body),
    ///     Err(BodyProblem::WrongShape { line: 1, column: 44 })
    /// );
    /// ```
    pub fn from_json(body: &[u8]) -> Result<PaletteCollection, BodyProblem> {
        json::read(body)
    }
}

/// One named palette.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Palette {
    /// A stable identifier.
    pub id: String,
    /// The name shown to the user.
    pub name: String,
    /// CSS colours as the API sent them, e.g. `#0b3c5d`: data, checked by [`CssColor::parse`]
    /// before anything is painted with them.
    pub colors: Vec<String>,
}

/// A colour the screen may paint with: only a CSS hex colour (`#rgb`, `#rgba`, `#rrggbb`,
/// `#rrggbbaa`) or a CSS named colour, and nothing else. Its text is rebuilt from what was
/// parsed (lower-case hex, or the name from the list below), so no character of the API's
/// data ever reaches a `style` attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CssColor(String);

impl CssColor {
    /// The colour `text` names, or `None` when it is anything else: `red;background:url(…)`,
    /// `rgb(…)`, `#12`, an unknown name. Surrounding spaces are not part of a colour.
    pub fn parse(text: &str) -> Option<CssColor> {
        let text = text.trim_matches([' ', '\t']);
        if let Some(hex) = text.strip_prefix('#') {
            let digits: Option<String> = hex
                .chars()
                .map(|c| c.to_digit(16).and_then(|d| char::from_digit(d, 16)))
                .collect();
            return digits
                .filter(|d| matches!(d.len(), 3 | 4 | 6 | 8))
                .map(|d| CssColor(format!("#{d}")));
        }
        let lower = text.to_ascii_lowercase();
        NAMED_COLORS
            .split(' ')
            .any(|n| n == lower)
            .then_some(CssColor(lower))
    }

    /// The colour as CSS text, safe to paint with.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The CSS named colours (CSS Color 4), and `transparent`, one space between each: one string
/// rather than a table of 148 pointers, which a browser would download too.
const NAMED_COLORS: &str = "\
    aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue \
    blueviolet brown burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk \
    crimson cyan darkblue darkcyan darkgoldenrod darkgray darkgreen darkgrey darkkhaki \
    darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen \
    darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink deepskyblue \
    dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro \
    ghostwhite gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo \
    ivory khaki lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan \
    lightgoldenrodyellow lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen \
    lightskyblue lightslategray lightslategrey lightsteelblue lightyellow lime limegreen \
    linen magenta maroon mediumaquamarine mediumblue mediumorchid mediumpurple \
    mediumseagreen mediumslateblue mediumspringgreen mediumturquoise mediumvioletred \
    midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive olivedrab \
    orange orangered orchid palegoldenrod palegreen paleturquoise palevioletred papayawhip \
    peachpuff peru pink plum powderblue purple rebeccapurple red rosybrown royalblue \
    saddlebrown salmon sandybrown seagreen seashell sienna silver skyblue slateblue \
    slategray slategrey snow springgreen steelblue tan teal thistle tomato turquoise violet \
    wheat white whitesmoke yellow yellowgreen transparent";

/// Where the Palette List reads a collection: `{api_base}/palettes?collection={collection}`,
/// the collection percent-encoded. `api_base` is a URL prefix without a trailing slash (empty:
/// this origin).
///
/// ```
/// use palette_list::palettes::palettes_url;
///
/// assert_eq!(palettes_url("/api", "coast"), "/api/palettes?collection=coast");
/// assert_eq!(palettes_url("", "a b"), "/palettes?collection=a%20b");
/// ```
pub fn palettes_url(api_base: &str, collection: &str) -> String {
    format!("{api_base}/palettes?collection={}", query_value(collection))
}

/// `value` percent-encoded for a URL query: everything but the unreserved characters of
/// RFC 3986 (`A-Z a-z 0-9 - . _ ~`), as `encodeURIComponent` does but for `!'()*` too.
fn query_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_named_colours_are_148_and_transparent() {
        let names: Vec<&str> = NAMED_COLORS.split(' ').collect();
        assert_eq!(names.len(), 149);
        assert!(names
            .iter()
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_lowercase())));
        let mut once = names.clone();
        once.sort_unstable();
        once.dedup();
        assert_eq!(once.len(), names.len(), "none twice");
        for n in ["aliceblue", "rebeccapurple", "transparent", "yellowgreen"] {
            assert_eq!(CssColor::parse(n).unwrap().as_str(), n);
        }
        assert_eq!(CssColor::parse("NaVy").unwrap().as_str(), "navy");
        assert_eq!(CssColor::parse(""), None);
    }

    #[test]
    fn only_css_colours_are_colours() {
        let ok = |t: &str| CssColor::parse(t).map(|c| c.as_str().to_owned());
        assert_eq!(ok("#0b3c5d").as_deref(), Some("#0b3c5d"));
        assert_eq!(ok("#0B3C5D").as_deref(), Some("#0b3c5d"));
        assert_eq!(ok("#abc").as_deref(), Some("#abc"));
        assert_eq!(ok("#abcd").as_deref(), Some("#abcd"));
        assert_eq!(ok("#11223344").as_deref(), Some("#11223344"));
        assert_eq!(ok(" Tomato ").as_deref(), Some("tomato"));
        assert_eq!(ok("RebeccaPurple").as_deref(), Some("rebeccapurple"));
        assert_eq!(ok("transparent").as_deref(), Some("transparent"));
        for hostile in [
            "red;background:url(http://127.0.0.1:9/x)",
            "red; background-image: url(x)",
            "#fff;x:y",
            "url(x)",
            "rgb(0,0,0)",
            "expression(alert(1))",
            "#12",
            "#12345",
            "#gggggg",
            "#１２３",
            "",
            "red\"><script>",
            "blue/**/",
        ] {
            assert_eq!(ok(hostile), None, "{hostile:?}");
        }
    }

    /// What both parsers of palettes say of `body`, which must be the same.
    fn problem(body: &str) -> BodyProblem {
        let finish = |parse: fn(&[u8]) -> Result<PaletteCollection, BodyProblem>| {
            let mut received = retry_budget::body::LimitedBody::new(1 << 20, None).unwrap();
            received.push(body.as_bytes()).unwrap();
            received.finish(parse).unwrap_err()
        };
        let own = finish(PaletteCollection::from_json);
        assert_eq!(
            own,
            finish(retry_budget::body::parse_json::<PaletteCollection>),
            "{body}"
        );
        own
    }

    #[test]
    fn what_is_not_palettes_says_where() {
        assert_eq!(problem(""), BodyProblem::Empty);
        assert_eq!(
            problem("<html><body>502 Bad Gateway</body></html>"),
            BodyProblem::NotJson { line: 1, column: 1 }
        );
        assert_eq!(
            problem(r#"{"collection": "coast", "palettes": "SECRET"}"#),
            BodyProblem::WrongShape {
                line: 1,
                column: 44
            }
        );
        assert_eq!(
            problem("{\"collection\": \"coast\",\n \"palettes\": ["),
            BodyProblem::Truncated {
                line: 2,
                column: 14
            }
        );
        assert_eq!(problem("  "), BodyProblem::Truncated { line: 1, column: 2 });
        for read in [
            PaletteCollection::from_json,
            retry_budget::body::parse_json::<PaletteCollection>,
        ] {
            assert!(matches!(
                read(b"\xff\xfe"),
                Err(BodyProblem::NotJson { .. })
            ));
        }
    }

    #[test]
    fn palettes_are_read() {
        let body = r##"{"collection": "coast", "palettes": [{"id": "a", "name": "A", "colors": ["#fff"]}]}"##;
        let mut r =
            retry_budget::body::LimitedBody::new(body.len() as u64, Some(&body.len().to_string()))
                .unwrap();
        for chunk in body.as_bytes().chunks(7) {
            r.push(chunk).unwrap();
        }
        let c = r.finish(PaletteCollection::from_json).unwrap();
        assert_eq!(c.palettes[0].colors, ["#fff"]);
    }

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(query_value("coast"), "coast");
        assert_eq!(query_value("a b&c=d"), "a%20b%26c%3Dd");
        assert_eq!(query_value("é/?#"), "%C3%A9%2F%3F%23");
        assert_eq!(query_value("-._~"), "-._~");
    }
}
