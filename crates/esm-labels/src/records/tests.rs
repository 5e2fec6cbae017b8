//! The spec §5/§9 label rules against an in-memory provider.

use super::*;
use serde_json::json;

/// Provider rows held in memory, in the provider's field names.
#[derive(Default)]
struct Memory {
    shop_orders: Vec<Value>,
    plans: Vec<Value>,
    by_products: Vec<Value>,
    items: Vec<Value>,
    receipt_lines: Vec<Value>,
    free_text: Vec<Value>,
    info: LabelInfoRows,
    fail: bool,
}

fn by_ids(rows: &[Value], key: &str, ids: &[String]) -> Vec<Value> {
    rows.iter().filter(|r| text(r, key).is_some_and(|v| ids.contains(&v))).cloned().collect()
}

impl LabelLookups for Memory {
    async fn shop_orders(&self, ids: &[String]) -> anyhow::Result<Vec<Value>> {
        if self.fail {
            anyhow::bail!("provider is down");
        }
        Ok(by_ids(&self.shop_orders, "ID", ids))
    }
    async fn material_plans(&self, shop_order_id: &str) -> anyhow::Result<Vec<Value>> {
        Ok(by_ids(&self.plans, "ShopOrder", &[shop_order_id.to_string()]))
    }
    async fn by_products(&self, shop_order_id: &str) -> anyhow::Result<Vec<Value>> {
        Ok(by_ids(&self.by_products, "ShopOrder", &[shop_order_id.to_string()]))
    }
    async fn items(&self, ids: &[String]) -> anyhow::Result<Vec<Value>> {
        Ok(by_ids(&self.items, "ID", ids))
    }
    async fn goods_receipt_lines(&self, ids: &[String]) -> anyhow::Result<Vec<Value>> {
        Ok(by_ids(&self.receipt_lines, "ID", ids))
    }
    async fn free_text_values(&self, item_ids: &[String]) -> anyhow::Result<Vec<Value>> {
        Ok(by_ids(&self.free_text, "ItemID", item_ids))
    }
    async fn label_info(&self, item_ids: &[String]) -> anyhow::Result<LabelInfoRows> {
        Ok(LabelInfoRows {
            item_warehouses: by_ids(&self.info.item_warehouses, "Item", item_ids),
            supplier_items: by_ids(&self.info.supplier_items, "Item", item_ids),
            item_extra_fields: by_ids(&self.info.item_extra_fields, "ItemID", item_ids),
        })
    }
}

fn ids(v: &[&str]) -> Vec<Selection> {
    v.iter().map(|s| Selection::Id(s.to_string())).collect()
}

fn none() -> SkippedWarehouses {
    SkippedWarehouses::default()
}

fn t(n: u8) -> LabelType {
    LabelType::from_number(n).unwrap()
}

fn shop() -> Memory {
    Memory {
        shop_orders: vec![json!({
            "ID": "so-1", "Item": "it-main", "ItemCode": "EL-100", "ItemDescription": "Control cabinet",
            "PlannedQuantity": 3.0, "ShopOrderNumber": 4711, "ProjectDescription": "Alpha hall extension"
        })],
        plans: vec![
            json!({"ShopOrder": "so-1", "Type": 1, "Item": "it-mat", "ItemCode": "MAT-1", "ItemDescription": "Material", "PlannedQuantity": 5}),
            json!({"ShopOrder": "so-1", "Type": 2, "Item": "it-bp", "ItemCode": "BP-1", "ItemDescription": "By-product", "PlannedQuantity": 2.5}),
            json!({"ShopOrder": "so-1", "Type": "2", "Item": "it-zv", "ItemCode": "XZV-9", "ItemDescription": "Excluded", "PlannedQuantity": 1}),
            json!({"ShopOrder": "so-1", "Type": 2, "ItemCode": "NOID-1", "PlannedQuantity": 1}),
        ],
        by_products: vec![
            json!({"ShopOrder": "so-1", "Item": "it-bp", "ItemCode": "BP-1", "ItemDescription": "By-product"}),
            json!({"ShopOrder": "so-1", "Item": "it-bp2", "ItemCode": "BP-2", "ItemDescription": "Second by-product", "Quantity": 1}),
        ],
        free_text: vec![
            json!({"ItemID": "it-main", "Number": 6, "Value": "400V"}),
            json!({"ItemID": "it-main", "Number": "8", "Value": "IP65"}),
            json!({"ItemID": "it-main", "Number": 3, "Value": "ignored"}),
        ],
        ..Memory::default()
    }
}

