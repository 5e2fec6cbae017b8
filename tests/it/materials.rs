//! The Materials screen's one read of the local copy (`GET /api/v1/materials/rows`): every open
//! material line with what Exact has issued to it and what the outbox still has to issue, the
//! open sales lines with their orders' warehouses, and the items and stock in demand; answered
//! from the local copy while Exact Online is away.

use crate::provider::World;
use esm_sim::SimOptions;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

fn lower(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_ascii_lowercase()
}

fn ids(rows: &Value, key: &str) -> HashSet<String> {
    rows.as_array().expect("a list").iter().map(|r| lower(&r[key])).collect()
}

#[actix_web::test]
async fn materials_read_the_open_demand_in_one_answer() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let status = w.sync(None).await;
    assert!(status["tables"]["materialIssues"]["error"].is_null(), "{status}");
    let sim = w.sim.handle();
    let div = w.division as i32;

    // What Exact holds: open orders, their open material lines (the details carry the issued
    // quantity, which Exact's plans do not), open sales lines.
    let orders = sim.rows(div, "manufacturing/ShopOrders").unwrap();
    let open_orders: HashSet<String> = orders
        .iter()
        .filter(|o| [10, 20].contains(&o["Status"].as_i64().unwrap_or(0)))
        .map(|o| lower(&o["ID"]))
        .collect();
    let details = sim.rows(div, "manufacturing/ShopOrderMaterialPlanDetails").unwrap();
    let open_plans: HashMap<String, f64> = details
        .iter()
        .filter(|p| {
            [10, 12, 20, 25].contains(&p["Status"].as_i64().unwrap_or(0))
                && open_orders.contains(&lower(&p["ShopOrder"]))
        })
        .map(|p| (lower(&p["ID"]), p["IssuedQuantity"].as_f64().unwrap_or(0.0)))
        .collect();
    assert!(open_plans.values().any(|q| *q > 0.0), "the demo has lines issued in part");
    // the sync stream carries the line's Status (the regular endpoint has only OrderStatus)
    let sales = sim.rows(div, "sync/SalesOrder/SalesOrderLines").unwrap();
    let open_sales: HashSet<String> = sales
        .iter()
        .filter(|l| [12, 20].contains(&l["Status"].as_i64().unwrap_or(0)))
        .map(|l| lower(&l["ID"]))
        .collect();

    let res = w.get("/api/v1/materials/rows").await;
    assert_eq!(res.status(), 200);
    let rows: Value = res.json().await.unwrap();
    assert_eq!(ids(&rows["shopOrders"], "ID"), open_orders);
    let plans = rows["plans"].as_array().expect("plans");
    let issued: HashMap<String, f64> =
        plans.iter().map(|p| (lower(&p["ID"]), p["IssuedQuantity"].as_f64().expect("issued"))).collect();
    assert_eq!(issued, open_plans, "every open line, with what Exact issued to it");
    assert!(plans.iter().all(|p| p["QueuedQuantity"] == 0.0));
    assert_eq!(ids(&rows["salesLines"], "ID"), open_sales);
    let warehouses = rows["salesWarehouses"].as_object().expect("warehouses by order");
    assert!(rows["salesLines"].as_array().unwrap().iter().all(|l| warehouses.contains_key(&lower(&l["OrderID"]))));
    // every item asked for is there, and so is its stock
    let demanded: HashSet<String> =
        plans.iter().chain(rows["salesLines"].as_array().unwrap()).map(|r| lower(&r["Item"])).collect();
    assert_eq!(ids(&rows["items"], "ID"), demanded);
    let positions = ids(&rows["stockPositions"], "ItemId");
    assert!(!positions.is_empty() && positions.is_subset(&demanded));

    // Exact away: the answer still comes, from the local copy, and an issue booked meanwhile is
    // on the line as queued, so the screen does not count it as needed.
    sim.set_serving(false);
    let items = sim.rows(div, "logistics/Items").unwrap();
    let untracked: HashSet<String> =
        items.iter().filter(|i| i["IsSerialItem"] != true && i["IsBatchItem"] != 1).map(|i| lower(&i["ID"])).collect();
    let plan = plans
        .iter()
        .find(|p| p["IssuedQuantity"] == 0.0 && untracked.contains(&lower(&p["Item"])))
        .map(|p| lower(&p["ID"]))
        .expect("an untracked line nothing was issued to");
    let body = json!({"ShopOrderMaterialPlan": plan, "Quantity": 1, "TransactionDate": "2026-11-21"});
    let res = w
        .request(reqwest::Method::POST, "/api/v1/exact/updateMaterialsIssues?wait=3")
        .header("Idempotency-Key", "materials-queued")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202, "{}", res.text().await.unwrap());
    let res = w.get("/api/v1/materials/rows").await;
    assert_eq!(res.status(), 200, "answered from the local copy while Exact is away");
    let rows: Value = res.json().await.unwrap();
    let line = rows["plans"].as_array().unwrap().iter().find(|p| lower(&p["ID"]) == plan).cloned().expect("the line");
    assert_eq!(line["QueuedQuantity"], 1.0, "{line}");
    assert_eq!(line["IssuedQuantity"], 0.0, "not issued in Exact yet");
    sim.set_serving(true);
    w.stop().await;
}
