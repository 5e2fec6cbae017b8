//! Exact's OData v2 "verbose" JSON envelopes and error bodies.

use serde_json::{Map, Value};

/// One page of a collection: rows without `__metadata`, and the absolute `__next` URL if any.
#[derive(Debug, Default)]
pub struct Page {
    pub rows: Vec<Map<String, Value>>,
    pub next: Option<String>,
    /// `__count`, present when `$inlinecount=allpages` was asked and honoured.
    pub count: Option<u64>,
}

/// Why a body could not be read as an envelope.
#[derive(Debug, thiserror::Error)]
#[error("malformed response from Exact Online: {0}")]
pub struct Malformed(pub String);

/// `{"d":{"results":[…],"__next":…}}`, or `{"d":[…]}` as some read functions answer.
pub fn parse_collection(body: &[u8]) -> Result<Page, Malformed> {
    let value: Value = serde_json::from_slice(body).map_err(|e| Malformed(format!("not JSON: {e}")))?;
    let Value::Object(mut top) = value else { return Err(Malformed("top level is not an object".into())) };
    let d = top.remove("d").ok_or_else(|| Malformed("no \"d\" member".into()))?;
    let mut count = None;
    let (results, next) = match d {
        Value::Array(rows) => (rows, None),
        Value::Object(mut d) => {
            count = d.remove("__count").as_ref().and_then(crate::exact::odata::as_i64).map(|n| n.max(0) as u64);
            let next = match d.remove("__next") {
                Some(Value::String(s)) if !s.is_empty() => Some(s),
                Some(Value::Null) | None => None,
                Some(_) => return Err(Malformed("\"__next\" is not a string".into())),
            };
            match d.remove("results") {
                Some(Value::Array(rows)) => (rows, next),
                Some(_) => return Err(Malformed("\"results\" is not an array".into())),
                None => return Err(Malformed("no \"results\" member".into())),
            }
        }
        _ => return Err(Malformed("\"d\" is neither an object nor an array".into())),
    };
    let mut rows = Vec::with_capacity(results.len());
    for row in results {
        match row {
            Value::Object(mut m) => {
                m.remove("__metadata");
                rows.push(m);
            }
            _ => return Err(Malformed("a row is not an object".into())),
        }
    }
    Ok(Page { rows, next, count })
}

/// Rows as the provider wrote them, each without `__metadata`, end to end in one buffer: a
/// sync page becomes stored rows with no per-row allocation and no re-encoding.
#[derive(Debug, Default, Clone)]
pub struct RawRows {
    bytes: Vec<u8>,
    spans: Vec<std::ops::Range<usize>>,
}

impl RawRows {
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The JSON object text of row `i`.
    pub fn get(&self, i: usize) -> &[u8] {
        &self.bytes[self.spans[i].clone()]
    }

    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        self.spans.iter().map(|r| &self.bytes[r.clone()])
    }

    /// Appends one row given as JSON object text.
    pub fn push(&mut self, row: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(row);
        self.spans.push(start..self.bytes.len());
    }

    /// Appends the rows of `other`, in their order.
    pub fn append(&mut self, other: &RawRows) {
        let base = self.bytes.len();
        self.bytes.extend_from_slice(&other.bytes);
        self.spans.extend(other.spans.iter().map(|r| r.start + base..r.end + base));
    }

    /// Reorders the rows by a key computed from each row's text (stable).
    pub fn sort_by_cached_key<K: Ord>(&mut self, mut key: impl FnMut(&[u8]) -> K) {
        let bytes = &self.bytes;
        self.spans.sort_by_cached_key(|r| key(&bytes[r.clone()]));
    }

    /// Rows `range` as a new buffer.
    pub fn slice(&self, range: std::ops::Range<usize>) -> RawRows {
        let mut out = RawRows::default();
        for i in range {
            out.push(self.get(i));
        }
        out
    }

    pub fn clear(&mut self) {
        self.bytes.clear();
        self.spans.clear();
    }
}

/// One page of a collection as raw rows (what a sync stores).
#[derive(Debug, Default)]
pub struct RawPage {
    pub rows: RawRows,
    pub next: Option<String>,
    pub count: Option<u64>,
}

