//! Sync under faults and crashes: 429 storms and 500s, a malformed page, and `kill -9` of a
//! syncing process at random points. Afterwards the local copy equals the simulator's data.

use crate::provider::{World, sign_in_code};
use crate::support::binary;
use esm_sim::{Faults, SimOptions, Simulator};
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;
use stock_manager::exact::catalogue::{self, Kind};
use stock_manager::exact::oauth::OAuthClient;
use stock_manager::exact::odata::as_i64;
use stock_manager::exact::{ExactClient, Waits};
use stock_manager::store::{Query, Stores};

/// (ID, Timestamp) of every row, per sync table, as the simulator has them.
fn sim_state(sim: &Simulator, division: i64) -> BTreeMap<&'static str, Vec<(String, i64)>> {
    let mut out = BTreeMap::new();
    for ep in catalogue::ENDPOINTS.iter().filter(|e| e.kind == Kind::Sync) {
        let rows = sim.handle().rows(division as i32, &format!("sync/{}", ep.sync_path.unwrap())).unwrap();
        let mut v: Vec<(String, i64)> = rows
            .iter()
            .map(|r| (r[ep.key].as_str().unwrap().to_lowercase(), as_i64(&r["Timestamp"]).unwrap()))
            .collect();
        v.sort();
        out.insert(ep.table, v);
    }
    out
}

/// The same from a local store file.
fn local_state(stores: &Stores, division: i64) -> BTreeMap<&'static str, Vec<(String, i64)>> {
    let store = stores.get(division).unwrap();
    let mut out = BTreeMap::new();
    for ep in catalogue::ENDPOINTS.iter().filter(|e| e.kind == Kind::Sync) {
        let mut v = Vec::new();
        let mut offset = 0;
        loop {
            let q = Query::parse(&format!("select={},Timestamp&offset={offset}&limit=1000", ep.key)).unwrap();
            let rows: Vec<Value> = store.query(ep.table, &q).unwrap().to_values().unwrap();
            let n = rows.len();
            let key = |r: &Value| r[ep.key].as_str().unwrap().to_lowercase();
            v.extend(rows.iter().map(|r| (key(r), as_i64(&r["Timestamp"]).unwrap())));
            if n < 1000 {
                break;
            }
            offset += 1000;
        }
        v.sort();
        out.insert(ep.table, v);
    }
    out
}

#[actix_web::test]
async fn storms_of_429_and_500s_end_with_zero_lost_rows() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    // Every 3rd call a 500 (the same in every run): some always happen, never six in a row.
    w.sim.handle().set_faults(Faults { storm_429_calls: 4, error_500_every: 3, ..Default::default() });
    let status = w.sync(None).await;
    w.sim.handle().set_faults(Faults::default());
    for ep in catalogue::ENDPOINTS.iter().filter(|e| e.kind == Kind::Sync) {
        assert!(status["tables"][ep.table]["error"].is_null(), "{}: {}", ep.table, status["tables"][ep.table]["error"]);
    }
    let counters = w.sim.handle().counters();
    assert!(counters.sent_429 >= 4 && counters.sent_500 > 0, "the faults happened: {counters:?}");
    let state = w.server.running.as_ref().unwrap().state();
    assert_eq!(local_state(&state.stores, w.division), sim_state(&w.sim, w.division));
    w.stop().await;
}

#[actix_web::test]
async fn a_429_burst_longer_than_the_attempts_is_waited_out() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    // Twice the attempts a failing call gets: 429s have a budget of their own.
    let burst = 2 * crate::provider::quick_waits().attempts;
    w.sim.handle().set_faults(Faults { storm_429_calls: burst, ..Default::default() });
    let status = w.sync(Some(vec!["items"])).await;
    assert!(status["tables"]["items"]["error"].is_null(), "{}", status["tables"]["items"]["error"]);
    assert!(status["tables"]["items"]["rows"].as_u64().unwrap_or(0) > 0, "{status}");
    assert_eq!(w.sim.handle().counters().sent_429, u64::from(burst));
    w.stop().await;
}

