//! Reads chosen fields of a stored row as raw JSON slices, without building the whole object.

use super::error::{StoreError, StoreResult};

/// A raw JSON value inside a stored row: its exact text, borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Raw<'a>(&'a str);

impl<'a> Raw<'a> {
    pub fn get(&self) -> &'a str {
        self.0
    }

    pub fn new(text: &'a str) -> Self {
        Raw(text)
    }
}

fn corrupt(what: &str, pos: usize) -> StoreError {
    StoreError::Corrupt(format!("stored row: {what} at byte {pos}"))
}

/// A single-pass scanner over one JSON object; stored rows were written by serde_json, so
/// it only needs to find value boundaries, not validate everything.
struct Scanner<'a> {
    s: &'a str,
    b: &'a [u8],
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn ws(&mut self) {
        while self.pos < self.b.len() && matches!(self.b[self.pos], b' ' | b'\n' | b'\r' | b'\t') {
            self.pos += 1;
        }
    }

    fn expect(&mut self, c: u8) -> StoreResult<()> {
        self.ws();
        if self.b.get(self.pos) == Some(&c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(corrupt(&format!("expected '{}'", c as char), self.pos))
        }
    }

    /// Skips a string starting at the opening quote; returns whether it had escapes.
    fn string(&mut self) -> StoreResult<bool> {
        let mut escaped = false;
        self.pos += 1;
        // Most of a row's bytes are string contents: jump to the next quote or backslash.
        while let Some(i) = self.b.get(self.pos..).and_then(|rest| memchr::memchr2(b'"', b'\\', rest)) {
            self.pos += i;
            if self.b[self.pos] == b'"' {
                self.pos += 1;
                return Ok(escaped);
            }
            escaped = true;
            self.pos += 2;
        }
        self.pos = self.b.len();
        Err(corrupt("unterminated string", self.pos))
    }

    fn value(&mut self) -> StoreResult<Raw<'a>> {
        self.ws();
        let start = self.pos;
        match self.b.get(self.pos) {
            Some(b'"') => {
                self.string()?;
            }
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                while let Some(&c) = self.b.get(self.pos) {
                    match c {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.pos += 1;
                                break;
                            }
                        }
                        _ => {
                            // Between strings: numbers, literals, separators; skip to the
                            // next byte that matters.
                            self.pos += self.b[self.pos..]
                                .iter()
                                .position(|c| matches!(c, b'"' | b'{' | b'[' | b'}' | b']'))
                                .unwrap_or(self.b.len() - self.pos);
                            continue;
                        }
                    }
                    self.pos += 1;
                }
                if depth != 0 {
                    return Err(corrupt("unterminated container", self.pos));
                }
            }
            Some(_) => {
                while self.pos < self.b.len()
                    && !matches!(self.b[self.pos], b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
                {
                    self.pos += 1;
                }
            }
            None => return Err(corrupt("missing value", self.pos)),
        }
        if start == self.pos {
            return Err(corrupt("empty value", self.pos));
        }
        self.s.get(start..self.pos).map(Raw).ok_or_else(|| corrupt("split character", start))
    }
}

