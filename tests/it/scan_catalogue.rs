//! The scan catalogue a handheld keeps for scanning while it cannot reach the server: the demo
//! organization's items, places, stock and open material lines from the local copy, nothing of
//! another organization, a 304 for an unchanged copy, and nothing without a session. The
//! compact layout is decoded here as the handheld decodes it, and compared with the stored rows:
//! items by their codes, shop orders by their numbers, material lines by order and line number
//! (what bookings made from it name them by, `tests/it/references.rs`).

use crate::provider::World;
use esm_sim::SimOptions;
use reqwest::header::{ETAG, IF_NONE_MATCH};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

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

fn nums(v: &Value) -> Vec<i64> {
    v.as_array().expect("a list").iter().map(|n| n.as_i64().expect("a whole number")).collect()
}

/// A GUID column: 16 bytes each, in the order of their hex digits, as base64url; the lower-case
/// dashed GUIDs back.
fn guids(v: &Value) -> Vec<String> {
    use base64::Engine;
    let bytes =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(v.as_str().expect("a string")).expect("base64url");
    assert_eq!(bytes.len() % 16, 0);
    bytes
        .chunks(16)
        .map(|b| {
            let h = hex::encode(b);
            format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
        })
        .collect()
}

/// Running sums of a column of differences.
fn undelta(v: &Value) -> Vec<usize> {
    let mut at = 0;
    nums(v)
        .into_iter()
        .map(|d| {
            at += d;
            at as usize
        })
        .collect()
}

/// Stock columns as `(item index, place index, stock or null)` rows.
fn stock_rows(v: &Value) -> Vec<(usize, usize, Option<f64>)> {
    let (items, places) = (nums(&v["item"]), nums(&v["place"]));
    let stock = v["stock"].as_array().unwrap();
    let (mut item, mut place) = (0, 0);
    (0..items.len())
        .map(|k| {
            if items[k] > 0 {
                item += items[k];
                place = places[k];
            } else {
                place += places[k];
            }
            (item as usize, place as usize, stock[k].as_f64())
        })
        .collect()
}

/// Every stored item of the session's organization: its ID by its code.
async fn stored_items(w: &World) -> HashMap<String, String> {
    let mut codes = HashMap::new();
    let mut offset = 0;
    loop {
        let page = rows(w, &format!("/api/v1/db/items?select=ID,Code&limit=1000&offset={offset}")).await;
        offset += page.len();
        codes.extend(page.iter().filter_map(|r| Some((r["Code"].as_str()?.to_string(), lower(&r["ID"])))));
        if page.len() < 1000 {
            return codes;
        }
    }
}

/// The stored item of `code`.
async fn item_of(w: &World, code: &str) -> Value {
    let code: String = url::form_urlencoded::byte_serialize(code.as_bytes()).collect();
    rows(w, &format!("/api/v1/db/items?Code=eq.{code}")).await.remove(0)
}

