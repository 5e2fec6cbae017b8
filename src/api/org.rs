//! The organization of the session (spec §3, §7): provider facts (`/exact/current`,
//! `/exact/divisionDetails`, `/exact/divisions`), `/organizationDetails`, `/checkUser`, and the
//! preference and permission writes.

use super::router::Router;
use crate::auth::accounts::AccountView;
use crate::auth::licence::LicenceExpiry;
use crate::auth::tier::{Session, today};
use crate::auth::{accounts, orgs};
use crate::error::{AppError, AppResult, Code};
use crate::exact::tokens::UserToken;
use crate::organization::{OrganizationDetails, organization_details};
use crate::state::AppState;
use crate::store::{DELETED_ENTRIES_TABLE, OrgDetails};
use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use utoipa::ToSchema;

/// What a call that asks Exact Online may answer besides its own errors.
const PROVIDER_FAILS: [Code; 4] = [Code::ProviderSignIn, Code::NoToken, Code::Timeout, Code::Provider];

pub fn routes(r: &mut Router) {
    r.signed_in("/exact/current", |res| {
        res.get(current)
            .json::<CurrentDivision>(200, "The user's current division in Exact Online")
            .fails(&PROVIDER_FAILS)
    });
    r.signed_in("/exact/divisionDetails", |res| {
        res.get(division_details)
            .json::<DivisionDetails>(200, "The session's division as Exact Online describes it")
            .fails(&PROVIDER_FAILS)
            .fails(&[Code::DivisionInfo])
    });
    r.signed_in("/exact/divisions", |res| {
        res.get(divisions).list::<DivisionListed>(200, "The divisions the session may switch to")
    });
    r.signed_in("/organizationDetails", |res| {
        res.get(details).json::<OrganizationDetails>(200, "The session's organization")
    });
    r.signed_in("/checkUser", |res| {
        res.get(check_user).json::<CheckUser>(200, "Whether the organization is activated, and the token's expiry")
    });
    r.signed_in("/updatePreferences", |res| {
        res.put(update_preferences)
            .body::<UserPreferences>()
            .json::<UserPreferences>(200, "The user's preferences, saved")
            .fails(&[Code::NotFound])
    });
    r.signed_in("/updateOrganizationPreferences", |res| {
        res.put(update_org_preferences)
            .admin()
            .body::<DetailsBody>()
            .json::<OrganizationDetails>(200, "The organization, its preferences saved")
            .fails(&[Code::NotFound])
    });
    r.full("/updateOrganizationSyncTimestamps", |res| {
        res.put(update_sync_timestamps)
            .admin()
            .body::<DetailsBody>()
            .json::<OrganizationDetails>(200, "The organization, its sync timestamps moved back")
            .fails(&[Code::NotFound, Code::SyncRunning])
    });
    r.full("/organization/accounts", |res| {
        res.get(accounts).json::<OrgAccounts>(200, "The organization's accounts and the chosen sync account")
    });
    // Before `/db/{table}`, so it is never taken for a table name.
    r.full("/db/userPermissions", |res| {
        res.get(permissions)
            .json::<StoredPermissions>(200, "The organization's user permissions")
            .put(update_permissions)
            .admin()
            .body::<PermissionsBody>()
            .json::<SavedPermissions>(200, "The user permissions, saved")
            .fails(&[Code::NotFound])
    });
}

/// The user's current division and customer in Exact Online.
#[derive(Serialize, ToSchema)]
struct CurrentDivision {
    #[schema(example = 123456)]
    division: Option<i64>,
    #[schema(example = "Demo Metaal B.V.")]
    customer_name: Option<String>,
    /// As Exact Online gives it.
    #[serde(rename = "userName")]
    #[schema(value_type = Option<String>, example = "anna@demometaal.nl")]
    user_name: Option<Value>,
}

/// A division as Exact Online describes it.
#[derive(Serialize, ToSchema)]
struct DivisionDetails {
    #[schema(example = 123456)]
    division: i64,
    #[schema(example = "Demo Metaal B.V.")]
    division_description: String,
    #[schema(example = "Demo Metaal B.V.")]
    customer: String,
}

