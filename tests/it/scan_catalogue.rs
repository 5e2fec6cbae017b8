//! The scan catalogue a handheld keeps for scanning while it cannot reach the server: the demo
//! organization's items, places, stock and open material lines from the local copy, nothing of
//! another organization, a 304 for an unchanged copy, and nothing without a session.

use crate::provider::World;
use reqwest::header::{ETAG, IF_NONE_MATCH};
use serde_json::{Value, json};
use std::collections::HashSet;
use stock_manager::sim::SimOptions;

const TABLES: [&str; 5] =
    ["items", "storageLocationStockPositions", "stockPositions", "shopOrders", "shopOrderMaterialPlans"];
const PATH: &str = "/api/v1/scanning/catalogue";

async fn json_of(res: reqwest::Response) -> Value {
    res.json().await.expect("JSON body")
}

async fn rows(w: &World, path: &str) -> Vec<Value> {
    let body = json_of(w.get(path).await).await;
    serde_json::from_value(body.clone()).unwrap_or_else(|e| panic!("{path}: {e}: {body}"))
}

fn tag_of(res: &reqwest::Response) -> String {
    res.headers().get(ETAG).expect("an ETag").to_str().expect("ascii tag").to_string()
}

fn lower(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_ascii_lowercase()
}

#[actix_web::test]
async fn a_handheld_keeps_its_organizations_items_stock_and_open_material_lines() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let status = w.sync(Some(TABLES.to_vec())).await;
    for t in TABLES {
        assert!(status["tables"][t]["error"].is_null(), "{t}: {status}");
    }
    // The Scanning screen reads the storage locations live, which caches them for the catalogue.
    let live_locations = rows(&w, "/api/v1/exact/live/storageLocations").await;

    let res = w.get(PATH).await;
    assert_eq!(res.status(), 200);
    let tag = tag_of(&res);
    let c = json_of(res).await;
    assert_eq!(c["format"], 1);
    assert_eq!(c["division"], w.division);
    assert!(c["asOf"].as_i64().is_some_and(|t| t > 1_600_000_000_000), "{}", c["asOf"]);

    // Every item, with the fields a scan shows; looked up by code the way the screen does.
    let items = c["items"].as_array().unwrap();
    let mut ids = Vec::new();
    loop {
        let page = rows(&w, &format!("/api/v1/db/items?select=ID&limit=1000&offset={}", ids.len())).await;
        let done = page.len() < 1000;
        ids.extend(page.iter().map(|r| lower(&r["ID"])));
        if done {
            break;
        }
    }
    assert!(!items.is_empty());
    assert_eq!(items.len(), ids.len());
    let id = ids[ids.len() / 2].clone();
    let row = &rows(&w, &format!("/api/v1/db/items?ID=eq.{id}")).await[0];
    let mine = items.iter().find(|i| i[0] == id).expect("the stored item is in the catalogue");
    assert_eq!(mine[1], row["Code"]);
    assert_eq!(mine[2], row["Description"]);
    assert_eq!(mine[3], row["Unit"]);
    let fractions = matches!(row["IsFractionAllowedItem"], Value::Bool(true)) || row["IsFractionAllowedItem"] == 1;
    assert_eq!(mine[5], json!(fractions as u8));
    assert!(items.iter().any(|i| i[4].is_string()), "some demo items have a barcode");

    // Stock per storage location: each row of the copy, its location by index.
    let locations = c["locations"].as_array().unwrap();
    assert!(live_locations.len() <= locations.len() && !live_locations.is_empty());
    let location_stock = c["locationStock"].as_array().unwrap();
    let stored =
        rows(&w, &format!("/api/v1/db/storageLocationStockPositions?Item=eq.{}", items[0][0].as_str().unwrap())).await;
    let kept: Vec<(String, f64)> = location_stock
        .iter()
        .filter(|s| s[0] == 0)
        .map(|s| (locations[s[1].as_u64().unwrap() as usize][0].as_str().unwrap().to_string(), s[2].as_f64().unwrap()))
        .collect();
    let mut want: Vec<(String, f64)> =
        stored.iter().map(|s| (lower(&s["StorageLocation"]), s["Stock"].as_f64().unwrap_or(0.0))).collect();
    let mut got = kept.clone();
    want.sort_by(|a, b| a.0.cmp(&b.0));
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(got, want);
    assert!(!location_stock.is_empty() && !c["warehouseStock"].as_array().unwrap().is_empty());

    // The open material lines of an item are the ones `ordersNeeding` answers, in its order.
    let orders = c["orders"].as_array().unwrap();
    let plans = c["plans"].as_array().unwrap();
    assert!(!plans.is_empty(), "the demo has open orders with materials");
    assert!(orders.iter().all(|o| o[2] == 10 || o[2] == 20));
    let item_index = plans[0][2].as_u64().unwrap() as usize;
    let item_id = items[item_index][0].as_str().unwrap();
    let needing = rows(&w, &format!("/api/v1/scanning/ordersNeeding?item={item_id}")).await;
    let expected: Vec<(String, i64)> =
        needing.iter().map(|p| (lower(&p["plan"]["ID"]), p["order"]["ShopOrderNumber"].as_i64().unwrap())).collect();
    let kept: Vec<(String, i64)> = plans
        .iter()
        .filter(|p| p[2] == item_index)
        .map(|p| (p[0].as_str().unwrap().to_string(), orders[p[1].as_u64().unwrap() as usize][1].as_i64().unwrap()))
        .collect();
    assert_eq!(kept, expected);

    // Unchanged copy: 304 with the tag, no body; another tag gets the catalogue.
    let res = w.request(reqwest::Method::GET, PATH).header(IF_NONE_MATCH, &tag).send().await.unwrap();
    assert_eq!(res.status(), 304);
    assert_eq!(tag_of(&res), tag);
    assert!(res.bytes().await.unwrap().is_empty());
    let res = w.request(reqwest::Method::GET, PATH).header(IF_NONE_MATCH, "\"c0-old\"").send().await.unwrap();
    assert_eq!(res.status(), 200);
    // Gzipped for a client that takes it (the compression middleware).
    let raw = reqwest::Client::builder().no_gzip().build().unwrap();
    let res =
        raw.get(w.server.at(PATH)).header("cookie", &w.cookie).header("accept-encoding", "gzip").send().await.unwrap();
    assert_eq!(res.headers().get("content-encoding").and_then(|v| v.to_str().ok()), Some("gzip"));
    // and plain for one that does not
    let res = raw
        .get(w.server.at(PATH))
        .header("cookie", &w.cookie)
        .header("accept-encoding", "gzip;q=0")
        .send()
        .await
        .unwrap();
    assert!(res.headers().get("content-encoding").is_none());
    assert_eq!(json_of(res).await["division"], w.division);
    // A sync changes the copy, and so the tag.
    w.sync(Some(vec!["items"])).await;
    let res = w.request(reqwest::Method::GET, PATH).header(IF_NONE_MATCH, &tag).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_ne!(tag_of(&res), tag);

    // No session, no catalogue.
    let res = w.server.client.get(w.server.at(PATH)).send().await.unwrap();
    assert_eq!(res.status(), 401);

    // The user's other organization sees its own copy only: nothing until synced, then its items.
    let a_items: HashSet<String> = items.iter().map(|i| i[0].as_str().unwrap().to_string()).collect();
    let other = 3154117;
    assert_eq!(w.post_json("/api/v1/auth/division", json!({"division": other})).await.status(), 200);
    let code = w.issuer.issue(other, "Van Dijk Machinebouw B.V.", None);
    let res = w.post_json("/api/v1/license/activate", json!({"division": other, "code": code})).await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    let b = json_of(w.get(PATH).await).await;
    assert_eq!(b["division"], other);
    assert_eq!(b["items"], json!([]));
    assert_eq!(b["plans"], json!([]));
    assert!(b["asOf"].is_null());
    w.sync(Some(TABLES.to_vec())).await;
    let b = json_of(w.get(PATH).await).await;
    let b_items = b["items"].as_array().unwrap();
    assert!(!b_items.is_empty());
    assert!(b_items.iter().all(|i| !a_items.contains(i[0].as_str().unwrap())), "B never gets A's items");
    w.stop().await;
}
