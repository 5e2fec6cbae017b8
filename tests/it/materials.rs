//! The Materials screen's projection, made on the server from the local copy
//! (`GET /api/v1/materials/shortages`): per item in demand what is still to issue (planned less
//! what Exact issued, less what the outbox still has to issue), the sales lines, the stock and
//! the purchase order lines still to come; a page at a time, answered while Exact Online is away.

use crate::provider::World;
use esm_sim::SimOptions;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

fn lower(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_ascii_lowercase()
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

/// Every item of the projection, page after page.
async fn all_items(w: &World) -> (Value, Vec<Value>) {
    let mut items = Vec::new();
    loop {
        let res = w.get(&format!("/api/v1/materials/shortages?show=all&limit=200&offset={}", items.len())).await;
        assert_eq!(res.status(), 200);
        let page: Value = res.json().await.unwrap();
        let got = page["items"].as_array().expect("items").clone();
        let total = page["total"].as_u64().expect("total") as usize;
        items.extend(got);
        if items.len() >= total {
            assert_eq!(items.len(), total);
            return (page["counts"].clone(), items);
        }
    }
}

/// The quantity of an item's lines of one kind (positive).
fn of_kind(item: &Value, kind: &str) -> f64 {
    let sum: f64 =
        item["lines"].as_array().unwrap().iter().filter(|l| l["kind"] == kind).map(|l| num(&l["quantity"])).sum();
    (sum.abs() * 1e6).round() / 1e6
}

fn round(n: f64) -> f64 {
    (n * 1e6).round() / 1e6
}

#[actix_web::test]
async fn shortages_are_projected_from_the_local_copy_with_what_exact_and_the_outbox_issued() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let status = w.sync(None).await;
    assert!(status["tables"]["materialIssues"]["error"].is_null(), "{status}");
    let sim = w.sim.handle();
    let div = w.division as i32;

    // What Exact holds: open orders and their open material lines (the details carry the issued
    // quantity, which Exact's plans do not).
    let orders = sim.rows(div, "manufacturing/ShopOrders").unwrap();
    let open_orders: HashSet<String> = orders
        .iter()
        .filter(|o| [10, 20].contains(&o["Status"].as_i64().unwrap_or(0)))
        .map(|o| lower(&o["ID"]))
        .collect();
    let details = sim.rows(div, "manufacturing/ShopOrderMaterialPlanDetails").unwrap();
    let mut to_issue: HashMap<String, f64> = HashMap::new();
    for p in &details {
        let open = [10, 12, 20, 25].contains(&p["Status"].as_i64().unwrap_or(0))
            && open_orders.contains(&lower(&p["ShopOrder"]))
            && p["Type"].as_i64().unwrap_or(1) == 1;
        let left = num(&p["PlannedQuantity"]) - num(&p["IssuedQuantity"]);
        if open && left > 1e-9 {
            *to_issue.entry(lower(&p["Item"])).or_default() += left;
        }
    }
    assert!(details.iter().any(|p| num(&p["IssuedQuantity"]) > 0.0), "the demo has lines issued in part");
    // the purchase order lines still to come (the stream's rows: the order's own is line 0)
    let stream = sim.rows(div, "sync/PurchaseOrder/PurchaseOrders").unwrap();
    let open_po: HashSet<String> = stream
        .iter()
        .filter(|r| r["LineNumber"] == 0 && [10, 20].contains(&r["ReceiptStatus"].as_i64().unwrap_or(0)))
        .map(|r| lower(&r["PurchaseOrderID"]))
        .collect();
    let mut to_come: HashMap<String, f64> = HashMap::new();
    for r in stream.iter().filter(|r| num(&r["LineNumber"]) > 0.0 && open_po.contains(&lower(&r["PurchaseOrderID"]))) {
        let left = num(&r["Quantity"]) - num(&r["ReceivedQuantity"]);
        if left > 1e-9 {
            *to_come.entry(lower(&r["Item"])).or_default() += left;
        }
    }

    let (counts, items) = all_items(&w).await;
    let by_item: HashMap<String, &Value> = items.iter().map(|i| (lower(&i["item"]), i)).collect();
    assert_eq!(by_item.len(), items.len(), "each item once");
    for (item, need) in &to_issue {
        let shown = by_item.get(item).unwrap_or_else(|| panic!("{item} has material still to issue"));
        assert_eq!(of_kind(shown, "MS"), round(*need), "{item}: what is still to issue");
        assert!(shown["info"]["code"].is_string(), "{shown}");
    }
    let with_purchases = by_item.iter().filter(|(item, _)| to_come.contains_key(*item)).count();
    assert!(with_purchases > 0, "some items in demand have purchase order lines to come");
    for (item, shown) in &by_item {
        assert_eq!(of_kind(shown, "PO"), round(to_come.get(item).copied().unwrap_or(0.0)), "{item}: supply to come");
        // the balance runs over the lines in order, and the figures are its
        let lines = shown["lines"].as_array().unwrap();
        let mut balance = 0.0;
        for l in lines {
            balance = round(balance + num(&l["quantity"]));
            assert_eq!(num(&l["balance"]), balance, "{item}");
        }
        assert_eq!(num(&shown["endBalance"]), balance);
        let lowest = lines.iter().map(|l| num(&l["balance"])).fold(f64::INFINITY, f64::min);
        assert_eq!(num(&shown["lowest"]), lowest);
        assert_eq!(shown["availability"] == "short", lowest < 0.0, "{item}");
    }
    let per_state = |s: &str| items.iter().filter(|i| i["availability"] == s).count() as u64;
    assert_eq!(
        counts,
        json!({"short": per_state("short"), "expected": per_state("expected"), "inStock": per_state("inStock")})
    );
    // shortest first
    let order: Vec<u8> = items
        .iter()
        .map(|i| match i["availability"].as_str() {
            Some("short") => 0,
            Some("expected") => 1,
            _ => 2,
        })
        .collect();
    assert!(order.windows(2).all(|p| p[0] <= p[1]), "short, then expected, then in stock");

    // the default page leaves out what stock covers
    let res = w.get("/api/v1/materials/shortages").await;
    let page: Value = res.json().await.unwrap();
    assert_eq!(page["total"], counts["short"].as_u64().unwrap() + counts["expected"].as_u64().unwrap());
    assert!(page["items"].as_array().unwrap().iter().all(|i| i["availability"] != "inStock"));

    // Exact away: the answer still comes, from the local copy, and an issue booked meanwhile is
    // needed no more.
    sim.set_serving(false);
    let items_of_exact = sim.rows(div, "logistics/Items").unwrap();
    let untracked: HashSet<String> = items_of_exact
        .iter()
        .filter(|i| i["IsSerialItem"] != true && i["IsBatchItem"] != 1)
        .map(|i| lower(&i["ID"]))
        .collect();
    let plan = details
        .iter()
        .find(|p| {
            num(&p["IssuedQuantity"]) == 0.0
                && num(&p["PlannedQuantity"]) >= 1.0
                && [10, 12, 20, 25].contains(&p["Status"].as_i64().unwrap_or(0))
                && open_orders.contains(&lower(&p["ShopOrder"]))
                && untracked.contains(&lower(&p["Item"]))
        })
        .expect("an untracked line nothing was issued to");
    let item = lower(&plan["Item"]);
    let body = json!({"ShopOrderMaterialPlan": lower(&plan["ID"]), "Quantity": 1, "TransactionDate": "2026-11-21"});
    let res = w
        .request(reqwest::Method::POST, "/api/v1/exact/updateMaterialsIssues?wait=3")
        .header("Idempotency-Key", "materials-queued")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202, "{}", res.text().await.unwrap());
    let (_, after) = all_items(&w).await;
    let shown = after.iter().find(|i| lower(&i["item"]) == item).expect("the item is still in demand or shown");
    assert_eq!(of_kind(shown, "MS"), round(to_issue[&item] - 1.0), "the issue on its way is needed no more");
    sim.set_serving(true);

    // what the request names must make sense
    for bad in ["warehouse=nope", "limit=0", "limit=501", "show=everything", "offset=-1"] {
        let res = w.get(&format!("/api/v1/materials/shortages?{bad}")).await;
        assert_eq!(res.status(), 400, "{bad}");
    }
    w.stop().await;
}

