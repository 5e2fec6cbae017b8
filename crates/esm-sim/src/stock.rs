//! Stock movements: one place that keeps storage-location stock, stock positions, item
//! warehouses and the item's total in step, so the invariant holds after any write.
//!
//! A warehouse that does not use storage locations (`UseStorageLocations` 0) keeps its stock in
//! the stock position alone: as in Exact, StorageLocationStockPositions and
//! ItemWarehouseStorageLocations (one table here) list only stock at a storage location, so they
//! have no row for it, and the invariant (position = sum of its locations) is checked only for
//! warehouses that use them.

use super::store::{Division, SL_STOCK_POSITIONS, STOCK_POSITIONS};
use super::value::Val;
use std::collections::HashMap;

pub const ITEMS: &str = "logistics/Items";
pub const WAREHOUSES: &str = "inventory/Warehouses";
pub const LOCATIONS: &str = "inventory/StorageLocations";
pub const ITEM_WAREHOUSES: &str = "inventory/ItemWarehouses";
/// Serial numbers of the units that entered stock (only goods receipts record them here).
pub const SERIAL_NUMBERS: &str = "inventory/StockSerialNumbers";
/// StockTransactionType of a goods receipt (Exact's list: 130 = Goods receipt).
pub const GOODS_RECEIPT_TRANSACTION: i64 = 130;

/// Whether the warehouse keeps its stock at storage locations (`UseStorageLocations`); a warehouse
/// the division does not have counts as one that does, so a movement into it behaves as before.
pub fn uses_locations(d: &Division, warehouse: u128) -> bool {
    d.table(WAREHOUSES).map(|t| t.value(warehouse, "UseStorageLocations")).and_then(|v| v.as_i64()) != Some(0)
}

/// Where stock of an item lands in a warehouse when no location is given: the item-warehouse
/// default, else the warehouse default.
pub fn default_location(d: &Division, item: u128, warehouse: u128) -> u128 {
    let from_iw = d
        .item_warehouses
        .get(&(item, warehouse))
        .and_then(|k| d.table(ITEM_WAREHOUSES).map(|t| t.value(*k, "DefaultStorageLocation")))
        .and_then(|v| v.as_guid());
    from_iw
        .or_else(|| d.table(WAREHOUSES).and_then(|t| t.value(warehouse, "DefaultStorageLocation").as_guid()))
        .unwrap_or(0)
}

/// Current stock of an item at one storage location.
pub fn at_location(d: &Division, item: u128, warehouse: u128, location: u128) -> f64 {
    d.sl_stock
        .get(&(item, warehouse, location))
        .and_then(|k| d.table(SL_STOCK_POSITIONS).map(|t| t.value(*k, "Stock")))
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0)
}

/// Current stock of an item in a warehouse (its stock position).
pub fn in_warehouse(d: &Division, item: u128, warehouse: u128) -> f64 {
    d.stock
        .get(&(item, warehouse))
        .and_then(|k| d.table(STOCK_POSITIONS).map(|t| t.value(*k, "CurrentStock")))
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0)
}

fn text(d: &Division, table: &str, key: u128, field: &str) -> Val {
    d.table(table).map(|t| t.value(key, field)).unwrap_or(Val::Null)
}

/// Move `delta` units of `item` in or out of `warehouse`/`location` (0 = default location; a
/// warehouse without storage locations takes none, see the module's note).
pub fn adjust(d: &mut Division, item: u128, warehouse: u128, location: u128, delta: f64) {
    if uses_locations(d, warehouse) {
        at_storage_location(d, item, warehouse, location, delta);
    }
    position(d, item, warehouse, delta);
}

fn at_storage_location(d: &mut Division, item: u128, warehouse: u128, location: u128, delta: f64) {
    let location = if location == 0 { default_location(d, item, warehouse) } else { location };
    let sl_key = match d.sl_stock.get(&(item, warehouse, location)) {
        Some(k) => *k,
        None => {
            let k = super::store::deterministic_id(item ^ 0x5, warehouse ^ location.rotate_left(17));
            let fields = [
                ("ID", Val::guid(k)),
                ("Division", Val::Int(d.code as i64)),
                ("Item", Val::guid(item)),
                ("ItemCode", text(d, ITEMS, item, "Code")),
                ("ItemDescription", text(d, ITEMS, item, "Description")),
                ("UnitCode", text(d, ITEMS, item, "Unit")),
                ("UnitDescription", text(d, ITEMS, item, "UnitDescription")),
                ("Warehouse", Val::guid(warehouse)),
                ("WarehouseCode", text(d, WAREHOUSES, warehouse, "Code")),
                ("WarehouseDescription", text(d, WAREHOUSES, warehouse, "Description")),
                ("StorageLocation", if location == 0 { Val::Null } else { Val::guid(location) }),
                ("StorageLocationCode", text(d, LOCATIONS, location, "Code")),
                ("StorageLocationDescription", text(d, LOCATIONS, location, "Description")),
                ("StorageLocationSequenceNumber", Val::Int(1)),
                ("Stock", Val::Dbl(0.0)),
                ("ReservedPick", Val::Dbl(0.0)),
                ("QuantityToPicked", Val::Dbl(0.0)),
                ("SerialBatchReservedStock", Val::Dbl(0.0)),
            ];
            d.upsert(SL_STOCK_POSITIONS, k, &fields);
            d.sl_stock.insert((item, warehouse, location), k);
            k
        }
    };
    d.add(SL_STOCK_POSITIONS, sl_key, "Stock", delta);
}

