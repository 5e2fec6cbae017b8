//! POST/PUT/DELETE: change the data the way the ERP would, bumping Timestamps and logging deletions.

use super::odata::ODataError;
use super::stock::{self, ITEMS, LOCATIONS, WAREHOUSES};
use super::store::{Division, table_of};
use super::tracking::{self, Booking, Kind};
use super::value::{self, Val};
use crate::store::purchase_sync;
use esm_exact::schema::{EdmType, Entity};
use serde_json::{Map, Value as J};
use std::collections::HashSet;

pub(super) const BAD_BODY: &str =
    "Error processing request stream. The request should be a valid top-level resource object.";

const SHOP_ORDERS: &str = "manufacturing/ShopOrders";
const PLANS: &str = "manufacturing/ShopOrderMaterialPlans";
/// Material plan statuses as the provider sets them: 10 Open, 25 Partial, 30 Finished.
const PLAN_OPEN: i64 = 10;
const PLAN_PARTIAL: i64 = 25;
const PLAN_COMPLETE: i64 = 30;
/// ShopOrderMaterialPlans.Type of a by-product line (1 is a material).
const PLAN_BY_PRODUCT: i64 = 2;
const PO_LINES: &str = "purchaseorder/PurchaseOrderLines";
const PURCHASE_ORDERS: &str = "purchaseorder/PurchaseOrders";
const TRANSFERS: &str = "inventory/WarehouseTransfers";
const TRANSFER_LINES: &str = "inventory/WarehouseTransferLines";
const COUNTS: &str = "inventory/StockCounts";
const COUNT_LINES: &str = "inventory/StockCountLines";

/// Apply a write. `Ok(Some(key))` = created (201 with the row), `Ok(None)` = 204.
pub fn apply(
    d: &mut Division,
    e: &'static Entity,
    method: &str,
    key: Option<&str>,
    body: &[u8],
) -> Result<Option<u128>, ODataError> {
    let key = match key {
        Some(k) => Some(parse_key(k)?),
        None => None,
    };
    match method {
        "DELETE" => {
            let key = key.ok_or_else(|| ODataError::bad("A key is required to delete."))?;
            if processed(d, e, key) {
                // As the provider: a processed transfer or count has moved stock; only drafts go.
                return Err(ODataError::bad("Only drafts can be deleted."));
            }
            if let Some(kind) = number_kind(e) {
                return tracking::unreserve(d, kind, key).map(|()| None);
            }
            remove(d, e, key)?;
            Ok(None)
        }
        "PUT" => {
            let key = key.ok_or_else(|| ODataError::bad("A key is required to update."))?;
            let obj = object(body)?;
            update(d, e, key, &obj)?;
            Ok(None)
        }
        _ => {
            if key.is_some() {
                return Err(ODataError { status: 405, message: "POST is not allowed on a single entity.".into() });
            }
            let obj = object(body)?;
            create(d, e, &obj)
        }
    }
}

/// The movements table of serial or batch numbers an entity is.
fn number_kind(e: &Entity) -> Option<Kind> {
    match e.path {
        tracking::SERIAL_MOVES => Some(Kind::Serial),
        tracking::BATCH_MOVES => Some(Kind::Batch),
        _ => None,
    }
}

fn parse_key(k: &str) -> Result<u128, ODataError> {
    match super::odata::parse::parse_filter(k) {
        Ok(super::odata::parse::Expr::Lit(Val::Guid(g))) => Ok(g.get()),
        _ => Err(ODataError::bad(super::odata::parse::SYNTAX_ERROR)),
    }
}

fn object(body: &[u8]) -> Result<Map<String, J>, ODataError> {
    match serde_json::from_slice::<J>(body) {
        Ok(J::Object(m)) => Ok(m),
        _ => Err(ODataError::bad(BAD_BODY)),
    }
}

fn not_found() -> ODataError {
    ODataError { status: 404, message: "Not found".into() }
}

/// Convert a body into stored values, checking names and types; `creating` selects the c/u flag.
fn values(e: &Entity, obj: &Map<String, J>, creating: bool) -> Result<Vec<(&'static str, Val)>, ODataError> {
    let mut out = Vec::new();
    for (k, v) in obj {
        // Unknown properties are ignored: the product's shop-order write-back sends AccessCode and
        // ShiftingFullProject, which the provider's schema does not list, and it worked against Exact.
        let Some(f) = e.field(k) else { continue };
        let allowed = if creating { f.create } else { f.update };
        if !allowed || f.ty == EdmType::Collection {
            // Read-only properties in a body are ignored, as the provider does.
            continue;
        }
        out.push((f.name, value::from_json(f.ty, v).map_err(ODataError::bad)?));
    }
    Ok(out)
}

fn get(vals: &[(&str, Val)], name: &str) -> Val {
    vals.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone()).unwrap_or(Val::Null)
}

fn text(d: &Division, table: &str, key: u128, field: &str) -> Val {
    d.table(table).map(|t| t.value(key, field)).unwrap_or(Val::Null)
}