#[tokio::test]
async fn shop_orders_use_type_2_plans_by_products_and_planned_quantity() {
    let batch = build_records(&shop(), LabelSource::ShopOrder, &ids(&["so-1"]), t(1), &none()).await.unwrap();
    let codes: Vec<_> = batch.records.iter().map(|r| (r.item_code.as_str(), r.print_count)).collect();
    assert_eq!(codes, vec![("EL-100", 3), ("BP-1", 3), ("BP-2", 1)]);
    assert_eq!(batch.status, LabelStatus::Warning, "skipped lines are reported");
    assert!(batch.messages.iter().any(|m| m.to_string().contains("XZV-9")));
    assert!(batch.messages.iter().any(|m| m.to_string().contains("NOID-1") && m.to_string().contains("no item ID")));
    assert_eq!(batch.label_count(), 7);
    assert_eq!(batch.expanded().len(), 7);
    let main = &batch.records[0];
    assert_eq!(main.shop_order_number.as_deref(), Some("4711"));
    assert_eq!(main.field("Project"), "Pr: Alpha");
    assert_eq!(main.field("FreeTextField_06"), "400V");
    assert_eq!(main.field("FreeTextField_07"), "-");
    assert_eq!(main.field("FreeTextField_08"), "IP65");
    assert_eq!(main.field("FreeTextField_09"), "-");
    assert_eq!(main.field("WarehouseAndLocationForLabel"), "W-L: -");
}

