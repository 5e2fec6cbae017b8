//! The administrator role: each administrator action refused to a signed-in user who is not one
//! (403 `admin_only`), allowed to one; the admin password making an administrator for 15 minutes;
//! an administrator ending another user's sessions at once.

use crate::provider::{World, browser_sign_in_as};
use esm_sim::SimOptions;
use reqwest::Method;
use serde_json::{Value, json};

/// What the issue names as administrator actions, as the route table must mark them.
const ADMIN_ACTIONS: &[(&str, &str)] = &[
    ("PUT", "/updateOrganizationPreferences"),
    ("PUT", "/updateOrganizationSyncTimestamps"),
    ("PUT", "/db/userPermissions"),
    ("DELETE", "/db/{table}"),
    ("POST", "/printers/accept"),
    ("POST", "/printers/withdraw"),
    ("GET", "/importData/export"),
    ("POST", "/importData/import"),
    ("GET", "/sessions"),
    ("DELETE", "/sessions/{user}"),
    ("POST", "/counts/{id}/process"),
];

fn concrete(path: &str) -> String {
    path.replace("{table}", "items")
        .replace("{user}", "someone")
        .replace("{id}", "00000000-0000-4000-8000-000000000001")
}

async fn send(world: &World, cookie: &str, method: &str, path: &str, body: Option<Value>) -> reqwest::Response {
    let method = Method::from_bytes(method.as_bytes()).expect("a method");
    let mut req =
        world.server.client.request(method, world.server.at(&format!("/api/v1{path}"))).header("cookie", cookie);
    if let Some(body) = body {
        req = req.json(&body);
    }
    req.send().await.expect("answered")
}

/// Demo user 1 signed in to the world's (activated) organization, the login process completed.
async fn sign_in_worker(world: &World) -> crate::provider::SignedIn {
    let signed_in = browser_sign_in_as(&world.server.url, Some(1)).await;
    let res = send(world, &signed_in.cookie, "GET", "/checkUser", None).await;
    assert_eq!(res.status(), 200);
    signed_in
}

#[actix_web::test]
async fn every_administrator_action_is_refused_to_a_user_who_is_not_one() {
    let world = World::start(SimOptions::default()).await;
    let marked: Vec<(String, String)> = stock_manager::api::route_table()
        .iter()
        .flat_map(|r| r.ops.iter().filter(|op| op.admin).map(|op| (op.method.to_string(), r.path.to_string())))
        .collect();
    for (method, path) in ADMIN_ACTIONS {
        assert!(marked.iter().any(|(m, p)| m == method && p == path), "{method} {path} is not an administrator action");
    }
    // Demo user 1 signs in to the same (activated) organization: a signed-in user, not listed.
    let worker = sign_in_worker(&world).await;
    assert_eq!(worker.session["administrator"], "none", "{}", worker.session);
    for (method, path) in &marked {
        let res = send(&world, &worker.cookie, method, &concrete(path), Some(json!({}))).await;
        assert_eq!(res.status(), 403, "{method} {path}");
        let body: Value = res.json().await.expect("json");
        assert_eq!(body["error"]["code"], "admin_only", "{method} {path}: {body}");
    }
    // Reading the settings stays open to everyone.
    let res = send(&world, &worker.cookie, "GET", "/organizationDetails", None).await;
    assert_eq!(res.status(), 200);
    world.stop().await;
}

#[actix_web::test]
async fn a_listed_user_changes_the_organization_settings() {
    let world = World::start(SimOptions::default()).await;
    let session: Value = world.get("/api/v1/auth/session").await.json().await.expect("json");
    assert_eq!(session["administrator"], "listed", "{session}");
    assert_eq!(session["adminPasswordSet"], false);
    let details = &session["organizationDetails"];
    let mut preferences = details["preferences"].clone();
    preferences["label_copies"] = json!(3);
    let body = json!({"uuid": details["uuid"], "preferences": preferences});
    let res = world.request(Method::PUT, "/api/v1/updateOrganizationPreferences").json(&body).send().await.unwrap();
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap_or_default());
    world.stop().await;
}

#[actix_web::test]
async fn with_an_admin_password_only_its_confirmation_makes_an_administrator() {
    let world = World::start_with(SimOptions::default(), |c| {
        c.admin.password = stock_manager::config::Secret::new("letmein");
    })
    .await;
    // Listed, but a password is set: listing no longer counts.
    let session: Value = world.get("/api/v1/auth/session").await.json().await.expect("json");
    assert_eq!((session["administrator"].as_str(), session["adminPasswordSet"].as_bool()), (Some("none"), Some(true)));
    let res = world.get("/api/v1/sessions").await;
    assert_eq!(res.status(), 403);
    let res = world.post_json("/api/v1/auth/reauth", json!({"password": "letmein"})).await;
    assert_eq!(res.status(), 200);
    let session: Value = res.json().await.expect("json");
    assert_eq!(session["administrator"], "password", "{session}");
    let until = session["importDataUntil"].as_i64().expect("an end");
    let left = until - stock_manager::exact::oauth::now_ms();
    assert!((14 * 60_000..=15 * 60_000).contains(&left), "administrator for 15 minutes, {left} ms left");
    assert_eq!(world.get("/api/v1/sessions").await.status(), 200);
    world.stop().await;
}

