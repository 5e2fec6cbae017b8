//! OData v2 literals and value formats as Exact Online writes and reads them.
//!
//! Dates are `/Date(ms)/` (CET wall-clock time written as if it were UTC), Int64 values come as
//! strings, GUID keys are written `guid'…'` in filters.

use serde_json::Value;

/// The URL budget for one provider call (spec §9), below Exact's 6000-character limit.
pub const URL_BUDGET: usize = 5400;

/// Whether `s` is a 36-character hyphenated GUID.
pub fn is_guid(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// `guid'…'`, or `None` when `id` is not a GUID (so it can never inject filter syntax).
pub fn guid_literal(id: &str) -> Option<String> {
    is_guid(id).then(|| format!("guid'{}'", id.to_ascii_lowercase()))
}

/// A quoted string literal; a quote is doubled.
pub fn string_literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// An Int64 literal, e.g. a sync Timestamp: `123L`.
pub fn int64_literal(n: i64) -> String {
    format!("{n}L")
}

/// `datetime'YYYY-MM-DDThh:mm:ss'` from a naive (provider wall-clock) date-time.
pub fn datetime_literal(dt: chrono::NaiveDateTime) -> String {
    format!("datetime'{}'", dt.format("%Y-%m-%dT%H:%M:%S"))
}

/// Milliseconds from `/Date(1641034800000)/` (also accepts `/Date(…+0100)/` offsets, ignored).
pub fn parse_date_ms(s: &str) -> Option<i64> {
    let inner = s.strip_prefix("/Date(")?.strip_suffix(")/")?;
    let end = inner.char_indices().skip(1).find(|(_, c)| *c == '+' || *c == '-').map_or(inner.len(), |(i, _)| i);
    inner[..end].parse().ok()
}

/// The day (`YYYY-MM-DD`) a provider date stands for: `/Date(ms)/` (wall-clock ms) or ISO text
/// (its date part: the synced tables carry `/Date(…)/`, ISO only comes from files and tests).
pub fn provider_day(s: &str) -> Option<String> {
    let s = s.trim();
    if let Some(ms) = parse_date_ms(s) {
        return chrono::DateTime::from_timestamp_millis(ms).map(|dt| dt.format("%Y-%m-%d").to_string());
    }
    let day = s.get(..10)?;
    let rest = &s[10..];
    let valid = chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").is_ok()
        && (rest.is_empty() || rest.starts_with('T') || rest.starts_with(' '));
    valid.then(|| day.to_string())
}

/// `/Date(ms)/`.
pub fn format_date(ms: i64) -> String {
    format!("/Date({ms})/")
}

/// An Int64 that may arrive as a JSON string (OData v2) or a number.
pub fn as_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().trim_end_matches('L').parse().ok(),
        _ => None,
    }
}

