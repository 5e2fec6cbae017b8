//! The write API's actions (spec §7) turned into outbox entries. Bodies are checked here, before
//! anything is queued, so a bad request is a clear 400 and never a failed entry later.
//!
//! Every create is made recognisable at the provider so that a send whose answer was lost can be
//! checked instead of repeated: a key we choose where the provider accepts one (transfers, counts,
//! receipt lines, hours), else our marker in a text field (material issues' Note).

use super::entry::{Entry, Method, Reconcile, State};
use super::numbers;
use crate::exact::oauth::now_ms;
use esm_base::language::Language;
use esm_base::texts::{Line, Text};
use serde_json::{Map, Value, json};

/// Who makes the write: their token sends it, so the provider records them.
#[derive(Debug, Clone)]
pub struct Actor {
    pub user: String,
    pub user_name: String,
}

/// A refused body: the message names the field and the problem.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum Invalid {
    /// What a user can get wrong (a quantity, a number given twice): said in their language.
    #[error("{0}")]
    Said(Text),
    /// What only the caller's code gets wrong (shapes, field names, GUIDs, dates): English.
    #[error("{0}")]
    Plain(String),
}

impl From<Invalid> for crate::error::AppError {
    fn from(e: Invalid) -> Self {
        use crate::error::{AppError, Code};
        match e {
            // what a user can get wrong is said again in their language by the error handler
            Invalid::Said(text) => AppError::said(Code::BadRequest, text),
            Invalid::Plain(msg) if msg == Code::EmptyPayload.message() => AppError::new(Code::EmptyPayload),
            Invalid::Plain(msg) => AppError::bad_request(msg),
        }
    }
}

impl Invalid {
    /// The same refusal, of line `n` (from 0) of the booking's `line`s.
    pub fn on(self, line: Line, n: usize) -> Invalid {
        match self {
            Invalid::Said(text) => Invalid::Said(Text::OnLine { line, n: n + 1, text: Box::new(text) }),
            Invalid::Plain(msg) => Invalid::Plain(format!("{} {}: {msg}", line.said_in(Language::En), n + 1)),
        }
    }
}

fn invalid(msg: impl Into<String>) -> Invalid {
    Invalid::Plain(msg.into())
}

const STOCK: &[&str] = &["stockPositions", "storageLocationStockPositions"];

/// Shop order fields the product writes back (spec §3).
pub const SHOP_ORDER_FIELDS: &[&str] = &[
    "AccessCode",
    "ProductionLeadDays",
    "PlannedStartDate",
    "PlannedDate",
    "EntryDate",
    "SelectionCode",
    "Notes",
    "IsInPlanning",
    "IsOnHold",
    "IsReleased",
    "Status",
    "ShiftingFullProject",
    "YourRef",
];

/// The fields of `updateSalesOrderLine` (`super::bodies::SalesOrderLineUpdate`).
pub const SALES_ORDER_LINE_FIELDS: &[&str] = &["ID", "DeliveryDate"];
/// The fields of one material issue (`super::bodies::MaterialIssue`).
pub const MATERIAL_ISSUE_FIELDS: &[&str] = &[
    "Quantity",
    "ShopOrderMaterialPlan",
    "TransactionDate",
    "StorageLocation",
    "DraftStockTransactionID",
    "Note",
    numbers::SERIALS,
    numbers::BATCHES,
];
/// The fields of `createShopOrderReceipt` (`super::bodies::ShopOrderReceipt`).
pub const SHOP_ORDER_RECEIPT_FIELDS: &[&str] = &[
    "ShopOrder",
    "Quantity",
    "TransactionDate",
    "StorageLocation",
    "DraftStockTransactionID",
    numbers::SERIALS,
    numbers::BATCHES,
];

/// The fields of `createByProductReceipt` (`super::bodies::ByProductReceipt`).
pub const BY_PRODUCT_RECEIPT_FIELDS: &[&str] = &[
    "ShopOrderMaterialPlan",
    "Quantity",
    "TransactionDate",
    "StorageLocation",
    "DraftStockTransactionID",
    numbers::SERIALS,
    numbers::BATCHES,
];