/// A division the session may switch to.
#[derive(Serialize, ToSchema)]
struct DivisionListed {
    #[schema(example = 123456)]
    division: i64,
    #[schema(example = "Demo Metaal B.V.")]
    name: String,
    #[schema(example = "Demo Metaal B.V.")]
    customer: String,
    /// The session's division.
    current: bool,
}

/// Whether the session's organization is activated.
#[derive(Serialize, ToSchema)]
struct CheckUser {
    activated: bool,
    #[schema(example = 123456)]
    division: i64,
    #[schema(example = "Demo Metaal B.V.")]
    customer: String,
    /// The organization's licence, null before it is activated.
    licence: Option<LicenceExpiry>,
    token: TokenExpiry,
}

/// When the user's Exact Online token expires (the token itself never leaves the server).
#[derive(Serialize, ToSchema)]
struct TokenExpiry {
    /// Epoch milliseconds; null without a token.
    #[schema(example = 1_780_000_600_000_i64)]
    expires_at: Option<i64>,
}

/// The organization's accounts: the users who signed in to it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct OrgAccounts {
    accounts: Vec<AccountView>,
    /// The chosen sync account's user ID; null: automatic.
    #[schema(example = "0badc0de-0000-4000-8000-0000000000aa")]
    sync_account: Option<String>,
}

/// The organization's user permissions, as the permissions screen saved them.
#[derive(Serialize, ToSchema)]
struct StoredPermissions {
    /// The saved list, or empty.
    #[schema(value_type = Vec<Value>)]
    data: Value,
}

/// The user permissions as saved.
#[derive(Serialize, ToSchema)]
struct SavedPermissions {
    #[schema(example = "success")]
    status: &'static str,
    data: Vec<Value>,
}

async fn access_token(state: &AppState, session: &Session) -> AppResult<UserToken> {
    Ok(UserToken::checked(&state.tokens, &session.record.user).await?)
}

/// `GET /exact/current`: the provider's current division and customer name for this user.
async fn current(state: web::Data<AppState>, session: Session) -> AppResult<HttpResponse> {
    let token = access_token(&state, &session).await?;
    let me = state.exact.me(&token).await?;
    let division = me.get("CurrentDivision").and_then(Value::as_i64);
    let customer = me.get("DivisionCustomerName").and_then(Value::as_str).map(str::trim);
    Ok(HttpResponse::Ok().json(CurrentDivision {
        division,
        customer_name: customer.map(str::to_string),
        user_name: me.get("UserName").cloned(),
    }))
}

/// `GET /exact/divisionDetails`: the session's division as the provider describes it.
async fn division_details(state: web::Data<AppState>, session: Session) -> AppResult<HttpResponse> {
    let division = session.record.division;
    let token = access_token(&state, &session).await?;
    let url = state.exact.api_url(
        division,
        &format!("system/Divisions?$filter=Code eq {division}&$select=Code,Description,CustomerName"),
    );
    let rows = state
        .exact
        .get_all(division, &token, &url)
        .await
        .map_err(|e| AppError::from(e).caused_by(anyhow::anyhow!("divisionDetails")))?;
    let row = rows.first().ok_or_else(|| AppError::new(Code::DivisionInfo))?;
    let text = |k: &str| row.get(k).and_then(Value::as_str).unwrap_or_default().trim().to_string();
    Ok(HttpResponse::Ok().json(DivisionDetails {
        division,
        division_description: text("Description"),
        customer: text("CustomerName"),
    }))
}

/// The divisions the session may switch to (as listed at sign-in).
async fn divisions(session: Session) -> HttpResponse {
    let current = session.record.division;
    let list: Vec<DivisionListed> = session
        .record
        .divisions
        .iter()
        .map(|d| DivisionListed {
            division: d.division,
            name: d.name.clone(),
            customer: d.customer.clone(),
            current: d.division == current,
        })
        .collect();
    HttpResponse::Ok().json(list)
}

