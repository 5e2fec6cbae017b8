//! Sync against the simulator over real HTTP: completeness, increments, deletions, the one-sync
//! rule, faults, and the data API on the synced copy.

use crate::provider::World;
use esm_sim::SimOptions;
use serde_json::Value;
use std::collections::HashSet;
use stock_manager::exact::catalogue;

/// The rows' keys (`key`: the endpoint's key field), lower-case; every row has one.
fn ids(rows: &[Value], key: &str) -> HashSet<String> {
    rows.iter().map(|r| r[key].as_str().unwrap_or_else(|| panic!("a {key}: {r}")).to_lowercase()).collect()
}

async fn all_rows(w: &World, table: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut offset = 0;
    loop {
        let res = w.get(&format!("/api/v1/db/{table}?offset={offset}&limit=1000")).await;
        assert_eq!(res.status(), 200, "{table}");
        let page: Vec<Value> = res.json().await.unwrap();
        let n = page.len();
        out.extend(page);
        if n < 1000 {
            return out;
        }
        offset += 1000;
    }
}

#[actix_web::test]
async fn full_sync_copies_every_row_of_every_table() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let status = w.sync(None).await;
    assert!(status["last_sync"].is_string(), "{status}");
    for ep in catalogue::ENDPOINTS.iter().filter(|e| e.kind == catalogue::Kind::Sync) {
        let t = &status["tables"][ep.table];
        assert!(t["error"].is_null(), "{}: {}", ep.table, t["error"]);
        let sim_rows = w.sim.handle().rows(w.division as i32, &format!("sync/{}", ep.sync_path.unwrap())).unwrap();
        let local = all_rows(&w, ep.table).await;
        assert_eq!(local.len(), sim_rows.len(), "{} row count", ep.table);
        assert_eq!(ids(&local, ep.key), ids(&sim_rows, ep.key), "{} ids", ep.table);
        assert_eq!(t["rows"].as_u64(), Some(sim_rows.len() as u64), "{}", ep.table);
        if !sim_rows.is_empty() {
            let newest = sim_rows.iter().filter_map(|r| stock_manager::exact::odata::as_i64(&r["Timestamp"])).max();
            assert_eq!(t["timestamp"].as_i64(), newest, "{} timestamp", ep.table);
        }
    }
    // A second run finds nothing new and changes nothing.
    let again = w.sync(None).await;
    assert_eq!(again["tables"]["items"]["rows"], status["tables"]["items"]["rows"]);
    w.stop().await;
}

#[actix_web::test]
async fn a_second_sync_request_is_refused_while_one_runs() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    w.sim.handle().set_faults(esm_sim::Faults { latency_ms: 300, ..Default::default() });
    let first = w.post_json("/api/v1/sync", serde_json::json!({})).await;
    assert_eq!(first.status(), 202);
    let second = w.post_json("/api/v1/sync", serde_json::json!({})).await;
    assert_eq!(second.status(), 409);
    let body: Value = second.json().await.unwrap();
    assert_eq!(body["error"]["code"], "sync_running");
    w.sim.handle().set_faults(esm_sim::Faults::default());
    w.wait_for_sync().await;
    w.stop().await;
}

#[actix_web::test]
async fn unknown_endpoints_and_live_tables_are_refused() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let res = w.post_json("/api/v1/sync", serde_json::json!({"endpoints": ["nope"]})).await;
    assert_eq!(res.status(), 400);
    let res = w.get("/api/v1/db/nope").await;
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await.unwrap();
    assert!(body["error"]["message"].as_str().unwrap().contains("nope"));
    let res = w.get("/api/v1/db/warehouses").await;
    assert_eq!(res.status(), 400, "a live endpoint is not read from the store");
    let res = w.get("/api/v1/exact/live/items").await;
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "sync_endpoint_live");
    w.stop().await;
}