/// Fill the read-only copies the provider derives from references (ItemCode, WarehouseDescription, …).
pub(crate) fn denormalise(d: &Division, vals: &mut Vec<(&'static str, Val)>) {
    /// (reference field, table it points into, [(copy field, source field)]).
    type Copies = &'static [(&'static str, &'static str)];
    const REFS: &[(&str, &str, Copies)] = &[
        (
            "Item",
            ITEMS,
            &[
                ("ItemCode", "Code"),
                ("ItemDescription", "Description"),
                ("Unit", "Unit"),
                ("ItemPictureUrl", "PictureUrl"),
            ],
        ),
        ("Warehouse", WAREHOUSES, &[("WarehouseCode", "Code"), ("WarehouseDescription", "Description")]),
        ("WarehouseFrom", WAREHOUSES, &[("WarehouseFromCode", "Code"), ("WarehouseFromDescription", "Description")]),
        ("WarehouseTo", WAREHOUSES, &[("WarehouseToCode", "Code"), ("WarehouseToDescription", "Description")]),
        (
            "StorageLocation",
            LOCATIONS,
            &[("StorageLocationCode", "Code"), ("StorageLocationDescription", "Description")],
        ),
        ("ShopOrder", SHOP_ORDERS, &[("ShopOrderNumber", "ShopOrderNumber")]),
        (
            "SelectionCode",
            "logistics/SelectionCodes",
            &[("SelectionCodeCode", "Code"), ("SelectionCodeDescription", "Description")],
        ),
        (
            "Supplier",
            "crm/Accounts",
            &[("SupplierCode", "Code"), ("SupplierDescription", "Name"), ("SupplierName", "Name")],
        ),
    ];
    for (field, table, copies) in REFS {
        if let Some(k) = get(vals, field).as_guid() {
            for (to, from) in *copies {
                if get(vals, to) == Val::Null {
                    let v = text(d, table, k, from);
                    if v != Val::Null {
                        vals.push((to, v));
                    }
                }
            }
        }
    }
}

/// The item's barcode on rows whose entity has `ItemBarcode` (purchase order lines, shop orders,
/// count lines): Exact copies it from the item, and a scan of the box is matched against it.
fn copy_item_barcode(d: &Division, e: &Entity, vals: &mut Vec<(&'static str, Val)>) {
    if !e.fields.iter().any(|f| f.name == "ItemBarcode") || get(vals, "ItemBarcode") != Val::Null {
        return;
    }
    if let Some(item) = get(vals, "Item").as_guid() {
        let barcode = text(d, ITEMS, item, "Barcode");
        if barcode != Val::Null {
            vals.push(("ItemBarcode", barcode));
        }
    }
}

fn stamp(d: &Division, vals: &mut Vec<(&'static str, Val)>, creating: bool) {
    let now = Val::Date(d.now_ms);
    if creating {
        vals.push(("Created", now.clone()));
        vals.push(("CreatedDate", now.clone()));
        vals.push(("Creator", Val::guid(d.api_user)));
        vals.push(("Division", Val::Int(d.code as i64)));
    }
    vals.push(("Modified", now));
    vals.push(("Modifier", Val::guid(d.api_user)));
}

/// What the ERP fills in itself on create (numbers, statuses).
fn defaults(d: &Division, e: &Entity, vals: &mut Vec<(&'static str, Val)>) {
    let tracked = tracking::flags(d, get(vals, "Item").as_guid().unwrap_or(0));
    let mut set = |name: &'static str, v: Val| {
        if get(vals, name) == Val::Null {
            vals.push((name, v));
        }
    };
    match e.path {
        SHOP_ORDERS => {
            let next = d
                .table(SHOP_ORDERS)
                .map(|t| t.rows.keys().filter_map(|k| t.value(*k, "ShopOrderNumber").as_i64()).max().unwrap_or(0) + 1)
                .unwrap_or(1);
            set("ShopOrderNumber", Val::Int(next));
            set("ShopOrderNumberString", Val::str(&next.to_string()));
            set("Status", Val::Int(10));
            set("Type", Val::Int(9040));
            set("ProducedQuantity", Val::Dbl(0.0));
            for flag in ["IsReleased", "IsOnHold", "IsInPlanning"] {
                set(flag, Val::Int(0));
            }
            for (flag, v) in tracked.clone() {
                set(flag, v);
            }
        }
        "purchaseorder/GoodsReceipts" => {
            let next = d
                .table(e.path)
                .map(|t| t.rows.keys().filter_map(|k| t.value(*k, "ReceiptNumber").as_i64()).max().unwrap_or(0) + 1)
                .unwrap_or(1);
            set("ReceiptNumber", Val::Int(next));
            set("EntryNumber", Val::Int(next));
        }
        PLANS => {
            set("Type", Val::Int(1));
            set("Status", Val::Int(PLAN_OPEN));
            set("IssuedQuantity", Val::Dbl(0.0));
            for (flag, v) in tracked.clone() {
                set(flag, v);
            }
        }
        _ => {}
    }
}

fn new_key(e: &Entity, vals: &[(&str, Val)]) -> u128 {
    get(vals, e.key).as_guid().unwrap_or_else(|| uuid::Uuid::new_v4().as_u128())
}

fn create(d: &mut Division, e: &'static Entity, obj: &Map<String, J>) -> Result<Option<u128>, ODataError> {
    match e.path {
        "inventory/ProcessWarehouseTransfer" => {
            let id = obj.get("TransferID").and_then(J::as_str).and_then(|s| uuid::Uuid::parse_str(s).ok());
            let id = id.ok_or_else(|| ODataError::bad("Verplicht: TransferID"))?.as_u128();
            process_transfer(d, id)?;
            return Ok(None);
        }
        "inventory/ProcessStockCount" => {
            let id = obj.get("StockCountID").and_then(J::as_str).and_then(|s| uuid::Uuid::parse_str(s).ok());
            let id = id.ok_or_else(|| ODataError::bad("Verplicht: StockCountID"))?.as_u128();
            process_count(d, id)?;
            return Ok(None);
        }
        _ => {}
    }
    let mut vals = values(e, obj, true)?;
    for f in e.fields.iter().filter(|f| f.required && f.ty != EdmType::Collection) {
        if get(&vals, f.name) == Val::Null {
            return Err(ODataError::bad(format!("Verplicht: {}", f.name)));
        }
    }
    let key = new_key(e, &vals);
    vals.retain(|(n, _)| *n != e.key);
    vals.push((e.key, Val::guid(key)));
    denormalise(d, &mut vals);
    copy_item_barcode(d, e, &mut vals);
    stamp(d, &mut vals, true);
    defaults(d, e, &mut vals);
    let lines = |name: &str| -> Result<Vec<Map<String, J>>, ODataError> {
        match obj.get(name) {
            Some(J::Array(a)) => {
                a.iter().map(|l| l.as_object().cloned().ok_or_else(|| ODataError::bad(BAD_BODY))).collect()
            }
            Some(_) => Err(ODataError::bad(BAD_BODY)),
            None => Ok(Vec::new()),
        }
    };
    let table = table_of(e);
    match e.path {
        "purchaseorder/GoodsReceipts" => {
            let ls = lines("GoodsReceiptLines")?;
            if ls.is_empty() {
                return Err(ODataError::bad("Verplicht: GoodsReceiptLines"));
            }
            // Serial and batch numbers are checked on every line before anything is written.
            let mut seen = HashSet::new();
            let numbers = ls.iter().map(|l| receipt_numbers(d, l, &mut seen)).collect::<Result<Vec<_>, _>>()?;
            for l in &ls {
                receipt_location(d, l)?;
            }
            vals.extend(receipt_header_from_order(d, &ls[0]));
            d.upsert(table, key, &vals);
            for (n, (l, pieces)) in ls.iter().zip(&numbers).enumerate() {
                receive_line(d, key, n as i64 + 1, l, pieces.as_deref())?;
            }
        }
        "manufacturing/MaterialIssues" | "manufacturing/ByProductReceipts" => {
            let plan = get(&vals, "ShopOrderMaterialPlan").as_guid().unwrap_or(0);
            if d.table(PLANS).and_then(|t| t.get(plan)).is_none() {
                return Err(ODataError::bad("ShopOrderMaterialPlan: not found"));
            }
            let so = text(d, PLANS, plan, "ShopOrder").as_guid().unwrap_or(0);
            let item = text(d, PLANS, plan, "Item").as_guid().unwrap_or(0);
            let wh = text(d, SHOP_ORDERS, so, "Warehouse").as_guid().unwrap_or(0);
            let qty = get(&vals, "Quantity").as_f64().unwrap_or(0.0);
            let loc = get(&vals, "StorageLocation").as_guid().unwrap_or(0);
            let issue = e.path == "manufacturing/MaterialIssues";
            // Materials (Type 1) are issued, by-products (Type 2) received: never the other way.
            let by_product_line = text(d, PLANS, plan, "Type").as_i64() == Some(PLAN_BY_PRODUCT);
            if issue && by_product_line {
                return Err(ODataError::bad(
                    "ShopOrderMaterialPlan: the line is a by-product; receive it with a by-product receipt",
                ));
            }
            if !issue && !by_product_line {
                return Err(ODataError::bad(
                    "ShopOrderMaterialPlan: the line is not a by-product; issue materials with a material issue",
                ));
            }
            check_location(d, wh, loc, "StorageLocation")?;
            let tx_type = if issue { tracking::MATERIAL_ISSUE } else { tracking::BY_PRODUCT_RECEIPT };
            let draft = get(&vals, "DraftStockTransactionID").as_guid();
            let pieces = tracking::transaction_pieces(d, item, tx_type, draft, wh, loc, qty)?;
            vals.extend([("ShopOrder", Val::guid(so)), ("Item", Val::guid(item)), ("Warehouse", Val::guid(wh))]);
            vals.extend(tracking::flags(d, item));
            denormalise(d, &mut vals);
            d.upsert(table, key, &vals);
            match pieces {
                Some(pieces) => tracking::book(d, item, &pieces, &booking(d, key, draft)),
                None => stock::adjust(d, item, wh, loc, if issue { -qty } else { qty }),
            }
            d.add(PLANS, plan, "IssuedQuantity", qty);
            let issued = text(d, PLANS, plan, "IssuedQuantity").as_f64().unwrap_or(0.0);
            let planned = text(d, PLANS, plan, "PlannedQuantity").as_f64().unwrap_or(0.0);
            let status = if issued >= planned && planned > 0.0 {
                PLAN_COMPLETE
            } else if issued > 0.0 {
                PLAN_PARTIAL
            } else {
                PLAN_OPEN
            };
            d.update(PLANS, plan, &[("Status", Val::Int(status))]);
        }
        "manufacturing/ShopOrderReceipts" => {
            let so = get(&vals, "ShopOrder").as_guid().unwrap_or(0);
            if d.table(SHOP_ORDERS).and_then(|t| t.get(so)).is_none() {
                return Err(ODataError::bad("ShopOrder: not found"));
            }
            let item = text(d, SHOP_ORDERS, so, "Item").as_guid().unwrap_or(0);
            let wh = text(d, SHOP_ORDERS, so, "Warehouse").as_guid().unwrap_or(0);
            let qty = get(&vals, "Quantity").as_f64().unwrap_or(0.0);
            let loc = get(&vals, "StorageLocation").as_guid().unwrap_or(0);
            check_location(d, wh, loc, "StorageLocation")?;
            let draft = get(&vals, "DraftStockTransactionID").as_guid();
            let pieces = tracking::transaction_pieces(d, item, tracking::SHOP_ORDER_RECEIPT, draft, wh, loc, qty)?;
            vals.extend([("Item", Val::guid(item)), ("Warehouse", Val::guid(wh))]);
            vals.extend(tracking::flags(d, item));
            denormalise(d, &mut vals);
            d.upsert(table, key, &vals);
            match pieces {
                Some(pieces) => tracking::book(d, item, &pieces, &booking(d, key, draft)),
                None => stock::adjust(d, item, wh, loc, qty),
            }
            let produced = text(d, SHOP_ORDERS, so, "ProducedQuantity").as_f64().unwrap_or(0.0) + qty;
            let planned = text(d, SHOP_ORDERS, so, "PlannedQuantity").as_f64().unwrap_or(0.0);
            let status = if produced >= planned { 30 } else { 20 };
            d.update(SHOP_ORDERS, so, &[("ProducedQuantity", Val::Dbl(produced)), ("Status", Val::Int(status))]);
        }
        "inventory/WarehouseTransfers" => {
            let ls = lines("WarehouseTransferLines")?;
            let status = get(&vals, "Status").as_i64().unwrap_or(10);
            let from = get(&vals, "WarehouseFrom").as_guid().unwrap_or(0);
            let to = get(&vals, "WarehouseTo").as_guid().unwrap_or(0);
            // Every line's numbers are checked before anything is written: their counts always,
            // their stock at the from-place too when the transfer is to be processed at once.
            let mut taken = Default::default();
            let mut lines_v = Vec::with_capacity(ls.len());
            for l in &ls {
                let lv = child(d, TRANSFER_LINES, l)?;
                let given = tracking::given_on_line(l)?;
                let item = get(&lv, "Item").as_guid().unwrap_or(0);
                let qty = get(&lv, "Quantity").as_f64().unwrap_or(0.0);
                let lf = get(&lv, "StorageLocationFrom").as_guid().unwrap_or(0);
                let lt = get(&lv, "StorageLocationTo").as_guid().unwrap_or(0);
                // Refused before anything is written, as the provider refuses the whole transfer.
                check_transfer_line(d, from, to, lf, lt)?;
                if status == 50 {
                    tracking::transfer_pieces(d, item, &given, qty, (from, lf), (to, lt), &mut taken)?;
                } else {
                    tracking::check_numbers(d, item, &given, qty)?;
                }
                lines_v.push((lv, given, item, lf));
            }
            vals.push(("Status", Val::Int(10)));
            d.upsert(table, key, &vals);
            let tx_type = if from == to { tracking::LOCATION_TRANSFER_OUT } else { tracking::WAREHOUSE_TRANSFER_OUT };
            for (n, (mut lv, given, item, lf)) in lines_v.into_iter().enumerate() {
                lv.extend([("TransferID", Val::guid(key)), ("LineNumber", Val::Int(n as i64 + 1))]);
                let lk = new_key(entity(TRANSFER_LINES), &lv);
                d.upsert(TRANSFER_LINES, lk, &lv);
                tracking::keep_on_line(d, item, &given, "WarehouseTransferLine", lk, tx_type, (from, lf));
            }
            if status == 50 {
                process_transfer(d, key)?;
            }
        }
        "inventory/StockCounts" => {
            let ls = lines("StockCountLines")?;
            let status = get(&vals, "Status").as_i64().unwrap_or(12);
            let header_wh = get(&vals, "Warehouse").as_guid().unwrap_or(0);
            let mut lines_v = Vec::with_capacity(ls.len());
            for l in &ls {
                let lv = child(d, COUNT_LINES, l)?;
                let given = tracking::given_on_line(l)?;
                let item = get(&lv, "Item").as_guid().unwrap_or(0);
                let wh = get(&lv, "Warehouse").as_guid().unwrap_or(header_wh);
                let loc = get(&lv, "StorageLocation").as_guid().unwrap_or(0);
                check_location(d, wh, loc, "StorageLocation")?;
                let (loc, current) = counted_place(d, item, wh, loc);
                let target = counted(current, get(&lv, "QuantityDifference"), get(&lv, "QuantityNew"));
                // The counted numbers are checked now; against the stock then when processed.
                tracking::check_numbers(d, item, &given, target)?;
                lines_v.push((lv, given, item, (wh, loc)));
            }
            vals.push(("Status", Val::Int(12)));
            d.upsert(table, key, &vals);
            for (n, (mut lv, given, item, place)) in lines_v.into_iter().enumerate() {
                lv.extend([("StockCountID", Val::guid(key)), ("LineNumber", Val::Int(n as i64 + 1))]);
                let lk = new_key(entity(COUNT_LINES), &lv);
                d.upsert(COUNT_LINES, lk, &lv);
                tracking::keep_on_line(d, item, &given, "StockCountLine", lk, tracking::STOCK_COUNT, place);
            }
            if status == 21 {
                // Created as processed: a refusal takes the whole count back, as if never sent.
                if let Err(err) = process_count(d, key) {
                    remove(d, entity(COUNTS), key)?;
                    return Err(err);
                }
            }
        }
        "purchaseorder/PurchaseOrders" | "salesorder/SalesOrders" => {
            let (lines_name, line_table, parent) = if e.path == PURCHASE_ORDERS {
                ("PurchaseOrderLines", PO_LINES, "PurchaseOrderID")
            } else {
                ("SalesOrderLines", "salesorder/SalesOrderLines", "OrderID")
            };
            let ls = lines(lines_name)?;
            d.upsert(table, key, &vals);
            for (n, l) in ls.iter().enumerate() {
                let mut lv = child(d, line_table, l)?;
                lv.extend([(parent, Val::guid(key)), ("LineNumber", Val::Int(n as i64 + 1))]);
                let lk = new_key(entity(line_table), &lv);
                d.upsert(line_table, lk, &lv);
            }
        }
        tracking::SERIAL_MOVES | tracking::BATCH_MOVES => {
            let kind = if e.path == tracking::SERIAL_MOVES { Kind::Serial } else { Kind::Batch };
            tracking::reserve(d, kind, key, &mut vals)?;
        }
        _ => d.upsert(table, key, &vals),
    }
    Ok(Some(key))
}

fn entity(path: &str) -> &'static Entity {
    esm_exact::schema::entity(path).unwrap_or_else(|| unreachable_entity(path))
}

#[cold]
fn unreachable_entity(path: &str) -> ! {
    // The paths passed here are constants of this module that exist in the embedded schema.
    panic!("schema has no entity {path}")
}

/// Values of an inline line, typed by the line entity.
fn child(d: &Division, path: &str, l: &Map<String, J>) -> Result<Vec<(&'static str, Val)>, ODataError> {
    let le = entity(path);
    let mut lv = values(le, l, true)?;
    denormalise(d, &mut lv);
    copy_item_barcode(d, le, &mut lv);
    stamp(d, &mut lv, true);
    Ok(lv)
}

/// The numbers a goods receipt line brings in (`"SerialNumbers": [{"SerialNumber": "…"}]`,
/// `"BatchNumbers": [{"BatchNumber": "…", "Quantity": n}]`), checked against its item, quantity
/// and the stock (`seen` holds the serials of the receipt's earlier lines); `None` for an
/// untracked item. An unknown purchase order line is left to [`receive_line`] to refuse.
fn receipt_numbers(
    d: &Division,
    l: &Map<String, J>,
    seen: &mut HashSet<(u128, String)>,
) -> Result<Option<Vec<tracking::Piece>>, ODataError> {
    let given = tracking::given_on_line(l)?;
    let po_line = l.get("PurchaseOrderLineID").and_then(J::as_str).and_then(|s| uuid::Uuid::parse_str(s).ok());
    let Some(po_line) = po_line.map(|u| u.as_u128()).filter(|k| d.table(PO_LINES).and_then(|t| t.get(*k)).is_some())
    else {
        return Ok(None);
    };
    let item = text(d, PO_LINES, po_line, "Item").as_guid().unwrap_or(0);
    let po = text(d, PO_LINES, po_line, "PurchaseOrderID").as_guid().unwrap_or(0);
    let wh = text(d, PURCHASE_ORDERS, po, "Warehouse").as_guid().unwrap_or(0);
    let loc = match l.get("Location") {
        Some(v) if !v.is_null() => value::from_json(EdmType::Guid, v).map_err(ODataError::bad)?.as_guid().unwrap_or(0),
        _ => 0,
    };
    let quantity = l.get("QuantityReceived").map(|q| value::from_json(EdmType::Double, q)).transpose();
    let quantity = quantity.map_err(ODataError::bad)?.and_then(|q| q.as_f64()).unwrap_or(0.0);
    tracking::receipt_pieces(d, item, &given, quantity, wh, loc, seen)
}

/// How a booking of numbers is recorded for a stock transaction created now.
fn booking(d: &Division, tx: u128, draft: Option<u128>) -> Booking {
    Booking { tx, draft, date: d.now_ms, ..Booking::default() }
}

/// Where a count line counts and what is there now: a storage location (the default one when
/// none is given), or a warehouse without storage locations as a whole (its stock position).
fn counted_place(d: &Division, item: u128, wh: u128, loc: u128) -> (u128, f64) {
    if !stock::uses_locations(d, wh) {
        return (0, stock::in_warehouse(d, item, wh));
    }
    let loc = if loc == 0 { stock::default_location(d, item, wh) } else { loc };
    (loc, stock::at_location(d, item, wh, loc))
}

/// What a count line sets the stock at its place to: QuantityDifference wins when both are given.
fn counted(current: f64, difference: Val, new: Val) -> f64 {
    match difference.as_f64() {
        Some(diff) => current + diff,
        None => new.as_f64().unwrap_or(current),
    }
}

/// A receipt line's `Location` against the warehouse of the purchase order it receives (an
/// unknown order line is left to [`receive_line`] to refuse).
fn receipt_location(d: &Division, l: &Map<String, J>) -> Result<(), ODataError> {
    let guid_of =
        |f: &str| l.get(f).and_then(J::as_str).and_then(|s| uuid::Uuid::parse_str(s).ok()).map(|u| u.as_u128());
    let (Some(po_line), Some(location)) = (guid_of("PurchaseOrderLineID"), guid_of("Location")) else {
        return Ok(());
    };
    let Some(po) = text(d, PO_LINES, po_line, "PurchaseOrderID").as_guid() else { return Ok(()) };
    let wh = text(d, PURCHASE_ORDERS, po, "Warehouse").as_guid().unwrap_or(0);
    check_location(d, wh, location, "Location")
}

/// What Exact fills on a receipt header from the purchase order its lines receive: the supplier
/// and the warehouse (read-only on GoodsReceipts). Without them a posted receipt would differ from
/// Exact's, and whatever joins the header (lists, labels) would show nothing or another order's.
fn receipt_header_from_order(d: &Division, first_line: &Map<String, J>) -> Vec<(&'static str, Val)> {
    let po_line = first_line.get("PurchaseOrderLineID").and_then(J::as_str).and_then(|s| uuid::Uuid::parse_str(s).ok());
    let Some(po) = po_line.and_then(|l| text(d, PO_LINES, l.as_u128(), "PurchaseOrderID").as_guid()) else {
        return Vec::new();
    };
    ["Supplier", "SupplierCode", "SupplierName", "Warehouse", "WarehouseCode", "WarehouseDescription"]
        .into_iter()
        .map(|f| (f, text(d, PURCHASE_ORDERS, po, f)))
        .filter(|(_, v)| *v != Val::Null)
        .collect()
}

/// One goods-receipt line: raises the PO line's received quantity and the stock, and books the
/// numbers of a tracked item's units under the line's stock transaction.
fn receive_line(
    d: &mut Division,
    receipt: u128,
    n: i64,
    l: &Map<String, J>,
    pieces: Option<&[tracking::Piece]>,
) -> Result<(), ODataError> {
    let mut lv = child(d, "purchaseorder/GoodsReceiptLines", l)?;
    let po_line =
        get(&lv, "PurchaseOrderLineID").as_guid().ok_or_else(|| ODataError::bad("Verplicht: PurchaseOrderLineID"))?;
    let qty = get(&lv, "QuantityReceived").as_f64().ok_or_else(|| ODataError::bad("Verplicht: QuantityReceived"))?;
    if d.table(PO_LINES).and_then(|t| t.get(po_line)).is_none() {
        return Err(ODataError::bad("PurchaseOrderLineID: not found"));
    }
    let item = text(d, PO_LINES, po_line, "Item").as_guid().unwrap_or(0);
    let po = text(d, PO_LINES, po_line, "PurchaseOrderID").as_guid().unwrap_or(0);
    let wh = text(d, PURCHASE_ORDERS, po, "Warehouse").as_guid().unwrap_or(0);
    let loc = get(&lv, "Location").as_guid().unwrap_or(0);
    lv.extend([
        ("GoodsReceiptID", Val::guid(receipt)),
        ("LineNumber", Val::Int(n)),
        ("Item", Val::guid(item)),
        ("PurchaseOrderID", Val::guid(po)),
        ("PurchaseOrderNumber", text(d, PURCHASE_ORDERS, po, "OrderNumber")),
        ("QuantityOrdered", text(d, PO_LINES, po_line, "QuantityInPurchaseUnits")),
        ("ItemUnitCode", text(d, ITEMS, item, "Unit")),
    ]);
    if loc != 0 {
        lv.extend([
            ("LocationCode", text(d, LOCATIONS, loc, "Code")),
            ("LocationDescription", text(d, LOCATIONS, loc, "Description")),
        ]);
    }
    denormalise(d, &mut lv);
    let lk = new_key(entity("purchaseorder/GoodsReceiptLines"), &lv);
    d.upsert("purchaseorder/GoodsReceiptLines", lk, &lv);
    d.add(PO_LINES, po_line, "ReceivedQuantity", qty);
    if d.table(PURCHASE_ORDERS).and_then(|t| t.get(po)).is_some() {
        let status = receipt_status(d, po);
        d.update(PURCHASE_ORDERS, po, &[("ReceiptStatus", Val::Int(status))]);
    }
    match pieces {
        Some(pieces) => tracking::book(d, item, pieces, &booking(d, lk, None)),
        None => stock::adjust(d, item, wh, loc, qty),
    }
    Ok(())
}

/// A purchase order's `ReceiptStatus` from its lines' received quantities: 30 Complete when every
/// line has all it ordered, 20 Partial when any has something, else 10 Open; a cancelled order
/// (40) stays so.
fn receipt_status(d: &Division, po: u128) -> i64 {
    let current = text(d, PURCHASE_ORDERS, po, "ReceiptStatus").as_i64();
    if current == Some(40) {
        return 40;
    }
    let lines = d.purchase_lines.get(&po).map_or(&[][..], Vec::as_slice);
    let (mut any, mut all) = (false, true);
    for &line in lines {
        let received = text(d, PO_LINES, line, "ReceivedQuantity").as_f64().unwrap_or(0.0);
        let ordered = match text(d, PO_LINES, line, "QuantityInPurchaseUnits").as_f64() {
            Some(q) => q,
            None => text(d, PO_LINES, line, "Quantity").as_f64().unwrap_or(0.0),
        };
        any |= received > 0.0;
        all &= received >= ordered;
    }
    match (any, all) {
        (true, true) => 30,
        (true, false) => 20,
        _ => 10,
    }
}

/// A transfer or count line that goes takes its draft numbers with it.
fn drop_line_numbers(d: &mut Division, table: &str, line: u128) {
    match table {
        TRANSFER_LINES => tracking::drop_line(d, "WarehouseTransferLine", line),
        COUNT_LINES => tracking::drop_line(d, "StockCountLine", line),
        _ => {}
    }
}

fn lines_of(d: &Division, table: &str, parent_field: &str, parent: u128) -> Vec<u128> {
    let Some(t) = d.table(table) else { return Vec::new() };
    let Some(c) = t.layout.col(parent_field) else { return Vec::new() };
    t.rows.iter().filter(|(_, r)| r.get(c).as_guid() == Some(parent)).map(|(k, _)| *k).collect()
}

/// A warehouse's code for messages (its GUID when it has none).
fn warehouse_code(d: &Division, warehouse: u128) -> String {
    match text(d, WAREHOUSES, warehouse, "Code").as_str() {
        Some(code) => code.to_string(),
        None => uuid::Uuid::from_u128(warehouse).to_string(),
    }
}

/// A storage location given in `field` for stock in `warehouse`, checked as Exact checks it: it
/// must exist, the warehouse must use storage locations, and it must be one of that warehouse's.
/// None given is fine: a located warehouse's stock then lands on its default location.
fn check_location(d: &Division, warehouse: u128, location: u128, field: &str) -> Result<(), ODataError> {
    if location == 0 {
        return Ok(());
    }
    if d.table(LOCATIONS).and_then(|t| t.get(location)).is_none() {
        return Err(ODataError::bad(format!("{field}: not found")));
    }
    if !stock::uses_locations(d, warehouse) {
        return Err(ODataError::bad(format!(
            "Warehouse {} does not use storage locations: {field} must be empty.",
            warehouse_code(d, warehouse)
        )));
    }
    if text(d, LOCATIONS, location, "Warehouse").as_guid() != Some(warehouse) {
        let code = text(d, LOCATIONS, location, "Code");
        return Err(ODataError::bad(format!(
            "Storage location {} does not belong to warehouse {}.",
            code.as_str().unwrap_or_default(),
            warehouse_code(d, warehouse)
        )));
    }
    Ok(())
}

/// A transfer line's storage locations against its header's warehouses. The same warehouse on
/// both sides makes a location transfer, which moves stock between two of its storage locations:
/// the warehouse must use them and the line must name both.
fn check_transfer_line(d: &Division, from: u128, to: u128, lf: u128, lt: u128) -> Result<(), ODataError> {
    if from == to {
        if !stock::uses_locations(d, from) {
            return Err(ODataError::bad(format!(
                "Warehouse {} does not use storage locations: a transfer within one warehouse moves stock between its storage locations. Choose another warehouse to transfer to.",
                warehouse_code(d, from)
            )));
        }
        if lf == 0 {
            return Err(ODataError::bad("Verplicht: StorageLocationFrom"));
        }
        if lt == 0 {
            return Err(ODataError::bad("Verplicht: StorageLocationTo"));
        }
    }
    check_location(d, from, lf, "StorageLocationFrom")?;
    check_location(d, to, lt, "StorageLocationTo")
}

fn process_transfer(d: &mut Division, id: u128) -> Result<(), ODataError> {
    if d.table(TRANSFERS).and_then(|t| t.get(id)).is_none() {
        return Err(not_found());
    }
    if text(d, TRANSFERS, id, "Status").as_i64() == Some(50) {
        return Err(ODataError::bad("Only draft warehouse transfers can be processed."));
    }
    let from = text(d, TRANSFERS, id, "WarehouseFrom").as_guid().unwrap_or(0);
    let to = text(d, TRANSFERS, id, "WarehouseTo").as_guid().unwrap_or(0);
    // Every line is checked (tracked items' numbers at the from-place) before stock moves.
    let mut taken = Default::default();
    let mut moves = Vec::new();
    for line in lines_of(d, TRANSFER_LINES, "TransferID", id) {
        let item = text(d, TRANSFER_LINES, line, "Item").as_guid().unwrap_or(0);
        let qty = text(d, TRANSFER_LINES, line, "Quantity").as_f64().unwrap_or(0.0);
        let lf = text(d, TRANSFER_LINES, line, "StorageLocationFrom").as_guid().unwrap_or(0);
        let lt = text(d, TRANSFER_LINES, line, "StorageLocationTo").as_guid().unwrap_or(0);
        check_transfer_line(d, from, to, lf, lt)?;
        let given = tracking::transfer_line_numbers(d, line);
        let pieces = tracking::transfer_pieces(d, item, &given, qty, (from, lf), (to, lt), &mut taken)?;
        moves.push((line, item, qty, lf, lt, pieces));
    }
    for (line, item, qty, lf, lt, pieces) in moves {
        match pieces {
            Some(pieces) => {
                let b = Booking { tx: line, transfer_line: Some(line), date: d.now_ms, ..Booking::default() };
                tracking::book(d, item, &pieces, &b);
            }
            None => {
                stock::adjust(d, item, from, lf, -qty);
                stock::adjust(d, item, to, lt, qty);
            }
        }
    }
    let now = Val::Date(d.now_ms);
    d.update(TRANSFERS, id, &[("Status", Val::Int(50)), ("TransferDate", now)]);
    Ok(())
}

fn process_count(d: &mut Division, id: u128) -> Result<(), ODataError> {
    if d.table(COUNTS).and_then(|t| t.get(id)).is_none() {
        return Err(not_found());
    }
    if text(d, COUNTS, id, "Status").as_i64() == Some(21) {
        return Err(ODataError::bad("Only draft stock counts can be processed."));
    }
    let header_wh = text(d, COUNTS, id, "Warehouse").as_guid().unwrap_or(0);
    // Every line is checked (tracked items' counted numbers) before stock moves.
    let mut moves = Vec::new();
    let wh_of = |d: &Division, line: u128| text(d, COUNT_LINES, line, "Warehouse").as_guid().unwrap_or(header_wh);
    for line in lines_of(d, COUNT_LINES, "StockCountID", id) {
        let item = text(d, COUNT_LINES, line, "Item").as_guid().unwrap_or(0);
        let wh = wh_of(d, line);
        let loc = text(d, COUNT_LINES, line, "StorageLocation").as_guid().unwrap_or(0);
        check_location(d, wh, loc, "StorageLocation")?;
        let (loc, current) = counted_place(d, item, wh, loc);
        let diff = text(d, COUNT_LINES, line, "QuantityDifference");
        let target = counted(current, diff, text(d, COUNT_LINES, line, "QuantityNew"));
        let pieces = tracking::count_pieces(d, item, line, wh, loc, target)?;
        moves.push((line, item, wh, loc, current, target, pieces));
    }
    for (line, item, wh, loc, current, target, pieces) in moves {
        match pieces {
            Some(pieces) => {
                // The counted numbers were kept as drafts; the count's movements replace them.
                tracking::drop_line(d, "StockCountLine", line);
                let b = Booking { tx: line, count_line: Some(line), date: d.now_ms, ..Booking::default() };
                tracking::book(d, item, &pieces, &b);
            }
            None => stock::adjust(d, item, wh, loc, target - current),
        }
        d.update(COUNT_LINES, line, &[("QuantityInStock", Val::Dbl(current)), ("Status", Val::Int(21))]);
    }
    d.update(COUNTS, id, &[("Status", Val::Int(21))]);
    Ok(())
}

/// A transfer or stock count that was processed (its stock moved): the provider changes and
/// deletes only drafts.
fn processed(d: &Division, e: &Entity, key: u128) -> bool {
    let done = match e.path {
        TRANSFERS => 50,
        COUNTS => 21,
        _ => return false,
    };
    text(d, table_of(e), key, "Status").as_i64() == Some(done)
}

fn update(d: &mut Division, e: &'static Entity, key: u128, obj: &Map<String, J>) -> Result<(), ODataError> {
    let table = table_of(e);
    if d.table(table).and_then(|t| t.get(key)).is_none() {
        return Err(not_found());
    }
    if processed(d, e, key) {
        return Err(ODataError::bad("Only drafts can be changed."));
    }
    let mut vals = values(e, obj, false)?;
    denormalise(d, &mut vals);
    stamp(d, &mut vals, false);
    // (a purchase order line's change stamps its order's rows of the sync stream again: the store does it)
    d.update(table, key, &vals);
    Ok(())
}

pub(super) fn remove(d: &mut Division, e: &'static Entity, key: u128) -> Result<(), ODataError> {
    let table = table_of(e);
    if table == purchase_sync::TABLE {
        // Derived rows go with their purchase order or line.
        return Err(ODataError {
            status: 405,
            message: "The HTTP verb 'DELETE' is not allowed on this endpoint.".into(),
        });
    }
    if d.table(table).and_then(|t| t.get(key)).is_none() {
        return Err(not_found());
    }
    let children: &[(&str, &str)] = match e.path {
        SHOP_ORDERS => &[(PLANS, "ShopOrder"), ("manufacturing/ShopOrderRoutingStepPlans", "ShopOrder")],
        PURCHASE_ORDERS => &[(PO_LINES, "PurchaseOrderID")],
        "salesorder/SalesOrders" => &[("salesorder/SalesOrderLines", "OrderID")],
        TRANSFERS => &[(TRANSFER_LINES, "TransferID")],
        COUNTS => &[(COUNT_LINES, "StockCountID")],
        _ => &[],
    };
    for (t, parent) in children {
        for k in lines_of(d, t, parent, key) {
            drop_line_numbers(d, t, k);
            d.delete(t, k);
        }
    }
    drop_line_numbers(d, table, key);
    if e.path == "inventory/ItemWarehouses" {
        let item = text(d, table, key, "Item").as_guid().unwrap_or(0);
        let wh = text(d, table, key, "Warehouse").as_guid().unwrap_or(0);
        d.item_warehouses.remove(&(item, wh));
    }
    d.delete(table, key);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{Scale, generate};
    use crate::stock::{GOODS_RECEIPT_TRANSACTION, SERIAL_NUMBERS};
    use serde_json::json;

    fn division() -> Division {
        generate(Scale::Small, 7, 1_780_000_000_000, "http://sim").data.remove(0)
    }

    fn first_key(d: &Division, table: &str) -> u128 {
        d.table(table).and_then(|t| t.rows.keys().next().copied()).expect("generated rows")
    }

    fn send(
        d: &mut Division,
        path: &str,
        method: &str,
        key: Option<u128>,
        body: J,
    ) -> Result<Option<u128>, ODataError> {
        let key = key.map(|k| format!("guid'{}'", uuid::Uuid::from_u128(k)));
        apply(d, entity(path), method, key.as_deref(), body.to_string().as_bytes())
    }

    #[test]
    fn only_draft_transfers_and_counts_can_be_deleted() {
        let mut d = division();
        let whs: Vec<u128> = d.table(WAREHOUSES).map(|t| t.rows.keys().copied().collect()).unwrap_or_default();
        let item = first_key(&d, ITEMS);
        let line = json!([{"Item": uuid::Uuid::from_u128(item).to_string(), "Quantity": 1}]);
        let (wh, to) = (uuid::Uuid::from_u128(whs[0]).to_string(), uuid::Uuid::from_u128(whs[1]).to_string());
        let body =
            json!({"WarehouseFrom": wh, "WarehouseTo": to, "EntryDate": "2026-03-10", "WarehouseTransferLines": line});
        let draft = send(&mut d, TRANSFERS, "POST", None, body.clone()).unwrap().unwrap();
        let mut done = body;
        done["Status"] = json!(50);
        let done = send(&mut d, TRANSFERS, "POST", None, done).unwrap().unwrap();
        let err = send(&mut d, TRANSFERS, "DELETE", Some(done), J::Null).unwrap_err();
        assert_eq!((err.status, err.message.as_str()), (400, "Only drafts can be deleted."));
        assert!(send(&mut d, TRANSFERS, "DELETE", Some(draft), J::Null).unwrap().is_none());
        assert!(d.table(TRANSFERS).and_then(|t| t.get(draft)).is_none());
        assert!(d.table(TRANSFERS).and_then(|t| t.get(done)).is_some());

        let count = json!({"Warehouse": wh, "StockCountDate": "2026-03-10", "Status": 21,
            "StockCountLines": [{"Item": uuid::Uuid::from_u128(item).to_string(), "QuantityNew": 3}]});
        let counted = send(&mut d, COUNTS, "POST", None, count).unwrap().unwrap();
        assert_eq!(send(&mut d, COUNTS, "DELETE", Some(counted), J::Null).unwrap_err().status, 400);
    }

    #[test]
    fn purchase_order_lines_carry_their_items_barcode_as_exact_copies_it() {
        let mut d = division();
        let barcode = |d: &Division, item: u128| text(d, ITEMS, item, "Barcode");
        // generated: every line of an item with a barcode has it
        let lines = d.table(PO_LINES).expect("purchase order lines");
        let mut barcoded = 0;
        for k in lines.rows.keys() {
            let item = lines.value(*k, "Item").as_guid().expect("an item");
            assert_eq!(lines.value(*k, "ItemBarcode"), barcode(&d, item));
            barcoded += usize::from(barcode(&d, item) != Val::Null);
        }
        assert!(barcoded > 0, "some ordered items have a barcode");
        // created: copied from the item like its code
        let items: Vec<u128> = d.table(ITEMS).map(|t| t.rows.keys().copied().collect()).unwrap_or_default();
        let item = items.into_iter().find(|i| barcode(&d, *i) != Val::Null).expect("an item with a barcode");
        let supplier = first_key(&d, "crm/Accounts");
        let (located, _) = warehouses(&d);
        let body = json!({"Supplier": g(supplier), "Warehouse": g(located[0]), "OrderDate": "2026-03-10",
            "PurchaseOrderLines": [{"Item": g(item), "QuantityInPurchaseUnits": 4, "ReceiptDate": "2026-03-20"}]});
        let po = send(&mut d, PURCHASE_ORDERS, "POST", None, body).unwrap().unwrap();
        let lines = d.table(PO_LINES).expect("purchase order lines");
        let line = lines.rows.keys().copied().find(|k| lines.value(*k, "PurchaseOrderID").as_guid() == Some(po));
        assert_eq!(lines.value(line.expect("the created line"), "ItemBarcode"), barcode(&d, item));
    }

    /// The division's warehouses: (located, unlocated), each in key order.
    fn warehouses(d: &Division) -> (Vec<u128>, Vec<u128>) {
        let all: Vec<u128> = d.table(WAREHOUSES).map(|t| t.rows.keys().copied().collect()).unwrap_or_default();
        all.into_iter().partition(|w| stock::uses_locations(d, *w))
    }

    fn location_of(d: &Division, wh: u128) -> u128 {
        let t = d.table(LOCATIONS).expect("locations");
        t.rows.keys().copied().find(|k| t.value(*k, "Warehouse").as_guid() == Some(wh)).expect("a location")
    }

    fn g(k: u128) -> String {
        uuid::Uuid::from_u128(k).to_string()
    }

    /// An item with stock in both warehouses without storage locations.
    fn item_in(d: &Division, a: u128, b: u128) -> u128 {
        let items: Vec<u128> = d.table(ITEMS).map(|t| t.rows.keys().copied().collect()).unwrap_or_default();
        items
            .into_iter()
            .find(|i| stock::in_warehouse(d, *i, a) > 2.0 && stock::in_warehouse(d, *i, b) > 0.0)
            .expect("an item in both")
    }

    #[test]
    fn a_transfer_between_warehouses_without_locations_moves_their_positions_only() {
        let mut d = division();
        let (_, unlocated) = warehouses(&d);
        let (a, b) = (unlocated[0], unlocated[1]);
        let item = item_in(&d, a, b);
        let (in_a, in_b) = (stock::in_warehouse(&d, item, a), stock::in_warehouse(&d, item, b));
        let sl_rows = d.table(crate::store::SL_STOCK_POSITIONS).map_or(0, |t| t.len());
        let body = json!({"WarehouseFrom": g(a), "WarehouseTo": g(b), "EntryDate": "2026-03-10", "Status": 50,
            "WarehouseTransferLines": [{"Item": g(item), "Quantity": 2}]});
        send(&mut d, TRANSFERS, "POST", None, body).unwrap();
        assert_eq!((stock::in_warehouse(&d, item, a), stock::in_warehouse(&d, item, b)), (in_a - 2.0, in_b + 2.0));
        assert_eq!(d.table(crate::store::SL_STOCK_POSITIONS).map_or(0, |t| t.len()), sl_rows);
        assert!(stock::mismatches(&d).is_empty());

        // A count of one sets its position.
        let body = json!({"Warehouse": g(a), "StockCountDate": "2026-03-10", "Status": 21,
            "StockCountLines": [{"Item": g(item), "QuantityNew": 11}]});
        let count = send(&mut d, COUNTS, "POST", None, body).unwrap().expect("created");
        assert_eq!(stock::in_warehouse(&d, item, a), 11.0);
        let line = lines_of(&d, COUNT_LINES, "StockCountID", count)[0];
        assert_eq!(text(&d, COUNT_LINES, line, "QuantityInStock"), Val::Dbl(in_a - 2.0));
        assert!(stock::mismatches(&d).is_empty());
    }

    #[test]
    fn locations_are_refused_where_exact_refuses_them() {
        let mut d = division();
        let (located, unlocated) = warehouses(&d);
        let (a, b) = (unlocated[0], unlocated[1]);
        let item = item_in(&d, a, b);
        let transfers = |d: &Division| d.table(TRANSFERS).map_or(0, |t| t.len());
        let counts = |d: &Division| d.table(COUNTS).map_or(0, |t| t.len());
        let (t0, c0) = (transfers(&d), counts(&d));
        let code = |w: u128| text(&d, WAREHOUSES, w, "Code").as_str().unwrap_or_default().to_string();
        let (code_a, code_b) = (code(a), code(b));
        let loc = location_of(&d, located[0]);
        let other = location_of(&d, located[1]);
        let transfer = |from: u128, to: u128, line: J| {
            json!({"WarehouseFrom": g(from), "WarehouseTo": g(to), "EntryDate": "2026-03-10", "Status": 50,
                "WarehouseTransferLines": [line]})
        };
        let refused = |d: &mut Division, path: &str, body: J| send(d, path, "POST", None, body).unwrap_err();

        // Within a warehouse without locations: nothing to move between.
        let err = refused(&mut d, TRANSFERS, transfer(a, a, json!({"Item": g(item), "Quantity": 1})));
        assert_eq!(err.status, 400);
        assert!(err.message.starts_with(&format!("Warehouse {code_a} does not use storage locations")), "{err:?}");
        // A location for a warehouse that has none, on either side.
        let err = refused(
            &mut d,
            TRANSFERS,
            transfer(located[0], b, json!({"Item": g(item), "Quantity": 1, "StorageLocationTo": g(loc)})),
        );
        assert_eq!(
            err.message,
            format!("Warehouse {code_b} does not use storage locations: StorageLocationTo must be empty.")
        );
        // A location of another warehouse.
        let err = refused(
            &mut d,
            TRANSFERS,
            transfer(located[0], a, json!({"Item": g(item), "Quantity": 1, "StorageLocationFrom": g(other)})),
        );
        assert!(err.message.starts_with("Storage location ") && err.message.contains("does not belong to warehouse"));
        // A location transfer names both locations.
        let err = refused(
            &mut d,
            TRANSFERS,
            transfer(located[0], located[0], json!({"Item": g(item), "Quantity": 1, "StorageLocationFrom": g(loc)})),
        );
        assert_eq!(err.message, "Verplicht: StorageLocationTo");
        let body = json!({"Warehouse": g(a), "StockCountDate": "2026-03-10", "Status": 21,
            "StockCountLines": [{"Item": g(item), "QuantityNew": 1, "StorageLocation": g(loc)}]});
        let err = refused(&mut d, COUNTS, body);
        assert_eq!(
            err.message,
            format!("Warehouse {code_a} does not use storage locations: StorageLocation must be empty.")
        );
        assert_eq!((transfers(&d), counts(&d)), (t0, c0), "a refused write leaves nothing behind");
        assert!(stock::mismatches(&d).is_empty());

        // Out of a located warehouse without a location: from the default location, as before.
        let body = transfer(located[0], a, json!({"Item": g(item), "Quantity": 1}));
        assert!(send(&mut d, TRANSFERS, "POST", None, body).is_ok());
        assert!(stock::mismatches(&d).is_empty());
    }

    #[test]
    fn an_issue_from_a_warehouse_without_locations_takes_none() {
        let mut d = division();
        let (located, unlocated) = warehouses(&d);
        // the first material line (not a by-product) of an untracked material
        let plans = d.table(PLANS).expect("plans");
        let mut keys: Vec<u128> = plans.rows.keys().copied().collect();
        keys.sort_unstable();
        let plan = keys
            .into_iter()
            .find(|k| {
                plans.value(*k, "Type").as_i64() == Some(1)
                    && plans.value(*k, "Item").as_guid().is_some_and(|i| tracking::kind_of(&d, i).is_none())
            })
            .expect("a material line");
        let so = text(&d, PLANS, plan, "ShopOrder").as_guid().expect("its order");
        let item = text(&d, PLANS, plan, "Item").as_guid().expect("its item");
        // The order's warehouse becomes one without locations, as a factory may run it.
        d.update(SHOP_ORDERS, so, &[("Warehouse", Val::guid(unlocated[0]))]);
        stock::adjust(&mut d, item, unlocated[0], 0, 5.0);
        let before = stock::in_warehouse(&d, item, unlocated[0]);
        let issue = |loc: Option<u128>| {
            let mut body = json!({"ShopOrderMaterialPlan": g(plan), "Quantity": 2, "TransactionDate": "2026-03-10"});
            if let Some(l) = loc {
                body["StorageLocation"] = json!(g(l));
            }
            body
        };
        let elsewhere = location_of(&d, located[0]);
        let err = send(&mut d, "manufacturing/MaterialIssues", "POST", None, issue(Some(elsewhere))).unwrap_err();
        assert!(err.message.contains("does not use storage locations: StorageLocation must be empty."), "{err:?}");
        send(&mut d, "manufacturing/MaterialIssues", "POST", None, issue(None)).unwrap();
        assert_eq!(stock::in_warehouse(&d, item, unlocated[0]), before - 2.0);
        assert!(stock::mismatches(&d).is_empty());
    }

    #[test]
    fn a_new_selection_code_carries_its_code_and_description() {
        let mut d = division();
        let order = first_key(&d, SHOP_ORDERS);
        let code = first_key(&d, "logistics/SelectionCodes");
        let status = text(&d, SHOP_ORDERS, order, "Status");
        let other = if status.as_i64() == Some(40) { 10 } else { 40 };
        let body = json!({"SelectionCode": uuid::Uuid::from_u128(code).to_string(), "Status": other, "YourRef": "X-1"});
        send(&mut d, SHOP_ORDERS, "PUT", Some(order), body).unwrap();
        let so = |f: &str| text(&d, SHOP_ORDERS, order, f);
        assert_eq!(so("SelectionCodeCode"), text(&d, "logistics/SelectionCodes", code, "Code"));
        assert_eq!(so("YourRef"), Val::str("X-1"));
        // Status is read-only at the provider: a PUT carrying it is accepted and leaves it alone
        assert_eq!(so("Status"), status);
    }

    #[test]
    fn a_receipt_of_a_serial_item_keeps_one_serial_number_per_unit() {
        let mut d = division();
        let po_lines = d.table(PO_LINES).expect("purchase order lines");
        let of_item = |serial: bool| {
            po_lines.rows.keys().copied().find(|k| {
                let item = po_lines.value(*k, "Item").as_guid().unwrap_or(0);
                (text(&d, ITEMS, item, "IsSerialItem") == Val::Bool(true)) == serial
            })
        };
        let (serial_line, plain_line) =
            (of_item(true).expect("a serial item's line"), of_item(false).expect("another"));
        let item = text(&d, PO_LINES, serial_line, "Item").as_guid().unwrap();
        let receipt = |line: u128, quantity: u32, serials: &[&str]| {
            let numbers: Vec<J> = serials.iter().map(|s| json!({"SerialNumber": s})).collect();
            json!({"ReceiptDate": "2026-03-10", "GoodsReceiptLines": [{"PurchaseOrderLineID":
                uuid::Uuid::from_u128(line).to_string(), "QuantityReceived": quantity, "SerialNumbers": numbers}]})
        };
        let receipts = |d: &Division| d.table("purchaseorder/GoodsReceipts").map_or(0, |t| t.rows.len());
        let before = receipts(&d);

        let body = receipt(serial_line, 2, &["X-2", "X-1"]);
        let key = send(&mut d, "purchaseorder/GoodsReceipts", "POST", None, body).unwrap().expect("created");
        let line = lines_of(&d, "purchaseorder/GoodsReceiptLines", "GoodsReceiptID", key)[0];
        // Numbered as the provider numbers them: the next receipt number, the order's number on the line.
        let numbers = d.table("purchaseorder/GoodsReceipts").unwrap();
        let last =
            numbers.rows.keys().filter(|k| **k != key).filter_map(|k| numbers.value(*k, "ReceiptNumber").as_i64());
        assert_eq!(text(&d, "purchaseorder/GoodsReceipts", key, "ReceiptNumber").as_i64(), last.max().map(|n| n + 1));
        let po = text(&d, PO_LINES, serial_line, "PurchaseOrderID").as_guid().unwrap();
        let po_number = text(&d, PURCHASE_ORDERS, po, "OrderNumber");
        assert_eq!(text(&d, "purchaseorder/GoodsReceiptLines", line, "PurchaseOrderNumber"), po_number);
        let mut kept: Vec<(Val, Val, Val, Val)> = lines_of(&d, SERIAL_NUMBERS, "StockTransactionID", line)
            .into_iter()
            .map(|k| {
                let v = |f: &str| text(&d, SERIAL_NUMBERS, k, f);
                (v("SerialNumber"), v("Item"), v("StockTransactionType"), v("ItemCode"))
            })
            .collect();
        kept.sort_by_key(|(serial, ..)| serial.as_str().map(str::to_string));
        let code = text(&d, ITEMS, item, "Code");
        let expected = |s: &str| (Val::str(s), Val::guid(item), Val::Int(GOODS_RECEIPT_TRANSACTION), code.clone());
        assert_eq!(kept, vec![expected("X-1"), expected("X-2")]);

        let refused =
            |d: &mut Division, body: J| send(d, "purchaseorder/GoodsReceipts", "POST", None, body).unwrap_err();
        let err = refused(&mut d, receipt(serial_line, 3, &["X-3", "X-4"]));
        assert!(err.message.contains("one serial number per unit"), "{err:?}");
        let err = refused(&mut d, receipt(serial_line, 2, &["X-5", "X-5"]));
        assert!(err.message.contains("X-5") && err.message.contains("given twice"), "{err:?}");
        let err = refused(&mut d, receipt(serial_line, 1, &["X-1"]));
        assert!(err.message.contains("X-1") && err.message.contains("already in stock"), "{err:?}");
        let err = refused(&mut d, receipt(plain_line, 1, &["Y-1"]));
        assert!(err.message.contains("not a serial item"), "{err:?}");
        let err = refused(&mut d, receipt(serial_line, 1, &[" "]));
        assert_eq!(err.message, "Verplicht: SerialNumber");
        // Without numbers, as Exact: a serial item's units each need theirs.
        let err = refused(&mut d, receipt(serial_line, 1, &[]));
        assert!(err.message.contains("its serial numbers are mandatory"), "{err:?}");
        assert_eq!(receipts(&d), before + 1, "a refused receipt writes nothing");
    }

    #[test]
    fn a_posted_receipt_carries_its_orders_supplier_and_warehouse_as_exact_fills_them() {
        let mut d = division();
        let po_lines = d.table(PO_LINES).expect("purchase order lines");
        let pos = d.table(PURCHASE_ORDERS).expect("purchase orders");
        let order_of = |l: u128| po_lines.value(l, "PurchaseOrderID").as_guid().unwrap_or(0);
        // An order of another supplier than the first one's, so a value taken from the wrong order shows.
        let first = first_key(&d, PO_LINES);
        let other = po_lines
            .rows
            .keys()
            .copied()
            .filter(|l| tracking::kind_of(&d, po_lines.value(*l, "Item").as_guid().unwrap_or(0)).is_none())
            .find(|l| pos.value(order_of(first), "Supplier") != pos.value(order_of(*l), "Supplier"))
            .expect("an order of another supplier, of an untracked item");
        let location = d
            .table(LOCATIONS)
            .and_then(|t| {
                t.rows.keys().copied().find(|k| t.value(*k, "Warehouse") == pos.value(order_of(other), "Warehouse"))
            })
            .expect("a storage location of the order's warehouse");
        let body = json!({"ReceiptDate": "2026-03-10", "GoodsReceiptLines": [{"PurchaseOrderLineID":
            uuid::Uuid::from_u128(other).to_string(), "QuantityReceived": 2,
            "Location": uuid::Uuid::from_u128(location).to_string()}]});
        let po = order_of(other);
        let key = send(&mut d, "purchaseorder/GoodsReceipts", "POST", None, body).unwrap().expect("created");
        for field in ["Supplier", "SupplierCode", "SupplierName", "Warehouse", "WarehouseCode", "WarehouseDescription"]
        {
            let from_order = text(&d, PURCHASE_ORDERS, po, field);
            assert_ne!(from_order, Val::Null, "{field}");
            assert_eq!(text(&d, "purchaseorder/GoodsReceipts", key, field), from_order, "{field}");
        }
        let line = lines_of(&d, "purchaseorder/GoodsReceiptLines", "GoodsReceiptID", key)[0];
        let item = text(&d, PO_LINES, other, "Item").as_guid().expect("an item");
        let on_line = |f: &str| text(&d, "purchaseorder/GoodsReceiptLines", line, f);
        assert_eq!(on_line("ItemUnitCode"), text(&d, ITEMS, item, "Unit"));
        assert_eq!(on_line("LocationCode"), text(&d, LOCATIONS, location, "Code"));
        assert_eq!(on_line("LocationDescription"), text(&d, LOCATIONS, location, "Description"));
        assert_eq!(on_line("QuantityReceived"), Val::Dbl(2.0));
    }
}