#[actix_web::test]
async fn an_administrator_ends_another_users_sessions_at_once() {
    let world = World::start(SimOptions::default()).await;
    let worker = sign_in_worker(&world).await;
    let handheld = sign_in_worker(&world).await;
    let users: Value = world.get("/api/v1/sessions").await.json().await.expect("json");
    let listed = users.as_array().expect("a list");
    let theirs = listed.iter().find(|u| u["user_name"] == worker.session["userName"]).expect("the worker is listed");
    assert_eq!(theirs["sessions"], 2, "{users}");
    let user = theirs["user"].as_str().expect("an id").to_string();
    let res = world.request(Method::DELETE, &format!("/api/v1/sessions/{user}")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.expect("json")["ended"], 2);
    for cookie in [&worker.cookie, &handheld.cookie] {
        assert_eq!(send(&world, cookie, "GET", "/organizationDetails", None).await.status(), 401);
    }
    // The administrator's own session goes on; an unknown user is a 404.
    assert_eq!(world.get("/api/v1/sessions").await.status(), 200);
    let res = world.request(Method::DELETE, "/api/v1/sessions/nobody").send().await.unwrap();
    assert_eq!(res.status(), 404);
    world.stop().await;
}

/// 48 wrong admin passwords at once: at most 5 are verified (counted before Argon2 runs, one per
/// user at a time), the others are answered 429 with `Retry-After`, and the right password then
/// waits out the window like the wrong ones.
#[actix_web::test]
async fn parallel_wrong_passwords_are_counted_before_they_are_checked() {
    let world = World::start_with(SimOptions::default(), |c| {
        c.admin.password = stock_manager::config::Secret::new("letmein");
    })
    .await;
    let attempts = (0..48).map(|_| world.post_json("/api/v1/auth/reauth", json!({"password": "wrong"})));
    let answers = futures_util::future::join_all(attempts).await;
    let wrong = answers.iter().filter(|r| r.status() == 401).count();
    let refused: Vec<_> = answers.iter().filter(|r| r.status() == 429).collect();
    assert!((1..=5).contains(&wrong), "{wrong} passwords were verified");
    assert_eq!(wrong + refused.len(), 48);
    assert!(refused.iter().all(|r| r.headers().get("retry-after").is_some()), "429s carry Retry-After");
    let res = world.post_json("/api/v1/auth/reauth", json!({"password": "letmein"})).await;
    if wrong == 5 {
        assert_eq!(res.status(), 429, "the window is used up");
    }
    world.stop().await;
}

/// Refused bookings discarded in bulk: each user clears their own, never another's unless an
/// administrator; the answer says how many went.
#[actix_web::test]
async fn refused_entries_are_discarded_in_bulk_by_their_author_or_an_administrator() {
    let world = World::start(SimOptions::default()).await;
    let worker = sign_in_worker(&world).await;
    let missing = "00000000-0000-0000-0000-000000000001";
    let refused = json!({"ShopOrderMaterialPlan": missing, "Quantity": 1, "TransactionDate": "2026-11-21"});
    let mut theirs = Vec::new();
    for _ in 0..2 {
        let res =
            send(&world, &worker.cookie, "POST", "/exact/updateMaterialsIssues?wait=10", Some(refused.clone())).await;
        assert_eq!(res.status(), 422);
        theirs.push(res.json::<Value>().await.expect("json")["entries"][0]["id"].as_u64().expect("an id"));
    }
    // One of the administrator's (demo user 0).
    let res = world
        .request(Method::POST, "/api/v1/exact/updateMaterialsIssues?wait=10")
        .json(&refused)
        .send()
        .await
        .expect("answered");
    assert_eq!(res.status(), 422);
    let admins = res.json::<Value>().await.expect("json")["entries"][0]["id"].as_u64().expect("an id");
    let failed = async || world.get("/api/v1/outbox").await.json::<Value>().await.expect("json")["failed"].clone();
    assert_eq!(failed().await, 3);

    // Demo user 2: neither an author nor an administrator.
    let other = browser_sign_in_as(&world.server.url, Some(2)).await;
    assert_eq!(send(&world, &other.cookie, "GET", "/checkUser", None).await.status(), 200);
    let res = send(&world, &other.cookie, "POST", "/outbox/discard", Some(json!({"ids": [theirs[0]]}))).await;
    assert_eq!(res.status(), 403);
    assert_eq!(res.json::<Value>().await.expect("json")["error"]["code"], "admin_only");
    let res = send(&world, &other.cookie, "POST", "/outbox/discard", Some(json!({"state": "failed"}))).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.expect("json"), json!({"discarded": 0}), "none of theirs");
    assert_eq!(failed().await, 3);

    // The author clears their own, not the administrator's.
    let res = send(&world, &worker.cookie, "POST", "/outbox/discard", Some(json!({"ids": [admins]}))).await;
    assert_eq!(res.status(), 403);
    let res = send(&world, &worker.cookie, "POST", "/outbox/discard", Some(json!({"state": "failed"}))).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.expect("json"), json!({"discarded": 2}));
    assert_eq!(failed().await, 1);

    // Bounds and shape of the request.
    let many: Vec<u64> = (1..=201).collect();
    let res = send(&world, &worker.cookie, "POST", "/outbox/discard", Some(json!({"ids": many}))).await;
    assert_eq!(res.status(), 400);
    assert_eq!(res.json::<Value>().await.expect("json")["error"]["code"], "too_many_entries");
    for body in [json!({"state": "pending"}), json!({}), json!({"state": "failed", "ids": [admins]})] {
        let res = send(&world, &worker.cookie, "POST", "/outbox/discard", Some(body.clone())).await;
        assert_eq!(res.status(), 400, "{body}");
    }

    // The administrator discards by number.
    let res = world.request(Method::POST, "/api/v1/outbox/discard").json(&json!({"ids": [admins]})).send().await;
    assert_eq!(res.expect("answered").json::<Value>().await.expect("json"), json!({"discarded": 1}));
    assert_eq!(failed().await, 0);
    world.stop().await;
}