/// Generic writes (`/exact/{kind}`): the provider paths they may reach and with which methods.
pub const GENERIC: &[(&str, &str, &[Method], &[&str])] = &[
    ("timeTransactions", "manufacturing/TimeTransactions", &[Method::Post, Method::Put], &[]),
    ("shopOrderMaterialPlans", "manufacturing/ShopOrderMaterialPlans", &[Method::Put], &["shopOrderMaterialPlans"]),
    (
        "shopOrderRoutingStepPlans",
        "manufacturing/ShopOrderRoutingStepPlans",
        &[Method::Put],
        &["shopOrderRoutingStepPlans"],
    ),
    ("itemWarehouses", "inventory/ItemWarehouses", &[Method::Put], &["itemWarehouses"]),
    // ImportItems creates and updates items.
    ("items", "logistics/Items", &[Method::Post, Method::Put], &["items"]),
    ("salesOrderLines", "salesorder/SalesOrderLines", &[Method::Put], &["salesOrderLines"]),
];

/// Entities `deleteDataFromExact` may delete (drafts the product itself creates).
pub const DELETABLE: &[(&str, &str, &[&str])] = &[
    ("warehouseTransfers", "inventory/WarehouseTransfers", STOCK),
    ("stockCounts", "inventory/StockCounts", STOCK),
    ("timeTransactions", "manufacturing/TimeTransactions", &[]),
];

fn new_uid() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn entry(actor: &Actor, action: &str, method: Method, path: String, body: Option<Value>) -> Entry {
    Entry {
        id: 0,
        uid: new_uid(),
        action: action.to_string(),
        method,
        path,
        body,
        reconcile: Reconcile::Idempotent,
        tables: Vec::new(),
        user: actor.user.clone(),
        user_name: actor.user_name.clone(),
        state: State::Pending,
        attempts: 0,
        error: None,
        created_ms: now_ms(),
        sent_ms: None,
        done_ms: None,
        result_key: None,
        reserve: None,
    }
}

fn object<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>, Invalid> {
    v.as_object().ok_or_else(|| invalid(format!("{what} must be a JSON object")))
}

/// A GUID field, lower-cased as the provider writes them.
pub fn guid(obj: &Map<String, Value>, field: &str) -> Result<String, Invalid> {
    let text = obj.get(field).and_then(Value::as_str).ok_or_else(|| invalid(format!("{field} is required")))?;
    uuid::Uuid::parse_str(text.trim())
        .map(|u| u.to_string())
        .map_err(|_| invalid(format!("{field} must be a GUID, not '{text}'")))
}

fn optional_guid(obj: &Map<String, Value>, field: &str) -> Result<(), Invalid> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(()),
        Some(_) => guid(obj, field).map(|_| ()),
    }
}

fn number(obj: &Map<String, Value>, field: &str) -> Result<f64, Invalid> {
    let v = obj.get(field).ok_or_else(|| invalid(format!("{field} is required")))?;
    let n = match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    n.filter(|n| n.is_finite()).ok_or_else(|| invalid(format!("{field} must be a number")))
}

/// A date as the provider accepts it: ISO (`2026-11-21` or with a time) or `/Date(ms)/`.
fn date(obj: &Map<String, Value>, field: &str) -> Result<(), Invalid> {
    let text = obj.get(field).and_then(Value::as_str).ok_or_else(|| invalid(format!("{field} is required")))?;
    let t = text.trim();
    let ok = chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d").is_ok()
        || chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S").is_ok()
        || chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%.f").is_ok()
        || crate::exact::odata::parse_date_ms(t).is_some();
    if ok { Ok(()) } else { Err(invalid(format!("{field} must be a date such as 2026-11-21, not '{text}'"))) }
}

pub(super) fn optional_date(obj: &Map<String, Value>, field: &str) -> Result<(), Invalid> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(()),
        Some(_) => date(obj, field),
    }
}

fn lines<'a>(obj: &'a Map<String, Value>, field: &str) -> Result<&'a Vec<Value>, Invalid> {
    match obj.get(field) {
        Some(Value::Array(a)) if !a.is_empty() => Ok(a),
        Some(Value::Array(_)) => Err(invalid(format!("{field} needs at least one line"))),
        _ => Err(invalid(format!("{field} is required (a list of lines)"))),
    }
}

