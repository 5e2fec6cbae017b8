//! Per-organization meta data: sync timestamps, last sync, organization details, preferences,
//! row counts and a small key/value space for other modules.

use super::error::{StoreError, StoreResult};
use super::tables::{META, ROW_COUNTS, SYNC_TIMESTAMPS};
use redb::{ReadTransaction, ReadableTable, TableError, WriteTransaction};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The local table the provider's deleted entries are synced into.
pub const DELETED_ENTRIES_TABLE: &str = "deletedEntries";

pub(crate) const KEY_SCHEMA: &str = "schema";
const KEY_LAST_SYNC: &str = "last_sync";
const KEY_ORG: &str = "organization";

/// Organization details (spec §3). Preferences are free-form; `weekends_disabled` is one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrgDetails {
    pub uuid: String,
    pub division: i64,
    pub name: String,
    #[serde(default)]
    pub preferences: serde_json::Value,
}

impl OrgDetails {
    pub fn weekends_disabled(&self) -> bool {
        self.preferences.get("weekends_disabled").and_then(serde_json::Value::as_bool).unwrap_or(false)
    }
}

/// Sync bookkeeping as the organization details carry it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SyncState {
    /// Newest synced `Timestamp` per table (deleted entries excluded).
    pub timestamps: BTreeMap<String, i64>,
    /// Local ISO time of the last finished sync.
    pub last_sync: Option<String>,
    pub deleted_entries_sync_timestamp: Option<i64>,
}

