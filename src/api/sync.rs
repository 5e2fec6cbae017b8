//! `POST /api/v1/sync` starts a sync (202, or 409 while one runs); `GET /api/v1/sync` tells its
//! state: `{running, last_sync, tables: {name: {rows, timestamp, error}}}`.

use super::CallerLanguage;
use super::router::Router;
use super::scope::Org;
use crate::auth::tier::Session;
use crate::error::{AppError, AppResult, Code};
use crate::exact::catalogue;
use crate::state::AppState;
use crate::sync::engine::SyncError;
use crate::sync::{SyncEngine, SyncSink};
use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;
use utoipa::ToSchema;

pub fn routes(r: &mut Router) {
    r.full("/sync", |res| {
        res.get(status)
            .json::<SyncStatus>(200, "Whether a sync runs, and each synced table's state")
            .post(start)
            .optional_body::<SyncStartBody>()
            .json::<SyncStarted>(202, "The sync started in the background; the live tables asked for are refreshed")
            .fails(&[Code::SyncRunning, Code::ProviderSignIn])
    });
    r.full("/sync/endpoints", |res| {
        res.get(endpoints).list::<EndpointInfo>(200, "The Sync Data menu's endpoints and the caller's selection")
    });
}

/// An endpoint of the Sync Data menu.
#[derive(Serialize, ToSchema)]
struct EndpointInfo {
    #[schema(example = "items")]
    table: &'static str,
    #[schema(example = "Items")]
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
async fn endpoints(
    state: web::Data<AppState>,
    session: Session,
    CallerLanguage(language): CallerLanguage,
) -> HttpResponse {
    let default = catalogue::default_selection();
    let saved = saved_selection(&state, &session);
    let list: Vec<EndpointInfo> = catalogue::ENDPOINTS
        .iter()
        .map(|e| EndpointInfo {
            table: e.table,
            name: e.names().said_in(language),
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

/// What to sync (the body may be left out: the caller's saved selection, else the default).
#[derive(Deserialize, Default, ToSchema)]
#[serde(deny_unknown_fields)]
struct SyncStartBody {
    /// Tables or display names; absent = the caller's saved selection, else the default. A
    /// given list becomes the caller's saved selection.
    #[schema(example = json!(["items", "shopOrders", "Stock Positions"]))]
    endpoints: Option<Vec<String>>,
}

/// A sync started (or only live tables refreshed).
#[derive(Serialize, ToSchema)]
struct SyncStarted {
    /// Whether a sync of stored tables started.
    started: bool,
    /// The tables it syncs (deleted entries follow them, unlisted).
    #[schema(example = json!(["items", "shopOrders"]))]
    endpoints: Vec<&'static str>,
    /// Per live table asked for, whether its refresh worked (in the order asked).
    #[schema(value_type = BTreeMap<String, LiveRefresh>)]
    refreshed: serde_json::Map<String, serde_json::Value>,
}

/// How a live table's refresh went.
#[derive(Serialize, ToSchema)]
struct LiveRefresh {
    ok: bool,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

async fn start(
    state: web::Data<AppState>,
    session: Session,
    body: Option<web::Json<SyncStartBody>>,
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
    let token = state.org_token(org.division)?;
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
    let live_reads = state.live();
    let refreshes = live.iter().map(|ep| crate::live::tables::refresh_now(&live_reads, org.division, ep));
    // A map in the order asked (serde_json's keeps it), of `LiveRefresh`es.
    let mut refreshed = serde_json::Map::new();
    for (ep, outcome) in live.iter().zip(futures_util::future::join_all(refreshes).await) {
        let outcome = match outcome {
            Ok(()) => LiveRefresh { ok: true, error: None },
            Err(why) => LiveRefresh { ok: false, error: Some(why) },
        };
        refreshed.insert(ep.table.to_string(), serde_json::to_value(outcome).map_err(AppError::internal)?);
    }
    Ok(HttpResponse::Accepted().json(SyncStarted { started, endpoints: tables, refreshed }))
}

/// A synced table's state.
#[derive(Serialize, ToSchema)]
struct TableState {
    #[schema(example = 1_284)]
    rows: u64,
    /// The provider's Timestamp read up to; null before its first sync.
    #[schema(example = 41_200_317)]
    timestamp: Option<i64>,
    /// Why the last sync of the table stopped, if it did.
    error: Option<String>,
}

/// Whether a sync runs, and each synced table's state.
#[derive(Serialize, ToSchema)]
struct SyncStatus {
    running: bool,
    /// When the last sync ended (local ISO time).
    #[schema(example = "2026-11-27T07:30:00.000+01:00")]
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