fn only_known(obj: &Map<String, Value>, known: &[&str], what: &str) -> Result<(), Invalid> {
    match obj.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(invalid(format!("{what} has no field '{k}'"))),
        None => Ok(()),
    }
}

use esm_base::clock::today_as_provider_date as today;

/// `PUT updateShopOrder`: `{ID, …write-back fields}`.
pub fn update_shop_order(actor: &Actor, body: &Value) -> Result<Vec<Entry>, Invalid> {
    let obj = object(body, "the shop order")?;
    let id = guid(obj, "ID")?;
    let mut known = SHOP_ORDER_FIELDS.to_vec();
    known.extend(["ID", "Division"]);
    only_known(obj, &known, "a shop order update")?;
    let fields: Map<String, Value> = obj
        .iter()
        .filter(|(k, _)| SHOP_ORDER_FIELDS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if fields.is_empty() {
        return Err(invalid("a shop order update needs at least one field to change"));
    }
    for f in ["PlannedStartDate", "PlannedDate", "EntryDate"] {
        optional_date(&fields, f)?;
    }
    if fields.contains_key("ProductionLeadDays") {
        let days = number(&fields, "ProductionLeadDays")?;
        // The provider's field is an Int32 of days: a fraction or a negative would be refused there.
        if days < 0.0 || days.fract() != 0.0 || days > f64::from(i32::MAX) {
            return Err(Invalid::Said(Text::LeadDaysWhole { days }));
        }
    }
    optional_guid(&fields, "SelectionCode")?;
    let mut e = entry(
        actor,
        "updateShopOrder",
        Method::Put,
        format!("manufacturing/ShopOrders(guid'{id}')"),
        Some(Value::Object(fields)),
    );
    e.tables = vec!["shopOrders".into()];
    Ok(vec![e])
}

/// `PUT updateSalesOrderLine`: `{ID, DeliveryDate}`.
pub fn update_sales_order_line(actor: &Actor, body: &Value) -> Result<Vec<Entry>, Invalid> {
    let obj = object(body, "the sales order line")?;
    only_known(obj, SALES_ORDER_LINE_FIELDS, "a sales order line update")?;
    let id = guid(obj, "ID")?;
    date(obj, "DeliveryDate")?;
    let body = json!({"DeliveryDate": obj["DeliveryDate"]});
    let mut e = entry(
        actor,
        "updateSalesOrderLine",
        Method::Put,
        format!("salesorder/SalesOrderLines(guid'{id}')"),
        Some(body),
    );
    e.tables = vec!["salesOrderLines".into()];
    Ok(vec![e])
}

/// `POST updateMaterialsIssues`: one material issue or a list; each is its own entry.
pub fn material_issues(actor: &Actor, body: &Value) -> Result<Vec<Entry>, Invalid> {
    let list: Vec<&Value> = match body {
        Value::Array(a) if a.is_empty() => return Err(invalid("The payload is empty")),
        Value::Array(a) => a.iter().collect(),
        other => vec![other],
    };
    let mut out = Vec::new();
    for (i, v) in list.into_iter().enumerate() {
        let obj = object(v, "a material issue")?;
        let at = |e: Invalid| e.on(Line::MaterialIssue, i);
        only_known(obj, MATERIAL_ISSUE_FIELDS, "a material issue").map_err(at)?;
        guid(obj, "ShopOrderMaterialPlan").map_err(at)?;
        let quantity = number(obj, "Quantity").map_err(at)?;
        if quantity == 0.0 {
            return Err(at(Invalid::Said(Text::QuantityNotZero)));
        }
        date(obj, "TransactionDate").map_err(at)?;
        optional_guid(obj, "StorageLocation").map_err(at)?;
        optional_guid(obj, "DraftStockTransactionID").map_err(at)?;
        let mut body = obj.clone();
        let reserve = numbers::reservation(&mut body, quantity, numbers::MATERIAL_ISSUE).map_err(at)?;
        let mut e = entry(actor, "updateMaterialsIssues", Method::Post, "manufacturing/MaterialIssues".into(), None);
        let marker = format!("[ESM {}]", e.uid);
        let note = match obj.get("Note").and_then(Value::as_str).map(str::trim) {
            Some(n) if !n.is_empty() => format!("{n} {marker}"),
            _ => marker.clone(),
        };
        e.reserve = reserve;
        body.insert("Note".into(), Value::String(note));
        e.body = Some(Value::Object(body));
        e.reconcile = Reconcile::Marker { path: "manufacturing/MaterialIssues".into(), field: "Note".into(), marker };
        e.tables = ["shopOrderMaterialPlans", "materialIssues", "stockPositions", "storageLocationStockPositions"]
            .map(String::from)
            .to_vec();
        out.push(e);
    }
    Ok(out)
}

/// `POST createStockCount`: a count with its lines; `process: true` also processes it.
pub fn stock_count(actor: &Actor, body: &Value) -> Result<Vec<Entry>, Invalid> {
    let obj = object(body, "the stock count")?;
    guid(obj, "Warehouse")?;
    optional_date(obj, "StockCountDate")?;
    for (i, line) in lines(obj, "StockCountLines")?.iter().enumerate() {
        let l = object(line, "a stock count line")?;
        let at = |e: Invalid| e.on(Line::StockCountLine, i);
        guid(l, "Item").map_err(at)?;
        optional_guid(l, "StorageLocation").map_err(at)?;
        if !l.contains_key("QuantityNew") && !l.contains_key("QuantityDifference") {
            return Err(at(invalid("QuantityNew or QuantityDifference is required")));
        }
        for f in ["QuantityNew", "QuantityDifference"] {
            if l.contains_key(f) {
                number(l, f).map_err(at)?;
            }
        }
        // The numbers counted are what is there: as many as (or adding up to) QuantityNew.
        match l.get("QuantityNew") {
            Some(_) => {
                numbers::read(l, number(l, "QuantityNew").map_err(at)?).map_err(at)?;
            }
            None if l.contains_key(numbers::SERIALS) || l.contains_key(numbers::BATCHES) => {
                return Err(at(invalid("a line with serial or batch numbers needs QuantityNew")));
            }
            None => {}
        }
    }
    let process = obj.get("process").and_then(Value::as_bool).unwrap_or(false);
    let mut body = obj.clone();
    body.remove("process");
    body.entry("StockCountDate").or_insert_with(|| Value::String(today()));
    let mut count = entry(actor, "createStockCount", Method::Post, "inventory/StockCounts".into(), None);
    body.insert("StockCountID".into(), Value::String(count.uid.clone()));
    count.body = Some(Value::Object(body));
    count.reconcile =
        Reconcile::Key { path: "inventory/StockCounts".into(), field: "StockCountID".into(), value: count.uid.clone() };
    count.tables = STOCK.iter().map(|s| s.to_string()).collect();
    let mut out = vec![count.clone()];
    if process {
        let mut p = entry(actor, "processStockCount", Method::Post, "inventory/ProcessStockCount".into(), None);
        p.body = Some(json!({"StockCountID": count.uid}));
        p.reconcile = Reconcile::Status {
            path: "inventory/StockCounts".into(),
            field: "StockCountID".into(),
            value: count.uid.clone(),
            status: 21,
        };
        p.tables = count.tables.clone();
        out.push(p);
    }
    Ok(out)
}

/// `POST createGoodsReceipt`: a receipt with its lines (each names its purchase order line).
pub fn goods_receipt(actor: &Actor, body: &Value) -> Result<Vec<Entry>, Invalid> {
    let obj = object(body, "the goods receipt")?;
    optional_date(obj, "ReceiptDate")?;
    let mut new_lines = Vec::new();
    for (i, line) in lines(obj, "GoodsReceiptLines")?.iter().enumerate() {
        let l = object(line, "a goods receipt line")?;
        let at = |e: Invalid| e.on(Line::GoodsReceiptLine, i);
        guid(l, "PurchaseOrderLineID").map_err(at)?;
        let received = number(l, "QuantityReceived").map_err(at)?;
        if received <= 0.0 {
            return Err(at(Invalid::Said(Text::QuantityReceivedAboveZero)));
        }
        optional_guid(l, "Location").map_err(at)?;
        numbers::read(l, received).map_err(at)?;
        let mut l = l.clone();
        // Line keys are ours: the first one tells later whether the receipt arrived.
        l.insert("ID".into(), Value::String(new_uid()));
        new_lines.push(Value::Object(l));
    }
    let first_line = new_lines[0]["ID"].as_str().unwrap_or_default().to_string();
    let mut body = obj.clone();
    body.entry("ReceiptDate").or_insert_with(|| Value::String(today()));
    body.insert("GoodsReceiptLines".into(), Value::Array(new_lines));
    let mut e = entry(
        actor,
        "createGoodsReceipt",
        Method::Post,
        "purchaseorder/GoodsReceipts".into(),
        Some(Value::Object(body)),
    );
    e.reconcile =
        Reconcile::Key { path: "purchaseorder/GoodsReceiptLines".into(), field: "ID".into(), value: first_line };
    // the received quantities and the orders' receipt status change with the stock
    e.tables = STOCK.iter().chain(&["purchaseOrders"]).map(|s| s.to_string()).collect();
    Ok(vec![e])
}

/// `POST createShopOrderReceipt`: finished products of a shop order into stock.
pub fn shop_order_receipt(actor: &Actor, body: &Value) -> Result<Vec<Entry>, Invalid> {
    receipt(
        actor,
        body,
        &Receipt {
            what: "shop order receipt",
            fields: SHOP_ORDER_RECEIPT_FIELDS,
            of: "ShopOrder",
            transaction_type: numbers::SHOP_ORDER_RECEIPT,
            action: "createShopOrderReceipt",
            path: "manufacturing/ShopOrderReceipts",
            table: "shopOrders",
        },
    )
}

/// `POST createByProductReceipt`: a by-product of a shop order (its material line of Type 2)
/// into stock.
pub fn by_product_receipt(actor: &Actor, body: &Value) -> Result<Vec<Entry>, Invalid> {
    receipt(
        actor,
        body,
        &Receipt {
            what: "by-product receipt",
            fields: BY_PRODUCT_RECEIPT_FIELDS,
            of: "ShopOrderMaterialPlan",
            transaction_type: numbers::BY_PRODUCT_RECEIPT,
            action: "createByProductReceipt",
            path: "manufacturing/ByProductReceipts",
            table: "shopOrderMaterialPlans",
        },
    )
}

/// What tells a shop order receipt and a by-product receipt apart.
struct Receipt {
    what: &'static str,
    fields: &'static [&'static str],
    /// The field naming what is received from: the order, or its by-product line.
    of: &'static str,
    transaction_type: i64,
    action: &'static str,
    path: &'static str,
    /// The local table of what it is received from (synced again afterwards).
    table: &'static str,
}

