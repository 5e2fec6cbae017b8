//! A cache of index posting lists: the sorted row ids of one (table, field, value), kept in
//! memory so that an indexed `eq` page (warehouse + item group, say) intersects two sorted
//! lists instead of walking thousands of B-tree entries on every query.
//!
//! Consistency: every write transaction makes the store's generation odd before it commits
//! and even again after. A reader that sees the same even generation before and after
//! `begin_read` holds exactly that generation's snapshot, so it may use (and fill) the lists
//! tagged with it; any other reader walks the index as before. A write therefore makes every
//! cached list stale at once, and they are rebuilt on first use.

use super::error::StoreResult;
use super::index;
use super::tables::RowId;
use super::value::NormKey;
use parking_lot::Mutex;
use redb::ReadTransaction;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Memory the cached lists of one store may hold; past it the cache starts over.
const BUDGET_BYTES: usize = 32 * 1024 * 1024;
/// Lists longer than this are walked, not cached (they would crowd out the others).
const MAX_KEYS: usize = 200_000;

/// The row ids under one index value, ascending.
#[derive(Debug, Default)]
pub(crate) struct Postings {
    ids: Vec<RowId>,
}

impl Postings {
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    pub(crate) fn get(&self, i: usize) -> RowId {
        self.ids[i]
    }

    fn bytes(&self) -> usize {
        self.ids.len() * std::mem::size_of::<RowId>() + 64
    }

    /// The first position at or after `from` whose id is >= `target` (galloping search).
    fn seek(&self, from: usize, target: RowId) -> usize {
        let n = self.len();
        if from >= n || self.get(from) >= target {
            return from;
        }
        // get(lo) < target throughout; widen until get(hi) >= target or the end.
        let (mut lo, mut step) = (from, 1);
        let mut hi = from + 1;
        while hi < n && self.get(hi) < target {
            lo = hi;
            step *= 2;
            hi = (hi + step).min(n);
        }
        lo + 1 + self.ids[lo + 1..hi.min(n)].partition_point(|&id| id < target)
    }
}

type Key = (String, String, NormKey);

#[derive(Default)]
struct Lists {
    generation: u64,
    bytes: usize,
    map: HashMap<Key, Arc<Postings>>,
}

/// One store's posting lists and its write generation.
#[derive(Default)]
pub(crate) struct PostingCache {
    generation: AtomicU64,
    lists: Mutex<Lists>,
}

/// A read transaction and, when it is exactly a known generation's snapshot, that generation.
pub(crate) struct Snapshot<'c> {
    pub(crate) txn: ReadTransaction,
    cache: Option<(&'c PostingCache, u64)>,
}

impl PostingCache {
    /// Runs a commit between the two generation bumps that fence it from readers.
    pub(crate) fn fence<R>(&self, commit: impl FnOnce() -> R) -> R {
        self.generation.fetch_add(1, Ordering::SeqCst);
        let result = commit();
        self.generation.fetch_add(1, Ordering::SeqCst);
        result
    }

    pub(crate) fn begin_read(&self, db: &redb::Database) -> StoreResult<Snapshot<'_>> {
        use redb::ReadableDatabase;
        let before = self.generation.load(Ordering::SeqCst);
        let txn = db.begin_read()?;
        let after = self.generation.load(Ordering::SeqCst);
        let cache = (before == after && before.is_multiple_of(2)).then_some((self, before));
        Ok(Snapshot { txn, cache })
    }
}

impl Snapshot<'_> {
    /// The row ids of `field = value` in `table`, from the cache or the index.
    pub(crate) fn postings(&self, table: &str, field: &str, value: &NormKey) -> StoreResult<Arc<Postings>> {
        let Some((cache, generation)) = self.cache else { return load(&self.txn, table, field, value) };
        let key: Key = (table.to_string(), field.to_string(), value.clone());
        {
            let lists = cache.lists.lock();
            if lists.generation == generation
                && let Some(p) = lists.map.get(&key)
            {
                return Ok(p.clone());
            }
        }
        let list = load(&self.txn, table, field, value)?;
        if list.len() <= MAX_KEYS {
            let mut lists = cache.lists.lock();
            if lists.generation != generation {
                // Lists of another generation are stale (older) or ours is (newer): only a
                // newer reader may start the cache over.
                if lists.generation > generation {
                    return Ok(list);
                }
                *lists = Lists { generation, ..Default::default() };
            }
            if lists.bytes + list.bytes() > BUDGET_BYTES {
                lists.map.clear();
                lists.bytes = 0;
            }
            lists.bytes += list.bytes();
            lists.map.insert(key, list.clone());
        }
        Ok(list)
    }

    pub(crate) fn cached(&self) -> bool {
        self.cache.is_some()
    }
}

fn load(txn: &ReadTransaction, table: &str, field: &str, value: &NormKey) -> StoreResult<Arc<Postings>> {
    let mut p = Postings::default();
    index::visit_value(txn, table, field, value, &mut |id| p.ids.push(id))?;
    Ok(Arc::new(p))
}

/// Row ids present in every list, ascending, the first `max` of them: the shortest list
/// drives, the others gallop.
pub(crate) fn intersect(lists: &[Arc<Postings>], max: usize) -> Vec<RowId> {
    let Some(driver) = lists.iter().min_by_key(|l| l.len()) else { return Vec::new() };
    let mut pos = vec![0usize; lists.len()];
    let mut out = Vec::new();
    'keys: for i in 0..driver.len() {
        if out.len() >= max {
            break;
        }
        let k = driver.get(i);
        for (l, p) in lists.iter().zip(pos.iter_mut()) {
            if Arc::ptr_eq(l, driver) {
                continue;
            }
            *p = l.seek(*p, k);
            if *p >= l.len() {
                break 'keys;
            }
            if l.get(*p) != k {
                continue 'keys;
            }
        }
        out.push(k);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(ids: &[RowId]) -> Arc<Postings> {
        Arc::new(Postings { ids: ids.to_vec() })
    }

    #[test]
    fn intersection_gallops_to_the_common_ids() {
        let a = list(&[1, 3, 5, 7, 9, 11, 13]);
        let b = list(&[2, 3, 4, 5, 6, 11, 26]);
        let c = list(&[3, 11, 13]);
        assert_eq!(intersect(&[a.clone(), b.clone()], usize::MAX), [3, 5, 11]);
        assert_eq!(intersect(&[a.clone(), b.clone(), c.clone()], usize::MAX), [3, 11]);
        assert_eq!(intersect(&[a.clone(), list(&[])], usize::MAX), Vec::<RowId>::new());
        assert_eq!(intersect(&[a.clone(), a.clone()], usize::MAX).len(), 7);
        assert_eq!(intersect(&[a.clone(), b, c], 1), [3]);
        for t in [0, 1, 2, 8, 13, 14] {
            let at = a.seek(0, t);
            assert!((0..at).all(|i| a.get(i) < t) && (at..a.len()).all(|i| a.get(i) >= t), "{t}");
        }
    }
}
