//! The sync engine's sink over an organization's store: every batch and its timestamp in one
//! store transaction.

use super::sink::{Row, SyncSink};
use crate::store::{Commit, DELETED_ENTRIES_TABLE, OrgStore};
use serde_json::Value;

fn commit(durable: bool) -> Commit {
    if durable { Commit::Durable } else { Commit::Fast }
}

impl SyncSink for OrgStore {
    fn timestamp(&self, table: &str) -> anyhow::Result<Option<i64>> {
        Ok(self.sync_timestamp(table)?)
    }

    fn apply_batch(&self, table: &str, rows: Vec<Row>, newest: Option<i64>, durable: bool) -> anyhow::Result<()> {
        let rows = rows.into_iter().map(Value::Object).collect();
        OrgStore::apply_batch(self, table, rows, newest, commit(durable))?;
        Ok(())
    }

    fn apply_deletions(
        &self,
        log_rows: Vec<Row>,
        deletes: Vec<(&'static str, String)>,
        newest: Option<i64>,
        durable: bool,
    ) -> anyhow::Result<()> {
        self.write(commit(durable), |w| {
            for (table, key) in &deletes {
                w.delete_keys(table, &[key.as_str()])?;
            }
            w.upsert(DELETED_ENTRIES_TABLE, log_rows.into_iter().map(Value::Object).collect())?;
            if let Some(ts) = newest {
                w.set_timestamp(DELETED_ENTRIES_TABLE, ts)?;
            }
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
}
