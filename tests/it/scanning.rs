//! The Scanning screen's server reads: the open shop orders that need an item, from the local
//! copy, however long the item's history of finished orders is.

use crate::provider::World;
use esm_sim::SimOptions;
use serde_json::{Value, json};

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

/// What the server says is still to issue on each line of the item's open orders.
async fn still_to_issue(w: &World, item: &str) -> Vec<(String, f64, f64)> {
    let found: Vec<Value> = w.get(&format!("/api/v1/scanning/ordersNeeding?item={item}")).await.json().await.unwrap();
    found
        .iter()
        .map(|p| {
            let plan = &p["plan"];
            let id = plan["ID"].as_str().unwrap_or_default().to_ascii_lowercase();
            (id, plan["PlannedQuantity"].as_f64().unwrap_or(0.0), plan["IssuedQuantity"].as_f64().expect("issued"))
        })
        .collect()
}

#[actix_web::test]
async fn an_issue_lowers_what_is_still_to_issue() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let status = w.sync(None).await;
    assert!(status["tables"]["materialIssues"]["error"].is_null(), "{status}");
    let sim = w.sim.handle();
    let div = w.division as i32;
    let lower = |v: &Value| v.as_str().unwrap_or_default().to_ascii_lowercase();

    // Exact's plans carry no issued quantity; the plan details (the simulator's own field) do.
    // A line issued in part shows what its issues add up to.
    let plans = sim.rows(div, "manufacturing/ShopOrderMaterialPlanDetails").unwrap();
    assert!(sim.rows(div, MATERIAL_PLANS).unwrap().iter().all(|p| p.get("IssuedQuantity").is_none()));
    let orders = sim.rows(div, MANUFACTURING_ORDERS).unwrap();
    let open: std::collections::HashSet<String> =
        orders.iter().filter(|o| o["Status"] == 20).map(|o| lower(&o["ID"])).collect();
    let items = sim.rows(div, "logistics/Items").unwrap();
    let untracked: std::collections::HashSet<String> =
        items.iter().filter(|i| i["IsSerialItem"] != true && i["IsBatchItem"] != 1).map(|i| lower(&i["ID"])).collect();
    let partial = plans
        .iter()
        .find(|p| {
            p["Type"] == 1
                && open.contains(&lower(&p["ShopOrder"]))
                && untracked.contains(&lower(&p["Item"]))
                && p["IssuedQuantity"].as_f64().unwrap_or(0.0) > 0.0
                && p["PlannedQuantity"].as_f64().unwrap_or(0.0) - p["IssuedQuantity"].as_f64().unwrap_or(0.0) >= 1.0
        })
        .expect("an untracked line issued in part on an order in process");
    let (plan, item) = (lower(&partial["ID"]), lower(&partial["Item"]));
    let issued_before = partial["IssuedQuantity"].as_f64().unwrap();
    let line = |lines: &[(String, f64, f64)]| lines.iter().find(|l| l.0 == plan).cloned().expect("the line");
    assert_eq!(line(&still_to_issue(&w, &item).await).2, issued_before);

    // One more issued from a handheld while Exact is away: queued, it counts as waiting.
    sim.set_serving(false);
    let body = json!({"ShopOrderMaterialPlan": plan, "Quantity": 1, "TransactionDate": "2026-11-21"});
    let res = w
        .request(reqwest::Method::POST, "/api/v1/exact/updateMaterialsIssues?wait=3")
        .header("Idempotency-Key", "issue-lowers")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202, "{}", res.text().await.unwrap());
    let waiting = |found: &[Value]| {
        found.iter().find(|p| lower(&p["plan"]["ID"]) == plan).map(|p| p["plan"]["QueuedQuantity"].as_f64())
    };
    let found: Vec<Value> = w.get(&format!("/api/v1/scanning/ordersNeeding?item={item}")).await.json().await.unwrap();
    assert_eq!(waiting(&found), Some(Some(1.0)), "{found:?}");
    assert_eq!(line(&still_to_issue(&w, &item).await).2, issued_before, "not issued in Exact yet");

    // Exact back: delivered, synced, the line shows it as issued and nothing waits.
    sim.set_serving(true);
    w.outbox_drained().await;
    w.sync(Some(vec!["materialIssues"])).await;
    let (_, planned, issued) = line(&still_to_issue(&w, &item).await);
    assert_eq!(issued, issued_before + 1.0);
    assert!(planned - issued >= 0.0);
    let found: Vec<Value> = w.get(&format!("/api/v1/scanning/ordersNeeding?item={item}")).await.json().await.unwrap();
    assert_eq!(waiting(&found), Some(Some(0.0)));

    // The handheld's catalogue (kept for offline use) says the same.
    let c: Value = w.get("/api/v1/scanning/catalogue").await.json().await.unwrap();
    let issued_list = c["plans"]["issued"].as_array().expect("issued per line");
    assert!(
        issued_list.iter().any(|q| q.as_f64() == Some(issued)),
        "the catalogue carries the line's issued quantity {issued}"
    );
    w.stop().await;
}
