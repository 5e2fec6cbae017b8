//! Labels from a real store laid out like the product's (the catalogue's tables), holding a few
//! synced rows in the provider's field names.

use super::*;
use crate::labels::records::WarehouseLocation;
use crate::store::{Commit, Stores};
use serde_json::json;

const SO: &str = "00000000-0000-4000-8000-00000000a001";
const MAIN: &str = "00000000-0000-4000-8000-00000000b001";
const BY_PRODUCT: &str = "00000000-0000-4000-8000-00000000b002";
const MATERIAL: &str = "00000000-0000-4000-8000-00000000b003";
const ZV: &str = "00000000-0000-4000-8000-00000000b004";

fn guid(n: u32) -> String {
    format!("00000000-0000-4000-8000-{n:012x}")
}

fn t(n: u8) -> LabelType {
    LabelType::from_number(n).unwrap()
}

fn english(messages: &[Text]) -> Vec<String> {
    messages.iter().map(|m| m.said_in(crate::error::Language::En)).collect()
}

fn ids(v: &[&str]) -> Vec<Selection> {
    v.iter().map(|s| Selection::Id(s.to_string())).collect()
}

/// A store with one shop order, its plans, items, warehouses and suppliers, synced at 14:03 UTC.
fn synced() -> (tempfile::TempDir, Arc<OrgStore>) {
    let dir = tempfile::tempdir().unwrap();
    let store = Stores::new(dir.path(), catalogue::table_specs()).get(1).unwrap();
    let put = |table: &str, rows: Vec<Value>| {
        store.apply_batch(table, rows, Some(100), Commit::Durable).unwrap();
    };
    put(
        SHOP_ORDERS,
        vec![json!({"ID": SO, "Item": MAIN, "ItemCode": "EL-100", "ItemDescription": "Control cabinet",
                    "PlannedQuantity": 2.0, "ShopOrderNumber": 4711, "ProjectDescription": "Alpha hall", "Timestamp": "100"})],
    );
    put(
        MATERIAL_PLANS,
        vec![
            json!({"ID": guid(1), "ShopOrder": SO, "Type": 2, "Item": BY_PRODUCT, "ItemCode": "BP-1",
                   "ItemDescription": "Offcut", "PlannedQuantity": 1.5, "Timestamp": "100"}),
            json!({"ID": guid(2), "ShopOrder": SO, "Type": 1, "Item": MATERIAL, "ItemCode": "MAT-1",
                   "ItemDescription": "Sheet", "PlannedQuantity": 4, "Timestamp": "100"}),
            json!({"ID": guid(3), "ShopOrder": SO, "Type": 2, "Item": ZV, "ItemCode": "ZV-9",
                   "ItemDescription": "Rest", "PlannedQuantity": 1, "Timestamp": "100"}),
        ],
    );
    put(
        ITEMS,
        vec![
            json!({"ID": MAIN, "Code": "EL-100", "Description": "Control cabinet", "FreeTextField_06": "400V",
                   "FreeTextField_07": null, "FreeTextField_09": "IP65", "Timestamp": "100"}),
            json!({"ID": BY_PRODUCT, "Code": "BP-1", "Description": "Offcut", "Timestamp": "100"}),
        ],
    );
    put(
        ITEM_WAREHOUSES,
        vec![
            json!({"ID": guid(11), "Item": MAIN, "WarehouseCode": "113", "DefaultStorageLocationCode": "A-1", "Timestamp": "100"}),
            json!({"ID": guid(12), "Item": MAIN, "WarehouseCode": "1", "DefaultStorageLocationCode": "", "Timestamp": "100"}),
            json!({"ID": guid(13), "Item": MAIN, "WarehouseCode": "2", "DefaultStorageLocationCode": "B-07", "Timestamp": "100"}),
        ],
    );
    put(
        SUPPLIER_ITEMS,
        vec![
            json!({"ID": guid(21), "Item": MAIN, "SupplierCode": "S2", "SupplierDescription": "Second",
                   "MainSupplier": false, "Timestamp": "100"}),
            json!({"ID": guid(22), "Item": MAIN, "SupplierCode": "S1", "SupplierDescription": "Main Metals",
                   "MainSupplier": true, "Timestamp": "100"}),
        ],
    );
    store.set_last_sync("2026-11-25T14:03:27.512+00:00").unwrap();
    (dir, store)
}

const HEADLINE: &str = "Made from the local copy as of 2026-11-25 14:03 UTC: Exact Online cannot be reached";

#[tokio::test]
async fn shop_order_labels_come_from_the_copy_with_a_warning_naming_its_time() {
    let (_dir, store) = synced();
    let batch = build_from_local_copy(
        store,
        LocalCopyReason::Unreachable,
        LabelSource::ShopOrder,
        &ids(&[SO]),
        t(1),
        &SkippedWarehouses::default(),
    )
    .await
    .unwrap();
    let codes: Vec<_> = batch.records.iter().map(|r| (r.item_code.as_str(), r.print_count)).collect();
    assert_eq!(codes, vec![("EL-100", 2), ("BP-1", 2)], "the item, its Type 2 plan line; no material, no ZV");
    assert_eq!(batch.status, LabelStatus::Warning);
    let messages = english(&batch.messages);
    assert_eq!(messages[0], HEADLINE);
    assert!(messages[1].starts_with("By-product receipts are not in the local copy"), "{messages:?}");
    assert!(messages.iter().any(|m| m.contains("ZV-9")), "the usual reasons follow: {messages:?}");
    let main = &batch.records[0];
    assert_eq!(main.shop_order_number.as_deref(), Some("4711"));
    assert_eq!(main.field("Project"), "Pr: Alpha");
    assert_eq!(main.field("FreeTextField_06"), "400V");
    assert_eq!(main.field("FreeTextField_07"), "-");
    assert_eq!(main.field("FreeTextField_09"), "IP65");
}

