//! Count sessions against the strict simulator: a location counted by two people, reviewed
//! against the synced copy and processed into one StockCount; a count sent while Exact Online is
//! away waits and goes once; a count Exact refuses is reopened, corrected and sent again.

use crate::labels::field_text;
use crate::provider::{World, browser_sign_in_as};
use esm_sim::SimOptions;
use reqwest::Method;
use serde_json::{Value, json};
use std::time::Duration;

fn sim_options() -> SimOptions {
    SimOptions { rate_limits: false, ..Default::default() }
}

const TABLES: &[&str] = &["items", "stockPositions", "storageLocationStockPositions"];

fn rows(w: &World, path: &str) -> Vec<Value> {
    w.sim.handle().rows(w.division as i32, path).unwrap_or_else(|| panic!("the simulator serves {path}"))
}

/// Two GUIDs alike, whatever their case.
fn same(a: &Value, b: &Value) -> bool {
    a.as_str().is_some_and(|a| b.as_str().is_some_and(|b| a.eq_ignore_ascii_case(b)))
}

/// A located warehouse's storage location holding two plain items (neither serial nor batch),
/// as (warehouse row, location id, location code, [(item id, code, stock)]).
fn location_with_two_items(w: &World) -> (Value, String, String, Vec<(String, String, f64)>) {
    let items = rows(w, "logistics/Items");
    let plain = |id: &Value| {
        items
            .iter()
            .any(|i| same(&i["ID"], id) && i["IsSerialItem"] != true && !matches!(i["IsBatchItem"].as_i64(), Some(1)))
    };
    let warehouses = rows(w, "inventory/Warehouses");
    let positions = rows(w, "sync/Inventory/StorageLocationStockPositions");
    for p in &positions {
        let at: Vec<&Value> = positions
            .iter()
            .filter(|q| same(&q["StorageLocation"], &p["StorageLocation"]) && plain(&q["Item"]))
            .filter(|q| q["Stock"].as_f64().is_some_and(|s| s > 1.0))
            .collect();
        if at.len() < 2 {
            continue;
        }
        let Some(wh) = warehouses.iter().find(|wh| same(&wh["ID"], &p["Warehouse"])) else { continue };
        let two = at[..2]
            .iter()
            .map(|q| (field_text(q, "Item").to_lowercase(), field_text(q, "ItemCode"), q["Stock"].as_f64().unwrap()))
            .collect();
        return (
            wh.clone(),
            field_text(p, "StorageLocation").to_lowercase(),
            field_text(p, "StorageLocationCode"),
            two,
        );
    }
    panic!("a storage location with two plain items in stock")
}

async fn json_of(res: reqwest::Response) -> (u16, Value) {
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn start_location_count(w: &World, wh: &Value, location: &str, code: &str) -> Value {
    let (status, count) = json_of(
        w.post_json(
            "/api/v1/counts",
            json!({"kind": "location", "description": "Rack count", "warehouse": wh["ID"], "warehouseCode": field_text(wh, "Code"),
                   "usesLocations": true, "location": location, "locationCode": code}),
        )
        .await,
    )
    .await;
    assert_eq!(status, 201, "{count}");
    count
}

/// The simulator's counts of `warehouse` whose description is `description`, with their lines.
fn counts_in_exact(w: &World, description: &str) -> Vec<(Value, Vec<Value>)> {
    let lines = rows(w, "inventory/StockCountLines");
    rows(w, "inventory/StockCounts")
        .into_iter()
        .filter(|c| field_text(c, "Description") == description)
        .map(|c| {
            let mine = lines.iter().filter(|l| same(&l["StockCountID"], &c["StockCountID"])).cloned().collect();
            (c, mine)
        })
        .collect()
}

async fn wait_for_status(w: &World, id: &str, want: &str) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let count: Value = w.get(&format!("/api/v1/counts/{id}")).await.json().await.unwrap();
        if count["status"] == want {
            return count;
        }
        assert!(std::time::Instant::now() < deadline, "{want} in time: {count}");
        actix_web::rt::time::sleep(Duration::from_millis(200)).await;
    }
}