pub(crate) fn get_raw(txn: &ReadTransaction, key: &str) -> StoreResult<Option<Vec<u8>>> {
    let t = match txn.open_table(META) {
        Ok(t) => t,
        Err(TableError::TableDoesNotExist(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    Ok(t.get(key)?.map(|g| g.value().to_vec()))
}

/// `kv` keys under this prefix describe cached provider data (when a live table was fetched): they
/// go with the rows in a rebuild.
pub const KV_CACHE_PREFIX: &str = "live_fetched/";

/// The meta entries that are users' settings, not a copy of provider data: organization details,
/// preferences and other modules' `kv` settings. A rebuild for a new schema carries them over;
/// sync timestamps, the last sync and cache stamps go with the rows, so the next sync is a full one.
pub(crate) fn settings(txn: &ReadTransaction) -> Vec<(String, Vec<u8>)> {
    let read = || -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let t = match txn.open_table(META) {
            Ok(t) => t,
            Err(TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let mut out = Vec::new();
        for entry in t.iter()? {
            let (k, v) = entry?;
            let key = k.value();
            let keep = key == KEY_ORG
                || key.starts_with("pref/")
                || key.strip_prefix("kv/").is_some_and(|k| !k.starts_with(KV_CACHE_PREFIX));
            if keep {
                out.push((key.to_string(), v.value().to_vec()));
            }
        }
        Ok(out)
    };
    read().unwrap_or_else(|e| {
        // An older layout of the meta table itself: nothing to carry, the users set it again.
        tracing::warn!(error = %e, "the old store's settings cannot be read; they are not carried over");
        Vec::new()
    })
}

pub(crate) fn put_raw(txn: &WriteTransaction, key: &str, value: &[u8]) -> StoreResult<()> {
    txn.open_table(META)?.insert(key, value)?;
    Ok(())
}

/// Inserts `value` under `key` unless the key holds a value already; answers that value then.
pub(crate) fn put_new_raw(txn: &WriteTransaction, key: &str, value: &[u8]) -> StoreResult<Option<Vec<u8>>> {
    let mut t = txn.open_table(META)?;
    let found = t.get(key)?.map(|g| g.value().to_vec());
    if found.is_none() {
        t.insert(key, value)?;
    }
    Ok(found)
}

/// What `put_new_bounded_raw` did.
#[derive(Debug, PartialEq, Eq)]
pub enum PutNew {
    Stored,
    /// The key held this value already; nothing was stored.
    Found(Vec<u8>),
    /// The prefix holds its most entries already; nothing was stored.
    Full,
}

/// `put_new_raw` that also refuses while `prefix` (which `key` starts with) holds `max` entries:
/// one transaction, so racing callers cannot pass the bound.
pub(crate) fn put_new_bounded_raw(
    txn: &WriteTransaction,
    prefix: &str,
    max: usize,
    key: &str,
    value: &[u8],
) -> StoreResult<PutNew> {
    let mut t = txn.open_table(META)?;
    if let Some(found) = t.get(key)? {
        return Ok(PutNew::Found(found.value().to_vec()));
    }
    let mut held = 0;
    for entry in t.range::<&str>(prefix..)? {
        let (k, _) = entry?;
        if !k.value().starts_with(prefix) {
            break;
        }
        held += 1;
        if held >= max {
            return Ok(PutNew::Full);
        }
    }
    t.insert(key, value)?;
    Ok(PutNew::Stored)
}

/// Every entry whose key starts with `prefix`, in key order.
pub fn scan_raw(txn: &ReadTransaction, prefix: &str) -> StoreResult<Vec<(String, Vec<u8>)>> {
    let t = match txn.open_table(META) {
        Ok(t) => t,
        Err(TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let mut out = Vec::new();
    for entry in t.range::<&str>(prefix..)? {
        let (k, v) = entry?;
        let Some(rest) = k.value().strip_prefix(prefix) else { break };
        out.push((rest.to_string(), v.value().to_vec()));
    }
    Ok(out)
}

/// Removes the entry; answers the value it held, if any.
pub(crate) fn delete_raw(txn: &WriteTransaction, key: &str) -> StoreResult<Option<Vec<u8>>> {
    Ok(txn.open_table(META)?.remove(key)?.map(|g| g.value().to_vec()))
}

pub(crate) fn get_json<T: serde::de::DeserializeOwned>(txn: &ReadTransaction, key: &str) -> StoreResult<Option<T>> {
    get_raw(txn, key)?
        .map(|b| serde_json::from_slice(&b).map_err(|e| StoreError::Corrupt(format!("meta '{key}': {e}"))))
        .transpose()
}

pub(crate) fn put_json<T: Serialize>(txn: &WriteTransaction, key: &str, value: &T) -> StoreResult<()> {
    let bytes = serde_json::to_vec(value).map_err(|e| StoreError::Corrupt(format!("meta '{key}': {e}")))?;
    put_raw(txn, key, &bytes)
}

pub(crate) fn last_sync_key() -> &'static str {
    KEY_LAST_SYNC
}

pub(crate) fn org_key() -> &'static str {
    KEY_ORG
}

pub(crate) fn pref_key(user: &str) -> String {
    format!("pref/{user}")
}

pub fn kv_key(key: &str) -> String {
    format!("kv/{key}")
}

pub(crate) fn timestamps(txn: &ReadTransaction) -> StoreResult<BTreeMap<String, i64>> {
    let t = match txn.open_table(SYNC_TIMESTAMPS) {
        Ok(t) => t,
        Err(TableError::TableDoesNotExist(_)) => return Ok(BTreeMap::new()),
        Err(e) => return Err(e.into()),
    };
    let mut out = BTreeMap::new();
    for entry in t.iter()? {
        let (k, v) = entry?;
        out.insert(k.value().to_string(), v.value());
    }
    Ok(out)
}

/// Keeps the newest timestamp: a replayed older batch never moves it back.
pub(crate) fn raise_timestamp(txn: &WriteTransaction, table: &str, ts: i64) -> StoreResult<()> {
    let mut t = txn.open_table(SYNC_TIMESTAMPS)?;
    let current = t.get(table)?.map(|g| g.value());
    if current.is_none_or(|c| ts > c) {
        t.insert(table, ts)?;
    }
    Ok(())
}

pub(crate) fn clear_timestamp(txn: &WriteTransaction, table: &str) -> StoreResult<()> {
    txn.open_table(SYNC_TIMESTAMPS)?.remove(table)?;
    Ok(())
}

pub(crate) fn row_count(txn: &ReadTransaction, table: &str) -> StoreResult<u64> {
    match txn.open_table(ROW_COUNTS) {
        Ok(t) => Ok(t.get(table)?.map_or(0, |g| g.value())),
        Err(TableError::TableDoesNotExist(_)) => Ok(0),
        Err(e) => Err(e.into()),
    }
}

pub(crate) fn add_row_count(txn: &WriteTransaction, table: &str, delta: i64) -> StoreResult<()> {
    if delta == 0 {
        return Ok(());
    }
    let mut t = txn.open_table(ROW_COUNTS)?;
    let current = t.get(table)?.map_or(0, |g| g.value());
    t.insert(table, current.saturating_add_signed(delta))?;
    Ok(())
}

pub(crate) fn set_row_count(txn: &WriteTransaction, table: &str, n: u64) -> StoreResult<()> {
    txn.open_table(ROW_COUNTS)?.insert(table, n)?;
    Ok(())
}
