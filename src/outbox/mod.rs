//! Write-back to the provider through a durable outbox (one per organization): a write is on
//! disk before it is sent, goes out in order under the division's rate limiter, waits and tries
//! again on network trouble or 429, stops with the provider's message when refused, and is
//! recorded as accepted before the next one goes. A send whose answer was lost (crash, cut
//! connection) is checked at the provider before anything is sent again, so nothing is lost or
//! booked twice. Delivered writes trigger an incremental sync of the tables they touch.

pub mod actions;
pub mod entry;
pub mod store;

pub use entry::{Entry, Method, Reconcile, State};

use crate::exact::catalogue;
use crate::exact::oauth::now_ms;
use crate::exact::tokens::TokenManager;
use crate::exact::{ExactClient, ExactError};
use crate::serverdb::ServerDb;
use crate::store::Stores;
use crate::sync::engine::{OrgToken, SyncError};
use crate::sync::{SyncEngine, SyncSink};
use anyhow::Result;
use parking_lot::Mutex;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use store::OutboxDb;
use tokio::sync::Notify;

/// Transient failures of one entry before it is handed to the user (with the last message).
const MAX_ATTEMPTS: u32 = 10;
/// How long an entry without a usable token waits before trying again (or until woken).
const NO_TOKEN_WAIT: Duration = Duration::from_secs(30);

const UNKNOWN_OUTCOME: &str = "The connection broke while this was being sent and Exact Online offers no way to \
     check it: look in Exact Online whether it was booked, then discard it here or send it again";

struct OrgOutbox {
    db: OutboxDb,
    wake: Notify,
}

/// The outboxes of all organizations and their delivery workers.
pub struct OutboxService {
    data_dir: PathBuf,
    exact: ExactClient,
    tokens: Arc<TokenManager>,
    serverdb: Arc<ServerDb>,
    sync: Arc<SyncEngine>,
    stores: Arc<Stores>,
    /// Wait after a transient failure (spec §9: 2 s on writes).
    retry_wait: Duration,
    orgs: Mutex<HashMap<i64, Arc<OrgOutbox>>>,
    workers: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

/// What the provider says about a send whose answer was lost.
enum Found {
    Yes,
    No,
    CannotTell,
}

/// The queue's open and refused writes, as the UI shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct QueueCounts {
    pub pending: usize,
    pub failed: usize,
}

impl QueueCounts {
    pub fn of(entries: &[Entry]) -> QueueCounts {
        QueueCounts {
            pending: entries.iter().filter(|e| matches!(e.state, State::Pending | State::Sending)).count(),
            failed: entries.iter().filter(|e| e.state == State::Failed).count(),
        }
    }
}

impl OutboxService {
    pub fn new(
        data_dir: PathBuf,
        exact: ExactClient,
        tokens: Arc<TokenManager>,
        serverdb: Arc<ServerDb>,
        sync: Arc<SyncEngine>,
        stores: Arc<Stores>,
    ) -> Arc<Self> {
        let retry_wait = exact.waits().write_retry;
        Arc::new(OutboxService {
            data_dir,
            exact,
            tokens,
            serverdb,
            sync,
            stores,
            retry_wait,
            orgs: Mutex::default(),
            workers: Mutex::default(),
        })
    }

    /// The organization's outbox, opened (and its worker started) on first use.
    fn org(self: &Arc<Self>, division: i64) -> Result<Arc<OrgOutbox>> {
        if let Some(o) = self.orgs.lock().get(&division) {
            return Ok(o.clone());
        }
        let mut orgs = self.orgs.lock();
        if let Some(o) = orgs.get(&division) {
            return Ok(o.clone());
        }
        let db = OutboxDb::open(&store::path_of(&self.data_dir, division))?;
        let org = Arc::new(OrgOutbox { db, wake: Notify::new() });
        orgs.insert(division, org.clone());
        let service = self.clone();
        let worker = org.clone();
        self.workers.lock().push(tokio::spawn(async move { service.deliver_loop(division, worker).await }));
        Ok(org)
    }

    /// Starts the workers of every organization that has an outbox (after a restart).
    pub fn resume(self: &Arc<Self>) {
        for division in store::divisions_with_outbox(&self.data_dir) {
            if let Err(e) = self.org(division) {
                tracing::error!(division, error = %format!("{e:#}"), "cannot open an outbox");
            }
        }
    }

    /// Stops the workers; entries stay on disk and go on after the next start.
    pub fn stop(&self) {
        for w in self.workers.lock().drain(..) {
            w.abort();
        }
    }

    /// Stores the entries durably (in one transaction) and wakes the worker.
    pub fn enqueue(self: &Arc<Self>, division: i64, entries: Vec<Entry>) -> Result<Vec<Entry>> {
        let org = self.org(division)?;
        let stored = org.db.append(entries)?;
        org.wake.notify_one();
        Ok(stored)
    }

    pub fn list(self: &Arc<Self>, division: i64) -> Result<Vec<Entry>> {
        self.org(division)?.db.all()
    }

