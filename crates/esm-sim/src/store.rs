//! The simulated provider's data: one table per stored entity, shared by its regular, sync and
//! bulk views, with a division-wide Timestamp bumped on every change and a Deleted log.

pub mod purchase_sync;

use crate::value::Val;
use esm_exact::schema::{self, Entity, Kind};
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

/// Storage table names for entities without a regular twin.
pub const STOCK_POSITIONS: &str = "sync/Inventory/StockPositions";
pub const SL_STOCK_POSITIONS: &str = "sync/Inventory/StorageLocationStockPositions";
pub const DELETED: &str = "sync/Deleted";

/// The table that holds an endpoint's rows.
pub fn table_of(e: &Entity) -> &'static str {
    match e.path {
        "manufacturing/ShopOrderMaterialPlanDetails" => "manufacturing/ShopOrderMaterialPlans",
        "inventory/ItemWarehouseStorageLocations" => SL_STOCK_POSITIONS,
        _ => e.twin.unwrap_or(e.path),
    }
}

/// Column layout of one table: the union of the fields of every view on it.
pub struct Layout {
    pub name: &'static str,
    pub cols: Vec<&'static str>,
    index: HashMap<&'static str, u16>,
    /// Column holding the row's GUID key.
    pub key_col: u16,
}

impl Layout {
    pub fn col(&self, name: &str) -> Option<u16> {
        self.index.get(name).copied()
    }
}

fn layouts() -> &'static HashMap<&'static str, Layout> {
    static L: OnceLock<HashMap<&'static str, Layout>> = OnceLock::new();
    L.get_or_init(|| {
        let mut names: HashMap<&'static str, Vec<&'static str>> = HashMap::new();
        for e in schema::entities() {
            if matches!(e.kind, Kind::Current) || e.path.ends_with("/Divisions") {
                continue;
            }
            let cols = names.entry(table_of(e)).or_default();
            for f in &e.fields {
                if !cols.contains(&f.name) {
                    cols.push(f.name);
                }
            }
        }
        names
            .into_iter()
            .map(|(name, mut cols)| {
                for extra in ["Timestamp", "ID"] {
                    if !cols.contains(&extra) {
                        cols.push(extra);
                    }
                }
                let key_name = schema::entity(name)
                    .filter(|e| e.kind != Kind::Sync && e.kind != Kind::Function)
                    .map(|e| e.key)
                    .unwrap_or("ID");
                let index: HashMap<&'static str, u16> = cols.iter().enumerate().map(|(i, c)| (*c, i as u16)).collect();
                let key_col = index.get(key_name).copied().unwrap_or(0);
                (name, Layout { name, cols, index, key_col })
            })
            .collect()
    })
}

pub fn layout(table: &str) -> Option<&'static Layout> {
    layouts().get(table)
}

/// A sparse row: (column, value) pairs sorted by column; absent means null.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row(pub Vec<(u16, Val)>);

impl Row {
    pub fn get(&self, col: u16) -> &Val {
        static NULL: Val = Val::Null;
        match self.0.binary_search_by_key(&col, |(c, _)| *c) {
            Ok(i) => &self.0[i].1,
            Err(_) => &NULL,
        }
    }

    pub fn set(&mut self, col: u16, v: Val) {
        match self.0.binary_search_by_key(&col, |(c, _)| *c) {
            Ok(i) if v == Val::Null => {
                self.0.remove(i);
            }
            Ok(i) => self.0[i].1 = v,
            Err(_) if v == Val::Null => {}
            Err(i) => self.0.insert(i, (col, v)),
        }
    }
}

/// One table of a division.
pub struct Table {
    pub layout: &'static Layout,
    /// Rows in key order: the provider's natural order and the `$skiptoken` order of regular endpoints.
    pub rows: BTreeMap<u128, Row>,
    /// Timestamp -> key, the order of sync endpoints.
    pub by_ts: BTreeMap<i64, u128>,
    ts_col: u16,
}

impl Table {
    fn new(layout: &'static Layout) -> Table {
        let ts_col = layout.col("Timestamp").unwrap_or(0);
        Table { layout, rows: BTreeMap::new(), by_ts: BTreeMap::new(), ts_col }
    }

    pub fn get(&self, key: u128) -> Option<&Row> {
        self.rows.get(&key)
    }

