//! The sync engine (spec §4): per endpoint, read the last stored Timestamp (default 1), fetch
//! `Timestamp gt n` pages, store them in batches of 500 with the batch's newest Timestamp in the
//! same transaction; a failing table stops and is reported while the others go on; then
//! `last_sync`; then deleted entries. One sync per organization at a time.

use super::groups::Heads;
use super::progress::{Progress, SyncEvent};
use super::sink::{RawRows, SyncSink};
use crate::exact::catalogue::{self, Endpoint, Kind};
use crate::exact::{ExactClient, ExactError};
use crate::exact::{dropped, odata};
use crate::store::fields::{extract, raw_i64, raw_str};
use crate::store::{BULK_ROWS, BulkLoad};
use esm_base::texts::Text;
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

/// Where a sync gets its provider token: one of the organization's accounts (`auth::accounts`).
/// Every page takes the token as it goes out, renewed when due and once more after a refusal
/// (`exact::client::Bearer`), so a sync longer than a token's life goes on from its page.
pub use crate::exact::tokens::UserToken as OrgToken;

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

    /// `endpoints` with deleted entries after them when they hold a table (spec §5: deleted
    /// entries are synced after every sync, chosen or not; otherwise a record deleted in Exact
    /// stays in Planning, Materials and Scanning for good). For the syncs users and the schedule
    /// start; the outbox's refresh of the tables it wrote to leaves them out.
    pub fn with_deleted_entries(mut endpoints: Vec<&'static Endpoint>) -> Vec<&'static Endpoint> {
        let has_table = endpoints.iter().any(|e| e.kind == Kind::Sync);
        if has_table && !endpoints.iter().any(|e| e.kind == Kind::Deleted) {
            endpoints.extend(catalogue::ENDPOINTS.iter().filter(|e| e.kind == Kind::Deleted));
        }
        endpoints
    }

    /// Marks the organization as syncing, or refuses when a sync already runs.
    fn claim(&self, division: i64) -> Result<RunningGuard<'_>, SyncError> {
        if !self.running.lock().insert(division) {
            return Err(SyncError::AlreadyRunning);
        }
        Ok(RunningGuard { engine: self, division })
    }

    /// Runs a sync of `endpoints` to completion. Deleted entries, when in the list, run last.
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

    /// Claims the organization now and runs the sync in the background (the HTTP `202` path),
    /// as background work under the rate limiter.
    pub fn start(
        self: &Arc<Self>,
        division: i64,
        token: OrgToken,
        endpoints: Vec<&'static Endpoint>,
        sink: Arc<dyn SyncSink>,
    ) -> Result<(), SyncError> {
        self.start_as(division, token, endpoints, sink, true)
    }

    /// [`Self::start`] for a few tables a user just wrote to (the outbox's refresh): its calls
    /// may use the minute's foreground reserve, so a long sync or a picture pass cannot hold the
    /// organization's sync (and everything waiting for it) for a minute.
    pub fn start_foreground(
        self: &Arc<Self>,
        division: i64,
        token: OrgToken,
        endpoints: Vec<&'static Endpoint>,
        sink: Arc<dyn SyncSink>,
    ) -> Result<(), SyncError> {
        self.start_as(division, token, endpoints, sink, false)
    }

    fn start_as(
        self: &Arc<Self>,
        division: i64,
        token: OrgToken,
        endpoints: Vec<&'static Endpoint>,
        sink: Arc<dyn SyncSink>,
        background: bool,
    ) -> Result<(), SyncError> {
        if !self.running.lock().insert(division) {
            return Err(SyncError::AlreadyRunning);
        }
        let engine = self.clone();
        let work = async move {
            let _guard = RunningGuard { engine: &engine, division };
            engine.run_claimed(division, &token, &endpoints, sink).await;
        };
        if background {
            tokio::spawn(crate::exact::rate_limit::in_background(work));
        } else {
            tokio::spawn(work);
        }
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
        let (deleted, tables): (Vec<&'static Endpoint>, Vec<&'static Endpoint>) =
            endpoints.iter().copied().partition(|e| e.kind == Kind::Deleted);
        for ep in tables.into_iter().filter(|e| e.kind == Kind::Sync) {
            let outcome = self.run_table(division, token, ep, &sink).await;
            report.tables.insert(ep.table.to_string(), outcome);
        }
        let now = chrono::Local::now().format("%Y-%m-%dT%H:%M:%S%.3f%:z").to_string();
        match sink.set_last_sync(&now) {
            Ok(()) => report.last_sync = Some(now),
            Err(e) => tracing::error!(division, error = %format!("{e:#}"), "could not record last_sync"),
        }
        for ep in deleted {
            let outcome = self.run_table(division, token, ep, &sink).await;
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
        sink: &Arc<dyn SyncSink>,
    ) -> TableOutcome {
        let mut progress = Progress::new();
        let mut result = self.fetch_table(division, token, ep, sink, &mut progress).await;
        // Exact removed a property the sync selects (reference §17): drop it from the select,
        // remember that, and go on from where the table stopped, once per property.
        while let Some(property) = result.as_ref().err().and_then(|e| removed_from(e, ep)) {
            match ep.sync_path.map(|p| sink.drop_property(&format!("sync/{p}"), &property)) {
                Some(Ok(true)) => result = self.fetch_table(division, token, ep, sink, &mut progress).await,
                Some(Err(e)) => result = Err(e),
                // Dropped before and still refused: not a removal this sync can step past.
                Some(Ok(false)) | None => break,
            }
        }
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
            message: Text::Refreshing { table: ep.names() }.to_string(),
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
        sink: &Arc<dyn SyncSink>,
        progress: &mut Progress,
    ) -> anyhow::Result<()> {
        let sync_path = ep.sync_path.ok_or_else(|| anyhow::anyhow!("{} has no sync path", ep.name))?;
        let dropped = sink.dropped_properties(&format!("sync/{sync_path}"))?;
        let expand: Vec<&str> = ep.expand.iter().copied().filter(|c| !dropped.iter().any(|d| d == c)).collect();
        let expand = expand.join(",");
        let stored = sink.timestamp(ep.table)?;
        // Rows stored without the collections now expanded (by an older release) lack them, and an
        // incremental sync would only bring the changed ones: read the table from the start once.
        let reshaped = sink.expanded_with(ep.table)?.unwrap_or_default() != expand;
        let since = if reshaped { INITIAL_TIMESTAMP } else { stored.unwrap_or(INITIAL_TIMESTAMP) };
        let select = dropped::without(&catalogue::sync_select(ep), &dropped);
        let expand_option =
            if expand.is_empty() { String::new() } else { format!("&$expand={}", urlencoding::encode(&expand)) };
        let first = self.client.api_url(
            division,
            &format!(
                "sync/{sync_path}?$select={}{expand_option}&$filter={}",
                urlencoding::encode(&select),
                urlencoding::encode(&format!("Timestamp gt {}", odata::int64_literal(since)))
            ),
        );
        let mut writer = Writer::new(sink.clone(), ep)?;
        let fetched = self.fetch_pages(division, token, ep, first, since, &mut writer, progress).await;
        // Rows already fetched are good whatever happened next: store them (durably) before
        // reporting, so a failing table keeps every batch it received.
        let committed = match &fetched {
            Ok(c) => Some(*c).filter(|c| *c > since),
            Err(_) => None,
        };
        let heads = std::mem::take(&mut writer.heads);
        let stored_rows = writer.finish(committed).await;
        fetched?;
        stored_rows?;
        // Read to the end: the rows of an order whose header came that were not restamped with
        // it are gone in Exact (`groups`). A first read has nothing older to remove.
        if let Some(field) = ep.group_by
            && !heads.is_empty()
            && since > INITIAL_TIMESTAMP
        {
            let groups: Vec<&str> = heads.groups().collect();
            let removed = sink.remove_stale_rows(ep.table, field, &groups, since)?;
            if removed > 0 {
                tracing::info!(division, table = ep.table, removed, "rows gone from Exact removed");
            }
        }
        if reshaped {
            sink.set_expanded_with(ep.table, &expand)?;
        }
        Ok(())
    }

    /// Fetches the pages after `since`, handing 500-row batches to `writer`; returns the newest
    /// Timestamp fetched. The next page is fetched while the previous rows are being stored.
    #[allow(clippy::too_many_arguments)]
    async fn fetch_pages(
        &self,
        division: i64,
        token: &OrgToken,
        ep: &'static Endpoint,
        first: String,
        since: i64,
        writer: &mut Writer,
        progress: &mut Progress,
    ) -> anyhow::Result<i64> {
        let limiter = self.client.limiter(division);
        let mut url = first;
        let mut committed = since;
        let mut held_back = false;
        let mut ahead: Option<Ahead> = None;
        loop {
            let pending = limiter.pending_wait();
            if !pending.is_zero() {
                self.emit(self.event(division, ep, progress, true, true, pending));
                progress.waited(pending);
            }
            let mut page = match ahead.take() {
                Some(fetching) => fetching.page().await?,
                None => self.client.get_page_raw(division, token, &url).await?,
            };
            progress.set_total(page.count);
            let next = page.next.take();
            // The next page is fetched (and parsed) while this one's rows are handed over: the
            // provider and the store work at the same time. Still one call at a time.
            if let Some(n) = &next {
                let (client, token, n) = (self.client.clone(), token.clone(), n.clone());
                // Spawned as the sync runs: in the background, or in the foreground for the
                // outbox's refresh after writes.
                let fetch = async move { client.get_page_raw(division, &token, &n).await };
                let fetch: std::pin::Pin<Box<dyn std::future::Future<Output = _> + Send>> =
                    if crate::exact::rate_limit::is_background_task() {
                        Box::pin(crate::exact::rate_limit::in_background(fetch))
                    } else {
                        Box::pin(fetch)
                    };
                ahead = Some(Ahead(tokio::spawn(fetch)));
            }
            let (rows, stamps) = (page.rows, page.stamps);
            // Rows arrive in Timestamp order on Exact; order them anyway (stable, rows without
            // one first) so each batch's newest value is safe to commit.
            let stamp = |i: usize| stamps.get(i).copied().flatten();
            let mut order: Vec<usize> = (0..rows.len()).collect();
            if !order.is_sorted_by_key(|&i| stamp(i).unwrap_or(i64::MIN)) {
                order.sort_by_key(|&i| stamp(i).unwrap_or(i64::MIN));
            }
            if let Some(min) = order.first().and_then(|&i| stamp(i))
                && min <= committed
                && committed > since
            {
                // Out-of-order pages: committing a newer timestamp could skip rows after a crash.
                held_back = true;
            }
            progress.add(rows.len() as u64);
            for batch in order.chunks(BATCH_SIZE) {
                let newest = batch.iter().filter_map(|&i| stamp(i)).max();
                writer.add(&rows, batch, if held_back { None } else { newest }).await?;
                if let Some(n) = newest {
                    committed = committed.max(n);
                }
            }
            self.emit(self.event(division, ep, progress, next.is_some(), false, limiter.pending_wait()));
            match next {
                Some(n) => url = n,
                None => return Ok(committed),
            }
        }
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
            message: Text::Refreshing { table: ep.names() }.to_string(),
            total,
            remaining,
            done: false,
            paused,
            seconds_remaining: progress.eta_seconds(remaining, pending),
            error: None,
        }
    }
}

