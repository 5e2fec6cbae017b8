//! The sync engine (spec §4): per endpoint, read the last stored Timestamp (default 1), fetch
//! `Timestamp gt n` pages, store them in batches of 500 with the batch's newest Timestamp in the
//! same transaction; a failing table stops and is reported while the others go on; then
//! `last_sync`; then deleted entries. One sync per organization at a time.

use super::progress::{Progress, SyncEvent};
use super::sink::{Row, SyncSink};
use crate::exact::catalogue::{self, Endpoint, Kind};
use crate::exact::odata;
use crate::exact::tokens::TokenManager;
use crate::exact::{ExactClient, ExactError};
use parking_lot::Mutex;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use tokio::sync::broadcast;

/// Rows per store transaction (spec §9: upload batch 500).
pub const BATCH_SIZE: usize = 500;
/// The Timestamp a never-synced table starts from (spec §9).
pub const INITIAL_TIMESTAMP: i64 = 1;
/// Rows per sync page on the provider.
const SYNC_PAGE: u64 = 1000;

/// How one table's sync ended.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TableOutcome {
    pub rows: u64,
    pub timestamp: Option<i64>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct SyncReport {
    pub division: i64,
    pub tables: BTreeMap<String, TableOutcome>,
    pub last_sync: Option<String>,
}

impl SyncReport {
    pub fn failed_tables(&self) -> Vec<&str> {
        self.tables.iter().filter(|(_, o)| o.error.is_some()).map(|(t, _)| t.as_str()).collect()
    }
}

/// Why a sync did not start.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("a sync is already running for this organization")]
    AlreadyRunning,
    #[error("no such sync endpoint: {0}")]
    UnknownEndpoint(String),
}

/// Where a sync gets its provider token: the organization's token owner, refreshed as needed.
#[derive(Clone)]
pub struct OrgToken {
    pub tokens: Arc<TokenManager>,
    pub user: String,
}

impl OrgToken {
    async fn get(&self) -> Result<String, ExactError> {
        self.tokens.access_token(&self.user).await
    }
}

pub struct SyncEngine {
    client: ExactClient,
    running: Mutex<HashSet<i64>>,
    events: broadcast::Sender<SyncEvent>,
    last: Mutex<BTreeMap<i64, SyncReport>>,
}

/// Releases the organization's "running" mark however the run ends.
struct RunningGuard<'a> {
    engine: &'a SyncEngine,
    division: i64,
}

impl Drop for RunningGuard<'_> {
    fn drop(&mut self) {
        self.engine.running.lock().remove(&self.division);
    }
}

impl SyncEngine {
    pub fn new(client: ExactClient) -> Self {
        let (events, _) = broadcast::channel(1024);
        SyncEngine { client, running: Mutex::default(), events, last: Mutex::default() }
    }

    pub fn client(&self) -> &ExactClient {
        &self.client
    }

    /// Progress events of every organization (subscribers filter by division).
    pub fn subscribe(&self) -> broadcast::Receiver<SyncEvent> {
        self.events.subscribe()
    }

    pub fn is_running(&self, division: i64) -> bool {
        self.running.lock().contains(&division)
    }

    /// The report of the organization's last finished run in this process.
    pub fn last_report(&self, division: i64) -> Option<SyncReport> {
        self.last.lock().get(&division).cloned()
    }

