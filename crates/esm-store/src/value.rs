//! Normalised value keys: one byte encoding that index entries, filters, joins and sorting share.
//!
//! A stored JSON value maps to `tag ++ payload` whose byte order is the value order within its
//! kind: numbers (and Int64 strings such as `Timestamp`) numerically, `/Date(ms)/` strings by
//! time, guids case-insensitively, other strings by code point. Because filters compare these
//! same keys, an index lookup is exactly the filter's answer, not a superset to re-check.

use super::fields::Raw;
use chrono::{DateTime, NaiveDate, NaiveDateTime};
use serde_json::Value;

pub(crate) const TAG_NULL: u8 = 0;
pub(crate) const TAG_BOOL: u8 = 1;
pub(crate) const TAG_NUM: u8 = 2;
pub(crate) const TAG_DATE: u8 = 3;
pub(crate) const TAG_GUID: u8 = 4;
pub(crate) const TAG_STR: u8 = 5;
/// Arrays and objects: kept out of indexes, never equal to a filter literal.
pub(crate) const TAG_OTHER: u8 = 6;

/// A normalised value: tag byte followed by an order-preserving payload.
pub type NormKey = Vec<u8>;

fn num_key(f: f64) -> NormKey {
    // Order-preserving f64: flip all bits of negatives, only the sign bit of positives.
    let f = if f == 0.0 { 0.0 } else { f };
    let bits = f.to_bits();
    let ordered = if bits >> 63 == 1 { !bits } else { bits | (1 << 63) };
    let mut k = Vec::with_capacity(9);
    k.push(TAG_NUM);
    k.extend_from_slice(&ordered.to_be_bytes());
    k
}

fn date_key(ms: i64) -> NormKey {
    let mut k = Vec::with_capacity(9);
    k.push(TAG_DATE);
    k.extend_from_slice(&((ms as u64) ^ (1 << 63)).to_be_bytes());
    k
}

fn tagged(tag: u8, s: &str) -> NormKey {
    let mut k = Vec::with_capacity(s.len() + 1);
    k.push(tag);
    k.extend_from_slice(s.as_bytes());
    k
}

/// `/Date(1641034800000)/` (optionally with an offset suffix) → milliseconds.
pub(crate) fn parse_odata_date(s: &str) -> Option<i64> {
    let inner = s.strip_prefix("/Date(")?.strip_suffix(")/")?;
    let end = inner.char_indices().skip(1).find(|(_, c)| !c.is_ascii_digit()).map_or(inner.len(), |(i, _)| i);
    inner[..end].parse().ok()
}

/// Lower-case 36-character hyphenated hex, as the provider writes guids.
pub(crate) fn is_guid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter()
            .enumerate()
            .all(|(i, c)| if matches!(i, 8 | 13 | 18 | 23) { *c == b'-' } else { c.is_ascii_hexdigit() })
}

/// Strings that are plain decimal numbers (Int64 values come as strings): no leading zeros,
/// so codes such as "00123" stay strings.
fn canonical_number(s: &str) -> Option<f64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = match digits.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (digits, None),
    };
    let int_ok = !int.is_empty() && int.bytes().all(|c| c.is_ascii_digit()) && (int == "0" || !int.starts_with('0'));
    let frac_ok = frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|c| c.is_ascii_digit()));
    if int_ok && frac_ok && int.len() <= 17 { s.parse().ok() } else { None }
}

/// The key of a stored string.
pub(crate) fn norm_str(s: &str) -> NormKey {
    if let Some(ms) = parse_odata_date(s) {
        date_key(ms)
    } else if is_guid(s) {
        tagged(TAG_GUID, &s.to_ascii_lowercase())
    } else if let Some(f) = canonical_number(s) {
        num_key(f)
    } else {
        tagged(TAG_STR, s)
    }
}

/// The key of a stored JSON value.
pub fn norm_value(v: &Value) -> NormKey {
    match v {
        Value::Null => vec![TAG_NULL],
        Value::Bool(b) => vec![TAG_BOOL, u8::from(*b)],
        Value::Number(n) => n.as_f64().map_or_else(|| vec![TAG_OTHER], num_key),
        Value::String(s) => norm_str(s),
        Value::Array(_) | Value::Object(_) => vec![TAG_OTHER],
    }
}

/// The key of a stored raw JSON value, without building a `Value` for scalars.
pub(crate) fn norm_raw(raw: Raw<'_>) -> NormKey {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'n') => vec![TAG_NULL],
        Some(b't') => vec![TAG_BOOL, 1],
        Some(b'f') => vec![TAG_BOOL, 0],
        Some(b'"') => match serde_json::from_str::<std::borrow::Cow<'_, str>>(text) {
            Ok(s) => norm_str(&s),
            Err(_) => vec![TAG_OTHER],
        },
        Some(b'[' | b'{') | None => vec![TAG_OTHER],
        Some(_) => text.parse::<f64>().map_or_else(|_| vec![TAG_OTHER], num_key),
    }
}

/// The text `like`/`ilike` match against: strings unescaped, numbers and bools as written.
pub(crate) fn raw_text<'a>(raw: Raw<'a>) -> Option<std::borrow::Cow<'a, str>> {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'n') | None => None,
        Some(b'"') => serde_json::from_str(text).ok(),
        Some(_) => Some(std::borrow::Cow::Borrowed(text)),
    }
}