#[tokio::test]
async fn print_count_from_the_request_wins() {
    let sel = vec![Selection::WithCount { id: "so-1".into(), print_count: Some(1) }];
    let batch = build_records(&shop(), LabelSource::ShopOrder, &sel, t(1), &none()).await.unwrap();
    assert_eq!(batch.records[0].print_count, 1);
    let parsed: Vec<Selection> = serde_json::from_str(r#"["a", {"id": "b", "print_count": 4}]"#).unwrap();
    assert_eq!(parsed[0].id(), "a");
    assert_eq!(parsed[1].print_count(), Some(4));
}

#[tokio::test]
async fn zv_items_excluded_and_nothing_left_gives_the_message() {
    let memory = Memory {
        receipt_lines: vec![
            json!({"ID": "gr-1", "Item": "it-1", "ItemCode": "ZV-1"}),
            json!({"ID": "gr-2", "ItemCode": "A-2"}),
        ],
        ..Memory::default()
    };
    let err =
        build_records(&memory, LabelSource::GoodsReceipt, &ids(&["gr-1", "gr-2"]), t(7), &none()).await.unwrap_err();
    assert_eq!(err.to_string(), NO_LABELS_MESSAGE);
    assert_eq!(err.status(), LabelStatus::Info);
    let err = build_records(&memory, LabelSource::GoodsReceipt, &[], t(7), &none()).await.unwrap_err();
    assert_eq!(err.to_string(), "The payload is empty");
}

#[tokio::test]
async fn lookup_failure_is_an_error_result() {
    let memory = Memory { fail: true, ..shop() };
    let err = build_records(&memory, LabelSource::ShopOrder, &ids(&["so-1"]), t(1), &none()).await.unwrap_err();
    assert_eq!(err.status(), LabelStatus::Error);
}

fn receipt_memory() -> Memory {
    Memory {
        receipt_lines: vec![
            json!({"ID": "gr-1", "Item": "it-1", "ItemCode": "RC-1", "ItemDescription": "Bolt M8",
                   "PurchaseOrderNumber": 20001, "ReceiptNumber": 55, "ProjectDescription": "Beta"}),
            json!({"ID": "gr-2", "Item": "it-2", "ItemCode": "RC-2", "ItemDescription": "Nut"}),
        ],
        info: LabelInfoRows {
            item_warehouses: vec![
                json!({"Item": "it-1", "WarehouseCode": "WH3", "DefaultStorageLocationCode": "A-01"}),
                json!({"Item": "it-1", "WarehouseCode": "WH1", "DefaultStorageLocationCode": ""}),
                json!({"Item": "it-1", "WarehouseCode": "WH2", "DefaultStorageLocationCode": "B-07"}),
                json!({"Item": "it-2", "WarehouseCode": "113", "DefaultStorageLocationCode": "C-1"}),
            ],
            supplier_items: vec![json!({"Item": "it-1", "SupplierCode": "S100", "SupplierDescription": "Bolts Inc"})],
            item_extra_fields: vec![
                json!({"ItemID": "it-1", "Description": "Bewerkingen", "Value": "Zinc plated"}),
                json!({"ItemID": "it-1", "Description": "Other", "Value": "x"}),
            ],
        },
        ..Memory::default()
    }
}

#[tokio::test]
async fn receipts_get_warehouse_supplier_and_post_processing() {
    let sel = vec![Selection::Id("gr-1".into()), Selection::WithCount { id: "gr-2".into(), print_count: Some(2) }];
    let skipped = SkippedWarehouses::new(["WH3", " 113 "]);
    let batch = build_records(&receipt_memory(), LabelSource::GoodsReceipt, &sel, t(7), &skipped).await.unwrap();
    assert_eq!(batch.status, LabelStatus::Success);
    let [a, b] = &batch.records[..] else { panic!("two records") };
    assert_eq!(
        a.warehouses_and_locations,
        vec![WarehouseLocation { warehouse: "WH2".into(), location: "B-07".into() }]
    );
    assert_eq!(a.field("WarehouseAndLocationForLabel"), "W-L: WH2-B-07");
    assert_eq!(a.field("Supplier"), "S100 Bolts Inc");
    assert_eq!(a.post_processing_description.as_deref(), Some("Zinc plated"));
    assert_eq!(a.field("PurchaseOrderNumber"), "20001");
    assert_eq!(a.field("ReceiptNumber"), "55");
    assert_eq!(a.field("Project"), "Pr: Beta");
    assert_eq!(b.field("WarehouseAndLocationForLabel"), "W-L: -", "the organization's skipped warehouses are left off");
    assert_eq!(b.field("SupplierDescription"), SUPPLIER_DEFAULT);
    assert_eq!(b.field("Project"), "Pr: N/A");
    assert_eq!(b.print_count, 2);
    let json = serde_json::to_value(a).unwrap();
    assert!(json.get("FreeTextField_06").is_some() && json.get("WarehouseAndLocationForLabel").is_some());
}

#[tokio::test]
async fn a_warehouse_is_skipped_only_when_the_organization_lists_it() {
    let sel = ids(&["gr-1", "gr-2"]);
    // nothing listed: codes ending in 3 are warehouses like any other
    let batch = build_records(&receipt_memory(), LabelSource::GoodsReceipt, &sel, t(7), &none()).await.unwrap();
    let [a, b] = &batch.records[..] else { panic!("two records") };
    assert_eq!(a.field("WarehouseAndLocationForLabel"), "W-L: WH3-A-01");
    assert_eq!(b.field("WarehouseAndLocationForLabel"), "W-L: 113-C-1");
    // a listed code is matched whole, not by its last digit
    let batch =
        build_records(&receipt_memory(), LabelSource::GoodsReceipt, &sel, t(7), &SkippedWarehouses::new(["13"]))
            .await
            .unwrap();
    assert_eq!(batch.records[1].field("WarehouseAndLocationForLabel"), "W-L: 113-C-1");
    assert_eq!(batch.records[0].warehouses_and_locations.len(), 2, "WH3 and WH2; WH1 has no location");
}

#[tokio::test]
async fn item_direct_keeps_zv_items_and_defaults_to_one_copy() {
    let memory = Memory {
        items: vec![json!({"ID": "it-9", "Code": "ZV-CODE", "Description": "Direct item"})],
        ..Memory::default()
    };
    let batch =
        build_records(&memory, LabelSource::ItemDirect, &ids(&["it-9", "missing"]), t(6), &none()).await.unwrap();
    assert_eq!(batch.records.len(), 1);
    assert_eq!(batch.records[0].print_count, 1);
    assert_eq!(batch.status, LabelStatus::Warning);
    assert_eq!(batch.records[0].field("WarehouseAndLocationForLabel"), "W-L: -");
}

#[test]
fn free_text_fields_become_numbered_rows() {
    let rows = free_text_rows(&[
        json!({"ID": "a", "FreeTextField_06": "400V", "FreeTextField_07": null, "FreeTextField_09": "IP65"}),
        json!({"Code": "no id"}),
    ]);
    assert_eq!(
        rows,
        vec![
            json!({"ItemID": "a", "Number": 6, "Value": "400V"}),
            json!({"ItemID": "a", "Number": 9, "Value": "IP65"})
        ]
    );
}

#[test]
fn main_supplier_comes_first() {
    let rows = main_supplier_first(vec![
        json!({"SupplierCode": "B", "MainSupplier": false}),
        json!({"SupplierCode": "A", "MainSupplier": true}),
    ]);
    assert_eq!(rows[0]["SupplierCode"], "A");
}

fn serial_receipt() -> Memory {
    Memory {
        receipt_lines: vec![
            json!({"ID": "gr-s", "Item": "it-s", "ItemCode": "MTR-1", "ItemDescription": "Motor 0.75 kW",
                   "PurchaseOrderNumber": 20002, "ReceiptNumber": 56,
                   "SerialNumbers": [{"SerialNumber": "SN-10"}, {"SerialNumber": "SN-9"}, {"SerialNumber": " "},
                                     {"SerialNumber": "SN-11"}]}),
            json!({"ID": "gr-e", "Item": "it-e", "ItemCode": "SNS-1", "ItemDescription": "Sensor",
                   "SerialNumbers": {"results": [{"SerialNumber": "B2"}, {"SerialNumber": "A7"}]}}),
            json!({"ID": "gr-n", "Item": "it-n", "ItemCode": "BOLT-1", "ItemDescription": "Bolt", "SerialNumbers": []}),
        ],
        ..Memory::default()
    }
}

#[tokio::test]
async fn a_serial_item_gets_one_label_per_serial_number() {
    let sel = vec![
        Selection::WithCount { id: "gr-s".into(), print_count: Some(5) },
        Selection::Id("gr-e".into()),
        Selection::WithCount { id: "gr-n".into(), print_count: Some(3) },
    ];
    let batch = build_records(&serial_receipt(), LabelSource::GoodsReceipt, &sel, t(7), &none()).await.unwrap();
    let labels: Vec<_> =
        batch.records.iter().map(|r| (r.item_code.as_str(), r.serial_number.as_deref(), r.print_count)).collect();
    assert_eq!(
        labels,
        vec![
            ("MTR-1", Some("SN-9"), 1),
            ("MTR-1", Some("SN-10"), 1),
            ("MTR-1", Some("SN-11"), 1),
            ("SNS-1", Some("A7"), 1),
            ("SNS-1", Some("B2"), 1),
            ("BOLT-1", None, 3),
        ],
        "the numbers decide the count of a serial item, in counting order; the envelope is read too"
    );
    assert_eq!(batch.label_count(), 8);
    let first = &batch.records[0];
    assert_eq!(first.field("SerialNumber"), "SN-9");
    assert_eq!(first.field("PurchaseOrderNumber"), "20002");
    assert_eq!(first.field("ReceiptNumber"), "56");
    assert_eq!(serde_json::to_value(first).unwrap()["SerialNumber"], "SN-9");
}

#[tokio::test]
async fn a_batch_item_gets_a_label_per_batch_with_its_quantity() {
    let memory = Memory {
        receipt_lines: vec![json!({"ID": "gr-b", "Item": "it-b", "ItemCode": "RES-1", "ItemDescription": "Resin",
            "ItemUnitCode": "kg", "QuantityReceived": 12.5,
            "BatchNumbers": {"results": [{"BatchNumber": "B-10", "Quantity": 10}, {"BatchNumber": "B-9", "Quantity": 2.5}]}})],
        ..Memory::default()
    };
    let sel = vec![Selection::WithCount { id: "gr-b".into(), print_count: Some(2) }];
    let batch = build_records(&memory, LabelSource::GoodsReceipt, &sel, t(7), &none()).await.unwrap();
    let labels: Vec<_> = batch
        .records
        .iter()
        .map(|r| (r.batch_number.as_deref(), r.field("Quantity"), r.field("TrackingNumber"), r.print_count))
        .collect();
    assert_eq!(
        labels,
        vec![
            (Some("B-9"), "2.5 kg".to_string(), "Batch B-9".to_string(), 2),
            (Some("B-10"), "10 kg".to_string(), "Batch B-10".to_string(), 2),
        ],
        "one label per batch, in counting order, with the batch's quantity and the count asked"
    );
    let serial = LabelRecord { serial_number: Some("SN-1".into()), ..LabelRecord::default() };
    assert_eq!(serial.field("TrackingNumber"), "S/N SN-1");
    assert!(!LabelRecord::default().has("TrackingNumber"));
}

#[tokio::test]
async fn shop_order_and_item_labels_have_no_serial_number() {
    // Units get their numbers when they are received: a shop order or an item has none yet.
    let batch = build_records(&shop(), LabelSource::ShopOrder, &ids(&["so-1"]), t(1), &none()).await.unwrap();
    assert!(batch.records.iter().all(|r| r.serial_number.is_none() && !r.has("SerialNumber")));
    let memory = Memory { items: vec![json!({"ID": "it-9", "Code": "C", "Description": "D"})], ..Memory::default() };
    let batch = build_records(&memory, LabelSource::ItemDirect, &ids(&["it-9"]), t(6), &none()).await.unwrap();
    assert!(batch.records.iter().all(|r| r.serial_number.is_none()));
}

#[test]
fn serial_numbers_sort_as_people_count() {
    let mut v = vec!["SN-10", "SN-9", "SN-009", "A-2-10", "A-2-9", "B", "A", "10", "9a"];
    v.sort_by(|a, b| natural_order(a, b));
    assert_eq!(v, vec!["9a", "10", "A", "A-2-9", "A-2-10", "B", "SN-009", "SN-9", "SN-10"]);
}

#[test]
fn has_tells_own_values_from_printed_defaults() {
    let mut r = LabelRecord { item_code: "A".into(), ..LabelRecord::default() };
    assert!(r.has("ItemCode"));
    assert!(!r.has("SerialNumber") && !r.has("Description") && !r.has("Project"));
    r.serial_number = Some("  ".into());
    assert!(!r.has("SerialNumber"), "blank is absent");
    r.serial_number = Some("SN-1".into());
    assert!(r.has("SerialNumber"));
    r.supplier_description = Some(SUPPLIER_DEFAULT.into());
    r.warehouse_and_location_for_label = NO_WAREHOUSE.into();
    assert!(!r.has("SupplierDescription") && !r.has("Supplier") && !r.has("WarehouseAndLocationForLabel"));
    r.supplier_code = Some("S1".into());
    assert!(r.has("Supplier"));
    r.free_text_07 = Some("IP65".into());
    assert!(r.has("FreeTextField_07") && !r.has("FreeTextField_06"));
    assert!(!r.has("NoSuchField"));
    // Every placeholder a template may test is known to `has`.
    let full = LabelRecord {
        item_code: "A".into(),
        description: "D".into(),
        shop_order_number: Some("1".into()),
        project_description: Some("P".into()),
        purchase_order_number: Some("2".into()),
        receipt_number: Some("3".into()),
        serial_number: Some("S".into()),
        batch_number: Some("B".into()),
        quantity: Some("1 stuk".into()),
        supplier_code: Some("C".into()),
        supplier_description: Some("X".into()),
        warehouse_and_location_for_label: "W-L: 1-A".into(),
        post_processing_description: Some("Z".into()),
        free_text_06: Some("6".into()),
        free_text_07: Some("7".into()),
        free_text_08: Some("8".into()),
        free_text_09: Some("9".into()),
        ..LabelRecord::default()
    };
    for field in LabelRecord::FIELDS {
        assert!(full.has(field), "{field}");
    }
}

/// A receipt of Dutch Elektro into warehouse 1, of an item whose main supplier is De Jong Food
/// Machinery and whose first warehouse is 2: the receipt's own supplier and warehouse must win.
fn receipt_of_another_supplier() -> Memory {
    Memory {
        receipt_lines: vec![
            json!({"ID": "gr-28", "GoodsReceiptID": "h-28", "Item": "it-m", "ItemCode": "MTR-075",
                   "ItemDescription": "Motor 0.75 kW", "PurchaseOrderNumber": 40012, "QuantityReceived": 12.0,
                   "ItemUnitCode": "stuk    ", "ReceiptNumber": 28, "SupplierCode": "  2001",
                   "SupplierName": "Dutch Elektro", "WarehouseCode": "1"}),
            json!({"ID": "gr-29", "GoodsReceiptID": "h-29", "Item": "it-m", "ItemCode": "MTR-075",
                   "ItemDescription": "Motor 0.75 kW", "PurchaseOrderNumber": 40013, "QuantityReceived": 2.5,
                   "ItemUnitCode": "m", "LocationCode": "R-09", "ReceiptNumber": 29, "SupplierCode": "2002",
                   "SupplierName": "De Jong Food Machinery", "WarehouseCode": "2"}),
        ],
        info: LabelInfoRows {
            item_warehouses: vec![
                json!({"Item": "it-m", "WarehouseCode": "2", "DefaultStorageLocationCode": "B-07"}),
                json!({"Item": "it-m", "WarehouseCode": "1", "DefaultStorageLocationCode": "A-01"}),
            ],
            supplier_items: vec![
                json!({"Item": "it-m", "SupplierCode": "2002", "SupplierDescription": "De Jong Food Machinery"}),
                json!({"Item": "it-m", "SupplierCode": "2001", "SupplierDescription": "Dutch Elektro"}),
            ],
            item_extra_fields: vec![],
        },
        ..Memory::default()
    }
}

#[tokio::test]
async fn a_receipt_label_has_the_receipts_supplier_warehouse_and_quantity() {
    let memory = receipt_of_another_supplier();
    let batch =
        build_records(&memory, LabelSource::GoodsReceipt, &ids(&["gr-28", "gr-29"]), t(7), &none()).await.unwrap();
    let common = LabelRecord {
        item_id: "it-m".into(),
        item_code: "MTR-075".into(),
        description: "Motor 0.75 kW".into(),
        print_count: 1,
        ..LabelRecord::default()
    };
    let wl = |w: &str, l: &str| vec![WarehouseLocation { warehouse: w.into(), location: l.into() }];
    assert_eq!(
        batch.records,
        vec![
            LabelRecord {
                purchase_order_number: Some("40012".into()),
                receipt_number: Some("28".into()),
                quantity: Some("12 stuk".into()),
                supplier_code: Some("2001".into()),
                supplier_description: Some("Dutch Elektro".into()),
                // No location on the line: the item's default location in the receipt's warehouse.
                warehouses_and_locations: wl("1", "A-01"),
                warehouse_and_location_for_label: "W-L: 1-A-01".into(),
                ..common.clone()
            },
            LabelRecord {
                purchase_order_number: Some("40013".into()),
                receipt_number: Some("29".into()),
                quantity: Some("2.5 m".into()),
                supplier_code: Some("2002".into()),
                supplier_description: Some("De Jong Food Machinery".into()),
                warehouses_and_locations: wl("2", "R-09"),
                warehouse_and_location_for_label: "W-L: 2-R-09".into(),
                ..common.clone()
            },
        ]
    );
    assert_eq!(batch.records[0].field("Supplier"), "2001 Dutch Elektro");
    assert_eq!(batch.records[0].field("Quantity"), "12 stuk");

    // A receipt without a supplier or warehouse on its header (older data) falls back to the item's.
    let mut bare = receipt_of_another_supplier();
    for key in ["SupplierCode", "SupplierName", "WarehouseCode"] {
        bare.receipt_lines[0].as_object_mut().unwrap().remove(key);
    }
    let batch = build_records(&bare, LabelSource::GoodsReceipt, &ids(&["gr-28"]), t(7), &none()).await.unwrap();
    assert_eq!(batch.records[0].field("Supplier"), "2002 De Jong Food Machinery");
    assert_eq!(batch.records[0].field("WarehouseAndLocationForLabel"), "W-L: 2-B-07");

    // A receipt into a warehouse the item has no default location in prints no other warehouse's.
    let mut elsewhere = receipt_of_another_supplier();
    elsewhere.receipt_lines[0]["WarehouseCode"] = json!("5");
    let batch = build_records(&elsewhere, LabelSource::GoodsReceipt, &ids(&["gr-28"]), t(7), &none()).await.unwrap();
    assert_eq!(batch.records[0].field("WarehouseAndLocationForLabel"), NO_WAREHOUSE);
    assert_eq!(batch.records[0].warehouses_and_locations, vec![]);

    // Types without label info still carry the receipt's own supplier and quantity.
    let batch = build_records(&memory, LabelSource::GoodsReceipt, &ids(&["gr-28"]), t(1), &none()).await.unwrap();
    assert_eq!(batch.records[0].supplier_description.as_deref(), Some("Dutch Elektro"));
    assert_eq!(batch.records[0].quantity.as_deref(), Some("12 stuk"));
}

#[tokio::test]
async fn a_serial_units_label_says_one_unit() {
    let mut memory = receipt_of_another_supplier();
    memory.receipt_lines[1]["SerialNumbers"] = json!([{"SerialNumber": "M-2"}, {"SerialNumber": "M-1"}]);
    memory.receipt_lines[1]["ItemUnitCode"] = json!("stuk");
    let batch = build_records(&memory, LabelSource::GoodsReceipt, &ids(&["gr-29"]), t(7), &none()).await.unwrap();
    let labels: Vec<_> = batch
        .records
        .iter()
        .map(|r| (r.serial_number.as_deref(), r.quantity.as_deref(), r.field("Supplier")))
        .collect();
    let supplier = "2002 De Jong Food Machinery".to_string();
    assert_eq!(labels, vec![(Some("M-1"), Some("1 stuk"), supplier.clone()), (Some("M-2"), Some("1 stuk"), supplier)]);
}

#[tokio::test]
async fn shop_order_and_item_records_field_by_field() {
    let mut memory = shop();
    memory.shop_orders[0]["Unit"] = json!("stuk    ");
    memory.plans[1]["Unit"] = json!("m");
    memory.by_products[1]["Unit"] = json!("kg");
    memory.info.item_warehouses =
        vec![json!({"Item": "it-main", "WarehouseCode": "1", "DefaultStorageLocationCode": "A-01"})];
    memory.info.supplier_items =
        vec![json!({"Item": "it-main", "SupplierCode": "2001", "SupplierDescription": "Dutch Elektro"})];
    let batch = build_records(&memory, LabelSource::ShopOrder, &ids(&["so-1"]), t(6), &none()).await.unwrap();
    let order = |item_id: &str, code: &str, description: &str, quantity: &str, count: u32| LabelRecord {
        item_id: item_id.into(),
        item_code: code.into(),
        description: description.into(),
        shop_order_number: Some("4711".into()),
        project_description: Some("Alpha hall extension".into()),
        quantity: Some(quantity.into()),
        supplier_description: Some(SUPPLIER_DEFAULT.into()),
        warehouse_and_location_for_label: NO_WAREHOUSE.into(),
        print_count: count,
        ..LabelRecord::default()
    };
    assert_eq!(
        batch.records,
        vec![
            LabelRecord {
                supplier_code: Some("2001".into()),
                supplier_description: Some("Dutch Elektro".into()),
                warehouses_and_locations: vec![WarehouseLocation { warehouse: "1".into(), location: "A-01".into() }],
                warehouse_and_location_for_label: "W-L: 1-A-01".into(),
                ..order("it-main", "EL-100", "Control cabinet", "3 stuk", 3)
            },
            order("it-bp", "BP-1", "By-product", "2.5 m", 3),
            order("it-bp2", "BP-2", "Second by-product", "1 kg", 1),
        ]
    );

    let memory = Memory {
        items: vec![json!({"ID": "it-9", "Code": "EL-9", "Description": "Direct item"})],
        info: LabelInfoRows {
            item_warehouses: vec![json!({"Item": "it-9", "WarehouseCode": "2", "DefaultStorageLocationCode": "B-07"})],
            ..LabelInfoRows::default()
        },
        ..Memory::default()
    };
    let batch = build_records(&memory, LabelSource::ItemDirect, &ids(&["it-9"]), t(6), &none()).await.unwrap();
    assert_eq!(
        batch.records,
        vec![LabelRecord {
            item_id: "it-9".into(),
            item_code: "EL-9".into(),
            description: "Direct item".into(),
            supplier_description: Some(SUPPLIER_DEFAULT.into()),
            warehouses_and_locations: vec![WarehouseLocation { warehouse: "2".into(), location: "B-07".into() }],
            warehouse_and_location_for_label: "W-L: 2-B-07".into(),
            print_count: 1,
            ..LabelRecord::default()
        }],
        "an item label has no quantity: it stands for no order"
    );
}
