//! `POST /api/v1/sync` starts a sync (202, or 409 while one runs); `GET /api/v1/sync` tells its
//! state: `{running, last_sync, tables: {name: {rows, timestamp, error}}}`.

use super::router::Router;
use super::scope::Org;
use crate::auth::tier::Session;
use crate::error::{AppError, AppResult, Code};
use crate::exact::catalogue;
use crate::organization::org_token;
use crate::state::AppState;
use crate::sync::engine::SyncError;
use crate::sync::{SyncEngine, SyncSink};
use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

pub fn routes(r: &mut Router) {
    r.full("/sync", |res| res.get(status).post(start));
    r.full("/sync/endpoints", |res| res.get(endpoints));
}

#[derive(Serialize)]
struct EndpointInfo {
    table: &'static str,
    name: &'static str,
    /// Read incrementally into the store (else fetched live and cached).
    sync: bool,
    /// In the default selection of the Sync Data menu.
    default_selected: bool,
    /// In the caller's saved selection (the default until they chose).
    selected: bool,
}

/// Where a user's endpoint choice is kept in their preferences.
const SELECTION_KEY: &str = "selected_endpoints";

/// The user's saved endpoint selection in this organization, if they made one.
fn saved_selection(state: &AppState, session: &Session) -> Option<Vec<String>> {
    let prefs = state.stores.get(session.record.division).ok()?.user_preferences(&session.record.user).ok()??;
    serde_json::from_value(prefs.get(SELECTION_KEY)?.clone()).ok()
}

fn save_selection(state: &AppState, session: &Session, tables: &[&str]) -> AppResult<()> {
    let store = state.stores.get(session.record.division)?;
    let mut prefs = store.user_preferences(&session.record.user)?.unwrap_or_else(|| serde_json::json!({}));
    if let Some(map) = prefs.as_object_mut() {
        map.insert(SELECTION_KEY.into(), serde_json::json!(tables));
    }
    store.set_user_preferences(&session.record.user, &prefs)?;
    Ok(())
}

/// The Sync Data menu's choices: sync endpoints first (deleted entries last of them), then the
/// live ones; the default selection is every sync endpoint except deleted entries.
async fn endpoints(state: web::Data<AppState>, session: Session) -> HttpResponse {
    let default = catalogue::default_selection();
    let saved = saved_selection(&state, &session);
    let list: Vec<EndpointInfo> = catalogue::ENDPOINTS
        .iter()
        .map(|e| EndpointInfo {
            table: e.table,
            name: e.name,
            sync: e.is_sync(),
            default_selected: default.contains(&e.table),
            selected: match &saved {
                Some(list) => list.iter().any(|t| t == e.table),
                None => default.contains(&e.table),
            },
        })
        .collect();
    HttpResponse::Ok().json(list)
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct StartBody {
    /// Tables or display names; absent = the caller's saved selection, else the default. A
    /// given list becomes the caller's saved selection.
    endpoints: Option<Vec<String>>,
}

async fn start(
    state: web::Data<AppState>,
    session: Session,
    body: Option<web::Json<StartBody>>,
) -> AppResult<HttpResponse> {
    let org = Org { division: session.record.division };
    let chosen = body.and_then(|b| b.into_inner().endpoints);
    let names = chosen.clone().or_else(|| saved_selection(&state, &session)).unwrap_or_default();
    // "Fetched live" endpoints ticked in the menu refresh their cached copy; the rest is synced.
    let (live, synced): (Vec<String>, Vec<String>) =
        names.into_iter().partition(|n| catalogue::lookup(n).is_some_and(|e| e.kind == catalogue::Kind::Live));
    let live: Vec<&'static catalogue::Endpoint> = live.iter().filter_map(|n| catalogue::lookup(n)).collect();
    let endpoints = if synced.is_empty() && !live.is_empty() {
        Vec::new()
    } else {
        SyncEngine::resolve(&synced).map_err(|e| AppError::bad_request(e.to_string()))?
    };
    if chosen.is_some() {
        let tables: Vec<&str> = endpoints.iter().chain(&live).map(|e| e.table).collect();
        save_selection(&state, &session, &tables)?;
    }
    let token = org_token(&state, org.division)?;
    let store = state.stores.get(org.division)?;
    // The chosen tables; deleted entries follow them (not listed: they were not chosen).
    let tables: Vec<&str> = endpoints.iter().map(|e| e.table).collect();
    let endpoints = SyncEngine::with_deleted_entries(endpoints);
    let started = if endpoints.is_empty() {
        false
    } else {
        match state.sync.start(org.division, token, endpoints, store as Arc<dyn SyncSink>) {
            Ok(()) => true,
            Err(SyncError::AlreadyRunning) => return Err(AppError::new(Code::SyncRunning)),
            Err(e) => return Err(AppError::bad_request(e.to_string())),
        }
    };
    let refreshes = live.iter().map(|ep| crate::live::tables::refresh_now(&state, org.division, ep));
    let refreshed: serde_json::Map<String, serde_json::Value> = live
        .iter()
        .zip(futures_util::future::join_all(refreshes).await)
        .map(|(ep, outcome)| {
            let v = match outcome {
                Ok(()) => serde_json::json!({ "ok": true }),
                Err(why) => serde_json::json!({ "ok": false, "error": why }),
            };
            (ep.table.to_string(), v)
        })
        .collect();
    Ok(HttpResponse::Accepted().json(serde_json::json!({
        "started": started,
        "endpoints": tables,
        "refreshed": refreshed,
    })))
}

#[derive(Serialize)]
struct TableState {
    rows: u64,
    timestamp: Option<i64>,
    error: Option<String>,
}

#[derive(Serialize)]
struct SyncStatus {
    running: bool,
    last_sync: Option<String>,
    tables: BTreeMap<String, TableState>,
}

async fn status(state: web::Data<AppState>, org: Org) -> AppResult<HttpResponse> {
    let store = state.stores.get(org.division)?;
    let sync_state = store.sync_state()?;
    let last = state.sync.last_report(org.division);
    let mut tables = BTreeMap::new();
    for ep in catalogue::sync_endpoints() {
        let timestamp = if ep.table == crate::store::DELETED_ENTRIES_TABLE {
            sync_state.deleted_entries_sync_timestamp
        } else {
            sync_state.timestamps.get(ep.table).copied()
        };
        let error = last.as_ref().and_then(|r| r.tables.get(ep.table)).and_then(|o| o.error.clone());
        tables.insert(ep.table.to_string(), TableState { rows: store.row_count(ep.table)?, timestamp, error });
    }
    Ok(HttpResponse::Ok().json(SyncStatus {
        running: state.sync.is_running(org.division),
        last_sync: sync_state.last_sync,
        tables,
    }))
}
