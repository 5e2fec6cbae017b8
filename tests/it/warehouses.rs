//! Warehouses without storage locations (`UseStorageLocations` 0) against the strict simulator:
//! stock moves warehouse to warehouse and is counted per warehouse; issues and receipts book
//! there without a location; a storage location there is refused, by the product before queueing
//! where its copy knows the warehouse, else by Exact, whose refusal the product shows.

use crate::outbox::{first_id, rows};
use crate::provider::World;
use esm_sim::SimOptions;
use reqwest::Method;
use serde_json::{Value, json};

fn lower(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_ascii_lowercase()
}

async fn write(w: &World, path: &str, body: Value) -> (u16, Value) {
    let res = w.request(Method::POST, &format!("{path}?wait=10")).json(&body).send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn outbox_len(w: &World) -> usize {
    let outbox: Value = w.get("/api/v1/outbox").await.json().await.unwrap();
    outbox["entries"].as_array().map_or(0, Vec::len)
}

/// The item's stock position in the warehouse at the simulator (0 without one).
fn position(w: &World, item: &str, warehouse: &str) -> f64 {
    rows(&w.sim, w.division, "sync/Inventory/StockPositions")
        .iter()
        .find(|r| lower(&r["ItemId"]) == item && lower(&r["Warehouse"]) == warehouse)
        .and_then(|r| r["CurrentStock"].as_f64())
        .unwrap_or(0.0)
}

/// Storage-location stock rows of the warehouse at the simulator.
fn location_rows(w: &World, warehouse: &str) -> usize {
    rows(&w.sim, w.division, "sync/Inventory/StorageLocationStockPositions")
        .iter()
        .filter(|r| lower(&r["Warehouse"]) == warehouse)
        .count()
}

/// The live warehouses as the product reads them: (located, unlocated) IDs, the flag carried.
async fn warehouses(w: &World) -> (Vec<String>, Vec<String>) {
    let res = w.get("/api/v1/exact/live/warehouses").await;
    assert_eq!(res.status(), 200);
    let list: Vec<Value> = res.json().await.unwrap();
    assert!(list.iter().all(|r| r["UseStorageLocations"].is_number()), "read with the flag: {list:?}");
    let (unlocated, located): (Vec<&Value>, Vec<&Value>) = list.iter().partition(|r| r["UseStorageLocations"] == 0);
    let ids = |l: Vec<&Value>| l.into_iter().map(|r| lower(&r["ID"])).collect::<Vec<_>>();
    (ids(located), ids(unlocated))
}

fn sim_options() -> SimOptions {
    SimOptions { rate_limits: false, ..Default::default() }
}

#[actix_web::test]
async fn a_transfer_between_two_warehouses_without_locations_and_a_count_of_one() {
    let w = World::start(sim_options()).await;
    let (_, unlocated) = warehouses(&w).await;
    assert_eq!(unlocated.len(), 2, "the demo has two warehouses without storage locations");
    let (a, b) = (&unlocated[0], &unlocated[1]);
    // read once: the simulator renders the whole table on each read
    let positions = rows(&w.sim, w.division, "sync/Inventory/StockPositions");
    let held = |wh: &str, more: f64| -> std::collections::BTreeSet<String> {
        positions
            .iter()
            .filter(|r| lower(&r["Warehouse"]) == wh && r["CurrentStock"].as_f64().unwrap_or(0.0) > more)
            .map(|r| lower(&r["ItemId"]))
            .collect()
    };
    let item = held(a, 2.0).intersection(&held(b, 0.0)).next().cloned().expect("an item in both");
    let (in_a, in_b) = (position(&w, &item, a), position(&w, &item, b));

    let (status, body) = write(
        &w,
        "/api/v1/exact/createWarehouseTransfer",
        json!({"WarehouseFrom": a, "WarehouseTo": b, "process": true,
            "WarehouseTransferLines": [{"Item": item, "Quantity": 2}]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["state"], "delivered");
    assert_eq!((position(&w, &item, a), position(&w, &item, b)), (in_a - 2.0, in_b + 2.0));
    assert_eq!((location_rows(&w, a), location_rows(&w, b)), (0, 0), "no storage-location stock appears");

    let (status, body) = write(
        &w,
        "/api/v1/exact/createStockCount",
        json!({"Warehouse": a, "process": true, "StockCountLines": [{"Item": item, "QuantityNew": 9}]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(position(&w, &item, a), 9.0, "counted per warehouse");
    let counted = rows(&w.sim, w.division, "inventory/StockCountLines")
        .into_iter()
        .find(|l| lower(&l["Item"]) == item && l["QuantityNew"] == 9.0)
        .expect("the count line");
    assert_eq!(counted["QuantityInStock"], in_a - 2.0);
    assert_eq!(location_rows(&w, a), 0);
    assert!(w.sim.handle().stock_mismatches(w.division as i32).is_empty());
    w.stop().await;
}

#[actix_web::test]
async fn a_location_in_a_warehouse_without_locations_is_refused_by_exact_and_before_queueing() {
    let w = World::start(sim_options()).await;
    let d = w.division;
    let item = first_id(&w.sim, d, "logistics/Items", |r| r["IsStockItem"] == true);
    let (unlocated, codes): (Vec<String>, Vec<String>) = rows(&w.sim, d, "inventory/Warehouses")
        .iter()
        .filter(|r| r["UseStorageLocations"] == 0)
        .map(|r| (lower(&r["ID"]), r["Code"].as_str().unwrap_or_default().to_string()))
        .unzip();
    let located = rows(&w.sim, d, "inventory/StorageLocations")[0].clone();
    let location = lower(&located["ID"]);
    let count = json!({"Warehouse": unlocated[0], "process": true,
        "StockCountLines": [{"Item": item, "QuantityNew": 1, "StorageLocation": location}]});

    // The copy has not read the warehouses yet: the count goes out, and Exact's refusal is the answer.
    let (status, body) = write(&w, "/api/v1/exact/createStockCount", count.clone()).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["state"], "failed");
    let must_be_empty =
        format!("Warehouse {} does not use storage locations: StorageLocation must be empty.", codes[0]);
    assert_eq!(body["error"], must_be_empty.as_str());
    assert!(rows(&w.sim, d, "inventory/StockCounts").iter().all(|c| lower(&c["Warehouse"]) != unlocated[0]));

    // Once the warehouses are read, the product knows and refuses before anything is queued.
    let (_, mut known) = warehouses(&w).await;
    known.sort();
    let mut expected = unlocated.clone();
    expected.sort();
    assert_eq!(known, expected);
    assert_eq!(w.get("/api/v1/exact/live/storageLocations").await.status(), 200);
    let queued = outbox_len(&w).await;
    let located_wh = lower(&located["Warehouse"]);
    let refused = [
        (
            "/api/v1/exact/createStockCount",
            count.clone(),
            format!(
                "stock count line 1: Warehouse {} does not use storage locations: leave StorageLocation empty",
                codes[0]
            ),
        ),
        (
            "/api/v1/exact/createWarehouseTransfer",
            json!({"WarehouseFrom": located_wh, "WarehouseTo": unlocated[1], "process": true,
                "WarehouseTransferLines": [{"Item": item, "Quantity": 1, "StorageLocationTo": location}]}),
            format!(
                "transfer line 1: Warehouse {} does not use storage locations: leave StorageLocationTo empty",
                codes[1]
            ),
        ),
        (
            "/api/v1/exact/createWarehouseTransfer",
            json!({"WarehouseFrom": unlocated[0], "WarehouseTo": unlocated[0], "process": true,
                "WarehouseTransferLines": [{"Item": item, "Quantity": 1}]}),
            format!(
                "Warehouse {} does not use storage locations: a transfer within it has nothing to move between",
                codes[0]
            ),
        ),
    ];
    for (path, body, message) in refused {
        let (status, answer) = write(&w, path, body).await;
        assert_eq!(status, 400, "{path}: {answer}");
        assert!(answer["error"]["message"].as_str().is_some_and(|m| m.starts_with(&message)), "{path}: {answer}");
    }
    // a Dutch UI is told in Dutch, with the line and the warehouse
    let res = w.request(Method::POST, "/api/v1/exact/createStockCount").header("accept-language", "nl").json(&count);
    let answer: Value = res.send().await.unwrap().json().await.unwrap();
    let dutch = format!("telregel 1: Magazijn {} gebruikt geen locaties: laat StorageLocation leeg", codes[0]);
    assert_eq!(answer["error"]["message"], dutch.as_str(), "{answer}");
    // A location of another warehouse.
    let other = rows(&w.sim, d, "inventory/StorageLocations")
        .into_iter()
        .find(|l| lower(&l["Warehouse"]) != located_wh)
        .expect("a location of another warehouse");
    let (status, answer) = write(
        &w,
        "/api/v1/exact/createWarehouseTransfer",
        json!({"WarehouseFrom": located_wh, "WarehouseTo": unlocated[1], "process": true,
            "WarehouseTransferLines": [{"Item": item, "Quantity": 1, "StorageLocationFrom": lower(&other["ID"])}]}),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert!(answer["error"]["message"].as_str().is_some_and(|m| m.contains("is not in warehouse")), "{answer}");
    assert_eq!(outbox_len(&w).await, queued, "nothing queued");
    w.stop().await;
}

#[actix_web::test]
async fn issue_and_receipt_book_without_a_location_in_a_warehouse_that_has_none() {
    let w = World::start(sim_options()).await;
    let d = w.division;
    let h = w.sim.handle();
    let wh = rows(&w.sim, d, "inventory/Warehouses").into_iter().find(|r| r["UseStorageLocations"] == 0).unwrap();
    let (wh_id, wh_code) = (lower(&wh["ID"]), wh["Code"].clone());
    let item = first_id(&w.sim, d, "logistics/Items", |r| r["IsStockItem"] == true && r["IsSerialItem"] == false);
    // A shop order and a purchase order of that warehouse, as someone in Exact would have made them.
    let order = h
        .put_rows(
            d as i32,
            "manufacturing/ShopOrders",
            &[json!({"ShopOrderNumber": 99001, "Item": item, "PlannedQuantity": 4, "Status": 10,
                "Warehouse": wh_id, "WarehouseCode": wh_code, "Division": d})],
        )
        .unwrap()
        .remove(0);
    let plan = h
        .put_rows(
            d as i32,
            "manufacturing/ShopOrderMaterialPlans",
            &[json!({"ShopOrder": order, "Item": item, "PlannedQuantity": 3, "Type": 1,
                "LineNumber": 1, "Status": 10, "Division": d})],
        )
        .unwrap()
        .remove(0);
    let supplier = first_id(&w.sim, d, "crm/Accounts", |_| true);
    let po = h
        .put_rows(
            d as i32,
            "purchaseorder/PurchaseOrders",
            &[json!({"OrderNumber": 99001, "Supplier": supplier, "Warehouse": wh_id, "WarehouseCode": wh_code,
                "Division": d})],
        )
        .unwrap()
        .remove(0);
    let po_line = h
        .put_rows(
            d as i32,
            "purchaseorder/PurchaseOrderLines",
            &[json!({"PurchaseOrderID": po, "Item": item, "QuantityInPurchaseUnits": 10, "ReceivedQuantity": 0,
                "LineNumber": 1, "Division": d})],
        )
        .unwrap()
        .remove(0);
    let before = position(&w, &item, &wh_id);

    let (status, body) = write(
        &w,
        "/api/v1/exact/createGoodsReceipt",
        json!({"GoodsReceiptLines": [{"PurchaseOrderLineID": po_line, "QuantityReceived": 3}]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(position(&w, &item, &wh_id), before + 3.0);
    let (status, body) = write(
        &w,
        "/api/v1/exact/updateMaterialsIssues",
        json!({"ShopOrderMaterialPlan": plan, "Quantity": 2, "TransactionDate": "2026-11-21"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(position(&w, &item, &wh_id), before + 1.0);
    assert_eq!(location_rows(&w, &wh_id), 0, "no storage-location stock appears");

    // A receipt naming a location: the copy does not know the order's warehouse, Exact refuses.
    let location = lower(&rows(&w.sim, d, "inventory/StorageLocations")[0]["ID"]);
    let (status, body) = write(
        &w,
        "/api/v1/exact/createGoodsReceipt",
        json!({"GoodsReceiptLines": [{"PurchaseOrderLineID": po_line, "QuantityReceived": 1, "Location": location}]}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body["error"].as_str().is_some_and(|e| e.ends_with("does not use storage locations: Location must be empty."))
    );
    assert_eq!(position(&w, &item, &wh_id), before + 1.0, "nothing received");

    // An issue naming one, once the copy has the order: refused before it is queued.
    // after the sync each delivery started
    w.wait_for_sync().await;
    let status = w.sync(Some(vec!["shopOrders", "shopOrderMaterialPlans"])).await;
    for t in ["shopOrders", "shopOrderMaterialPlans"] {
        assert!(status["tables"][t]["error"].is_null(), "{t}: {status}");
    }
    assert_eq!(w.get("/api/v1/exact/live/warehouses").await.status(), 200);
    let queued = outbox_len(&w).await;
    let (status, body) = write(
        &w,
        "/api/v1/exact/updateMaterialsIssues",
        json!({"ShopOrderMaterialPlan": plan, "Quantity": 1, "TransactionDate": "2026-11-21", "StorageLocation": location}),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert!(body["error"]["message"].as_str().is_some_and(|m| m.contains("does not use storage locations")), "{body}");
    assert_eq!(outbox_len(&w).await, queued);
    w.stop().await;
}