    /// How many writes are still to go (pending or sending) and how many the provider refused.
    pub fn counts(self: &Arc<Self>, division: i64) -> Result<QueueCounts> {
        Ok(QueueCounts::of(&self.list(division)?))
    }

    pub fn get(self: &Arc<Self>, division: i64, id: u64) -> Result<Option<Entry>> {
        self.org(division)?.db.get(id)
    }

    /// Sends a failed entry again. Answers the entry, or `None` if there is no such failed entry.
    pub fn retry(self: &Arc<Self>, division: i64, id: u64) -> Result<Option<Entry>> {
        let org = self.org(division)?;
        let Some(mut e) = org.db.get(id)?.filter(|e| e.state == State::Failed) else { return Ok(None) };
        e.state = State::Pending;
        e.attempts = 0;
        e.error = None;
        // The user checked a write of unknown outcome and chose to send it again.
        org.db.put(&e)?;
        org.wake.notify_one();
        Ok(Some(e))
    }

    /// Removes a failed or not yet sent entry. Answers whether one was removed.
    pub fn discard(self: &Arc<Self>, division: i64, id: u64) -> Result<bool> {
        let org = self.org(division)?;
        match org.db.get(id)? {
            Some(e) if matches!(e.state, State::Failed | State::Pending) => org.db.remove(id),
            _ => Ok(false),
        }
    }

