//! Bookings made from a handheld's scan catalogue name items, shop orders and material lines by
//! code and number (`item:`, `shopOrder:`, `plan:`): the server books them under the GUIDs of the
//! local copy, answers a repeat of the key from its first answer, and refuses a name the copy does
//! not know, booking nothing.

use crate::provider::World;
use esm_sim::SimOptions;
use reqwest::Method;
use serde_json::{Value, json};

const TABLES: [&str; 4] = ["items", "shopOrders", "shopOrderMaterialPlans", "stockPositions"];

async fn first_row(w: &World, path: &str) -> Value {
    let rows: Value = w.get(path).await.json().await.unwrap();
    rows[0].clone()
}

async fn book(w: &World, path: &str, key: &str, body: &Value) -> (u16, bool, Value) {
    let res = w
        .request(Method::POST, &format!("{path}?wait=10"))
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let replayed = res.headers().get("Idempotent-Replayed").is_some_and(|v| v == "true");
    (status, replayed, res.json().await.unwrap_or(Value::Null))
}

fn lower(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_ascii_lowercase()
}

async fn outbox_len(w: &World) -> usize {
    let outbox: Value = w.get("/api/v1/outbox").await.json().await.unwrap();
    outbox["entries"].as_array().map_or(0, Vec::len)
}

#[actix_web::test]
async fn bookings_naming_things_by_code_and_number_are_booked_under_their_guids() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let status = w.sync(Some(TABLES.to_vec())).await;
    for t in TABLES {
        assert!(status["tables"][t]["error"].is_null(), "{t}: {status}");
    }
    let plan = first_row(&w, "/api/v1/db/shopOrderMaterialPlans?Type=eq.1&LineNumber=not.is.null&limit=1").await;
    let order = first_row(&w, &format!("/api/v1/db/shopOrders?ID=eq.{}", plan["ShopOrder"].as_str().unwrap())).await;
    let number = order["ShopOrderNumber"].as_i64().unwrap();
    let line = plan["LineNumber"].as_i64().unwrap();
    let item = first_row(&w, "/api/v1/db/items?order=Code.desc&limit=1").await;
    let code = item["Code"].as_str().unwrap();
    let warehouse = first_row(&w, "/api/v1/db/stockPositions?limit=1").await["Warehouse"].clone();

    // A material issue to line {line} of shop order {number}.
    let issue = json!({"ShopOrderMaterialPlan": format!("plan:{number}/{line}"), "Quantity": 1, "TransactionDate": "2026-11-21"});
    let (status, replayed, first) = book(&w, "/api/v1/exact/updateMaterialsIssues", "ref-issue", &issue).await;
    assert_eq!((status, replayed), (200, false), "{first}");
    assert_eq!(lower(&first["entries"][0]["body"]["ShopOrderMaterialPlan"]), lower(&plan["ID"]));
    let booked = w.sim.handle().rows(w.division as i32, "manufacturing/MaterialIssues").unwrap_or_default();
    assert!(booked.iter().any(|r| lower(&r["ShopOrderMaterialPlan"]) == lower(&plan["ID"])), "booked at Exact Online");
    // sent again (its answer lost): the first answer, not a second booking
    let (status, replayed, again) = book(&w, "/api/v1/exact/updateMaterialsIssues", "ref-issue", &issue).await;
    assert_eq!((status, replayed, &again), (200, true, &first));

    // A count and a transfer of the item by its code; a receipt of the order by its number.
    let count =
        json!({"Warehouse": warehouse, "StockCountLines": [{"Item": format!("item:{code}"), "QuantityNew": 5}]});
    let (status, _, counted) = book(&w, "/api/v1/exact/createStockCount", "ref-count", &count).await;
    assert_eq!(status, 200, "{counted}");
    assert_eq!(lower(&counted["entries"][0]["body"]["StockCountLines"][0]["Item"]), lower(&item["ID"]));
    let transfer = json!({"WarehouseFrom": warehouse, "WarehouseTo": warehouse,
        "WarehouseTransferLines": [{"Item": format!("item:{code}"), "Quantity": 1}]});
    let (status, _, moved) = book(&w, "/api/v1/exact/createWarehouseTransfer", "ref-transfer", &transfer).await;
    assert!([200, 422].contains(&status), "checked and sent as a GUID: {moved}");
    assert_eq!(lower(&moved["entries"][0]["body"]["WarehouseTransferLines"][0]["Item"]), lower(&item["ID"]));
    let receipt = json!({"ShopOrder": format!("shopOrder:{number}"), "Quantity": 1, "TransactionDate": "2026-11-21"});
    let (status, _, received) = book(&w, "/api/v1/exact/createShopOrderReceipt", "ref-receipt", &receipt).await;
    assert!([200, 422].contains(&status), "{received}");
    assert_eq!(lower(&received["entries"][0]["body"]["ShopOrder"]), lower(&order["ID"]));

    // What the copy does not know is refused with what it was, and books nothing.
    let queued = outbox_len(&w).await;
    let unknown = [
        (
            "/api/v1/exact/createStockCount",
            json!({"Warehouse": warehouse, "StockCountLines": [{"Item": "item:NO-SUCH-ITEM", "QuantityNew": 1}]}),
            "Item NO-SUCH-ITEM",
        ),
        (
            "/api/v1/exact/createShopOrderReceipt",
            json!({"ShopOrder": "shopOrder:99999999", "Quantity": 1, "TransactionDate": "2026-11-21"}),
            "Shop order 99999999",
        ),
        (
            "/api/v1/exact/updateMaterialsIssues",
            json!([{"ShopOrderMaterialPlan": format!("plan:{number}/9999"), "Quantity": 1, "TransactionDate": "2026-11-21"}]),
            "Line 9999",
        ),
        (
            "/api/v1/exact/updateMaterialsIssues",
            json!({"ShopOrderMaterialPlan": "plan:24001", "Quantity": 1, "TransactionDate": "2026-11-21"}),
            "plan:{shop order number}/{line number}",
        ),
        (
            "/api/v1/exact/createShopOrderReceipt",
            json!({"ShopOrder": "shopOrder:x", "Quantity": 1, "TransactionDate": "2026-11-21"}),
            "no shop order number",
        ),
    ];
    for (k, (path, body, says)) in unknown.iter().enumerate() {
        let (status, _, answer) = book(&w, path, &format!("ref-unknown-{k}"), body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{message}");
    }
    assert_eq!(outbox_len(&w).await, queued, "nothing queued");
    w.stop().await;
}