    /// A field of a row by name (null when the row or column is absent).
    pub fn value(&self, key: u128, field: &str) -> Val {
        match (self.rows.get(&key), self.layout.col(field)) {
            (Some(r), Some(c)) => r.get(c).clone(),
            _ => Val::Null,
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Store a finished row (its Timestamp set), replacing the one under `key`.
    pub(crate) fn put(&mut self, key: u128, row: Row) {
        let ts = row.get(self.ts_col).as_i64();
        if let Some(old_ts) = self.rows.insert(key, row).and_then(|old| old.get(self.ts_col).as_i64()) {
            self.by_ts.remove(&old_ts);
        }
        if let Some(ts) = ts {
            self.by_ts.insert(ts, key);
        }
    }

    /// Give a row a new Timestamp; false when it is missing.
    pub(crate) fn restamp(&mut self, key: u128, ts: i64) -> bool {
        let Some(row) = self.rows.get_mut(&key) else { return false };
        if let Some(old_ts) = row.get(self.ts_col).as_i64() {
            self.by_ts.remove(&old_ts);
        }
        row.set(self.ts_col, Val::Int(ts));
        self.by_ts.insert(ts, key);
        true
    }

    /// Remove a row without logging it anywhere.
    pub(crate) fn take(&mut self, key: u128) -> Option<Row> {
        let old = self.rows.remove(&key)?;
        if let Some(old_ts) = old.get(self.ts_col).as_i64() {
            self.by_ts.remove(&old_ts);
        }
        Some(old)
    }
}

/// A row under construction, by field name.
pub type Fields<'a> = &'a [(&'a str, Val)];

/// Everything one division holds.
pub struct Division {
    pub code: i32,
    pub tables: HashMap<&'static str, Table>,
    last_ts: i64,
    /// (item, warehouse, storage location) -> key of the StorageLocationStockPositions row.
    pub sl_stock: HashMap<(u128, u128, u128), u128>,
    /// (item, warehouse) -> key of the StockPositions row.
    pub stock: HashMap<(u128, u128), u128>,
    /// (item, warehouse) -> key of the ItemWarehouses row.
    pub item_warehouses: HashMap<(u128, u128), u128>,
    /// Purchase order -> keys of its lines, in the order they came: the rows of the derived
    /// `sync/PurchaseOrder/PurchaseOrders` an order's change stamps again (see `purchase_sync`).
    pub purchase_lines: HashMap<u128, Vec<u128>>,
    /// Booked stock of serial and batch numbers (see `tracking`).
    pub numbers: super::tracking::Index,
    /// Who the provider records as the author of changes made through the API.
    pub api_user: u128,
    /// Current simulated wall-clock (CET as UTC ms), set by the caller before each change.
    pub now_ms: i64,
}

impl Division {
    pub fn new(code: i32) -> Division {
        let tables = layouts().iter().map(|(name, l)| (*name, Table::new(l))).collect();
        Division {
            code,
            tables,
            last_ts: 0,
            sl_stock: HashMap::new(),
            stock: HashMap::new(),
            item_warehouses: HashMap::new(),
            purchase_lines: HashMap::new(),
            numbers: Default::default(),
            api_user: 0,
            now_ms: 0,
        }
    }

    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.get(name)
    }

    /// The highest Timestamp handed out so far.
    pub fn last_timestamp(&self) -> i64 {
        self.last_ts
    }

    fn next_ts(&mut self) -> i64 {
        // Rowversion-like: strictly increasing, unrelated to clock time.
        self.last_ts += 1;
        self.last_ts
    }

    /// Hand out `n` Timestamps at once; answers the first (the others follow it).
    pub(crate) fn reserve_timestamps(&mut self, n: usize) -> i64 {
        let first = self.last_ts + 1;
        self.last_ts += n as i64;
        first
    }

    /// Insert or replace a row; sets its key column and a fresh Timestamp. The derived
    /// `sync/PurchaseOrder/PurchaseOrders` follows a purchase order or line (and takes no writes).
    pub fn upsert(&mut self, table: &str, key: u128, fields: Fields<'_>) {
        if table == purchase_sync::TABLE {
            return;
        }
        let source = purchase_sync::source(self, table, key);
        let ts = self.next_ts();
        let Some(t) = self.tables.get_mut(table) else { return };
        let mut row = Row(Vec::with_capacity(fields.len() + 2));
        for (name, v) in fields {
            if let Some(c) = t.layout.col(name) {
                row.set(c, v.clone());
            }
        }
        row.set(t.layout.key_col, Val::guid(key));
        row.set(t.ts_col, Val::Int(ts));
        row.0.shrink_to_fit();
        t.put(key, row);
        purchase_sync::changed(self, key, source);
    }

    /// Change some fields of a row and bump its Timestamp. Returns false when the row is missing
    /// (or is a derived one).
    pub fn update(&mut self, table: &str, key: u128, fields: Fields<'_>) -> bool {
        if table == purchase_sync::TABLE {
            return false;
        }
        let source = purchase_sync::source(self, table, key);
        let ts = self.next_ts();
        let Some(t) = self.tables.get_mut(table) else { return false };
        let ts_col = t.ts_col;
        let Some(row) = t.rows.get_mut(&key) else { return false };
        for (name, v) in fields {
            if let Some(c) = t.layout.col(name) {
                row.set(c, v.clone());
            }
        }
        if let Some(old_ts) = row.get(ts_col).as_i64() {
            t.by_ts.remove(&old_ts);
        }
        row.set(ts_col, Val::Int(ts));
        t.by_ts.insert(ts, key);
        purchase_sync::changed(self, key, source);
        true
    }

    /// Add `delta` to a numeric field and bump the row.
    pub fn add(&mut self, table: &str, key: u128, field: &str, delta: f64) -> bool {
        let cur = self.table(table).map(|t| t.value(key, field).as_f64().unwrap_or(0.0)).unwrap_or(0.0);
        self.update(table, key, &[(field, Val::Dbl(cur + delta))])
    }

    /// Remove a row; logs it in `sync/Deleted` when the provider does for this entity. Rows of
    /// the derived `sync/PurchaseOrder/PurchaseOrders` go with their order or line, unlogged.
    pub fn delete(&mut self, table: &str, key: u128) -> bool {
        if table == purchase_sync::TABLE {
            return false;
        }
        let source = purchase_sync::source(self, table, key);
        let Some(t) = self.tables.get_mut(table) else { return false };
        if t.take(key).is_none() {
            return false;
        }
        purchase_sync::removed(self, key, source);
        let name = table.rsplit('/').next().unwrap_or(table);
        if let Some(code) = schema::deleted_entity_type(name) {
            let id = deterministic_id(self.code as u128, self.last_ts as u128 + 1);
            let (user, now, div) = (self.api_user, self.now_ms, self.code);
            self.upsert(
                DELETED,
                id,
                &[
                    ("ID", Val::guid(id)),
                    ("DeletedBy", Val::guid(user)),
                    ("DeletedDate", Val::Date(now)),
                    ("Division", Val::Int(div as i64)),
                    ("EntityKey", Val::guid(key)),
                    ("EntityType", Val::Int(code as i64)),
                ],
            );
        }
        true
    }

    /// Total number of rows over all tables.
    pub fn row_count(&self) -> usize {
        self.tables.values().map(Table::len).sum()
    }
}

/// A GUID derived from two numbers, for ids the simulator makes up itself (log rows).
pub fn deterministic_id(a: u128, b: u128) -> u128 {
    let mut x = a.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)
        ^ b.wrapping_mul(0xc2b2_ae3d_27d4_eb4f_1656_67b1_9e37_79f9);
    x ^= x >> 61;
    uuid::Builder::from_random_bytes(x.to_le_bytes()).into_uuid().as_u128()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_increase_and_deletes_are_logged() {
        let mut d = Division::new(1);
        d.upsert("manufacturing/ShopOrders", 7, &[("Description", Val::str("a"))]);
        let t1 = d.last_timestamp();
        d.update("manufacturing/ShopOrders", 7, &[("Description", Val::str("b"))]);
        assert!(d.last_timestamp() > t1);
        let so = d.table("manufacturing/ShopOrders").expect("table");
        assert_eq!(so.by_ts.len(), 1);
        assert_eq!(so.value(7, "Description"), Val::str("b"));
        assert!(d.delete("manufacturing/ShopOrders", 7));
        let del = d.table(DELETED).expect("deleted");
        assert_eq!(del.len(), 1);
        let (_, row) = del.rows.iter().next().expect("row");
        assert_eq!(row.get(del.layout.col("EntityType").expect("col")), &Val::Int(36));
    }
}