async fn details(state: web::Data<AppState>, session: Session) -> HttpResponse {
    HttpResponse::Ok().json(organization_details(&state.stores, session.record.division))
}

/// `{activated, division, customer, licence, token}`. An activated organization completes the
/// login process (registered). `token` tells the provider token's expiry; the token itself never
/// leaves the server.
async fn check_user(state: web::Data<AppState>, session: Session) -> AppResult<HttpResponse> {
    let r = &session.record;
    let record = orgs::get(&state.serverdb, r.division).map_err(AppError::internal)?;
    let activated = record.as_ref().is_some_and(|o| o.is_active(today()));
    if activated && !r.registered {
        let mut updated = r.clone();
        updated.registered = true;
        state.auth.sessions.save(&session.id, &updated).map_err(AppError::internal)?;
    }
    let licence = record.and_then(|o| o.licence).map(|l| LicenceExpiry { expires: l.expires });
    Ok(HttpResponse::Ok().json(CheckUser {
        activated,
        division: r.division,
        customer: r.customer_name.clone(),
        licence,
        token: TokenExpiry { expires_at: state.tokens.expiry_ms(&r.user) },
    }))
}

/// Refuses a body that names another organization than the session's.
fn same_org(state: &AppState, session: &Session, uuid: &str) -> AppResult<OrgDetails> {
    let store = state.stores.get(session.record.division)?;
    let details = store.org_details()?.ok_or_else(|| AppError::new(Code::NotFound))?;
    if details.uuid != uuid && details.division.to_string() != uuid {
        return Err(AppError::with_message(Code::Forbidden, "That organization is not the one you are signed in to"));
    }
    Ok(details)
}

/// The user's own preferences in an organization.
#[derive(Deserialize, Serialize, ToSchema)]
struct UserPreferences {
    /// The session's organization: its `uuid` (or division code).
    #[schema(example = "7d0f3c52-2b1e-4a8e-9c55-1f2a3b4c5d6e")]
    uuid: String,
    /// The whole preferences object (it replaces the stored one).
    #[schema(value_type = Object)]
    preferences: Value,
}

/// The user's own preferences in this organization.
async fn update_preferences(
    state: web::Data<AppState>,
    session: Session,
    body: web::Json<UserPreferences>,
) -> AppResult<HttpResponse> {
    let body = body.into_inner();
    if !body.preferences.is_object() {
        return Err(AppError::bad_request("preferences must be an object"));
    }
    same_org(&state, &session, &body.uuid)?;
    let store = state.stores.get(session.record.division)?;
    store.set_user_preferences(&session.record.user, &body.preferences)?;
    Ok(HttpResponse::Ok().json(body))
}

/// A change to the organization: its preferences, or its sync timestamps.
#[derive(Deserialize, ToSchema)]
struct DetailsBody {
    /// The session's organization: its `uuid` (or division code).
    #[schema(example = "7d0f3c52-2b1e-4a8e-9c55-1f2a3b4c5d6e")]
    uuid: String,
    /// The organization's preferences (an object; it replaces the stored one).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    preferences: Option<Value>,
    /// Per synced table the timestamp to read from again (a number, or its text); `last_sync` is
    /// ignored and `deleted_entries_sync_timestamp` is the deleted entries' one.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    sync_timestamps: Option<Map<String, Value>>,
}

/// The organization's shared preferences (e.g. weekends_disabled); answers the details.
async fn update_org_preferences(
    state: web::Data<AppState>,
    session: Session,
    body: web::Json<DetailsBody>,
) -> AppResult<HttpResponse> {
    let body = body.into_inner();
    let Some(prefs) = body.preferences.filter(Value::is_object) else {
        return Err(AppError::bad_request("preferences must be an object"));
    };
    let mut details = same_org(&state, &session, &body.uuid)?;
    check_sync_account(&state, session.record.division, &prefs)?;
    check_sync_interval(&prefs)?;
    let prefs = checked_skipped_warehouses(prefs)?;
    details.preferences = prefs;
    state.stores.get(session.record.division)?.set_org_details(&details)?;
    Ok(HttpResponse::Ok().json(organization_details(&state.stores, session.record.division)))
}