/// A receipt into stock from a shop order: one entry, a tracked item's numbers reserved first.
fn receipt(actor: &Actor, body: &Value, r: &Receipt) -> Result<Vec<Entry>, Invalid> {
    let obj = object(body, &format!("the {}", r.what))?;
    only_known(obj, r.fields, &format!("a {}", r.what))?;
    guid(obj, r.of)?;
    let quantity = number(obj, "Quantity")?;
    if quantity <= 0.0 {
        return Err(Invalid::Said(Text::QuantityAboveZero));
    }
    date(obj, "TransactionDate")?;
    optional_guid(obj, "StorageLocation")?;
    optional_guid(obj, "DraftStockTransactionID")?;
    let mut body = obj.clone();
    let reserve = numbers::reservation(&mut body, quantity, r.transaction_type)?;
    let mut e = entry(actor, r.action, Method::Post, r.path.into(), Some(Value::Object(body)));
    // The provider takes no key and no free text here: a lost answer is for the user to check,
    // unless numbers were reserved for it, which the booking marks as booked.
    e.reconcile = match &reserve {
        Some(res) => Reconcile::Reserved { path: res.path().into(), draft: res.draft.clone() },
        None => Reconcile::Unknown,
    };
    e.reserve = reserve;
    e.tables = [r.table, "stockPositions", "storageLocationStockPositions"].map(String::from).to_vec();
    Ok(vec![e])
}

