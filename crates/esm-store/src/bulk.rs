//! Bulk loading for syncs: a table's batches are written into one write transaction that stays
//! open while batches keep coming, on a thread of the load's own, and commits every `Pace`.
//!
//! Why: redb copies every B-tree page a transaction touches. A sync's rows arrive in Timestamp
//! order, so their keys (guids) and index values land on random pages, and a transaction of a
//! few thousand rows copies about one page per row and index. The longer a transaction, the
//! more of its rows share pages already copied: 100k-row transactions store a large table about
//! twice as fast as 10k-row ones, and nothing is buffered outside redb's own bounded cache.
//!
//! Still crash-safe: each batch raises the table's timestamp in the same transaction as its
//! rows, so a crash (or a dropped `BulkLoad`) loses uncommitted rows only *together with* their
//! timestamp, and the next sync asks the provider for exactly those rows again.
//!
//! Other writers of the store wait while a load's transaction is open, so it never stays open
//! for long: it commits after `Pace::commit_after` and as soon as no batch came for
//! `Pace::idle` (a sync waiting for the provider holds no transaction).

use super::error::{StoreError, StoreResult};
use super::write::UpsertOutcome;
use super::{Commit, OrgStore};
use redb::WriteTransaction;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Rows per transaction for paths that gather rows before one commit (deleted entries).
pub const BULK_ROWS: usize = 10_000;

/// Rows of a batch, as JSON object text (without `__metadata`).
pub trait RowBatch: Send + 'static {
    fn rows(&self) -> Vec<&[u8]>;
}

impl RowBatch for Vec<Vec<u8>> {
    fn rows(&self) -> Vec<&[u8]> {
        self.iter().map(Vec::as_slice).collect()
    }
}

/// When a load's open transaction commits.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    /// Rows after which it commits.
    pub commit_rows: usize,
    /// Age after which it commits: bounds how long other writers wait, and what a crash redoes.
    pub commit_after: Duration,
    /// Quiet time after which it commits.
    pub idle: Duration,
}

impl Default for Pace {
    fn default() -> Self {
        Pace { commit_rows: 100_000, commit_after: Duration::from_secs(2), idle: Duration::from_millis(100) }
    }
}

enum Msg {
    Rows(Box<dyn RowBatch>, Option<i64>),
    Finish(Option<i64>),
}

/// An in-progress load of one table; `finish` commits the rest durably. Dropping it undoes
/// what it had not committed yet.
pub struct BulkLoad {
    tx: Option<flume::Sender<Msg>>,
    thread: Option<std::thread::JoinHandle<StoreResult<UpsertOutcome>>>,
}

impl BulkLoad {
    pub(crate) fn start(store: Arc<OrgStore>, table: &str, pace: Pace) -> StoreResult<BulkLoad> {
        store.spec(table)?;
        // One batch waits while the loader stores the one before: the sync fetches ahead by one.
        let (tx, rx) = flume::bounded(1);
        let name = table.to_string();
        let thread = std::thread::Builder::new().name(format!("load-{table}")).spawn(move || {
            Loader { store: &store, table: &name, pace, open: None, stored: Default::default() }.run(&rx)
        })?;
        Ok(BulkLoad { tx: Some(tx), thread: Some(thread) })
    }

    /// Hands a batch and the newest Timestamp it holds (None: raise nothing) to the loader;
    /// blocks while the loader is busy. Fails with the loader's error once it stopped.
    pub fn push(&mut self, rows: impl RowBatch, newest: Option<i64>) -> StoreResult<()> {
        let sent = self.tx.as_ref().is_some_and(|tx| tx.send(Msg::Rows(Box::new(rows), newest)).is_ok());
        self.sent(sent)
    }

    /// `push` for async callers: waits without blocking the runtime.
    pub async fn push_async(&mut self, rows: impl RowBatch, newest: Option<i64>) -> StoreResult<()> {
        let sent = match &self.tx {
            Some(tx) => tx.send_async(Msg::Rows(Box::new(rows), newest)).await.is_ok(),
            None => false,
        };
        self.sent(sent)
    }

    /// A send fails only once the loader stopped: then its error is the answer.
    fn sent(&mut self, sent: bool) -> StoreResult<()> {
        if sent { Ok(()) } else { Err(self.stopped()) }
    }