#[actix_web::test]
async fn live_endpoints_are_fetched_and_cached() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let res = w.get("/api/v1/exact/live/warehouses").await;
    assert_eq!(res.status(), 200);
    let rows: Vec<Value> = res.json().await.unwrap();
    assert!(!rows.is_empty());
    let codes: Vec<&str> = rows.iter().map(|r| r["Code"].as_str().unwrap()).collect();
    let mut sorted = codes.clone();
    // Numeric codes order as numbers ("2" before "13"), as users expect.
    sorted.sort_by_key(|c| (c.parse::<i64>().unwrap_or(i64::MAX), c.to_string()));
    assert_eq!(codes, sorted, "ordered by Code");
    // Served from the cache while the provider is down.
    w.sim.handle().set_serving(false);
    let res = w.get("/api/v1/exact/live/warehouses").await;
    assert_eq!(res.status(), 200);
    w.sim.handle().set_serving(true);
    w.stop().await;
}

#[actix_web::test]
async fn data_api_filters_selects_and_rejects_unknown_columns() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    w.sync(Some(vec!["items", "itemWarehouses", "shopOrders"])).await;
    let items = all_rows(&w, "items").await;
    let code = items[0]["Code"].as_str().unwrap().to_string();
    let res = w.get(&format!("/api/v1/db/items?Code=eq.{}&select=ID,Code", urlencoding::encode(&code))).await;
    assert_eq!(res.status(), 200);
    let rows: Vec<Value> = res.json().await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].as_object().unwrap().len(), 2, "only the selected columns");
    let res = w.get("/api/v1/db/items?NoSuchColumn=eq.1").await;
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await.unwrap();
    assert!(body["error"]["message"].as_str().unwrap().contains("NoSuchColumn"), "{body}");
    let res = w.get("/api/v1/db/items?ID=in.()").await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Vec<Value>>().await.unwrap().len(), 0, "an empty id list gives no rows");
    let joins =
        urlencoding::encode(r#"[{"source":"itemWarehouses","joinOn":["Item","Warehouse"],"joinOnSelf":["ID"]}]"#);
    let res = w.get(&format!("/api/v1/db/joins?table=items&joins={joins}")).await;
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["message"], "Join parameters lengths must match");
    w.stop().await;
}

#[actix_web::test]
async fn clearing_a_table_resets_its_timestamp_and_a_sync_refills_it() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let before = w.sync(Some(vec!["projects"])).await;
    let rows = before["tables"]["projects"]["rows"].as_u64().unwrap();
    assert!(rows > 0);
    let res = w.request(reqwest::Method::DELETE, "/api/v1/db/projects").send().await.unwrap();
    assert_eq!(res.status(), 204);
    let cleared: Value = w.get("/api/v1/sync").await.json().await.unwrap();
    assert_eq!(cleared["tables"]["projects"]["rows"], 0);
    assert!(cleared["tables"]["projects"]["timestamp"].is_null());
    let after = w.sync(Some(vec!["projects"])).await;
    assert_eq!(after["tables"]["projects"]["rows"].as_u64(), Some(rows));
    w.stop().await;
}