/// The stock position, item warehouse and item total.
fn position(d: &mut Division, item: u128, warehouse: u128, delta: f64) {
    let sp_key = match d.stock.get(&(item, warehouse)) {
        Some(k) => *k,
        None => {
            let k = super::store::deterministic_id(item, warehouse);
            let reorder = d
                .item_warehouses
                .get(&(item, warehouse))
                .map(|iw| text(d, ITEM_WAREHOUSES, *iw, "ReorderPoint"))
                .unwrap_or(Val::Dbl(0.0));
            let fields = [
                ("ID", Val::guid(k)),
                ("Division", Val::Int(d.code as i64)),
                ("ItemId", Val::guid(item)),
                ("ItemCode", text(d, ITEMS, item, "Code")),
                ("ItemDescription", text(d, ITEMS, item, "Description")),
                ("UnitCode", text(d, ITEMS, item, "Unit")),
                ("UnitDescription", text(d, ITEMS, item, "UnitDescription")),
                ("Warehouse", Val::guid(warehouse)),
                ("WarehouseCode", text(d, WAREHOUSES, warehouse, "Code")),
                ("WarehouseDescription", text(d, WAREHOUSES, warehouse, "Description")),
                ("CurrentStock", Val::Dbl(0.0)),
                ("FreeStock", Val::Dbl(0.0)),
                ("PlanningIn", Val::Dbl(0.0)),
                ("PlanningOut", Val::Dbl(0.0)),
                ("ProjectedStock", Val::Dbl(0.0)),
                ("ReservedStock", Val::Dbl(0.0)),
                ("ReorderPoint", reorder),
            ];
            d.upsert(STOCK_POSITIONS, k, &fields);
            d.stock.insert((item, warehouse), k);
            k
        }
    };
    let sp = |f: &str, d: &Division| text(d, STOCK_POSITIONS, sp_key, f).as_f64().unwrap_or(0.0);
    let current = sp("CurrentStock", d) + delta;
    let free = current - sp("ReservedStock", d);
    let projected = current + sp("PlanningIn", d) - sp("PlanningOut", d);
    d.update(
        STOCK_POSITIONS,
        sp_key,
        &[("CurrentStock", Val::Dbl(current)), ("FreeStock", Val::Dbl(free)), ("ProjectedStock", Val::Dbl(projected))],
    );
    if let Some(iw) = d.item_warehouses.get(&(item, warehouse)).copied() {
        d.update(ITEM_WAREHOUSES, iw, &[("CurrentStock", Val::Dbl(current)), ("ProjectedStock", Val::Dbl(projected))]);
    }
    d.add(ITEMS, item, "Stock", delta);
}

/// (item, warehouse, position stock, sum of location stock) wherever they differ; for a
/// warehouse without storage locations, any location stock at all is one.
pub fn mismatches(d: &Division) -> Vec<(u128, u128, f64, f64)> {
    let mut sums: HashMap<(u128, u128), f64> = HashMap::new();
    if let Some(t) = d.table(SL_STOCK_POSITIONS) {
        let (ci, cw, cs) = (t.layout.col("Item"), t.layout.col("Warehouse"), t.layout.col("Stock"));
        if let (Some(ci), Some(cw), Some(cs)) = (ci, cw, cs) {
            for r in t.rows.values() {
                if let (Some(i), Some(w)) = (r.get(ci).as_guid(), r.get(cw).as_guid()) {
                    *sums.entry((i, w)).or_default() += r.get(cs).as_f64().unwrap_or(0.0);
                }
            }
        }
    }
    let mut out = Vec::new();
    if let Some(t) = d.table(STOCK_POSITIONS) {
        let (ci, cw, cs) = (t.layout.col("ItemId"), t.layout.col("Warehouse"), t.layout.col("CurrentStock"));
        if let (Some(ci), Some(cw), Some(cs)) = (ci, cw, cs) {
            for r in t.rows.values() {
                if let (Some(i), Some(w)) = (r.get(ci).as_guid(), r.get(cw).as_guid()) {
                    let pos = r.get(cs).as_f64().unwrap_or(0.0);
                    let sum = sums.remove(&(i, w)).unwrap_or(0.0);
                    if !uses_locations(d, w) {
                        // Its stock is in the position alone; a location row for it is the error.
                        if sum.abs() > 1e-6 {
                            out.push((i, w, pos, sum));
                        }
                        continue;
                    }
                    if (pos - sum).abs() > 1e-6 {
                        out.push((i, w, pos, sum));
                    }
                }
            }
        }
    }
    for ((i, w), sum) in sums {
        if sum.abs() > 1e-6 {
            out.push((i, w, 0.0, sum));
        }
    }
    out
}
