//! Writes inside one redb transaction: upserts with index upkeep, deletes, clears, timestamps.

use super::error::{StoreError, StoreResult};
use super::fields::{Raw, extract, raw_str};
use super::index::entry_key;
use super::meta;
use super::packing::{Dict, dict_for_write, dict_in_write, pack, remove_dict, unpack};
use super::tables::{IndexDef, KeysDef, Registry, RowId, RowsDef, TableSpec, index_name, keys_name, rows_name};
use super::value::{NormKey, TAG_NULL, is_guid, norm_raw};
use redb::{ReadableTable, WriteTransaction};
use serde_json::Value;
use std::borrow::Cow;

/// A write transaction's view of the tables; everything done through one `Writer` commits
/// or vanishes together.
pub struct Writer<'t> {
    pub(crate) txn: &'t WriteTransaction,
    pub(crate) registry: &'t Registry,
    pub(crate) changes: &'t super::changes::TableChanges,
}

/// What an upsert did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UpsertOutcome {
    pub inserted: usize,
    pub updated: usize,
}

impl std::ops::AddAssign for UpsertOutcome {
    fn add_assign(&mut self, other: UpsertOutcome) {
        self.inserted += other.inserted;
        self.updated += other.updated;
    }
}

/// A row ready to write: its key, its bytes and its index entries (one per indexed field).
type Prepared<'a> = (Cow<'a, str>, &'a [u8], Vec<Option<NormKey>>);

/// The row key from the key field's raw text: a non-empty string (unescaped) or a number.
fn raw_key<'a>(spec: &TableSpec, raw: Option<Raw<'a>>) -> StoreResult<Cow<'a, str>> {
    let missing = || StoreError::MissingKey { table: spec.name.clone(), key: spec.key.clone() };
    let raw = raw.ok_or_else(missing)?;
    match raw.get().as_bytes().first() {
        Some(b'"') => raw_str(raw).filter(|s| !s.is_empty()).ok_or_else(missing),
        Some(b'-' | b'0'..=b'9') => Ok(Cow::Borrowed(raw.get())),
        _ => Err(missing()),
    }
}

/// The index entries of a stored row's indexed fields.
fn stored_entries(stored: &[u8], dict: Option<&Dict>, fields: &[&str]) -> StoreResult<Vec<Option<NormKey>>> {
    let bytes = unpack(stored, dict)?;
    let mut raw = vec![None; fields.len()];
    extract(&bytes, fields, &mut raw)?;
    Ok(raw.iter().map(|r| entry_key(r.map_or_else(|| vec![TAG_NULL], norm_raw))).collect())
}

