//! The Scanning screen's server reads: the open shop orders that need an item, from the local
//! copy, however long the item's history of finished orders is.

use crate::provider::World;
use serde_json::{Value, json};
use stock_manager::sim::SimOptions;

const MANUFACTURING_ORDERS: &str = "manufacturing/ShopOrders";
const MATERIAL_PLANS: &str = "manufacturing/ShopOrderMaterialPlans";

fn order(number: i64, status: i64, made: &str) -> Value {
    json!({"ShopOrderNumber": number, "Status": status, "Item": made, "PlannedQuantity": 1.0})
}

fn line(order: &str, item: &str, line: i64) -> Value {
    json!({"ShopOrder": order, "Item": item, "ItemCode": "HISTORY-1", "Type": 1, "LineNumber": line,
        "PlannedQuantity": 2.0, "Status": 30})
}

#[actix_web::test]
async fn open_orders_needing_an_item_are_found_past_a_long_history() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let sim = w.sim.handle();
    let div = w.division as i32;
    let item = "0badc0de-0000-4000-8000-000000000001";
    let made = "0badc0de-0000-4000-8000-000000000002";
    // Years of finished and completed orders, synced before the open ones.
    let history: Vec<Value> = (0..1100).map(|n| order(900_000 + n, if n % 2 == 0 { 40 } else { 30 }, made)).collect();
    let old_orders = sim.put_rows(div, MANUFACTURING_ORDERS, &history).expect("history orders");
    let old_lines: Vec<Value> = old_orders.iter().map(|o| line(o, item, 1)).collect();
    sim.put_rows(div, MATERIAL_PLANS, &old_lines).expect("history lines");
    // Today's orders: one open (needing the item on two lines), one in process, one finished.
    let now = sim
        .put_rows(
            div,
            MANUFACTURING_ORDERS,
            &[order(990_002, 20, made), order(990_001, 10, made), order(990_003, 30, made)],
        )
        .expect("open orders");
    sim.put_rows(
        div,
        MATERIAL_PLANS,
        &[line(&now[0], item, 1), line(&now[1], item, 2), line(&now[1], item, 1), line(&now[2], item, 1)],
    )
    .expect("open lines");
    // A by-product line of the item on an open order is not a material to issue.
    sim.put_rows(div, MATERIAL_PLANS, &[json!({"ShopOrder": now[1], "Item": item, "Type": 2, "LineNumber": 3})])
        .expect("by-product line");

    let status = w.sync(Some(vec!["shopOrders", "shopOrderMaterialPlans"])).await;
    assert!(status["tables"]["shopOrderMaterialPlans"]["error"].is_null(), "{status}");

    // More material lines of the item than one page of the data API holds.
    let second: Vec<Value> = w
        .get(&format!("/api/v1/db/shopOrderMaterialPlans?Item=eq.{item}&Type=eq.1&limit=1000&offset=1000"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(second.len(), 1100 + 4 - 1000);

    let res = w.get(&format!("/api/v1/scanning/ordersNeeding?item={}", item.to_uppercase())).await;
    assert_eq!(res.status(), 200);
    let found: Vec<Value> = res.json().await.unwrap();
    let seen: Vec<(i64, i64)> = found
        .iter()
        .map(|p| (p["order"]["ShopOrderNumber"].as_i64().unwrap(), p["plan"]["LineNumber"].as_i64().unwrap()))
        .collect();
    // By order number, then line; the finished order and the by-product line are left out.
    assert_eq!(seen, vec![(990_001, 1), (990_001, 2), (990_002, 1)], "{found:?}");
    assert!(found.iter().all(|p| p["plan"]["Item"] == item && p["plan"]["ShopOrder"] == p["order"]["ID"]));

    // An item no open order needs, and a value that is no item id.
    let none: Vec<Value> = w.get(&format!("/api/v1/scanning/ordersNeeding?item={made}")).await.json().await.unwrap();
    assert!(none.is_empty());
    let res = w.get("/api/v1/scanning/ordersNeeding?item=BOLT-M6").await;
    assert_eq!(res.status(), 400);
    w.stop().await;
}
