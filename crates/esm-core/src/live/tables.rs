//! Live tables (spec §3's non-sync endpoints): fetched from the provider and cached in the
//! organization's store. A read answers the cache while it is fresh, else fetches under the
//! live-read deadline (`deadline`); when the provider is away or slow, the cache is served with
//! when it was fetched, and without one the answer is `provider_unreachable`.

use super::Live;
use super::deadline::{self, Progress, Settled};
use crate::error::{AppError, AppResult, Code};
use crate::exact::ExactError;
use crate::exact::catalogue::{self, Endpoint};
use crate::exact::dropped;
use crate::exact::oauth::now_ms;
use crate::exact::tokens::UserToken;
use crate::limits::PROVIDER_READ_MAX_ROWS;
use crate::store::query::MAX_LIMIT;
use crate::store::{Commit, OrgStore, Query};
use serde_json::Value;
use std::sync::Arc;

/// How long a live table's cache is served without asking the provider again.
pub const CACHE_TTL_MS: i64 = 10 * 60 * 1000;

/// A live table as answered: every row as one JSON array, and `as_of` (when it was fetched, epoch
/// ms) on a copy served in place of a fresh read.
pub struct Table {
    pub body: Vec<u8>,
    pub as_of: Option<i64>,
}

fn fetched_key(table: &str) -> String {
    // Under the cache prefix: a store rebuilt for a new schema forgets it with the rows.
    format!("{}{table}", crate::store::meta::KV_CACHE_PREFIX)
}

/// When the table's cache was fetched (epoch ms), if it was.
fn fetched_at(store: &OrgStore, table: &str) -> AppResult<Option<i64>> {
    Ok(store.kv_get(&fetched_key(table))?.and_then(|b| String::from_utf8(b).ok()).and_then(|s| s.parse::<i64>().ok()))
}

/// Reads a live table: the cache while it is fresh (unless `refresh`), else the provider's rows
/// under the deadline, else the cache marked with its age.
pub async fn read(live: &Live, division: i64, ep: &'static Endpoint, refresh: bool) -> AppResult<Table> {
    let store = live.stores.get(division)?;
    let fetched = fetched_at(&store, ep.table)?;
    let fresh = fetched.is_some_and(|t| now_ms() - t < CACHE_TTL_MS);
    let status = live.exact.provider_status();
    // While the provider's calls fail, even a fresh cache is checked (briefly): it may be back.
    if fresh && !refresh && status.reachable {
        return cached(&store, ep, None);
    }
    let settled = fetch_in_time(live, &store, division, ep, fetched.is_some()).await?;
    after_fetch(&store, ep, settled)
}

/// Fetches the table under the live-read deadline; without a usable sign-in the copy is served,
/// as in an outage.
async fn fetch_in_time(
    live: &Live,
    store: &Arc<OrgStore>,
    division: i64,
    ep: &'static Endpoint,
    has_copy: bool,
) -> AppResult<Settled<bool>> {
    match live.org_token(division) {
        Ok(token) => {
            let progress = Progress::default();
            let read = tokio::spawn(refresh(live.clone(), store.clone(), division, ep, token.user, progress.clone()));
            deadline::settle(read, &progress, deadline::deadline_for(live, division), || has_copy).await
        }
        // No account of the organization has a usable sign-in: the copy, as in an outage; without
        // one, that sign-in is what the read needs (a refused renewal marks it at once).
        Err(e) if e.code() == Code::ProviderSignIn && has_copy => Ok(Settled::Stale(e.message().to_string())),
        Err(e) => Err(e),
    }
}

/// The answer once the fetch settled: the fresh rows, else the copy as it is now (a read that
/// went on in the background may have renewed it) marked with its age, else why there is none.
fn after_fetch(store: &OrgStore, ep: &Endpoint, settled: Settled<bool>) -> AppResult<Table> {
    let (why, unstored) = match settled {
        Settled::Fresh(true) => return cached(store, ep, None),
        Settled::Fresh(false) => ("the fetched rows could not be stored".to_string(), true),
        Settled::Stale(why) => (why, false),
        // A list past the bound is an answer of its own: an older copy would hide it.
        Settled::Refused(e @ ExactError::TooManyRows { .. }) => return Err(e.into()),
        Settled::Refused(e) => (refused(store, ep, e)?, false),
    };
    match fetched_at(store, ep.table)? {
        Some(as_of) => {
            tracing::warn!(table = ep.table, as_of, reason = %why, "live fetch failed; serving the cached copy");
            cached(store, ep, Some(as_of))
        }
        None if unstored => Err(AppError::internal(anyhow::anyhow!("{}: {why}", ep.table))),
        None => Err(deadline::unreachable().caused_by(anyhow::anyhow!("{}: {why}", ep.table))),
    }
}

/// A refusal by the provider is its answer when there is no copy; with one, the copy is served
/// and the refusal is the reason logged.
fn refused(store: &OrgStore, ep: &Endpoint, e: ExactError) -> AppResult<String> {
    // A refused sign-in without a copy says so (the UI offers the sign-in), not a table error.
    if matches!(e, ExactError::Unauthorized(_)) && fetched_at(store, ep.table)?.is_none() {
        return Err(e.into());
    }
    if fetched_at(store, ep.table)?.is_none() {
        return Err(if ep.table == "warehouses" {
            AppError::new(Code::Warehouses).caused_by(e)
        } else {
            AppError::new(Code::TableInfo).caused_by(e)
        });
    }
    Ok(e.to_string())
}