#[actix_web::test]
async fn a_location_counted_by_two_people_is_reviewed_and_processed_as_one_stock_count() {
    let w = World::start(sim_options()).await;
    w.sync(Some(TABLES.to_vec())).await;
    let (wh, location, code, two) = location_with_two_items(&w);
    let ((a, a_code, a_stock), (b, _, b_stock)) = (two[0].clone(), two[1].clone());
    let count = start_location_count(&w, &wh, &location, &code).await;
    let id = count["id"].as_str().unwrap().to_string();
    assert_eq!(
        (count["status"].as_str(), count["scope"]["locationCode"].as_str()),
        (Some("counting"), Some(code.as_str()))
    );

    // a second counter: demo user 1 in the same organization
    let other = browser_sign_in_as(&w.server.url, Some(1)).await;
    // the login process completes as the browser's does
    let res =
        w.server.client.get(w.server.at("/api/v1/checkUser")).header("cookie", &other.cookie).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let as_other = |path: &str, body: Value| {
        w.server.client.request(Method::POST, w.server.at(path)).header("cookie", &other.cookie).json(&body).send()
    };
    let lines = format!("/api/v1/counts/{id}/lines");
    let (status, line) = json_of(w.post_json(&lines, json!({"item": a, "quantity": a_stock - 1.0})).await).await;
    assert_eq!(status, 201, "{line}");
    let (status, _) = json_of(as_other(&lines, json!({"item": b, "quantity": b_stock})).await.unwrap()).await;
    assert_eq!(status, 201);
    // counted again with another quantity: which stands is asked, then answered
    let (status, err) = json_of(as_other(&lines, json!({"item": a, "quantity": a_stock - 2.0})).await.unwrap()).await;
    assert_eq!((status, err["error"]["code"].as_str()), (409, Some("count_conflict")), "{err}");
    let asked = err["error"]["message"].as_str().unwrap();
    assert!(asked.starts_with(&format!("{a_code} at {code} was counted as")), "{asked}");
    // a Dutch UI is asked the same in Dutch, with the same values
    let in_dutch = w
        .server
        .client
        .request(Method::POST, w.server.at(&lines))
        .header("cookie", &other.cookie)
        .header("accept-language", "nl-NL,nl;q=0.9")
        .json(&json!({"item": a, "quantity": a_stock - 2.0}))
        .send()
        .await
        .unwrap();
    let (status, err) = json_of(in_dutch).await;
    assert_eq!((status, err["error"]["code"].as_str()), (409, Some("count_conflict")), "{err}");
    let gevraagd = err["error"]["message"].as_str().unwrap();
    assert!(gevraagd.starts_with(&format!("{a_code} op {code} is geteld als ")), "{gevraagd}");
    assert!(gevraagd.ends_with(": welke telling geldt?"), "{gevraagd}");
    let no_line = w
        .request(Method::DELETE, &format!("{lines}/no-such-line"))
        .header("accept-language", "nl")
        .send()
        .await
        .unwrap();
    let (status, err) = json_of(no_line).await;
    assert_eq!(
        (status, err["error"]["message"].as_str()),
        (404, Some("Deze regel staat niet in deze telling")),
        "{err}"
    );
    let (status, _) =
        json_of(as_other(&lines, json!({"item": a, "quantity": a_stock - 2.0, "replace": true})).await.unwrap()).await;
    assert_eq!(status, 200);

    // the review: what the copy expects at the location beside the counts
    let review: Value = w.get(&format!("/api/v1/counts/{id}/review")).await.json().await.unwrap();
    let expected_here = rows(&w, "sync/Inventory/StorageLocationStockPositions")
        .into_iter()
        .filter(|p| {
            field_text(p, "StorageLocation").to_lowercase() == location && p["Stock"].as_f64().unwrap_or(0.0) != 0.0
        })
        .count();
    assert_eq!(review["total"], expected_here, "{review}");
    assert_eq!((review["counted"].as_u64(), review["differences"].as_u64()), (Some(2), Some(1)));
    let row_a = review["rows"].as_array().unwrap().iter().find(|r| r["item"] == a.as_str()).unwrap().clone();
    assert_eq!((row_a["expected"].as_f64(), row_a["difference"].as_f64()), (Some(a_stock), Some(-2.0)), "{row_a}");

    // processed as one count (the world's user is the administrator)
    let (status, sent) = json_of(w.post_json(&format!("/api/v1/counts/{id}/process"), json!({})).await).await;
    assert_eq!(status, 202, "{sent}");
    // a repeat sends nothing twice
    let (status, _) = json_of(w.post_json(&format!("/api/v1/counts/{id}/process"), json!({})).await).await;
    assert_eq!(status, 202);
    let done = wait_for_status(&w, &id, "processed").await;
    let in_exact = counts_in_exact(&w, "Rack count");
    let [(header, lines_in_exact)] = &in_exact[..] else { panic!("one StockCount: {in_exact:?}") };
    assert_eq!(header["Status"], 21);
    assert_eq!(
        field_text(header, "StockCountID").to_lowercase(),
        done["stockCountId"].as_str().unwrap().to_lowercase()
    );
    let mut got: Vec<(String, f64)> = lines_in_exact
        .iter()
        .map(|l| (field_text(l, "Item").to_lowercase(), l["QuantityNew"].as_f64().unwrap()))
        .collect();
    got.sort_by(|x, y| x.0.cmp(&y.0));
    let mut want = vec![(a.clone(), a_stock - 2.0), (b.clone(), b_stock)];
    want.sort_by(|x, y| x.0.cmp(&y.0));
    assert_eq!(got, want);
    let after = rows(&w, "sync/Inventory/StorageLocationStockPositions");
    let now_a =
        after.iter().find(|p| same(&p["Item"], &json!(a)) && same(&p["StorageLocation"], &json!(location))).unwrap();
    assert_eq!(now_a["Stock"].as_f64(), Some(a_stock - 2.0), "the count is the stock now");

    // sent: no more lines, not removable
    let (status, err) = json_of(w.post_json(&lines, json!({"item": b, "quantity": 1})).await).await;
    assert_eq!((status, err["error"]["code"].as_str()), (409, Some("count_closed")));
    let res = w.request(Method::DELETE, &format!("/api/v1/counts/{id}")).send().await.unwrap();
    assert_eq!(res.status(), 409);
    // processing is an administrator's: the other user may only send drafts
    let second = start_location_count(&w, &wh, &location, &code).await;
    let second_id = second["id"].as_str().unwrap();
    w.post_json(&format!("/api/v1/counts/{second_id}/lines"), json!({"item": b, "quantity": b_stock})).await;
    let (status, err) =
        json_of(as_other(&format!("/api/v1/counts/{second_id}/process"), json!({})).await.unwrap()).await;
    assert_eq!((status, err["error"]["code"].as_str()), (403, Some("admin_only")), "{err}");
    let review: Value = w.get(&format!("/api/v1/counts/{second_id}/review?filter=counted")).await.json().await.unwrap();
    assert_eq!(
        review["rows"][0]["lastCount"]["quantity"].as_f64(),
        Some(b_stock),
        "the count before is the last count"
    );
    w.stop().await;
}

