//! What the named write calls take, as the OpenAPI document shows it. The bodies are checked by
//! hand in `super::actions` (a number may come as text, unknown header fields of a create go on to
//! the provider), so these types describe them rather than parse them; the tests keep the two
//! the same: the fields a closed body may have are the ones the checks allow, and bodies the
//! checks take read as these types.
//!
//! Dates are taken as `2026-11-21`, `2026-11-21T08:30:00` or the provider's `/Date(ms)/`; GUIDs
//! in any case. Quantities may also come as numeric text. Where a scanned booking names an item,
//! shop order or material line, a scan catalogue's name for it may stand in for its GUID
//! (`crate::scanning::references`).

use serde::Deserialize;
use utoipa::ToSchema;

/// `PUT /exact/updateShopOrder`: the shop order and at least one write-back field.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ShopOrderUpdate {
    #[serde(rename = "ID")]
    #[schema(example = "0badc0de-0000-4000-8000-000000000002")]
    pub id: String,
    /// Taken and ignored (the session's organization is written to).
    #[serde(rename = "Division")]
    pub division: Option<i64>,
    #[serde(rename = "AccessCode")]
    pub access_code: Option<String>,
    /// Whole days, 0 or more.
    #[serde(rename = "ProductionLeadDays")]
    #[schema(minimum = 0, example = 4)]
    pub production_lead_days: Option<i32>,
    #[serde(rename = "PlannedStartDate")]
    #[schema(example = "2026-12-01")]
    pub planned_start_date: Option<String>,
    #[serde(rename = "PlannedDate")]
    #[schema(example = "2026-12-04")]
    pub planned_date: Option<String>,
    #[serde(rename = "EntryDate")]
    #[schema(example = "2026-11-21")]
    pub entry_date: Option<String>,
    /// A selection code's ID, or null to clear it.
    #[serde(rename = "SelectionCode")]
    pub selection_code: Option<String>,
    #[serde(rename = "Notes")]
    #[schema(example = "Material arrives Tuesday")]
    pub notes: Option<String>,
    /// 1 or 0.
    #[serde(rename = "IsInPlanning")]
    #[schema(example = 1)]
    pub is_in_planning: Option<u8>,
    /// 1 or 0.
    #[serde(rename = "IsOnHold")]
    #[schema(example = 0)]
    pub is_on_hold: Option<u8>,
    /// 1 or 0.
    #[serde(rename = "IsReleased")]
    #[schema(example = 1)]
    pub is_released: Option<u8>,
    #[serde(rename = "Status")]
    #[schema(example = 10)]
    pub status: Option<i32>,
    /// Move the other shop orders of the project along with this one.
    #[serde(rename = "ShiftingFullProject")]
    pub shifting_full_project: Option<bool>,
    #[serde(rename = "YourRef")]
    #[schema(example = "PO-4471")]
    pub your_ref: Option<String>,
}

/// `PUT /exact/updateSalesOrderLine`: a sales order line's new delivery date.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SalesOrderLineUpdate {
    #[serde(rename = "ID")]
    #[schema(example = "0badc0de-0000-4000-8000-000000000005")]
    pub id: String,
    #[serde(rename = "DeliveryDate")]
    #[schema(example = "2026-12-04")]
    pub delivery_date: String,
}

/// One serial number of a tracked item: one per unit booked.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SerialNumber {
    #[serde(rename = "SerialNumber")]
    #[schema(example = "PMP-2200-0042")]
    pub serial_number: String,
}

/// A batch of a batch-tracked item and the quantity booked from (or into) it.
#[derive(Debug, Deserialize, ToSchema)]
pub struct BatchNumber {
    #[serde(rename = "BatchNumber")]
    #[schema(example = "B-2026-0412")]
    pub batch_number: String,
    /// More than 0; the batches of a line add up to its quantity.
    #[serde(rename = "Quantity")]
    #[schema(example = 2.5)]
    pub quantity: f64,
    /// A new batch's expiry date, when it is received (goods, shop order and by-product receipts).
    #[serde(rename = "EndDate")]
    #[schema(example = "2027-06-30")]
    pub end_date: Option<String>,
}

