//! The Palette List API's data: what `GET /palettes?collection=…` returns.

use serde::{Deserialize, Serialize};

/// A collection of palettes, as the API sends it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaletteCollection {
    /// The collection's name, e.g. `coast`.
    pub collection: String,
    /// Its palettes, in order.
    pub palettes: Vec<Palette>,
}

/// One named palette.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Palette {
    /// A stable identifier.
    pub id: String,
    /// The name shown to the user.
    pub name: String,
    /// CSS colours, e.g. `#0b3c5d`.
    pub colors: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_fixture_body_reads_as_a_collection() {
        let text = include_str!("../tests/fixtures/schedules.json");
        let file: serde_json::Value = serde_json::from_str(text).unwrap();
        let coast: PaletteCollection =
            serde_json::from_value(file["bodies"]["coast"].clone()).unwrap();
        assert_eq!(coast.collection, "coast");
        assert_eq!(coast.palettes.len(), 4);
        assert_eq!(coast.palettes[0].name, "Tide Pool");
        assert_eq!(coast.palettes[0].colors[0], "#0b3c5d");
    }
}