/// A row's field as text, trimmed: a string, or a number written out; empty when absent.
pub fn field_text(row: &Value, key: &str) -> String {
    match row.get(key) {
        Some(Value::String(s)) => s.trim().to_string(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// A row's id field, lower case (Exact writes some GUIDs in capitals).
pub fn field_id(row: &Value, key: &str) -> String {
    field_text(row, key).to_ascii_lowercase()
}

/// A row's field as a finite number: a number, or a numeric string (OData v2 writes decimals and
/// Int64 values as strings); 0 when absent or unreadable.
pub fn field_f64(row: &Value, key: &str) -> f64 {
    let n = match row.get(key) {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    };
    n.filter(|n| n.is_finite()).unwrap_or(0.0)
}

/// The day a row's date field stands for ([`provider_day`]).
pub fn field_day(row: &Value, key: &str) -> Option<String> {
    row.get(key).and_then(Value::as_str).and_then(provider_day)
}

/// Splits `field eq guid'…' or …` filters into chunks whose full URL stays within `budget`
/// characters once percent-encoded. `base_len` is the encoded length of everything else in the URL.
pub fn guid_filter_chunks(field: &str, ids: &[String], base_len: usize, budget: usize) -> Vec<String> {
    let mut chunks = Vec::new();
    let mut current = String::new();
    let mut current_len = 0usize;
    for id in ids {
        let Some(lit) = guid_literal(id) else { continue };
        let term = format!("{field} eq {lit}");
        let joiner = if current.is_empty() { 0 } else { encoded_len(" or ") };
        let term_len = encoded_len(&term);
        if !current.is_empty() && base_len + current_len + joiner + term_len > budget {
            chunks.push(std::mem::take(&mut current));
            current_len = 0;
        }
        if !current.is_empty() {
            current.push_str(" or ");
            current_len += joiner;
        }
        current.push_str(&term);
        current_len += term_len;
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    chunks
}

/// Length of `s` after query-string percent-encoding.
pub fn encoded_len(s: &str) -> usize {
    urlencoding::encode(s).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(
            guid_literal("3F1C0000-0000-4000-8000-000000000001").as_deref(),
            Some("guid'3f1c0000-0000-4000-8000-000000000001'")
        );
        assert_eq!(guid_literal("x' or 1 eq 1 or ID eq guid'"), None);
        assert_eq!(string_literal("O'Neil"), "'O''Neil'");
        assert_eq!(int64_literal(42), "42L");
        let dt = chrono::NaiveDate::from_ymd_opt(2017, 5, 31).unwrap().and_hms_opt(0, 0, 0).unwrap();
        assert_eq!(datetime_literal(dt), "datetime'2017-05-31T00:00:00'");
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date_ms("/Date(1641034800000)/"), Some(1641034800000));
        assert_eq!(parse_date_ms("/Date(1641034800000+0100)/"), Some(1641034800000));
        assert_eq!(parse_date_ms("/Date(-1000)/"), Some(-1000));
        assert_eq!(provider_day("/Date(1641034800000)/").as_deref(), Some("2022-01-01"));
        assert_eq!(provider_day("/Date(-1000)/").as_deref(), Some("1969-12-31"));
        assert_eq!(provider_day("2026-12-03T10:00:00").as_deref(), Some("2026-12-03"));
        assert_eq!(provider_day(" 2026-12-03 ").as_deref(), Some("2026-12-03"));
        assert_eq!(provider_day("2026-02-30"), None);
        assert_eq!(provider_day("20261203"), None);
        assert_eq!(provider_day("2026-12-03xyz"), None);
        let row = serde_json::json!({"a": " x ", "n": 40080, "s": "2.5", "bad": "NaN", "null": null});
        assert_eq!(
            (field_text(&row, "a"), field_text(&row, "n"), field_text(&row, "none")),
            ("x".into(), "40080".into(), String::new())
        );
        assert_eq!(
            [field_f64(&row, "n"), field_f64(&row, "s"), field_f64(&row, "bad"), field_f64(&row, "null")],
            [40080.0, 2.5, 0.0, 0.0]
        );
        assert_eq!(parse_date_ms("2022-01-01"), None);
        assert_eq!(format_date(5), "/Date(5)/");
    }

    #[test]
    fn int64_as_string_or_number() {
        assert_eq!(as_i64(&Value::String("1234567".into())), Some(1234567));
        assert_eq!(as_i64(&serde_json::json!(12)), Some(12));
        assert_eq!(as_i64(&Value::Null), None);
    }

    #[test]
    fn guid_chunks_stay_within_the_budget() {
        let ids: Vec<String> = (0..500).map(|i| format!("00000000-0000-4000-8000-{i:012}")).collect();
        let base = "https://start.exactonline.nl/api/v1/123/logistics/Items?$select=ID,Code&$filter=";
        let chunks = guid_filter_chunks("ID", &ids, base.len(), URL_BUDGET);
        assert!(chunks.len() > 1);
        let mut seen = 0;
        for c in &chunks {
            assert!(base.len() + encoded_len(c) <= URL_BUDGET, "chunk too long");
            seen += c.matches("guid'").count();
        }
        assert_eq!(seen, 500, "every id is in exactly one chunk");
    }

    #[test]
    fn empty_id_list_gives_no_chunks() {
        assert!(guid_filter_chunks("ID", &[], 10, URL_BUDGET).is_empty());
    }
}
