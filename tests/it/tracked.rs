//! Serial- and batch-tracked items against a simulator as strict as Exact Online: each booking of
//! a tracked item is first refused without its numbers (the user reads Exact's message, and
//! nothing stays reserved), then booked with them, the provider holding exactly those numbers;
//! the local copy then shows what is in stock where (`/api/v1/tracking/numbers`).

use crate::provider::World;
use esm_sim::SimOptions;
use reqwest::Method;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const TABLES: [&str; 8] = [
    "items",
    "shopOrders",
    "shopOrderMaterialPlans",
    "stockPositions",
    "storageLocationStockPositions",
    "serialBatchNumbers",
    "stockSerialBatchNumbers",
    "itemWarehouses",
];

async fn rows_of(w: &World, path: &str) -> Vec<Value> {
    let rows: Value = w.get(path).await.json().await.unwrap();
    rows.as_array().cloned().unwrap_or_else(|| panic!("{path}: {rows}"))
}

async fn book(w: &World, path: &str, key: &str, body: &Value, wait: u32) -> (u16, Value) {
    let res = w
        .request(Method::POST, &format!("{path}?wait={wait}"))
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

fn sim_rows(w: &World, path: &str) -> Vec<Value> {
    w.sim.handle().rows(w.division as i32, path).unwrap_or_default()
}

fn lower(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_ascii_lowercase()
}

fn is_draft(r: &Value) -> bool {
    matches!(&r["IsDraft"], Value::Bool(true)) || r["IsDraft"].as_i64() == Some(1)
}

/// Reservation rows of `path` still drafts (reserved and not booked).
fn drafts(w: &World, path: &str) -> usize {
    sim_rows(w, path).iter().filter(|r| is_draft(r)).count()
}

async fn numbers(w: &World, item: &Value, warehouse: &Value) -> Value {
    let path = format!("/api/v1/tracking/numbers?item={}&warehouse={}", lower(item), lower(warehouse));
    let res = w.get(&path).await;
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

async fn synced(w: &World) {
    let status = w.sync(Some(TABLES.to_vec())).await;
    for t in TABLES {
        assert!(status["tables"][t]["error"].is_null(), "{t}: {status}");
    }
}

/// An open material line of a batch-tracked material with at least two batches in stock in its
/// order's warehouse: (plan, item, warehouse, batches).
async fn batch_material(w: &World) -> (Value, Value, Value, Value) {
    let plans = rows_of(w, "/api/v1/db/shopOrderMaterialPlans?IsBatch=eq.1&Type=eq.1&limit=500").await;
    for plan in plans {
        let order = &rows_of(w, &format!("/api/v1/db/shopOrders?ID=eq.{}", lower(&plan["ShopOrder"]))).await[0];
        if order["Status"].as_i64().is_none_or(|s| s > 20) {
            continue;
        }
        let found = numbers(w, &plan["Item"], &order["Warehouse"]).await;
        if found["tracking"] == "batch" && found["batches"].as_array().is_some_and(|b| b.len() >= 2) {
            return (plan.clone(), plan["Item"].clone(), order["Warehouse"].clone(), found["batches"].clone());
        }
    }
    panic!("the demo has a batch material on an open order with two batches in stock");
}

/// An open shop order making an item that `tracked` (an items filter) selects: (order, item).
async fn made_order(w: &World, tracked: &str) -> (Value, Value) {
    let items = rows_of(w, &format!("/api/v1/db/items?{tracked}&IsMakeItem=eq.1&select=ID&limit=500")).await;
    for item in items {
        let orders =
            rows_of(w, &format!("/api/v1/db/shopOrders?Item=eq.{}&Status=in.(10,20)&limit=1", lower(&item["ID"])))
                .await;
        if let Some(order) = orders.first() {
            return (order.clone(), item["ID"].clone());
        }
    }
    panic!("the demo has an open shop order making an item with {tracked}");
}

/// An open shop order making a serial-tracked item: (order, item).
async fn serial_order(w: &World) -> (Value, Value) {
    made_order(w, "IsSerialItem=eq.true").await
}

#[actix_web::test]
async fn a_batch_material_is_refused_without_its_batches_and_issued_with_them() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    synced(&w).await;
    let (plan, item, warehouse, batches) = batch_material(&w).await;
    let issues = "/api/v1/exact/updateMaterialsIssues";
    let before = sim_rows(&w, "manufacturing/MaterialIssues").len();

    // Without numbers: Exact's refusal, shown to the user; nothing booked or reserved.
    let plain = json!({"ShopOrderMaterialPlan": plan["ID"], "Quantity": 1, "TransactionDate": "2026-11-21"});
    let (status, refused) = book(&w, issues, "batch-none", &plain, 10).await;
    assert_eq!(status, 422, "{refused}");
    assert!(refused["error"].as_str().is_some_and(|m| !m.is_empty()), "Exact's message: {refused}");
    assert_eq!(sim_rows(&w, "manufacturing/MaterialIssues").len(), before);

    // More than the batch holds: refused, and the reservation made for it is released again.
    let first = &batches[0];
    let held = first["quantity"].as_f64().unwrap();
    let too_much = json!({"ShopOrderMaterialPlan": plan["ID"], "Quantity": held + 1.0, "TransactionDate": "2026-11-21",
        "StorageLocation": first["location"],
        "BatchNumbers": [{"BatchNumber": first["number"], "Quantity": held + 1.0}]});
    let (status, refused) = book(&w, issues, "batch-too-much", &too_much, 10).await;
    assert_eq!(status, 422, "{refused}");
    assert_eq!(drafts(&w, "inventory/StockBatchNumbers"), 0, "nothing stays reserved");
    assert_eq!(sim_rows(&w, "manufacturing/MaterialIssues").len(), before);

    // Numbers that do not add up are refused before anything is queued.
    let wrong_sum = json!({"ShopOrderMaterialPlan": plan["ID"], "Quantity": 2, "TransactionDate": "2026-11-21",
        "BatchNumbers": [{"BatchNumber": first["number"], "Quantity": 1}]});
    let (status, answer) = book(&w, issues, "batch-sum", &wrong_sum, 10).await;
    assert_eq!(status, 400, "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap().contains("add up to 1, the quantity is 2"), "{answer}");

    // With its batch: booked, the reservation booked with it.
    let take = held.min(1.0);
    let good = json!({"ShopOrderMaterialPlan": plan["ID"], "Quantity": take, "TransactionDate": "2026-11-21",
        "StorageLocation": first["location"],
        "BatchNumbers": [{"BatchNumber": first["number"], "Quantity": take}]});
    let (status, booked) = book(&w, issues, "batch-good", &good, 10).await;
    assert_eq!(status, 200, "{booked}");
    let entry = &booked["entries"][0];
    let draft = entry["reserve"]["draft"].as_str().expect("the entry carries its reservation").to_string();
    assert_eq!(lower(&entry["body"]["DraftStockTransactionID"]), draft);
    let reserved: Vec<Value> = sim_rows(&w, "inventory/StockBatchNumbers")
        .into_iter()
        .filter(|r| lower(&r["DraftStockTransactionID"]) == draft)
        .collect();
    assert_eq!(reserved.len(), 1, "{reserved:?}");
    assert_eq!(reserved[0]["BatchNumber"], first["number"]);
    assert_eq!(reserved[0]["Quantity"].as_f64(), Some(take));
    assert!(!is_draft(&reserved[0]), "booked, no longer a draft");
    assert_eq!(sim_rows(&w, "manufacturing/MaterialIssues").len(), before + 1);
    assert!(w.sim.handle().stock_mismatches(w.division as i32).is_empty());

    // The same key again: the first answer, nothing booked twice.
    let (status, again) = book(&w, issues, "batch-good", &good, 10).await;
    assert_eq!((status, &again), (200, &booked));
    assert_eq!(sim_rows(&w, "manufacturing/MaterialIssues").len(), before + 1);

    // The local copy follows: the batch holds `take` less there.
    synced(&w).await;
    let after = numbers(&w, &item, &warehouse).await;
    let same = after["batches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["number"] == first["number"] && b["location"] == first["location"])
        .map_or(0.0, |b| b["quantity"].as_f64().unwrap());
    assert!((same - (held - take)).abs() < 1e-9, "{held} - {take} = {same}: {after}");
    w.stop().await;
}

#[actix_web::test]
async fn serial_made_items_are_received_with_one_new_serial_per_unit() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    synced(&w).await;
    let (order, item) = serial_order(&w).await;
    let receipts = "/api/v1/exact/createShopOrderReceipt";
    let before = sim_rows(&w, "manufacturing/ShopOrderReceipts").len();

    let plain = json!({"ShopOrder": order["ID"], "Quantity": 2, "TransactionDate": "2026-11-21"});
    let (status, refused) = book(&w, receipts, "serial-none", &plain, 10).await;
    assert_eq!(status, 422, "{refused}");
    assert!(refused["error"].as_str().is_some_and(|m| !m.is_empty()), "{refused}");

    let one = json!({"ShopOrder": order["ID"], "Quantity": 2, "TransactionDate": "2026-11-21",
        "SerialNumbers": [{"SerialNumber": "ESM-T-0001"}]});
    let (status, answer) = book(&w, receipts, "serial-short", &one, 10).await;
    assert_eq!(status, 400, "one serial per unit, before anything is queued: {answer}");

    let good = json!({"ShopOrder": order["ID"], "Quantity": 2, "TransactionDate": "2026-11-21",
        "SerialNumbers": [{"SerialNumber": "ESM-T-0001"}, {"SerialNumber": "ESM-T-0002"}]});
    let (status, booked) = book(&w, receipts, "serial-good", &good, 10).await;
    assert_eq!(status, 200, "{booked}");
    assert_eq!(sim_rows(&w, "manufacturing/ShopOrderReceipts").len(), before + 1);
    let serials: Vec<String> = sim_rows(&w, "inventory/StockSerialNumbers")
        .iter()
        .filter(|r| lower(&r["Item"]) == lower(&item) && !is_draft(r))
        .filter_map(|r| r["SerialNumber"].as_str().map(str::to_string))
        .filter(|s| s.starts_with("ESM-T-"))
        .collect();
    assert_eq!(serials.len(), 2, "{serials:?}");

    // Receiving a serial that is in stock already is refused, and releases what it reserved.
    let again = json!({"ShopOrder": order["ID"], "Quantity": 1, "TransactionDate": "2026-11-21",
        "SerialNumbers": [{"SerialNumber": "ESM-T-0002"}]});
    let (status, refused) = book(&w, receipts, "serial-twice", &again, 10).await;
    assert_eq!(status, 422, "{refused}");
    assert_eq!(drafts(&w, "inventory/StockSerialNumbers"), 0, "nothing stays reserved");

    synced(&w).await;
    let found = numbers(&w, &item, &order["Warehouse"]).await;
    assert_eq!(found["tracking"], "serial");
    let in_stock: Vec<&str> =
        found["serials"].as_array().unwrap().iter().filter_map(|s| s["number"].as_str()).collect();
    assert!(in_stock.contains(&"ESM-T-0001") && in_stock.contains(&"ESM-T-0002"), "{found}");
    w.stop().await;
}

#[actix_web::test]
async fn a_tracked_issue_queued_through_an_outage_is_reserved_and_booked_once() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    synced(&w).await;
    let (plan, _, _, batches) = batch_material(&w).await;
    let first = &batches[0];
    let before = sim_rows(&w, "manufacturing/MaterialIssues").len();
    w.sim.handle().set_serving(false);
    w.sim.handle().advance_clock(300);
    let body = json!({"ShopOrderMaterialPlan": plan["ID"], "Quantity": 0.5, "TransactionDate": "2026-11-21",
        "StorageLocation": first["location"], "BatchNumbers": [{"BatchNumber": first["number"], "Quantity": 0.5}]});
    let (status, queued) = book(&w, "/api/v1/exact/updateMaterialsIssues", "outage-batch", &body, 5).await;
    assert_eq!(status, 202, "queued while Exact is away: {queued}");
    let draft = queued["entries"][0]["reserve"]["draft"].as_str().unwrap().to_string();
    actix_web::rt::time::sleep(Duration::from_secs(2)).await;
    w.sim.handle().set_serving(true);
    w.outbox_drained().await;
    assert_eq!(sim_rows(&w, "manufacturing/MaterialIssues").len(), before + 1, "booked once");
    let reserved: Vec<Value> = sim_rows(&w, "inventory/StockBatchNumbers")
        .into_iter()
        .filter(|r| lower(&r["DraftStockTransactionID"]) == draft)
        .collect();
    assert_eq!(reserved.len(), 1, "reserved once: {reserved:?}");
    assert!(!is_draft(&reserved[0]));
    w.stop().await;
}

#[actix_web::test]
async fn a_batch_material_is_moved_and_counted_only_with_its_batches() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    synced(&w).await;
    let (_, item, warehouse, batches) = batch_material(&w).await;
    let batches = batches.as_array().unwrap().clone();
    let first = batches[0].clone();
    let to = batches
        .iter()
        .map(|b| b["location"].clone())
        .find(|l| *l != first["location"])
        .expect("the material's batches lie at two locations");
    let transfers = "/api/v1/exact/createWarehouseTransfer";
    let line = |numbers: Option<Value>| {
        let mut l =
            json!({"Item": item, "Quantity": 1, "StorageLocationFrom": first["location"], "StorageLocationTo": to});
        if let Some(n) = numbers {
            l["BatchNumbers"] = n;
        }
        json!({"WarehouseFrom": warehouse, "WarehouseTo": warehouse, "process": true, "WarehouseTransferLines": [l]})
    };
    let (status, refused) = book(&w, transfers, "move-none", &line(None), 10).await;
    assert_eq!(status, 422, "{refused}");
    assert!(refused["error"].as_str().is_some_and(|m| !m.is_empty()), "{refused}");
    let numbers = json!([{"BatchNumber": first["number"], "Quantity": 1}]);
    let (status, moved) = book(&w, transfers, "move-batch", &line(Some(numbers)), 10).await;
    assert_eq!(status, 200, "{moved}");
    assert!(w.sim.handle().number_mismatches(w.division as i32).is_empty());

    // A count of the location: refused without the batches counted, then taken with them.
    synced(&w).await;
    let here = format!(
        "/api/v1/tracking/numbers?item={}&warehouse={}&location={}",
        lower(&item),
        lower(&warehouse),
        lower(&first["location"])
    );
    let found: Value = w.get(&here).await.json().await.unwrap();
    let counted: Vec<Value> = found["batches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| json!({"BatchNumber": b["number"], "Quantity": b["quantity"]}))
        .collect();
    let total: f64 = counted.iter().map(|b| b["Quantity"].as_f64().unwrap()).sum();
    assert!(total > 0.0, "{found}");
    let count = |numbers: Option<Vec<Value>>| {
        let mut l = json!({"Item": item, "StorageLocation": first["location"], "QuantityNew": total});
        if let Some(n) = numbers {
            l["BatchNumbers"] = json!(n);
        }
        json!({"Warehouse": warehouse, "process": true, "StockCountLines": [l]})
    };
    let counts = "/api/v1/exact/createStockCount";
    let (status, refused) = book(&w, counts, "count-none", &count(None), 10).await;
    assert_eq!(status, 422, "{refused}");
    let (status, taken) = book(&w, counts, "count-batches", &count(Some(counted)), 10).await;
    assert_eq!(status, 200, "{taken}");
    assert!(w.sim.handle().number_mismatches(w.division as i32).is_empty());
    w.stop().await;
}

#[actix_web::test]
async fn a_serial_part_is_received_from_its_supplier_with_its_serials() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    synced(&w).await;
    let serial_items: Vec<String> =
        sim_rows(&w, "logistics/Items").iter().filter(|i| i["IsSerialItem"] == true).map(|i| lower(&i["ID"])).collect();
    let po_line = sim_rows(&w, "purchaseorder/PurchaseOrderLines")
        .into_iter()
        .find(|l| {
            serial_items.contains(&lower(&l["Item"]))
                && l["Quantity"].as_f64().unwrap_or(0.0) - l["QuantityReceived"].as_f64().unwrap_or(0.0) >= 1.0
        })
        .expect("an open purchase order line of a serial part");
    let receipts = "/api/v1/exact/createGoodsReceipt";
    let receipt = |serials: Option<Value>| {
        let mut l = json!({"PurchaseOrderLineID": po_line["ID"], "QuantityReceived": 1});
        if let Some(s) = serials {
            l["SerialNumbers"] = s;
        }
        json!({"GoodsReceiptLines": [l]})
    };
    let (status, refused) = book(&w, receipts, "gr-none", &receipt(None), 10).await;
    assert_eq!(status, 422, "{refused}");
    let (status, got) =
        book(&w, receipts, "gr-serial", &receipt(Some(json!([{"SerialNumber": "ESM-GR-0001"}]))), 10).await;
    assert_eq!(status, 200, "{got}");
    let held: Vec<Value> = sim_rows(&w, "inventory/StockSerialNumbers")
        .into_iter()
        .filter(|r| r["SerialNumber"] == "ESM-GR-0001")
        .collect();
    assert_eq!(held.len(), 1, "{held:?}");
    assert_eq!(lower(&held[0]["Item"]), lower(&po_line["Item"]));
    w.stop().await;
}

