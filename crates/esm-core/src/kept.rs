//! A value computed from a few tables of an organization's local copy, kept until one of them
//! changes (`OrgStore::tables_version`): the open purchase lines, Planning's material needs.

use crate::store::{OrgStore, StoreResult};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

pub struct Kept<T> {
    tables: &'static [&'static str],
    slots: Mutex<HashMap<i64, Arc<Slot<T>>>>,
}

/// One organization's value and the version of the tables it was made of.
type Slot<T> = Mutex<Option<(u64, Arc<T>)>>;

impl<T> Kept<T> {
    pub fn new(tables: &'static [&'static str]) -> Kept<T> {
        Kept { tables, slots: Mutex::default() }
    }

    /// The organization's value, made by `make` when it has none for the tables as they are now
    /// (blocking: run it off the async workers). Requests of one organization wait for each
    /// other, so a value is made once, not once per request.
    pub fn get(
        &self,
        division: i64,
        store: &OrgStore,
        make: impl FnOnce(&OrgStore) -> StoreResult<T>,
    ) -> StoreResult<Arc<T>> {
        let slot = self.slots.lock().entry(division).or_default().clone();
        let mut slot = slot.lock();
        // read before the rows: what is kept is never older than the version it is kept under
        let version = store.tables_version(self.tables);
        if let Some((v, value)) = slot.as_ref()
            && *v == version
        {
            return Ok(value.clone());
        }
        let value = Arc::new(make(store)?);
        *slot = Some((version, value.clone()));
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Commit, Stores};
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_value_is_made_again_only_when_its_tables_change() {
        let dir = tempfile::tempdir().unwrap();
        let store = Stores::new(dir.path(), crate::exact::catalogue::table_specs()).get(1).unwrap();
        let kept: Kept<usize> = Kept::new(&["items"]);
        let made = AtomicUsize::new(0);
        let count = |s: &OrgStore| {
            made.fetch_add(1, Ordering::SeqCst);
            s.row_count("items").map(|n| n as usize)
        };
        assert_eq!(*kept.get(1, &store, count).unwrap(), 0);
        assert_eq!(*kept.get(1, &store, count).unwrap(), 0);
        assert_eq!(made.load(Ordering::SeqCst), 1, "kept");
        let row = json!({"ID": "0123abcd-ef01-4a2b-8c3d-000000000001", "Timestamp": "1"});
        store.apply_batch("items", vec![row], Some(1), Commit::Durable).unwrap();
        assert_eq!(*kept.get(1, &store, count).unwrap(), 1, "made again after the change");
        let other = json!({"ID": "0123abcd-ef01-4a2b-8c3d-000000000002", "Timestamp": "1"});
        store.apply_batch("shopOrders", vec![other], Some(1), Commit::Durable).unwrap();
        assert_eq!(*kept.get(1, &store, count).unwrap(), 1);
        assert_eq!(made.load(Ordering::SeqCst), 2, "another table's change keeps it");
    }
}
