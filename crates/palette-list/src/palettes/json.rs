//! The Palette List's own JSON parser: [`PaletteCollection`] straight from bytes, without
//! `serde_json`, which an app that embeds only the screen would otherwise ship (about a sixth
//! of the screen's bytes, most of it float parsing for numbers the data never holds).
//!
//! It gives the answer `serde_json::from_slice::<PaletteCollection>` gives, data or
//! [`BodyProblem`] with the same line and column, so the screen's messages do not depend on which
//! parser ran: every step below is the step `serde_json` 1.0 takes, named after it, and
//! `tests/json_parser.rs` holds the two parsers to each other on generated bodies. One
//! difference is meant: numbers are read lexically and never made into values (the data holds
//! none), so a number past an `f64`'s range where a string belongs is JSON of the wrong shape
//! here, where `serde_json` refuses it as out of range. Like
//! `serde_json`, it takes a struct from an object (unknown keys skipped, a key given twice
//! refused) or from an array of its values in order.

use super::{Palette, PaletteCollection};
use retry_budget::body::BodyProblem;

/// Why reading stopped: a problem already placed, or a shape problem still to be placed where
/// the enclosing struct, list or string ends (`serde_json`'s `fix_position`).
enum Fail {
    At(BodyProblem),
    Shape,
}

type Step<T> = Result<T, Fail>;

/// What kind of problem, before it has a place.
#[derive(Clone, Copy)]
enum Kind {
    /// The body ended first: [`BodyProblem::Truncated`].
    Eof,
    /// Not JSON: [`BodyProblem::NotJson`].
    Syntax,
}

pub(super) fn read(body: &[u8]) -> Result<PaletteCollection, BodyProblem> {
    let mut r = Cursor { s: body, i: 0 };
    let read = r.collection().and_then(|c| r.end().map(|()| c));
    read.map_err(|f| match r.place(f) {
        Fail::At(problem) => problem,
        // `place` always places.
        Fail::Shape => BodyProblem::Interrupted,
    })
}