/// One material issued to a shop order; `Note` gets the write's marker added.
#[derive(Debug, Deserialize, ToSchema)]
pub struct MaterialIssue {
    /// The shop order's material plan line: its ID, or `plan:{ShopOrderNumber}/{LineNumber}`
    /// (a scan catalogue's name for it, looked up in the local copy).
    #[serde(rename = "ShopOrderMaterialPlan")]
    #[schema(example = "0badc0de-0000-4000-8000-000000000006")]
    pub shop_order_material_plan: String,
    /// Not 0 (a negative quantity returns material).
    #[serde(rename = "Quantity")]
    #[schema(example = 2.5)]
    pub quantity: f64,
    #[serde(rename = "TransactionDate")]
    #[schema(example = "2026-11-21")]
    pub transaction_date: String,
    #[serde(rename = "StorageLocation")]
    pub storage_location: Option<String>,
    #[serde(rename = "DraftStockTransactionID")]
    pub draft_stock_transaction_id: Option<String>,
    #[serde(rename = "Note")]
    #[schema(example = "Batch 2")]
    pub note: Option<String>,
    /// A serial-tracked item's numbers, one per unit (reserved at Exact before the booking).
    #[serde(rename = "SerialNumbers")]
    pub serial_numbers: Option<Vec<SerialNumber>>,
    /// A batch-tracked item's batches, adding up to the quantity (reserved at Exact before the booking).
    #[serde(rename = "BatchNumbers")]
    pub batch_numbers: Option<Vec<BatchNumber>>,
}

/// `POST /exact/updateMaterialsIssues`: one material issue or a list of them (each its own entry).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum MaterialIssues {
    One(MaterialIssue),
    Several(Vec<MaterialIssue>),
}

/// A counted line: `QuantityNew` or `QuantityDifference` (or both).
#[derive(Debug, Deserialize, ToSchema)]
pub struct StockCountLine {
    /// The item's ID, or `item:{Code}` (a scan catalogue's name for it, looked up in the local copy).
    #[serde(rename = "Item")]
    #[schema(example = "0badc0de-0000-4000-8000-000000000007")]
    pub item: String,
    #[serde(rename = "StorageLocation")]
    pub storage_location: Option<String>,
    #[serde(rename = "QuantityNew")]
    #[schema(example = 12)]
    pub quantity_new: Option<f64>,
    #[serde(rename = "QuantityDifference")]
    pub quantity_difference: Option<f64>,
    /// A serial-tracked item's numbers, one per unit counted.
    #[serde(rename = "SerialNumbers")]
    pub serial_numbers: Option<Vec<SerialNumber>>,
    /// A batch-tracked item's batches, adding up to QuantityNew.
    #[serde(rename = "BatchNumbers")]
    pub batch_numbers: Option<Vec<BatchNumber>>,
}

/// `POST /exact/createStockCount`: a count with its lines; other fields go to the provider as sent.
#[derive(Debug, Deserialize, ToSchema)]
pub struct StockCount {
    #[serde(rename = "Warehouse")]
    #[schema(example = "0badc0de-0000-4000-8000-000000000008")]
    pub warehouse: String,
    /// Today when left out.
    #[serde(rename = "StockCountDate")]
    #[schema(example = "2026-11-21")]
    pub stock_count_date: Option<String>,
    #[serde(rename = "StockCountLines")]
    #[schema(min_items = 1)]
    pub stock_count_lines: Vec<StockCountLine>,
    /// Also process the count: the counted quantities become the stock.
    #[schema(example = true)]
    pub process: Option<bool>,
}

