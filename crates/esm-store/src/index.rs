//! Secondary indexes: (normalised value, row id) entries, looked up by equality or range.

use super::error::StoreResult;
use super::query::eval::range_holds;
use super::query::parse::Op;
use super::tables::{IndexDef, KeysDef, RowId, index_name, keys_name};
use super::value::{Literal, NormKey, TAG_OTHER, is_guid};
#[cfg(test)]
use redb::ReadableTable;
use redb::{ReadTransaction, TableError};

type IndexTable = redb::ReadOnlyTable<(&'static [u8], RowId), ()>;

/// The index entry of a value, if it is indexable (arrays and objects are not).
pub(crate) fn entry_key(norm: NormKey) -> Option<NormKey> {
    (norm.first() != Some(&TAG_OTHER)).then_some(norm)
}

fn open(txn: &ReadTransaction, table: &str, field: &str) -> StoreResult<Option<IndexTable>> {
    let name = index_name(table, field);
    match txn.open_table(IndexDef::new(&name)) {
        Ok(t) => Ok(Some(t)),
        Err(TableError::TableDoesNotExist(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The row ids of rows keys (the key field's text), ascending: a guid matches in any case, since
/// keys are stored as the provider wrote them (lower case). Unknown keys are skipped.
pub(crate) fn row_ids_of_keys<'k>(
    txn: &ReadTransaction,
    table: &str,
    keys: impl IntoIterator<Item = &'k str>,
) -> StoreResult<Vec<RowId>> {
    let keys_t = match txn.open_table(KeysDef::new(&keys_name(table))) {
        Ok(t) => t,
        Err(TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let mut ids = Vec::new();
    for key in keys {
        let lower = is_guid(key).then(|| key.to_ascii_lowercase());
        for k in std::iter::once(key).chain(lower.as_deref()) {
            if let Some(id) = keys_t.get(k)? {
                ids.push(id.value());
            }
        }
    }
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

/// Row ids whose `field` has one of the normalised `keys` (sorted, deduplicated).
pub(crate) fn lookup_norm(
    txn: &ReadTransaction,
    table: &str,
    field: &str,
    keys: &[NormKey],
) -> StoreResult<Vec<RowId>> {
    let Some(idx) = open(txn, table, field)? else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    let mut runs = 0;
    for k in keys {
        let before = out.len();
        for entry in idx.range::<(&[u8], RowId)>((k.as_slice(), 0)..)? {
            let (ek, _) = entry?;
            let (value, row_key) = ek.value();
            if value != k.as_slice() {
                break;
            }
            out.push(row_key);
        }
        runs += usize::from(out.len() > before);
    }
    // One value's entries come in row-id order already; only a merge of several needs a sort.
    if runs > 1 {
        out.sort_unstable();
        out.dedup();
    }
    Ok(out)
}

/// Visits the row ids under one value of an index, ascending.
pub(crate) fn visit_value(
    txn: &ReadTransaction,
    table: &str,
    field: &str,
    value: &[u8],
    visit: &mut dyn FnMut(RowId),
) -> StoreResult<()> {
    let Some(idx) = open(txn, table, field)? else { return Ok(()) };
    for entry in idx.range::<(&[u8], RowId)>((value, 0)..)? {
        let (ek, _) = entry?;
        let (v, key) = ek.value();
        if v != value {
            break;
        }
        visit(key);
    }
    Ok(())
}

/// Row ids whose `field` satisfies a range operator, sorted; `None` once more than `cap`
/// match, so that an unselective range falls back to filtering rows instead.
pub(crate) fn lookup_range(
    txn: &ReadTransaction,
    table: &str,
    field: &str,
    op: Op,
    literal: &Literal,
    cap: usize,
) -> StoreResult<Option<Vec<RowId>>> {
    let Some(idx) = open(txn, table, field)? else { return Ok(Some(Vec::new())) };
    let mut out = Vec::new();
    for bound in &literal.bounds {
        let tag = bound[0];
        let start: &[u8] = if matches!(op, Op::Gt | Op::Gte) { bound } else { &bound[..1] };
        for entry in idx.range::<(&[u8], RowId)>((start, 0)..)? {
            let (ek, _) = entry?;
            let (value, row_key) = ek.value();
            if value.first() != Some(&tag) {
                break;
            }
            if range_holds(op, value.cmp(bound.as_slice())) {
                out.push(row_key);
                if out.len() > cap {
                    return Ok(None);
                }
            } else if matches!(op, Op::Lt | Op::Lte) {
                break;
            }
        }
    }
    out.sort_unstable();
    Ok(Some(out))
}

/// Every entry of an index with its row's key, for consistency checks in tests.
#[cfg(test)]
pub(crate) fn all_entries(txn: &ReadTransaction, table: &str, field: &str) -> StoreResult<Vec<(NormKey, String)>> {
    let Some(idx) = open(txn, table, field)? else { return Ok(Vec::new()) };
    let keys_t = txn.open_table(super::tables::KeysDef::new(&super::tables::keys_name(table)))?;
    let mut key_of = std::collections::HashMap::new();
    for entry in keys_t.iter()? {
        let (k, id) = entry?;
        key_of.insert(id.value(), k.value().to_string());
    }
    let mut out = Vec::new();
    for entry in idx.iter()? {
        let (ek, _) = entry?;
        let (v, id) = ek.value();
        out.push((v.to_vec(), key_of.get(&id).cloned().unwrap_or_else(|| format!("<no key for row {id}>"))));
    }
    Ok(out)
}

/// Visits row ids in the order of `field` (ties by ascending row id, nulls where asked)
/// until `visit` returns false. Arrays and objects are not indexed, so rows holding one in
/// `field` are not visited; the provider's indexed fields are always scalars.
pub(crate) fn walk_ordered(
    txn: &ReadTransaction,
    table: &str,
    field: &str,
    desc: bool,
    nulls_first: bool,
    visit: &mut dyn FnMut(RowId) -> StoreResult<bool>,
) -> StoreResult<()> {
    let Some(idx) = open(txn, table, field)? else { return Ok(()) };
    let null_key: &[u8] = &[super::value::TAG_NULL];
    let first_value: &[u8] = &[super::value::TAG_BOOL];
    let nulls = |visit: &mut dyn FnMut(RowId) -> StoreResult<bool>| -> StoreResult<bool> {
        for entry in idx.range::<(&[u8], RowId)>((null_key, 0)..(first_value, 0))? {
            let (ek, _) = entry?;
            if !visit(ek.value().1)? {
                return Ok(false);
            }
        }
        Ok(true)
    };
    let values = |visit: &mut dyn FnMut(RowId) -> StoreResult<bool>| -> StoreResult<bool> {
        let range = idx.range::<(&[u8], RowId)>((first_value, 0)..)?;
        if !desc {
            for entry in range {
                let (ek, _) = entry?;
                if !visit(ek.value().1)? {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        // Walking backwards yields equal values' keys descending: replay each run reversed.
        let mut run_value: Vec<u8> = Vec::new();
        let mut run: Vec<RowId> = Vec::new();
        for entry in range.rev() {
            let (ek, _) = entry?;
            let (value, key) = ek.value();
            if value != run_value.as_slice() {
                for k in run.drain(..).rev() {
                    if !visit(k)? {
                        return Ok(false);
                    }
                }
                run_value = value.to_vec();
            }
            run.push(key);
        }
        for k in run.drain(..).rev() {
            if !visit(k)? {
                return Ok(false);
            }
        }
        Ok(true)
    };
    if nulls_first {
        if nulls(visit)? {
            values(visit)?;
        }
    } else if values(visit)? {
        nulls(visit)?;
    }
    Ok(())
}

type IndexRange = redb::Range<'static, (&'static [u8], RowId), ()>;

/// Linear steps a cursor takes towards a key before it jumps there with a fresh range.
const SEEK_STEPS: usize = 4;

/// The entries of one index value, read in row-id order.
struct Cursor {
    idx: IndexTable,
    value: NormKey,
    iter: IndexRange,
    current: RowId,
}

impl Cursor {
    /// Moves to the next row id; false once the value's entries are exhausted.
    fn advance(&mut self) -> StoreResult<bool> {
        let Some(entry) = self.iter.next() else { return Ok(false) };
        let (ek, _) = entry?;
        let (value, key) = ek.value();
        if value != self.value.as_slice() {
            return Ok(false);
        }
        self.current = key;
        Ok(true)
    }

    fn seek(&mut self, target: RowId) -> StoreResult<bool> {
        // Near ids are a few steps away; far ones are one B-tree descent away.
        for _ in 0..SEEK_STEPS {
            if self.current >= target {
                return Ok(true);
            }
            if !self.advance()? {
                return Ok(false);
            }
        }
        if self.current >= target {
            return Ok(true);
        }
        self.iter = self.idx.range::<(&[u8], RowId)>((self.value.as_slice(), target)..)?;
        self.advance()
    }
}

/// Row ids present under every (field, value) pair, streamed in ascending order by a
/// merge join of the index entries: no candidate lists are built, and a page stops early.
pub(crate) struct MergeKeys {
    cursors: Vec<Cursor>,
    started: bool,
    done: bool,
}

impl MergeKeys {
    /// None when some pair has no entries at all (the answer is empty).
    pub(crate) fn open(
        txn: &ReadTransaction,
        table: &str,
        pairs: &[(&str, NormKey)],
    ) -> StoreResult<Option<MergeKeys>> {
        let mut cursors = Vec::with_capacity(pairs.len());
        for (field, value) in pairs {
            let Some(idx) = open(txn, table, field)? else { return Ok(None) };
            let iter = idx.range::<(&[u8], RowId)>((value.as_slice(), 0)..)?;
            cursors.push(Cursor { idx, value: value.clone(), iter, current: 0 });
        }
        Ok(Some(MergeKeys { cursors, started: false, done: pairs.is_empty() }))
    }

    pub(crate) fn next_key(&mut self) -> StoreResult<Option<RowId>> {
        if self.done {
            return Ok(None);
        }
        let advanced = if self.started {
            self.cursors[0].advance()?
        } else {
            self.started = true;
            let mut ok = true;
            for c in &mut self.cursors {
                ok &= c.advance()?;
            }
            ok
        };
        if !advanced {
            self.done = true;
            return Ok(None);
        }
        loop {
            // The largest current id is the next possible match; every cursor seeks to it.
            let target = self.cursors.iter().map(|c| c.current).max().unwrap_or_default();
            let mut agreed = true;
            for c in &mut self.cursors {
                if !c.seek(target)? {
                    self.done = true;
                    return Ok(None);
                }
                agreed &= c.current == target;
            }
            if agreed {
                return Ok(Some(target));
            }
        }
    }
}

/// The values of `literals` that have entries in the index (at most a few probes).
pub(crate) fn live_keys(
    txn: &ReadTransaction,
    table: &str,
    field: &str,
    literals: &[Literal],
) -> StoreResult<Vec<NormKey>> {
    let Some(idx) = open(txn, table, field)? else { return Ok(Vec::new()) };
    let mut keys: Vec<NormKey> = literals.iter().flat_map(|l| l.eq_keys.iter().cloned()).collect();
    keys.sort();
    keys.dedup();
    let mut live = Vec::new();
    for k in keys {
        if let Some(entry) = idx.range::<(&[u8], RowId)>((k.as_slice(), 0)..)?.next() {
            let (ek, _) = entry?;
            if ek.value().0 == k.as_slice() {
                live.push(k);
            }
        }
    }
    Ok(live)
}