/// The by-product line (Type 2) of an open order tracked as `flag` (`IsBatch` or `IsSerial`).
async fn by_product_line(w: &World, flag: &str) -> Value {
    rows_of(w, &format!("/api/v1/db/shopOrderMaterialPlans?Type=eq.2&{flag}=eq.1&limit=10"))
        .await
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("the demo has a by-product tracked by {flag}"))
}

#[actix_web::test]
async fn tracked_by_products_are_received_only_with_their_numbers() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    synced(&w).await;
    let receipts = "/api/v1/exact/createByProductReceipt";
    let before = sim_rows(&w, "manufacturing/ByProductReceipts").len();

    // A batch by-product: refused without its batch (Exact's message), received with it.
    let batch = by_product_line(&w, "IsBatch").await;
    let plain = json!({"ShopOrderMaterialPlan": batch["ID"], "Quantity": 2.5, "TransactionDate": "2026-11-21"});
    let (status, refused) = book(&w, receipts, "by-batch-none", &plain, 10).await;
    assert_eq!(status, 422, "{refused}");
    assert!(refused["error"].as_str().is_some_and(|m| m.contains("batch")), "Exact's message: {refused}");
    // A by-product is received, never issued: Exact refuses the material issue of its line.
    let issued = json!({"ShopOrderMaterialPlan": batch["ID"], "Quantity": 2.5, "TransactionDate": "2026-11-21",
        "BatchNumbers": [{"BatchNumber": "REST-2611", "Quantity": 2.5}]});
    let (status, refused) = book(&w, "/api/v1/exact/updateMaterialsIssues", "by-batch-issued", &issued, 10).await;
    assert_eq!(status, 422, "{refused}");
    assert!(refused["error"].as_str().is_some_and(|m| m.contains("by-product")), "{refused}");
    assert_eq!(drafts(&w, "inventory/StockBatchNumbers"), 0, "nothing stays reserved");
    let good = json!({"ShopOrderMaterialPlan": batch["ID"], "Quantity": 2.5, "TransactionDate": "2026-11-21",
        "BatchNumbers": [{"BatchNumber": "REST-2611", "Quantity": 2.5}]});
    let (status, booked) = book(&w, receipts, "by-batch-good", &good, 10).await;
    assert_eq!(status, 200, "{booked}");
    assert_eq!(sim_rows(&w, "manufacturing/ByProductReceipts").len(), before + 1);
    let (status, again) = book(&w, receipts, "by-batch-good", &good, 10).await;
    assert_eq!((status, &again), (200, &booked), "the same key: the first answer");
    assert_eq!(sim_rows(&w, "manufacturing/ByProductReceipts").len(), before + 1, "booked once");

    // A serial by-product: one new serial per unit.
    let serial = by_product_line(&w, "IsSerial").await;
    let plain = json!({"ShopOrderMaterialPlan": serial["ID"], "Quantity": 1, "TransactionDate": "2026-11-21"});
    let (status, refused) = book(&w, receipts, "by-serial-none", &plain, 10).await;
    assert_eq!(status, 422, "{refused}");
    let good = json!({"ShopOrderMaterialPlan": serial["ID"], "Quantity": 1, "TransactionDate": "2026-11-21",
        "SerialNumbers": [{"SerialNumber": "REST-S-0001"}]});
    let (status, booked) = book(&w, receipts, "by-serial-good", &good, 10).await;
    assert_eq!(status, 200, "{booked}");
    assert_eq!(sim_rows(&w, "manufacturing/ByProductReceipts").len(), before + 2);
    assert!(w.sim.handle().stock_mismatches(w.division as i32).is_empty());

    // The local copy follows: the new batch and serial are in stock in the order's warehouse.
    synced(&w).await;
    let order = &rows_of(&w, &format!("/api/v1/db/shopOrders?ID=eq.{}", lower(&batch["ShopOrder"]))).await[0];
    let found = numbers(&w, &batch["Item"], &order["Warehouse"]).await;
    let rest = found["batches"].as_array().unwrap().iter().find(|b| b["number"] == "REST-2611").cloned();
    assert_eq!(rest.and_then(|b| b["quantity"].as_f64()), Some(2.5), "{found}");
    let order = &rows_of(&w, &format!("/api/v1/db/shopOrders?ID=eq.{}", lower(&serial["ShopOrder"]))).await[0];
    let found = numbers(&w, &serial["Item"], &order["Warehouse"]).await;
    assert!(found.to_string().contains("REST-S-0001"), "{found}");
    // Received in full against the line: Exact marks it complete.
    let line = &rows_of(&w, &format!("/api/v1/db/shopOrderMaterialPlans?ID=eq.{}", lower(&batch["ID"]))).await[0];
    assert_eq!(line["Status"].as_i64(), Some(30), "{line}");
    w.stop().await;
}

