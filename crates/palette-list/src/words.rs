//! The screen's own words; every other sentence it shows is the `Display` of a core value
//! ([`retry_budget::StopMessage`], [`retry_budget::Progress`]).

use retry_budget::words::quoted;

/// The button that stops a running read (as leaving the screen does).
pub const CANCEL: &str = "Cancel";

/// The button that starts a new read, with a fresh budget, after a stop.
pub const TRY_AGAIN: &str = "Try again";

/// The Palette List screen's heading: "Palettes: coast".
pub fn palettes_heading(collection: &str) -> String {
    format!("Palettes: {collection}")
}

/// The title of a swatch whose colour is not a CSS colour: the data, quoted, as text.
pub fn not_a_colour(text: &str) -> String {
    format!("Not a colour: {}", quoted(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_colour_that_is_not_one_is_quoted_as_text() {
        assert_eq!(
            not_a_colour("red;background:url(x)"),
            "Not a colour: \u{201c}red;background:url(x)\u{201d}"
        );
        assert_eq!(
            not_a_colour("bleu\u{e9}\n\u{7}"),
            "Not a colour: \u{201c}bleu\u{e9}\u{fffd}\u{fffd}\u{201d}"
        );
    }
}