/// Refreshes a live table's cache now (a "Fetched live" endpoint ticked in the Sync Data menu):
/// `Ok` once the fresh rows are stored, else why not. The fetch goes on in the background past
/// the live-read deadline, and then stores its rows when they come.
pub async fn refresh_now(live: &Live, division: i64, ep: &'static Endpoint) -> Result<(), String> {
    let token = live.org_token(division).map_err(|e| e.message().to_string())?;
    let store = live.stores.get(division).map_err(|e| e.to_string())?;
    let read = tokio::spawn(crate::exact::rate_limit::in_background(refresh(
        live.clone(),
        store,
        division,
        ep,
        token.user,
        Progress::default(),
    )));
    match tokio::time::timeout(deadline::deadline_for(live, division), read).await {
        Ok(Ok(Ok(true))) => Ok(()),
        Ok(Ok(Ok(false))) => Err("the fetched rows could not be stored".into()),
        Ok(Ok(Err(e))) => Err(e.to_string()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("Exact Online is slow to answer: the rows are stored when they come".into()),
    }
}

/// The cached table, every row of it (the store answers pages of 1000, a list holds more); `as_of`
/// marks a copy served in place of a fresh read.
fn cached(store: &OrgStore, ep: &Endpoint, as_of: Option<i64>) -> AppResult<Table> {
    let mut body = vec![b'['];
    let mut count = 0;
    loop {
        // pickers list these by code (a list of 32 locations in Exact's order is hard to search)
        let order = if matches!(ep.table, "warehouses" | "storageLocations") { "&order=Code.asc" } else { "" };
        let page = store.query(ep.table, &Query::parse(&format!("limit={MAX_LIMIT}&offset={count}{order}"))?)?;
        for row in page.rows() {
            if count > 0 {
                body.push(b',');
            }
            body.extend_from_slice(row);
            count += 1;
        }
        if page.len() < MAX_LIMIT {
            break;
        }
        // Only a copy stored by an older release can hold more: the fetch refuses such a list.
        if count >= PROVIDER_READ_MAX_ROWS {
            return Err(ExactError::TooManyRows { limit: PROVIDER_READ_MAX_ROWS }.into());
        }
    }
    body.push(b']');
    Ok(Table { body, as_of })
}

/// Fetches the table and replaces its cache; answers whether the rows were stored (a store
/// failure is logged; the old cache then stays).
async fn refresh(
    live: Live,
    store: Arc<OrgStore>,
    division: i64,
    ep: &'static Endpoint,
    user: String,
    progress: Progress,
) -> Result<bool, ExactError> {
    let rows = fetch(&live, &store, division, ep, user, &progress).await?;
    let stamp = now_ms().to_string();
    let table = ep.table;
    let key = fetched_key(table);
    let written = tokio::task::spawn_blocking(move || {
        store.write(Commit::Durable, |w| {
            w.clear_table(table)?;
            w.upsert(table, rows).map(|_| ())
        })?;
        // After the rows: a crash in between only makes the cache look stale.
        store.kv_put(&key, stamp.as_bytes())
    })
    .await;
    match written {
        Ok(Ok(())) => Ok(true),
        Ok(Err(e)) => {
            tracing::error!(table, error = %e, "live table could not be stored");
            Ok(false)
        }
        Err(e) => {
            tracing::error!(table, error = %e, "live table could not be stored");
            Ok(false)
        }
    }
}

/// Every row of the table from the provider, with the fields the spec reads, less those Exact
/// removed (a removal met here is remembered and the read goes on without it).
async fn fetch(
    live: &Live,
    store: &OrgStore,
    division: i64,
    ep: &'static Endpoint,
    user: String,
    progress: &Progress,
) -> Result<Vec<Value>, ExactError> {
    let token = UserToken::new(live.tokens.clone(), user);
    // Spec §7: warehouses are read ordered by Code, selecting ID, Code and Description; and
    // UseStorageLocations, so no screen asks for a location in a warehouse that has none and a
    // write naming one is refused before it is queued (docs/exact-online.md). Should Exact drop
    // it, the rows come without it and every warehouse counts as using storage locations.
    let (select, order) = if ep.table == "warehouses" {
        ("ID,Code,Description,UseStorageLocations".to_string(), "&$orderby=Code%20asc")
    } else {
        (catalogue::live_select(ep), "")
    };
    loop {
        let gone = dropped::of(store, ep.path).map_err(|e| ExactError::Malformed(e.to_string()))?;
        let select = dropped::without(&select, &gone);
        let url = live.exact.api_url(division, &format!("{}?$select={select}{order}", ep.path));
        let read = super::all_rows(live, division, &token, &url, progress).await;
        let removed = read.as_ref().err().and_then(ExactError::removed_property);
        match removed.filter(|p| select.split(',').any(|f| f == *p)) {
            Some(p) if dropped::record(store, ep.path, p).map_err(|e| ExactError::Malformed(e.to_string()))? => {}
            _ => return read,
        }
    }
}