/// An open material line of a serial part with at least `count` of its serials in stock in its
/// order's warehouse: (plan, warehouse, serials in stock).
async fn serial_material(w: &World, count: usize) -> (Value, Value, Vec<Value>) {
    let plans = rows_of(w, "/api/v1/db/shopOrderMaterialPlans?IsSerial=eq.1&Type=eq.1&Status=eq.10&limit=50").await;
    for plan in plans {
        let order = &rows_of(w, &format!("/api/v1/db/shopOrders?ID=eq.{}", lower(&plan["ShopOrder"]))).await[0];
        let found = numbers(w, &plan["Item"], &order["Warehouse"]).await;
        let serials = found["serials"].as_array().cloned().unwrap_or_default();
        if serials.len() >= count {
            return (plan.clone(), order["Warehouse"].clone(), serials);
        }
    }
    panic!("the demo has a serial material with {count} serials in stock");
}

#[actix_web::test]
async fn a_booking_discarded_while_its_numbers_are_being_reserved_is_never_booked() {
    use esm_sim::Faults;
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    synced(&w).await;
    // A serial material on an open order, with two of its serials in stock in the order's warehouse.
    let (plan, _, in_stock) = serial_material(&w, 2).await;
    let serials: Vec<String> =
        in_stock.iter().take(2).filter_map(|s| s["number"].as_str().map(str::to_string)).collect();
    // Exact answers slowly: the booking is discarded once its first serial is reserved, while the
    // worker is still at work on it (the second reservation on its way).
    w.sim.handle().set_faults(Faults { latency_ms: 400, ..Default::default() });
    let body = json!({"ShopOrderMaterialPlan": plan["ID"], "Quantity": 2, "TransactionDate": "2026-11-21",
        "SerialNumbers": [{"SerialNumber": serials[0]}, {"SerialNumber": serials[1]}]});
    let (status, queued) = book(&w, "/api/v1/exact/updateMaterialsIssues", "discard-started", &body, 0).await;
    assert_eq!(status, 202, "waiting: {queued}");
    let id = queued["entries"][0]["id"].as_u64().expect("its number");
    let deadline = Instant::now() + Duration::from_secs(20);
    while drafts(&w, "inventory/StockSerialNumbers") == 0 {
        assert!(Instant::now() < deadline, "a reservation went out");
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }

    // Discarded by its user: never booked; what was reserved is released, then the entry is gone.
    let res = w.request(Method::DELETE, &format!("/api/v1/outbox/{id}")).send().await.unwrap();
    assert_eq!(res.status(), 204);
    w.sim.handle().set_faults(Faults::default());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let status = w.get(&format!("/api/v1/outbox/{id}")).await.status().as_u16();
        if status == 404 {
            break;
        }
        if Instant::now() >= deadline {
            let entry: Value = w.get(&format!("/api/v1/outbox/{id}")).await.json().await.unwrap();
            panic!("the discarded entry is gone once released: {entry}");
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(drafts(&w, "inventory/StockSerialNumbers"), 0, "nothing stays reserved");
    assert!(
        sim_rows(&w, "manufacturing/MaterialIssues")
            .iter()
            .all(|r| lower(&r["ShopOrderMaterialPlan"]) != lower(&plan["ID"]) || r["Quantity"].as_f64() != Some(2.0)),
        "never booked"
    );
    w.stop().await;
}

#[actix_web::test]
async fn a_serial_part_is_issued_moved_and_counted_only_with_its_serials() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    synced(&w).await;
    // The serial part planned on the tracked orders, with three serials in stock there.
    let (plan, warehouse, serials) = serial_material(&w, 3).await;
    let item = plan["Item"].clone();

    // Issue: refused without a serial and with one that is not in stock, taken with one that is.
    let issues = "/api/v1/exact/updateMaterialsIssues";
    let issue = |numbers: Option<Value>| {
        let mut b = json!({"ShopOrderMaterialPlan": plan["ID"], "Quantity": 1, "TransactionDate": "2026-11-21"});
        if let Some(n) = numbers {
            b["SerialNumbers"] = n;
        }
        b
    };
    let (status, refused) = book(&w, issues, "sn-issue-none", &issue(None), 10).await;
    assert_eq!(status, 422, "{refused}");
    let (status, refused) =
        book(&w, issues, "sn-issue-absent", &issue(Some(json!([{"SerialNumber": "NOT-HERE-1"}]))), 10).await;
    assert_eq!(status, 422, "a serial not in stock: {refused}");
    assert_eq!(drafts(&w, "inventory/StockSerialNumbers"), 0, "nothing stays reserved");
    let (status, issued) =
        book(&w, issues, "sn-issue", &issue(Some(json!([{"SerialNumber": serials[0]["number"]}]))), 10).await;
    assert_eq!(status, 200, "{issued}");

    // Transfer to another location of the warehouse: refused without its serial, moved with it.
    let moving = &serials[1];
    let places = format!(
        "/api/v1/db/storageLocationStockPositions?Warehouse=eq.{}&select=StorageLocation&limit=200",
        lower(&warehouse)
    );
    let to = rows_of(&w, &places)
        .await
        .into_iter()
        .map(|l| l["StorageLocation"].clone())
        .filter(|l| !l.is_null())
        .find(|l| lower(l) != lower(&moving["location"]))
        .expect("another storage location");
    let transfers = "/api/v1/exact/createWarehouseTransfer";
    let transfer = |numbers: Option<Value>| {
        let mut l =
            json!({"Item": item, "Quantity": 1, "StorageLocationFrom": moving["location"], "StorageLocationTo": to});
        if let Some(n) = numbers {
            l["SerialNumbers"] = n;
        }
        json!({"WarehouseFrom": warehouse, "WarehouseTo": warehouse, "process": true, "WarehouseTransferLines": [l]})
    };
    let (status, refused) = book(&w, transfers, "sn-move-none", &transfer(None), 10).await;
    assert_eq!(status, 422, "{refused}");
    let (status, moved) =
        book(&w, transfers, "sn-move", &transfer(Some(json!([{"SerialNumber": moving["number"]}]))), 10).await;
    assert_eq!(status, 200, "{moved}");
    assert!(w.sim.handle().number_mismatches(w.division as i32).is_empty());

    // Count the location it went to: refused without the serials counted, taken with them.
    synced(&w).await;
    let there = format!(
        "/api/v1/tracking/numbers?item={}&warehouse={}&location={}",
        lower(&item),
        lower(&warehouse),
        lower(&to)
    );
    let found: Value = w.get(&there).await.json().await.unwrap();
    let counted: Vec<Value> =
        found["serials"].as_array().unwrap().iter().map(|s| json!({"SerialNumber": s["number"]})).collect();
    assert!(counted.iter().any(|s| s["SerialNumber"] == moving["number"]), "{found}");
    let count = |numbers: Option<Vec<Value>>| {
        let mut l = json!({"Item": item, "StorageLocation": to, "QuantityNew": counted.len()});
        if let Some(n) = numbers {
            l["SerialNumbers"] = json!(n);
        }
        json!({"Warehouse": warehouse, "process": true, "StockCountLines": [l]})
    };
    let counts = "/api/v1/exact/createStockCount";
    let (status, refused) = book(&w, counts, "sn-count-none", &count(None), 10).await;
    assert_eq!(status, 422, "{refused}");
    let (status, taken) = book(&w, counts, "sn-count", &count(Some(counted.clone())), 10).await;
    assert_eq!(status, 200, "{taken}");
    assert!(w.sim.handle().number_mismatches(w.division as i32).is_empty());
    assert!(w.sim.handle().stock_mismatches(w.division as i32).is_empty());
    w.stop().await;
}

