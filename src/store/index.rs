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
    let mut runs = 0;
    for k in keys {
        let before = out.len();
        for entry in idx.range::<(&[u8], &str)>((k.as_slice(), "")..)? {
            let (ek, _) = entry?;
            let (value, row_key) = ek.value();
            if value != k.as_slice() {
                break;
            }
            out.push(row_key.to_string());
        }
        runs += usize::from(out.len() > before);
    }
    // One value's entries come in row-key order already; only a merge of several needs a sort.
    if runs > 1 {
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

/// Visits row keys in the order of `field` (ties by ascending row key, nulls where asked)
/// until `visit` returns false. Arrays and objects are not indexed, so rows holding one in
/// `field` are not visited; the provider's indexed fields are always scalars.
pub(crate) fn walk_ordered(
    txn: &ReadTransaction,
    table: &str,
    field: &str,
    desc: bool,
    nulls_first: bool,
    visit: &mut dyn FnMut(&str) -> StoreResult<bool>,
) -> StoreResult<()> {
    let Some(idx) = open(txn, table, field)? else { return Ok(()) };
    let null_key: &[u8] = &[super::value::TAG_NULL];
    let first_value: &[u8] = &[super::value::TAG_BOOL];
    let nulls = |visit: &mut dyn FnMut(&str) -> StoreResult<bool>| -> StoreResult<bool> {
        for entry in idx.range::<(&[u8], &str)>((null_key, "")..(first_value, ""))? {
            let (ek, _) = entry?;
            if !visit(ek.value().1)? {
                return Ok(false);
            }
        }
        Ok(true)
    };
    let values = |visit: &mut dyn FnMut(&str) -> StoreResult<bool>| -> StoreResult<bool> {
        let range = idx.range::<(&[u8], &str)>((first_value, "")..)?;
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
        let mut run: Vec<String> = Vec::new();
        for entry in range.rev() {
            let (ek, _) = entry?;
            let (value, key) = ek.value();
            if value != run_value.as_slice() {
                for k in run.drain(..).rev() {
                    if !visit(&k)? {
                        return Ok(false);
                    }
                }
                run_value = value.to_vec();
            }
            run.push(key.to_string());
        }
        for k in run.drain(..).rev() {
            if !visit(&k)? {
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
