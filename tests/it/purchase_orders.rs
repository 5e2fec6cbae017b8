//! Purchase orders synced from Exact's one stream of headers and lines (reference §6.2): the
//! local copy holds each open line with its order's fields, follows a goods receipt, and lets
//! go of a line or an order deleted in Exact.

use crate::outbox::{eventually, rows};
use crate::provider::World;
use esm_sim::SimOptions;
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::BTreeSet;

const STREAM: &str = "sync/PurchaseOrder/PurchaseOrders";

fn lower(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_ascii_lowercase()
}

/// The local rows of one order, by ID.
async fn local_rows(w: &World, order: &str) -> Vec<Value> {
    let res = w.get(&format!("/api/v1/db/purchaseOrders?PurchaseOrderID=eq.{order}&order=LineNumber")).await;
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

/// The server's answer of the lines still to come (`/purchases/open`): id → received so far.
async fn open_lines(w: &World) -> std::collections::BTreeMap<String, f64> {
    let res = w.get("/api/v1/purchases/open").await;
    assert_eq!(res.status(), 200);
    let lines: Vec<Value> = res.json().await.unwrap();
    lines.iter().map(|l| (lower(&l["id"]), l["received"].as_f64().unwrap_or(-1.0))).collect()
}

fn ids(rows: &[Value]) -> BTreeSet<String> {
    rows.iter().map(|r| lower(&r["ID"])).collect()
}

/// An open order of the simulator with at least two lines, of untracked items (a serial or batch
/// item is received with its numbers, not the point here): (order, lines).
fn open_order(w: &World) -> (String, Vec<Value>) {
    let tracked: BTreeSet<String> = rows(&w.sim, w.division, "logistics/Items")
        .iter()
        .filter(|i| i["IsSerialItem"] == true || i["IsBatchItem"] == 1)
        .map(|i| lower(&i["ID"]))
        .collect();
    let open: BTreeSet<String> = rows(&w.sim, w.division, "purchaseorder/PurchaseOrders")
        .iter()
        .filter(|o| o["ReceiptStatus"] == 10)
        .map(|o| lower(&o["PurchaseOrderID"]))
        .collect();
    let lines = rows(&w.sim, w.division, "purchaseorder/PurchaseOrderLines");
    open.into_iter()
        .map(|o| {
            let of: Vec<Value> = lines.iter().filter(|l| lower(&l["PurchaseOrderID"]) == o).cloned().collect();
            (o, of)
        })
        .find(|(_, of)| of.len() >= 2 && of.iter().all(|l| !tracked.contains(&lower(&l["Item"]))))
        .expect("the demo has an open order with two lines")
}

#[actix_web::test]
async fn an_orders_lines_carry_its_fields_follow_a_receipt_and_leave_when_exact_deletes_them() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    w.sync(None).await;
    let (order, lines) = open_order(&w);

    // the order's row (LineNumber 0, keyed by the order) and each line's, with the order's fields
    let local = local_rows(&w, &order).await;
    let mut expected: BTreeSet<String> = ids(&lines);
    expected.insert(order.clone());
    assert_eq!(ids(&local), expected, "{local:?}");
    let header = rows(&w.sim, w.division, "purchaseorder/PurchaseOrders")
        .into_iter()
        .find(|o| lower(&o["PurchaseOrderID"]) == order)
        .unwrap();
    for row in &local {
        assert_eq!(row["OrderNumber"], header["OrderNumber"], "{row}");
        assert_eq!(row["SupplierCode"], header["SupplierCode"], "{row}");
        assert_eq!(row["ReceiptStatus"], 10, "{row}");
    }
    assert_eq!(local[0]["LineNumber"], 0);
    assert_eq!(lower(&local[0]["ID"]), order);

    // the server's answer of what is still to come: every line of Exact's open orders with
    // something left to receive, and nothing else
    let stream = rows(&w.sim, w.division, STREAM);
    let open_orders: BTreeSet<String> = stream
        .iter()
        .filter(|r| r["LineNumber"] == 0 && [10, 20].contains(&r["ReceiptStatus"].as_i64().unwrap_or(0)))
        .map(|r| lower(&r["PurchaseOrderID"]))
        .collect();
    let to_come: BTreeSet<String> = stream
        .iter()
        .filter(|r| r["LineNumber"].as_i64().unwrap_or(0) > 0 && open_orders.contains(&lower(&r["PurchaseOrderID"])))
        .filter(|r| r["Quantity"].as_f64().unwrap_or(0.0) > r["ReceivedQuantity"].as_f64().unwrap_or(0.0))
        .map(|r| lower(&r["ID"]))
        .collect();
    let answer = open_lines(&w).await;
    assert_eq!(answer.keys().cloned().collect::<BTreeSet<_>>(), to_come);
    assert_eq!(answer.get(&lower(&lines[0]["ID"])), Some(&0.0));

    // a goods receipt through the outbox: its refresh brings the received quantity and the
    // order's new receipt status to every row of the order
    let line = lower(&lines[0]["ID"]);
    let res = w
        .request(Method::POST, "/api/v1/exact/createGoodsReceipt?wait=10")
        .json(&json!({"GoodsReceiptLines": [{"PurchaseOrderLineID": line, "QuantityReceived": 1}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap_or_default());
    eventually("the receipt in the local copy", async || {
        let local = local_rows(&w, &order).await;
        local.iter().any(|r| lower(&r["ID"]) == line && r["ReceivedQuantity"] == 1.0)
            && local.iter().all(|r| r["ReceiptStatus"] == 20)
    })
    .await;
    assert_eq!(open_lines(&w).await.get(&line), Some(&1.0), "the answer follows the local copy");

    // a line deleted in Exact: the next sync lets go of it and keeps the rest
    let gone = lower(&lines[1]["ID"]);
    assert!(w.sim.handle().delete(w.division as i32, "purchaseorder/PurchaseOrderLines", &gone));
    let status = w.sync(Some(vec!["purchaseOrders"])).await;
    assert!(status["tables"]["purchaseOrders"]["error"].is_null(), "{status}");
    let left = ids(&local_rows(&w, &order).await);
    assert!(!left.contains(&gone), "the deleted line is gone: {left:?}");
    assert!(left.contains(&order) && left.contains(&line), "the order and its other line stay: {left:?}");
    let sim_rows: BTreeSet<String> = rows(&w.sim, w.division, STREAM)
        .iter()
        .filter(|r| lower(&r["PurchaseOrderID"]) == order)
        .map(|r| lower(&r["ID"]))
        .collect();
    assert_eq!(left, sim_rows, "the local order is Exact's");
    assert!(!open_lines(&w).await.contains_key(&gone));

    // the order deleted in Exact: logged once under its id, it takes all its rows
    assert!(w.sim.handle().delete(w.division as i32, "purchaseorder/PurchaseOrders", &order));
    let status = w.sync(None).await;
    assert!(status["tables"]["deletedEntries"]["error"].is_null(), "{status}");
    assert_eq!(local_rows(&w, &order).await, Vec::<Value>::new(), "the deleted order left the local copy");
    assert!(!open_lines(&w).await.contains_key(&line), "and the answer");
    w.stop().await;
}

#[actix_web::test]
async fn a_stream_of_many_pages_is_read_to_its_end() {
    let w = World::start(SimOptions { rate_limits: false, scale: esm_sim::Scale::Medium, ..Default::default() }).await;
    let status = w.sync(Some(vec!["purchaseOrders"])).await;
    let table = &status["tables"]["purchaseOrders"];
    assert!(table["error"].is_null(), "{status}");
    let sim_rows = rows(&w.sim, w.division, STREAM).len();
    assert!(sim_rows > 2_000, "more than a page or two: {sim_rows}");
    assert_eq!(table["rows"].as_u64(), Some(sim_rows as u64), "{status}");
    w.stop().await;
}
