//! `POST /api/v1/sync` starts a sync (202, or 409 while one runs); `GET /api/v1/sync` tells its
//! state: `{running, last_sync, tables: {name: {rows, timestamp, error}}}`.

use super::router::Router;
use super::scope::Org;
use crate::error::{AppError, AppResult, Code};
use crate::exact::catalogue;
use crate::server::AppState;
use crate::sync::engine::{OrgToken, SyncError};
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
}

/// The Sync Data menu's choices: sync endpoints first (deleted entries last of them), then the
/// live ones; the default selection is every sync endpoint except deleted entries.
async fn endpoints(_org: Org) -> HttpResponse {
    let default = catalogue::default_selection();
    let list: Vec<EndpointInfo> = catalogue::ENDPOINTS
        .iter()
        .map(|e| EndpointInfo {
            table: e.table,
            name: e.name,
            sync: e.is_sync(),
            default_selected: default.contains(&e.table),
        })
        .collect();
    HttpResponse::Ok().json(list)
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct StartBody {
    /// Tables or display names; absent = the caller's saved selection, else the default.
    endpoints: Option<Vec<String>>,
}

/// The token owner of the organization (the user who signed in for it).
pub fn org_token(state: &AppState, division: i64) -> AppResult<OrgToken> {
    let user = state
        .serverdb
        .org_token_user(division)
        .map_err(AppError::internal)?
        .ok_or_else(|| AppError::new(Code::NoToken))?;
    Ok(OrgToken { tokens: state.tokens.clone(), user })
}

async fn start(state: web::Data<AppState>, org: Org, body: Option<web::Json<StartBody>>) -> AppResult<HttpResponse> {
    let names = body.and_then(|b| b.into_inner().endpoints).unwrap_or_default();
    let endpoints = SyncEngine::resolve(&names).map_err(|e| AppError::bad_request(e.to_string()))?;
    let token = org_token(&state, org.division)?;
    let store = state.stores.get(org.division)?;
    let tables: Vec<&str> = endpoints.iter().map(|e| e.table).collect();
    match state.sync.start(org.division, token, endpoints, store as Arc<dyn SyncSink>) {
        Ok(()) => Ok(HttpResponse::Accepted().json(serde_json::json!({ "started": true, "endpoints": tables }))),
        Err(SyncError::AlreadyRunning) => Err(AppError::new(Code::SyncRunning)),
        Err(e) => Err(AppError::bad_request(e.to_string())),
    }
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
