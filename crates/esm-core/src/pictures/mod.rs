//! Item pictures, stored per organization (spec §7, §9). After an items sync the items' picture
//! URLs are compared with what is stored: changed pictures are fetched from the provider in
//! batches of 20 with 200 ms pauses (20 s wait after an error, then on), items whose URL is the
//! provider's placeholder (or empty) lose their stored picture, unchanged ones are left alone.
//! A thumbnail is made here when the provider has none. The HTTP side is the product crate's `api::pictures`.

pub mod plan;
pub mod store;
pub mod thumbnail;

use crate::exact::oauth::now_ms;
use crate::exact::tokens::{TokenManager, UserToken};
use crate::exact::{ExactClient, ExactError, Waits};
use crate::serverdb::ServerDb;
use crate::store::Stores;
use crate::sync::SyncEvent;
use anyhow::{Context, Result, anyhow};
use parking_lot::Mutex;
use plan::{ItemPicture, Source, Want};
use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use store::{Image, Picture, PictureDb, Record};
use thumbnail::ImageError;
use tokio::sync::broadcast;

/// The local table whose sync triggers a pass.
const ITEMS_TABLE: &str = "items";
/// Rows read from the items table at a time while planning.
const ITEMS_PAGE: usize = 1000;

/// Batching and waits of the picture fetcher (spec §9); tests shorten them.
#[derive(Debug, Clone)]
pub struct PictureWaits {
    /// Pictures fetched together (spec: 20).
    pub batch: usize,
    /// Pause between two batches (spec: 200 ms).
    pub pause: Duration,
    /// Wait after a batch with a provider error before going on (spec: 20 s).
    pub error_wait: Duration,
    /// Times a picture is tried in one pass before it is left for the next pass.
    pub tries: u32,
    /// Batches in a row without a single success after which a pass gives up (provider down).
    pub failed_batches_to_stop: u32,
}

impl PictureWaits {
    /// The spec's figures, with the error wait of the provider client (20 s, shortened in tests).
    pub fn from_exact(waits: &Waits) -> Self {
        PictureWaits {
            batch: 20,
            pause: Duration::from_millis(200),
            error_wait: waits.read_retry,
            tries: 3,
            failed_batches_to_stop: 5,
        }
    }
}

