//! The purchase order lines still to come, from the local copy of Exact's purchase order stream
//! (`purchaseOrders`: each order's own row, `LineNumber` 0, and its lines' rows, 1 and up).
//!
//! Purchases and Materials used to read every row of the open orders (75,000 at scale large, in
//! 81 pages) and join them in the browser; here the lines of open orders that still expect goods
//! are joined to their order's supplier, warehouse and dates on the server, one answer.

use crate::exact::odata::{field_day as day, field_f64 as number, field_id as id, field_text as text};
use crate::kept::Kept;
use crate::store::{OrgStore, StoreResult};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use utoipa::ToSchema;

pub const TABLE: &str = "purchaseOrders";
/// Receipt statuses still expecting goods: 10 open, 20 partly received (30 complete, 40 cancelled).
const OPEN_RECEIPT_STATUS: &str = "in.(10,20)";
/// The order's and the line's fields used (every row of the stream has both kinds of column).
const FIELDS: &str = "ID,PurchaseOrderID,LineNumber,OrderNumber,OrderDate,ReceiptDate,ReceiptStatus,Supplier,\
SupplierCode,SupplierName,Warehouse,WarehouseCode,Item,ItemCode,ItemDescription,Description,Quantity,\
ReceivedQuantity,Unit,UnitDescription,Project,ProjectCode";

/// A purchase order line still to be received, with its order's fields. Ids are lower case.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenPurchaseLine {
    pub id: String,
    pub order_id: String,
    pub order_number: String,
    pub line_number: i64,
    /// The order's date, `YYYY-MM-DD`.
    pub order_day: Option<String>,
    pub item: String,
    pub item_code: String,
    pub item_description: String,
    pub supplier_id: String,
    pub supplier_code: String,
    pub supplier_name: String,
    /// The order's warehouse.
    pub warehouse: String,
    pub warehouse_code: String,
    pub project: String,
    pub project_code: String,
    /// Expected receipt day, `YYYY-MM-DD`: the line's own, else the order's.
    pub day: Option<String>,
    /// Ordered and received so far, in stock units (as the stock positions count).
    pub quantity: f64,
    pub received: f64,
    pub unit: String,
}

/// Joins lines to their open orders; lines with nothing left to receive are left out.
pub fn join(rows: &[Value]) -> Vec<OpenPurchaseLine> {
    let is_header = |r: &Value| number(r, "LineNumber") == 0.0;
    let headers: HashMap<String, &Value> = rows
        .iter()
        .filter(|r| is_header(r) && [10.0, 20.0].contains(&number(r, "ReceiptStatus")))
        .map(|h| (id(h, "PurchaseOrderID"), h))
        .collect();
    let mut out = Vec::new();
    for line in rows.iter().filter(|r| !is_header(r)) {
        let Some(h) = headers.get(&id(line, "PurchaseOrderID")) else { continue };
        let (quantity, received) = (number(line, "Quantity"), number(line, "ReceivedQuantity"));
        if quantity - received <= 0.0 {
            continue;
        }
        let description = Some(text(line, "ItemDescription")).filter(|d| !d.is_empty());
        let unit = Some(text(line, "UnitDescription")).filter(|u| !u.is_empty());
        out.push(OpenPurchaseLine {
            id: id(line, "ID"),
            order_id: id(h, "PurchaseOrderID"),
            order_number: text(h, "OrderNumber"),
            line_number: number(line, "LineNumber") as i64,
            order_day: day(h, "OrderDate"),
            item: id(line, "Item"),
            item_code: text(line, "ItemCode"),
            item_description: description.unwrap_or_else(|| text(line, "Description")),
            supplier_id: id(h, "Supplier"),
            supplier_code: text(h, "SupplierCode"),
            supplier_name: text(h, "SupplierName"),
            warehouse: id(h, "Warehouse"),
            warehouse_code: text(h, "WarehouseCode"),
            project: id(line, "Project"),
            project_code: text(line, "ProjectCode"),
            day: day(line, "ReceiptDate").or_else(|| day(h, "ReceiptDate")),
            quantity,
            received,
            unit: unit.unwrap_or_else(|| text(line, "Unit")),
        });
    }
    out
}

