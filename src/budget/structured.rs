//! RFC 9651's List (a structured field, the grammar of `RateLimit`), checked whole in one pass
//! and handed over member by member, with nothing built but each Item's parameters. Every step
//! is the RFC's parsing algorithm (section 4.2), named after it; where the RFC leaves a choice,
//! the choice is the `sfv` crate's, so that `tests/rate_limit_oracle.rs` can hold this walk
//! against `sfv`: the same verdict on every value, and a failure at the same byte.

/// What a bare item is, as far as a reader of whole numbers needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bare {
    /// An Integer (at most 15 digits, so it fits an `i64`).
    Integer(i64),
    /// Any other bare item: a Decimal, String, Token, Byte Sequence, Boolean, Date or Display
    /// String.
    Other,
}

/// One member of a List: an Item's parameters (key, value), in order, or `None` for an Inner
/// List.
pub(crate) type Member<'a, 'p> = Option<&'p [(&'a str, Bare)]>;

/// Walks `input` as a List, calling `member` for each member in order; the whole value is
/// checked even after a member a caller has no use for. `Err` is the byte at which the value
/// stops being a List.
pub(crate) fn list<'a>(
    input: &'a str,
    mut member: impl FnMut(Member<'a, '_>),
) -> Result<(), usize> {
    let mut c = Cursor { text: input, at: 0 };
    let mut params = Vec::new();
    c.skip(SP);
    while c.peek().is_some() {
        params.clear();
        if c.peek() == Some(b'(') {
            c.inner_list()?;
            member(None);
        } else {
            c.bare_item()?;
            c.parameters(&mut params)?;
            member(Some(&params));
        }
        c.skip(OWS);
        match c.peek() {
            None => break,
            Some(b',') => {}
            Some(_) => return Err(c.at),
        }
        let comma = c.at;
        c.at += 1;
        c.skip(OWS);
        if c.peek().is_none() {
            return Err(comma);
        }
    }
    Ok(())
}

const SP: &[u8] = b" ";
const OWS: &[u8] = b" \t";