/// `POST createWarehouseTransfer`: a transfer with its lines; `process: true` also processes it
/// (the spec's process-transfer call).
pub fn warehouse_transfer(actor: &Actor, body: &Value) -> Result<Vec<Entry>, Invalid> {
    let obj = object(body, "the warehouse transfer")?;
    guid(obj, "WarehouseFrom")?;
    guid(obj, "WarehouseTo")?;
    optional_date(obj, "EntryDate")?;
    let mut new_lines = Vec::new();
    for (i, line) in lines(obj, "WarehouseTransferLines")?.iter().enumerate() {
        let l = object(line, "a transfer line")?;
        let at = |e: Invalid| e.on(Line::TransferLine, i);
        guid(l, "Item").map_err(at)?;
        let quantity = number(l, "Quantity").map_err(at)?;
        if quantity <= 0.0 {
            return Err(at(Invalid::Said(Text::QuantityAboveZero)));
        }
        numbers::read(l, quantity).map_err(at)?;
        optional_guid(l, "StorageLocationFrom").map_err(at)?;
        optional_guid(l, "StorageLocationTo").map_err(at)?;
        new_lines.push(line.clone());
    }
    let process = obj.get("process").and_then(Value::as_bool).unwrap_or(false);
    let mut transfer =
        entry(actor, "createWarehouseTransfer", Method::Post, "inventory/WarehouseTransfers".into(), None);
    let mut body = obj.clone();
    body.remove("process");
    body.entry("EntryDate").or_insert_with(|| Value::String(today()));
    body.insert("TransferID".into(), Value::String(transfer.uid.clone()));
    for l in &mut new_lines {
        if let Some(l) = l.as_object_mut() {
            l.insert("TransferID".into(), Value::String(transfer.uid.clone()));
        }
    }
    body.insert("WarehouseTransferLines".into(), Value::Array(new_lines));
    transfer.body = Some(Value::Object(body));
    transfer.reconcile = Reconcile::Key {
        path: "inventory/WarehouseTransfers".into(),
        field: "TransferID".into(),
        value: transfer.uid.clone(),
    };
    transfer.tables = STOCK.iter().map(|s| s.to_string()).collect();
    let mut out = vec![transfer.clone()];
    if process {
        let mut p =
            entry(actor, "processWarehouseTransfer", Method::Post, "inventory/ProcessWarehouseTransfer".into(), None);
        p.body = Some(json!({"TransferID": transfer.uid}));
        p.reconcile = Reconcile::Status {
            path: "inventory/WarehouseTransfers".into(),
            field: "TransferID".into(),
            value: transfer.uid.clone(),
            status: 50,
        };
        p.tables = transfer.tables.clone();
        out.push(p);
    }
    Ok(out)
}