    /// Waits up to `timeout` for an entry to be delivered or to fail.
    pub async fn wait_done(self: &Arc<Self>, division: i64, id: u64, timeout: Duration) -> Result<Option<Entry>> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let e = self.get(division, id)?;
            let done = e.as_ref().is_none_or(|e| matches!(e.state, State::Delivered | State::Failed));
            if done || tokio::time::Instant::now() >= deadline {
                return Ok(e);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn deliver_loop(self: Arc<Self>, division: i64, org: Arc<OrgOutbox>) {
        let mut touched = BTreeSet::new();
        loop {
            let next = match org.db.next_open() {
                Ok(n) => n,
                Err(e) => {
                    tracing::error!(division, error = %format!("{e:#}"), "cannot read the outbox");
                    tokio::time::sleep(NO_TOKEN_WAIT).await;
                    continue;
                }
            };
            let Some(entry) = next else {
                if !touched.is_empty() {
                    self.sync_tables(division, std::mem::take(&mut touched));
                }
                let _ = org.db.prune();
                org.wake.notified().await;
                continue;
            };
            let tables = entry.tables.clone();
            match self.deliver(division, &org, entry).await {
                Ok(true) => touched.extend(tables),
                Ok(false) => {}
                Err(e) => {
                    tracing::error!(division, error = %format!("{e:#}"), "cannot record an outbox entry");
                    tokio::time::sleep(self.retry_wait).await;
                }
            }
        }
    }

    /// One step for the oldest open entry. Answers whether it was delivered.
    async fn deliver(&self, division: i64, org: &OrgOutbox, mut entry: Entry) -> Result<bool> {
        let Some(token) = self.token_for(division, &entry).await else {
            entry.state = State::Pending;
            entry.error = Some("Waiting for a sign-in: there is no valid Exact Online token".into());
            org.db.put(&entry)?;
            let _ = tokio::time::timeout(NO_TOKEN_WAIT, org.wake.notified()).await;
            return Ok(false);
        };
        if entry.state == State::Sending {
            match self.reconcile(division, &token, &entry).await {
                Ok(Found::Yes) => {
                    tracing::info!(division, id = entry.id, action = %entry.action, "outbox: the provider already has it");
                    return self.delivered(org, entry, None).map(|_| true);
                }
                Ok(Found::No) => {}
                Ok(Found::CannotTell) => {
                    entry.state = State::Failed;
                    entry.error = Some(UNKNOWN_OUTCOME.into());
                    entry.done_ms = Some(now_ms());
                    org.db.put(&entry)?;
                    return Ok(false);
                }
                Err(e) => {
                    tracing::warn!(division, id = entry.id, error = %e, "outbox: cannot check an interrupted send yet");
                    tokio::time::sleep(self.retry_wait).await;
                    return Ok(false);
                }
            }
        }
        entry.state = State::Sending;
        entry.attempts += 1;
        entry.sent_ms = Some(now_ms());
        org.db.put(&entry)?;
        let result =
            self.exact.write_once(division, &token, entry.method.as_reqwest(), &entry.path, entry.body.as_ref()).await;
        match result {
            Ok(created) => {
                let key = created.iter().find(|(k, _)| is_key(k)).and_then(|(_, v)| v.as_str()).map(str::to_string);
                tracing::info!(division, id = entry.id, action = %entry.action, "outbox: delivered");
                self.delivered(org, entry, key).map(|_| true)
            }
            // A key that is already gone was deleted: that is what was asked.
            Err(ExactError::Rejected { status: 404, .. }) if entry.method == Method::Delete => {
                self.delivered(org, entry, None).map(|_| true)
            }
            Err(ExactError::Rejected { message, .. } | ExactError::Forbidden(message)) => {
                tracing::warn!(division, id = entry.id, action = %entry.action, %message, "outbox: refused by Exact Online");
                entry.state = State::Failed;
                entry.error = Some(message);
                entry.done_ms = Some(now_ms());
                org.db.put(&entry)?;
                Ok(false)
            }
            Err(ExactError::Unauthorized(_) | ExactError::NoToken) => {
                entry.state = State::Pending;
                entry.error = Some("Waiting for a sign-in: Exact Online refused the token".into());
                org.db.put(&entry)?;
                let _ = tokio::time::timeout(NO_TOKEN_WAIT, org.wake.notified()).await;
                Ok(false)
            }
            // 429: the provider did not take it, so it can simply go again.
            Err(ExactError::RateLimited) => {
                entry.state = State::Pending;
                entry.error = Some("Waiting for Exact Online's call limit".into());
                org.db.put(&entry)?;
                tokio::time::sleep(self.retry_wait).await;
                Ok(false)
            }
            // Network trouble or a 5xx: it may have arrived. It stays "sending", so the next round
            // checks at the provider before sending again. Exact also answers some business
            // validation with a 500: after enough tries the user gets its message.
            Err(e) => {
                let message = e.provider_message().map(str::to_string).unwrap_or_else(|| e.to_string());
                tracing::warn!(division, id = entry.id, attempt = entry.attempts, error = %e, "outbox: send failed; will check and retry");
                if entry.attempts >= MAX_ATTEMPTS {
                    entry.state = State::Failed;
                    entry.done_ms = Some(now_ms());
                }
                entry.error = Some(message);
                org.db.put(&entry)?;
                tokio::time::sleep(self.retry_wait).await;
                Ok(false)
            }
        }
    }

    fn delivered(&self, org: &OrgOutbox, mut entry: Entry, key: Option<String>) -> Result<()> {
        entry.state = State::Delivered;
        entry.error = None;
        entry.done_ms = Some(now_ms());
        entry.result_key = key.or(entry.result_key);
        org.db.put(&entry)
    }

    /// The writer's own token; the organization's token owner when the writer has none left.
    async fn token_for(&self, division: i64, entry: &Entry) -> Option<String> {
        if let Ok(t) = self.tokens.access_token(&entry.user).await {
            return Some(t);
        }
        let owner = self.serverdb.org_token_user(division).ok().flatten()?;
        self.tokens.access_token(&owner).await.ok()
    }

    async fn reconcile(&self, division: i64, token: &str, entry: &Entry) -> Result<Found, ExactError> {
        let (path, filter, select, status) = match &entry.reconcile {
            Reconcile::Idempotent => return Ok(Found::No),
            Reconcile::Unknown => return Ok(Found::CannotTell),
            Reconcile::Key { path, field, value } => (path, format!("{field} eq guid'{value}'"), field.clone(), None),
            Reconcile::Marker { path, field, marker } => {
                (path, format!("substringof('{}', {field}) eq true", marker.replace('\'', "''")), field.clone(), None)
            }
            Reconcile::Status { path, field, value, status } => {
                (path, format!("{field} eq guid'{value}'"), format!("{field},Status"), Some(*status))
            }
        };
        let url =
            self.exact.api_url(division, &format!("{path}?$filter={}&$select={select}", urlencoding::encode(&filter)));
        let rows = self.exact.get_all(division, token, &url).await?;
        let found = match status {
            None => !rows.is_empty(),
            Some(s) => rows.iter().any(|r| r.get("Status").and_then(Value::as_i64) == Some(s)),
        };
        Ok(if found { Found::Yes } else { Found::No })
    }

    /// Brings the provider's truth back into the store after writes (incremental sync).
    fn sync_tables(&self, division: i64, tables: BTreeSet<String>) {
        let endpoints: Vec<_> = tables.iter().filter_map(|t| catalogue::by_table(t)).filter(|e| e.is_sync()).collect();
        if endpoints.is_empty() {
            return;
        }
        let Some(user) = self.serverdb.org_token_user(division).ok().flatten() else { return };
        let store = match self.stores.get(division) {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(division, error = %e, "outbox: cannot open the store to sync");
                return;
            }
        };
        let sync = self.sync.clone();
        let token = OrgToken { tokens: self.tokens.clone(), user };
        tokio::spawn(async move {
            // A sync already running may have read before the write landed: wait and run ours.
            for _ in 0..120 {
                match sync.start(division, token.clone(), endpoints.clone(), store.clone() as Arc<dyn SyncSink>) {
                    Err(SyncError::AlreadyRunning) => tokio::time::sleep(Duration::from_millis(500)).await,
                    Err(e) => {
                        tracing::warn!(division, error = %e, "outbox: sync after writes not started");
                        return;
                    }
                    Ok(()) => return,
                }
            }
        });
    }
}

/// Key fields of created entities, as the provider names them.
fn is_key(field: &str) -> bool {
    matches!(field, "ID" | "StockTransactionId" | "TransferID" | "StockCountID" | "PurchaseOrderID" | "OrderID")
}