/// Reads each row's key and index entries; the key first, then the indexed fields, so one
/// scan of each row finds them all.
fn prepare<'a>(spec: &TableSpec, fields: &[&'a str], rows: &[&'a [u8]]) -> StoreResult<Vec<Prepared<'a>>> {
    let mut wanted: Vec<&str> = vec![spec.key.as_str()];
    let slots: Vec<usize> = fields
        .iter()
        .map(|f| {
            wanted.iter().position(|w| w == f).unwrap_or_else(|| {
                wanted.push(f);
                wanted.len() - 1
            })
        })
        .collect();
    let mut raw = vec![None; wanted.len()];
    let mut prepared: Vec<Prepared<'a>> = Vec::with_capacity(rows.len());
    for &bytes in rows {
        extract(bytes, &wanted, &mut raw)?;
        let key = raw_key(spec, raw[0])?;
        let entries: Vec<Option<NormKey>> =
            slots.iter().map(|&i| entry_key(raw[i].map_or_else(|| vec![TAG_NULL], norm_raw))).collect();
        prepared.push((key, bytes, entries));
    }
    Ok(prepared)
}

/// Sorts the rows by key and keeps each key's last version. Keys in order touch each page of
/// the key table once; the sort is stable, so a key's last version stays last.
fn last_per_key(mut prepared: Vec<Prepared<'_>>) -> Vec<Prepared<'_>> {
    prepared.sort_by(|a, b| a.0.cmp(&b.0));
    let mut unique: Vec<Prepared<'_>> = Vec::with_capacity(prepared.len());
    for p in prepared {
        match unique.last_mut() {
            Some(last) if last.0 == p.0 => *last = p,
            _ => unique.push(p),
        }
    }
    unique
}

/// Writes rows to a table's row and key tables, counting what it inserted and updated.
struct RowPlacer<'t> {
    rows_t: redb::Table<'t, RowId, &'static [u8]>,
    keys_t: redb::Table<'t, &'static str, RowId>,
    /// The id the next new key takes.
    next_id: RowId,
    /// Reused buffer for packed rows.
    packed: Vec<u8>,
    outcome: UpsertOutcome,
}

impl<'t> RowPlacer<'t> {
    fn open(txn: &'t WriteTransaction, table: &str) -> StoreResult<Self> {
        let rows_t = txn.open_table(RowsDef::new(&rows_name(table)))?;
        let keys_t = txn.open_table(KeysDef::new(&keys_name(table)))?;
        let next_id: RowId = rows_t.last()?.map_or(1, |(k, _)| k.value() + 1);
        Ok(RowPlacer { rows_t, keys_t, next_id, packed: Vec::new(), outcome: UpsertOutcome::default() })
    }

    /// Stores one row; answers its id and, for a known key, the old row's index entries.
    fn place(
        &mut self,
        key: &str,
        bytes: &[u8],
        dict: &Dict,
        fields: &[&str],
    ) -> StoreResult<(RowId, Option<Vec<Option<NormKey>>>)> {
        // A new key takes the next id (one descent of the key table); a known key keeps its
        // id, so its row is overwritten where it is.
        let known = self.keys_t.insert(key, self.next_id)?.map(|g| g.value());
        let Some(id) = known else {
            let id = self.next_id;
            self.rows_t.insert(id, pack(bytes, dict, &mut self.packed))?;
            self.next_id += 1;
            self.outcome.inserted += 1;
            return Ok((id, None));
        };
        self.keys_t.insert(key, id)?;
        self.outcome.updated += 1;
        let old = self.rows_t.insert(id, pack(bytes, dict, &mut self.packed))?;
        let old_entries = match old {
            Some(old) if !fields.is_empty() => stored_entries(old.value(), Some(dict), fields)?,
            _ => vec![None; fields.len()],
        };
        Ok((id, Some(old_entries)))
    }
}

/// Index entries to remove and insert, one list per indexed field, gathered over a batch so
/// each index is written once, in key order.
struct IndexChanges {
    removals: Vec<Vec<(NormKey, RowId)>>,
    inserts: Vec<Vec<(NormKey, RowId)>>,
}

impl IndexChanges {
    fn new(fields: usize) -> Self {
        IndexChanges { removals: vec![Vec::new(); fields], inserts: vec![Vec::new(); fields] }
    }

    /// A row's entries changed from `old` (`None`: a new row) to `new`; unchanged ones are skipped.
    fn record(&mut self, id: RowId, old: Option<Vec<Option<NormKey>>>, new: Vec<Option<NormKey>>) {
        for (i, new) in new.into_iter().enumerate() {
            let before = old.as_ref().and_then(|o| o[i].clone());
            if old.is_some() && before == new {
                continue;
            }
            if let Some(o) = before {
                self.removals[i].push((o, id));
            }
            if let Some(v) = new {
                self.inserts[i].push((v, id));
            }
        }
    }

    /// Applies the entries in their own key order (new rows' entries go to the end of their
    /// value's run); a row's old and new entries differ, so removals and inserts never collide.
    fn apply(mut self, idx_t: &mut [redb::Table<'_, (&'static [u8], RowId), ()>]) -> StoreResult<()> {
        for (i, table) in idx_t.iter_mut().enumerate() {
            self.removals[i].sort_unstable();
            for (v, id) in &self.removals[i] {
                table.remove((v.as_slice(), *id))?;
            }
            self.inserts[i].sort_unstable();
            for (v, id) in &self.inserts[i] {
                table.insert((v.as_slice(), *id), ())?;
            }
        }
        Ok(())
    }
}

