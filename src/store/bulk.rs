//! Bulk loading for syncs: the provider's 500-row batches are coalesced into larger
//! transactions, each carrying the newest timestamp of the batches inside it.
//!
//! Still crash-safe: rows and the timestamp that covers them always commit together, so a
//! crash (or a dropped `BulkLoad`) loses only uncommitted batches *and* their timestamps,
//! and the next sync asks the provider for exactly those rows again.

use super::error::StoreResult;
use super::write::UpsertOutcome;
use super::{Commit, OrgStore};
use serde_json::Value;
use std::sync::Arc;

/// Rows gathered before one (non-fsynced) commit: large enough to amortise redb's
/// copy-on-write page writes, small enough to bound memory (~15 MB of item rows).
pub const BULK_ROWS: usize = 10_000;

/// An in-progress load of one table; call `finish` to commit the rest durably.
pub struct BulkLoad {
    store: Arc<OrgStore>,
    table: String,
    rows: Vec<Value>,
    newest: Option<i64>,
    outcome: UpsertOutcome,
}

impl BulkLoad {
    pub(crate) fn new(store: Arc<OrgStore>, table: &str) -> StoreResult<BulkLoad> {
        store.spec(table)?;
        Ok(BulkLoad {
            store,
            table: table.to_string(),
            rows: Vec::new(),
            newest: None,
            outcome: UpsertOutcome::default(),
        })
    }

    /// Adds a batch; commits (without fsync) once `BULK_ROWS` rows are waiting.
    pub fn push(&mut self, rows: Vec<Value>, newest_timestamp: Option<i64>) -> StoreResult<()> {
        self.rows.extend(rows);
        self.newest = self.newest.max(newest_timestamp);
        if self.rows.len() >= BULK_ROWS { self.commit(Commit::Fast) } else { Ok(()) }
    }

    /// Rows committed so far (buffered rows are not yet visible to readers).
    pub fn committed(&self) -> UpsertOutcome {
        self.outcome
    }

    /// Commits what is left and fsyncs, making every earlier commit durable too.
    pub fn finish(mut self) -> StoreResult<UpsertOutcome> {
        self.commit(Commit::Durable)?;
        Ok(self.outcome)
    }

    fn commit(&mut self, commit: Commit) -> StoreResult<()> {
        let rows = std::mem::take(&mut self.rows);
        let done = self.store.apply_batch(&self.table, rows, self.newest.take(), commit)?;
        self.outcome.inserted += done.inserted;
        self.outcome.updated += done.updated;
        Ok(())
    }
}