#[actix_web::test]
async fn a_count_sent_during_an_outage_waits_and_goes_once_as_a_draft() {
    let w = World::start(sim_options()).await;
    w.sync(Some(TABLES.to_vec())).await;
    let (wh, location, code, two) = location_with_two_items(&w);
    w.sim.handle().set_serving(false);
    // counting needs only the server
    let count = start_location_count(&w, &wh, &location, &code).await;
    let id = count["id"].as_str().unwrap().to_string();
    let (status, _) =
        json_of(w.post_json(&format!("/api/v1/counts/{id}/lines"), json!({"item": two[0].0, "quantity": 3})).await)
            .await;
    assert_eq!(status, 201);
    let (status, sent) = json_of(w.post_json(&format!("/api/v1/counts/{id}/draft"), json!({})).await).await;
    assert_eq!((status, sent["status"].as_str()), (202, Some("sending")), "{sent}");
    assert!(counts_in_exact(&w, "Rack count").is_empty());
    w.sim.handle().set_serving(true);
    wait_for_status(&w, &id, "draft").await;
    w.outbox_drained().await;
    let in_exact = counts_in_exact(&w, "Rack count");
    let [(header, lines)] = &in_exact[..] else { panic!("one StockCount: {in_exact:?}") };
    assert_eq!((header["Status"].as_i64(), lines.len()), (Some(12), 1), "a draft, for someone with the right");
    w.stop().await;
}

