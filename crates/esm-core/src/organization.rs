//! An organization's facts as the server keeps them: its details and preferences, a user's
//! preferences in it, what a sign-in sets up, and the divisions a user may choose from.

use crate::auth::orgs;
use crate::auth::session::DivisionChoice;
use crate::error::{AppError, AppResult, Code};
use crate::exact::ExactClient;
use crate::exact::tokens::TokenManager;
use crate::exact::tokens::UserToken as OrgToken;
use crate::labels::SkippedWarehouses;
use crate::serverdb::{OrgAccount, ServerDb};
use crate::store::{DELETED_ENTRIES_TABLE, OrgDetails, Stores};
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::{RefOr, schema::SchemaType};

/// The organization of the session as the UI knows it (spec §3).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct OrganizationDetails {
    /// The organization's own ID, or `notInitialized` (no organization yet) or `error` (it could
    /// not be read).
    #[schema(example = "7d0f3c52-2b1e-4a8e-9c55-1f2a3b4c5d6e")]
    pub uuid: String,
    /// The provider's division code; -1 without an organization, 0 when it could not be read.
    #[schema(example = 123456)]
    pub division: i64,
    #[schema(example = "Demo Metaal B.V.")]
    pub name: String,
    #[schema(schema_with = sync_timestamps_schema)]
    pub sync_timestamps: Map<String, Value>,
    #[schema(schema_with = preferences_schema)]
    pub preferences: Value,
}

fn preferences_schema() -> impl Into<RefOr<Schema>> {
    ObjectBuilder::new()
        .description(Some(
            "The organization's shared preferences over the defaults (`weekends_disabled`, `sync_account`, \
             `sync_interval_minutes`, `label_skipped_warehouses`, …)",
        ))
        .examples([json!({"weekends_disabled": false, "sync_interval_minutes": 15, "label_skipped_warehouses": ["3"]})])
}

/// `sync_timestamps`: one integer per synced table (the provider's `Timestamp` read up to),
/// `last_sync` and `deleted_entries_sync_timestamp`; empty in a placeholder.
fn sync_timestamps_schema() -> impl Into<RefOr<Schema>> {
    ObjectBuilder::new()
        .description(Some(
            "Per synced table the provider's Timestamp read up to (1 before its first sync), `last_sync` (local \
             ISO time of the last finished sync, or null) and `deleted_entries_sync_timestamp`; empty in a \
             placeholder",
        ))
        .property("last_sync", ObjectBuilder::new().schema_type(SchemaType::from_iter([Type::String, Type::Null])))
        .property("deleted_entries_sync_timestamp", ObjectBuilder::new().schema_type(Type::Integer))
        .additional_properties(Some(ObjectBuilder::new().schema_type(Type::Integer)))
        .examples([json!({"items": 41_200_317, "shopOrders": 41_199_870, "last_sync": "2026-11-27T07:30:00.000+01:00", "deleted_entries_sync_timestamp": 1})])
}

/// Spec §3's placeholder: `notInitialized`/-1 without a session, `error`/0 when the lookup fails.
pub fn placeholder(uuid: &str, division: i64) -> OrganizationDetails {
    OrganizationDetails {
        uuid: uuid.to_string(),
        division,
        name: String::new(),
        sync_timestamps: Map::new(),
        preferences: default_preferences(),
    }
}

/// The organization preference listing the warehouse codes whose stock is left off labels.
pub const SKIPPED_WAREHOUSES_PREFERENCE: &str = "label_skipped_warehouses";

fn default_preferences() -> Value {
    json!({"weekends_disabled": false, SKIPPED_WAREHOUSES_PREFERENCE: []})
}

/// The warehouses the organization leaves off labels (none when it chose none, or when its
/// details cannot be read: a label with one warehouse too many is better than no label).
pub fn skipped_warehouses(stores: &Stores, division: i64) -> SkippedWarehouses {
    let prefs = organization_details(stores, division).preferences;
    let codes = prefs.get(SKIPPED_WAREHOUSES_PREFERENCE).and_then(Value::as_array).cloned().unwrap_or_default();
    SkippedWarehouses::new(codes.iter().filter_map(Value::as_str))
}

/// Stored preferences over the defaults.
fn with_defaults(stored: &Value) -> Value {
    let mut out = default_preferences();
    if let (Some(o), Some(s)) = (out.as_object_mut(), stored.as_object()) {
        for (k, v) in s {
            o.insert(k.clone(), v.clone());
        }
    }
    out
}

