//! The simulator's serial- and batch-tracked items over HTTP: reservations, the issues and
//! receipts that book them, Exact's refusals, and the two sync endpoints adding up to the
//! storage-location stock.

use crate::sim::{DIV, Sim, results};
use esm_sim::SimOptions;
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

/// Every row of a sync endpoint, following `__next`.
async fn all_rows(s: &Sim, path: &str, select: &str) -> Vec<Value> {
    let mut rows = Vec::new();
    let mut v = s.json(&format!("{path}?$filter=Timestamp gt 0L&$select={select}")).await;
    loop {
        rows.extend(results(&v).iter().cloned());
        let Some(next) = v["d"]["__next"].as_str().map(str::to_string) else { break };
        let r = s.get_abs(&next).await;
        assert_eq!(r.status(), 200, "{next}");
        v = r.json().await.expect("json");
    }
    rows
}

fn text(v: &Value, f: &str) -> String {
    v[f].as_str().unwrap_or_default().to_string()
}

/// (item, warehouse, location) -> stock, as the product would compute it from the two sync
/// endpoints: the sum of the non-draft rows' Quantity.
async fn numbers_stock(s: &Sim) -> (HashMap<(String, String, String), f64>, HashMap<String, Value>) {
    let numbers =
        all_rows(s, "sync/Inventory/SerialBatchNumbers", "ID,SerialBatchNumber,Type,Item,ItemCode,EndDate,Timestamp")
            .await;
    let numbers: HashMap<String, Value> = numbers.into_iter().map(|n| (text(&n, "ID"), n)).collect();
    let select = "ID,SerialBatchNumber,Quantity,IsDraft,DraftTransactionID,StockTransactionID,StockTransactionType,Item,Warehouse,StorageLocation,Timestamp";
    let mut stock: HashMap<(String, String, String), f64> = HashMap::new();
    for m in all_rows(s, "sync/Inventory/StockSerialBatchNumbers", select).await {
        if m["IsDraft"] == 1 {
            continue;
        }
        assert!(numbers.contains_key(&text(&m, "SerialBatchNumber")), "a booked row names a known number: {m}");
        let place = (text(&m, "Item"), text(&m, "Warehouse"), text(&m, "StorageLocation"));
        *stock.entry(place).or_default() += m["Quantity"].as_f64().expect("a quantity");
    }
    (stock, numbers)
}

/// The numbers of `item` in stock at a place, per number text, from the sync endpoints.
async fn in_stock(s: &Sim, item: &str) -> Vec<(String, String, String, f64)> {
    let (_, numbers) = numbers_stock(s).await;
    let select = "ID,SerialBatchNumber,Quantity,IsDraft,Item,Warehouse,StorageLocation,Timestamp";
    let mut per: HashMap<(String, String, String), f64> = HashMap::new();
    for m in all_rows(s, "sync/Inventory/StockSerialBatchNumbers", select).await {
        if m["IsDraft"] == 1 || text(&m, "Item") != item {
            continue;
        }
        let number = text(&numbers[&text(&m, "SerialBatchNumber")], "SerialBatchNumber");
        *per.entry((number, text(&m, "Warehouse"), text(&m, "StorageLocation"))).or_default() +=
            m["Quantity"].as_f64().unwrap_or(0.0);
    }
    let mut out: Vec<_> = per.into_iter().filter(|(_, q)| *q > 1e-9).map(|((n, w, l), q)| (n, w, l, q)).collect();
    out.sort_by(|a, b| a.partial_cmp(b).expect("comparable"));
    out
}

