//! Backup and restore (issue 19): a backup taken by the `backup` command while the server runs and
//! writes are booked, restored into empty directories, served again: the data and the queued
//! writes are back, and no write reaches Exact twice, whether it had been delivered after the
//! backup or not.

use crate::provider::{World, server_for};
use crate::support::{TestServer, binary};
use esm_sim::{SimOptions, Simulator};
use reqwest::Method;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn sim_options() -> SimOptions {
    SimOptions { rate_limits: false, ..Default::default() }
}

fn rows(sim: &Simulator, division: i64, path: &str) -> Vec<Value> {
    sim.handle().rows(division as i32, path).unwrap_or_default()
}

/// Material issues at the provider that carry `uid` in their note.
fn issues_with(sim: &Simulator, division: i64, uid: &str) -> usize {
    rows(sim, division, "manufacturing/MaterialIssues")
        .iter()
        .filter(|r| r["Note"].as_str().is_some_and(|n| n.contains(uid)))
        .count()
}

async fn call(server: &TestServer, cookie: &str, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut req = server.client.request(method, server.at(path)).header("cookie", cookie);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// Books one material issue and answers its uid (queued: Exact is away).
async fn book(server: &TestServer, cookie: &str, plan: &str) -> String {
    let body = json!({"ShopOrderMaterialPlan": plan, "Quantity": 1, "TransactionDate": "2026-11-21"});
    let (status, answer) =
        call(server, cookie, Method::POST, "/api/v1/exact/updateMaterialsIssues?wait=0", Some(body)).await;
    assert_eq!(status, 202, "{answer}");
    answer["entries"][0]["uid"].as_str().unwrap().to_string()
}

/// Runs the binary with an empty config file (so no config.toml of the working directory counts).
fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    let config = dir.join("empty.toml");
    std::fs::write(&config, "").unwrap();
    Command::new(binary()).arg("--config").arg(&config).args(args).output().unwrap()
}

/// [`run`] off the test's thread, which the in-process server shares.
async fn run_beside(dir: &Path, args: &[&str]) -> std::process::Output {
    let (dir, args) = (dir.to_path_buf(), args.iter().map(|a| a.to_string()).collect::<Vec<_>>());
    let job = std::thread::spawn(move || run(&dir, &args.iter().map(String::as_str).collect::<Vec<_>>()));
    while !job.is_finished() {
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    }
    job.join().unwrap()
}

async fn drained(server: &TestServer, cookie: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (_, outbox) = call(server, cookie, Method::GET, "/api/v1/outbox", None).await;
        if outbox["pending"] == 0 {
            return outbox;
        }
        assert!(Instant::now() < deadline, "the queue drains in time: {outbox}");
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
}

