//! Where a sync writes: the organization's store. A trait so the engine stays about the
//! protocol (paging, batches, timestamps) and the store about storage.

use crate::store::BulkLoad;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A provider row without `__metadata`.
pub type Row = Map<String, Value>;

/// Rows as the provider's JSON text, without `__metadata` (what a sync stores, unparsed).
pub use crate::exact::envelope::RawRows;

pub trait SyncSink: Send + Sync {
    /// The newest Timestamp stored for `table`, if it was ever synced.
    fn timestamp(&self, table: &str) -> anyhow::Result<Option<i64>>;

    /// Starts storing a table's batches: each batch's rows and the newest Timestamp among them
    /// commit in ONE transaction, so a crash never keeps a timestamp without its rows (a lost
    /// batch loses its timestamp with it and is fetched again).
    fn bulk_load(self: Arc<Self>, table: &str) -> anyhow::Result<BulkLoad>;

    /// Stores deletion-log rows, removes the deleted keys from their tables, and records `newest`
    /// as the deleted-entries timestamp, in one transaction.
    fn apply_deletions(
        &self,
        log_rows: &RawRows,
        deletes: &[(&'static str, String)],
        newest: Option<i64>,
        durable: bool,
    ) -> anyhow::Result<()>;

    /// Removes the rows of `groups` in `table` (grouped by `field`) stamped at or before
    /// `through`: what Exact no longer has once a complete read brought the groups' headers
    /// (`sync::groups`). Answers how many went.
    fn remove_stale_rows(&self, table: &str, field: &str, groups: &[&str], through: i64) -> anyhow::Result<usize>;

    /// Records the end of a sync run (local time, ISO 8601).
    fn set_last_sync(&self, when: &str) -> anyhow::Result<()>;

    /// Rows stored in `table`.
    fn row_count(&self, table: &str) -> anyhow::Result<u64>;

    /// The collections (`$expand`, comma-separated) the stored rows of `table` were read with;
    /// `None` when none were.
    fn expanded_with(&self, table: &str) -> anyhow::Result<Option<String>>;

    /// Records the collections a complete read of `table` brought with its rows.
    fn set_expanded_with(&self, table: &str, expand: &str) -> anyhow::Result<()>;

    /// The properties Exact removed from the provider `endpoint` (`crate::exact::dropped`).
    fn dropped_properties(&self, endpoint: &str) -> anyhow::Result<Vec<String>>;

    /// Remembers that Exact removed `property` from `endpoint`; answers whether it is new.
    fn drop_property(&self, endpoint: &str, property: &str) -> anyhow::Result<bool>;
}