impl Writer<'_> {
    fn spec(&self, table: &str) -> StoreResult<&TableSpec> {
        self.registry.get(table).ok_or_else(|| StoreError::UnknownTable(table.to_string()))
    }

    /// Inserts or replaces rows by their key field (`__metadata` is dropped) and keeps the
    /// table's indexes and row count right.
    pub fn upsert(&mut self, table: &str, rows: Vec<Value>) -> StoreResult<UpsertOutcome> {
        let spec = self.spec(table)?;
        let mut encoded: Vec<Vec<u8>> = Vec::with_capacity(rows.len());
        for mut row in rows {
            let Some(obj) = row.as_object_mut() else {
                return Err(StoreError::MissingKey { table: table.to_string(), key: spec.key.clone() });
            };
            obj.remove("__metadata");
            encoded.push(serde_json::to_vec(&row).map_err(|e| StoreError::Corrupt(e.to_string()))?);
        }
        let refs: Vec<&[u8]> = encoded.iter().map(Vec::as_slice).collect();
        self.upsert_raw(table, &refs)
    }

    /// `upsert` of rows given as JSON object text (without `__metadata`), stored as given: the
    /// key and indexed fields are read from the text, nothing is parsed into values.
    pub fn upsert_raw(&mut self, table: &str, rows: &[&[u8]]) -> StoreResult<UpsertOutcome> {
        let spec = self.spec(table)?;
        let Some(&sample) = rows.first() else { return Ok(UpsertOutcome::default()) };
        self.changes.touch(table);
        let dict = dict_for_write(self.txn, table, sample)?;
        let mut placer = RowPlacer::open(self.txn, table)?;
        let idx_names: Vec<String> = spec.indexed.iter().map(|f| index_name(table, f)).collect();
        let mut idx_t =
            idx_names.iter().map(|n| self.txn.open_table(IndexDef::new(n))).collect::<Result<Vec<_>, _>>()?;
        let fields: Vec<&str> = spec.indexed.iter().map(String::as_str).collect();
        let unique = last_per_key(prepare(spec, &fields, rows)?);
        let mut changes = IndexChanges::new(fields.len());
        for (key, bytes, new_entries) in unique {
            let (id, old_entries) = placer.place(&key, bytes, &dict, &fields)?;
            changes.record(id, old_entries, new_entries);
        }
        changes.apply(&mut idx_t)?;
        let outcome = placer.outcome;
        drop(placer);
        drop(idx_t);
        meta::add_row_count(self.txn, table, outcome.inserted as i64)?;
        Ok(outcome)
    }

    /// A sync batch: `upsert_raw`, then the table's timestamp raised to the batch's newest.
    pub fn upsert_raw_batch(&mut self, table: &str, rows: &[&[u8]], newest: Option<i64>) -> StoreResult<UpsertOutcome> {
        let outcome = self.upsert_raw(table, rows)?;
        if let Some(ts) = newest {
            self.set_timestamp(table, ts)?;
        }
        Ok(outcome)
    }

    /// Deletes rows by key (and their index entries); returns how many existed.
    pub fn delete_keys(&mut self, table: &str, keys: &[&str]) -> StoreResult<usize> {
        let spec = self.spec(table)?;
        let dict = dict_in_write(self.txn, table)?;
        let (rows_name, keys_name) = (rows_name(table), keys_name(table));
        let mut rows_t = self.txn.open_table(RowsDef::new(&rows_name))?;
        let mut keys_t = self.txn.open_table(KeysDef::new(&keys_name))?;
        let idx_names: Vec<String> = spec.indexed.iter().map(|f| index_name(table, f)).collect();
        let mut idx_t =
            idx_names.iter().map(|n| self.txn.open_table(IndexDef::new(n))).collect::<Result<Vec<_>, _>>()?;
        let fields: Vec<&str> = spec.indexed.iter().map(String::as_str).collect();
        let mut deleted = 0usize;
        self.changes.touch(table);
        for key in keys {
            let Some(id) = keys_t.remove(*key)?.map(|g| g.value()) else { continue };
            let Some(old) = rows_t.remove(id)? else { continue };
            deleted += 1;
            if fields.is_empty() {
                continue;
            }
            let entries = stored_entries(old.value(), dict.as_ref(), &fields)?;
            drop(old);
            for (i, e) in entries.iter().enumerate() {
                if let Some(e) = e {
                    idx_t[i].remove((e.as_slice(), id))?;
                }
            }
        }
        drop(rows_t);
        drop(keys_t);
        drop(idx_t);
        meta::add_row_count(self.txn, table, -(deleted as i64))?;
        Ok(deleted)
    }

    /// Deletes rows named by the provider's deleted entries (`EntityKey`): guids match in any
    /// case, since keys are stored as the provider wrote them (lower case).
    pub fn delete_by_entity_keys(&mut self, table: &str, entity_keys: &[&str]) -> StoreResult<usize> {
        let mut keys: Vec<String> = Vec::with_capacity(entity_keys.len() * 2);
        for k in entity_keys {
            keys.push(k.to_string());
            if is_guid(k) {
                let lower = k.to_ascii_lowercase();
                if lower != *k {
                    keys.push(lower);
                }
            }
        }
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        self.delete_keys(table, &refs)
    }

    /// Empties a table, its indexes and its sync timestamp, so the next sync starts over.
    pub fn clear_table(&mut self, table: &str) -> StoreResult<()> {
        let spec = self.spec(table)?;
        self.changes.touch(table);
        let name = rows_name(table);
        self.txn.delete_table(RowsDef::new(&name))?;
        self.txn.open_table(RowsDef::new(&name))?;
        let name = keys_name(table);
        self.txn.delete_table(KeysDef::new(&name))?;
        self.txn.open_table(KeysDef::new(&name))?;
        for f in &spec.indexed {
            let n = index_name(table, f);
            self.txn.delete_table(IndexDef::new(&n))?;
            self.txn.open_table(IndexDef::new(&n))?;
        }
        remove_dict(self.txn, table)?;
        meta::set_row_count(self.txn, table, 0)?;
        meta::clear_timestamp(self.txn, table)
    }

    /// Drops a table gone from the layout: its rows, keys, indexes, dictionary, count and
    /// timestamp (`indexed`: the fields it had indexes on).
    pub(crate) fn drop_table(&mut self, table: &str, indexed: &[String]) -> StoreResult<()> {
        self.changes.touch(table);
        self.txn.delete_table(RowsDef::new(&rows_name(table)))?;
        self.txn.delete_table(KeysDef::new(&keys_name(table)))?;
        for f in indexed {
            self.txn.delete_table(IndexDef::new(&index_name(table, f)))?;
        }
        remove_dict(self.txn, table)?;
        meta::set_row_count(self.txn, table, 0)?;
        meta::clear_timestamp(self.txn, table)
    }

    /// Raises the table's sync timestamp (never lowers it).
    pub fn set_timestamp(&mut self, table: &str, timestamp: i64) -> StoreResult<()> {
        self.spec(table)?;
        meta::raise_timestamp(self.txn, table, timestamp)
    }

    /// Creates the tables of every spec so readers never meet a missing table.
    pub(crate) fn create_all(&mut self) -> StoreResult<()> {
        self.txn.open_table(super::tables::META)?;
        self.txn.open_table(super::tables::SYNC_TIMESTAMPS)?;
        self.txn.open_table(super::tables::ROW_COUNTS)?;
        self.txn.open_table(super::tables::DICTS)?;
        for spec in self.registry.specs() {
            self.txn.open_table(RowsDef::new(&rows_name(&spec.name)))?;
            self.txn.open_table(KeysDef::new(&keys_name(&spec.name)))?;
            for f in &spec.indexed {
                self.txn.open_table(IndexDef::new(&index_name(&spec.name, f)))?;
            }
        }
        Ok(())
    }
}
