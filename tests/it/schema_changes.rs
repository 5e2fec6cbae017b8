//! Properties Exact Online removes without notice (reference §17): the simulator refuses what
//! names them; the product drops them from its reads, remembers that across restarts, lists them
//! in `status`, and refuses a write that carries one its user set, with Exact's message.

use crate::provider::{World, quick_waits};
use crate::support::test_config;
use esm_sim::SimOptions;
use reqwest::Method;
use serde_json::{Value, json};
use stock_manager::doctor::{self, Level};
use stock_manager::server::{self, StartOptions};

fn sim_options() -> SimOptions {
    SimOptions { rate_limits: false, ..Default::default() }
}

/// Removes (or restores) properties at the simulator over its control endpoint.
async fn schema(w: &World, body: Value) -> Value {
    let res =
        w.server.client.post(format!("{}/_sim/schema", w.sim.base_url())).json(&body).send().await.expect("schema");
    assert_eq!(res.status(), 200, "{body}");
    res.json().await.unwrap()
}

fn refusals(w: &World) -> u64 {
    w.sim.handle().counters().removed_refusals
}

async fn dropped(w: &World) -> Vec<(String, String)> {
    let status: Value = w.get("/api/v1/status").await.json().await.unwrap();
    let list = status["droppedProperties"].as_array().unwrap_or_else(|| panic!("droppedProperties: {status}"));
    for d in list {
        assert!(d["since"].as_str().is_some_and(|s| s.ends_with('Z')), "since is a UTC time: {d}");
    }
    list.iter().map(|d| (d["endpoint"].as_str().unwrap().into(), d["property"].as_str().unwrap().into())).collect()
}

/// Stops the server and starts a new one on the same data directory (sessions, tokens and the
/// stores stay).
async fn restart(w: &mut World) {
    let running = w.server.running.take().expect("running");
    running.stop(true).await.expect("clean stop");
    let mut config = test_config(&w.server._dir);
    config.provider.base_url = w.sim.base_url().to_string();
    config.provider.client_id = "demo-client".into();
    config.provider.client_secret = stock_manager::config::Secret::new("demo-secret");
    config.sync.interval_minutes = 0;
    config.sync.on_startup = false;
    config.licence.public_key = Some(w.issuer.public_key());
    let running =
        server::start(config, StartOptions { waits: quick_waits(), ..StartOptions::default() }).await.expect("restart");
    w.server.url = format!("http://{}", running.addr);
    w.server.running = Some(running);
}

/// Every row of the local table, page by page (a page holds at most 1000).
async fn local_rows(w: &World, table: &str) -> Vec<Value> {
    let mut rows: Vec<Value> = Vec::new();
    loop {
        let res = w.get(&format!("/api/v1/db/{table}?limit=1000&offset={}", rows.len())).await;
        assert_eq!(res.status(), 200, "{table}");
        let page: Vec<Value> = res.json().await.unwrap();
        let done = page.len() < 1000;
        rows.extend(page);
        if done {
            return rows;
        }
    }
}