/// A received purchase order line.
#[derive(Debug, Deserialize, ToSchema)]
pub struct GoodsReceiptLine {
    #[serde(rename = "PurchaseOrderLineID")]
    #[schema(example = "0badc0de-0000-4000-8000-000000000009")]
    pub purchase_order_line_id: String,
    /// More than 0.
    #[serde(rename = "QuantityReceived")]
    #[schema(example = 10)]
    pub quantity_received: f64,
    /// A storage location.
    #[serde(rename = "Location")]
    pub location: Option<String>,
    /// A serial-tracked item's numbers, one per unit.
    #[serde(rename = "SerialNumbers")]
    pub serial_numbers: Option<Vec<SerialNumber>>,
    /// A batch-tracked item's batches, adding up to the quantity.
    #[serde(rename = "BatchNumbers")]
    pub batch_numbers: Option<Vec<BatchNumber>>,
}

/// `POST /exact/createGoodsReceipt`: a receipt with its lines; other fields go to the provider as sent.
#[derive(Debug, Deserialize, ToSchema)]
pub struct GoodsReceipt {
    /// Today when left out.
    #[serde(rename = "ReceiptDate")]
    #[schema(example = "2026-11-21")]
    pub receipt_date: Option<String>,
    #[serde(rename = "GoodsReceiptLines")]
    #[schema(min_items = 1)]
    pub goods_receipt_lines: Vec<GoodsReceiptLine>,
}

/// `POST /exact/createShopOrderReceipt`: finished products of a shop order into stock.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ShopOrderReceipt {
    /// The shop order's ID, or `shopOrder:{ShopOrderNumber}` (a scan catalogue's name for it,
    /// looked up in the local copy).
    #[serde(rename = "ShopOrder")]
    #[schema(example = "0badc0de-0000-4000-8000-000000000002")]
    pub shop_order: String,
    /// More than 0.
    #[serde(rename = "Quantity")]
    #[schema(example = 5)]
    pub quantity: f64,
    #[serde(rename = "TransactionDate")]
    #[schema(example = "2026-11-21")]
    pub transaction_date: String,
    #[serde(rename = "StorageLocation")]
    pub storage_location: Option<String>,
    #[serde(rename = "DraftStockTransactionID")]
    pub draft_stock_transaction_id: Option<String>,
    /// A serial-tracked item's numbers, one per unit (reserved at Exact before the booking).
    #[serde(rename = "SerialNumbers")]
    pub serial_numbers: Option<Vec<SerialNumber>>,
    /// A batch-tracked item's batches, adding up to the quantity (reserved at Exact before the booking).
    #[serde(rename = "BatchNumbers")]
    pub batch_numbers: Option<Vec<BatchNumber>>,
}

/// `POST /exact/createByProductReceipt`: a by-product of a shop order into stock.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ByProductReceipt {
    /// The shop order's by-product line (a material plan line of Type 2): its ID, or
    /// `plan:{ShopOrderNumber}/{LineNumber}` (a scan catalogue's name for it).
    #[serde(rename = "ShopOrderMaterialPlan")]
    #[schema(example = "0badc0de-0000-4000-8000-000000000006")]
    pub shop_order_material_plan: String,
    /// More than 0.
    #[serde(rename = "Quantity")]
    #[schema(example = 2)]
    pub quantity: f64,
    #[serde(rename = "TransactionDate")]
    #[schema(example = "2026-11-21")]
    pub transaction_date: String,
    #[serde(rename = "StorageLocation")]
    pub storage_location: Option<String>,
    #[serde(rename = "DraftStockTransactionID")]
    pub draft_stock_transaction_id: Option<String>,
    /// A serial-tracked by-product's numbers, one per unit (reserved at Exact before the booking).
    #[serde(rename = "SerialNumbers")]
    pub serial_numbers: Option<Vec<SerialNumber>>,
    /// A batch-tracked by-product's batches, adding up to the quantity (reserved at Exact first).
    #[serde(rename = "BatchNumbers")]
    pub batch_numbers: Option<Vec<BatchNumber>>,
}

