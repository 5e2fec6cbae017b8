//! Compact typed cell values and their JSON/XML rendering per Edm type.

use esm_exact::schema::EdmType;
use std::fmt::Write as _;
use std::sync::Arc;

/// A GUID stored as two u64 halves: a `u128` would give `Val` 16-byte alignment and make
/// every stored cell 50% larger.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guid(u64, u64);

impl Guid {
    pub fn get(self) -> u128 {
        ((self.0 as u128) << 64) | self.1 as u128
    }
}

/// One stored value. Strings are `Arc<str>` so denormalised copies (item codes on every plan
/// row, warehouse codes, …) share one allocation.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Null,
    Str(Arc<str>),
    Guid(Guid),
    Int(i64),
    Dbl(f64),
    Bool(bool),
    /// Milliseconds since 1970 of the CET wall-clock time (the provider's `/Date(ms)/`).
    Date(i64),
}

impl Val {
    pub fn guid(g: u128) -> Val {
        Val::Guid(Guid((g >> 64) as u64, g as u64))
    }

    pub fn str(s: &str) -> Val {
        Val::Str(Arc::from(s))
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Val::Int(i) => Some(*i as f64),
            Val::Dbl(d) => Some(*d),
            Val::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Val::Int(i) => Some(*i),
            Val::Dbl(d) => Some(*d as i64),
            Val::Bool(b) => Some(*b as i64),
            Val::Date(d) => Some(*d),
            _ => None,
        }
    }

    pub fn as_guid(&self) -> Option<u128> {
        match self {
            Val::Guid(g) => Some(g.get()),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }
}

pub fn guid_string(g: u128) -> String {
    uuid::Uuid::from_u128(g).hyphenated().to_string()
}

/// Append the JSON form of `v` as the provider writes a field of type `ty`.
pub fn write_json(out: &mut String, ty: EdmType, v: &Val) {
    match (ty, v) {
        (_, Val::Null) => out.push_str("null"),
        (EdmType::Int64, v) => {
            // Int64 travels as a string in the provider's verbose JSON.
            let _ = write!(out, "\"{}\"", v.as_i64().unwrap_or(0));
        }
        (EdmType::Boolean, v) => out.push_str(if v.as_i64().unwrap_or(0) != 0 { "true" } else { "false" }),
        (EdmType::Byte | EdmType::Int16 | EdmType::Int32, v) => {
            let _ = write!(out, "{}", v.as_i64().unwrap_or(0));
        }
        (EdmType::Double, v) => write_f64(out, v.as_f64().unwrap_or(0.0)),
        (EdmType::DateTime, Val::Date(ms)) => {
            let _ = write!(out, "\"/Date({ms})/\"");
        }
        (EdmType::Guid, Val::Guid(g)) => {
            out.push('"');
            out.push_str(uuid::Uuid::from_u128(g.get()).hyphenated().encode_lower(&mut uuid::Uuid::encode_buffer()));
            out.push('"');
        }
        (_, Val::Str(s)) => write_json_str(out, s),
        (_, Val::Guid(g)) => write_json_str(out, &guid_string(g.get())),
        (_, Val::Int(i)) => {
            let _ = write!(out, "{i}");
        }
        (_, Val::Dbl(d)) => write_f64(out, *d),
        (_, Val::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
        (_, Val::Date(ms)) => {
            let _ = write!(out, "\"/Date({ms})/\"");
        }
    }
}

fn write_f64(out: &mut String, d: f64) {
    if d.is_finite() {
        let _ = write!(out, "{d}");
    } else {
        out.push('0');
    }
}

pub fn write_json_str(out: &mut String, s: &str) {
    out.push('"');
    // Copy runs of plain characters in one go; only quotes, backslashes and controls need escapes.
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        if b == b'"' || b == b'\\' || b < 0x20 {
            out.push_str(&s[start..i]);
            match b {
                b'"' => out.push_str("\\\""),
                b'\\' => out.push_str("\\\\"),
                b'\n' => out.push_str("\\n"),
                b'\r' => out.push_str("\\r"),
                b'\t' => out.push_str("\\t"),
                _ => {
                    let _ = write!(out, "\\u{:04x}", b);
                }
            }
            start = i + 1;
        }
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// The text form used in Atom payloads (`<d:Field>text</d:Field>`).
pub fn xml_text(ty: EdmType, v: &Val) -> Option<String> {
    Some(match (ty, v) {
        (_, Val::Null) => return None,
        (EdmType::Boolean, v) => (v.as_i64().unwrap_or(0) != 0).to_string(),
        (EdmType::DateTime, Val::Date(ms)) => chrono::DateTime::from_timestamp_millis(*ms)
            .map(|d| d.naive_utc().format("%Y-%m-%dT%H:%M:%S").to_string())
            .unwrap_or_default(),
        (_, Val::Guid(g)) => guid_string(g.get()),
        (_, Val::Str(s)) => xml_escape(s),
        (_, Val::Int(i)) => i.to_string(),
        (_, Val::Dbl(d)) => d.to_string(),
        (_, Val::Bool(b)) => (*b as u8).to_string(),
        (_, Val::Date(ms)) => ms.to_string(),
    })
}

pub fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Convert a JSON body value into a stored value for a field of type `ty`.
/// The provider accepts numbers as strings and dates as ISO 8601 or `/Date(ms)/`.
pub fn from_json(ty: EdmType, v: &serde_json::Value) -> Result<Val, String> {
    use serde_json::Value as J;
    if v.is_null() {
        return Ok(Val::Null);
    }
    let bad = || format!("Cannot convert the literal '{v}' to the expected type '{}'.", ty.edm_name());
    Ok(match ty {
        EdmType::Guid => {
            let s = v.as_str().ok_or_else(bad)?;
            Val::guid(uuid::Uuid::parse_str(s).map_err(|_| bad())?.as_u128())
        }
        EdmType::String => match v {
            J::String(s) => Val::str(s),
            J::Number(n) => Val::str(&n.to_string()),
            _ => return Err(bad()),
        },
        EdmType::Int16 | EdmType::Int32 | EdmType::Int64 | EdmType::Byte => match v {
            J::Number(n) => Val::Int(n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)).ok_or_else(bad)?),
            J::String(s) => Val::Int(s.trim().parse().map_err(|_| bad())?),
            J::Bool(b) => Val::Int(*b as i64),
            _ => return Err(bad()),
        },
        EdmType::Double => match v {
            J::Number(n) => Val::Dbl(n.as_f64().ok_or_else(bad)?),
            J::String(s) => Val::Dbl(s.trim().parse().map_err(|_| bad())?),
            _ => return Err(bad()),
        },
        EdmType::Boolean => match v {
            J::Bool(b) => Val::Bool(*b),
            J::Number(n) => Val::Bool(n.as_i64().unwrap_or(0) != 0),
            J::String(s) => Val::Bool(matches!(s.as_str(), "true" | "1" | "True")),
            _ => return Err(bad()),
        },
        EdmType::DateTime => Val::Date(parse_date_text(v.as_str().ok_or_else(bad)?).ok_or_else(bad)?),
        EdmType::Binary | EdmType::Collection | EdmType::Complex => Val::Null,
    })
}