/// The property named by Exact's refusal `e`, when it is one `ep`'s sync selects.
fn removed_from(e: &anyhow::Error, ep: &Endpoint) -> Option<String> {
    let property = e.downcast_ref::<ExactError>()?.removed_property()?;
    catalogue::sync_select(ep).split(',').any(|f| f == property).then(|| property.to_string())
}

/// A page being fetched ahead; dropped (the sync stopped), the fetch is cancelled.
struct Ahead(tokio::task::JoinHandle<Result<crate::exact::envelope::RawPage, ExactError>>);

impl Ahead {
    async fn page(mut self) -> anyhow::Result<crate::exact::envelope::RawPage> {
        Ok((&mut self.0).await??)
    }
}

impl Drop for Ahead {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The (table, key) pairs some `sync/Deleted` rows remove; unknown entity types are ignored.
pub fn deletions_of<'a>(rows: impl IntoIterator<Item = &'a [u8]>) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let mut raw = [None, None];
    for r in rows {
        if extract(r, &["EntityType", "EntityKey"], &mut raw).is_err() {
            continue;
        }
        let (Some(ty), Some(key)) = (raw[0].and_then(raw_i64), raw[1]) else { continue };
        if key.get().starts_with('"')
            && let (Some(ep), Some(key)) = (catalogue::by_entity_type(ty), raw_str(key))
        {
            out.push((ep.table, key.into_owned()));
        }
    }
    out
}

