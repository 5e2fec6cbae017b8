//! Non-sync endpoints (spec §3): fetched live from the provider and cached in the store.
//! `GET /api/v1/exact/live/{table}` answers from the cache while it is fresh, else fetches;
//! when the provider fails, a stale cache is served rather than nothing.

use super::router::Router;
use super::scope::Org;
use super::sync::org_token;
use crate::error::{AppError, AppResult, Code};
use crate::exact::catalogue::{self, Kind};
use crate::exact::oauth::now_ms;
use crate::server::AppState;
use crate::store::{Commit, Query};
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::Value;

/// How long a live table's cache is served without asking the provider again.
pub const CACHE_TTL_MS: i64 = 10 * 60 * 1000;

pub fn routes(r: &mut Router) {
    r.full("/exact/live/{table}", |res| res.get(read));
}

#[derive(Deserialize, Default)]
struct LiveQuery {
    #[serde(default)]
    refresh: bool,
}

fn fetched_key(table: &str) -> String {
    format!("live_fetched/{table}")
}

async fn read(
    state: web::Data<AppState>,
    org: Org,
    table: web::Path<String>,
    q: web::Query<LiveQuery>,
) -> AppResult<HttpResponse> {
    let ep = match catalogue::by_table(&table) {
        Some(ep) if ep.kind == Kind::Live => ep,
        Some(_) => return Err(AppError::new(Code::SyncEndpointLive)),
        None => return Err(AppError::bad_request(format!("unknown endpoint '{table}'"))),
    };
    let store = state.stores.get(org.division)?;
    let fetched = store
        .kv_get(&fetched_key(ep.table))?
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|s| s.parse::<i64>().ok());
    let fresh = fetched.is_some_and(|t| now_ms() - t < CACHE_TTL_MS);
    if !fresh || q.refresh {
        match fetch(&state, org.division, ep).await {
            Ok(rows) => {
                let stamp = now_ms().to_string();
                let table = ep.table;
                let key = fetched_key(table);
                let s = store.clone();
                web::block(move || {
                    s.write(Commit::Durable, |w| {
                        w.clear_table(table)?;
                        w.upsert(table, rows).map(|_| ())
                    })?;
                    // After the rows: a crash in between only makes the cache look stale.
                    s.kv_put(&key, stamp.as_bytes())
                })
                .await
                .map_err(|e| AppError::internal(anyhow::anyhow!("{e}")))??;
            }
            Err(e) if fetched.is_some() => {
                tracing::warn!(table = ep.table, error = %e, "live fetch failed; serving the cached copy");
            }
            Err(e) => {
                return Err(if ep.table == "warehouses" {
                    AppError::new(Code::Warehouses).caused_by(anyhow::anyhow!("{e}"))
                } else {
                    AppError::new(Code::TableInfo).caused_by(anyhow::anyhow!("{e}"))
                });
            }
        }
    }
    let order = if ep.table == "warehouses" { "order=Code.asc&limit=1000" } else { "limit=1000" };
    let page = store.query(ep.table, &Query::parse(order)?)?;
    Ok(HttpResponse::Ok().content_type("application/json").body(page.into_json()))
}

async fn fetch(state: &AppState, division: i64, ep: &'static catalogue::Endpoint) -> Result<Vec<Value>, AppError> {
    let token = org_token(state, division)?;
    let access = state.tokens.access_token(&token.user).await?;
    // Spec §7: warehouses are read ordered by Code, selecting ID, Code and Description.
    let query = if ep.table == "warehouses" {
        "$select=ID,Code,Description&$orderby=Code asc".to_string()
    } else {
        format!("$select={}", catalogue::live_select(ep))
    };
    let url = state.exact.api_url(division, &format!("{}?{}", ep.path, query.replace(' ', "%20")));
    let rows = state.exact.get_all(division, &access, &url).await?;
    Ok(rows.into_iter().map(Value::Object).collect())
}
