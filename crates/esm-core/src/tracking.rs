//! Which serial and batch numbers of a tracked item are in stock where, from the local copy of
//! Exact's `sync/Inventory/SerialBatchNumbers` (the numbers) and
//! `sync/Inventory/StockSerialBatchNumbers` (every stock transaction's quantity per number and
//! place, positive into stock, negative out of it): a number's stock at a place is the sum of its
//! booked rows there (reservations still drafts are left out). Screens offer batches from this
//! list, first-expiring first, and take scanned serials against it.

use crate::exact::odata;
use crate::store::{OrgStore, Query, StoreResult};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashMap;
use utoipa::ToSchema;

pub const NUMBERS_TABLE: &str = "serialBatchNumbers";
pub const STOCK_TABLE: &str = "stockSerialBatchNumbers";

/// Whether and how an item is tracked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TrackedBy {
    Serial,
    Batch,
    None,
}

/// A place where a number is in stock.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Place {
    #[schema(example = "0badc0de-0000-4000-8000-000000000008")]
    pub warehouse: String,
    #[schema(example = "1")]
    #[schema(required = true)]
    pub warehouse_code: Option<String>,
    #[schema(required = true)]
    pub location: Option<String>,
    #[schema(example = "A-01-02")]
    #[schema(required = true)]
    pub location_code: Option<String>,
}

/// A serial number in stock.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SerialInStock {
    #[schema(example = "PMP-2200-0042")]
    pub number: String,
    #[serde(flatten)]
    pub place: Place,
}

/// A batch's stock at one place.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct BatchInStock {
    #[schema(example = "B-2026-0412")]
    pub number: String,
    #[schema(example = 12.5)]
    pub quantity: f64,
    /// The batch's expiry date (`2026-12-31`), if it has one.
    #[schema(example = "2026-12-31")]
    #[schema(required = true)]
    pub expiry: Option<String>,
    #[serde(flatten)]
    pub place: Place,
}

/// The numbers of an item in stock, at one place or everywhere.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct NumbersInStock {
    #[schema(example = "0badc0de-0000-4000-8000-000000000007")]
    pub item: String,
    pub tracking: TrackedBy,
    pub serials: Vec<SerialInStock>,
    /// First-expiring first, then the oldest.
    pub batches: Vec<BatchInStock>,
}

/// Quantities below this are nothing (sums of decimals).
const EPSILON: f64 = 1e-9;

fn rows(store: &OrgStore, table: &str, pairs: &[(&str, &str)]) -> StoreResult<Vec<Map<String, Value>>> {
    if store.row_count(table)? == 0 {
        return Ok(Vec::new());
    }
    let query = Query::from_pairs(pairs.iter().copied())?;
    Ok(store.query(table, &query)?.to_values()?.into_iter().filter_map(|r| r.as_object().cloned()).collect())
}

fn text(row: &Map<String, Value>, field: &str) -> Option<String> {
    row.get(field).and_then(Value::as_str).map(str::to_string).filter(|s| !s.is_empty())
}

/// A flag the provider sends as a boolean, a byte or text.
fn flag(row: &Map<String, Value>, field: &str) -> bool {
    match row.get(field) {
        Some(Value::Bool(b)) => *b,
        Some(v) => odata::as_i64(v).is_some_and(|n| n != 0),
        None => false,
    }
}

fn amount(row: &Map<String, Value>, field: &str) -> f64 {
    match row.get(field) {
        Some(Value::Number(n)) => n.as_f64().unwrap_or(0.0),
        Some(Value::String(s)) => s.trim().parse().unwrap_or(0.0),
        _ => 0.0,
    }
}

/// Epoch ms of a provider date (`/Date(ms)/` or ISO text).
fn date_ms(row: &Map<String, Value>, field: &str) -> Option<i64> {
    let s = text(row, field)?;
    odata::parse_date_ms(&s).or_else(|| {
        chrono::NaiveDate::parse_from_str(s.get(..10)?, "%Y-%m-%d")
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|d| d.and_utc().timestamp_millis())
    })
}