#[actix_web::test]
async fn progress_toasts_stream_over_server_sent_events_in_the_uis_language() {
    use futures_util::StreamExt;
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    // the Dutch UI's stream: an EventSource names its language in the query
    let res = w.get("/api/v1/events?lang=nl").await;
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    let mut stream = res.bytes_stream();
    let started = w.post_json("/api/v1/sync", serde_json::json!({"endpoints": ["items", "projects"]})).await;
    assert_eq!(started.status(), 202);
    let mut buffer = String::new();
    let mut done = std::collections::BTreeMap::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while done.len() < 2 {
        assert!(std::time::Instant::now() < deadline, "toasts arrived in time: {buffer}");
        let chunk = actix_web::rt::time::timeout(std::time::Duration::from_secs(30), stream.next()).await;
        let Ok(Some(Ok(bytes))) = chunk else { panic!("the stream ended early") };
        buffer.push_str(&String::from_utf8_lossy(&bytes));
        while let Some(end) = buffer.find("\n\n") {
            let frame: String = buffer.drain(..end + 2).collect();
            let Some(data) = frame.lines().find_map(|l| l.strip_prefix("data: ")) else { continue };
            let ev: Value = serde_json::from_str(data).unwrap();
            assert_eq!(ev["division"].as_i64(), Some(w.division));
            assert_eq!(ev["message"], format!("{} vernieuwen", ev["name"].as_str().unwrap()));
            assert!(ev["total"].as_u64().unwrap() >= ev["remaining"].as_u64().unwrap());
            assert!(ev["seconds_remaining"].is_u64() && ev["paused"].is_boolean());
            if ev["done"] == true {
                done.insert(ev["table"].as_str().unwrap().to_string(), ev["total"].as_u64().unwrap());
                let dutch = match ev["table"].as_str() {
                    Some("items") => "Artikelen",
                    Some("projects") => "Projecten",
                    other => panic!("only the tables asked for: {other:?}"),
                };
                assert_eq!(ev["name"], dutch);
            }
        }
    }
    assert!(done["items"] > 0, "{done:?}");
    assert!(done.contains_key("projects"));
    w.wait_for_sync().await;
    w.stop().await;
}

#[actix_web::test]
async fn the_background_schedule_syncs_every_signed_in_organization() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let before: Value = w.get("/api/v1/sync").await.json().await.unwrap();
    assert!(before["last_sync"].is_null());
    // One deletion in Exact, so the deleted entries the sync reads are not empty.
    let orders = w.sim.handle().rows(w.division as i32, "manufacturing/ShopOrders").unwrap();
    assert!(w.sim.handle().delete(w.division as i32, "manufacturing/ShopOrders", orders[0]["ID"].as_str().unwrap()));
    w.server.running.as_ref().unwrap().run_scheduled_sync().await;
    let after: Value = w.get("/api/v1/sync").await.json().await.unwrap();
    assert!(after["last_sync"].is_string(), "{after}");
    assert!(after["tables"]["items"]["rows"].as_u64().unwrap() > 0);
    assert!(
        after["tables"]["deletedEntries"]["timestamp"].is_i64(),
        "deleted entries follow every sync, though not in the default selection: {after}"
    );
    w.stop().await;
}

#[actix_web::test]
async fn a_record_deleted_in_exact_leaves_the_local_copy_after_a_default_sync() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    w.sync(None).await;
    let orders: Value = w.get("/api/v1/db/shopOrders?limit=1&select=ID").await.json().await.unwrap();
    let id = orders["data"][0]["ID"].as_str().or_else(|| orders[0]["ID"].as_str()).expect("a shop order").to_string();
    let plans = |body: &Value| body["data"].as_array().or_else(|| body.as_array()).map_or(0, Vec::len);
    let before: Value =
        w.get(&format!("/api/v1/db/shopOrderMaterialPlans?ShopOrder=eq.{id}&select=ID")).await.json().await.unwrap();
    assert!(plans(&before) > 0, "the order has material lines: {before}");

    // Someone deletes the order in Exact Online (its material lines go with it).
    assert!(w.sim.handle().delete(w.division as i32, "manufacturing/ShopOrders", &id));
    // The Sync Data menu's default selection, without "Deleted entries" ticked.
    let status = w.sync(None).await;
    assert!(status["tables"]["deletedEntries"]["error"].is_null(), "{status}");
    let order: Value = w.get(&format!("/api/v1/db/shopOrders?ID=eq.{id}&select=ID")).await.json().await.unwrap();
    assert_eq!(plans(&order), 0, "the deleted order is gone: {order}");
    let after: Value =
        w.get(&format!("/api/v1/db/shopOrderMaterialPlans?ShopOrder=eq.{id}&select=ID")).await.json().await.unwrap();
    assert_eq!(plans(&after), 0, "its material lines are gone: {after}");
    w.stop().await;
}

