//! The sync engine's sink over an organization's store: every batch and its timestamp in one
//! store transaction.

use super::groups::group_filter;
use super::sink::{RawRows, SyncSink};
use crate::exact::{catalogue, dropped};
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
        // A deleted record of a grouped stream (a purchase order) takes its rows with it.
        let mut grouped: Vec<(&str, String)> = Vec::new();
        for (table, key) in deletes {
            if let Some(field) = catalogue::by_table(table).and_then(|e| e.group_by) {
                grouped.extend(keys_where(self, table, &[group_filter(field, key)])?.into_iter().map(|k| (*table, k)));
            }
        }
        self.write(commit(durable), |w| {
            for (table, key) in
                deletes.iter().map(|(t, k)| (*t, k.as_str())).chain(grouped.iter().map(|(t, k)| (*t, k.as_str())))
            {
                w.delete_keys(table, &[key])?;
            }
            w.upsert_raw_batch(DELETED_ENTRIES_TABLE, &log_rows.rows(), newest)?;
            Ok(())
        })?;
        Ok(())
    }

    fn remove_stale_rows(&self, table: &str, field: &str, groups: &[&str], through: i64) -> anyhow::Result<usize> {
        let through = format!("lte.{through}");
        let mut stale = Vec::new();
        for group in groups {
            let (f, v) = group_filter(field, group);
            stale.extend(keys_where(self, table, &[(f, v), ("Timestamp".into(), through.clone())])?);
        }
        if stale.is_empty() {
            return Ok(0);
        }
        let keys: Vec<&str> = stale.iter().map(String::as_str).collect();
        Ok(self.write(Commit::Durable, |w| w.delete_keys(table, &keys))?)
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

/// The keys of the rows of `table` that match `pairs`.
fn keys_where(store: &OrgStore, table: &str, pairs: &[(String, String)]) -> anyhow::Result<Vec<String>> {
    let key = catalogue::by_table(table).map_or("ID", |e| e.key);
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Ok(store
        .all_rows(table, &pairs)?
        .iter()
        .filter_map(|row| row.get(key).and_then(|v| v.as_str()).map(str::to_string))
        .collect())
}

/// Under the cache prefix: a store rebuilt for a new schema forgets it with the rows.
fn expanded_key(table: &str) -> String {
    format!("{}sync_expand/{table}", crate::store::meta::KV_CACHE_PREFIX)
}