/// The input and how far it has been read.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn skip(&mut self, these: &[u8]) {
        while self.peek().is_some_and(|b| these.contains(&b)) {
            self.at += 1;
        }
    }

    /// Moves past `b` and returns `true` if it comes next.
    fn eat(&mut self, b: u8) -> bool {
        let next = self.peek() == Some(b);
        self.at += usize::from(next);
        next
    }

    /// Moves past the longest run of bytes that pass `keep`, and returns it.
    fn run(&mut self, keep: impl Fn(u8) -> bool) -> &'a str {
        let from = self.at;
        while self.peek().is_some_and(&keep) {
            self.at += 1;
        }
        &self.text[from..self.at]
    }

    /// Parsing an Inner List (4.2.1.2): items separated by spaces, then `)` and parameters.
    fn inner_list(&mut self) -> Result<(), usize> {
        self.at += 1;
        let mut ignored = Vec::new();
        while self.peek().is_some() {
            self.skip(SP);
            if self.eat(b')') {
                return self.parameters(&mut ignored);
            }
            self.bare_item()?;
            self.parameters(&mut ignored)?;
            if self.peek().is_some_and(|b| b != b' ' && b != b')') {
                return Err(self.at);
            }
        }
        Err(self.at)
    }

    /// Parsing Parameters (4.2.3.2): `;key` or `;key=bare-item`, each pushed to `out`.
    fn parameters(&mut self, out: &mut Vec<(&'a str, Bare)>) -> Result<(), usize> {
        while self.eat(b';') {
            self.skip(SP);
            let key = self.key()?;
            let value = if self.eat(b'=') {
                self.bare_item()?
            } else {
                Bare::Other
            };
            out.push((key, value));
        }
        Ok(())
    }

    /// Parsing a Key (4.2.3.3).
    fn key(&mut self) -> Result<&'a str, usize> {
        if !self
            .peek()
            .is_some_and(|b| b.is_ascii_lowercase() || b == b'*')
        {
            return Err(self.at);
        }
        Ok(self.run(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-' | b'.' | b'*')
        }))
    }

    /// Parsing a Bare Item (4.2.3.1).
    fn bare_item(&mut self) -> Result<Bare, usize> {
        match self.peek() {
            Some(b'?') => self.boolean(),
            Some(b'"') => {
                self.at += 1;
                self.string()
            }
            Some(b':') => self.byte_sequence(),
            Some(b'@') => self.date(),
            Some(b'%') => self.display_string(),
            Some(b) if b.is_ascii_alphabetic() || b == b'*' => {
                self.run(|b| is_tchar(b) || b == b':' || b == b'/');
                Ok(Bare::Other)
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.at),
        }
    }

    /// Parsing a Boolean (4.2.8): `?0` or `?1`.
    fn boolean(&mut self) -> Result<Bare, usize> {
        self.at += 1;
        if self.eat(b'0') || self.eat(b'1') {
            Ok(Bare::Other)
        } else {
            Err(self.at)
        }
    }

    /// Parsing a String (4.2.5), after its opening quote: printable ASCII, with `\"` and `\\`.
    fn string(&mut self) -> Result<Bare, usize> {
        while let Some(b) = self.peek() {
            self.at += 1;
            match b {
                b'"' => return Ok(Bare::Other),
                b'\\' if self.eat(b'\\') || self.eat(b'"') => {}
                b'\\' => return Err(self.at),
                0x20..=0x7e => {}
                _ => return Err(self.at - 1),
            }
        }
        Err(self.at)
    }

    /// Parsing a Byte Sequence (4.2.7): base64 between colons, padding optional, trailing bits
    /// allowed.
    fn byte_sequence(&mut self) -> Result<Bare, usize> {
        self.at += 1;
        let from = self.at;
        while !self.eat(b':') {
            if self.peek().is_none() {
                return Err(self.at);
            }
            self.at += 1;
        }
        base64(&self.text.as_bytes()[from..self.at - 1]).map_err(|k| from + k)?;
        Ok(Bare::Other)
    }

    /// Parsing a Date (4.2.9): `@` and an Integer.
    fn date(&mut self) -> Result<Bare, usize> {
        let at = self.at;
        self.at += 1;
        match self.number()? {
            Bare::Integer(_) => Ok(Bare::Other),
            Bare::Other => Err(at),
        }
    }

    /// Parsing a Display String (4.2.10): `%"`, printable ASCII with `%xx` (lower-case hex)
    /// escapes, `"`; the escapes must spell UTF-8.
    fn display_string(&mut self) -> Result<Bare, usize> {
        self.at += 1;
        if !self.eat(b'"') {
            return Err(self.at);
        }
        let from = self.at;
        let mut bytes = Vec::new();
        while let Some(b) = self.peek() {
            self.at += 1;
            match b {
                b'"' => {
                    return match std::str::from_utf8(&bytes) {
                        Ok(_) => Ok(Bare::Other),
                        // The byte where the first bad character's text begins.
                        Err(e) => Err((0..e.valid_up_to()).fold(from, |k, _| {
                            k + if self.text.as_bytes()[k] == b'%' {
                                3
                            } else {
                                1
                            }
                        })),
                    };
                }
                b'%' => {
                    let mut octet = 0;
                    for _ in 0..2 {
                        let digit = match self.peek() {
                            Some(d @ b'0'..=b'9') => d - b'0',
                            Some(d @ b'a'..=b'f') => d - b'a' + 10,
                            _ => return Err(self.at),
                        };
                        self.at += 1;
                        octet = octet << 4 | digit;
                    }
                    bytes.push(octet);
                }
                0x20..=0x7e => bytes.push(b),
                _ => return Err(self.at - 1),
            }
        }
        Err(self.at)
    }

    /// Parsing an Integer or Decimal (4.2.4): at most 15 digits, or 12 before a point and 1 to
    /// 3 after it.
    fn number(&mut self) -> Result<Bare, usize> {
        let negative = self.eat(b'-');
        let digit = |b: Option<u8>| b.filter(u8::is_ascii_digit).map(|d| i64::from(d - b'0'));
        let Some(first) = digit(self.peek()) else {
            return Err(self.at);
        };
        self.at += 1;
        let (mut value, mut digits) = (first, 1);
        loop {
            if let Some(d) = digit(self.peek()) {
                digits += 1;
                if digits > 15 {
                    return Err(self.at);
                }
                self.at += 1;
                value = value * 10 + d;
            } else if self.peek() == Some(b'.') {
                if digits > 12 {
                    return Err(self.at);
                }
                self.at += 1;
                break;
            } else {
                return Ok(Bare::Integer(if negative { -value } else { value }));
            }
        }
        let mut fraction = 0;
        while digit(self.peek()).is_some() {
            if fraction == 3 {
                return Err(self.at);
            }
            fraction += 1;
            self.at += 1;
        }
        if fraction == 0 {
            // At the point itself.
            return Err(self.at - 1);
        }
        Ok(Bare::Other)
    }
}

