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
            Value::Object(m) => rows.push(plain_row(m)),
            _ => return Err(Malformed("a row is not an object".into())),
        }
    }
    Ok(Page { rows, next, count })
}

/// A row as the product keeps it: no `__metadata`, navigation collections that were not read
/// (`{"__deferred": …}`) left out, and expanded ones (`{"results": […]}`) as plain arrays of
/// such rows.
fn plain_row(mut row: Map<String, Value>) -> Map<String, Value> {
    row.remove("__metadata");
    let mut out = Map::with_capacity(row.len());
    for (k, v) in row {
        match navigation(&v) {
            Some(Navigation::Deferred) => {}
            Some(Navigation::Expanded) => {
                let Value::Object(mut wrapper) = v else { continue };
                let children = match wrapper.remove("results") {
                    Some(Value::Array(items)) => items
                        .into_iter()
                        .map(|c| match c {
                            Value::Object(m) => Value::Object(plain_row(m)),
                            other => other,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                out.insert(k, Value::Array(children));
            }
            None => {
                out.insert(k, v);
            }
        }
    }
    out
}

enum Navigation {
    Deferred,
    Expanded,
}

/// Whether a member's value is a navigation collection, and in which form.
fn navigation(v: &Value) -> Option<Navigation> {
    let obj = v.as_object().filter(|o| o.len() == 1)?;
    if obj.contains_key("__deferred") {
        Some(Navigation::Deferred)
    } else if obj.get("results").is_some_and(Value::is_array) {
        Some(Navigation::Expanded)
    } else {
        None
    }
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

    pub fn clear(&mut self) {
        self.bytes.clear();
        self.spans.clear();
    }
}

/// One page of a collection as raw rows (what a sync stores).
#[derive(Debug, Default)]
pub struct RawPage {
    pub rows: RawRows,
    /// Each row's `Timestamp` (None where it has none), read in the same pass: a sync orders
    /// and resumes by it.
    pub stamps: Vec<Option<i64>>,
    pub next: Option<String>,
    pub count: Option<u64>,
}

/// `parse_collection`, keeping each row's JSON text instead of building values, in one
/// validating pass over the body (a page is about 1 MB, and a sync reads thousands): a
/// malformed page is refused exactly as `parse_collection` refuses it.
pub fn parse_collection_raw(body: &[u8]) -> Result<RawPage, Malformed> {
    use serde::de::DeserializeSeed;
    let mut parse = raw::Parse::default();
    let mut de = serde_json::Deserializer::from_slice(body);
    let done = raw::Top(&mut parse).deserialize(&mut de).and_then(|()| de.end());
    match done {
        Ok(()) => Ok(parse.page),
        Err(e) if matches!(e.classify(), serde_json::error::Category::Syntax | serde_json::error::Category::Eof) => {
            Err(Malformed(format!("not JSON: {e}")))
        }
        Err(e) => Err(Malformed(parse.why.map_or_else(|| e.to_string(), str::to_string))),
    }
}

/// The visitors of `parse_collection_raw`. Each sets `why` to what it expects before asking
/// for a value and clears it once it has one, so a value of the wrong kind is reported in
/// `parse_collection`'s words.
mod raw {
    use super::RawPage;
    use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use serde_json::value::RawValue;
    use std::borrow::Cow;
    use std::fmt;

    #[derive(Default)]
    pub(super) struct Parse {
        pub(super) page: RawPage,
        pub(super) why: Option<&'static str>,
    }

    impl Parse {
        fn fail<E: de::Error>(&mut self, why: &'static str) -> E {
            self.why = Some(why);
            E::custom(why)
        }
    }

    /// An object key: borrowed from the body unless it had escapes.
    struct Key;

    impl<'de> DeserializeSeed<'de> for Key {
        type Value = Cow<'de, str>;
        fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_str(self)
        }
    }

    impl<'de> Visitor<'de> for Key {
        type Value = Cow<'de, str>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a key")
        }
        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(v))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Cow::Owned(v.to_string()))
        }
    }

    /// The body: an object with a `d` member.
    pub(super) struct Top<'p>(pub(super) &'p mut Parse);

    impl<'de> DeserializeSeed<'de> for Top<'_> {
        type Value = ();
        fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            self.0.why = Some("top level is not an object");
            d.deserialize_map(self)
        }
    }

    impl<'de> Visitor<'de> for Top<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            self.0.why = None;
            let mut seen = false;
            while let Some(key) = map.next_key_seed(Key)? {
                if key == "d" {
                    // A repeated member counts once, the last (as in `parse_collection`).
                    self.0.page = RawPage::default();
                    map.next_value_seed(D(&mut *self.0))?;
                    seen = true;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            if seen { Ok(()) } else { Err(self.0.fail("no \"d\" member")) }
        }
    }

    /// `d`: the rows, or an object with `results`, `__next` and `__count`.
    struct D<'p>(&'p mut Parse);

    impl<'de> DeserializeSeed<'de> for D<'_> {
        type Value = ();
        fn deserialize<De: de::Deserializer<'de>>(self, d: De) -> Result<(), De::Error> {
            self.0.why = Some("\"d\" is neither an object nor an array");
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for D<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object or an array")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
            self.0.why = None;
            Rows(&mut *self.0).visit_seq(seq)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            self.0.why = None;
            let mut results = false;
            while let Some(key) = map.next_key_seed(Key)? {
                match key.as_ref() {
                    "results" => {
                        // A repeated member counts once, the last.
                        self.0.page.rows.clear();
                        self.0.page.stamps.clear();
                        map.next_value_seed(Rows(&mut *self.0))?;
                        results = true;
                    }
                    "__next" => {
                        self.0.why = Some("\"__next\" is not a string");
                        let next: Option<String> = map.next_value()?;
                        self.0.why = None;
                        self.0.page.next = next.filter(|s| !s.is_empty());
                    }
                    "__count" => {
                        let raw: &RawValue = map.next_value()?;
                        let n = crate::store::fields::raw_i64(crate::store::fields::Raw::new(raw.get()));
                        self.0.page.count = n.map(|n| n.max(0) as u64);
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            if results { Ok(()) } else { Err(self.0.fail("no \"results\" member")) }
        }
    }

    /// The array of rows.
    struct Rows<'p>(&'p mut Parse);

    impl<'de> DeserializeSeed<'de> for Rows<'_> {
        type Value = ();
        fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            self.0.why = Some("\"results\" is not an array");
            d.deserialize_seq(self)
        }
    }

    impl<'de> Visitor<'de> for Rows<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an array")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            self.0.why = None;
            while seq.next_element_seed(Row(&mut *self.0))?.is_some() {}
            Ok(())
        }
    }

    /// One row: its members copied as written, but `__metadata`.
    struct Row<'p>(&'p mut Parse);

    impl<'de> DeserializeSeed<'de> for Row<'_> {
        type Value = ();
        fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            self.0.why = Some("a row is not an object");
            d.deserialize_map(self)
        }
    }

    impl<'de> Visitor<'de> for Row<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            self.0.why = None;
            let page = &mut self.0.page;
            let out = &mut page.rows.bytes;
            let begin = out.len();
            out.push(b'{');
            let mut stamp = None;
            while let Some(key) = map.next_key_seed(Key)? {
                if key == "__metadata" {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
                let value: &RawValue = map.next_value()?;
                // Navigation collections are rare (an `$expand`): parsed only when an object.
                let nested = if value.get().starts_with('{') {
                    let parsed: serde_json::Value = serde_json::from_str(value.get()).map_err(de::Error::custom)?;
                    match super::navigation(&parsed) {
                        Some(super::Navigation::Deferred) => continue,
                        Some(super::Navigation::Expanded) => {
                            let mut row = serde_json::Map::new();
                            row.insert(String::new(), parsed);
                            let plain = super::plain_row(row).remove("").unwrap_or_default();
                            Some(serde_json::to_vec(&plain).map_err(de::Error::custom)?)
                        }
                        None => None,
                    }
                } else {
                    None
                };
                if out.len() > begin + 1 {
                    out.push(b',');
                }
                match &key {
                    // Borrowed: the key had no escapes, so it reads back exactly as written.
                    Cow::Borrowed(k) => {
                        out.push(b'"');
                        out.extend_from_slice(k.as_bytes());
                        out.push(b'"');
                    }
                    Cow::Owned(k) => serde_json::to_writer(&mut *out, k).map_err(de::Error::custom)?,
                }
                out.push(b':');
                out.extend_from_slice(nested.as_deref().unwrap_or(value.get().as_bytes()));
                if key == "Timestamp" {
                    stamp = crate::store::fields::raw_i64(crate::store::fields::Raw::new(value.get()));
                }
            }
            out.push(b'}');
            page.rows.spans.push(begin..out.len());
            page.stamps.push(stamp);
            Ok(())
        }
    }
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
    fn expanded_collections_become_arrays_and_deferred_ones_are_left_out() {
        let body = br#"{"d":{"results":[{"__metadata":{"uri":"u"},"ID":"a","Timestamp":"5",
            "BankAccounts":{"results":[{"__metadata":{"uri":"b"},"IBAN":"NL91ABNA0417164300","Main":true}]},
            "Addresses":{"__deferred":{"uri":"https://x/Accounts(guid'a')/Addresses"}},"Empty":{"results":[]},
            "Other":{"results":1},"Blob":{"a":1}}]}}"#;
        let expected = serde_json::json!({"ID": "a", "Timestamp": "5",
            "BankAccounts": [{"IBAN": "NL91ABNA0417164300", "Main": true}], "Empty": [],
            "Other": {"results": 1}, "Blob": {"a": 1}});
        let page = parse_collection(body).unwrap();
        assert_eq!(Value::Object(page.rows[0].clone()), expected);
        let raw = parse_collection_raw(body).unwrap();
        assert_eq!(serde_json::from_slice::<Value>(raw.rows.get(0)).unwrap(), expected);
        assert_eq!(raw.stamps, [Some(5)]);
    }

    #[test]
    fn raw_pages_read_each_rows_timestamp_and_refuse_like_parse_collection() {
        let body = br#"{"d":{"results":[{"Timestamp":"12","ID":"a"},{"ID":"b"},{"T\u0041":1,"Timestamp":7}]}}"#;
        let page = parse_collection_raw(body).unwrap();
        assert_eq!(page.stamps, [Some(12), None, Some(7)]);
        // A key with escapes is written back in its plain form.
        assert_eq!(page.rows.get(2), br#"{"TA":1,"Timestamp":7}"#);
        // The last "d" counts, as it does for parse_collection.
        let twice = parse_collection_raw(br#"{"d":[{"ID":"x"}],"d":{"results":[{"ID":"y"}]}}"#).unwrap();
        assert_eq!(twice.rows.iter().collect::<Vec<_>>(), [br#"{"ID":"y"}"#]);
        for body in [
            &b"<html>"[..],
            b"[]",
            b"{}",
            b"{\"d\":5}",
            b"{\"d\":{}}",
            b"{\"d\":{\"results\":{}}}",
            b"{\"d\":{\"results\":[1]}}",
            b"{\"d\":{\"results\":[], \"__next\": 5}}",
            b"{\"d\":[]} x",
        ] {
            let want = parse_collection(body).unwrap_err().to_string();
            assert_eq!(parse_collection_raw(body).unwrap_err().to_string(), want);
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