    /// Resolves endpoint names (table or display names); an empty list means the default selection.
    pub fn resolve(names: &[String]) -> Result<Vec<&'static Endpoint>, SyncError> {
        if names.is_empty() {
            return Ok(catalogue::default_selection().iter().filter_map(|t| catalogue::by_table(t)).collect());
        }
        names
            .iter()
            .map(|n| match catalogue::lookup(n) {
                Some(e) if e.is_sync() => Ok(e),
                _ => Err(SyncError::UnknownEndpoint(n.clone())),
            })
            .collect()
    }

    /// Marks the organization as syncing, or refuses when a sync already runs.
    fn claim(&self, division: i64) -> Result<RunningGuard<'_>, SyncError> {
        if !self.running.lock().insert(division) {
            return Err(SyncError::AlreadyRunning);
        }
        Ok(RunningGuard { engine: self, division })
    }

    /// Runs a sync of `endpoints` to completion. Deleted entries, when selected, run last.
    pub async fn run(
        &self,
        division: i64,
        token: &OrgToken,
        endpoints: &[&'static Endpoint],
        sink: Arc<dyn SyncSink>,
    ) -> Result<SyncReport, SyncError> {
        let _guard = self.claim(division)?;
        Ok(self.run_claimed(division, token, endpoints, sink).await)
    }

    /// Claims the organization now and runs the sync in the background (the HTTP `202` path).
    pub fn start(
        self: &Arc<Self>,
        division: i64,
        token: OrgToken,
        endpoints: Vec<&'static Endpoint>,
        sink: Arc<dyn SyncSink>,
    ) -> Result<(), SyncError> {
        if !self.running.lock().insert(division) {
            return Err(SyncError::AlreadyRunning);
        }
        let engine = self.clone();
        tokio::spawn(async move {
            let _guard = RunningGuard { engine: &engine, division };
            engine.run_claimed(division, &token, &endpoints, sink).await;
        });
        Ok(())
    }

    async fn run_claimed(
        &self,
        division: i64,
        token: &OrgToken,
        endpoints: &[&'static Endpoint],
        sink: Arc<dyn SyncSink>,
    ) -> SyncReport {
        let mut report = SyncReport { division, ..Default::default() };
        let (deleted, tables): (Vec<&&Endpoint>, Vec<&&Endpoint>) =
            endpoints.iter().partition(|e| e.kind == Kind::Deleted);
        for ep in tables.into_iter().filter(|e| e.kind == Kind::Sync) {
            let outcome = self.run_table(division, token, ep, sink.as_ref()).await;
            report.tables.insert(ep.table.to_string(), outcome);
        }
        let now = chrono::Local::now().format("%Y-%m-%dT%H:%M:%S%.3f%:z").to_string();
        match sink.set_last_sync(&now) {
            Ok(()) => report.last_sync = Some(now),
            Err(e) => tracing::error!(division, error = %format!("{e:#}"), "could not record last_sync"),
        }
        for ep in deleted {
            let outcome = self.run_table(division, token, ep, sink.as_ref()).await;
            report.tables.insert(ep.table.to_string(), outcome);
        }
        self.last.lock().insert(division, report.clone());
        report
    }

    fn emit(&self, event: SyncEvent) {
        // No subscriber is fine: nobody watches a background sync.
        let _ = self.events.send(event);
    }

    /// Syncs one table; never panics, reports its error instead.
    async fn run_table(
        &self,
        division: i64,
        token: &OrgToken,
        ep: &'static Endpoint,
        sink: &dyn SyncSink,
    ) -> TableOutcome {
        let mut progress = Progress::new();
        let result = self.fetch_table(division, token, ep, sink, &mut progress).await;
        let timestamp = sink.timestamp(ep.table).ok().flatten();
        let rows = sink.row_count(ep.table).unwrap_or(0);
        let error = result.err().map(|e| format!("{e:#}"));
        if let Some(err) = &error {
            tracing::warn!(division, table = ep.table, error = %err, "sync of this table stopped");
        }
        self.emit(SyncEvent {
            division,
            table: ep.table,
            name: ep.name,
            message: format!("Refreshing {}", ep.name),
            total: progress.received(),
            remaining: 0,
            done: true,
            paused: false,
            seconds_remaining: 0,
            error: error.clone(),
        });
        TableOutcome { rows, timestamp, error }
    }

    async fn fetch_table(
        &self,
        division: i64,
        token: &OrgToken,
        ep: &'static Endpoint,
        sink: &dyn SyncSink,
        progress: &mut Progress,
    ) -> anyhow::Result<()> {
        let sync_path = ep.sync_path.ok_or_else(|| anyhow::anyhow!("{} has no sync path", ep.name))?;
        let since = sink.timestamp(ep.table)?.unwrap_or(INITIAL_TIMESTAMP);
        let select = catalogue::sync_select(ep);
        let first = self.client.api_url(
            division,
            &format!(
                "sync/{sync_path}?$select={}&$filter={}",
                urlencoding::encode(&select),
                urlencoding::encode(&format!("Timestamp gt {}", odata::int64_literal(since)))
            ),
        );
        let limiter = self.client.limiter(division);
        let mut url = first;
        let mut committed = since;
        let mut held_back = false;
        loop {
            let pending = limiter.pending_wait();
            if !pending.is_zero() {
                self.emit(self.event(division, ep, progress, true, true, pending));
                progress.waited(pending);
            }
            let access = token.get().await?;
            let mut page = self.client.get_page(division, &access, &url).await?;
            progress.set_total(page.count);
            let next = page.next.take();
            let mut rows = page.rows;
            // Rows arrive in Timestamp order on Exact; sort anyway so each batch's newest value
            // is safe to commit.
            rows.sort_by_key(|r| r.get("Timestamp").and_then(odata::as_i64).unwrap_or(i64::MIN));
            if let Some(min) = rows.first().and_then(|r| r.get("Timestamp")).and_then(odata::as_i64)
                && min <= committed
                && committed > since
            {
                // Out-of-order pages: committing a newer timestamp could skip rows after a crash.
                held_back = true;
            }
            progress.add(rows.len() as u64);
            while !rows.is_empty() {
                let rest = rows.split_off(rows.len().min(BATCH_SIZE));
                let batch = std::mem::replace(&mut rows, rest);
                let newest = batch.iter().filter_map(|r| r.get("Timestamp").and_then(odata::as_i64)).max();
                let stamp = if held_back { None } else { newest };
                if ep.kind == Kind::Deleted {
                    let deletes = deletions_of(&batch);
                    sink.apply_deletions(batch, deletes, stamp, false)?;
                } else {
                    sink.apply_batch(ep.table, batch, stamp, false)?;
                }
                if let Some(n) = newest {
                    committed = committed.max(n);
                }
            }
            self.emit(self.event(division, ep, progress, next.is_some(), false, limiter.pending_wait()));
            match next {
                Some(n) => url = n,
                None => break,
            }
        }
        // The last commit is durable: everything before it becomes durable with it.
        if ep.kind == Kind::Deleted {
            sink.apply_deletions(Vec::new(), Vec::new(), Some(committed).filter(|c| *c > since), true)?;
        } else {
            sink.apply_batch(ep.table, Vec::new(), Some(committed).filter(|c| *c > since), true)?;
        }
        Ok(())
    }

    fn event(
        &self,
        division: i64,
        ep: &'static Endpoint,
        progress: &Progress,
        more: bool,
        paused: bool,
        pending: std::time::Duration,
    ) -> SyncEvent {
        let total = progress.total(more, SYNC_PAGE);
        let remaining = total.saturating_sub(progress.received());
        SyncEvent {
            division,
            table: ep.table,
            name: ep.name,
            message: format!("Refreshing {}", ep.name),
            total,
            remaining,
            done: false,
            paused,
            seconds_remaining: progress.eta_seconds(remaining, pending),
            error: None,
        }
    }
}

/// The (table, key) pairs a page of `sync/Deleted` removes; unknown entity types are ignored.
pub fn deletions_of(rows: &[Row]) -> Vec<(&'static str, String)> {
    rows.iter()
        .filter_map(|r| {
            let ty = r.get("EntityType").and_then(odata::as_i64)?;
            let key = r.get("EntityKey").and_then(|v| v.as_str())?;
            catalogue::by_entity_type(ty).map(|ep| (ep.table, key.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deletions_apply_only_to_known_entity_types() {
        let rows: Vec<Row> = [
            json!({"EntityType": 9, "EntityKey": "a"}),
            json!({"EntityType": "36", "EntityKey": "b"}),
            json!({"EntityType": 1, "EntityKey": "c"}),
            json!({"EntityType": 9}),
        ]
        .into_iter()
        .filter_map(|v| v.as_object().cloned())
        .collect();
        assert_eq!(deletions_of(&rows), vec![("items", "a".to_string()), ("shopOrders", "b".to_string())]);
    }

    #[test]
    fn default_selection_resolves_to_twelve_sync_tables() {
        let eps = SyncEngine::resolve(&[]).unwrap();
        assert_eq!(eps.len(), 12);
        assert!(SyncEngine::resolve(&["warehouses".into()]).is_err(), "live endpoints are not synced");
        assert!(SyncEngine::resolve(&["nope".into()]).is_err());
        assert_eq!(SyncEngine::resolve(&["Deleted entries".into()]).unwrap()[0].table, "deletedEntries");
    }
}