/// Unescaped text of a quoted JSON key.
fn key_text(quoted: &str) -> std::borrow::Cow<'_, str> {
    crate::store::fields::raw_str(crate::store::fields::Raw::new(quoted)).unwrap_or_default()
}

/// `parse_collection`, keeping each row's JSON text instead of building values. The body is
/// validated as JSON first, so a malformed page is refused exactly as `parse_collection` does.
pub fn parse_collection_raw(body: &[u8]) -> Result<RawPage, Malformed> {
    use crate::store::fields::{array_elements, for_each_member, raw_str};
    serde_json::from_slice::<serde::de::IgnoredAny>(body).map_err(|e| Malformed(format!("not JSON: {e}")))?;
    let structure = |e: crate::store::StoreError| Malformed(e.to_string());
    let start = body.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(0);
    if body.get(start) != Some(&b'{') {
        return Err(Malformed("top level is not an object".into()));
    }
    let mut d = None;
    for_each_member(&body[start..], |k, v| {
        if key_text(k) == "d" {
            d = Some(v);
        }
        Ok(true)
    })
    .map_err(structure)?;
    let d = d.ok_or_else(|| Malformed("no \"d\" member".into()))?.get().as_bytes();
    let mut page = RawPage::default();
    let results = match d.first() {
        Some(b'[') => d,
        Some(b'{') => {
            let mut results = None;
            let mut next_bad = false;
            for_each_member(d, |k, v| {
                match key_text(k).as_ref() {
                    "results" => results = Some(v),
                    "__next" => match v.get().as_bytes().first() {
                        Some(b'"') => page.next = raw_str(v).map(|s| s.into_owned()).filter(|s| !s.is_empty()),
                        Some(b'n') => {}
                        _ => next_bad = true,
                    },
                    "__count" => {
                        page.count = crate::store::fields::raw_i64(v).map(|n| n.max(0) as u64);
                    }
                    _ => {}
                }
                Ok(true)
            })
            .map_err(structure)?;
            if next_bad {
                return Err(Malformed("\"__next\" is not a string".into()));
            }
            let results = results.ok_or_else(|| Malformed("no \"results\" member".into()))?.get().as_bytes();
            if results.first() != Some(&b'[') {
                return Err(Malformed("\"results\" is not an array".into()));
            }
            results
        }
        _ => return Err(Malformed("\"d\" is neither an object nor an array".into())),
    };
    let elements = array_elements(results).map_err(structure)?;
    page.rows.bytes.reserve(results.len());
    for el in elements {
        let text = el.get().as_bytes();
        if text.first() != Some(&b'{') {
            return Err(Malformed("a row is not an object".into()));
        }
        let rows = &mut page.rows;
        let begin = rows.bytes.len();
        rows.bytes.push(b'{');
        let mut first = true;
        for_each_member(text, |k, v| {
            if key_text(k) != "__metadata" {
                if !first {
                    rows.bytes.push(b',');
                }
                first = false;
                rows.bytes.extend_from_slice(k.as_bytes());
                rows.bytes.push(b':');
                rows.bytes.extend_from_slice(v.get().as_bytes());
            }
            Ok(true)
        })
        .map_err(structure)?;
        rows.bytes.push(b'}');
        rows.spans.push(begin..rows.bytes.len());
    }
    Ok(page)
}

/// `{"d":{…}}` of a single entity (key lookup, POST answer), without `__metadata`.
pub fn parse_single(body: &[u8]) -> Result<Map<String, Value>, Malformed> {
    let value: Value = serde_json::from_slice(body).map_err(|e| Malformed(format!("not JSON: {e}")))?;
    match value {
        Value::Object(mut top) => match top.remove("d") {
            Some(Value::Object(mut d)) => {
                d.remove("__metadata");
                Ok(d)
            }
            _ => Err(Malformed("no \"d\" object".into())),
        },
        _ => Err(Malformed("top level is not an object".into())),
    }
}