#[actix_web::test]
async fn the_simulator_refuses_what_names_a_removed_property_on_that_type_only() {
    let w = World::start(sim_options()).await;
    let h = w.sim.handle();
    let listed = schema(&w, json!({"path": "Logistics/Items", "remove": ["UseExplosion"]})).await;
    // A regular path removes it from the entity: its sync and bulk views lose it too.
    assert_eq!(listed["removed"]["logistics/Items"], json!(["UseExplosion"]), "{listed}");
    assert_eq!(listed["removed"]["sync/Logistics/Items"], json!(["UseExplosion"]), "{listed}");
    let res = w.sim.base_url().to_string();
    let token = w.server.running.as_ref().unwrap().state().tokens.access_token(&w.user).await.unwrap();
    let get = async |path: &str| {
        let r = w
            .server
            .client
            .get(format!("{res}/api/v1/{}/{path}", w.division))
            .bearer_auth(&token)
            .header("Accept", "application/json")
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json::<Value>().await.unwrap_or(Value::Null))
    };
    let (status, body) = get("sync/Logistics/Items?$select=ID,UseExplosion&$filter=Timestamp%20gt%201").await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["message"]["value"],
        "Type 'Exact.Web.Api.Models.Sync.Item' does not have a property named 'UseExplosion'",
        "the message names the type the path answers with"
    );
    let (status, body) = get("logistics/Items?$select=ID&$filter=UseExplosion%20eq%201").await;
    assert_eq!(status, 400, "$filter: {body}");
    let (status, _) = get("logistics/Items?$select=ID&$filter=Code%20ne%20''&$orderby=UseExplosion").await;
    assert_eq!(status, 400, "$orderby");
    // Without a $select the property is simply gone from the rows.
    let (status, body) = get("logistics/Items?$filter=Code%20ne%20''&$top=1").await;
    assert_eq!(status, 200, "{body}");
    let row = &body["d"]["results"][0];
    assert!(row.get("Code").is_some() && row.get("UseExplosion").is_none(), "{row}");
    assert_eq!(refusals(&w), 3);
    // A sync path removes it from that view alone.
    schema(&w, json!({"path": "Logistics/Items", "restore": true})).await;
    schema(&w, json!({"path": "sync/CRM/Accounts", "remove": ["Costcenter"]})).await;
    let (status, _) = get("crm/Accounts?$select=ID,Costcenter&$filter=Name%20ne%20''&$top=1").await;
    assert_eq!(status, 200, "the regular Accounts keep it");
    let (status, _) = get("sync/Logistics/Items?$select=ID,UseExplosion&$filter=Timestamp%20gt%201").await;
    assert_eq!(status, 200, "restored");
    assert_eq!(h.removed_properties().len(), 1);
    let unknown = w
        .server
        .client
        .post(format!("{}/_sim/schema", w.sim.base_url()))
        .json(&json!({"path": "CRM/Accounts", "remove": ["NoSuchProperty"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 400, "only a property the path has can be removed");
    w.stop().await;
}

#[actix_web::test]
async fn a_sync_goes_past_removed_properties_and_a_restart_keeps_them_dropped() {
    let mut w = World::start(sim_options()).await;
    let first = w.sync(Some(vec!["items", "accounts"])).await;
    assert!(first["tables"]["items"]["error"].is_null(), "{first}");
    // Between two syncs Exact removes a property from each entity.
    schema(&w, json!({"path": "Logistics/Items", "remove": ["UseExplosion"]})).await;
    schema(&w, json!({"path": "CRM/Accounts", "remove": ["Costcenter"]})).await;
    assert!(dropped(&w).await.is_empty());

    let second = w.sync(Some(vec!["items", "accounts"])).await;
    for table in ["items", "accounts"] {
        assert!(second["tables"][table]["error"].is_null(), "{table}: {second}");
    }
    let expected = vec![
        ("sync/CRM/Accounts".to_string(), "Costcenter".to_string()),
        ("sync/Logistics/Items".to_string(), "UseExplosion".to_string()),
    ];
    assert_eq!(dropped(&w).await, expected);
    assert_eq!(refusals(&w), 2, "one refusal per removed property, then the sync goes on");

    // Every row is there, and a full read (after clearing) stores them without the property.
    let res = w.request(Method::DELETE, "/api/v1/db/items").send().await.unwrap();
    assert!(res.status().is_success(), "clearing items");
    let third = w.sync(Some(vec!["items"])).await;
    assert!(third["tables"]["items"]["error"].is_null(), "{third}");
    let sim_items = w.sim.handle().rows(w.division as i32, "sync/Logistics/Items").unwrap();
    let local = local_rows(&w, "items").await;
    assert_eq!(local.len(), sim_items.len(), "every item");
    assert!(local.iter().all(|r| r["UseExplosion"].is_null()), "the dropped property shows empty");
    assert!(local.iter().all(|r| r["Code"].is_string()));
    let accounts = w.sim.handle().rows(w.division as i32, "sync/CRM/Accounts").unwrap();
    assert_eq!(local_rows(&w, "accounts").await.len(), accounts.len(), "every account");

    // After a restart the first sync does not meet the refusal again.
    restart(&mut w).await;
    assert_eq!(dropped(&w).await, expected, "remembered across the restart");
    let res = w.request(Method::DELETE, "/api/v1/db/accounts").send().await.unwrap();
    assert!(res.status().is_success());
    let after = w.sync(Some(vec!["items", "accounts"])).await;
    assert!(after["tables"]["accounts"]["error"].is_null(), "{after}");
    assert_eq!(refusals(&w), 2, "no request selected a removed property after the restart");
    assert_eq!(local_rows(&w, "accounts").await.len(), accounts.len());

    // doctor names each dropped property, once the server no longer holds the store.
    let data_dir = w.server._dir.path().join("data");
    let held = doctor::check_dropped_properties(&data_dir);
    assert!(held.iter().all(|c| c.level == Level::Ok && c.message.contains("/api/v1/status")), "{held:?}");
    w.server.running.take().expect("running").stop(true).await.expect("clean stop");
    // A stop waits a bounded time for background readers; the making of the material lines
    // after the last sync may hold the store a little longer on a loaded machine.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let checks = loop {
        let checks = doctor::check_dropped_properties(&data_dir);
        if !checks.iter().any(|c| c.message.contains("open in the running server")) {
            break checks;
        }
        assert!(std::time::Instant::now() < deadline, "the stopped server still holds the store: {checks:?}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    for (endpoint, property) in &expected {
        assert!(
            checks
                .iter()
                .any(|c| c.level == Level::Warn && c.message.contains(endpoint) && c.message.contains(property)),
            "{checks:?}"
        );
    }
    w.stop().await;
}

#[actix_web::test]
async fn a_live_read_survives_a_removal_and_a_write_of_a_removed_property_is_refused() {
    let w = World::start(sim_options()).await;
    schema(&w, json!({"path": "inventory/StorageLocations", "remove": ["PickSequence"]})).await;
    let res = w.get("/api/v1/exact/live/storageLocations?refresh=true").await;
    assert_eq!(res.status(), 200);
    let rows: Vec<Value> = res.json().await.unwrap();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r["PickSequence"].is_null() && r["Code"].is_string()));
    assert_eq!(dropped(&w).await, vec![("inventory/StorageLocations".into(), "PickSequence".into())]);

    // The user set Notes: refused with Exact's message, never sent without it.
    w.sync(Some(vec!["shopOrders"])).await;
    schema(&w, json!({"path": "manufacturing/ShopOrders", "remove": ["Notes"]})).await;
    let order = w
        .sim
        .handle()
        .rows(w.division as i32, "manufacturing/ShopOrders")
        .unwrap()
        .into_iter()
        .find(|r| r["Status"] == 10 && r["IsOnHold"] == 0)
        .and_then(|r| r["ID"].as_str().map(str::to_string))
        .unwrap();
    let res = w
        .request(Method::PUT, "/api/v1/exact/updateShopOrder?wait=10")
        .json(&json!({"ID": order, "Notes": "Moved up", "IsOnHold": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["state"], "failed", "{body}");
    assert_eq!(
        body["error"], "Type 'Exact.Web.Api.Models.Manufacturing.ShopOrder' does not have a property named 'Notes'",
        "Exact's message reaches the user"
    );
    let at_provider = w
        .sim
        .handle()
        .rows(w.division as i32, "manufacturing/ShopOrders")
        .unwrap()
        .into_iter()
        .find(|r| r["ID"] == order.as_str())
        .unwrap();
    assert_eq!(at_provider["IsOnHold"], 0, "nothing of the write was booked without the user's Notes");
    assert!(dropped(&w).await.contains(&("manufacturing/ShopOrders".into(), "Notes".into())));
    // Without the removed property the same order is written.
    let res = w
        .request(Method::PUT, "/api/v1/exact/updateShopOrder?wait=10")
        .json(&json!({"ID": order, "IsOnHold": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap_or_default());
    w.stop().await;
}