    /// Commits what is left and fsyncs (every earlier commit becomes durable with it), raising
    /// the timestamp to `newest` if given; answers the rows stored by the whole load.
    pub fn finish(mut self, newest: Option<i64>) -> StoreResult<UpsertOutcome> {
        if let Some(tx) = self.tx.take() {
            // A failed send means the loader stopped; joining it tells why.
            let _ = tx.send(Msg::Finish(newest));
        }
        self.join()
    }

    /// The loader's outcome once it ended (it ends on an error, on `finish`, or when dropped).
    fn join(&mut self) -> StoreResult<UpsertOutcome> {
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(StoreError::LoadStopped("its writer panicked".into())),
            None => Err(StoreError::LoadStopped("it has ended".into())),
        }
    }

    fn stopped(&mut self) -> StoreError {
        self.tx = None;
        match self.join() {
            Err(e) => e,
            Ok(_) => StoreError::LoadStopped("its writer ended early".into()),
        }
    }
}

impl Drop for BulkLoad {
    fn drop(&mut self) {
        // Closing the channel makes the loader drop (undo) its open transaction and end.
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The open transaction and what it holds.
struct Open {
    txn: WriteTransaction,
    began: Instant,
    rows: usize,
    outcome: UpsertOutcome,
}

impl Open {
    fn new(txn: WriteTransaction) -> Open {
        Open { txn, began: Instant::now(), rows: 0, outcome: UpsertOutcome::default() }
    }
}

struct Loader<'a> {
    store: &'a OrgStore,
    table: &'a str,
    pace: Pace,
    open: Option<Open>,
    /// Rows of committed transactions.
    stored: UpsertOutcome,
}

impl Loader<'_> {
    fn run(mut self, rx: &flume::Receiver<Msg>) -> StoreResult<UpsertOutcome> {
        loop {
            let msg = if self.open.is_some() {
                match rx.recv_timeout(self.pace.idle) {
                    Ok(m) => m,
                    Err(flume::RecvTimeoutError::Timeout) => {
                        self.commit(Commit::Fast)?;
                        continue;
                    }
                    // Dropped without `finish`: the open transaction is undone with `self`.
                    Err(flume::RecvTimeoutError::Disconnected) => return Ok(self.stored),
                }
            } else {
                match rx.recv() {
                    Ok(m) => m,
                    Err(flume::RecvError::Disconnected) => return Ok(self.stored),
                }
            };
            match msg {
                Msg::Rows(rows, newest) => {
                    self.store_rows(rows.as_ref(), newest)?;
                    let due = self.open.as_ref().is_some_and(|o| {
                        o.rows >= self.pace.commit_rows || o.began.elapsed() >= self.pace.commit_after
                    });
                    if due {
                        self.commit(Commit::Fast)?;
                    }
                }
                Msg::Finish(newest) => {
                    if let Some(ts) = newest {
                        let (store, table) = (self.store, self.table);
                        store.in_txn(&self.open()?.txn, |w| w.set_timestamp(table, ts))?;
                    }
                    self.commit(Commit::Durable)?;
                    return Ok(self.stored);
                }
            }
        }
    }

    /// The open transaction, begun if none is.
    fn open(&mut self) -> StoreResult<&mut Open> {
        let open = match self.open.take() {
            Some(o) => o,
            None => Open::new(self.store.begin_write()?),
        };
        Ok(self.open.insert(open))
    }

    fn store_rows(&mut self, rows: &dyn RowBatch, newest: Option<i64>) -> StoreResult<()> {
        let refs = rows.rows();
        let (store, table) = (self.store, self.table);
        let open = self.open()?;
        // On an error the open transaction is dropped: its rows go, and their timestamps too.
        open.outcome += store.in_txn(&open.txn, |w| w.upsert_raw_batch(table, &refs, newest))?;
        open.rows += refs.len();
        Ok(())
    }

    /// Commits the open transaction; a durable commit is made even with none open, since it
    /// makes the earlier fast commits durable.
    fn commit(&mut self, commit: Commit) -> StoreResult<()> {
        match self.open.take() {
            Some(open) => {
                self.store.commit_write(open.txn, commit)?;
                self.stored += open.outcome;
            }
            None if commit == Commit::Durable => self.store.flush()?,
            None => {}
        }
        Ok(())
    }
}