#[actix_web::test]
async fn a_count_exact_refuses_is_reopened_corrected_and_sent_again() {
    let w = World::start(sim_options()).await;
    w.sync(Some(TABLES.to_vec())).await;
    let (wh, location, code, two) = location_with_two_items(&w);
    // a location of another warehouse, as a mistaken scan would give
    let elsewhere = rows(&w, "inventory/StorageLocations")
        .into_iter()
        .find(|l| !same(&l["Warehouse"], &wh["ID"]))
        .expect("a location of another warehouse");
    let (status, count) = json_of(
        w.post_json(
            "/api/v1/counts",
            json!({"kind": "warehouse", "description": "Whole warehouse", "warehouse": wh["ID"],
                   "warehouseCode": field_text(&wh, "Code"), "usesLocations": true}),
        )
        .await,
    )
    .await;
    assert_eq!(status, 201);
    let id = count["id"].as_str().unwrap().to_string();
    let lines = format!("/api/v1/counts/{id}/lines");
    let (_, wrong) = json_of(
        w.post_json(
            &lines,
            json!({"item": two[0].0, "quantity": 1, "location": elsewhere["ID"], "locationCode": elsewhere["Code"]}),
        )
        .await,
    )
    .await;
    w.post_json(&format!("/api/v1/counts/{id}/draft"), json!({})).await;
    let refused = wait_for_status(&w, &id, "refused").await;
    let why = refused["error"].as_str().unwrap_or_default();
    assert!(why.contains("does not belong to warehouse"), "Exact's reason is shown: {refused}");
    assert!(counts_in_exact(&w, "Whole warehouse").is_empty(), "nothing was booked");

    let (status, reopened) = json_of(w.post_json(&format!("/api/v1/counts/{id}/reopen"), json!({})).await).await;
    assert_eq!((status, reopened["status"].as_str()), (200, Some("counting")), "{reopened}");
    let outbox: Value = w.get("/api/v1/outbox").await.json().await.unwrap();
    assert_eq!(outbox["failed"], 0, "the refused entry is set aside, not left to be retried: {outbox}");
    let res = w.request(Method::DELETE, &format!("{lines}/{}", wrong["id"].as_str().unwrap())).send().await.unwrap();
    assert_eq!(res.status(), 204);
    // without a location in a warehouse that keeps its stock at them: refused before Exact is asked
    let (status, err) = json_of(w.post_json(&lines, json!({"item": two[0].0, "quantity": 1})).await).await;
    assert_eq!(status, 400, "{err}");
    let (status, _) = json_of(
        w.post_json(&lines, json!({"item": two[0].0, "quantity": 1, "location": location, "locationCode": code})).await,
    )
    .await;
    assert_eq!(status, 201);
    w.post_json(&format!("/api/v1/counts/{id}/draft"), json!({})).await;
    wait_for_status(&w, &id, "draft").await;
    assert_eq!(counts_in_exact(&w, "Whole warehouse").len(), 1);

    // a refused count removed instead: its refused entry goes with it, so no retry books it
    let (_, again) = json_of(
        w.post_json(
            "/api/v1/counts",
            json!({"kind": "warehouse", "description": "Refused and removed", "warehouse": wh["ID"],
                   "warehouseCode": field_text(&wh, "Code"), "usesLocations": true}),
        )
        .await,
    )
    .await;
    let again = again["id"].as_str().unwrap().to_string();
    w.post_json(
        &format!("/api/v1/counts/{again}/lines"),
        json!({"item": two[0].0, "quantity": 1, "location": elsewhere["ID"], "locationCode": elsewhere["Code"]}),
    )
    .await;
    w.post_json(&format!("/api/v1/counts/{again}/draft"), json!({})).await;
    wait_for_status(&w, &again, "refused").await;
    let res = w.request(Method::DELETE, &format!("/api/v1/counts/{again}")).send().await.unwrap();
    assert_eq!(res.status(), 204);
    let outbox: Value = w.get("/api/v1/outbox").await.json().await.unwrap();
    assert_eq!(outbox["failed"], 0, "{outbox}");
    assert_eq!(w.get(&format!("/api/v1/counts/{again}")).await.status(), 404);
    w.stop().await;
}