/// Most warehouse codes `label_skipped_warehouses` may list, and their longest code (Exact
/// Online's warehouse codes are short; the bounds keep a hostile body from growing the details).
const MAX_SKIPPED_WAREHOUSES: usize = 500;
const MAX_WAREHOUSE_CODE: usize = 40;

/// `label_skipped_warehouses` is a list of warehouse codes; it is kept trimmed and without
/// repeats, so what Global Settings shows is what the labels use.
fn checked_skipped_warehouses(mut prefs: Value) -> AppResult<Value> {
    use crate::organization::SKIPPED_WAREHOUSES_PREFERENCE as KEY;
    let Some(given) = prefs.get(KEY) else { return Ok(prefs) };
    let refused = || {
        AppError::bad_request(format!(
            "{KEY} must be a list of at most {MAX_SKIPPED_WAREHOUSES} warehouse codes of 1 to {MAX_WAREHOUSE_CODE} characters"
        ))
    };
    let codes = given.as_array().filter(|c| c.len() <= MAX_SKIPPED_WAREHOUSES).ok_or_else(refused)?;
    let mut kept: Vec<String> = Vec::with_capacity(codes.len());
    for code in codes {
        let code = code.as_str().map(str::trim).ok_or_else(refused)?;
        if code.is_empty() || code.chars().count() > MAX_WAREHOUSE_CODE {
            return Err(refused());
        }
        if !kept.iter().any(|k| k == code) {
            kept.push(code.to_string());
        }
    }
    prefs[KEY] = json!(kept);
    Ok(prefs)
}

/// The sync interval (the background schedule reads it at every check) is whole minutes from 0
/// (off) to a day, as the config's.
fn check_sync_interval(prefs: &Value) -> AppResult<()> {
    use crate::sync::schedule::{INTERVAL_PREFERENCE, MAX_INTERVAL_MINUTES};
    match prefs.get(INTERVAL_PREFERENCE) {
        None => Ok(()),
        Some(v) if v.as_u64().is_some_and(|m| m <= MAX_INTERVAL_MINUTES) => Ok(()),
        Some(_) => Err(AppError::bad_request(format!(
            "{INTERVAL_PREFERENCE} must be whole minutes from 0 (off) to {MAX_INTERVAL_MINUTES}"
        ))),
    }
}

/// The chosen sync account must be one of the organization's accounts ('' = automatic).
fn check_sync_account(state: &AppState, division: i64, prefs: &Value) -> AppResult<()> {
    let Some(chosen) = prefs.get(accounts::SYNC_ACCOUNT_PREFERENCE) else { return Ok(()) };
    let chosen = chosen.as_str().ok_or_else(|| AppError::bad_request("sync_account must be text"))?.trim();
    if chosen.is_empty() {
        return Ok(());
    }
    let known = state.serverdb.org_users(division).map_err(AppError::internal)?;
    if known.iter().any(|(user, _)| user == chosen) {
        Ok(())
    } else {
        Err(AppError::bad_request("That account has not signed in to this organization"))
    }
}

/// `GET /organization/accounts`: the users signed in to the organization, with whether Exact
/// still accepts their sign-in, and the chosen sync account (for Global Settings).
async fn accounts(state: web::Data<AppState>, session: Session) -> AppResult<HttpResponse> {
    let division = session.record.division;
    let list = accounts::list(&state.serverdb, &state.tokens, division).map_err(AppError::internal)?;
    let chosen = accounts::chosen_sync_account(&state.stores, division);
    Ok(HttpResponse::Ok().json(OrgAccounts { accounts: list, sync_account: chosen }))
}