/// ISO date or date-time (as wall-clock time, like the provider's dates) or `/Date(ms)/`.
fn parse_literal_date(s: &str) -> Option<i64> {
    if let Some(ms) = parse_odata_date(s) {
        return Some(ms);
    }
    if s.len() < 10 || !s.as_bytes()[0].is_ascii_digit() {
        return None;
    }
    if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return d.and_hms_opt(0, 0, 0).map(|t| t.and_utc().timestamp_millis());
    }
    let trimmed = s.strip_suffix('Z').unwrap_or(s);
    for fmt in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%d %H:%M"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(trimmed, fmt) {
            return Some(t.and_utc().timestamp_millis());
        }
    }
    DateTime::parse_from_rfc3339(s).ok().map(|t| t.naive_local().and_utc().timestamp_millis())
}

/// A filter value, prepared once: every key it can equal and its bound in each kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Literal {
    pub raw: String,
    /// Keys a stored value must have to be equal to this literal.
    pub eq_keys: Vec<NormKey>,
    /// One bound per kind the literal can be compared with (`gt`, `lte`, ...).
    pub bounds: Vec<NormKey>,
}

impl Literal {
    pub fn new(raw: &str) -> Self {
        let mut eq_keys = vec![tagged(TAG_STR, raw)];
        if is_guid(raw) {
            eq_keys.push(tagged(TAG_GUID, &raw.to_ascii_lowercase()));
        }
        let trimmed = raw.trim();
        if let Ok(f) = trimmed.parse::<f64>()
            && f.is_finite()
        {
            eq_keys.push(num_key(f));
        }
        match raw {
            "true" => eq_keys.push(vec![TAG_BOOL, 1]),
            "false" => eq_keys.push(vec![TAG_BOOL, 0]),
            _ => {}
        }
        if let Some(ms) = parse_literal_date(trimmed) {
            eq_keys.push(date_key(ms));
        }
        let mut bounds = eq_keys.clone();
        if !is_guid(raw) {
            bounds.push(tagged(TAG_GUID, &raw.to_ascii_lowercase()));
        }
        eq_keys.sort();
        bounds.sort();
        Literal { raw: raw.to_string(), eq_keys, bounds }
    }

    pub fn matches_eq(&self, key: &[u8]) -> bool {
        self.eq_keys.iter().any(|k| k == key)
    }

    /// The bound of the stored key's kind, if the literal can be compared with it.
    pub fn bound_for(&self, key: &[u8]) -> Option<&NormKey> {
        let tag = *key.first()?;
        if tag == TAG_NULL || tag == TAG_OTHER {
            return None;
        }
        self.bounds.iter().find(|b| b.first() == Some(&tag))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_order_numerically_including_int64_strings() {
        let keys: Vec<NormKey> = [json!(-5.5), json!(-1), json!(0), json!("2"), json!(10), json!("1234567890123")]
            .iter()
            .map(norm_value)
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        assert_eq!(norm_value(&json!("2")), norm_value(&json!(2.0)));
        assert_eq!(norm_value(&json!("00123"))[0], TAG_STR, "codes with leading zeros stay strings");
    }

    #[test]
    fn dates_compare_with_iso_literals() {
        let stored = norm_value(&json!("/Date(1390348800000)/"));
        let day = Literal::new("2014-01-22");
        assert!(day.matches_eq(&stored));
        let later = Literal::new("2014-01-22T00:00:01");
        assert!(stored < *later.bound_for(&stored).expect("date bound"));
        assert!(Literal::new("/Date(1390348800000)/").matches_eq(&stored));
        assert!(!Literal::new("2014-01-23").matches_eq(&stored));
    }

    #[test]
    fn guids_compare_case_insensitively() {
        let stored = norm_value(&json!("4792a639-3840-4d8a-b086-017acd738a52"));
        assert!(Literal::new("4792A639-3840-4D8A-B086-017ACD738A52").matches_eq(&stored));
        assert!(!Literal::new("4792a639-3840-4d8a-b086-017acd738a53").matches_eq(&stored));
    }

    #[test]
    fn raw_and_value_keys_agree() {
        for v in [json!(null), json!(true), json!(false), json!(1.25), json!("x\"y"), json!("/Date(5)/"), json!([1])] {
            let text = v.to_string();
            assert_eq!(norm_raw(Raw::new(&text)), norm_value(&v), "{v}");
        }
    }

    #[test]
    fn strings_and_bools() {
        assert!(Literal::new("abc").matches_eq(&norm_value(&json!("abc"))));
        assert!(!Literal::new("ABC").matches_eq(&norm_value(&json!("abc"))));
        assert!(Literal::new("true").matches_eq(&norm_value(&json!(true))));
        assert!(Literal::new("1").matches_eq(&norm_value(&json!(1))));
        assert!(!Literal::new("1").matches_eq(&norm_value(&json!(true))));
        assert!(Literal::new("x").bound_for(&norm_value(&json!(null))).is_none());
        assert_eq!(parse_odata_date("/Date(1641034800000+0100)/"), Some(1641034800000));
        assert_eq!(parse_odata_date("/Date(-5)/"), Some(-5));
    }
}
