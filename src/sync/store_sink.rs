//! The sync engine's sink over an organization's store: every batch and its timestamp in one
//! store transaction.

use super::sink::{RawRows, SyncSink};
use crate::exact::dropped;
use crate::store::{BulkLoad, Commit, DELETED_ENTRIES_TABLE, OrgStore, RowBatch};
use std::sync::Arc;

impl RowBatch for RawRows {
    fn rows(&self) -> Vec<&[u8]> {
        self.iter().collect()
    }
}

fn commit(durable: bool) -> Commit {
    if durable { Commit::Durable } else { Commit::Fast }
}

impl SyncSink for OrgStore {
    fn timestamp(&self, table: &str) -> anyhow::Result<Option<i64>> {
        Ok(self.sync_timestamp(table)?)
    }

    fn bulk_load(self: Arc<Self>, table: &str) -> anyhow::Result<BulkLoad> {
        Ok(OrgStore::bulk_load(&self, table)?)
    }

    fn apply_deletions(
        &self,
        log_rows: &RawRows,
        deletes: &[(&'static str, String)],
        newest: Option<i64>,
        durable: bool,
    ) -> anyhow::Result<()> {
        self.write(commit(durable), |w| {
            for (table, key) in deletes {
                w.delete_keys(table, &[key.as_str()])?;
            }
            w.upsert_raw_batch(DELETED_ENTRIES_TABLE, &log_rows.rows(), newest)?;
            Ok(())
        })?;
        Ok(())
    }

    fn set_last_sync(&self, when: &str) -> anyhow::Result<()> {
        OrgStore::set_last_sync(self, when)?;
        Ok(())
    }

    fn row_count(&self, table: &str) -> anyhow::Result<u64> {
        Ok(OrgStore::row_count(self, table)?)
    }

    fn expanded_with(&self, table: &str) -> anyhow::Result<Option<String>> {
        Ok(self
            .kv_get(&expanded_key(table))?
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .filter(|s| !s.is_empty()))
    }

    fn set_expanded_with(&self, table: &str, expand: &str) -> anyhow::Result<()> {
        Ok(self.kv_put(&expanded_key(table), expand.as_bytes())?)
    }

    fn dropped_properties(&self, endpoint: &str) -> anyhow::Result<Vec<String>> {
        Ok(dropped::of(self, endpoint)?)
    }

    fn drop_property(&self, endpoint: &str, property: &str) -> anyhow::Result<bool> {
        Ok(dropped::record(self, endpoint, property)?)
    }
}

/// Under the cache prefix: a store rebuilt for a new schema forgets it with the rows.
fn expanded_key(table: &str) -> String {
    format!("{}sync_expand/{table}", crate::store::meta::KV_CACHE_PREFIX)
}