#[actix_web::test]
async fn a_batch_material_is_received_from_its_supplier_with_its_batches() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    synced(&w).await;
    let batch_items: Vec<String> =
        sim_rows(&w, "logistics/Items").iter().filter(|i| i["IsBatchItem"] == 1).map(|i| lower(&i["ID"])).collect();
    let po_line = sim_rows(&w, "purchaseorder/PurchaseOrderLines")
        .into_iter()
        .find(|l| batch_items.contains(&lower(&l["Item"])) && l["ReceivedQuantity"].as_f64() == Some(0.0))
        .expect("an open purchase order line of a batch material");
    let receipts = "/api/v1/exact/createGoodsReceipt";
    let receipt = |quantity: f64, batches: Option<Value>| {
        let mut l = json!({"PurchaseOrderLineID": po_line["ID"], "QuantityReceived": quantity});
        if let Some(b) = batches {
            l["BatchNumbers"] = b;
        }
        json!({"GoodsReceiptLines": [l]})
    };
    let (status, refused) = book(&w, receipts, "gr-batch-none", &receipt(10.0, None), 10).await;
    assert_eq!(status, 422, "{refused}");
    assert!(refused["error"].as_str().is_some_and(|m| m.contains("batch")), "Exact's message: {refused}");
    // Two batches in one delivery, with their expiry dates.
    let batches = json!([
        {"BatchNumber": "GR-B-0001", "Quantity": 6, "EndDate": "2027-06-30"},
        {"BatchNumber": "GR-B-0002", "Quantity": 4}
    ]);
    let (status, got) = book(&w, receipts, "gr-batch", &receipt(10.0, Some(batches)), 10).await;
    assert_eq!(status, 200, "{got}");
    assert!(w.sim.handle().number_mismatches(w.division as i32).is_empty());
    assert!(w.sim.handle().stock_mismatches(w.division as i32).is_empty());

    synced(&w).await;
    let order = sim_rows(&w, "purchaseorder/PurchaseOrders")
        .into_iter()
        .find(|o| lower(&o["PurchaseOrderID"]) == lower(&po_line["PurchaseOrderID"]))
        .expect("its order");
    let found = numbers(&w, &po_line["Item"], &order["Warehouse"]).await;
    let held = |number: &str| -> f64 {
        found["batches"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["number"] == number)
            .filter_map(|b| b["quantity"].as_f64())
            .sum()
    };
    assert_eq!((held("GR-B-0001"), held("GR-B-0002")), (6.0, 4.0), "{found}");
    let expiry =
        found["batches"].as_array().unwrap().iter().find(|b| b["number"] == "GR-B-0001").map(|b| b["expiry"].clone());
    assert_eq!(expiry, Some(json!("2027-06-30")), "{found}");
    w.stop().await;
}

