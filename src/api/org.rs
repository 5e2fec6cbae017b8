//! The organization of the session (spec §3, §7): provider facts (`/exact/current`,
//! `/exact/divisionDetails`, `/exact/divisions`), `/organizationDetails`, `/checkUser`, and the
//! preference and permission writes.

use super::router::Router;
use crate::auth::tier::{Session, today};
use crate::auth::{accounts, orgs};
use crate::error::{AppError, AppResult, Code};
use crate::organization::organization_details;
use crate::state::AppState;
use crate::store::{DELETED_ENTRIES_TABLE, OrgDetails};
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

pub fn routes(r: &mut Router) {
    r.signed_in("/exact/current", |res| res.get(current));
    r.signed_in("/exact/divisionDetails", |res| res.get(division_details));
    r.signed_in("/exact/divisions", |res| res.get(divisions));
    r.signed_in("/organizationDetails", |res| res.get(details));
    r.signed_in("/checkUser", |res| res.get(check_user));
    r.signed_in("/updatePreferences", |res| res.put(update_preferences));
    r.signed_in("/updateOrganizationPreferences", |res| res.put(update_org_preferences));
    r.full("/updateOrganizationSyncTimestamps", |res| res.put(update_sync_timestamps));
    r.full("/organization/accounts", |res| res.get(accounts));
    // Before `/db/{table}`, so it is never taken for a table name.
    r.full("/db/userPermissions", |res| res.get(permissions).put(update_permissions));
}

async fn access_token(state: &AppState, session: &Session) -> AppResult<String> {
    Ok(state.tokens.access_token(&session.record.user).await?)
}

/// `GET /exact/current`: the provider's current division and customer name for this user.
async fn current(state: web::Data<AppState>, session: Session) -> AppResult<HttpResponse> {
    let token = access_token(&state, &session).await?;
    let me = state.exact.me(&token).await?;
    let division = me.get("CurrentDivision").and_then(Value::as_i64);
    let customer = me.get("DivisionCustomerName").and_then(Value::as_str).map(str::trim);
    Ok(HttpResponse::Ok().json(json!({
        "division": division, "customer_name": customer, "userName": me.get("UserName"),
    })))
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
    Ok(HttpResponse::Ok().json(json!({
        "division": division, "division_description": text("Description"), "customer": text("CustomerName"),
    })))
}

/// The divisions the session may switch to (as listed at sign-in).
async fn divisions(session: Session) -> HttpResponse {
    let current = session.record.division;
    let list: Vec<Value> = session
        .record
        .divisions
        .iter()
        .map(|d| json!({"division": d.division, "name": d.name, "customer": d.customer, "current": d.division == current}))
        .collect();
    HttpResponse::Ok().json(list)
}

async fn details(state: web::Data<AppState>, session: Session) -> HttpResponse {
    HttpResponse::Ok().json(organization_details(&state, session.record.division))
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
    let licence = record.and_then(|o| o.licence).map(|l| json!({"expires": l.expires}));
    Ok(HttpResponse::Ok().json(json!({
        "activated": activated, "division": r.division, "customer": r.customer_name, "licence": licence,
        "token": {"expires_at": state.tokens.expiry_ms(&r.user)},
    })))
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

#[derive(Deserialize)]
struct PreferencesBody {
    uuid: String,
    preferences: Value,
}

/// The user's own preferences in this organization.
async fn update_preferences(
    state: web::Data<AppState>,
    session: Session,
    body: web::Json<PreferencesBody>,
) -> AppResult<HttpResponse> {
    let body = body.into_inner();
    if !body.preferences.is_object() {
        return Err(AppError::bad_request("preferences must be an object"));
    }
    same_org(&state, &session, &body.uuid)?;
    let store = state.stores.get(session.record.division)?;
    store.set_user_preferences(&session.record.user, &body.preferences)?;
    Ok(HttpResponse::Ok().json(json!({"uuid": body.uuid, "preferences": body.preferences})))
}

#[derive(Deserialize)]
struct DetailsBody {
    uuid: String,
    #[serde(default)]
    preferences: Option<Value>,
    #[serde(default)]
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
    details.preferences = prefs;
    state.stores.get(session.record.division)?.set_org_details(&details)?;
    Ok(HttpResponse::Ok().json(organization_details(&state, session.record.division)))
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
    Ok(HttpResponse::Ok().json(json!({"accounts": list, "syncAccount": chosen})))
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
    Ok(HttpResponse::Ok().json(organization_details(&state, division)))
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

#[derive(Deserialize)]
struct PermissionsBody {
    organization_id: Value,
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
    Ok(HttpResponse::Ok().json(json!({"status": "success", "data": body.data})))
}

async fn permissions(state: web::Data<AppState>, session: Session) -> AppResult<HttpResponse> {
    let stored = state.stores.get(session.record.division)?.kv_get(PERMISSIONS_KEY)?;
    let data: Value = stored.and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_else(|| json!([]));
    Ok(HttpResponse::Ok().json(json!({"data": data})))
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