/// The item codes, each the length it shares with the one before (ASCII here) and the rest.
fn codes(v: &Value) -> Vec<String> {
    let mut before = String::new();
    nums(&v["shared"])
        .into_iter()
        .zip(v["rest"].as_array().unwrap())
        .map(|(shared, rest)| {
            before = format!("{}{}", &before[..shared as usize], rest.as_str().unwrap());
            before.clone()
        })
        .collect()
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
    // and the warehouses, which say which keep no storage locations
    let live_warehouses = rows(&w, "/api/v1/exact/live/warehouses").await;

    let res = w.get(PATH).await;
    assert_eq!(res.status(), 200);
    assert!(tag_of(&res).starts_with("\"c5-"), "the layout is part of the tag");
    let c = json_of(res).await;
    assert_eq!(c["format"], 5);
    // one tracking letter per item: the demo's batch materials and serial made items among them
    let tracking = c["items"]["tracking"].as_str().unwrap_or_default();
    assert_eq!(tracking.len(), c["items"]["description"].as_array().map_or(0, Vec::len));
    assert!(tracking.contains('s') && tracking.contains('b'), "{tracking}");
    assert!(tracking.chars().all(|t| matches!(t, 's' | 'b' | '0')), "{tracking}");
    // the warehouses without storage locations, by index
    let mut unlocated: Vec<Value> = c["warehouses"]["unlocated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| c["warehouses"]["code"][i.as_u64().unwrap() as usize].clone())
        .collect();
    let mut expected: Vec<Value> =
        live_warehouses.iter().filter(|r| r["UseStorageLocations"] == 0).map(|r| r["Code"].clone()).collect();
    expected.sort_by_key(|c| c.to_string());
    unlocated.sort_by_key(|c| c.to_string());
    assert_eq!(unlocated, expected);
    assert_eq!(expected.len(), 2);
    assert_eq!(c["division"], w.division);
    assert!(c["asOf"].as_i64().is_some_and(|t| t > 1_600_000_000_000), "{}", c["asOf"]);

    // Every item by its code (no GUIDs: the code names it), with the fields a scan shows.
    let it = &c["items"];
    assert!(it.get("id").is_none() && c["orders"].get("id").is_none() && c["plans"].get("id").is_none());
    let item_codes = codes(&it["code"]);
    assert!(!item_codes.is_empty());
    let stored = stored_items(&w).await;
    assert_eq!(item_codes.iter().collect::<HashSet<_>>(), stored.keys().collect::<HashSet<_>>());
    assert!(item_codes.windows(2).all(|p| p[0] < p[1]), "by code, each once");
    assert!(nums(&it["code"]["shared"]).iter().any(|&n| n > 0), "sorted codes share beginnings");
    let item_ids: Vec<&String> = item_codes.iter().map(|code| &stored[code]).collect();
    for k in [0, item_codes.len() / 2, item_codes.len() - 1] {
        let row = item_of(&w, &item_codes[k]).await;
        assert_eq!(it["description"][k], row["Description"]);
        assert_eq!(it["units"][it["unit"][k].as_u64().unwrap() as usize], row["Unit"]);
        let fractions = matches!(row["IsFractionAllowedItem"], Value::Bool(true)) || row["IsFractionAllowedItem"] == 1;
        assert_eq!(&it["fractions"].as_str().unwrap()[k..=k], if fractions { "1" } else { "0" });
    }
    assert!(it["barcode"].as_array().unwrap().iter().any(Value::is_string), "some demo items have a barcode");

    // Stock per storage location: each row of the copy, its location by index.
    let locations = guids(&c["locations"]["id"]);
    assert!(live_locations.len() <= locations.len() && !live_locations.is_empty());
    let location_warehouse = c["locations"]["warehouse"].as_array().unwrap();
    let location_stock = stock_rows(&c["locationStock"]);
    assert!(!location_stock.is_empty());
    let some = location_stock[location_stock.len() / 2].0;
    let stored = rows(&w, &format!("/api/v1/db/storageLocationStockPositions?Item=eq.{}", item_ids[some])).await;
    let mut got: Vec<(String, f64)> = location_stock
        .iter()
        .filter(|s| s.0 == some)
        .map(|s| (locations[s.1].clone(), s.2.expect("stock at a location is always sent")))
        .collect();
    let mut want: Vec<(String, f64)> =
        stored.iter().map(|s| (lower(&s["StorageLocation"]), s["Stock"].as_f64().unwrap_or(0.0))).collect();
    want.sort_by(|a, b| a.0.cmp(&b.0));
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(got, want);

    // Stock per warehouse: left out where it is the sum at the warehouse's locations.
    let warehouses = guids(&c["warehouses"]["id"]);
    let warehouse_stock = stock_rows(&c["warehouseStock"]);
    assert!(warehouse_stock.iter().any(|s| s.2.is_none()), "the demo's warehouse stock is mostly its locations'");
    for &(item, _, _) in [warehouse_stock[0], warehouse_stock[warehouse_stock.len() / 2]].iter() {
        let got: Vec<(String, f64)> = warehouse_stock
            .iter()
            .filter(|s| s.0 == item)
            .map(|&(_, wh, stock)| {
                let sum = location_stock
                    .iter()
                    .filter(|l| l.0 == item && location_warehouse[l.1] == wh)
                    .fold(0.0, |sum, l| sum + l.2.unwrap());
                (warehouses[wh].clone(), stock.unwrap_or(sum))
            })
            .collect();
        let stored = rows(&w, &format!("/api/v1/db/stockPositions?ItemId=eq.{}", item_ids[item])).await;
        let mut want: Vec<(String, f64)> =
            stored.iter().map(|s| (lower(&s["Warehouse"]), s["CurrentStock"].as_f64().unwrap_or(0.0))).collect();
        let mut got = got;
        want.sort_by(|a, b| a.0.cmp(&b.0));
        got.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(got, want);
    }

    // The open material lines of an item are the ones `ordersNeeding` answers with something
    // still to issue, in its order, each by its order's number and its line number.
    let numbers = undelta(&c["orders"]["number"]);
    let plan_items = undelta(&c["plans"]["item"]);
    let plan_orders = nums(&c["plans"]["order"]);
    let plan_lines = nums(&c["plans"]["line"]);
    assert!(!plan_items.is_empty(), "the demo has open orders with materials");
    assert!(nums(&c["orders"]["status"]).iter().all(|&s| s == 10 || s == 20));
    let needing_of = async |item: usize| -> Vec<(i64, i64, f64)> {
        let live = rows(&w, &format!("/api/v1/scanning/ordersNeeding?item={}", item_ids[item])).await;
        live.iter()
            .map(|p| {
                let left = p["plan"]["PlannedQuantity"].as_f64().unwrap_or(0.0)
                    - p["plan"]["IssuedQuantity"].as_f64().unwrap_or(0.0);
                (p["order"]["ShopOrderNumber"].as_i64().unwrap(), p["plan"]["LineNumber"].as_i64().unwrap(), left)
            })
            .collect()
    };
    let kept_of = |item: usize| -> Vec<(i64, i64)> {
        (0..plan_items.len())
            .filter(|&k| plan_items[k] == item)
            .map(|k| (numbers[plan_orders[k] as usize] as i64, plan_lines[k]))
            .collect()
    };
    for item in [plan_items[0], plan_items[plan_items.len() - 1]] {
        let live = needing_of(item).await;
        let open: Vec<_> = live.iter().filter(|p| p.2 > 0.0).map(|p| (p.0, p.1)).collect();
        assert_eq!(kept_of(item), open);
    }
    assert_eq!(plan_orders.len(), plan_lines.len());
    assert!(numbers.windows(2).all(|p| p[0] < p[1]));
    // the made item of an order, by index
    let made = c["orders"]["item"].as_array().unwrap();
    let k = made.iter().position(Value::is_u64).expect("an open order makes a known item");
    let order = &rows(&w, &format!("/api/v1/db/shopOrders?ShopOrderNumber=eq.{}", numbers[k])).await[0];
    assert_eq!(&lower(&order["Item"]), item_ids[made[k].as_u64().unwrap() as usize]);

    let tag = tag_of(&w.get(PATH).await);

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
    // A handheld keeping the first layout has a tag of it: it gets this one.
    let first = tag.replacen("c5-", "c4-", 1);
    let res = w.request(reqwest::Method::GET, PATH).header(IF_NONE_MATCH, &first).send().await.unwrap();
    assert_eq!(res.status(), 200);
    // A sync changes the copy, and so the tag.
    w.sync(Some(vec!["items"])).await;
    let res = w.request(reqwest::Method::GET, PATH).header(IF_NONE_MATCH, &tag).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_ne!(tag_of(&res), tag);

    // No session, no catalogue.
    let res = w.server.client.get(w.server.at(PATH)).send().await.unwrap();
    assert_eq!(res.status(), 401);

    // The user's other organization sees its own copy only: nothing until synced, then its items.
    let other = 3154117;
    assert_eq!(w.post_json("/api/v1/auth/division", json!({"division": other})).await.status(), 200);
    let code = w.issuer.issue(other, "Van Dijk Machinebouw B.V.", None);
    let res = w.post_json("/api/v1/license/activate", json!({"division": other, "code": code})).await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    let b = json_of(w.get(PATH).await).await;
    assert_eq!(b["division"], other);
    assert_eq!(b["items"]["code"]["rest"], json!([]));
    assert_eq!(b["plans"]["line"], json!([]));
    assert!(b["asOf"].is_null());
    w.sync(Some(TABLES.to_vec())).await;
    let b = json_of(w.get(PATH).await).await;
    let b_codes: HashSet<String> = codes(&b["items"]["code"]).into_iter().collect();
    assert!(!b_codes.is_empty());
    assert_eq!(b_codes, stored_items(&w).await.into_keys().collect(), "B gets its own items, none of A's");
    w.stop().await;
}
