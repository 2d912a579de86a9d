//! The one rule for reading a 2xx body: at most the policy's `max_body_bytes`, never empty,
//! then JSON of the expected type, or a [`BodyProblem`] that says where it went wrong and never
//! what the body held. The browser runtime feeds it the bytes as they stream in; the fixture
//! model feeds it a fixture's body. Pure: no clock, no network.
//!
//! What "JSON of the expected type" means is the parser's to say: `parse_json` (feature `json`)
//! for any `serde` type, or a type's own parser, such as the Palette List screen's, which gives
//! the same answers without shipping `serde_json`.

/// Why a 2xx's body could not be used: the kind and the place, never a word of what the body
/// held (a parser's own message quotes it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyProblem {
    /// No body at all (a 204, or an empty 200).
    Empty,
    /// Not JSON (an HTML error page from a proxy, say).
    NotJson {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// JSON, but not of the shape expected.
    WrongShape {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// The body ended before its JSON did.
    Truncated {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// Larger than the policy's `max_body_bytes`: reading stopped there and the fetch was
    /// aborted.
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
    /// The body stopped arriving part way (the connection failed after the headers).
    Interrupted,
}

/// A body being read, chunk by chunk, up to a limit.
///
/// ```
/// use retry_budget::body::{BodyProblem, LimitedBody};
///
/// // A parser of the whole body: here, its length; `parse_json` (feature `json`) reads JSON.
/// let length = |body: &[u8]| Ok(body.len());
/// let mut body = LimitedBody::new(16, None).unwrap();
/// body.push(br#"{"a": "#).unwrap();
/// body.push(b"1}").unwrap();
/// assert_eq!(body.finish(length), Ok(8));
/// assert_eq!(LimitedBody::new(4, None).unwrap().finish(length), Err(BodyProblem::Empty));
///
/// let mut body = LimitedBody::new(4, None).unwrap();
/// assert_eq!(body.push(b"[1, 2]"), Err(BodyProblem::TooLarge { limit: 4 }));
/// // A declared length beyond the limit is refused before any byte is read.
/// assert_eq!(LimitedBody::new(4, Some("5")).unwrap_err(), BodyProblem::TooLarge { limit: 4 });
/// ```
#[derive(Debug)]
pub struct LimitedBody {
    limit: u64,
    bytes: Vec<u8>,
}

impl LimitedBody {
    /// Starts reading a body of at most `limit` bytes. `content_length` is the response's
    /// `Content-Length`, where it has one: a declared length beyond the limit is refused at once.
    /// A value that is not a length is ignored (the bytes are counted as they come anyway).
    pub fn new(limit: u64, content_length: Option<&str>) -> Result<LimitedBody, BodyProblem> {
        let declared = content_length
            .map(|v| v.trim_matches([' ', '\t']))
            .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()));
        // Digits only, so the only way to fail to parse is to be too large for a u64.
        if declared.is_some_and(|v| v.parse::<u64>().map_or(true, |n| n > limit)) {
            return Err(BodyProblem::TooLarge { limit });
        }
        Ok(LimitedBody {
            limit,
            bytes: Vec::new(),
        })
    }

    /// Room for the next `len` bytes, to be filled by the caller (a browser copies a chunk
    /// straight in); refused once the body would pass the limit, before anything is kept.
    pub fn extend(&mut self, len: usize) -> Result<&mut [u8], BodyProblem> {
        let start = self.bytes.len();
        let total = u64::try_from(start)
            .ok()
            .zip(u64::try_from(len).ok())
            .and_then(|(a, b)| a.checked_add(b));
        if total.is_none_or(|t| t > self.limit) {
            return Err(BodyProblem::TooLarge { limit: self.limit });
        }
        // Zeroed in place, then handed out: no second buffer of the chunk's size, so the peak
        // a streamed body costs is the body kept and the chunk arriving.
        self.bytes.resize(start + len, 0);
        Ok(&mut self.bytes[start..])
    }

    /// Adds a chunk; refused once the body would pass the limit.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), BodyProblem> {
        self.extend(chunk.len())?.copy_from_slice(chunk);
        Ok(())
    }

    /// The whole body parsed by `parse`, or [`BodyProblem::Empty`] when there is none.
    pub fn finish<T>(
        self,
        parse: impl FnOnce(&[u8]) -> Result<T, BodyProblem>,
    ) -> Result<T, BodyProblem> {
        if self.bytes.is_empty() {
            return Err(BodyProblem::Empty);
        }
        parse(&self.bytes)
    }
}

/// The body parser for any `serde` type (feature `json`): the body as JSON of type `T` (through
/// `serde_json`), or where it is not. Invalid UTF-8 is not JSON.
#[cfg(feature = "json")]
pub fn parse_json<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, BodyProblem> {
    use serde_json::error::Category;
    serde_json::from_slice(body).map_err(|e| {
        let (line, column) = (e.line(), e.column());
        match e.classify() {
            Category::Data => BodyProblem::WrongShape { line, column },
            Category::Eof => BodyProblem::Truncated { line, column },
            // Reading a slice has no I/O; were it ever reported, it is still not JSON.
            Category::Syntax | Category::Io => BodyProblem::NotJson { line, column },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_limit_holds_chunk_by_chunk_and_up_front() {
        let limit = 10;
        let mut r = LimitedBody::new(limit, None).unwrap();
        r.push(&[b' '; 10]).unwrap();
        assert_eq!(r.push(b" "), Err(BodyProblem::TooLarge { limit }));
        assert_eq!(
            LimitedBody::new(limit, Some("11")).unwrap_err(),
            BodyProblem::TooLarge { limit }
        );
        assert_eq!(
            LimitedBody::new(limit, Some("99999999999999999999999")).unwrap_err(),
            BodyProblem::TooLarge { limit }
        );
        // A declared length within the limit, or one that is not a length, reads on.
        assert!(LimitedBody::new(limit, Some("10")).is_ok());
        assert!(LimitedBody::new(limit, Some("ten")).is_ok());
        let mut r = LimitedBody::new(limit, None).unwrap();
        assert_eq!(
            r.extend(usize::MAX).unwrap_err(),
            BodyProblem::TooLarge { limit }
        );
    }

    #[cfg(feature = "json")]
    #[test]
    fn parse_json_says_which_of_its_problems_and_where() {
        #[derive(Debug, serde::Deserialize)]
        struct Named {
            #[allow(dead_code)]
            name: String,
        }
        let parse = |body: &str| parse_json::<Named>(body.as_bytes()).map(drop);
        assert_eq!(parse(r#"{"name": "a"}"#), Ok(()));
        assert_eq!(
            parse("<html>"),
            Err(BodyProblem::NotJson { line: 1, column: 1 })
        );
        assert_eq!(
            parse(r#"{"name": 1}"#),
            Err(BodyProblem::WrongShape {
                line: 1,
                column: 10
            })
        );
        assert_eq!(
            parse("{\n\"name\""),
            Err(BodyProblem::Truncated { line: 2, column: 6 })
        );
        assert!(matches!(
            parse_json::<Named>(b"\xff"),
            Err(BodyProblem::NotJson { .. })
        ));
    }
}
