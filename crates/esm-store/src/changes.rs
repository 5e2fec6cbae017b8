//! Which tables a store's writes changed: a count per table, raised once for every committed
//! transaction that wrote rows to it (an upsert, a delete, a clear), kept in memory.
//!
//! Services that keep something computed from a few tables (the Materials projection) compare
//! these counts to know whether their copy is still the store's, without reading a row: a sync
//! of the hour entries or a user's preferences leave the Materials tables' counts alone.
//!
//! A count is read before the rows it stands for, and raised only after the commit, so a copy
//! kept under a count is never older than that count's rows (at worst newer, which costs one
//! computation more, never a stale answer).

use parking_lot::Mutex;
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};

/// Each store opened in this process counts from a base of its own, so a store opened again
/// (deleted and made anew) never repeats a version a copy was kept under.
static NEXT_BASE: AtomicU64 = AtomicU64::new(1);

#[derive(Debug)]
pub(crate) struct TableChanges {
    base: u64,
    /// Tables the open write transaction wrote to (there is one writer at a time).
    pending: Mutex<BTreeSet<String>>,
    counts: Mutex<HashMap<String, u64>>,
}

impl Default for TableChanges {
    fn default() -> Self {
        TableChanges {
            base: NEXT_BASE.fetch_add(1, Ordering::Relaxed) << 32,
            pending: Mutex::default(),
            counts: Mutex::default(),
        }
    }
}

impl TableChanges {
    /// A write transaction begins: what an undone one wrote is forgotten.
    pub(crate) fn begin(&self) {
        self.pending.lock().clear();
    }

    pub(crate) fn touch(&self, table: &str) {
        let mut pending = self.pending.lock();
        if !pending.contains(table) {
            pending.insert(table.to_string());
        }
    }

    /// The open transaction committed: its tables' counts go up.
    pub(crate) fn committed(&self) {
        let tables = std::mem::take(&mut *self.pending.lock());
        let mut counts = self.counts.lock();
        for table in tables {
            *counts.entry(table).or_default() += 1;
        }
    }

    /// The sum of the tables' counts: it changes when any of them changes.
    pub(crate) fn version(&self, tables: &[&str]) -> u64 {
        let counts = self.counts.lock();
        self.base + tables.iter().map(|t| counts.get(*t).copied().unwrap_or(0)).sum::<u64>()
    }
}