/// Rows waiting for their store transaction, with what that transaction must also record.
#[derive(Default)]
struct Pending {
    rows: RawRows,
    deletes: Vec<(&'static str, String)>,
    newest: Option<i64>,
}

/// Rows gathered before they are handed to a table's bulk load (which commits many of them in
/// one transaction).
const PUSH_ROWS: usize = 2 * BATCH_SIZE;

/// Stores a table's batches in order while the engine fetches the next page. Each batch goes
/// with the newest of its timestamps into the same transaction as its rows, so a crash loses
/// rows only together with their timestamp, and the next sync fetches them again.
///
/// Sync tables go through the store's bulk load (one transaction open while pages keep coming,
/// on a thread of its own); deleted entries, which also delete from other tables, are stored
/// `BULK_ROWS` at a time on a blocking thread.
struct Writer {
    sink: Arc<dyn SyncSink>,
    ep: &'static Endpoint,
    pending: Pending,
    load: Option<BulkLoad>,
    in_flight: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
    failed: bool,
    /// The groups whose header row came (`Endpoint::group_by`).
    heads: Heads,
}

impl Writer {
    fn new(sink: Arc<dyn SyncSink>, ep: &'static Endpoint) -> anyhow::Result<Self> {
        let load = match ep.kind {
            Kind::Deleted => None,
            _ => Some(sink.clone().bulk_load(ep.table)?),
        };
        Ok(Writer {
            sink,
            ep,
            pending: Pending::default(),
            load,
            in_flight: None,
            failed: false,
            heads: Heads::default(),
        })
    }