/// `POST|PUT /exact/{kind}`: `{"data": {…}}`, plus `"id"` for PUT; only allow-listed kinds.
pub fn generic(actor: &Actor, kind: &str, method: Method, body: &Value) -> Result<Vec<Entry>, Invalid> {
    let (_, path, methods, tables) = GENERIC
        .iter()
        .find(|(k, ..)| *k == kind)
        .ok_or_else(|| invalid(format!("'{kind}' cannot be written through this API")))?;
    if !methods.contains(&method) {
        return Err(invalid(format!("'{kind}' cannot be written with {method:?}")));
    }
    let obj = object(body, "the request")?;
    let data = object(obj.get("data").unwrap_or(&Value::Null), "data")?;
    if data.is_empty() {
        return Err(invalid("The payload is empty"));
    }
    let mut e = match method {
        Method::Put => {
            let id = guid(obj, "id")?;
            entry(actor, kind, method, format!("{path}(guid'{id}')"), Some(Value::Object(data.clone())))
        }
        _ => {
            let mut e = entry(actor, kind, method, path.to_string(), None);
            let mut data = data.clone();
            // Items and TimeTransactions take our key, so a lost answer can be checked.
            data.insert("ID".into(), Value::String(e.uid.clone()));
            e.body = Some(Value::Object(data));
            e.reconcile = Reconcile::Key { path: path.to_string(), field: "ID".into(), value: e.uid.clone() };
            e
        }
    };
    e.tables = tables.iter().map(|s| s.to_string()).collect();
    Ok(vec![e])
}