/// Sets sync timestamps (lower = re-read from there); refused while a sync runs. A timestamp may
/// only move back: a later one than the table's stored one (which is never past what the provider
/// has handed out) would make the next sync skip rows, so it answers 400, as does a negative one.
async fn update_sync_timestamps(
    state: web::Data<AppState>,
    session: Session,
    body: web::Json<DetailsBody>,
) -> AppResult<HttpResponse> {
    let body = body.into_inner();
    same_org(&state, &session, &body.uuid)?;
    let division = session.record.division;
    if state.sync.is_running(division) {
        return Err(AppError::new(Code::SyncRunning));
    }
    let mut values = BTreeMap::new();
    for (key, value) in body.sync_timestamps.unwrap_or_default() {
        if key == "last_sync" {
            continue;
        }
        let table = if key == "deleted_entries_sync_timestamp" { DELETED_ENTRIES_TABLE.to_string() } else { key };
        let ts = value
            .as_i64()
            .or_else(|| value.as_str().and_then(|s| s.trim_end_matches('L').parse().ok()))
            .ok_or_else(|| AppError::bad_request(format!("the timestamp of '{table}' is not a number")))?;
        values.insert(table, ts);
    }
    let store = state.stores.get(division)?;
    let current = store.sync_state()?;
    for (table, ts) in &values {
        if !crate::exact::catalogue::sync_endpoints().any(|e| e.table == table) {
            return Err(AppError::bad_request(format!("there is no synced table '{table}'")));
        }
        let stored = if table == DELETED_ENTRIES_TABLE {
            current.deleted_entries_sync_timestamp
        } else {
            current.timestamps.get(table).copied()
        };
        check_moves_back(table, *ts, stored.unwrap_or(1))?;
    }
    store.set_sync_timestamps(&values)?;
    Ok(HttpResponse::Ok().json(organization_details(&state.stores, division)))
}

/// A new sync timestamp for `table` must lie between 0 (from the start) and `stored`.
fn check_moves_back(table: &str, ts: i64, stored: i64) -> AppResult<()> {
    if ts < 0 {
        return Err(AppError::bad_request(format!("the timestamp of '{table}' must not be negative")));
    }
    if ts > stored {
        return Err(AppError::bad_request(format!(
            "the timestamp of '{table}' can only be moved back (to re-read from there): {ts} is past the synced {stored}"
        )));
    }
    Ok(())
}

const PERMISSIONS_KEY: &str = "user_permissions";

/// The organization's user permissions to save.
#[derive(Deserialize, ToSchema)]
struct PermissionsBody {
    /// The session's organization: its `uuid` or division code (text or number).
    #[schema(value_type = Value, example = "7d0f3c52-2b1e-4a8e-9c55-1f2a3b4c5d6e")]
    organization_id: Value,
    /// The permissions, as the permissions screen keeps them.
    data: Vec<Value>,
}

async fn update_permissions(
    state: web::Data<AppState>,
    session: Session,
    body: web::Json<PermissionsBody>,
) -> AppResult<HttpResponse> {
    let body = body.into_inner();
    let org_id = match &body.organization_id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    same_org(&state, &session, &org_id)?;
    let bytes = serde_json::to_vec(&body.data).map_err(AppError::internal)?;
    state.stores.get(session.record.division)?.kv_put(PERMISSIONS_KEY, &bytes)?;
    Ok(HttpResponse::Ok().json(SavedPermissions { status: "success", data: body.data }))
}

async fn permissions(state: web::Data<AppState>, session: Session) -> AppResult<HttpResponse> {
    let stored = state.stores.get(session.record.division)?.kv_get(PERMISSIONS_KEY)?;
    let data: Value = stored.and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_else(|| json!([]));
    Ok(HttpResponse::Ok().json(StoredPermissions { data }))
}

#[cfg(test)]
mod tests {
    use super::check_moves_back;

    #[test]
    fn sync_timestamps_only_move_back() {
        assert!(check_moves_back("items", 0, 1).is_ok(), "from the start");
        assert!(check_moves_back("items", 500, 900).is_ok());
        assert!(check_moves_back("items", 900, 900).is_ok(), "unchanged");
        assert!(check_moves_back("items", 901, 900).is_err(), "forward skips rows");
        assert!(check_moves_back("items", i64::MAX, 900).is_err());
        assert!(check_moves_back("items", -1, 900).is_err());
    }
}
