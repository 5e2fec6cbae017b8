//! Write-back through the outbox against the simulator: each write lands, the next sync brings it
//! back; a provider that is down or a process killed mid-delivery loses and doubles nothing.

use crate::provider::{World, browser_sign_in};
use crate::support::{binary, client};
use esm_sim::{Faults, SimOptions, Simulator};
use reqwest::Method;
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use stock_manager::auth::licence::Issuer;
use stock_manager::outbox::State;
use stock_manager::outbox::store::{OutboxDb, path_of as outbox_path};

fn sim_options() -> SimOptions {
    SimOptions { rate_limits: false, ..Default::default() }
}

pub(crate) fn rows(sim: &Simulator, division: i64, path: &str) -> Vec<Value> {
    sim.handle().rows(division as i32, path).unwrap_or_default()
}

pub(crate) fn first_id(sim: &Simulator, division: i64, path: &str, pred: impl Fn(&Value) -> bool) -> String {
    rows(sim, division, path).into_iter().find(|r| pred(r)).and_then(|r| r["ID"].as_str().map(str::to_string)).unwrap()
}

/// Material plans of items tracked by neither serial nor batch number: an issue of a tracked
/// one needs its numbers reserved first, which these tests are not about.
pub(crate) fn untracked_plans(sim: &Simulator, division: i64) -> Vec<Value> {
    let items = rows(sim, division, "logistics/Items");
    let tracked: std::collections::HashSet<&Value> =
        items.iter().filter(|i| i["IsSerialItem"] == true || i["IsBatchItem"] == 1).map(|i| &i["ID"]).collect();
    rows(sim, division, "manufacturing/ShopOrderMaterialPlans")
        .into_iter()
        // materials only: a by-product line (Type 2) is received, never issued
        .filter(|p| !tracked.contains(&p["Item"]) && p["Type"] == 1)
        .collect()
}

pub(crate) fn writes(sim: &Simulator, key: &str) -> u64 {
    sim.handle().counters().writes.get(key).copied().unwrap_or(0)
}

