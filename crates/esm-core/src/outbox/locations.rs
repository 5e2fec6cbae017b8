//! Storage locations of stock bookings checked against the local copy before they are queued:
//! Exact refuses a storage location in a warehouse that does not use them (`UseStorageLocations`
//! 0), a storage location of another warehouse, and a transfer within one warehouse that has
//! none (a transfer within a warehouse moves stock between its storage locations). Where the copy
//! tells which warehouse a booking is in (the live warehouses and storage locations, the shop
//! orders and their material lines), such a booking is refused here (400) with why, instead of
//! failing later in the outbox. What the copy does not know is left for Exact to judge: a goods
//! receipt's warehouse is its purchase order's, which the copy does not keep.

use crate::error::{AppError, AppResult, Code};
use crate::outbox::entry::Entry;
use crate::store::OrgStore;
use esm_base::texts::{Line, Text};
use serde_json::{Map, Value};

/// A warehouse as the live cache knows it.
struct Warehouse {
    code: String,
    /// None when the cached row does not carry the flag (a copy fetched by an older release).
    uses_locations: Option<bool>,
}

fn lower_guid(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).and_then(|s| uuid::Uuid::parse_str(s.trim()).ok()).map(|u| u.to_string())
}

fn row(store: &OrgStore, table: &str, key: &str) -> AppResult<Option<Map<String, Value>>> {
    if store.row_count(table).map_err(AppError::internal)? == 0 {
        return Ok(None);
    }
    let Some(bytes) = store.get_row(table, key).map_err(AppError::internal)? else { return Ok(None) };
    Ok(serde_json::from_slice::<Value>(&bytes).ok().and_then(|v| v.as_object().cloned()))
}

fn warehouse(store: &OrgStore, id: &str) -> AppResult<Option<Warehouse>> {
    let Some(r) = row(store, "warehouses", id)? else { return Ok(None) };
    let uses_locations = match r.get("UseStorageLocations") {
        Some(Value::Number(n)) => n.as_i64().map(|n| n != 0),
        Some(Value::Bool(b)) => Some(*b),
        _ => None,
    };
    let code = r.get("Code").and_then(Value::as_str).unwrap_or(id).to_string();
    Ok(Some(Warehouse { code, uses_locations }))
}

/// Whether the warehouse is known to keep no storage locations, with its code.
fn without_locations(store: &OrgStore, id: &str) -> AppResult<Option<String>> {
    Ok(warehouse(store, id)?.filter(|w| w.uses_locations == Some(false)).map(|w| w.code))
}

/// A storage location in `field` for stock in `warehouse`: none where the warehouse has none, and
/// only one of that warehouse's. The refusal is a text, so a line's number can go before it.
fn refusal(store: &OrgStore, warehouse_id: &str, location: Option<&Value>, field: &str) -> AppResult<Option<Text>> {
    let Some(location) = lower_guid(location) else { return Ok(None) };
    if let Some(code) = without_locations(store, warehouse_id)? {
        return Ok(Some(Text::WarehouseWithoutLocations { warehouse: code, field: field.into() }));
    }
    let Some(loc) = row(store, "storageLocations", &location)? else { return Ok(None) };
    let Some(of) = lower_guid(loc.get("Warehouse")) else { return Ok(None) };
    if of != warehouse_id {
        let code = loc.get("Code").and_then(Value::as_str).unwrap_or(&location).to_string();
        let wh = warehouse(store, warehouse_id)?.map_or_else(|| warehouse_id.to_string(), |w| w.code);
        return Ok(Some(Text::LocationNotInWarehouse { field: field.into(), location: code, warehouse: wh }));
    }
    Ok(None)
}

/// [`refusal`] as a 400, of line `n` (from 0) when `line` says which.
fn check_location(
    store: &OrgStore,
    warehouse_id: &str,
    location: Option<&Value>,
    field: &str,
    line: Option<(Line, usize)>,
) -> AppResult<()> {
    let Some(text) = refusal(store, warehouse_id, location, field)? else { return Ok(()) };
    let text = match line {
        Some((line, n)) => Text::OnLine { line, n: n + 1, text: Box::new(text) },
        None => text,
    };
    Err(AppError::said(Code::BadRequest, text))
}

fn lines<'a>(body: &'a Map<String, Value>, field: &str) -> impl Iterator<Item = (usize, &'a Map<String, Value>)> {
    body.get(field).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object).enumerate()
}

/// The warehouse of the shop order `id` in the copy.
fn order_warehouse(store: &OrgStore, id: Option<String>) -> AppResult<Option<String>> {
    let Some(id) = id else { return Ok(None) };
    Ok(row(store, "shopOrders", &id)?.and_then(|o| lower_guid(o.get("Warehouse"))))
}

/// The actions whose storage locations (and warehouses) are checked.
const CHECKED: [&str; 5] = [
    "createWarehouseTransfer",
    "createStockCount",
    "updateMaterialsIssues",
    "createByProductReceipt",
    "createShopOrderReceipt",
];

/// Whether any of the entries is a booking `check` looks at.
pub fn concerns(entries: &[Entry]) -> bool {
    entries.iter().any(|e| CHECKED.contains(&e.action.as_str()))
}

/// Refuses (400) the first storage location among the entries' bodies that Exact would refuse.
pub fn check(store: &OrgStore, entries: &[Entry]) -> AppResult<()> {
    for e in entries {
        let Some(body) = e.body.as_ref().and_then(Value::as_object) else { continue };
        match e.action.as_str() {
            "createWarehouseTransfer" => {
                let (Some(from), Some(to)) =
                    (lower_guid(body.get("WarehouseFrom")), lower_guid(body.get("WarehouseTo")))
                else {
                    continue;
                };
                if from == to
                    && let Some(code) = without_locations(store, &from)?
                {
                    return Err(AppError::said(
                        Code::BadRequest,
                        Text::TransferWithinWarehouseWithoutLocations { warehouse: code },
                    ));
                }
                for (n, l) in lines(body, "WarehouseTransferLines") {
                    let line = Some((Line::TransferLine, n));
                    check_location(store, &from, l.get("StorageLocationFrom"), "StorageLocationFrom", line)?;
                    check_location(store, &to, l.get("StorageLocationTo"), "StorageLocationTo", line)?;
                }
            }
            "createStockCount" => {
                let Some(header) = lower_guid(body.get("Warehouse")) else { continue };
                for (n, l) in lines(body, "StockCountLines") {
                    let wh = lower_guid(l.get("Warehouse")).unwrap_or_else(|| header.clone());
                    let line = Some((Line::StockCountLine, n));
                    check_location(store, &wh, l.get("StorageLocation"), "StorageLocation", line)?;
                }
            }
            "updateMaterialsIssues" | "createByProductReceipt" => {
                let Some(plan) = lower_guid(body.get("ShopOrderMaterialPlan")) else { continue };
                let order = row(store, "shopOrderMaterialPlans", &plan)?.and_then(|p| lower_guid(p.get("ShopOrder")));
                if let Some(wh) = order_warehouse(store, order)? {
                    check_location(store, &wh, body.get("StorageLocation"), "StorageLocation", None)?;
                }
            }
            "createShopOrderReceipt" => {
                if let Some(wh) = order_warehouse(store, lower_guid(body.get("ShopOrder")))? {
                    check_location(store, &wh, body.get("StorageLocation"), "StorageLocation", None)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}
