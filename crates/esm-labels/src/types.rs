//! Label types: the spec §9 names and numbers, and which lookups each needs.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A label type number that has a template (1–4, 6, 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LabelType(u8);

/// The spec's names, in type order.
pub const NAMED: [(&str, u8); 6] = [
    ("electrical-72001926", 1),
    ("electrical-72001925", 2),
    ("electrical-x4", 3),
    ("electrical-NEW", 4),
    ("cnc-new", 6),
    ("receipts", 7),
];

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Unknown label type {0}: use one of electrical-72001926, electrical-72001925, electrical-x4, electrical-NEW, cnc-new, receipts or their numbers 1, 2, 3, 4, 6, 7"
)]
pub struct UnknownLabelType(pub String);

impl LabelType {
    pub const DEFAULT: LabelType = LabelType(1);

    /// Every type with a template.
    pub fn all() -> impl Iterator<Item = LabelType> {
        NAMED.iter().map(|(_, n)| LabelType(*n))
    }

    pub fn from_number(n: u8) -> Result<LabelType, UnknownLabelType> {
        if NAMED.iter().any(|(_, m)| *m == n) { Ok(LabelType(n)) } else { Err(UnknownLabelType(n.to_string())) }
    }

    /// A type by name or number; an unknown name is type 1 (spec §9 "default 1"), a bad number is an error.
    pub fn parse(name: &str) -> Result<LabelType, UnknownLabelType> {
        let name = name.trim();
        if let Ok(n) = name.parse::<u8>() {
            return Self::from_number(n);
        }
        Ok(NAMED
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, n)| LabelType(*n))
            .unwrap_or(Self::DEFAULT))
    }

    pub fn number(self) -> u8 {
        self.0
    }

    pub fn name(self) -> &'static str {
        NAMED.iter().find(|(_, n)| *n == self.0).map(|(k, _)| *k).unwrap_or("electrical-72001926")
    }

    /// Types 1–4 read the extra free-text values.
    pub fn uses_free_text(self) -> bool {
        (1..=4).contains(&self.0)
    }

    /// Types 5–7 read warehouses, supplier items and item extra fields.
    pub fn uses_label_info(self) -> bool {
        (5..=7).contains(&self.0)
    }
}

impl Default for LabelType {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl fmt::Display for LabelType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for LabelType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for LabelType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Null => Ok(LabelType::DEFAULT),
            serde_json::Value::String(s) => LabelType::parse(&s).map_err(serde::de::Error::custom),
            serde_json::Value::Number(n) => n
                .as_u64()
                .and_then(|n| u8::try_from(n).ok())
                .ok_or_else(|| UnknownLabelType(n.to_string()))
                .and_then(LabelType::from_number)
                .map_err(serde::de::Error::custom),
            other => Err(serde::de::Error::custom(UnknownLabelType(other.to_string()))),
        }
    }
}

/// A type name (any other name means type 1) or number, as a request names it; answers give the name.
impl utoipa::PartialSchema for LabelType {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        let names = NAMED.iter().map(|(name, _)| *name);
        let numbers = NAMED.iter().map(|(_, n)| *n);
        OneOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::String).examples(names))
            .item(ObjectBuilder::new().schema_type(Type::Integer).enum_values(Some(numbers)))
            .description(Some(
                "A label type by name (electrical-72001926, electrical-72001925, electrical-x4, electrical-NEW, \
                 cnc-new, receipts; another name means type 1) or by number (1, 2, 3, 4, 6, 7)",
            ))
            .into()
    }
}

impl utoipa::ToSchema for LabelType {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers_follow_the_spec() {
        for (name, n) in NAMED {
            assert_eq!(LabelType::parse(name).unwrap().number(), n);
            assert_eq!(LabelType::parse(&n.to_string()).unwrap().name(), name);
        }
        assert_eq!(LabelType::parse("something-else").unwrap().number(), 1);
        assert_eq!(LabelType::parse("").unwrap().number(), 1);
        assert!(LabelType::parse("5").is_err());
        let t: LabelType = serde_json::from_str("7").unwrap();
        assert_eq!(t.name(), "receipts");
        let t: LabelType = serde_json::from_str("\"cnc-new\"").unwrap();
        assert_eq!(t.number(), 6);
        assert!(serde_json::from_str::<LabelType>("9").is_err());
    }

    #[test]
    fn lookups_by_type() {
        assert!(LabelType::parse("electrical-NEW").unwrap().uses_free_text());
        assert!(!LabelType::parse("receipts").unwrap().uses_free_text());
        assert!(LabelType::parse("cnc-new").unwrap().uses_label_info());
    }
}