    /// Adds rows `batch` (indexes into `rows`), whose newest Timestamp is `stamp`.
    async fn add(&mut self, rows: &RawRows, batch: &[usize], stamp: Option<i64>) -> anyhow::Result<()> {
        if self.ep.kind == Kind::Deleted {
            self.pending.deletes.extend(deletions_of(batch.iter().map(|&i| rows.get(i))));
        }
        self.heads.note(self.ep, batch.iter().map(|&i| rows.get(i)));
        for &i in batch {
            self.pending.rows.push(rows.get(i));
        }
        self.pending.newest = self.pending.newest.max(stamp);
        let full = if self.load.is_some() { PUSH_ROWS } else { BULK_ROWS };
        if self.pending.rows.len() >= full {
            self.flush().await?;
        }
        Ok(())
    }

    /// Hands the pending rows on: to the bulk load, or to a new blocking store.
    async fn flush(&mut self) -> anyhow::Result<()> {
        let batch = std::mem::take(&mut self.pending);
        if let Some(load) = self.load.as_mut() {
            let done = load.push_async(batch.rows, batch.newest).await;
            self.failed |= done.is_err();
            return Ok(done?);
        }
        self.wait().await?;
        let (sink, ep) = (self.sink.clone(), self.ep);
        self.in_flight = Some(tokio::task::spawn_blocking(move || store_deletions(sink.as_ref(), ep, &batch, false)));
        Ok(())
    }

    /// Waits for the transaction in flight.
    async fn wait(&mut self) -> anyhow::Result<()> {
        let Some(h) = self.in_flight.take() else { return Ok(()) };
        let done = h.await.map_err(anyhow::Error::from).and_then(|r| r);
        self.failed |= done.is_err();
        done
    }

    /// Stores what is left durably (every earlier commit becomes durable with it), raising the
    /// table's timestamp to `newest` when the whole table was fetched.
    async fn finish(mut self, newest: Option<i64>) -> anyhow::Result<()> {
        self.wait().await?;
        if self.failed {
            // A lost transaction is a gap: later rows must not raise the timestamp past it.
            anyhow::bail!("a batch of {} could not be stored", self.ep.table);
        }
        if let Some(mut load) = self.load.take() {
            let batch = std::mem::take(&mut self.pending);
            if !batch.rows.is_empty() {
                load.push_async(batch.rows, batch.newest).await?;
            }
            tokio::task::spawn_blocking(move || load.finish(newest)).await??;
            return Ok(());
        }
        let mut batch = std::mem::take(&mut self.pending);
        batch.newest = batch.newest.max(newest);
        let (sink, ep) = (self.sink.clone(), self.ep);
        tokio::task::spawn_blocking(move || store_deletions(sink.as_ref(), ep, &batch, true)).await?
    }
}

fn store_deletions(sink: &dyn SyncSink, ep: &'static Endpoint, batch: &Pending, durable: bool) -> anyhow::Result<()> {
    debug_assert_eq!(ep.kind, Kind::Deleted);
    sink.apply_deletions(&batch.rows, &batch.deletes, batch.newest, durable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deletions_apply_only_to_known_entity_types() {
        let mut rows = RawRows::default();
        for r in [
            json!({"EntityType": 9, "EntityKey": "a"}),
            json!({"EntityType": "36", "EntityKey": "b"}),
            json!({"EntityType": 1, "EntityKey": "c"}),
            json!({"EntityType": 9}),
        ] {
            rows.push(r.to_string().as_bytes());
        }
        assert_eq!(deletions_of(rows.iter()), vec![("items", "a".to_string()), ("shopOrders", "b".to_string())]);
    }

    #[test]
    fn default_selection_resolves_to_sixteen_sync_tables() {
        let eps = SyncEngine::resolve(&[]).unwrap();
        assert_eq!(eps.len(), 16);
        assert!(SyncEngine::resolve(&["warehouses".into()]).is_err(), "live endpoints are not synced");
        assert!(SyncEngine::resolve(&["nope".into()]).is_err());
        assert_eq!(SyncEngine::resolve(&["Deleted entries".into()]).unwrap()[0].table, "deletedEntries");
    }
}