/// `DELETE deleteDataFromExact?endpoint=…&id=…`.
pub fn delete(actor: &Actor, endpoint: &str, id: &str) -> Result<Vec<Entry>, Invalid> {
    let (_, path, tables) = DELETABLE
        .iter()
        .find(|(k, ..)| *k == endpoint)
        .ok_or_else(|| invalid(format!("'{endpoint}' cannot be deleted through this API")))?;
    let id = uuid::Uuid::parse_str(id.trim()).map_err(|_| invalid(format!("id must be a GUID, not '{id}'")))?;
    let mut e = entry(actor, "deleteDataFromExact", Method::Delete, format!("{path}(guid'{id}')"), None);
    e.tables = tables.iter().map(|s| s.to_string()).collect();
    Ok(vec![e])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn actor() -> Actor {
        Actor { user: "u".into(), user_name: "n".into() }
    }

    const G: &str = "4792a639-3840-4d8a-b086-017acd738a52";

    #[test]
    fn shop_order_updates_carry_only_write_back_fields() {
        let e = update_shop_order(
            &actor(),
            &json!({"ID": G.to_uppercase(), "IsOnHold": true, "PlannedDate": "2026-12-01"}),
        )
        .unwrap();
        assert_eq!(e[0].path, format!("manufacturing/ShopOrders(guid'{G}')"));
        assert_eq!(e[0].body, Some(json!({"IsOnHold": true, "PlannedDate": "2026-12-01"})));
        assert_eq!(e[0].reconcile, Reconcile::Idempotent);
        let err = update_shop_order(&actor(), &json!({"ID": G, "Item": G})).unwrap_err();
        assert_eq!(err.to_string(), "a shop order update has no field 'Item'");
        assert!(update_shop_order(&actor(), &json!({"ID": G})).is_err());
        assert!(
            update_shop_order(&actor(), &json!({"ID": "nope", "Notes": "x"})).unwrap_err().to_string().contains("GUID")
        );
        assert!(
            update_shop_order(&actor(), &json!({"ID": G, "PlannedDate": "tomorrow"}))
                .unwrap_err()
                .to_string()
                .contains("date")
        );
    }

    #[test]
    fn shop_order_lead_days_and_selection_code_are_checked_before_queueing() {
        let ok = update_shop_order(
            &actor(),
            &json!({"ID": G, "ProductionLeadDays": 4, "SelectionCode": G, "YourRef": "PO-1"}),
        )
        .unwrap();
        assert_eq!(ok[0].body, Some(json!({"ProductionLeadDays": 4, "SelectionCode": G, "YourRef": "PO-1"})));
        // clearing the selection code is a change too
        assert!(update_shop_order(&actor(), &json!({"ID": G, "SelectionCode": null})).is_ok());
        for bad in [json!(1.5), json!(-1), json!("soon")] {
            let err = update_shop_order(&actor(), &json!({"ID": G, "ProductionLeadDays": bad})).unwrap_err();
            assert!(err.to_string().contains("ProductionLeadDays"), "{err}");
        }
        let err = update_shop_order(&actor(), &json!({"ID": G, "SelectionCode": "ABC"})).unwrap_err();
        assert!(err.to_string().contains("SelectionCode must be a GUID"), "{err}");
    }

    #[test]
    fn hours_transfers_and_counts_can_be_deleted() {
        for (endpoint, path) in [
            ("timeTransactions", "manufacturing/TimeTransactions"),
            ("warehouseTransfers", "inventory/WarehouseTransfers"),
            ("stockCounts", "inventory/StockCounts"),
        ] {
            let e = delete(&actor(), endpoint, &G.to_uppercase()).unwrap();
            assert_eq!(e[0].method, Method::Delete);
            assert_eq!(e[0].path, format!("{path}(guid'{G}')"));
        }
        // the stock a transfer or count moved is read again once the delete is delivered
        assert_eq!(delete(&actor(), "stockCounts", G).unwrap()[0].tables, STOCK);
        assert!(delete(&actor(), "timeTransactions", "12").unwrap_err().to_string().contains("GUID"));
    }

    #[test]
    fn material_issues_carry_a_marker_and_name_the_bad_line() {
        let ok = json!({"ShopOrderMaterialPlan": G, "Quantity": 2, "TransactionDate": "2026-11-21", "Note": "urgent"});
        let e = material_issues(&actor(), &json!([ok.clone(), ok])).unwrap();
        assert_eq!(e.len(), 2);
        let note = e[0].body.as_ref().unwrap()["Note"].as_str().unwrap().to_string();
        assert!(note.starts_with("urgent [ESM ") && note.contains(&e[0].uid));
        assert!(matches!(&e[0].reconcile, Reconcile::Marker { marker, .. } if note.ends_with(marker.as_str())));
        assert_ne!(e[0].uid, e[1].uid);
        let bad =
            json!([{"ShopOrderMaterialPlan": G, "Quantity": 1, "TransactionDate": "2026-11-21"}, {"Quantity": 1}]);
        assert_eq!(
            material_issues(&actor(), &bad).unwrap_err().to_string(),
            "material issue 2: ShopOrderMaterialPlan is required"
        );
        assert_eq!(material_issues(&actor(), &json!([])).unwrap_err().to_string(), "The payload is empty");
    }

    #[test]
    fn a_quantity_a_user_gets_wrong_is_said_in_their_language_with_its_line() {
        let ok = json!({"ShopOrderMaterialPlan": G, "Quantity": 2, "TransactionDate": "2026-11-21"});
        let zero = json!({"ShopOrderMaterialPlan": G, "Quantity": 0, "TransactionDate": "2026-11-21"});
        let err = material_issues(&actor(), &json!([ok, zero])).unwrap_err();
        assert_eq!(err.to_string(), "material issue 2: Quantity must not be 0");
        let Invalid::Said(text) = err else { panic!("a user's mistake is a catalogue text: {err:?}") };
        assert_eq!(text.said_in(Language::Nl), "materiaaluitgifte 2: De hoeveelheid (Quantity) mag niet 0 zijn");
    }

    #[test]
    fn creates_choose_their_keys_and_processing_follows() {
        let t = json!({"WarehouseFrom": G, "WarehouseTo": G, "process": true,
            "WarehouseTransferLines": [{"Item": G, "Quantity": 3}]});
        let e = warehouse_transfer(&actor(), &t).unwrap();
        assert_eq!(e.len(), 2);
        let body = e[0].body.as_ref().unwrap();
        assert_eq!(body["TransferID"], e[0].uid.as_str());
        assert_eq!(body["WarehouseTransferLines"][0]["TransferID"], e[0].uid.as_str());
        assert!(body.get("process").is_none());
        assert_eq!(e[1].path, "inventory/ProcessWarehouseTransfer");
        let r =
            goods_receipt(&actor(), &json!({"GoodsReceiptLines": [{"PurchaseOrderLineID": G, "QuantityReceived": 1}]}))
                .unwrap();
        let line_id = r[0].body.as_ref().unwrap()["GoodsReceiptLines"][0]["ID"].as_str().unwrap().to_string();
        assert!(matches!(&r[0].reconcile, Reconcile::Key { value, .. } if *value == line_id));
        assert!(
            goods_receipt(&actor(), &json!({"GoodsReceiptLines": []}))
                .unwrap_err()
                .to_string()
                .contains("at least one")
        );
        assert_eq!(
            shop_order_receipt(&actor(), &json!({"ShopOrder": G, "Quantity": 1, "TransactionDate": "2026-11-21"}))
                .unwrap()[0]
                .reconcile,
            Reconcile::Unknown
        );
    }

    #[test]
    fn generic_writes_and_deletes_keep_to_their_lists() {
        let e = generic(&actor(), "timeTransactions", Method::Post, &json!({"data": {"Hours": 2}})).unwrap();
        assert_eq!(e[0].body.as_ref().unwrap()["ID"], e[0].uid.as_str());
        assert!(generic(&actor(), "accounts", Method::Post, &json!({"data": {"Name": "x"}})).is_err());
        assert!(generic(&actor(), "salesOrderLines", Method::Post, &json!({"data": {"Item": "x"}})).is_err());
        let put = generic(&actor(), "items", Method::Put, &json!({"id": G, "data": {"Notes": "x"}})).unwrap();
        assert_eq!(put[0].path, format!("logistics/Items(guid'{G}')"));
        assert!(delete(&actor(), "items", G).is_err());
        assert_eq!(delete(&actor(), "warehouseTransfers", G).unwrap()[0].method, Method::Delete);
    }
}