/// A refused booking in the shared outbox: another worker may neither retry nor discard it; its
/// author and an administrator may.
#[actix_web::test]
async fn only_the_author_or_an_administrator_retries_or_discards_an_entry() {
    let world = World::start(SimOptions::default()).await;
    let worker = sign_in_worker(&world).await;
    let missing = "00000000-0000-0000-0000-000000000001";
    let body = json!({"ShopOrderMaterialPlan": missing, "Quantity": 1, "TransactionDate": "2026-11-21"});
    let res = send(&world, &worker.cookie, "POST", "/exact/updateMaterialsIssues?wait=10", Some(body)).await;
    assert_eq!(res.status(), 422);
    let id = res.json::<Value>().await.expect("json")["entries"][0]["id"].as_u64().expect("an id");
    // Demo user 2: neither the author nor an administrator.
    let other = browser_sign_in_as(&world.server.url, Some(2)).await;
    assert_eq!(send(&world, &other.cookie, "GET", "/checkUser", None).await.status(), 200);
    for (method, path) in [("POST", format!("/outbox/{id}/retry")), ("DELETE", format!("/outbox/{id}"))] {
        let res = send(&world, &other.cookie, method, &path, None).await;
        assert_eq!(res.status(), 403, "{method} {path}");
        assert_eq!(res.json::<Value>().await.expect("json")["error"]["code"], "admin_only");
    }
    // The author retries; the administrator (demo user 0) discards.
    assert_eq!(send(&world, &worker.cookie, "POST", &format!("/outbox/{id}/retry"), None).await.status(), 202);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let e: Value = world.get(&format!("/api/v1/outbox/{id}")).await.json().await.expect("json");
        if e["state"] == "failed" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the retry ended: {e}");
        actix_web::rt::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(world.request(Method::DELETE, &format!("/api/v1/outbox/{id}")).send().await.unwrap().status(), 204);
    world.stop().await;
}

#[actix_web::test]
async fn the_command_line_lists_and_ends_sessions_through_the_running_server() {
    use stock_manager::cli::sessions as sessions_cli;
    let world = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let worker = sign_in_worker(&world).await;
    let config = world.server.running.as_ref().expect("running").state().config.clone();
    let users = sessions_cli::list(&config).await.expect("listed");
    assert_eq!(users.len(), 2, "{users:?}");
    let name = worker.session["userName"].as_str().expect("user name").to_string();
    let ended = sessions_cli::end(&config, &name).await.expect("ended");
    assert_eq!(ended.ended, 1);
    // At once: the worker's next request is signed out, the administrator's goes on.
    assert_eq!(send(&world, &worker.cookie, "GET", "/checkUser", None).await.status(), 401);
    assert_eq!(send(&world, &world.cookie, "GET", "/checkUser", None).await.status(), 200);
    // The routes the command uses are not there for anybody without the control token.
    let res = world.request(Method::GET, "/api/v1/admin/sessions").send().await.expect("answer");
    assert_eq!(res.status(), 404);
    let res =
        world.request(Method::DELETE, &format!("/api/v1/admin/sessions/{}", world.user)).send().await.expect("answer");
    assert_eq!(res.status(), 404);
    assert_eq!(send(&world, &world.cookie, "GET", "/checkUser", None).await.status(), 200);
    world.stop().await;
}