/// `{uuid, division, name, sync_timestamps, preferences}`; sync_timestamps has one entry per
/// synced table plus `last_sync` and `deleted_entries_sync_timestamp` (1 before the first sync).
pub fn organization_details(stores: &Stores, division: i64) -> OrganizationDetails {
    let read = || -> anyhow::Result<Option<OrganizationDetails>> {
        let store = stores.get(division)?;
        let Some(d) = store.org_details()? else { return Ok(None) };
        let sync = store.sync_state()?;
        let mut ts = Map::new();
        for ep in crate::exact::catalogue::sync_endpoints().filter(|e| e.table != DELETED_ENTRIES_TABLE) {
            ts.insert(ep.table.to_string(), json!(sync.timestamps.get(ep.table).copied().unwrap_or(1)));
        }
        ts.insert("last_sync".into(), json!(sync.last_sync));
        ts.insert("deleted_entries_sync_timestamp".into(), json!(sync.deleted_entries_sync_timestamp.unwrap_or(1)));
        Ok(Some(OrganizationDetails {
            uuid: d.uuid,
            division: d.division,
            name: d.name,
            sync_timestamps: ts,
            preferences: with_defaults(&d.preferences),
        }))
    };
    match read() {
        Ok(Some(v)) => v,
        Ok(None) => placeholder("notInitialized", -1),
        Err(e) => {
            tracing::error!(division, error = %format!("{e:#}"), "organization lookup failed");
            placeholder("error", 0)
        }
    }
}

/// The user's own preferences in the organization.
pub fn user_preferences(stores: &Stores, division: i64, user: &str) -> Value {
    stores
        .get(division)
        .ok()
        .and_then(|s| s.user_preferences(user).ok().flatten())
        .unwrap_or_else(|| Value::Object(Map::new()))
}

/// A sign-in to an organization: on the first, its store gets details (a uuid, the name) and the
/// registry an entry; every signing-in user becomes one of its accounts (whose provider tokens
/// may serve its sync), the latest one first after the chosen sync account.
pub fn prepare_organization(
    stores: &Stores,
    serverdb: &ServerDb,
    division: i64,
    customer: &str,
    user: &str,
    account: &OrgAccount,
) -> AppResult<()> {
    let store = stores.get(division)?;
    match store.org_details()? {
        Some(d) if d.name == customer || customer.is_empty() => {}
        Some(mut d) => {
            d.name = customer.to_string();
            store.set_org_details(&d)?;
        }
        None => store.set_org_details(&OrgDetails {
            uuid: uuid::Uuid::new_v4().to_string(),
            division,
            name: customer.to_string(),
            preferences: default_preferences(),
        })?,
    }
    orgs::register(serverdb, division, customer).map_err(AppError::internal)?;
    serverdb.set_org_token_user(division, user).map_err(AppError::internal)?;
    serverdb.add_org_user(division, user, account).map_err(AppError::internal)?;
    Ok(())
}

/// How long sign-in waits for the list of the user's divisions.
const DIVISIONS_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The user's divisions from the provider; on failure just the current one, so sign-in still works.
pub async fn list_divisions(exact: &ExactClient, current: i64, token: &str) -> Vec<DivisionChoice> {
    let url = exact.api_url(current, "system/Divisions?$select=Code,Description,CustomerName");
    // A spent minute budget would hold the sign-in for up to a minute: sign in with the current
    // division only rather than keep the user waiting.
    let listed = tokio::time::timeout(DIVISIONS_WAIT, exact.get_all(current, token, &url)).await;
    let Ok(listed) = listed else {
        tracing::warn!("listing the user's divisions took too long; signing in with the current one");
        return Vec::new();
    };
    match listed {
        Ok(rows) => rows
            .iter()
            .filter_map(|r| {
                let division = r.get("Code").and_then(Value::as_i64)?;
                let text = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or_default().trim().to_string();
                Some(DivisionChoice { division, name: text("Description"), customer: text("CustomerName") })
            })
            .collect(),
        Err(e) => {
            tracing::warn!(error = %e, "cannot list the user's divisions");
            Vec::new()
        }
    }
}

/// The provider sign-in that serves the organization's own calls (see `auth::accounts`).
pub fn org_token(
    serverdb: &ServerDb,
    stores: &Stores,
    tokens: &Arc<TokenManager>,
    division: i64,
) -> AppResult<OrgToken> {
    crate::auth::accounts::org_token(serverdb, stores, tokens, division).ok_or_else(|| {
        AppError::with_message(
            Code::ProviderSignIn,
            "No account of this organization has a usable Exact Online sign-in: sign in with Exact Online again",
        )
    })
}