#[actix_web::test]
async fn planning_reads_what_each_open_line_still_needs_and_the_stock_of_those_items_in_one_answer() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    w.sync(None).await;
    let sim = w.sim.handle();
    let div = w.division as i32;
    let line_key = |order: &Value, line: &Value| format!("{}|{}", lower(order), line.as_i64().unwrap_or(-1));
    let open_orders: HashSet<String> = sim
        .rows(div, "manufacturing/ShopOrders")
        .unwrap()
        .iter()
        .filter(|o| o["Status"].as_i64().unwrap_or(0) < 30)
        .map(|o| lower(&o["ID"]))
        .collect();
    // Exact's details carry what was issued; what is left is what the order still needs
    let expected: HashMap<String, f64> = sim
        .rows(div, "manufacturing/ShopOrderMaterialPlanDetails")
        .unwrap()
        .iter()
        .filter(|p| {
            ![21, 30, 45].contains(&p["Status"].as_i64().unwrap_or(0))
                && p["Type"].as_i64().unwrap_or(1) == 1
                && open_orders.contains(&lower(&p["ShopOrder"]))
        })
        .map(|p| {
            (line_key(&p["ShopOrder"], &p["LineNumber"]), round(num(&p["PlannedQuantity"]) - num(&p["IssuedQuantity"])))
        })
        .filter(|(_, left)| *left > 0.0)
        .collect();

    let res = w.get("/api/v1/planning/materials").await;
    assert_eq!(res.status(), 200);
    let answer: Value = res.json().await.unwrap();
    // columns: an order's lines follow those of the orders before it
    let column = |name: &str| answer[name].as_array().unwrap_or_else(|| panic!("{name}: {answer}")).clone();
    let item_ids: Vec<String> = column("items").iter().map(lower).collect();
    let (orders, counts) = (column("orders"), column("counts"));
    let (line, item, quantity) = (column("line"), column("item"), column("quantity"));
    assert_eq!(orders.len(), counts.len());
    let total: u64 = counts.iter().filter_map(Value::as_u64).sum();
    assert!([line.len(), item.len(), quantity.len()].iter().all(|n| *n as u64 == total), "one entry per line");
    let mut plans: HashMap<String, f64> = HashMap::new();
    let mut items: HashSet<String> = HashSet::new();
    let mut at = 0usize;
    for (order, count) in orders.iter().zip(&counts) {
        assert!(open_orders.contains(&lower(order)), "{order}");
        for i in at..at + count.as_u64().unwrap() as usize {
            let before = plans.insert(line_key(order, &line[i]), num(&quantity[i]));
            assert!(before.is_none(), "one line per order and line number: {order} {}", line[i]);
            items.insert(item_ids[item[i].as_u64().unwrap() as usize].clone());
        }
        at += count.as_u64().unwrap() as usize;
    }
    assert_eq!(plans, expected);
    assert_eq!(items, item_ids.iter().cloned().collect::<HashSet<_>>(), "every item once, each needed");
    assert_eq!(item_ids.len(), items.len());
    // the stock of those items, summed over warehouses, as the local copy has it
    let mut free: HashMap<String, f64> = HashMap::new();
    for item in &items {
        let res = w.get(&format!("/api/v1/db/stockPositions?ItemId=eq.{item}&select=FreeStock")).await;
        let positions: Vec<Value> = res.json().await.unwrap();
        free.insert(item.clone(), positions.iter().map(|p| num(&p["FreeStock"])).sum());
    }
    let stock = column("free");
    assert_eq!(stock.len(), item_ids.len());
    assert_eq!(column("incoming").len(), item_ids.len());
    for (item, f) in item_ids.iter().zip(&stock) {
        assert_eq!(num(f), round(free.get(item).copied().unwrap_or(0.0)), "{item}");
    }
    w.stop().await;
}