#[actix_web::test]
async fn a_malformed_page_stops_that_table_with_a_clear_error_and_keeps_the_rows() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let good = w.sync(Some(vec!["items", "projects"])).await;
    w.sim.handle().set_faults(Faults { malformed_json_share: 1.0, ..Default::default() });
    let bad = w.sync(Some(vec!["items", "projects"])).await;
    w.sim.handle().set_faults(Faults::default());
    for table in ["items", "projects"] {
        let err = bad["tables"][table]["error"].as_str().unwrap_or_default();
        assert!(err.contains("malformed") || err.contains("not JSON"), "{table}: {err}");
        assert_eq!(bad["tables"][table]["rows"], good["tables"][table]["rows"], "{table} keeps its rows");
        assert_eq!(bad["tables"][table]["timestamp"], good["tables"][table]["timestamp"]);
    }
    w.stop().await;
}

/// Prepares a data directory whose server.redb holds a signed-in token for the simulator's
/// first division, as a sign-in would leave it.
async fn prepared_data_dir(sim: &Simulator, dir: &std::path::Path) -> (i64, String) {
    let redirect = "http://127.0.0.1:9/callback";
    let code = sign_in_code(sim.base_url(), redirect).await;
    let http = ExactClient::http_client(Duration::from_secs(30)).unwrap();
    let oauth = OAuthClient::new(
        http.clone(),
        sim.base_url(),
        "demo-client",
        stock_manager::config::Secret::new("demo-secret"),
    );
    let tokens = oauth.exchange_code(&code, redirect).await.unwrap();
    let client = ExactClient::new(http, sim.base_url(), Waits::default());
    let me = client.me(&tokens.access_token).await.unwrap();
    let user = me["UserID"].as_str().unwrap().to_string();
    let division = me["CurrentDivision"].as_i64().unwrap();
    let db = Arc::new(stock_manager::serverdb::ServerDb::open(dir).unwrap());
    let manager = stock_manager::exact::tokens::TokenManager::new(db.clone(), oauth);
    manager.store(&user, &tokens).unwrap();
    db.set_org_token_user(division, &user).unwrap();
    (division, tokens.access_token)
}

fn sync_process(sim_base: &str, dir: &std::path::Path, division: i64) -> std::process::Child {
    Command::new(binary())
        .args(["sync", "--org", &division.to_string(), "--data-dir"])
        .arg(dir)
        .env("ESM_PROVIDER__BASE_URL", sim_base)
        .env("ESM_PROVIDER__CLIENT_ID", "demo-client")
        .env("ESM_PROVIDER__CLIENT_SECRET", "demo-secret")
        .env("ESM_MDNS__ENABLED", "false")
        .env("RUST_LOG", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[actix_web::test]
async fn kill_9_at_random_points_never_loses_or_duplicates_rows() {
    let sim = Simulator::start(SimOptions { rate_limits: false, ..Default::default() }).await.unwrap();
    // Slow pages so that kills land inside the sync, not after it.
    sim.handle().set_faults(Faults { latency_ms: 15, ..Default::default() });
    let dir = tempfile::tempdir().unwrap();
    let (division, access) = prepared_data_dir(&sim, dir.path()).await;
    let writer =
        ExactClient::new(ExactClient::http_client(Duration::from_secs(30)).unwrap(), sim.base_url(), Waits::default());
    let orders = sim.handle().rows(division as i32, "manufacturing/ShopOrders").unwrap();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for round in 0..20 {
        // Move the provider's data between rounds, so syncs resume on a changing source.
        if round % 4 == 3 {
            for order in orders.iter().skip(round).take(5) {
                let id = order["ID"].as_str().unwrap();
                let path = format!("manufacturing/ShopOrders(guid'{id}')");
                writer
                    .put(division, &access, &path, &serde_json::json!({"Notes": format!("round {round}")}))
                    .await
                    .unwrap();
            }
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let after = Duration::from_millis(30 + seed % 700);
        let mut child = sync_process(sim.base_url(), dir.path(), division);
        actix_web::rt::time::sleep(after).await;
        let _ = child.kill(); // SIGKILL on Unix
        let _ = child.wait();
    }
    sim.handle().set_faults(Faults::default());
    let status = sync_process(sim.base_url(), dir.path(), division).wait().unwrap();
    assert!(status.success(), "the final sync completes");
    let stores = Stores::new(dir.path(), catalogue::table_specs());
    assert_eq!(local_state(&stores, division), sim_state(&sim, division));
    drop(stores);
    sim.stop().await;
}