/// Parse `/Date(ms)/`, `YYYY-MM-DD`, `YYYY-MM-DDThh:mm:ss[.fff]` or `MM/DD/YYYY hh:mm:ss` as wall-clock ms.
pub fn parse_date_text(s: &str) -> Option<i64> {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix("/Date(").and_then(|r| r.strip_suffix(")/")) {
        let digits: String = inner.chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
        return digits.parse().ok();
    }
    let s = s.trim_end_matches('Z');
    for fmt in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%m/%d/%Y %H:%M:%S"] {
        if let Ok(dt) = chrono::NaiveDateTime::parse_from_str(s, fmt) {
            return Some(dt.and_utc().timestamp_millis());
        }
    }
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|dt| dt.and_utc().timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(ty: EdmType, v: Val) -> String {
        let mut s = String::new();
        write_json(&mut s, ty, &v);
        s
    }

    #[test]
    fn cells_stay_compact() {
        assert_eq!(std::mem::size_of::<Val>(), 24);
        assert_eq!(Val::guid(u128::MAX - 5).as_guid(), Some(u128::MAX - 5));
    }

    #[test]
    fn values_render_like_the_provider() {
        assert_eq!(json(EdmType::Int64, Val::Int(42)), "\"42\"");
        assert_eq!(json(EdmType::Byte, Val::Bool(true)), "1");
        assert_eq!(json(EdmType::Boolean, Val::Int(1)), "true");
        assert_eq!(json(EdmType::DateTime, Val::Date(1390348800000)), "\"/Date(1390348800000)/\"");
        assert_eq!(json(EdmType::Guid, Val::guid(1)), "\"00000000-0000-0000-0000-000000000001\"");
        assert_eq!(json(EdmType::String, Val::str("a\"b")), "\"a\\\"b\"");
        assert_eq!(json(EdmType::String, Val::str("é\\x\n\u{1}")), "\"é\\\\x\\n\\u0001\"");
        assert_eq!(json(EdmType::Double, Val::Dbl(2.5)), "2.5");
        assert_eq!(json(EdmType::String, Val::Null), "null");
    }

    #[test]
    fn dates_parse_in_every_accepted_form() {
        assert_eq!(parse_date_text("2014-01-22"), Some(1390348800000));
        assert_eq!(parse_date_text("2014-01-22T00:00:00"), Some(1390348800000));
        assert_eq!(parse_date_text("/Date(1390348800000)/"), Some(1390348800000));
        assert_eq!(parse_date_text("01/22/2014 00:00:00"), Some(1390348800000));
        assert_eq!(parse_date_text("nonsense"), None);
    }
}