fn iso_date(ms: i64) -> Option<String> {
    chrono::DateTime::from_timestamp_millis(ms).map(|d| d.format("%Y-%m-%d").to_string())
}

/// How the item is tracked, from the local copy's item row.
pub fn tracked_by(store: &OrgStore, item: &str) -> StoreResult<TrackedBy> {
    let id = format!("eq.{item}");
    let found = rows(store, "items", &[("ID", &id), ("select", "ID,IsSerialItem,IsBatchItem"), ("limit", "1")])?;
    Ok(found.first().map_or(TrackedBy::None, tracked_by_row))
}

/// How an item row of the local copy (with `IsSerialItem` and `IsBatchItem`) is tracked.
pub fn tracked_by_row(row: &Map<String, Value>) -> TrackedBy {
    if flag(row, "IsSerialItem") {
        TrackedBy::Serial
    } else if flag(row, "IsBatchItem") {
        TrackedBy::Batch
    } else {
        TrackedBy::None
    }
}

/// The item's numbers in stock, in `warehouse` (and `location`) when given.
pub fn in_stock(
    store: &OrgStore,
    item: &str,
    warehouse: Option<&str>,
    location: Option<&str>,
) -> StoreResult<NumbersInStock> {
    let item = item.to_ascii_lowercase();
    let tracking = tracked_by(store, &item)?;
    let by_item = format!("eq.{item}");
    let numbers: HashMap<String, Map<String, Value>> = rows(store, NUMBERS_TABLE, &[("Item", &by_item)])?
        .into_iter()
        .filter_map(|r| Some((text(&r, "ID")?.to_ascii_lowercase(), r)))
        .collect();
    // (number ID, warehouse, location) → stock there, with the place's codes
    let mut sums: HashMap<(String, String, Option<String>), (f64, Place)> = HashMap::new();
    for r in rows(store, STOCK_TABLE, &[("Item", &by_item)])? {
        if flag(&r, "IsDraft") {
            continue;
        }
        let (Some(number), Some(wh)) = (text(&r, "SerialBatchNumber"), text(&r, "Warehouse")) else { continue };
        let (wh, loc) = (wh.to_ascii_lowercase(), text(&r, "StorageLocation").map(|l| l.to_ascii_lowercase()));
        if warehouse.is_some_and(|w| !w.eq_ignore_ascii_case(&wh))
            || location.is_some_and(|l| loc.as_deref().is_none_or(|x| !x.eq_ignore_ascii_case(l)))
        {
            continue;
        }
        let place = Place {
            warehouse: wh.clone(),
            warehouse_code: text(&r, "WarehouseCode"),
            location: loc.clone(),
            location_code: text(&r, "StorageLocationCode"),
        };
        let entry = sums.entry((number.to_ascii_lowercase(), wh, loc)).or_insert((0.0, place));
        entry.0 += amount(&r, "Quantity");
    }
    let mut serials = Vec::new();
    let mut batches = Vec::new();
    let mut order: Vec<(Option<i64>, Option<i64>, BatchInStock)> = Vec::new();
    for ((id, _, _), (quantity, place)) in sums {
        if quantity <= EPSILON {
            continue;
        }
        let Some(n) = numbers.get(&id) else { continue };
        if flag(n, "IsBlocked") {
            continue;
        }
        let Some(text_number) = text(n, "SerialBatchNumber") else { continue };
        if odata::as_i64(n.get("Type").unwrap_or(&Value::Null)) == Some(1) {
            serials.push(SerialInStock { number: text_number, place });
        } else {
            let expiry = date_ms(n, "EndDate");
            let since = date_ms(n, "StartDate");
            let batch = BatchInStock { number: text_number, quantity, expiry: expiry.and_then(iso_date), place };
            order.push((expiry, since, batch));
        }
    }
    // first-expiring first (no expiry last), then the oldest, then by number for a steady list
    order.sort_by(|(ea, sa, a), (eb, sb, b)| {
        (ea.is_none(), ea, sa.is_none(), sa, &a.number, &a.place.location_code).cmp(&(
            eb.is_none(),
            eb,
            sb.is_none(),
            sb,
            &b.number,
            &b.place.location_code,
        ))
    });
    batches.extend(order.into_iter().map(|(_, _, b)| b));
    serials.sort_by(|a, b| (&a.number, &a.place.location_code).cmp(&(&b.number, &b.place.location_code)));
    Ok(NumbersInStock { item, tracking, serials, batches })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Commit, Stores};
    use serde_json::json;

    const ITEM: &str = "0123abcd-ef01-4a2b-8c3d-000000000001";
    const W: &str = "aaaaaaaa-0000-4000-8000-000000000001";
    const L1: &str = "cccccccc-0000-4000-8000-000000000001";
    const L2: &str = "cccccccc-0000-4000-8000-000000000002";

    fn number(n: u8, text: &str, kind: i64, expiry: Option<&str>) -> Value {
        json!({"ID": format!("bbbbbbbb-0000-4000-8000-{n:012x}"), "SerialBatchNumber": text, "Type": kind,
               "Item": ITEM, "EndDate": expiry, "StartDate": "/Date(1700000000000)/", "IsBlocked": false, "Timestamp": "1"})
    }

    fn moved(id: u8, n: u8, quantity: f64, location: &str, draft: bool) -> Value {
        json!({"ID": format!("dddddddd-0000-4000-8000-{id:012x}"), "SerialBatchNumber": format!("bbbbbbbb-0000-4000-8000-{n:012x}"),
               "Quantity": quantity, "IsDraft": u8::from(draft), "Item": ITEM, "Warehouse": W, "WarehouseCode": "1",
               "StorageLocation": location, "StorageLocationCode": if location == L1 { "A" } else { "B" }, "Timestamp": "1"})
    }

    #[test]
    fn batches_in_stock_are_summed_per_place_first_expiring_first_without_drafts() {
        let dir = tempfile::tempdir().unwrap();
        let store = Stores::new(dir.path(), crate::exact::catalogue::table_specs()).get(1).unwrap();
        let put = |table: &str, rows: Vec<Value>| store.apply_batch(table, rows, Some(1), Commit::Durable).unwrap();
        put(
            "items",
            vec![json!({"ID": ITEM, "Code": "RM-1", "IsBatchItem": 1, "IsSerialItem": false, "Timestamp": "1"})],
        );
        put(
            NUMBERS_TABLE,
            vec![
                number(1, "LATE", 2, Some("/Date(1900000000000)/")),
                number(2, "SOON", 2, Some("/Date(1800000000000)/")),
                number(3, "NONE", 2, None),
                number(4, "GONE", 2, None),
            ],
        );
        put(
            STOCK_TABLE,
            vec![
                moved(1, 1, 10.0, L1, false),
                moved(2, 1, -4.0, L1, false),
                moved(3, 2, 3.0, L2, false),
                moved(4, 3, 1.5, L1, false),
                // a reservation not booked yet changes nothing
                moved(5, 3, -1.5, L1, true),
                moved(6, 4, 2.0, L1, false),
                moved(7, 4, -2.0, L1, false),
            ],
        );
        let found = in_stock(&store, ITEM, Some(W), None).unwrap();
        assert_eq!(found.tracking, TrackedBy::Batch);
        let got: Vec<(&str, f64, Option<&str>)> =
            found.batches.iter().map(|b| (b.number.as_str(), b.quantity, b.expiry.as_deref())).collect();
        assert_eq!(
            got,
            vec![("SOON", 3.0, Some("2027-01-15")), ("LATE", 6.0, Some("2030-03-17")), ("NONE", 1.5, None)]
        );
        let at_a = in_stock(&store, ITEM, Some(W), Some(L1)).unwrap();
        assert_eq!(at_a.batches.iter().map(|b| b.number.as_str()).collect::<Vec<_>>(), ["LATE", "NONE"]);
        assert_eq!(at_a.batches[0].place.location_code.as_deref(), Some("A"));
        assert!(in_stock(&store, ITEM, Some("aaaaaaaa-0000-4000-8000-000000000009"), None).unwrap().batches.is_empty());
    }
}
