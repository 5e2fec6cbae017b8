//! Properties Exact Online removed without notice (reference §17). Exact answers every request
//! that selects such a property with `400 Type '…' does not have a property named '…'`; the
//! product drops the property from that endpoint's `$select`, remembers it per organization and
//! endpoint (in the organization's store, so a restart does not meet the 400 again), and lists it
//! in `GET /api/v1/status` and `doctor`.

use super::ExactError;
use crate::store::OrgStore;
use crate::store::error::StoreResult;
use serde::Serialize;
use utoipa::ToSchema;

/// `kv` prefix of the dropped properties: `dropped_properties/{endpoint}/{property}` → since.
/// Not under the cache prefix: the removal is a fact about Exact, so a rebuilt store keeps it.
pub const KV_PREFIX: &str = "dropped_properties/";

/// A property the product no longer asks an endpoint for, because Exact removed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct DroppedProperty {
    /// The provider path after `/api/v1/{division}/`, e.g. `sync/Logistics/Items`.
    #[schema(example = "sync/Logistics/Items")]
    pub endpoint: String,
    #[schema(example = "UseExplosion")]
    pub property: String,
    /// When Exact first refused it (UTC, RFC 3339).
    #[schema(example = "2026-11-27T23:50:00Z")]
    pub since: String,
}

/// The property named in Exact's refusal of a removed property, if `message` is one.
pub fn removed_property(message: &str) -> Option<&str> {
    const NAMED: &str = "does not have a property named '";
    let rest = &message[message.find(NAMED)? + NAMED.len()..];
    let name = &rest[..rest.find('\'')?];
    let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (message.trim_start().starts_with("Type '") && valid).then_some(name)
}

impl ExactError {
    /// The property Exact says it no longer has, when this is that refusal.
    pub fn removed_property(&self) -> Option<&str> {
        match self {
            ExactError::Rejected { status: 400, message } => removed_property(message),
            _ => None,
        }
    }
}

/// `select` (comma-separated) without the `dropped` properties.
pub fn without(select: &str, dropped: &[String]) -> String {
    select.split(',').filter(|f| !dropped.iter().any(|d| d == f)).collect::<Vec<_>>().join(",")
}

/// The endpoint part of a provider path: without the query, and without a key (`(guid'…')`).
pub fn endpoint_of(path: &str) -> &str {
    let path = path.split('?').next().unwrap_or(path);
    path.split('(').next().unwrap_or(path)
}

fn key(endpoint: &str, property: &str) -> String {
    format!("{KV_PREFIX}{endpoint}/{property}")
}

/// The properties dropped from `endpoint`.
pub fn of(store: &OrgStore, endpoint: &str) -> StoreResult<Vec<String>> {
    Ok(store.kv_scan(&format!("{KV_PREFIX}{endpoint}/"))?.into_iter().map(|(property, _)| property).collect())
}

/// Remembers that Exact removed `property` from `endpoint`; answers whether it is new (the
/// caller warns once, on the first refusal).
pub fn record(store: &OrgStore, endpoint: &str, property: &str) -> StoreResult<bool> {
    let since = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let known = store.kv_put_new(&key(endpoint, property), since.as_bytes())?;
    if known.is_none() {
        tracing::warn!(
            endpoint,
            property,
            "Exact Online no longer has this property: it is no longer asked for, and shows empty"
        );
    }
    Ok(known.is_none())
}

/// Every dropped property of the organization, by endpoint and property.
pub fn all(store: &OrgStore) -> StoreResult<Vec<DroppedProperty>> {
    Ok(parse_entries(store.kv_scan(KV_PREFIX)?))
}

/// Entries under [`KV_PREFIX`] (the key after it, the value) as dropped properties.
pub fn parse_entries(entries: Vec<(String, Vec<u8>)>) -> Vec<DroppedProperty> {
    entries
        .into_iter()
        .filter_map(|(k, since)| {
            let (endpoint, property) = k.rsplit_once('/')?;
            Some(DroppedProperty {
                endpoint: endpoint.to_string(),
                property: property.to_string(),
                since: String::from_utf8_lossy(&since).into_owned(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_property_is_read_from_exacts_message() {
        let m = "Type 'Exact.Web.Api.Models.GLAccountSync' does not have a property named 'DeductibilityPercentages'";
        assert_eq!(removed_property(m), Some("DeductibilityPercentages"));
        let e = ExactError::Rejected { status: 400, message: m.into() };
        assert_eq!(e.removed_property(), Some("DeductibilityPercentages"));
        // Only Exact's 400 of that wording: other refusals and statuses are not a removal.
        assert_eq!(ExactError::Server { status: 500, message: m.into() }.removed_property(), None);
        assert_eq!(removed_property("No property 'Foo' exists in type 'Exact.Web.Api.Models.Item'."), None);
        assert_eq!(removed_property("Type 'X' does not have a property named ''"), None);
        assert_eq!(removed_property("Type 'X' does not have a property named 'A,B'"), None);
        assert_eq!(removed_property("Type 'X' does not have a property named 'Open"), None);
        assert_eq!(removed_property("Please add a $select or a $top=1 statement to the query string."), None);
    }

    #[test]
    fn a_dropped_property_leaves_the_select_and_keys_leave_the_path() {
        let dropped = vec!["UseExplosion".to_string(), "Notes".to_string()];
        assert_eq!(without("ID,UseExplosion,Code,Notes,Timestamp", &dropped), "ID,Code,Timestamp");
        assert_eq!(without("ID,UseExplosionX", &dropped), "ID,UseExplosionX");
        assert_eq!(endpoint_of("logistics/Items(guid'0badc0de-0000-4000-8000-000000000002')"), "logistics/Items");
        assert_eq!(endpoint_of("inventory/Warehouses?$select=ID"), "inventory/Warehouses");
    }

    #[test]
    fn entries_read_back_by_endpoint_and_property() {
        let found = parse_entries(vec![
            ("sync/Logistics/Items/UseExplosion".into(), b"2026-11-27T23:50:00Z".to_vec()),
            ("nothing".into(), Vec::new()),
        ]);
        assert_eq!(
            found,
            vec![DroppedProperty {
                endpoint: "sync/Logistics/Items".into(),
                property: "UseExplosion".into(),
                since: "2026-11-27T23:50:00Z".into(),
            }]
        );
    }
}