#[actix_web::test]
async fn a_backup_taken_while_writes_happen_restores_with_every_write_delivered_once() {
    let mut w = World::start(sim_options()).await;
    let d = w.division;
    let synced = w.sync(Some(vec!["items", "shopOrderMaterialPlans"])).await;
    assert!(synced["tables"]["items"]["error"].is_null(), "{synced}");
    let items_at_exact = rows(&w.sim, d, "logistics/Items").len();
    let plan = crate::outbox::untracked_plans(&w.sim, d)[0]["ID"].as_str().unwrap().to_string();
    let tmp = tempfile::tempdir().unwrap();
    let data = w.server._dir.path().join("data");

    // Exact is away: writes queue. Two before the backup, more while it is taken.
    w.sim.handle().set_serving(false);
    let mut before = vec![book(&w.server, &w.cookie, &plan).await, book(&w.server, &w.cookie, &plan).await];
    let file = tmp.path().join("backup.tar");
    let backup = {
        let (dir, data, file) = (tmp.path().to_path_buf(), data.clone(), file.clone());
        std::thread::spawn(move || {
            run(&dir, &["backup", "--to", file.to_str().unwrap(), "--data-dir", data.to_str().unwrap()])
        })
    };
    let mut during = Vec::new();
    while !backup.is_finished() {
        during.push(book(&w.server, &w.cookie, &plan).await);
    }
    let out = backup.join().unwrap();
    assert!(!during.is_empty(), "writes were booked while the backup was taken");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "backup: {stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("Backup: ") && stdout.contains("store schema"), "{stdout}");
    assert!(!tmp.path().join("backup.tar.partial").exists());
    let again = run(tmp.path(), &["backup", "--to", file.to_str().unwrap(), "--data-dir", data.to_str().unwrap()]);
    assert!(!again.status.success(), "an existing file is never overwritten");

    // The server stops while Exact is still away: nothing of the queue was delivered.
    let running = w.server.running.take().unwrap();
    running.stop(true).await.unwrap();
    assert_eq!(w.sim.handle().counters().writes.get("POST manufacturing/MaterialIssues"), None);
    // With no server, the command opens the files itself.
    let offline = tmp.path().join("offline.tar");
    let out = run(tmp.path(), &["backup", "--to", offline.to_str().unwrap(), "--data-dir", data.to_str().unwrap()]);
    assert!(out.status.success(), "a stopped data directory backs up: {out:?}");
    // Also when a killed server left its control file behind (nothing listens at its address).
    let stale = json!({"url": "http://127.0.0.1:1", "token": "gone", "pid": 1});
    std::fs::write(data.join("control.json"), stale.to_string()).unwrap();
    let after_kill = tmp.path().join("after-kill.tar");
    let out = run(tmp.path(), &["backup", "--to", after_kill.to_str().unwrap(), "--data-dir", data.to_str().unwrap()]);
    assert!(out.status.success(), "a stale control file is passed over: {out:?}");
    std::fs::remove_file(data.join("control.json")).unwrap();

    // Into the directory in use: refused, and nothing there changes.
    let refused = run(tmp.path(), &["restore", file.to_str().unwrap(), "--data-dir", data.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("is not empty"), "{refused:?}");

    // First restore, Exact back: the queued writes are looked up, not found, and sent once.
    w.sim.handle().set_serving(true);
    let first = tmp.path().join("first");
    let out = run(tmp.path(), &["restore", file.to_str().unwrap(), "--data-dir", first.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "restore: {stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("Restored: "), "{stdout}");
    let server = server_for(&w.sim, &w.issuer, |c| c.data_dir = first.clone()).await;
    // The session, the organization and the local copy are back.
    let (status, items) = call(&server, &w.cookie, Method::GET, "/api/v1/db/items?limit=1000", None).await;
    assert_eq!(status, 200, "the restored session still signs in: {items}");
    let (_, rest) = call(&server, &w.cookie, Method::GET, "/api/v1/db/items?limit=1000&offset=1000", None).await;
    let back = items.as_array().unwrap().len() + rest.as_array().unwrap().len();
    assert_eq!(back, items_at_exact, "every synced item is back");
    let outbox = drained(&server, &w.cookie).await;
    assert_eq!(outbox["failed"], 0, "{outbox}");
    let in_backup: Vec<String> =
        outbox["entries"].as_array().unwrap().iter().map(|e| e["uid"].as_str().unwrap().to_string()).collect();
    before.retain(|u| in_backup.contains(u));
    assert_eq!(before.len(), 2, "the writes queued before the backup are in it");
    assert!(in_backup.iter().all(|u| before.contains(u) || during.contains(u)), "{in_backup:?}");
    for uid in &in_backup {
        assert_eq!(issues_with(&w.sim, d, uid), 1, "write {uid} arrived once");
    }
    let delivered = w.sim.handle().counters().writes.get("POST manufacturing/MaterialIssues").copied();
    assert_eq!(delivered, Some(in_backup.len() as u64));
    server.stop().await;

    // Second restore of the same backup: every write is already at Exact. Each is found there and
    // none is sent again.
    let second = tmp.path().join("second");
    let out = run(tmp.path(), &["restore", file.to_str().unwrap(), "--data-dir", second.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let server = server_for(&w.sim, &w.issuer, |c| c.data_dir = second.clone()).await;
    let outbox = drained(&server, &w.cookie).await;
    assert_eq!(
        (outbox["failed"].as_u64(), outbox["entries"].as_array().map(Vec::len)),
        (Some(0), Some(in_backup.len()))
    );
    assert!(outbox["entries"].as_array().unwrap().iter().all(|e| e["state"] == "delivered"), "{outbox}");
    assert_eq!(
        w.sim.handle().counters().writes.get("POST manufacturing/MaterialIssues").copied(),
        delivered,
        "nothing was sent twice"
    );
    for uid in &in_backup {
        assert_eq!(issues_with(&w.sim, d, uid), 1, "write {uid} still once");
    }
    server.stop().await;
    w.sim.stop().await;
}

#[actix_web::test]
async fn the_admin_route_is_invisible_without_the_control_token() {
    let server = crate::support::TestServer::start().await;
    let res = server.client.get(server.at("/api/v1/admin/backup")).send().await.unwrap();
    assert_eq!(res.status(), 404);
    let res = server.client.get(server.at("/api/v1/admin/backup")).bearer_auth("0".repeat(64)).send().await.unwrap();
    assert_eq!(res.status(), 404, "a wrong token is told nothing more");
    let data = server._dir.path().join("data");
    let control: Value = serde_json::from_slice(&std::fs::read(data.join("control.json")).unwrap()).unwrap();
    assert_eq!(control["url"].as_str(), Some(server.url.as_str()));
    let res = server
        .client
        .get(server.at("/api/v1/admin/backup"))
        .bearer_auth(control["token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(!res.bytes().await.unwrap().is_empty());
    assert!(
        std::fs::read_dir(&data).unwrap().flatten().all(|e| !e.file_name().to_string_lossy().starts_with(".backup")),
        "the served file and the staging area are gone"
    );
    server.stop().await;
    assert!(!data.join("control.json").exists(), "a stopped server withdraws its control file");
}

#[actix_web::test]
async fn the_command_reaches_a_tls_server_and_the_daily_backup_keeps_the_newest() {
    let server = TestServer::start_with(
        |c| {
            c.tls.enabled = true;
            c.tls.self_signed = true;
        },
        Default::default(),
    )
    .await;
    let data = server._dir.path().join("data");
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("tls.tar");
    let out =
        run_beside(tmp.path(), &["backup", "--to", file.to_str().unwrap(), "--data-dir", data.to_str().unwrap()]).await;
    assert!(out.status.success(), "{out:?}");
    let manifest = stock_manager::backup::archive::read(&file, None).unwrap();
    let names: Vec<&str> = manifest.files.iter().map(|f| f.path.as_str()).collect();
    for name in ["server.redb", "printing.redb", "tls/cert.pem", "tls/key.pem"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }

    // The daily backup: written by the server into its directory, the oldest beyond `keep` go.
    let daily = tmp.path().join("daily");
    std::fs::create_dir(&daily).unwrap();
    for old in ["stock-manager-20200101-023000.tar", "stock-manager-20200102-023000.tar"] {
        std::fs::write(daily.join(old), b"old").unwrap();
    }
    let state = server.running.as_ref().unwrap().state();
    let written = stock_manager::backup::schedule::run_once(&state.open_files(), &daily, 2).unwrap();
    let mut left: Vec<String> =
        std::fs::read_dir(&daily).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(left.len(), 2, "{left:?}");
    assert_eq!(left[0], "stock-manager-20200102-023000.tar");
    assert_eq!(daily.join(&left[1]), written);
    let restored = tmp.path().join("restored");
    let out = run(tmp.path(), &["restore", written.to_str().unwrap(), "--data-dir", restored.to_str().unwrap()]);
    assert!(out.status.success(), "a daily backup restores: {out:?}");
    assert!(restored.join("tls/key.pem").exists());
    server.stop().await;
}
