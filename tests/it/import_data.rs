//! ImportData: export and import of the local copy, behind a fresh re-authentication.

use crate::provider::{World, approve, set_cookie};
use esm_sim::SimOptions;
use reqwest::Method;
use serde_json::{Value, json};

/// The second provider sign-in ImportData asks for, as the browser does it.
async fn reauthenticate(w: &World) {
    let res = w.request(Method::GET, "/api/v1/auth/login?purpose=reauth").send().await.unwrap();
    assert_eq!(res.status(), 302);
    let nonce = set_cookie(&res, "esm_login").unwrap();
    let back = approve(res.headers()["location"].to_str().unwrap()).await;
    let q = |k: &str| back.query_pairs().find(|(n, _)| n == k).unwrap().1.into_owned();
    let res = w
        .server
        .client
        .post(w.server.at("/api/v1/auth/authorize"))
        .header("cookie", format!("{}; esm_login={nonce}", w.cookie))
        .json(&json!({"code": q("code"), "state": q("state")}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let session: Value = res.json().await.unwrap();
    assert!(session["importDataUntil"].as_i64().is_some(), "{session}");
}

async fn import(w: &World, body: String, dry_run: bool) -> (u16, Value) {
    let res = w
        .request(Method::POST, &format!("/api/v1/importData/import?dryRun={dry_run}"))
        .header("content-type", "application/x-ndjson")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap())
}

#[actix_web::test]
async fn an_export_imports_back_after_a_fresh_sign_in_and_bad_files_change_nothing() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let synced = w.sync(Some(vec!["projects", "items"])).await;
    let projects = synced["tables"]["projects"]["rows"].as_u64().unwrap();
    let items = synced["tables"]["items"]["rows"].as_u64().unwrap();

    let res = w.get("/api/v1/importData/export").await;
    assert_eq!(res.status(), 403, "no fresh sign-in yet");
    assert!(res.text().await.unwrap().contains("fresh sign-in"));
    reauthenticate(&w).await;

    let res = w.get("/api/v1/importData/export").await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/x-ndjson");
    let export = res.text().await.unwrap();
    let lines: Vec<&str> = export.lines().collect();
    let header: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(header["division"], w.division);
    assert_eq!(header["tables"]["projects"], projects);
    assert_eq!(lines.len() as u64, 1 + projects + items);

    // Lose the local projects, then bring them back from the file.
    assert_eq!(w.request(Method::DELETE, "/api/v1/db/projects").send().await.unwrap().status(), 204);
    let (status, preview) = import(&w, export.clone(), true).await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(preview["applied"], false);
    assert_eq!(preview["tables"]["projects"], projects);
    let cleared: Value = w.get("/api/v1/sync").await.json().await.unwrap();
    assert_eq!(cleared["tables"]["projects"]["rows"], 0, "a dry run writes nothing");
    let (status, done) = import(&w, export.clone(), false).await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["applied"], true);
    let after: Value = w.get("/api/v1/sync").await.json().await.unwrap();
    assert_eq!(after["tables"]["projects"]["rows"], projects);
    assert_eq!(after["tables"]["projects"]["timestamp"], synced["tables"]["projects"]["timestamp"]);
    assert_eq!(after["tables"]["items"]["rows"], items);

    // Another organization's export, or a bad line, is refused whole.
    let mut foreign: Value = header.clone();
    foreign["division"] = json!(3154117);
    let (status, report) = import(&w, format!("{foreign}\n{}\n", lines[1]), false).await;
    assert_eq!(status, 422);
    assert!(report["errors"][0]["message"].as_str().unwrap().contains("division 3154117"), "{report}");
    let bad = format!(
        "{}\n{}\n{{\"table\":\"nonsense\",\"row\":{{}}}}\n{{\"table\":\"projects\",\"row\":{{\"Code\":\"x\"}}}}\n",
        lines[0], lines[1]
    );
    assert_eq!(w.request(Method::DELETE, "/api/v1/db/projects").send().await.unwrap().status(), 204);
    let (status, report) = import(&w, bad, false).await;
    assert_eq!(status, 422);
    assert_eq!(report["error_count"], 2);
    assert_eq!(report["errors"][0]["line"], 3);
    assert!(report["errors"][1]["message"].as_str().unwrap().contains("without its key"));
    let untouched: Value = w.get("/api/v1/sync").await.json().await.unwrap();
    assert_eq!(untouched["tables"]["projects"]["rows"], 0, "nothing was written");
    w.stop().await;
}

/// An edited header cannot move a table's sync timestamp past its newest row: the next sync
/// would skip the provider's newer rows for good.
#[actix_web::test]
async fn an_import_takes_no_timestamp_past_the_files_newest_row() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let synced = w.sync(Some(vec!["projects"])).await;
    let stamp = synced["tables"]["projects"]["timestamp"].as_i64().expect("projects synced");
    reauthenticate(&w).await;
    let export = w.get("/api/v1/importData/export").await.text().await.unwrap();
    let (first, rows) = export.split_once('\n').unwrap();
    let mut header: Value = serde_json::from_str(first).unwrap();
    header["timestamps"]["projects"] = json!(stamp + 1_000_000);
    let (status, done) = import(&w, format!("{header}\n{rows}"), false).await;
    assert_eq!(status, 200, "{done}");
    let after: Value = w.get("/api/v1/sync").await.json().await.unwrap();
    assert_eq!(after["tables"]["projects"]["timestamp"], stamp, "bounded by the newest row");
}
