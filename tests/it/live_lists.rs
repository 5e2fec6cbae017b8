//! Live lists read from Exact Online follow every page: a warehouse with more storage locations
//! than the provider's page (60) or the data API's (1000) still lists every one.

use crate::provider::World;
use esm_sim::SimOptions;
use serde_json::{Value, json};
use std::collections::HashSet;

const LOCATIONS: &str = "inventory/StorageLocations";

fn ids(rows: &[Value]) -> HashSet<String> {
    rows.iter().filter_map(|r| r["ID"].as_str().map(str::to_ascii_lowercase)).collect()
}

#[actix_web::test]
async fn storage_locations_and_direct_reads_list_every_page() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let sim = w.sim.handle();
    let div = w.division as i32;
    let warehouse = sim.rows(div, "inventory/Warehouses").expect("warehouses")[0]["ID"].clone();
    let racks: Vec<Value> = (0..1150)
        .map(|n| json!({"Code": format!("R{n:04}"), "Description": format!("Rack {n}"), "Warehouse": warehouse}))
        .collect();
    sim.put_rows(div, LOCATIONS, &racks).expect("locations");
    let all = sim.rows(div, LOCATIONS).expect("locations");
    assert!(all.len() > 1150);
    let calls_before = sim.counters();

    let res = w.get("/api/v1/exact/live/storageLocations").await;
    assert_eq!(res.status(), 200);
    let listed: Vec<Value> = res.json().await.unwrap();
    assert_eq!(listed.len(), all.len(), "every storage location, not the first 1000");
    assert_eq!(ids(&listed), ids(&all));
    let codes: Vec<&str> = listed.iter().filter_map(|r| r["Code"].as_str()).collect();
    assert!(codes.windows(2).all(|p| p[0] <= p[1]), "listed by code");
    let calls = sim.counters();
    assert!(
        calls.calls - calls_before.calls >= all.len().div_ceil(60) as u64,
        "the provider's pages of 60 were followed: {calls:?}"
    );
    // From the cache, still whole.
    let again: Vec<Value> = w.get("/api/v1/exact/live/storageLocations").await.json().await.unwrap();
    assert_eq!(ids(&again), ids(&all));

    // The same through urlDirect.
    let url = format!("/api/v1/exact/urlDirect?url={}", urlencoding::encode(&format!("{LOCATIONS}?$select=ID,Code")));
    let res = w.get(&url).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    let rows = body["responseDirect"]["results"].as_array().expect("results").clone();
    assert_eq!(ids(&rows), ids(&all));
    w.stop().await;
}

/// Found by schemathesis: an empty or unknown path is the caller's mistake (400, 404), never a
/// 5xx that reads as a failing server or provider.
#[actix_web::test]
async fn a_direct_read_of_nothing_or_of_no_such_path_is_refused_as_the_callers() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let res = w.get("/api/v1/exact/urlDirect?url=").await;
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "bad_request");
    let res = w.get("/api/v1/exact/urlDirect?url=logistics%2FNoSuchThing").await;
    assert_eq!(res.status(), 404);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "not_found");
    assert!(body["error"]["message"].as_str().is_some_and(|m| m.starts_with("Exact Online: ")), "{body}");
    w.stop().await;
}