async fn post(s: &Sim, path: &str, body: Value) -> (u16, Value) {
    let r = s.send(Method::POST, path, Some(body)).await;
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

fn message(v: &Value) -> String {
    v["error"]["message"]["value"].as_str().unwrap_or_default().to_string()
}

#[actix_web::test]
async fn tracked_items_are_reserved_booked_and_refused_as_exact_does() {
    // The sync endpoints are read whole several times: more calls than a minute's limit.
    let s = Sim::start_with(SimOptions { rate_limits: false, ..Default::default() }).await;

    // A batch material on an open plan, and a batch of it in stock at one place.
    // IsBatch is on the plan details, as the reference lists it.
    let plans = s.json("manufacturing/ShopOrderMaterialPlanDetails?$filter=IsBatch eq 1 and Status eq 10").await;
    let plan = results(&plans).first().cloned().expect("an open plan of a batch material");
    let (plan_id, item, code) = (text(&plan, "ID"), text(&plan, "Item"), text(&plan, "ItemCode"));
    let batches = in_stock(&s, &item).await;
    assert!(batches.iter().map(|b| &b.0).collect::<HashSet<_>>().len() >= 2, "two batches: {batches:?}");
    assert!(batches.iter().map(|b| &b.2).collect::<HashSet<_>>().len() >= 2, "two locations: {batches:?}");
    let (batch, wh, loc, have) = batches[0].clone();

    // Without a reservation, Exact refuses the issue and names the item.
    let issue = |qty: f64, group: Option<&str>| {
        let mut b = json!({"ShopOrderMaterialPlan": plan_id, "Quantity": qty, "TransactionDate": "2026-03-10", "StorageLocation": loc});
        if let Some(g) = group {
            b["DraftStockTransactionID"] = json!(g);
        }
        b
    };
    let (status, v) = post(&s, "manufacturing/MaterialIssues", issue(1.0, None)).await;
    assert_eq!(status, 400);
    assert!(message(&v).contains(&code) && message(&v).contains("DraftStockTransactionID"), "{v}");

    // More than the batch holds there is refused; the reservation stays a draft.
    let group = "6d1c0a52-8f0e-4c1b-9a55-0000000000a1";
    let reservation = |q: f64, g: &str| {
        json!({"Item": item, "BatchNumber": batch, "Quantity": q,
        "StockTransactionType": 150, "DraftStockTransactionID": g, "Warehouse": wh, "StorageLocation": loc})
    };
    assert_eq!(post(&s, "inventory/StockBatchNumbers", reservation(have + 1.0, group)).await.0, 201);
    let (status, v) = post(&s, "manufacturing/MaterialIssues", issue(have + 1.0, Some(group))).await;
    assert_eq!(status, 400);
    assert!(message(&v).contains(&format!("Batch {batch} of item {code} holds {have}")), "{v}");
    let drafts = s.json(&format!("inventory/StockBatchNumbers?$filter=DraftStockTransactionID eq guid'{group}'")).await;
    assert_eq!(results(&drafts)[0]["IsDraft"], 1);

    // A reservation that fits is booked by the issue.
    let group = "6d1c0a52-8f0e-4c1b-9a55-0000000000a2";
    let take = have.min(2.0);
    let (status, r) = post(&s, "inventory/StockBatchNumbers", reservation(take, group)).await;
    assert_eq!(status, 201, "{r}");
    let (status, issued) = post(&s, "manufacturing/MaterialIssues", issue(take, Some(group))).await;
    assert_eq!(status, 201, "{issued}");
    let tx = text(&issued["d"], "StockTransactionId");
    assert_eq!(issued["d"]["IsBatch"], 1);
    let booked = s.json(&format!("inventory/StockBatchNumbers?$filter=DraftStockTransactionID eq guid'{group}'")).await;
    let booked = &results(&booked)[0];
    assert_eq!((booked["IsDraft"].clone(), text(booked, "StockTransactionID")), (json!(0), tx));
    let after = in_stock(&s, &item).await;
    let left = after.iter().find(|b| (&b.0, &b.1, &b.2) == (&batch, &wh, &loc)).map_or(0.0, |b| b.3);
    assert!((left - (have - take)).abs() < 1e-9, "{have} - {take} left, not {left}");

    // A reservation for an item that is not tracked that way is refused.
    let (status, v) = post(
        &s,
        "inventory/StockSerialNumbers",
        json!({"Item": item, "SerialNumber": "X-1",
        "StockTransactionType": 150, "DraftStockTransactionID": group}),
    )
    .await;
    assert_eq!(status, 400);
    assert!(message(&v).contains(&format!("Item {code} is not a serial item")), "{v}");

    // A serial made item's shop order receipt: new serials come into stock, one already there is refused.
    let orders = s.json("manufacturing/ShopOrders?$filter=IsSerial eq 1 and Status eq 10").await;
    let order = results(&orders).first().cloned().expect("an open order of a serial made item");
    let (product, product_code) = (text(&order, "Item"), text(&order, "ItemCode"));
    let old = in_stock(&s, &product).await.first().map(|n| n.0.clone()).expect("a serial in stock");
    let receive = |g: &str, qty: f64| json!({"ShopOrder": order["ID"], "Quantity": qty, "TransactionDate": "2026-03-10", "DraftStockTransactionID": g});
    let serial = |n: &str, g: &str| json!({"Item": product, "SerialNumber": n, "StockTransactionType": 140, "DraftStockTransactionID": g});
    let g1 = "6d1c0a52-8f0e-4c1b-9a55-0000000000b1";
    assert_eq!(post(&s, "inventory/StockSerialNumbers", serial(&old, g1)).await.0, 201);
    let (status, v) = post(&s, "manufacturing/ShopOrderReceipts", receive(g1, 1.0)).await;
    assert_eq!(status, 400);
    assert_eq!(message(&v), format!("Serial number {old} of item {product_code} is already in stock."));
    let g2 = "6d1c0a52-8f0e-4c1b-9a55-0000000000b2";
    for n in ["SN-A", "SN-B"] {
        assert_eq!(post(&s, "inventory/StockSerialNumbers", serial(n, g2)).await.0, 201);
    }
    let (status, v) = post(&s, "manufacturing/ShopOrderReceipts", receive(g2, 3.0)).await;
    assert_eq!(status, 400);
    assert!(message(&v).contains("one serial number per unit"), "{v}");
    let (status, v) = post(&s, "manufacturing/ShopOrderReceipts", receive(g2, 2.0)).await;
    assert_eq!(status, 201, "{v}");
    let now: Vec<String> = in_stock(&s, &product).await.into_iter().map(|n| n.0).collect();
    assert!(now.contains(&"SN-A".to_string()) && now.contains(&"SN-B".to_string()), "{now:?}");

    // A booked row cannot be deleted; a draft can.
    let booked_id = text(booked, "ID");
    let r = s.send(Method::DELETE, &format!("inventory/StockBatchNumbers(guid'{booked_id}')"), None).await;
    assert_eq!(r.status(), 400);
    let (_, draft) = post(&s, "inventory/StockSerialNumbers", serial("SN-C", g1)).await;
    let r =
        s.send(Method::DELETE, &format!("inventory/StockSerialNumbers(guid'{}')", text(&draft["d"], "ID")), None).await;
    assert_eq!(r.status(), 204);

    // The numbers' stock read from the sync endpoints is the storage-location stock, everywhere.
    let (numbers, _) = numbers_stock(&s).await;
    let items = all_rows(&s, "sync/Logistics/Items", "ID,IsSerialItem,IsBatchItem,Timestamp").await;
    let tracked: HashSet<String> =
        items.iter().filter(|i| i["IsSerialItem"] == true || i["IsBatchItem"] == 1).map(|i| text(i, "ID")).collect();
    let positions =
        all_rows(&s, "sync/Inventory/StorageLocationStockPositions", "Item,Warehouse,StorageLocation,Stock,Timestamp")
            .await;
    let mut compared = 0;
    let mut numbers = numbers;
    for p in positions.iter().filter(|p| tracked.contains(&text(p, "Item"))) {
        let place = (text(p, "Item"), text(p, "Warehouse"), text(p, "StorageLocation"));
        let counted = numbers.remove(&place).unwrap_or(0.0);
        assert!((counted - p["Stock"].as_f64().unwrap_or(0.0)).abs() < 1e-6, "{p} has numbers for {counted}");
        compared += 1;
    }
    assert!(compared > 10, "tracked stock at many places");
    assert!(numbers.values().all(|q| q.abs() < 1e-6), "numbers' stock only where the item's is: {numbers:?}");
    assert!(s.h().number_mismatches(DIV).is_empty());
    assert!(s.h().stock_mismatches(DIV).is_empty());
    s.stop().await;
}