/// Why a picture could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{0}")]
    Provider(#[from] ExactError),
    #[error("{0}")]
    Image(#[from] ImageError),
    #[error("{0}")]
    Url(String),
    /// The picture file could not be read or written.
    #[error("{0:#}")]
    Store(anyhow::Error),
}

impl FetchError {
    fn is_transient(&self) -> bool {
        matches!(self, FetchError::Provider(e) if e.is_transient())
    }
}

impl From<FetchError> for crate::error::AppError {
    fn from(e: FetchError) -> Self {
        use crate::error::{AppError, Code};
        match e {
            FetchError::Provider(p) => p.into(),
            FetchError::Image(i) => AppError::with_message(Code::Provider, format!("Exact Online's picture: {i}")),
            FetchError::Url(m) => AppError::bad_request(m),
            FetchError::Store(e) => AppError::internal(e),
        }
    }
}

/// What setting one picture did.
#[derive(Debug, Clone)]
pub enum SetOutcome {
    Stored(Box<Record>),
    /// The URL was the placeholder (or empty): the stored picture, if any, is removed.
    Removed(bool),
}

/// How the last pass of an organization went.
#[derive(Debug, Clone, Default, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = PicturePass)]
pub struct PassReport {
    pub started_ms: i64,
    pub finished_ms: i64,
    pub items: u64,
    pub fetched: u64,
    pub removed: u64,
    pub unchanged: u64,
    /// Pictures left for the next pass (refused, or still failing after their tries).
    pub failed: u64,
    /// Error waits taken.
    pub error_waits: u64,
    #[schema(required = true)]
    pub error: Option<String>,
}

/// The picture state of an organization (`GET /api/v1/pictures/status`).
#[derive(Debug, Clone, Default, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = PictureStatus)]
pub struct Status {
    pub running: bool,
    /// Another pass follows the running one (an items sync ended meanwhile).
    pub queued: bool,
    /// Passes finished since the server started.
    pub passes: u64,
    pub stored: u64,
    #[schema(required = true)]
    pub last: Option<PassReport>,
}

#[derive(Default)]
struct PassState {
    running: bool,
    queued: bool,
    prune_queued: bool,
    passes: u64,
    last: Option<PassReport>,
}

/// The picture stores of all organizations and their fetcher.
/// How often a pass waiting for a sync looks whether it has finished.
const SYNC_CHECK: Duration = Duration::from_secs(1);

pub struct PictureService {
    data_dir: PathBuf,
    exact: ExactClient,
    tokens: Arc<TokenManager>,
    serverdb: Arc<ServerDb>,
    stores: Arc<Stores>,
    waits: PictureWaits,
    dbs: Mutex<HashMap<i64, Arc<PictureDb>>>,
    passes: Mutex<HashMap<i64, PassState>>,
    tasks: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    /// Whether a sync of the organization runs now (set by `follow`): a pass waits for it.
    syncing: std::sync::OnceLock<Box<dyn Fn(i64) -> bool + Send + Sync>>,
}

impl PictureService {
    pub fn new(
        data_dir: PathBuf,
        exact: ExactClient,
        tokens: Arc<TokenManager>,
        serverdb: Arc<ServerDb>,
        stores: Arc<Stores>,
        waits: PictureWaits,
    ) -> Arc<Self> {
        Arc::new(PictureService {
            data_dir,
            exact,
            tokens,
            serverdb,
            stores,
            waits,
            dbs: Mutex::default(),
            passes: Mutex::default(),
            tasks: Mutex::default(),
            syncing: std::sync::OnceLock::new(),
        })
    }

    /// The organization's picture file, opened on first use.
    fn db(&self, division: i64) -> Result<Arc<PictureDb>> {
        let mut dbs = self.dbs.lock();
        if let Some(db) = dbs.get(&division) {
            return Ok(db.clone());
        }
        let db = Arc::new(PictureDb::open(&store::path_of(&self.data_dir, division))?);
        dbs.insert(division, db.clone());
        Ok(db)
    }

    /// Copies an organization's picture file consistently while it stays in use (backups).
    pub fn snapshot_to(&self, division: i64, dest: &std::path::Path) -> Result<()> {
        let db = self.db(division)?;
        crate::store::snapshot::copy_open_db(db.database(), &store::path_of(&self.data_dir, division), dest)
    }

    fn spawn(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        let mut tasks = self.tasks.lock();
        tasks.retain(|t| !t.is_finished());
        tasks.push(tokio::spawn(task));
    }

    /// Starts a pass after every items sync the engine reports. Subscribing to the engine's
    /// events keeps the sync engine unaware of pictures. While `syncing(division)` says a sync
    /// of the organization runs, a pass waits between its batches: pictures share the minute's
    /// calls with the sync, and fetched 20 at a time they took three quarters of them, so a first
    /// sync of a medium organization crawled at 10 calls a minute behind the thumbnails.
    pub fn follow(
        self: &Arc<Self>,
        mut events: broadcast::Receiver<SyncEvent>,
        syncing: impl Fn(i64) -> bool + Send + Sync + 'static,
    ) {
        let _ = self.syncing.set(Box::new(syncing));
        let service = self.clone();
        self.spawn(async move {
            loop {
                match events.recv().await {
                    Ok(e) if e.table == ITEMS_TABLE && e.done => service.request_pass(e.division, e.error.is_none()),
                    Ok(_) => {}
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        // Only progress events can be this many; the next items sync plans everything again.
                        tracing::warn!(missed = n, "picture fetcher fell behind the sync events");
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
        });
    }

    /// Stops the fetcher; stored pictures stay, unfinished work is redone after the next sync.
    pub fn stop(&self) {
        for t in self.tasks.lock().drain(..) {
            t.abort();
        }
    }

    /// Runs a pass for the organization now, or right after the one that is running. `prune`
    /// also removes pictures of items that are no longer in the items table.
    pub fn request_pass(self: &Arc<Self>, division: i64, prune: bool) {
        {
            let mut passes = self.passes.lock();
            let state = passes.entry(division).or_default();
            if state.running {
                state.queued = true;
                state.prune_queued |= prune;
                return;
            }
            state.running = true;
        }
        let service = self.clone();
        // A pass is background work: it leaves part of each minute's calls to writes and reads.
        self.spawn(crate::exact::rate_limit::in_background(async move {
            let mut prune = prune;
            loop {
                let report = service.run_pass(division, prune).await;
                let mut passes = service.passes.lock();
                let state = passes.entry(division).or_default();
                state.passes += 1;
                state.last = Some(report);
                if !state.queued {
                    state.running = false;
                    break;
                }
                state.queued = false;
                prune = std::mem::take(&mut state.prune_queued);
            }
        }));
    }

    pub fn status(&self, division: i64) -> Result<Status> {
        let stored = self.db(division)?.count()?;
        let passes = self.passes.lock();
        let state = passes.get(&division);
        Ok(Status {
            running: state.is_some_and(|s| s.running),
            queued: state.is_some_and(|s| s.queued),
            passes: state.map_or(0, |s| s.passes),
            stored,
            last: state.and_then(|s| s.last.clone()),
        })
    }

    async fn run_pass(&self, division: i64, prune: bool) -> PassReport {
        let mut report = PassReport { started_ms: now_ms(), ..PassReport::default() };
        if let Err(e) = self.pass(division, prune, &mut report).await {
            tracing::warn!(division, error = %format!("{e:#}"), "picture pass stopped");
            report.error = Some(format!("{e:#}"));
        }
        report.finished_ms = now_ms();
        tracing::info!(
            division,
            fetched = report.fetched,
            removed = report.removed,
            unchanged = report.unchanged,
            failed = report.failed,
            "picture pass finished"
        );
        report
    }

    async fn pass(&self, division: i64, prune: bool, report: &mut PassReport) -> Result<()> {
        let db = self.db(division)?;
        let items = self.items(division)?;
        report.items = items.len() as u64;
        let plan = plan::plan(items, &db.sources()?, prune);
        report.unchanged = plan.unchanged as u64;
        report.removed = db.remove_many(&plan.remove)? as u64;
        if plan.fetch.is_empty() {
            return Ok(());
        }
        let user = crate::auth::accounts::sync_user(&self.serverdb, &self.stores, &self.tokens, division)
            .ok_or_else(|| anyhow!("no account of this organization has a usable Exact Online sign-in"))?;
        let mut queue: VecDeque<(Want, u32)> = plan.fetch.into_iter().map(|w| (w, 0)).collect();
        let mut failing_batches = 0;
        let mut waited = true;
        while !queue.is_empty() {
            if !waited {
                tokio::time::sleep(self.waits.pause).await;
            }
            waited = false;
            while self.syncing.get().is_some_and(|syncing| syncing(division)) {
                tokio::time::sleep(SYNC_CHECK).await;
            }
            let batch: Vec<(Want, u32)> = queue.drain(..queue.len().min(self.waits.batch.max(1))).collect();
            let token = UserToken::checked(&self.tokens, &user).await.context("the organization's provider token")?;
            let results =
                futures_util::future::join_all(batch.iter().map(|(w, _)| self.fetch(division, &token, w))).await;
            let mut fetched = Vec::new();
            let mut transient = false;
            for ((want, tries), result) in batch.into_iter().zip(results) {
                match result {
                    Ok(p) => fetched.push(p),
                    Err(FetchError::Provider(e @ (ExactError::Unauthorized(_) | ExactError::NoToken))) => {
                        return Err(e.into());
                    }
                    Err(e) if e.is_transient() && tries + 1 < self.waits.tries => {
                        transient = true;
                        queue.push_back((want, tries + 1));
                    }
                    Err(e) => {
                        tracing::warn!(division, item = %want.item_id, error = %e, "picture not fetched");
                        report.failed += 1;
                    }
                }
            }
            db.put_many(&fetched)?;
            report.fetched += fetched.len() as u64;
            if transient {
                failing_batches = if fetched.is_empty() { failing_batches + 1 } else { 0 };
                if failing_batches >= self.waits.failed_batches_to_stop {
                    report.failed += queue.len() as u64;
                    return Err(anyhow!(
                        "Exact Online keeps failing; the pictures left are fetched after the next sync"
                    ));
                }
                report.error_waits += 1;
                tokio::time::sleep(self.waits.error_wait).await;
                waited = true;
            } else {
                failing_batches = 0;
            }
        }
        Ok(())
    }

    /// Every item's picture fields, from the organization's store.
    fn items(&self, division: i64) -> Result<Vec<ItemPicture>> {
        let store = self.stores.get(division)?;
        let mut out = Vec::new();
        let str_of = |row: &serde_json::Value, k: &str| row.get(k).and_then(|v| v.as_str()).map(str::to_string);
        loop {
            let page = store.query_str(
                ITEMS_TABLE,
                &format!(
                    "select=ID,PictureUrl,PictureThumbnailUrl,PictureName&offset={}&limit={ITEMS_PAGE}",
                    out.len()
                ),
            )?;
            let n = page.len();
            for row in page.to_values()? {
                let Some(id) = str_of(&row, "ID") else { continue };
                out.push(ItemPicture {
                    id,
                    url: str_of(&row, "PictureUrl"),
                    thumbnail_url: str_of(&row, "PictureThumbnailUrl"),
                    version: str_of(&row, "PictureName"),
                });
            }
            if n < ITEMS_PAGE {
                return Ok(out);
            }
        }
    }

    /// Only the configured provider host is called with a token, and only for this division.
    pub fn check_url(&self, division: i64, url: &str) -> Result<(), FetchError> {
        if !url.starts_with(&format!("{}/", self.exact.base_url())) {
            return Err(FetchError::Url(format!(
                "picture URLs must be on the provider host {}",
                self.exact.base_url()
            )));
        }
        let other_division = url::Url::parse(url)
            .map_err(|_| FetchError::Url("the picture URL is not a URL".into()))?
            .query_pairs()
            .any(|(k, v)| k.eq_ignore_ascii_case("_Division_") && v != division.to_string());
        if other_division {
            return Err(FetchError::Url("the picture URL belongs to another organization".into()));
        }
        Ok(())
    }

    /// Downloads a picture and its thumbnail (or makes one).
    async fn fetch(&self, division: i64, token: &UserToken, want: &Want) -> Result<Picture, FetchError> {
        self.check_url(division, &want.source.url)?;
        let (_, bytes) = self.exact.get_bytes(division, token, &want.source.url).await?;
        let content_type = thumbnail::sniff(&bytes)?;
        let provided = match &want.source.thumbnail_url {
            Some(t) => {
                self.check_url(division, t)?;
                match self.exact.get_bytes(division, token, t).await {
                    Ok((_, thumb)) => thumbnail::sniff(&thumb).ok().map(|ct| (thumb.to_vec(), ct)),
                    Err(e) if e.is_transient() || matches!(e, ExactError::Unauthorized(_)) => return Err(e.into()),
                    // A missing or odd thumbnail is no reason to go without the picture: make one.
                    Err(_) => None,
                }
            }
            None => None,
        };
        let bytes = bytes.to_vec();
        let (thumb, thumb_type, bytes) = match provided {
            Some((t, ct)) => (t, ct, bytes),
            None => {
                // Decoding and scaling is CPU work: keep it off the async workers.
                let made = tokio::task::spawn_blocking(move || thumbnail::make_thumbnail(&bytes).map(|t| (t, bytes)))
                    .await
                    .map_err(|e| FetchError::Image(ImageError::Decode(e.to_string())))??;
                let ((t, ct), bytes) = made;
                (t, ct, bytes)
            }
        };
        Ok(Picture {
            item_id: want.item_id.clone(),
            source: want.source.clone(),
            content_type: content_type.to_string(),
            bytes,
            thumbnail_content_type: thumb_type.to_string(),
            thumbnail: thumb,
            fetched_ms: now_ms(),
        })
    }

    /// Sets one item's picture from provider URLs; a placeholder or empty URL removes it.
    pub async fn set(
        &self,
        division: i64,
        token: &UserToken,
        item_id: &str,
        url: &str,
        thumbnail_url: Option<&str>,
    ) -> Result<SetOutcome, FetchError> {
        let key = plan::item_key(item_id);
        let Some(url) = plan::real_url(Some(url)) else {
            let removed = self.remove(division, std::slice::from_ref(&key)).map_err(internal)?;
            return Ok(SetOutcome::Removed(removed > 0));
        };
        let source = Source { url, thumbnail_url: plan::real_url(thumbnail_url), version: None };
        let picture = self.fetch(division, token, &Want { item_id: key.clone(), source }).await?;
        let db = self.db(division).map_err(internal)?;
        db.put_many(std::slice::from_ref(&picture)).map_err(internal)?;
        let record = db.record(&key).map_err(internal)?.ok_or_else(|| internal(anyhow!("stored picture vanished")))?;
        Ok(SetOutcome::Stored(Box::new(record)))
    }

    /// Sets several pictures in the spec's batches, with its pauses; one outcome per item.
    pub async fn set_many(
        &self,
        division: i64,
        token: &UserToken,
        items: &[(String, String, Option<String>)],
    ) -> Vec<Result<SetOutcome, FetchError>> {
        let mut out = Vec::with_capacity(items.len());
        for (i, chunk) in items.chunks(self.waits.batch.max(1)).enumerate() {
            if i > 0 {
                tokio::time::sleep(self.waits.pause).await;
            }
            let results = futures_util::future::join_all(
                chunk.iter().map(|(id, url, thumb)| self.set(division, token, id, url, thumb.as_deref())),
            )
            .await;
            out.extend(results);
        }
        out
    }

    /// Removes stored pictures; answers how many there were.
    pub fn remove(&self, division: i64, item_ids: &[String]) -> Result<usize> {
        self.db(division)?.remove_many(item_ids)
    }

    pub fn image(&self, division: i64, item_id: &str, thumbnail: bool) -> Result<Option<Image>> {
        self.db(division)?.image(item_id, thumbnail)
    }
}

fn internal(e: anyhow::Error) -> FetchError {
    FetchError::Store(e)
}
