//! A goods receipt's label names the receipt's own supplier and warehouse and the quantity
//! received: two receipts of one item, from different suppliers into different warehouses, each
//! print their own, read back from the label records and from the PDF with `pdftotext`.

use crate::labels::{field_text, page_texts};
use crate::provider::World;
use esm_sim::SimOptions;
use serde_json::{Value, json};
use stock_manager::labels::{
    LabelRecord, LabelSource, LabelType, ProviderLookups, Selection, SkippedWarehouses, build_records,
    records::WarehouseLocation,
};
use stock_manager::sync::engine::OrgToken;

fn find<'a>(rows: &'a [Value], what: &str, pick: impl Fn(&Value) -> bool) -> &'a Value {
    rows.iter().find(|r| pick(r)).unwrap_or_else(|| panic!("the demo data has {what}"))
}

#[actix_web::test]
async fn each_receipt_label_names_its_own_supplier_warehouse_and_quantity() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let h = w.sim.handle();
    let div = w.division as i32;
    let rows = |path: &str| h.rows(div, path).unwrap_or_else(|| panic!("{path}"));
    let (items, headers, lines) =
        (rows("logistics/Items"), rows("purchaseorder/GoodsReceipts"), rows("purchaseorder/GoodsReceiptLines"));
    let header_of = |line: &Value| find(&headers, "the line's receipt", |r| r["ID"] == line["GoodsReceiptID"]).clone();
    let item_of = |line: &Value| find(&items, "the line's item", |i| i["ID"] == line["Item"]).clone();

    // A demo receipt line of a plain item (one label, no serial numbers).
    let old = find(&lines, "a receipt line of a plain item", |l| {
        let item = item_of(l);
        item["IsSerialItem"] == false && !field_text(&item, "Code").contains("ZV")
    })
    .clone();
    let old_header = header_of(&old);
    let item = item_of(&old);

    // The same item ordered from another supplier into another warehouse, received into a location there.
    let supplier = find(&rows("crm/Accounts"), "another supplier", |a| {
        a["IsSupplier"] == true && a["ID"] != old_header["Supplier"]
    })
    .clone();
    let locations = rows("inventory/StorageLocations");
    let warehouse = find(&rows("inventory/Warehouses"), "another warehouse with a storage location", |wh| {
        wh["ID"] != old_header["Warehouse"] && locations.iter().any(|l| l["Warehouse"] == wh["ID"])
    })
    .clone();
    let location = find(&locations, "a location", |l| l["Warehouse"] == warehouse["ID"]).clone();
    let (order, order_line, new) = (
        "5e7a2000-0000-4000-8000-000000000001",
        "5e7a2000-0000-4000-8000-000000000002",
        "5e7a2000-0000-4000-8000-000000000003",
    );
    let state = w.server.running.as_ref().expect("running").state();
    let access = state.tokens.access_token(&w.user).await.expect("token");
    let po = json!({"PurchaseOrderID": order, "OrderNumber": 49_001, "OrderDate": "2026-03-01",
        "Supplier": supplier["ID"], "Warehouse": warehouse["ID"],
        "PurchaseOrderLines": [{"ID": order_line, "Item": item["ID"], "QuantityInPurchaseUnits": 7}]});
    state.exact.post(w.division, &access, "purchaseorder/PurchaseOrders", &po).await.expect("order posted");
    let receipt = json!({"ReceiptDate": "2026-03-10", "GoodsReceiptLines": [
        {"ID": new, "PurchaseOrderLineID": order_line, "QuantityReceived": 7, "Location": location["ID"]}]});
    state.exact.post(w.division, &access, "purchaseorder/GoodsReceipts", &receipt).await.expect("receipt posted");
    let lines = rows("purchaseorder/GoodsReceiptLines");
    let new_line = find(&lines, "the posted line", |l| l["ID"] == new).clone();
    let headers = rows("purchaseorder/GoodsReceipts");
    let new_header = find(&headers, "the posted receipt", |r| r["ID"] == new_line["GoodsReceiptID"]).clone();
    assert_eq!(
        field_text(&new_header, "SupplierCode"),
        field_text(&supplier, "Code"),
        "the simulator fills it from the order"
    );
    assert_eq!(field_text(&new_header, "WarehouseCode"), field_text(&warehouse, "Code"));

    // What each line's record must say, from the simulator's own rows.
    let item_warehouses = rows("inventory/ItemWarehouses");
    let unit = field_text(&item, "Unit");
    let expected = |line: &Value, header: &Value| {
        let warehouse = field_text(header, "WarehouseCode");
        let location = Some(field_text(line, "LocationCode")).filter(|l| !l.is_empty()).or_else(|| {
            item_warehouses
                .iter()
                .find(|r| r["Item"] == item["ID"] && field_text(r, "WarehouseCode") == warehouse)
                .map(|r| field_text(r, "DefaultStorageLocationCode"))
                .filter(|l| !l.is_empty())
        });
        let pairs: Vec<WarehouseLocation> =
            location.map(|location| WarehouseLocation { warehouse, location }).into_iter().collect();
        let some = |s: String| Some(s).filter(|s| !s.is_empty());
        let received = line["QuantityReceived"].as_f64().expect("a quantity received");
        LabelRecord {
            item_id: field_text(line, "Item"),
            item_code: field_text(&item, "Code"),
            description: field_text(line, "ItemDescription"),
            project_description: some(field_text(line, "ProjectDescription")),
            purchase_order_number: some(field_text(line, "PurchaseOrderNumber")),
            receipt_number: some(field_text(header, "ReceiptNumber")),
            quantity: Some(format!("{received} {unit}")),
            supplier_code: some(field_text(header, "SupplierCode")),
            supplier_description: some(field_text(header, "SupplierName")),
            warehouse_and_location_for_label: match pairs.first() {
                Some(wl) => format!("W-L: {}-{}", wl.warehouse, wl.location),
                None => "W-L: -".into(),
            },
            warehouses_and_locations: pairs,
            print_count: 1,
            ..LabelRecord::default()
        }
    };
    let (want_old, want_new) = (expected(&old, &old_header), expected(&new_line, &new_header));
    assert_ne!(want_old.supplier_code, want_new.supplier_code);
    assert_eq!(
        want_new.warehouse_and_location_for_label,
        format!("W-L: {}-{}", field_text(&warehouse, "Code"), field_text(&location, "Code"))
    );

    let receipts = LabelType::parse("receipts").expect("type 7");
    let token = OrgToken { tokens: state.tokens.clone(), user: w.user.clone() };
    let lookups = ProviderLookups::new(state.exact.clone(), w.division, token);
    let ids = [Selection::Id(field_text(&old, "ID")), Selection::Id(new.to_string())];
    let batch = build_records(&lookups, LabelSource::GoodsReceipt, &ids, receipts, &SkippedWarehouses::default())
        .await
        .expect("records");
    let got: Vec<LabelRecord> = batch
        .records
        .iter()
        // 'Bewerkingen' and the free texts are the item's own, the same on both: not what is tested here.
        .map(|r| LabelRecord { post_processing_description: None, ..r.clone() })
        .collect();
    assert_eq!(got, [want_old.clone(), want_new.clone()]);

    let res = w
        .post_json(
            "/api/v1/labels",
            json!({"source": "goods_receipt", "ids": [field_text(&old, "ID"), new], "type": "receipts"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let pdf = res.bytes().await.expect("the PDF");
    if let Some(pages) = page_texts(&pdf) {
        assert_eq!(pages.len(), 2, "{pages:?}");
        for (page, (mine, other)) in pages.iter().zip([(&want_old, &want_new), (&want_new, &want_old)]) {
            let supplier = format!("{} {}", mine.field("SupplierCode"), mine.field("SupplierDescription"));
            assert!(page.contains(&supplier), "{supplier} on {page}");
            assert!(!page.contains(&other.field("SupplierDescription")), "not the other supplier: {page}");
            assert!(
                page.contains(&mine.warehouse_and_location_for_label),
                "{} on {page}",
                mine.warehouse_and_location_for_label
            );
            assert!(page.contains(&format!("Qty {}", mine.field("Quantity"))), "the quantity on {page}");
            assert!(
                page.contains(&format!("PO {} {}", mine.field("PurchaseOrderNumber"), mine.field("ReceiptNumber"))),
                "{page}"
            );
        }
    }
    w.stop().await;
}