/// A line of a warehouse transfer.
#[derive(Debug, Deserialize, ToSchema)]
pub struct WarehouseTransferLine {
    /// The item's ID, or `item:{Code}` (a scan catalogue's name for it, looked up in the local copy).
    #[serde(rename = "Item")]
    #[schema(example = "0badc0de-0000-4000-8000-000000000007")]
    pub item: String,
    /// More than 0.
    #[serde(rename = "Quantity")]
    #[schema(example = 3)]
    pub quantity: f64,
    #[serde(rename = "StorageLocationFrom")]
    pub storage_location_from: Option<String>,
    #[serde(rename = "StorageLocationTo")]
    pub storage_location_to: Option<String>,
    /// A serial-tracked item's numbers, one per unit.
    #[serde(rename = "SerialNumbers")]
    pub serial_numbers: Option<Vec<SerialNumber>>,
    /// A batch-tracked item's batches, adding up to the quantity.
    #[serde(rename = "BatchNumbers")]
    pub batch_numbers: Option<Vec<BatchNumber>>,
}

/// `POST /exact/createWarehouseTransfer`: a transfer with its lines; other fields go to the provider as sent.
#[derive(Debug, Deserialize, ToSchema)]
pub struct WarehouseTransfer {
    #[serde(rename = "WarehouseFrom")]
    #[schema(example = "0badc0de-0000-4000-8000-000000000008")]
    pub warehouse_from: String,
    #[serde(rename = "WarehouseTo")]
    #[schema(example = "0badc0de-0000-4000-8000-00000000000a")]
    pub warehouse_to: String,
    /// Today when left out.
    #[serde(rename = "EntryDate")]
    #[schema(example = "2026-11-21")]
    pub entry_date: Option<String>,
    #[serde(rename = "WarehouseTransferLines")]
    #[schema(min_items = 1)]
    pub warehouse_transfer_lines: Vec<WarehouseTransferLine>,
    /// Also process the transfer: the stock moves now.
    #[schema(example = true)]
    pub process: Option<bool>,
}

/// `POST|PUT /exact/{kind}`: the provider fields of an allow-listed kind; a PUT names the entity.
#[derive(Debug, Deserialize, ToSchema)]
pub struct GenericWrite {
    /// The entity to change (PUT only).
    #[schema(example = "0badc0de-0000-4000-8000-000000000007")]
    pub id: Option<String>,
    /// The provider's fields, not empty.
    #[schema(value_type = Object, example = json!({"Hours": 2.5}))]
    pub data: serde_json::Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::actions::{self, Actor};
    use serde_json::{Value, json};

