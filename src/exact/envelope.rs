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