/// A serial item counted in a location count: the counter gives the numbers found there (one of
/// the two in stock), the count goes to Exact with them, and Exact's stock follows. A line of it
/// without numbers, which the strict simulator refuses as Exact does, is refused before anything
/// is queued.
#[actix_web::test]
async fn a_serial_item_is_counted_with_the_numbers_found_and_exact_takes_them() {
    let w = World::start(sim_options()).await;
    w.sync(Some(vec![
        "items",
        "stockPositions",
        "storageLocationStockPositions",
        "serialBatchNumbers",
        "stockSerialBatchNumbers",
    ]))
    .await;
    let serial_items: Vec<Value> = rows(&w, "logistics/Items")
        .into_iter()
        .filter(|i| i["IsSerialItem"] == true)
        .map(|i| i["ID"].clone())
        .collect();
    let warehouses = rows(&w, "inventory/Warehouses");
    // a serial item with at least two numbers in stock at one storage location
    let mut found = None;
    for p in rows(&w, "sync/Inventory/StorageLocationStockPositions") {
        if !serial_items.iter().any(|i| same(i, &p["Item"])) || p["Stock"].as_f64().unwrap_or(0.0) < 2.0 {
            continue;
        }
        let (item, wh_id, loc) =
            (field_text(&p, "Item"), field_text(&p, "Warehouse"), field_text(&p, "StorageLocation"));
        let numbers: Value = w
            .get(&format!("/api/v1/tracking/numbers?item={item}&warehouse={wh_id}&location={loc}"))
            .await
            .json()
            .await
            .unwrap();
        let serials: Vec<String> = numbers["serials"]
            .as_array()
            .map(|l| l.iter().map(|s| field_text(s, "number")).collect())
            .unwrap_or_default();
        if serials.len() >= 2 {
            let wh = warehouses.iter().find(|x| same(&x["ID"], &p["Warehouse"])).expect("its warehouse").clone();
            found = Some((wh, item.to_lowercase(), loc.to_lowercase(), field_text(&p, "StorageLocationCode"), serials));
            break;
        }
    }
    let (wh, item, location, code, serials) = found.expect("a serial item with two numbers at a location");
    let count = start_location_count(&w, &wh, &location, &code).await;
    let id = count["id"].as_str().unwrap().to_string();
    let lines = format!("/api/v1/counts/{id}/lines");

    // Exact refuses a count line of a serial item without its numbers; so does the session
    let (wh_id, loc_id) = (field_text(&wh, "ID"), location.clone());
    let bare = json!({"Warehouse": wh_id, "StockCountDate": "2026-12-02", "Status": 12,
                      "StockCountLines": [{"Item": item, "StorageLocation": loc_id, "QuantityNew": 1}]});
    let state = w.server.running.as_ref().expect("running").state();
    let access = state.tokens.access_token(&w.user).await.expect("token");
    let refused = state.exact.post(w.division, &access, "inventory/StockCounts", &bare).await;
    assert!(refused.is_err(), "the simulator refuses a serial count line without numbers");
    let (status, err) = json_of(w.post_json(&lines, json!({"item": item, "quantity": 1})).await).await;
    assert_eq!((status, err["error"]["code"].as_str()), (400, Some("bad_request")), "{err}");
    assert!(err["error"]["message"].as_str().unwrap().contains("give one serial number per unit"), "{err}");

    // one of the two found: counted with it, sent, processed
    let kept = serials[0].clone();
    let (status, line) = json_of(
        w.post_json(&lines, json!({"item": item, "quantity": 1, "SerialNumbers": [{"SerialNumber": kept}]})).await,
    )
    .await;
    assert_eq!(status, 201, "{line}");
    assert_eq!(line["serialNumbers"], json!([kept]));
    let (status, sent) = json_of(w.post_json(&format!("/api/v1/counts/{id}/process"), json!({})).await).await;
    assert_eq!(status, 202, "{sent}");
    wait_for_status(&w, &id, "processed").await;
    let in_exact = counts_in_exact(&w, "Rack count");
    let [(header, lines_in_exact)] = &in_exact[..] else { panic!("one StockCount: {in_exact:?}") };
    assert_eq!(header["Status"], 21);
    let [line_in_exact] = &lines_in_exact[..] else { panic!("one line: {lines_in_exact:?}") };
    assert_eq!(line_in_exact["QuantityNew"].as_f64(), Some(1.0));
    let after = rows(&w, "sync/Inventory/StorageLocationStockPositions");
    let now = after.iter().find(|p| same(&p["Item"], &json!(item)) && same(&p["StorageLocation"], &json!(location)));
    assert_eq!(now.and_then(|p| p["Stock"].as_f64()), Some(1.0), "the count is the stock now");
    w.stop().await;
}