/// Reads the value of a struct's field `k` into the caller's place for it. One code path for
/// every struct (a `dyn`, not a generic), which a browser downloads once.
type Field<'r, 'a> = dyn FnMut(&mut Cursor<'a>, usize) -> Step<()> + 'r;

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    fn collection(&mut self) -> Step<PaletteCollection> {
        let (mut collection, mut palettes) = (String::new(), Vec::new());
        self.record(&["collection", "palettes"], &mut |r, field| {
            match field {
                0 => collection = r.string()?,
                _ => palettes = r.list_of(Self::palette)?,
            }
            Ok(())
        })?;
        Ok(PaletteCollection {
            collection,
            palettes,
        })
    }

    fn palette(&mut self) -> Step<Palette> {
        let (mut id, mut name, mut colors) = (String::new(), String::new(), Vec::new());
        self.record(&["id", "name", "colors"], &mut |r, field| {
            match field {
                0 => id = r.string()?,
                1 => name = r.string()?,
                _ => colors = r.list_of(Self::string)?,
            }
            Ok(())
        })?;
        Ok(Palette { id, name, colors })
    }

    // Where a problem is: the line and column of byte `at`, as `serde_json` counts them.

    fn problem(&self, kind: Kind, at: usize) -> Fail {
        let (line, column) = self.line_column(at);
        Fail::At(match kind {
            Kind::Eof => BodyProblem::Truncated { line, column },
            Kind::Syntax => BodyProblem::NotJson { line, column },
        })
    }

    fn line_column(&self, at: usize) -> (usize, usize) {
        let before = &self.s[..at];
        let start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |n| n + 1);
        let line = 1 + before[..start].iter().filter(|&&b| b == b'\n').count();
        (line, at - start)
    }

    /// A problem with a byte already taken (`error`).
    fn error(&self, kind: Kind) -> Fail {
        self.problem(kind, self.i)
    }

    /// A problem with the byte not yet taken (`peek_error`).
    fn peek_error(&self, kind: Kind) -> Fail {
        self.problem(kind, self.s.len().min(self.i + 1))
    }

    /// A shape problem placed here (`fix_position`); a placed problem keeps its place.
    fn place(&self, fail: Fail) -> Fail {
        match fail {
            Fail::Shape => {
                let (line, column) = self.line_column(self.i);
                Fail::At(BodyProblem::WrongShape { line, column })
            }
            placed => placed,
        }
    }

    // Bytes.

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn peek_or_null(&self) -> u8 {
        self.peek().unwrap_or(0)
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.i += 1;
        Some(b)
    }

    fn skip_digits(&mut self) {
        while self.peek_or_null().is_ascii_digit() {
            self.i += 1;
        }
    }

    /// `parse_whitespace`: the next byte that is not JSON whitespace, not taken.
    fn whitespace(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.i += 1;
        }
        self.peek()
    }

    /// `end`: nothing but whitespace after the value.
    fn end(&mut self) -> Step<()> {
        match self.whitespace() {
            Some(_) => Err(self.peek_error(Kind::Syntax)),
            None => Ok(()),
        }
    }

    // Typed values: `deserialize_struct`, `deserialize_seq`, `deserialize_str`.

    /// A struct of `names.len()` fields (at most 8), as an object or as an array of its values in
    /// order; `field(cursor, k)` reads the value of field `k`. Every field must come once.
    fn record(&mut self, names: &[&str], field: &mut Field<'_, 'a>) -> Step<()> {
        let Some(peek) = self.whitespace() else {
            return Err(self.peek_error(Kind::Eof));
        };
        let read = match peek {
            b'[' => {
                self.i += 1;
                let read = self.record_items(names.len(), field);
                both(read, self.end_seq())
            }
            b'{' => {
                self.i += 1;
                let read = self.record_members(names, field);
                both(read, self.end_map())
            }
            _ => Err(self.invalid_type()),
        };
        read.map_err(|f| self.place(f))
    }

    fn record_items(&mut self, fields: usize, field: &mut Field<'_, 'a>) -> Step<()> {
        let mut first = true;
        for k in 0..fields {
            if !self.has_next_element(&mut first)? {
                // Too few values (`invalid_length`).
                return Err(Fail::Shape);
            }
            field(self, k)?;
        }
        Ok(())
    }

    fn record_members(&mut self, names: &[&str], field: &mut Field<'_, 'a>) -> Step<()> {
        let mut seen = 0u8;
        let mut first = true;
        while self.has_next_key(&mut first)? {
            self.i += 1;
            let key = self.text()?;
            match names.iter().position(|n| *n == key) {
                // The same key twice (`duplicate_field`), refused before its value is read.
                Some(k) if seen & (1 << k) != 0 => return Err(Fail::Shape),
                Some(k) => {
                    self.colon()?;
                    field(self, k)?;
                    seen |= 1 << k;
                }
                None => {
                    self.colon()?;
                    self.ignore_value()?;
                }
            }
        }
        // A field missing (`missing_field`).
        if u32::from(seen) + 1 != 1 << names.len() {
            return Err(Fail::Shape);
        }
        Ok(())
    }

    /// A list; `item(cursor)` reads each element and keeps it.
    fn list(&mut self, item: &mut dyn FnMut(&mut Self) -> Step<()>) -> Step<()> {
        let Some(peek) = self.whitespace() else {
            return Err(self.peek_error(Kind::Eof));
        };
        let read = if peek == b'[' {
            self.i += 1;
            let mut first = true;
            let read = loop {
                match self.has_next_element(&mut first) {
                    Ok(true) => {
                        if let Err(f) = item(self) {
                            break Err(f);
                        }
                    }
                    Ok(false) => break Ok(()),
                    Err(f) => break Err(f),
                }
            };
            both(read, self.end_seq())
        } else {
            Err(self.invalid_type())
        };
        read.map_err(|f| self.place(f))
    }

    /// A list of what `item` reads, kept in order (the loop itself is [`list`](Self::list)'s).
    fn list_of<T>(&mut self, item: impl Fn(&mut Self) -> Step<T>) -> Step<Vec<T>> {
        let mut items = Vec::new();
        self.list(&mut |r| {
            items.push(item(r)?);
            Ok(())
        })?;
        Ok(items)
    }

    fn string(&mut self) -> Step<String> {
        let Some(peek) = self.whitespace() else {
            return Err(self.peek_error(Kind::Eof));
        };
        let read = if peek == b'"' {
            self.i += 1;
            self.text()
        } else {
            Err(self.invalid_type())
        };
        read.map_err(|f| self.place(f))
    }

    /// `peek_invalid_type`: a value of another type is read through (so its own problems come
    /// first), and the shape problem is placed after it; an array or object is placed before it.
    fn invalid_type(&mut self) -> Fail {
        let read = match self.peek_or_null() {
            b'n' => self.literal(b"ull"),
            b't' => self.literal(b"rue"),
            b'f' => self.literal(b"alse"),
            b'-' => {
                self.i += 1;
                self.number()
            }
            b'0'..=b'9' => self.number(),
            b'"' => {
                self.i += 1;
                self.text().map(drop)
            }
            b'[' | b'{' => Ok(()),
            _ => return self.peek_error(Kind::Syntax),
        };
        match read {
            Ok(()) => self.place(Fail::Shape),
            Err(f) => f,
        }
    }

    /// `parse_ident`, after the literal's first byte.
    fn literal(&mut self, rest: &[u8]) -> Step<()> {
        self.i += 1;
        for expected in rest {
            match self.next() {
                None => return Err(self.error(Kind::Eof)),
                Some(b) if b != *expected => return Err(self.error(Kind::Syntax)),
                Some(_) => {}
            }
        }
        Ok(())
    }

    // Separators: `has_next_element`, `has_next_key`, `parse_object_colon`, `end_seq`, `end_map`.

    fn has_next_element(&mut self, first: &mut bool) -> Step<bool> {
        let Some(peek) = self.whitespace() else {
            return Err(self.peek_error(Kind::Eof));
        };
        if peek == b']' {
            Ok(false)
        } else if *first {
            *first = false;
            Ok(true)
        } else if peek == b',' {
            self.i += 1;
            match self.whitespace() {
                Some(b']') => Err(self.peek_error(Kind::Syntax)),
                Some(_) => Ok(true),
                None => Err(self.peek_error(Kind::Eof)),
            }
        } else {
            Err(self.peek_error(Kind::Syntax))
        }
    }

    fn has_next_key(&mut self, first: &mut bool) -> Step<bool> {
        let Some(peek) = self.whitespace() else {
            return Err(self.peek_error(Kind::Eof));
        };
        if peek == b'}' {
            Ok(false)
        } else if *first {
            *first = false;
            if peek == b'"' {
                Ok(true)
            } else {
                Err(self.peek_error(Kind::Syntax))
            }
        } else if peek == b',' {
            self.i += 1;
            match self.whitespace() {
                Some(b'"') => Ok(true),
                Some(_) => Err(self.peek_error(Kind::Syntax)),
                None => Err(self.peek_error(Kind::Eof)),
            }
        } else {
            Err(self.peek_error(Kind::Syntax))
        }
    }

    fn colon(&mut self) -> Step<()> {
        match self.whitespace() {
            Some(b':') => {
                self.i += 1;
                Ok(())
            }
            Some(_) => Err(self.peek_error(Kind::Syntax)),
            None => Err(self.peek_error(Kind::Eof)),
        }
    }

    fn end_seq(&mut self) -> Step<()> {
        match self.whitespace() {
            Some(b']') => {
                self.i += 1;
                Ok(())
            }
            Some(b',') => {
                self.i += 1;
                self.whitespace();
                Err(self.peek_error(Kind::Syntax))
            }
            Some(_) => Err(self.peek_error(Kind::Syntax)),
            None => Err(self.peek_error(Kind::Eof)),
        }
    }

    fn end_map(&mut self) -> Step<()> {
        match self.whitespace() {
            Some(b'}') => {
                self.i += 1;
                Ok(())
            }
            Some(_) => Err(self.peek_error(Kind::Syntax)),
            None => Err(self.peek_error(Kind::Eof)),
        }
    }

    // Strings: `parse_str` (escapes decoded, UTF-8 checked) and `ignore_str`.

    /// Moves to the next `"`, `\` or control byte (`skip_to_escape`); false at the end.
    fn skip_to_escape(&mut self) -> bool {
        while let Some(b) = self.peek() {
            if b == b'"' || b == b'\\' || b < 0x20 {
                return true;
            }
            self.i += 1;
        }
        false
    }

    /// A string's text, after its opening quote.
    fn text(&mut self) -> Step<String> {
        let mut text = Vec::new();
        let mut start = self.i;
        loop {
            if !self.skip_to_escape() {
                return Err(self.error(Kind::Eof));
            }
            text.extend_from_slice(&self.s[start..self.i]);
            self.i += 1;
            match self.s[self.i - 1] {
                b'"' => break,
                b'\\' => self.escape(&mut text)?,
                _ => return Err(self.error(Kind::Syntax)),
            }
            start = self.i;
        }
        String::from_utf8(text).map_err(|e| {
            // Placed after the closing quote, moved back by the bytes from the first invalid
            // one to the end of the decoded text.
            let (line, column) = self.line_column(self.i);
            let back = e.as_bytes().len() - e.utf8_error().valid_up_to();
            Fail::At(BodyProblem::NotJson {
                line,
                column: column.saturating_sub(back),
            })
        })
    }

    /// `parse_escape`, after the backslash.
    fn escape(&mut self, text: &mut Vec<u8>) -> Step<()> {
        let Some(b) = self.next() else {
            return Err(self.error(Kind::Eof));
        };
        let decoded = match b {
            b'"' | b'\\' | b'/' => b,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => return self.unicode_escape(text),
            _ => return Err(self.error(Kind::Syntax)),
        };
        text.push(decoded);
        Ok(())
    }

    /// `parse_unicode_escape`, after `\u`: a surrogate pair must come whole.
    fn unicode_escape(&mut self, text: &mut Vec<u8>) -> Step<()> {
        let high = self.hex4()?;
        let code = match high {
            0xDC00..=0xDFFF => return Err(self.error(Kind::Syntax)),
            0xD800..=0xDBFF => {
                for expected in [b'\\', b'u'] {
                    match self.peek() {
                        None => return Err(self.error(Kind::Eof)),
                        Some(b) => {
                            self.i += 1;
                            if b != expected {
                                return Err(self.error(Kind::Syntax));
                            }
                        }
                    }
                }
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(self.error(Kind::Syntax));
                }
                (((u32::from(high) - 0xD800) << 10) | (u32::from(low) - 0xDC00)) + 0x1_0000
            }
            _ => u32::from(high),
        };
        if let Some(c) = char::from_u32(code) {
            text.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
        Ok(())
    }

    /// `decode_hex_escape`: four hex digits, all taken before they are checked.
    fn hex4(&mut self) -> Step<u16> {
        let Some(digits) = self.s.get(self.i..self.i + 4) else {
            self.i = self.s.len();
            return Err(self.error(Kind::Eof));
        };
        self.i += 4;
        let mut code = 0u16;
        for &d in digits {
            let Some(v) = char::from(d).to_digit(16) else {
                return Err(self.error(Kind::Syntax));
            };
            code = code << 4 | v as u16;
        }
        Ok(code)
    }

    fn ignore_str(&mut self) -> Step<()> {
        loop {
            if !self.skip_to_escape() {
                return Err(self.error(Kind::Eof));
            }
            match self.s[self.i] {
                b'"' => {
                    self.i += 1;
                    return Ok(());
                }
                b'\\' => {
                    self.i += 1;
                    match self.next() {
                        None => return Err(self.error(Kind::Eof)),
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {}
                        Some(b'u') => drop(self.hex4()?),
                        Some(_) => return Err(self.error(Kind::Syntax)),
                    }
                }
                // A control byte, not taken.
                _ => return Err(self.error(Kind::Syntax)),
            }
        }
    }

    // Numbers in a typed place: `parse_integer` and what follows it, lexically. Only where one
    // ends and whether it is well formed matter (any number there is the wrong shape): its
    // value is never made, so no magnitude is refused.

    fn number(&mut self) -> Step<()> {
        match self.next() {
            None => return Err(self.error(Kind::Eof)),
            Some(b'0') if self.peek_or_null().is_ascii_digit() => {
                return Err(self.peek_error(Kind::Syntax))
            }
            Some(b'0'..=b'9') => self.skip_digits(),
            Some(_) => return Err(self.error(Kind::Syntax)),
        }
        if self.peek_or_null() == b'.' {
            self.i += 1;
            if !self.peek_or_null().is_ascii_digit() {
                let kind = if self.peek().is_some() {
                    Kind::Syntax
                } else {
                    Kind::Eof
                };
                return Err(self.peek_error(kind));
            }
            self.skip_digits();
        }
        if let b'e' | b'E' = self.peek_or_null() {
            self.i += 1;
            if let b'+' | b'-' = self.peek_or_null() {
                self.i += 1;
            }
            match self.next() {
                None => return Err(self.error(Kind::Eof)),
                Some(b'0'..=b'9') => self.skip_digits(),
                Some(_) => return Err(self.error(Kind::Syntax)),
            }
        }
        Ok(())
    }

    // A value nobody asked for (an unknown key's): `ignore_value` and its numbers.

    fn ignore_value(&mut self) -> Step<()> {
        // The open arrays and objects, innermost last (`scratch` and `enclosing`).
        let mut open: Vec<u8> = Vec::new();
        let mut enclosing: Option<u8> = None;
        loop {
            let Some(peek) = self.whitespace() else {
                return Err(self.peek_error(Kind::Eof));
            };
            let frame = match peek {
                b'n' => self.literal(b"ull").map(|()| None)?,
                b't' => self.literal(b"rue").map(|()| None)?,
                b'f' => self.literal(b"alse").map(|()| None)?,
                b'-' => {
                    self.i += 1;
                    self.ignore_integer().map(|()| None)?
                }
                b'0'..=b'9' => self.ignore_integer().map(|()| None)?,
                b'"' => {
                    self.i += 1;
                    self.ignore_str().map(|()| None)?
                }
                frame @ (b'[' | b'{') => {
                    open.extend(enclosing.take());
                    self.i += 1;
                    Some(frame)
                }
                _ => return Err(self.peek_error(Kind::Syntax)),
            };
            let (mut accept_comma, mut frame) = match frame {
                Some(frame) => (false, frame),
                None => match enclosing.take().or_else(|| open.pop()) {
                    Some(frame) => (true, frame),
                    None => return Ok(()),
                },
            };
            loop {
                match self.whitespace() {
                    Some(b',') if accept_comma => {
                        self.i += 1;
                        break;
                    }
                    Some(b']') if frame == b'[' => {}
                    Some(b'}') if frame == b'{' => {}
                    Some(_) if accept_comma => return Err(self.peek_error(Kind::Syntax)),
                    Some(_) => break,
                    None => return Err(self.peek_error(Kind::Eof)),
                }
                self.i += 1;
                frame = match open.pop() {
                    Some(frame) => frame,
                    None => return Ok(()),
                };
                accept_comma = true;
            }
            if frame == b'{' {
                match self.whitespace() {
                    Some(b'"') => self.i += 1,
                    Some(_) => return Err(self.peek_error(Kind::Syntax)),
                    None => return Err(self.peek_error(Kind::Eof)),
                }
                self.ignore_str()?;
                self.colon()?;
            }
            enclosing = Some(frame);
        }
    }

    fn ignore_integer(&mut self) -> Step<()> {
        match self.next().unwrap_or(0) {
            b'0' if self.peek_or_null().is_ascii_digit() => {
                return Err(self.peek_error(Kind::Syntax))
            }
            b'0' => {}
            b'1'..=b'9' => self.skip_digits(),
            _ => return Err(self.error(Kind::Syntax)),
        }
        match self.peek_or_null() {
            b'.' => self.ignore_decimal(),
            b'e' | b'E' => self.ignore_exponent(),
            _ => Ok(()),
        }
    }

    fn ignore_decimal(&mut self) -> Step<()> {
        self.i += 1;
        if !self.peek_or_null().is_ascii_digit() {
            return Err(self.peek_error(Kind::Syntax));
        }
        self.skip_digits();
        match self.peek_or_null() {
            b'e' | b'E' => self.ignore_exponent(),
            _ => Ok(()),
        }
    }

    fn ignore_exponent(&mut self) -> Step<()> {
        self.i += 1;
        if let b'+' | b'-' = self.peek_or_null() {
            self.i += 1;
        }
        if !self.next().unwrap_or(0).is_ascii_digit() {
            return Err(self.error(Kind::Syntax));
        }
        self.skip_digits();
        Ok(())
    }
}

/// A read and the end that follows it, both always run: the read's problem comes first.
fn both<T>(read: Step<T>, end: Step<()>) -> Step<T> {
    let value = read?;
    end?;
    Ok(value)
}