#[tokio::test]
async fn item_labels_take_warehouse_and_main_supplier_from_the_copy() {
    let (_dir, store) = synced();
    let sel = vec![Selection::WithCount { id: MAIN.into(), print_count: Some(3) }];
    let batch = build_from_local_copy(
        store,
        LocalCopyReason::NoToken,
        LabelSource::ItemDirect,
        &sel,
        t(6),
        &SkippedWarehouses::new(["113"]),
    )
    .await
    .unwrap();
    assert_eq!(batch.status, LabelStatus::Warning);
    assert_eq!(
        english(&batch.messages),
        vec![
            "Made from the local copy as of 2026-11-25 14:03 UTC: there is no usable Exact Online sign-in for this organization"
                .to_string(),
            "Post-processing ('Bewerkingen') is not in the local copy: it is left empty".to_string(),
        ]
    );
    assert_eq!(
        batch.messages[0].said_in(crate::error::Language::Nl),
        "Gemaakt uit de lokale kopie van 2026-11-25 14:03 UTC: er is geen bruikbare Exact Online-aanmelding voor \
         deze organisatie"
    );
    let [record] = &batch.records[..] else { panic!("one record: {:?}", batch.records) };
    assert_eq!(record.print_count, 3);
    assert_eq!(record.item_code, "EL-100");
    assert_eq!(
        record.warehouses_and_locations,
        vec![WarehouseLocation { warehouse: "2".into(), location: "B-07".into() }],
        "the organization's skipped warehouses and empty locations are left off"
    );
    assert_eq!(record.field("WarehouseAndLocationForLabel"), "W-L: 2-B-07");
    assert_eq!(record.field("Supplier"), "S1 Main Metals", "the main supplier comes first");
    assert_eq!(record.post_processing_description, None);
}

#[tokio::test]
async fn goods_receipts_say_they_need_exact_online() {
    let (_dir, store) = synced();
    let err = build_from_local_copy(
        store,
        LocalCopyReason::Unreachable,
        LabelSource::GoodsReceipt,
        &ids(&[&guid(99)]),
        t(7),
        &SkippedWarehouses::default(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.status(), LabelStatus::Error);
    let answer = crate::error::AppError::from(crate::labels::LabelError::from(err));
    assert_eq!(answer.code(), crate::error::Code::ProviderUnreachable);
    assert_eq!(
        answer.message(),
        "Exact Online cannot be reached, and goods receipt labels need it: goods receipts are not in the local \
         copy. Try again when Exact Online answers"
    );
}

#[tokio::test]
async fn nothing_found_keeps_the_spec_message_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let empty = Stores::new(dir.path(), catalogue::table_specs()).get(2).unwrap();
    let err = build_from_local_copy(
        empty,
        LocalCopyReason::Unreachable,
        LabelSource::ItemDirect,
        &ids(&[MAIN]),
        t(1),
        &SkippedWarehouses::default(),
    )
    .await
    .unwrap_err();
    let RecordError::NoLabels { messages } = err else { panic!("no labels: {err}") };
    assert_eq!(
        messages[1].said_in(crate::error::Language::Nl),
        "De lokale kopie heeft geen 'Artikelen': die zijn nooit gesynchroniseerd",
        "the table's name is said in Dutch too"
    );
    assert_eq!(
        english(&messages),
        vec![
            "Made from the local copy, which has never been synced: Exact Online cannot be reached".to_string(),
            "The local copy has no 'Items': they were never synced".to_string(),
            format!("Item {MAIN} was not found"),
        ]
    );
}

#[tokio::test]
async fn many_ids_are_read_in_chunks_and_pages() {
    let dir = tempfile::tempdir().unwrap();
    let store = Stores::new(dir.path(), catalogue::table_specs()).get(3).unwrap();
    let items: Vec<Value> =
        (0..250).map(|n| json!({"ID": guid(n), "Code": format!("IT-{n}"), "Timestamp": "5"})).collect();
    store.apply_batch(ITEMS, items, Some(5), Commit::Durable).unwrap();
    // Five warehouses per item: more rows than one page holds.
    let warehouses: Vec<Value> = (0..1250)
        .map(|n| {
            json!({"ID": guid(10_000 + n), "Item": guid(n / 5), "WarehouseCode": format!("W{}", n % 5),
                        "DefaultStorageLocationCode": "L", "Timestamp": "5"})
        })
        .collect();
    store.apply_batch(ITEM_WAREHOUSES, warehouses, Some(5), Commit::Durable).unwrap();
    let lookups = StoreLookups::new(store);
    let wanted: Vec<String> = (0..250).map(guid).chain(["not a guid".to_string()]).collect();
    assert_eq!(lookups.items(&wanted).await.unwrap().len(), 250);
    assert_eq!(lookups.label_info(&wanted).await.unwrap().item_warehouses.len(), 1250);
    assert_eq!(
        english(&lookups.notes()),
        vec![
            "The local copy has no 'Supplier Item': they were never synced".to_string(),
            "Post-processing ('Bewerkingen') is not in the local copy: it is left empty".to_string(),
        ]
    );
}

#[test]
fn sync_times_read_as_people_write_them() {
    assert_eq!(readable_time("2026-11-25T14:03:27.512+00:00"), "2026-11-25 14:03 UTC");
    assert_eq!(readable_time("2026-11-25T15:03:27.512+01:00"), "2026-11-25 15:03 +01:00");
    assert_eq!(readable_time("2026-11-21T19:00:00"), "2026-11-21 19:00");
    assert_eq!(readable_time("2026-11-21T19:00:00.250"), "2026-11-21 19:00");
    assert_eq!(readable_time("yesterday"), "yesterday");
}