/// `tchar` (RFC 9110, 5.6.2).
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Whether `b` is base64 (RFC 4648), padding optional and trailing bits allowed, or the offset
/// of the byte that makes it not: the quads but the last hold only the alphabet; `=` may only
/// end the last quad, after at least two symbols; and a lone symbol cannot end it.
fn base64(b: &[u8]) -> Result<(), usize> {
    let symbol = |c: u8| c.is_ascii_alphanumeric() || c == b'+' || c == b'/';
    let rem = b.len() % 4;
    // A stray last byte is named first (so `sfv`, through the `base64` crate).
    if rem == 1 && b[b.len() - 1] != b'=' && !symbol(b[b.len() - 1]) {
        return Err(b.len() - 1);
    }
    let last_quad = b.len().saturating_sub(if rem == 0 { 4 } else { rem });
    if let Some(k) = b[..last_quad].iter().position(|&c| !symbol(c)) {
        return Err(k);
    }
    let (mut symbols, mut padding) = (0, None);
    for (k, &c) in b.iter().enumerate().skip(last_quad) {
        match (c, padding) {
            (b'=', _) if k - last_quad < 2 => return Err(k),
            (b'=', _) => padding = padding.or(Some(k)),
            (_, Some(p)) => return Err(p),
            _ if symbol(c) => symbols += 1,
            _ => return Err(k),
        }
    }
    if !b.is_empty() && symbols < 2 {
        return Err(b.len() - 1);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The members of `v` as text: `i` for an inner list, else `key=value` pairs.
    fn walk(v: &str) -> Result<Vec<String>, usize> {
        let mut out = Vec::new();
        list(v, |m| {
            out.push(match m {
                None => "i".to_owned(),
                Some(params) => params
                    .iter()
                    .map(|(k, v)| match v {
                        Bare::Integer(n) => format!("{k}={n}"),
                        Bare::Other => format!("{k}=_"),
                    })
                    .collect::<Vec<_>>()
                    .join(";"),
            });
        })?;
        Ok(out)
    }

    #[test]
    fn every_kind_of_bare_item_is_read_and_integers_are_kept() {
        assert_eq!(
            walk(r#""w";r=0;t=3, day;r=-5;q=1.25;b, (a "b" :AQ==:);x=1,?1;z=@17;d=%"caf%c3%a9""#),
            Ok(vec![
                "r=0;t=3".to_owned(),
                "r=-5;q=_;b=_".to_owned(),
                "i".to_owned(),
                "z=_;d=_".to_owned()
            ])
        );
        assert_eq!(walk("  "), Ok(vec![]));
        assert_eq!(
            walk("*tok:/x;r=999999999999999"),
            Ok(vec!["r=999999999999999".to_owned()])
        );
        assert_eq!(walk(":AQ:, :AQ=:, :AQI:, ::"), Ok(vec![String::new(); 4]));
    }

    #[test]
    fn a_value_that_is_not_a_list_is_named_at_its_first_wrong_byte() {
        for (v, at) in [
            ("a,", 1),
            ("a b", 2),
            ("a;R=1", 2),
            ("1234567890123456", 15),
            ("1234567890123.4", 13),
            ("1.2345", 5),
            ("1.", 1),
            ("-", 1),
            ("\"a\\x\"", 3),
            ("\"a\u{7f}\"", 2),
            ("\"a", 2),
            ("?2", 1),
            ("@1.5", 0),
            ("%\"%C3\"", 3),
            ("%\"%c3\"", 2),
            (":A:", 1),
            (":A=Q=:", 2),
            (":AQ=A:", 3),
            (":AQ", 3),
            ("(a b", 4),
            ("(a,b)", 2),
            ("a, ,b", 3),
            ("a\tb", 2),
            ("\ta", 0),
        ] {
            assert_eq!(walk(v), Err(at), "{v:?}");
        }
    }
}