#[actix_web::test]
async fn the_sync_menu_lists_sync_endpoints_first_with_the_default_selection() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let list: Vec<Value> = w.get("/api/v1/sync/endpoints").await.json().await.unwrap();
    assert_eq!(list.len(), 23, "16 sync tables, deleted entries and six live ones");
    let first_live = list.iter().position(|e| e["sync"] == false).unwrap();
    assert!(list[first_live..].iter().all(|e| e["sync"] == false), "sync endpoints come first");
    assert_eq!(list.iter().filter(|e| e["default_selected"] == true).count(), 16);
    let deleted = list.iter().find(|e| e["table"] == "deletedEntries").unwrap();
    assert_eq!(deleted["default_selected"], false);
    assert_eq!(list.iter().filter(|e| e["selected"] == true).count(), 16, "the default until the user chooses");
    assert_eq!(list[0]["name"], "Accounts");
    let dutch: Vec<Value> = w
        .request(reqwest::Method::GET, "/api/v1/sync/endpoints")
        .header("accept-language", "nl")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!((dutch[0]["table"].as_str(), dutch[0]["name"].as_str()), (Some("accounts"), Some("Relaties")));

    // A chosen selection is saved for this user and used when a sync names none.
    w.sync(Some(vec!["Projects", "items"])).await;
    let list: Vec<Value> = w.get("/api/v1/sync/endpoints").await.json().await.unwrap();
    let selected: Vec<&str> =
        list.iter().filter(|e| e["selected"] == true).filter_map(|e| e["table"].as_str()).collect();
    assert_eq!(selected, vec!["items", "projects"]);
    let res = w.post_json("/api/v1/sync", serde_json::json!({})).await;
    assert_eq!(res.status(), 202);
    let started: Value = res.json().await.unwrap();
    assert_eq!(started["endpoints"], serde_json::json!(["projects", "items"]));
    w.wait_for_sync().await;
    w.stop().await;
}

#[actix_web::test]
async fn a_live_endpoint_ticked_in_the_sync_menu_refreshes_its_cache_and_is_remembered() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let res = w.post_json("/api/v1/sync", serde_json::json!({"endpoints": ["items", "Warehouses"]})).await;
    assert_eq!(res.status(), 202, "a live endpoint in the selection is no error");
    let started: Value = res.json().await.unwrap();
    assert_eq!(started["started"], true);
    assert_eq!(started["endpoints"], serde_json::json!(["items"]));
    assert_eq!(started["refreshed"]["warehouses"]["ok"], true, "{started}");
    w.wait_for_sync().await;
    // The cache is fresh now: with Exact gone the live read still answers, from that copy.
    w.sim.handle().set_serving(false);
    let cached = w.get("/api/v1/exact/live/warehouses").await;
    assert_eq!(cached.status(), 200);
    let cached: Value = cached.json().await.unwrap();
    assert!(cached.to_string().contains("Code"), "the live table's cache is filled: {cached}");
    w.sim.handle().set_serving(true);

    // The choice is remembered, and a sync of the saved selection works.
    let list: Vec<Value> = w.get("/api/v1/sync/endpoints").await.json().await.unwrap();
    let selected: Vec<&str> =
        list.iter().filter(|e| e["selected"] == true).filter_map(|e| e["table"].as_str()).collect();
    assert_eq!(selected, vec!["items", "warehouses"]);
    let res = w.post_json("/api/v1/sync", serde_json::json!({})).await;
    assert_eq!(res.status(), 202);
    w.wait_for_sync().await;

    // Only live endpoints: no sync starts, the caches are refreshed.
    let res = w.post_json("/api/v1/sync", serde_json::json!({"endpoints": ["warehouses"]})).await;
    assert_eq!(res.status(), 202);
    let started: Value = res.json().await.unwrap();
    assert_eq!(started["started"], false);
    assert_eq!(started["refreshed"]["warehouses"]["ok"], true);
    // A name that is no endpoint at all is still refused.
    let res = w.post_json("/api/v1/sync", serde_json::json!({"endpoints": ["nonsense"]})).await;
    assert_eq!(res.status(), 400);
    w.stop().await;
}
