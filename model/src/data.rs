//! What a fixture's 2xx body must hold: the Palette List read's data, in the shape the API sends
//! (`GET /palettes?collection=…`). The model reads it with the core's `parse_json`, whose answers
//! (data, or which problem and where) are the screen's own parser's: the model's tests hold the
//! two against every body in the fixture files.

use retry_budget::body::{parse_json, BodyProblem};
use serde::Deserialize;

/// A collection of palettes, as the API sends it. Only its shape matters here.
#[derive(Deserialize)]
#[allow(dead_code)] // read for its shape: a body is data or a problem, and nothing else is kept
struct Collection {
    collection: String,
    palettes: Vec<Palette>,
}

/// One named palette.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Palette {
    id: String,
    name: String,
    colors: Vec<String>,
}

/// A whole 2xx body read as the model reads it: the Palette List's data, or where it is not.
pub fn parse_data(body: &[u8]) -> Result<(), BodyProblem> {
    parse_json::<Collection>(body).map(drop)
}