async fn write(w: &World, method: Method, path: &str, body: Value) -> (u16, Value) {
    let res = w.request(method, path).json(&body).send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// Polls until `check` holds (the sync after a write runs in the background).
pub(crate) async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !check().await {
        assert!(Instant::now() < deadline, "{what} in time");
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
}

#[actix_web::test]
async fn each_write_reaches_the_provider_and_the_next_sync_brings_it_back() {
    let w = World::start(sim_options()).await;
    let d = w.division;
    w.sync(None).await;

    // Shop order write-back fields.
    let order = first_id(&w.sim, d, "manufacturing/ShopOrders", |r| r["Status"] == 10);
    let (status, body) = write(
        &w,
        Method::PUT,
        "/api/v1/exact/updateShopOrder?wait=10",
        json!({"ID": order, "Notes": "Moved up by planning", "IsOnHold": 1}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["state"], "delivered");
    let at_provider =
        rows(&w.sim, d, "manufacturing/ShopOrders").into_iter().find(|r| r["ID"] == order.as_str()).unwrap();
    assert_eq!(at_provider["Notes"], "Moved up by planning");
    eventually("the shop order syncs back", async || {
        let local: Value = w.get(&format!("/api/v1/db/shopOrders?ID=eq.{order}")).await.json().await.unwrap();
        local[0]["Notes"] == "Moved up by planning"
    })
    .await;

    // A material issue: stock moves at the provider; the marker makes it recognisable.
    let plan = untracked_plans(&w.sim, d)[0]["ID"].as_str().unwrap().to_string();
    let (status, body) = write(
        &w,
        Method::POST,
        "/api/v1/exact/updateMaterialsIssues?wait=10",
        json!([{"ShopOrderMaterialPlan": plan, "Quantity": 2, "TransactionDate": "2026-11-21"}]),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(writes(&w.sim, "POST manufacturing/MaterialIssues"), 1);
    let uid = body["entries"][0]["uid"].as_str().unwrap().to_string();
    let issues = rows(&w.sim, d, "manufacturing/MaterialIssues");
    assert_eq!(issues.iter().filter(|r| r["Note"].as_str().is_some_and(|n| n.contains(&uid))).count(), 1);

    // A warehouse transfer, processed: the provider marks it complete.
    let warehouses = rows(&w.sim, d, "inventory/Warehouses");
    let (from, to) = (warehouses[0]["ID"].as_str().unwrap(), warehouses[1]["ID"].as_str().unwrap());
    let item = first_id(&w.sim, d, "logistics/Items", |r| r["IsStockItem"] == true);
    let (status, body) = write(
        &w,
        Method::POST,
        "/api/v1/exact/createWarehouseTransfer?wait=10",
        json!({
        "WarehouseFrom": from, "WarehouseTo": to, "process": true,
        "WarehouseTransferLines": [{"Item": item, "Quantity": 1}]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let transfer = body["entries"][0]["uid"].as_str().unwrap().to_string();
    let t = rows(&w.sim, d, "inventory/WarehouseTransfers")
        .into_iter()
        .find(|r| r["TransferID"] == transfer.as_str())
        .unwrap();
    assert_eq!(t["Status"], 50);

    // A goods receipt against a purchase order line, a stock count, hours, a shop order receipt.
    let po_line = first_id(&w.sim, d, "purchaseorder/PurchaseOrderLines", |_| true);
    let (status, body) = write(
        &w,
        Method::POST,
        "/api/v1/exact/createGoodsReceipt?wait=10",
        json!({"GoodsReceiptLines": [{"PurchaseOrderLineID": po_line, "QuantityReceived": 1}]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = write(
        &w,
        Method::POST,
        "/api/v1/exact/createStockCount?wait=10",
        json!({
        "Warehouse": from, "StockCountLines": [{"Item": item, "QuantityNew": 7}]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let employee = first_id(&w.sim, d, "payroll/Employees", |_| true);
    let (status, body) = write(
        &w,
        Method::POST,
        "/api/v1/exact/timeTransactions?wait=10",
        json!({"data": {"Employee": employee, "Hours": 1.5, "ShopOrder": order}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = write(
        &w,
        Method::POST,
        "/api/v1/exact/createShopOrderReceipt?wait=10",
        json!({"ShopOrder": order, "Quantity": 1, "TransactionDate": "2026-11-21"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    // A draft transfer, then deleted.
    let (_, body) = write(
        &w,
        Method::POST,
        "/api/v1/exact/createWarehouseTransfer?wait=10",
        json!({
        "WarehouseFrom": from, "WarehouseTo": to, "WarehouseTransferLines": [{"Item": item, "Quantity": 1}]}),
    )
    .await;
    let draft = body["entries"][0]["uid"].as_str().unwrap().to_string();
    let res = w
        .request(
            Method::DELETE,
            &format!("/api/v1/exact/deleteDataFromExact?endpoint=warehouseTransfers&id={draft}&wait=10"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(!rows(&w.sim, d, "inventory/WarehouseTransfers").iter().any(|r| r["TransferID"] == draft.as_str()));

    let outbox: Value = w.get("/api/v1/outbox").await.json().await.unwrap();
    assert_eq!(outbox["pending"], 0);
    assert_eq!(outbox["failed"], 0);
    w.stop().await;
}

#[actix_web::test]
async fn refusals_reach_the_user_and_bad_bodies_never_queue() {
    let w = World::start(sim_options()).await;
    let missing = "00000000-0000-0000-0000-000000000001";
    let (status, body) = write(
        &w,
        Method::POST,
        "/api/v1/exact/updateMaterialsIssues?wait=10",
        json!({"ShopOrderMaterialPlan": missing, "Quantity": 1, "TransactionDate": "2026-11-21"}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["state"], "failed");
    assert!(body["error"].as_str().unwrap().contains("ShopOrderMaterialPlan"), "the provider's message: {body}");
    let id = body["entries"][0]["id"].as_u64().unwrap();
    let outbox: Value = w.get("/api/v1/outbox").await.json().await.unwrap();
    assert_eq!(outbox["failed"], 1);
    let res = w.request(Method::POST, &format!("/api/v1/outbox/{id}/retry")).send().await.unwrap();
    assert_eq!(res.status(), 202);
    eventually("the retry fails again", async || {
        let e: Value = w.get(&format!("/api/v1/outbox/{id}")).await.json().await.unwrap();
        e["state"] == "failed"
    })
    .await;
    let res = w.request(Method::DELETE, &format!("/api/v1/outbox/{id}")).send().await.unwrap();
    assert_eq!(res.status(), 204);
    assert_eq!(w.request(Method::DELETE, &format!("/api/v1/outbox/{id}")).send().await.unwrap().status(), 404);
    // a Dutch UI is told in Dutch
    let res = w
        .request(Method::DELETE, &format!("/api/v1/outbox/{id}"))
        .header("accept-language", "nl")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    let answer: Value = res.json().await.unwrap();
    assert_eq!(answer["error"]["message"], "Er is geen geweigerde of wachtende boeking met dat nummer", "{answer}");

    for (path, body, says) in [
        ("/api/v1/exact/updateShopOrder", json!({"ID": "x", "Notes": "n"}), "ID must be a GUID"),
        ("/api/v1/exact/updateShopOrder", json!({"ID": missing, "Item": missing}), "no field 'Item'"),
        ("/api/v1/exact/createGoodsReceipt", json!({"GoodsReceiptLines": []}), "at least one line"),
        ("/api/v1/exact/createWarehouseTransfer", json!({"WarehouseFrom": missing}), "WarehouseTo is required"),
        ("/api/v1/exact/accounts", json!({"data": {"Name": "x"}}), "cannot be written"),
    ] {
        let method = if path.ends_with("updateShopOrder") { Method::PUT } else { Method::POST };
        let (status, answer) = write(&w, method, path, body).await;
        assert_eq!(status, 400, "{path}: {answer}");
        assert!(answer["error"]["message"].as_str().unwrap().contains(says), "{path}: {answer}");
    }
    // What a user gets wrong is said in their language, with the line it is on.
    let transfer = json!({"WarehouseFrom": missing, "WarehouseTo": missing,
        "WarehouseTransferLines": [{"Item": missing, "Quantity": 1}, {"Item": missing, "Quantity": 0}]});
    let (status, answer) = write(&w, Method::POST, "/api/v1/exact/createWarehouseTransfer", transfer.clone()).await;
    assert_eq!(
        (status, answer["error"]["message"].as_str()),
        (400, Some("transfer line 2: Quantity must be more than 0"))
    );
    let res = w
        .request(Method::POST, "/api/v1/exact/createWarehouseTransfer")
        .header("accept-language", "nl-NL,nl;q=0.9")
        .json(&transfer)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let answer: Value = res.json().await.unwrap();
    assert_eq!(answer["error"]["code"], "bad_request");
    assert_eq!(answer["error"]["message"], "overboekingsregel 2: De hoeveelheid (Quantity) moet meer dan 0 zijn");
    let (status, answer) = write(&w, Method::POST, "/api/v1/exact/updateMaterialsIssues", json!([])).await;
    assert_eq!(status, 400);
    assert_eq!(answer["error"]["code"], "empty_payload");
    let outbox: Value = w.get("/api/v1/outbox").await.json().await.unwrap();
    assert_eq!(outbox["pending"], 0, "nothing bad was queued");

    // urlDirect: own division only, every page.
    let own: Value =
        w.get("/api/v1/exact/urlDirect?url=manufacturing/Operations%3F%24select%3DID,Code").await.json().await.unwrap();
    let got = own["responseDirect"]["results"].as_array().map(Vec::len);
    assert_eq!(got, Some(rows(&w.sim, w.division, "manufacturing/Operations").len()), "{own}");
    let other = format!("{}/api/v1/3154117/project/Projects", w.sim.base_url());
    let res = w.get(&format!("/api/v1/exact/urlDirect?url={}", urlencoding::encode(&other))).await;
    assert_eq!(res.status(), 403);
    let res = w
        .get(&format!("/api/v1/exact/urlDirect?url={}", urlencoding::encode("https://elsewhere.example/api/v1/1/x")))
        .await;
    assert_eq!(res.status(), 403);
    w.stop().await;
}

#[actix_web::test]
async fn writes_made_while_the_provider_is_down_are_delivered_once_when_it_returns() {
    let w = World::start(sim_options()).await;
    let plans: Vec<String> =
        untracked_plans(&w.sim, w.division).iter().take(5).map(|r| r["ID"].as_str().unwrap().to_string()).collect();
    w.sim.handle().set_serving(false);
    let mut uids = Vec::new();
    for plan in &plans {
        let (status, body) = write(
            &w,
            Method::POST,
            "/api/v1/exact/updateMaterialsIssues",
            json!({"ShopOrderMaterialPlan": plan, "Quantity": 1, "TransactionDate": "2026-11-21"}),
        )
        .await;
        assert_eq!(status, 202, "queued while the provider is away: {body}");
        uids.push(body["entries"][0]["uid"].as_str().unwrap().to_string());
    }
    actix_web::rt::time::sleep(Duration::from_millis(800)).await;
    let outbox: Value = w.get("/api/v1/outbox").await.json().await.unwrap();
    assert_eq!(outbox["pending"], 5, "{outbox}");
    assert_eq!(writes(&w.sim, "POST manufacturing/MaterialIssues"), 0);
    // What the screens show: the outage, since when, and the queue.
    let status: Value = w.get("/api/v1/status").await.json().await.unwrap();
    assert_eq!(status["provider"]["reachable"], false, "{status}");
    assert!(status["provider"]["since_ms"].as_i64().is_some(), "{status}");
    assert!(status["provider"]["last_error"].as_str().is_some_and(|e| e.contains("network")), "{status}");
    assert_eq!(status["outbox"], json!({"pending": 5, "failed": 0}));
    w.sim.handle().set_serving(true);
    eventually("the queue drains", async || {
        let outbox: Value = w.get("/api/v1/outbox").await.json().await.unwrap();
        outbox["pending"] == 0
    })
    .await;
    let status: Value = w.get("/api/v1/status").await.json().await.unwrap();
    assert_eq!(status["provider"]["reachable"], true, "{status}");
    assert_eq!(status["outbox"], json!({"pending": 0, "failed": 0}));
    assert_eq!(writes(&w.sim, "POST manufacturing/MaterialIssues"), 5);
    let issues = rows(&w.sim, w.division, "manufacturing/MaterialIssues");
    for uid in &uids {
        assert_eq!(issues.iter().filter(|r| r["Note"].as_str().is_some_and(|n| n.contains(uid.as_str()))).count(), 1);
    }
    w.stop().await;
}

/// `stock-manager serve` as a real process on `dir`, trusting `public_key`; answers it and its URL.
fn serve(sim: &Simulator, dir: &std::path::Path, public_key: &str) -> (std::process::Child, String) {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(binary())
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir)
        .env("ESM_PROVIDER__BASE_URL", sim.base_url())
        .env("ESM_PROVIDER__CLIENT_ID", "demo-client")
        .env("ESM_PROVIDER__CLIENT_SECRET", "demo-secret")
        .env("ESM_LICENCE__PUBLIC_KEY", public_key)
        .env("ESM_MDNS__ENABLED", "false")
        .env("ESM_SYNC__ON_STARTUP", "false")
        .env("ESM_SYNC__INTERVAL_MINUTES", "0")
        .env("RUST_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let Some(stdout) = child.stdout.take() else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("no stdout");
    };
    let mut out = BufReader::new(stdout);
    let mut line = String::new();
    loop {
        line.clear();
        if out.read_line(&mut line).unwrap_or(0) == 0 {
            let status = child.wait();
            panic!("the server ended before printing its URL: {status:?}");
        }
        if let Some(url) = line.trim().strip_prefix("URL: ") {
            return (child, url.to_string());
        }
    }
}

#[actix_web::test]
async fn kill_9_while_delivering_never_loses_or_doubles_a_write() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    // Slow answers, so kills land between a send and its recorded answer.
    sim.handle().set_faults(Faults { latency_ms: 40, ..Default::default() });
    let dir = tempfile::tempdir().unwrap();
    let issuer = Issuer::generate();
    let (mut child, url) = serve(&sim, dir.path(), &issuer.public_key());
    let signed_in = browser_sign_in(&url).await;
    let division = signed_in.session["division"].as_i64().unwrap();
    let customer = signed_in.session["customer_name"].as_str().unwrap().to_string();
    let http = client();
    let res = http
        .post(format!("{url}/api/v1/license/activate"))
        .header("cookie", &signed_in.cookie)
        .json(&json!({"division": division, "code": issuer.issue(division, &customer, None)}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let plans: Vec<String> =
        untracked_plans(&sim, division).iter().map(|r| r["ID"].as_str().unwrap().to_string()).collect();
    let mut uids = Vec::new();
    let mut url = url;
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut interrupted = 0;
    for round in 0..20 {
        // Two new writes each round, on top of what is still queued.
        let batch: Vec<Value> = (0..2)
            .map(|i| json!({"ShopOrderMaterialPlan": plans[(round * 2 + i) % plans.len()], "Quantity": 1, "TransactionDate": "2026-11-21"}))
            .collect();
        let res = http
            .post(format!("{url}/api/v1/exact/updateMaterialsIssues"))
            .header("cookie", &signed_in.cookie)
            .json(&Value::Array(batch))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 202, "round {round}");
        let body: Value = res.json().await.unwrap();
        uids.extend(body["entries"].as_array().unwrap().iter().map(|e| e["uid"].as_str().unwrap().to_string()));
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        actix_web::rt::time::sleep(Duration::from_millis(5 + seed % 120)).await;
        let _ = child.kill(); // SIGKILL on Unix
        let _ = child.wait();
        // Count the kills that cut a send off before its answer was recorded.
        let outbox = OutboxDb::open(&outbox_path(dir.path(), division)).unwrap();
        interrupted += outbox.all().unwrap().iter().filter(|e| e.state == State::Sending).count();
        drop(outbox);
        (child, url) = serve(&sim, dir.path(), &issuer.public_key());
    }
    eprintln!("{interrupted} of 20 kills cut a send off before its answer was recorded");
    assert!(interrupted > 0, "some kills landed mid-send");
    sim.handle().set_faults(Faults::default());
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let outbox: Value = http
            .get(format!("{url}/api/v1/outbox"))
            .header("cookie", &signed_in.cookie)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if outbox["pending"] == 0 {
            assert_eq!(outbox["failed"], 0, "{outbox}");
            break;
        }
        assert!(Instant::now() < deadline, "the outbox drains after the last restart: {outbox}");
        actix_web::rt::time::sleep(Duration::from_millis(200)).await;
    }
    let issues = rows(&sim, division, "manufacturing/MaterialIssues");
    for uid in &uids {
        let n = issues.iter().filter(|r| r["Note"].as_str().is_some_and(|note| note.contains(uid.as_str()))).count();
        assert_eq!(n, 1, "write {uid} is at the provider exactly once");
    }
    assert_eq!(writes(&sim, "POST manufacturing/MaterialIssues"), uids.len() as u64);
    let _ = child.kill();
    let _ = child.wait();
    sim.stop().await;
}