    fn fields<T: ToSchema>() -> Vec<String> {
        let schema = serde_json::to_value(T::schema()).expect("a schema serializes");
        let mut names: Vec<String> =
            schema["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default();
        names.sort();
        names
    }

    fn sorted(list: &[&str]) -> Vec<String> {
        let mut names: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        names.sort();
        names
    }

    #[test]
    fn closed_bodies_document_exactly_the_fields_their_checks_allow() {
        let mut shop_order = actions::SHOP_ORDER_FIELDS.to_vec();
        shop_order.extend(["ID", "Division"]);
        assert_eq!(fields::<ShopOrderUpdate>(), sorted(&shop_order));
        assert_eq!(fields::<SalesOrderLineUpdate>(), sorted(actions::SALES_ORDER_LINE_FIELDS));
        assert_eq!(fields::<MaterialIssue>(), sorted(actions::MATERIAL_ISSUE_FIELDS));
        assert_eq!(fields::<ShopOrderReceipt>(), sorted(actions::SHOP_ORDER_RECEIPT_FIELDS));
        assert_eq!(fields::<ByProductReceipt>(), sorted(actions::BY_PRODUCT_RECEIPT_FIELDS));
    }

    /// Reads `body` as `T` once the write's own check has taken it.
    fn taken_and_read<T: serde::de::DeserializeOwned + std::fmt::Debug>(
        check: fn(&Actor, &Value) -> Result<Vec<crate::outbox::Entry>, actions::Invalid>,
        body: Value,
    ) {
        let actor = Actor { user: "u".into(), user_name: "n".into() };
        assert!(check(&actor, &body).is_ok(), "the check takes {body}");
        if let Err(e) = serde_json::from_value::<T>(body.clone()) {
            panic!("{body} does not read as {}: {e}", std::any::type_name::<T>());
        }
    }

    #[test]
    fn bodies_the_checks_take_read_as_the_documented_types() {
        const G: &str = "4792a639-3840-4d8a-b086-017acd738a52";
        taken_and_read::<ShopOrderUpdate>(
            actions::update_shop_order,
            json!({"ID": G, "IsOnHold": 1, "PlannedDate": "2026-12-01", "ProductionLeadDays": 4, "SelectionCode": null}),
        );
        taken_and_read::<SalesOrderLineUpdate>(
            actions::update_sales_order_line,
            json!({"ID": G, "DeliveryDate": "2026-12-04"}),
        );
        let issue =
            json!({"ShopOrderMaterialPlan": G, "Quantity": 2, "TransactionDate": "2026-11-21", "StorageLocation": G});
        taken_and_read::<MaterialIssues>(actions::material_issues, issue.clone());
        taken_and_read::<MaterialIssues>(actions::material_issues, json!([issue.clone(), issue]));
        taken_and_read::<StockCount>(
            actions::stock_count,
            json!({"Warehouse": G, "process": true, "StockCountLines": [{"Item": G, "QuantityNew": 12, "StorageLocation": G}]}),
        );
        taken_and_read::<GoodsReceipt>(
            actions::goods_receipt,
            json!({"ReceiptDate": "2026-11-21", "GoodsReceiptLines": [{"PurchaseOrderLineID": G, "QuantityReceived": 10}]}),
        );
        taken_and_read::<ShopOrderReceipt>(
            actions::shop_order_receipt,
            json!({"ShopOrder": G, "Quantity": 5, "TransactionDate": "2026-11-21"}),
        );
        taken_and_read::<ShopOrderReceipt>(
            actions::shop_order_receipt,
            json!({"ShopOrder": G, "Quantity": 2, "TransactionDate": "2026-11-21",
                "SerialNumbers": [{"SerialNumber": "S-1"}, {"SerialNumber": "S-2"}]}),
        );
        taken_and_read::<ByProductReceipt>(
            actions::by_product_receipt,
            json!({"ShopOrderMaterialPlan": G, "Quantity": 2, "TransactionDate": "2026-11-21",
                "BatchNumbers": [{"BatchNumber": "BP-1", "Quantity": 2}]}),
        );
        taken_and_read::<MaterialIssues>(
            actions::material_issues,
            json!({"ShopOrderMaterialPlan": G, "Quantity": 3, "TransactionDate": "2026-11-21",
                "BatchNumbers": [{"BatchNumber": "B1", "Quantity": 1}, {"BatchNumber": "B2", "Quantity": 2}]}),
        );
        taken_and_read::<GoodsReceipt>(
            actions::goods_receipt,
            json!({"GoodsReceiptLines": [{"PurchaseOrderLineID": G, "QuantityReceived": 1,
                "SerialNumbers": [{"SerialNumber": "S-9"}]}]}),
        );
        taken_and_read::<StockCount>(
            actions::stock_count,
            json!({"Warehouse": G, "StockCountLines": [{"Item": G, "QuantityNew": 4,
                "BatchNumbers": [{"BatchNumber": "B1", "Quantity": 4}]}]}),
        );
        taken_and_read::<WarehouseTransfer>(
            actions::warehouse_transfer,
            json!({"WarehouseFrom": G, "WarehouseTo": G, "WarehouseTransferLines": [{"Item": G, "Quantity": 1,
                "SerialNumbers": [{"SerialNumber": "S-3"}]}]}),
        );
        taken_and_read::<WarehouseTransfer>(
            actions::warehouse_transfer,
            json!({"WarehouseFrom": G, "WarehouseTo": G, "process": true,
                "WarehouseTransferLines": [{"Item": G, "Quantity": 3, "StorageLocationTo": G}]}),
        );
        let write = json!({"id": G, "data": {"Notes": "x"}});
        assert!(
            actions::generic(
                &Actor { user: "u".into(), user_name: "n".into() },
                "items",
                crate::outbox::Method::Put,
                &write
            )
            .is_ok()
        );
        serde_json::from_value::<GenericWrite>(write).expect("reads as GenericWrite");
    }
}
