//! Secondary indexes: (normalised value, row key) entries, looked up by equality or range.

use super::error::StoreResult;
use super::query::eval::range_holds;
use super::query::parse::Op;
use super::tables::{IndexDef, index_name};
use super::value::{Literal, NormKey, TAG_OTHER};
#[cfg(test)]
use redb::ReadableTable;
use redb::{ReadTransaction, TableError};

type IndexTable = redb::ReadOnlyTable<(&'static [u8], &'static str), ()>;

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

/// Row keys whose `field` equals any of `literals`, sorted and without duplicates.
pub(crate) fn lookup_eq(
    txn: &ReadTransaction,
    table: &str,
    field: &str,
    literals: &[Literal],
) -> StoreResult<Vec<String>> {
    let mut keys: Vec<NormKey> = literals.iter().flat_map(|l| l.eq_keys.iter().cloned()).collect();
    keys.sort();
    keys.dedup();
    lookup_norm(txn, table, field, &keys)
}

/// Row keys whose `field` has one of the normalised `keys` (sorted, deduplicated).
pub(crate) fn lookup_norm(
    txn: &ReadTransaction,
    table: &str,
    field: &str,
    keys: &[NormKey],
) -> StoreResult<Vec<String>> {
    let Some(idx) = open(txn, table, field)? else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for k in keys {
        for entry in idx.range::<(&[u8], &str)>((k.as_slice(), "")..)? {
            let (ek, _) = entry?;
            let (value, row_key) = ek.value();
            if value != k.as_slice() {
                break;
            }
            out.push(row_key.to_string());
        }
    }
    if keys.len() > 1 {
        out.sort_unstable();
        out.dedup();
    }
    Ok(out)
}

/// Row keys whose `field` satisfies a range operator, sorted; `None` once more than `cap`
/// match, so that an unselective range falls back to filtering rows instead.
pub(crate) fn lookup_range(
    txn: &ReadTransaction,
    table: &str,
    field: &str,
    op: Op,
    literal: &Literal,
    cap: usize,
) -> StoreResult<Option<Vec<String>>> {
    let Some(idx) = open(txn, table, field)? else { return Ok(Some(Vec::new())) };
    let mut out = Vec::new();
    for bound in &literal.bounds {
        let tag = bound[0];
        let start: &[u8] = if matches!(op, Op::Gt | Op::Gte) { bound } else { &bound[..1] };
        for entry in idx.range::<(&[u8], &str)>((start, "")..)? {
            let (ek, _) = entry?;
            let (value, row_key) = ek.value();
            if value.first() != Some(&tag) {
                break;
            }
            if range_holds(op, value.cmp(bound.as_slice())) {
                out.push(row_key.to_string());
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

/// Every entry of an index, for consistency checks in tests.
#[cfg(test)]
pub(crate) fn all_entries(txn: &ReadTransaction, table: &str, field: &str) -> StoreResult<Vec<(NormKey, String)>> {
    let Some(idx) = open(txn, table, field)? else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for entry in idx.iter()? {
        let (ek, _) = entry?;
        let (v, k) = ek.value();
        out.push((v.to_vec(), k.to_string()));
    }
    Ok(out)
}