/// Fills `out[i]` with the raw value of `wanted[i]` (None when the row lacks it).
pub fn extract<'a>(row: &'a [u8], wanted: &[&str], out: &mut [Option<Raw<'a>>]) -> StoreResult<()> {
    out.iter_mut().for_each(|o| *o = None);
    let s = std::str::from_utf8(row).map_err(|e| StoreError::Corrupt(format!("stored row: {e}")))?;
    let mut sc = Scanner { s, b: row, pos: 0 };
    sc.expect(b'{')?;
    sc.ws();
    if sc.b.get(sc.pos) == Some(&b'}') {
        return Ok(());
    }
    let mut found = 0;
    loop {
        sc.ws();
        if sc.b.get(sc.pos) != Some(&b'"') {
            return Err(corrupt("expected a key", sc.pos));
        }
        let kstart = sc.pos;
        let escaped = sc.string()?;
        let quoted = &s[kstart..sc.pos];
        sc.expect(b':')?;
        let value = sc.value()?;
        let slot = if escaped {
            let key: String =
                serde_json::from_str(quoted).map_err(|e| StoreError::Corrupt(format!("stored key: {e}")))?;
            wanted.iter().position(|w| *w == key)
        } else {
            let key = &quoted[1..quoted.len() - 1];
            wanted.iter().position(|w| *w == key)
        };
        if let Some(i) = slot
            && out[i].is_none()
        {
            out[i] = Some(value);
            found += 1;
            // Every wanted field is in hand: the rest of the row is not needed.
            if found == wanted.len() {
                return Ok(());
            }
        }
        sc.ws();
        match sc.b.get(sc.pos) {
            Some(b',') => sc.pos += 1,
            Some(b'}') => return Ok(()),
            _ => return Err(corrupt("expected ',' or '}'", sc.pos)),
        }
    }
}

/// A raw string's text (unescaped only when it has escapes); None for other kinds.
pub fn raw_str(raw: Raw<'_>) -> Option<std::borrow::Cow<'_, str>> {
    let t = raw.get();
    let inner = t.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str::<String>(t).ok().map(std::borrow::Cow::Owned)
    } else {
        Some(inner.into())
    }
}

/// An integer written as a number or, as the provider writes Int64, a string (the same
/// reading as `exact::odata::as_i64`).
pub fn raw_i64(raw: Raw<'_>) -> Option<i64> {
    match raw.get().as_bytes().first() {
        Some(b'"') => raw_str(raw)?.trim().trim_end_matches('L').parse().ok(),
        _ => raw.get().parse().ok(),
    }
}

/// Writes `{"a":<raw>,"b":<raw>}` for the selected columns; missing ones are null.
pub(crate) fn project(row: &[u8], columns: &[&str], out: &mut Vec<u8>) -> StoreResult<()> {
    let mut vals: Vec<Option<Raw<'_>>> = vec![None; columns.len()];
    extract(row, columns, &mut vals)?;
    out.push(b'{');
    for (i, (name, val)) in columns.iter().zip(vals).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut *out, name).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        out.push(b':');
        out.extend_from_slice(val.map_or("null", |v| v.get()).as_bytes());
    }
    out.push(b'}');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extracts_requested_fields_only() {
        let row = br#"{"ID":"a","Nested":{"x":[1,2]},"Code":"C\"1","Stock":12.5}"#;
        let mut out = vec![None; 3];
        extract(row, &["Stock", "Missing", "Code"], &mut out).expect("extract");
        assert_eq!(out[0].map(|r| r.get()), Some("12.5"));
        assert!(out[1].is_none());
        assert_eq!(out[2].map(|r| r.get()), Some(r#""C\"1""#));
    }

    #[test]
    fn projects_in_select_order_and_rejects_garbage() {
        let mut buf = Vec::new();
        project(br#"{"ID":"a","Code":"c"}"#, &["Code", "Nope"], &mut buf).expect("project");
        assert_eq!(buf, br#"{"Code":"c","Nope":null}"#);
        let mut out = vec![None; 1];
        for bad in [
            &b"not json"[..],
            b"{\"ID\":",
            b"{\"ID\":\"x",
            b"{\"A\":[1,{\"B\":2}",
            b"{\"ID\" 1}",
            b"{\"A\":1 \"ID\":2}",
        ] {
            assert!(
                matches!(extract(bad, &["ID"], &mut out), Err(StoreError::Corrupt(_))),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let row = br#"{ "A" : [1,{"x":"]}"}] , "k\u0041":  true ,"ID":-1.5e3}"#;
        let mut out = vec![None; 3];
        extract(row, &["A", "kA", "ID"], &mut out).expect("spaced row");
        assert_eq!(
            out.iter().map(|r| r.map(|r| r.get())).collect::<Vec<_>>(),
            [Some(r#"[1,{"x":"]}"}]"#), Some("true"), Some("-1.5e3")]
        );
    }
}