#[actix_web::test]
async fn batch_made_items_are_received_with_the_batches_they_were_made_in() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    synced(&w).await;
    let (order, item) = made_order(&w, "IsBatchItem=eq.1").await;
    let receipts = "/api/v1/exact/createShopOrderReceipt";
    let before = sim_rows(&w, "manufacturing/ShopOrderReceipts").len();

    // Without its batch: Exact's refusal, shown to the user; nothing booked or reserved.
    let plain = json!({"ShopOrder": order["ID"], "Quantity": 3, "TransactionDate": "2026-11-21"});
    let (status, refused) = book(&w, receipts, "made-batch-none", &plain, 10).await;
    assert_eq!(status, 422, "{refused}");
    assert!(refused["error"].as_str().is_some_and(|m| m.contains("batch")), "Exact's message: {refused}");
    assert_eq!(sim_rows(&w, "manufacturing/ShopOrderReceipts").len(), before);
    assert_eq!(drafts(&w, "inventory/StockBatchNumbers"), 0, "nothing stays reserved");

    // Batches that do not add up to the quantity are refused before anything is queued.
    let short = json!({"ShopOrder": order["ID"], "Quantity": 3, "TransactionDate": "2026-11-21",
        "BatchNumbers": [{"BatchNumber": "MIX-0001", "Quantity": 2}]});
    let (status, answer) = book(&w, receipts, "made-batch-short", &short, 10).await;
    assert_eq!(status, 400, "{answer}");

    // Made in two batches, one with its expiry date: booked once under its key.
    let good = json!({"ShopOrder": order["ID"], "Quantity": 3, "TransactionDate": "2026-11-21",
        "BatchNumbers": [{"BatchNumber": "MIX-0001", "Quantity": 2, "EndDate": "2027-05-31"},
                         {"BatchNumber": "MIX-0002", "Quantity": 1}]});
    let (status, booked) = book(&w, receipts, "made-batch-good", &good, 10).await;
    assert_eq!(status, 200, "{booked}");
    assert_eq!(sim_rows(&w, "manufacturing/ShopOrderReceipts").len(), before + 1);
    let (status, again) = book(&w, receipts, "made-batch-good", &good, 10).await;
    assert_eq!((status, &again), (200, &booked));
    assert_eq!(sim_rows(&w, "manufacturing/ShopOrderReceipts").len(), before + 1, "booked once");
    assert_eq!(drafts(&w, "inventory/StockBatchNumbers"), 0);
    assert!(w.sim.handle().number_mismatches(w.division as i32).is_empty());
    assert!(w.sim.handle().stock_mismatches(w.division as i32).is_empty());

    // The local copy follows: both batches in stock, the first with its expiry date.
    synced(&w).await;
    let found = numbers(&w, &item, &order["Warehouse"]).await;
    assert_eq!(found["tracking"], "batch");
    let batch = |number: &str| found["batches"].as_array().unwrap().iter().find(|b| b["number"] == number).cloned();
    let first = batch("MIX-0001").unwrap_or_else(|| panic!("{found}"));
    assert_eq!((first["quantity"].as_f64(), &first["expiry"]), (Some(2.0), &json!("2027-05-31")), "{found}");
    assert_eq!(batch("MIX-0002").and_then(|b| b["quantity"].as_f64()), Some(1.0), "{found}");
    w.stop().await;
}