/// The open lines of the local copy, by order number and line number.
pub fn open_lines(store: &OrgStore) -> StoreResult<Vec<OpenPurchaseLine>> {
    let rows = store.all_rows(TABLE, &[("ReceiptStatus", OPEN_RECEIPT_STATUS), ("select", FIELDS)])?;
    let mut lines = join(&rows);
    lines.sort_by(|a, b| {
        esm_base::order::natural_cmp(&a.order_number, &b.order_number).then(a.line_number.cmp(&b.line_number))
    });
    Ok(lines)
}

/// The open lines per organization, kept until its purchase orders change.
pub struct OpenLines(Kept<Vec<OpenPurchaseLine>>);

impl Default for OpenLines {
    fn default() -> Self {
        OpenLines(Kept::new(&[TABLE]))
    }
}

impl OpenLines {
    /// The open lines of the organization's local copy (blocking: run it off the async workers).
    pub fn get(&self, division: i64, store: &OrgStore) -> StoreResult<Arc<Vec<OpenPurchaseLine>>> {
        self.0.get(division, store, open_lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn guid(n: u16) -> String {
        format!("0123ABCD-EF01-4A2B-8C3D-{n:012X}")
    }

    #[test]
    fn lines_of_open_orders_with_something_left_carry_their_orders_fields() {
        let (open, done) = (guid(1), guid(2));
        let rows = vec![
            json!({"ID": open, "PurchaseOrderID": open, "LineNumber": 0, "OrderNumber": 40080, "ReceiptStatus": 20,
                   "OrderDate": "/Date(1764547200000)/", "ReceiptDate": "/Date(1765152000000)/", "Supplier": guid(9),
                   "SupplierCode": " 300 ", "SupplierName": "Staal BV", "Warehouse": guid(8), "WarehouseCode": "1"}),
            json!({"ID": guid(11), "PurchaseOrderID": open, "LineNumber": 1, "Item": guid(20), "ItemCode": "BOLT",
                   "Description": "Bolt M8", "Quantity": 10, "ReceivedQuantity": 4, "Unit": "pc", "ReceiptDate": "/Date(1764806400000)/"}),
            // received in full: nothing left to come
            json!({"ID": guid(12), "PurchaseOrderID": open, "LineNumber": 2, "Item": guid(21), "Quantity": 5, "ReceivedQuantity": 5}),
            json!({"ID": guid(13), "PurchaseOrderID": open, "LineNumber": 3, "Item": guid(22), "ItemDescription": "Nut",
                   "Description": "ignored", "Quantity": 2, "UnitDescription": "Piece", "Unit": "pc"}),
            // the order is complete: its line is left out whatever it says
            json!({"ID": done, "PurchaseOrderID": done, "LineNumber": 0, "ReceiptStatus": 30}),
            json!({"ID": guid(14), "PurchaseOrderID": done, "LineNumber": 1, "Item": guid(20), "Quantity": 9}),
        ];
        let lines = join(&rows);
        assert_eq!(lines.iter().map(|l| l.line_number).collect::<Vec<_>>(), vec![1, 3]);
        let bolt = &lines[0];
        assert_eq!(bolt.order_id, open.to_ascii_lowercase());
        assert_eq!((bolt.order_number.as_str(), bolt.supplier_code.as_str()), ("40080", "300"));
        assert_eq!(bolt.item, guid(20).to_ascii_lowercase());
        assert_eq!((bolt.quantity, bolt.received), (10.0, 4.0));
        assert_eq!(bolt.day.as_deref(), Some("2025-12-04"), "the line's own date wins");
        assert_eq!(bolt.order_day.as_deref(), Some("2025-12-01"));
        assert_eq!(bolt.item_description, "Bolt M8");
        let nut = &lines[1];
        assert_eq!(nut.day.as_deref(), Some("2025-12-08"), "else the order's");
        assert_eq!((nut.item_description.as_str(), nut.unit.as_str()), ("Nut", "Piece"));
        assert_eq!(nut.warehouse, guid(8).to_ascii_lowercase());
    }
}