/// The human-readable message of an Exact error body: `{"error":{"message":{"value":…}}}` for
/// the REST API, `{"error":…,"error_description":…}` for the token endpoint, else the text itself.
pub fn error_message(body: &[u8]) -> String {
    if let Ok(Value::Object(top)) = serde_json::from_slice::<Value>(body) {
        if let Some(desc) = top.get("error_description").and_then(Value::as_str) {
            return desc.to_string();
        }
        match top.get("error") {
            Some(Value::Object(err)) => {
                if let Some(v) = err.get("message").and_then(|m| m.get("value")).and_then(Value::as_str) {
                    return v.to_string();
                }
                if let Some(v) = err.get("message").and_then(Value::as_str) {
                    return v.to_string();
                }
            }
            Some(Value::String(s)) => return s.clone(),
            _ => {}
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() { "no message".to_string() } else { text.chars().take(300).collect() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collection_with_next_and_metadata() {
        let body = br#"{"d":{"results":[{"__metadata":{"uri":"u","type":"t"},"ID":"a"}],"__next":"https://x/next"}}"#;
        let page = parse_collection(body).unwrap();
        assert_eq!(page.rows.len(), 1);
        assert!(!page.rows[0].contains_key("__metadata"));
        assert_eq!(page.next.as_deref(), Some("https://x/next"));
    }

    #[test]
    fn raw_pages_keep_each_row_as_written_without_metadata() {
        let body =
            br#" {"d":{"__count":"3","results":[{"__metadata":{"uri":"u","type":"t"},"ID":"a","N":{"x":[1,"]"]}},
            {"ID":"b\"q","__metadata":{}}, {}],"__next":"https:\/\/x\/next"}}"#;
        let page = parse_collection_raw(body).unwrap();
        let rows: Vec<&[u8]> = page.rows.iter().collect();
        assert_eq!(rows, [&br#"{"ID":"a","N":{"x":[1,"]"]}}"#[..], br#"{"ID":"b\"q"}"#, b"{}"]);
        assert_eq!(page.next.as_deref(), Some("https://x/next"));
        assert_eq!(page.count, Some(3));
        let values = parse_collection(body).unwrap();
        for (raw, value) in page.rows.iter().zip(&values.rows) {
            assert_eq!(&serde_json::from_slice::<Map<String, Value>>(raw).unwrap(), value);
        }
        let plain = parse_collection_raw(br#"{"d":[{"InStock":3}]}"#).unwrap();
        assert_eq!(plain.rows.len(), 1);
        assert!(plain.next.is_none());
        for body in
            [&b"<html>"[..], b"{}", b"{\"d\":{}}", b"{\"d\":{\"results\":{}}}", b"{\"d\":[1]}", b"{\"d\":[{\"a\":1}"]
        {
            assert!(parse_collection_raw(body).is_err(), "{}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn plain_array_d() {
        let page = parse_collection(br#"{"d":[{"InStock":3}]}"#).unwrap();
        assert_eq!(page.rows.len(), 1);
        assert!(page.next.is_none());
    }

    #[test]
    fn malformed_bodies_are_errors() {
        for body in [
            &b"<html>"[..],
            b"{}",
            b"{\"d\":{}}",
            b"{\"d\":{\"results\":{}}}",
            b"{\"d\":{\"results\":[1]}}",
            b"{\"d\":{\"results\":[], \"__next\": 5}}",
        ] {
            assert!(parse_collection(body).is_err(), "{}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn single_entity() {
        let row = parse_single(br#"{"d":{"__metadata":{},"ID":"x"}}"#).unwrap();
        assert_eq!(row["ID"], "x");
    }

    #[test]
    fn error_messages_in_every_shape() {
        assert_eq!(
            error_message(br#"{"error":{"code":"","message":{"lang":"","value":"Verplicht: Serie"}}}"#),
            "Verplicht: Serie"
        );
        assert_eq!(
            error_message(br#"{"error":"unauthorized_client","error_description":"Old refresh token used."}"#),
            "Old refresh token used."
        );
        assert_eq!(error_message(b"Not found"), "Not found");
        assert_eq!(error_message(b""), "no message");
    }
}
