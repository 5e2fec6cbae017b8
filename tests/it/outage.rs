//! Long Exact Online outages and many users (issue 17): sessions never depend on the provider,
//! tokens are kept per user and renewed in the background, writes wait (never refused for an
//! outage) and arrive once afterwards, and one user's logout stops nobody else.

use crate::provider::{World, browser_sign_in_as};
use esm_sim::{Faults, SimOptions, Simulator};
use reqwest::Method;
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use stock_manager::exact::oauth::{TokenSet, now_ms};
use stock_manager::serverdb::TOKENS;
use stock_manager::state::AppState;

fn sim_options() -> SimOptions {
    SimOptions { rate_limits: false, ..Default::default() }
}

fn rows(sim: &Simulator, division: i64, path: &str) -> Vec<Value> {
    sim.handle().rows(division as i32, path).unwrap_or_default()
}

/// The server's clock passing `user`'s token expiry (the simulator's clock is moved apart).
fn expire_tokens(state: &AppState, user: &str) {
    let mut set = state.serverdb.get_json::<TokenSet>(TOKENS, user).unwrap().expect("stored tokens");
    set.expires_at_ms = now_ms() - 1_000;
    state.tokens.store(user, &set).unwrap();
}

async fn send(w: &World, cookie: &str, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut req = w.server.client.request(method, w.server.at(path)).header("cookie", cookie);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn eventually(what: &str, secs: u64, mut check: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !check().await {
        assert!(Instant::now() < deadline, "{what} in time");
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Books one material issue of `plan`, waiting up to `wait` s for Exact's answer.
async fn issue(w: &World, cookie: &str, plan: &str, wait: u32) -> (u16, Value) {
    let body = json!({"ShopOrderMaterialPlan": plan, "Quantity": 1, "TransactionDate": "2026-11-21"});
    send(w, cookie, Method::POST, &format!("/api/v1/exact/updateMaterialsIssues?wait={wait}"), Some(body)).await
}

fn issues_with(sim: &Simulator, division: i64, uid: &str) -> usize {
    rows(sim, division, "manufacturing/MaterialIssues")
        .iter()
        .filter(|r| r["Note"].as_str().is_some_and(|n| n.contains(uid)))
        .count()
}

#[actix_web::test]
async fn a_two_hour_outage_with_expired_tokens_changes_nothing_but_the_banner() {
    let w = World::start(sim_options()).await;
    let d = w.division;
    let synced = w.sync(Some(vec!["items", "storageLocationStockPositions", "shopOrderMaterialPlans"])).await;
    assert!(synced["tables"]["items"]["error"].is_null(), "{synced}");
    let plans: Vec<String> = crate::outbox::untracked_plans(&w.sim, d)
        .iter()
        .take(3)
        .map(|r| r["ID"].as_str().unwrap().to_string())
        .collect();
    let state = w.server.running.as_ref().unwrap().state();

    // Exact goes away for two hours: every token expires on both clocks meanwhile.
    w.sim.handle().set_serving(false);
    w.sim.handle().advance_clock(2 * 3600);
    expire_tokens(state, &w.user);

    let mut uids = Vec::new();
    for plan in &plans {
        let started = Instant::now();
        let (status, session) = send(&w, &w.cookie, Method::GET, "/api/v1/auth/session", None).await;
        assert_eq!((status, session["tier"].as_str()), (200, Some("full")), "{session}");
        assert_eq!(session["providerAccess"], "ok", "an unreachable provider is no refused sign-in");
        for read in ["/api/v1/db/items?limit=5", "/api/v1/db/storageLocationStockPositions?limit=5"] {
            let (status, body) = send(&w, &w.cookie, Method::GET, read, None).await;
            assert_eq!(status, 200, "{read}: {body}");
            assert!(!body.as_array().unwrap().is_empty(), "{read} answers the local copy");
        }
        let (_, items) = send(&w, &w.cookie, Method::GET, "/api/v1/db/items?IsStockItem=eq.true&limit=1", None).await;
        let label = json!({"source": "item_direct", "ids": [items[0]["ID"]], "type": "cnc-new"});
        let res = w.request(Method::POST, "/api/v1/labels").json(&label).send().await.unwrap();
        assert_eq!(res.status(), 200, "a label from the local copy");
        let result: Value = serde_json::from_str(res.headers()["x-label-result"].to_str().unwrap()).unwrap();
        assert_eq!(result["status"], "WARNING", "{result}");
        assert!(result["messages"][0].as_str().unwrap().contains("local copy"), "{result}");
        assert!(res.bytes().await.unwrap().starts_with(b"%PDF"));
        let res = w.request(Method::POST, "/api/v1/labels").header("accept-language", "nl").json(&label).send().await;
        let res = res.unwrap();
        let result: Value = serde_json::from_str(res.headers()["x-label-result"].to_str().unwrap()).unwrap();
        let headline = result["messages"][0].as_str().unwrap();
        assert!(headline.starts_with("Gemaakt uit de lokale kopie van "), "the outage note in Dutch: {result}");
        assert!(headline.ends_with("Exact Online is niet bereikbaar"), "{result}");
        let (status, checked) = send(&w, &w.cookie, Method::GET, "/api/v1/checkUser", None).await;
        assert_eq!((status, &checked["activated"]), (200, &json!(true)), "{checked}");
        let (status, body) = issue(&w, &w.cookie, plan, 20).await;
        assert_eq!(status, 202, "queued while Exact is away: {body}");
        assert_eq!(body["state"], "pending");
        uids.push(body["entries"][0]["uid"].as_str().unwrap().to_string());
        assert!(started.elapsed() < Duration::from_secs(5), "a queued write answers at once: {:?}", started.elapsed());
    }

    // Many rounds of trying later, nothing is refused for the outage.
    actix_web::rt::time::sleep(Duration::from_secs(3)).await;
    let (_, outbox) = send(&w, &w.cookie, Method::GET, "/api/v1/outbox", None).await;
    assert_eq!((outbox["pending"].as_u64(), outbox["failed"].as_u64()), (Some(3), Some(0)), "{outbox}");
    let waiting = outbox["entries"].as_array().unwrap().iter().find(|e| e["error"].is_string()).expect("a reason");
    assert!(waiting["error"].as_str().unwrap().contains("Waiting for Exact Online"), "{waiting}");
    let (_, status) = send(&w, &w.cookie, Method::GET, "/api/v1/status", None).await;
    assert_eq!(status["provider"]["reachable"], false, "{status}");
    let (status, _) = send(&w, &w.cookie, Method::POST, "/api/v1/auth/refresh", None).await;
    assert_eq!(status, 200, "a renewal that cannot reach Exact keeps the session");

    // Exact is back: the chain is renewed in the background and every write arrives once.
    w.sim.handle().set_serving(true);
    eventually("the queue drains", 60, async || {
        let (_, outbox) = send(&w, &w.cookie, Method::GET, "/api/v1/outbox", None).await;
        outbox["pending"] == 0
    })
    .await;
    let (_, outbox) = send(&w, &w.cookie, Method::GET, "/api/v1/outbox", None).await;
    assert_eq!(outbox["failed"], 0, "{outbox}");
    for uid in &uids {
        assert_eq!(issues_with(&w.sim, d, uid), 1, "write {uid} arrived exactly once");
    }
    let order: Vec<u64> = outbox["entries"].as_array().unwrap().iter().filter_map(|e| e["id"].as_u64()).collect();
    let mut sent: Vec<(u64, i64)> = outbox["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["id"].as_u64().unwrap(), e["done_ms"].as_i64().unwrap()))
        .collect();
    sent.sort_by_key(|(id, done)| (*done, *id));
    let mut by_id = order.clone();
    by_id.sort_unstable();
    assert_eq!(sent.iter().map(|(id, _)| *id).collect::<Vec<_>>(), by_id, "delivered in the order they were made");
    // The sync the delivered writes started, then one of our own, both with the renewed chain.
    eventually("a sync can start", 60, async || {
        w.post_json("/api/v1/sync", json!({"endpoints": ["items"]})).await.status() == 202
    })
    .await;
    let synced = w.wait_for_sync().await;
    assert!(synced["tables"]["items"]["error"].is_null(), "the sync goes on with the renewed chain: {synced}");
    w.stop().await;
}

#[actix_web::test]
async fn one_users_logout_stops_nobody_and_their_queued_writes_still_go_under_their_name() {
    let w = World::start(sim_options()).await;
    let d = w.division;
    let second = browser_sign_in_as(&w.server.url, Some(1)).await;
    let (_, checked) = send(&w, &second.cookie, Method::GET, "/api/v1/checkUser", None).await;
    assert_eq!(checked["activated"], true, "the second user joins the activated organization: {checked}");
    let (_, accounts) = send(&w, &second.cookie, Method::GET, "/api/v1/organization/accounts", None).await;
    assert_eq!(accounts["accounts"].as_array().unwrap().len(), 2, "{accounts}");
    assert!(accounts["accounts"].as_array().unwrap().iter().all(|a| a["access"] == "ok"), "{accounts}");
    let state = w.server.running.as_ref().unwrap().state();
    let second_user = accounts["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|a| a["user"].as_str().filter(|u| *u != w.user))
        .unwrap()
        .to_string();

    // The first user queues a write while Exact is away, then signs out.
    let plan = crate::outbox::untracked_plans(&w.sim, d)[0]["ID"].as_str().unwrap().to_string();
    w.sim.handle().set_serving(false);
    let (status, body) = issue(&w, &w.cookie, &plan, 5).await;
    assert_eq!(status, 202, "{body}");
    let uid = body["entries"][0]["uid"].as_str().unwrap().to_string();
    assert_eq!(body["entries"][0]["user"], w.user.as_str());
    let (status, _) = send(&w, &w.cookie, Method::POST, "/api/v1/auth/logout", None).await;
    assert_eq!(status, 204);
    assert!(state.tokens.expiry_ms(&w.user).is_some(), "kept for the queued write");
    let (_, accounts) = send(&w, &second.cookie, Method::GET, "/api/v1/organization/accounts", None).await;
    assert_eq!(accounts["accounts"].as_array().unwrap().len(), 1, "the signed-out user is no account: {accounts}");

    // The second user's sync and reads go on; the first user's write arrives under their name.
    w.sim.handle().set_serving(true);
    let res = w
        .server
        .client
        .post(w.server.at("/api/v1/sync"))
        .header("cookie", &second.cookie)
        .json(&json!({"endpoints": ["items"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    eventually("the sync ends", 60, async || {
        let (_, s) = send(&w, &second.cookie, Method::GET, "/api/v1/sync", None).await;
        s["running"] == false
    })
    .await;
    let (_, s) = send(&w, &second.cookie, Method::GET, "/api/v1/sync", None).await;
    assert!(s["tables"]["items"]["error"].is_null(), "synced with the second user's sign-in: {s}");
    assert!(s["tables"]["items"]["rows"].as_u64().unwrap_or(0) > 0, "{s}");
    eventually("the signed-out user's write arrives", 60, async || issues_with(&w.sim, d, &uid) == 1).await;
    eventually("their tokens go once it is through", 10, async || state.tokens.expiry_ms(&w.user).is_none()).await;
    assert!(state.tokens.expiry_ms(&second_user).is_some(), "the other user's tokens stay");
    let (status, _) = send(&w, &second.cookie, Method::GET, "/api/v1/db/items?limit=1", None).await;
    assert_eq!(status, 200);
    w.stop().await;
}

#[actix_web::test]
async fn a_request_cancelled_during_a_renewal_leaves_a_working_chain() {
    let w = World::start(sim_options()).await;
    let state = w.server.running.as_ref().unwrap().state();
    // The token is in its last 30 s on our clock and renewable on the provider's; renewals are slow.
    let mut set = state.serverdb.get_json::<TokenSet>(TOKENS, &w.user).unwrap().unwrap();
    set.expires_at_ms = now_ms() + 10_000;
    state.tokens.store(&w.user, &set).unwrap();
    w.sim.handle().advance_clock(580);
    w.sim.handle().set_faults(Faults { token_latency_ms: 600, ..Faults::default() });
    let before = w.sim.handle().counters().token_calls;

    // The browser goes away while the renewal is under way.
    let cancelled = w
        .server
        .client
        .post(w.server.at("/api/v1/auth/refresh"))
        .header("cookie", &w.cookie)
        .timeout(Duration::from_millis(100))
        .send()
        .await;
    assert!(cancelled.is_err(), "the request was cut off");
    let cancelled = tokio::time::timeout(Duration::from_millis(50), state.tokens.access_token(&w.user)).await;
    assert!(cancelled.is_err(), "an in-process caller gave up too");
    eventually("the renewal finishes on its own", 10, async || {
        state.serverdb.get_json::<TokenSet>(TOKENS, &w.user).unwrap().unwrap().refresh_token != set.refresh_token
    })
    .await;
    w.sim.handle().set_faults(Faults::default());
    let token = state.tokens.access_token(&w.user).await.expect("a working token");
    assert_ne!(token, set.access_token);
    assert_eq!(w.sim.handle().counters().token_calls - before, 1, "one renewal, the rotated token kept");
    state.exact.me(&token).await.expect("the provider accepts the new token");
    let (_, session) = send(&w, &w.cookie, Method::GET, "/api/v1/auth/session", None).await;
    assert_eq!(session["providerAccess"], "ok");
    w.stop().await;
}

#[actix_web::test]
async fn writes_of_a_user_exact_refused_wait_for_their_new_sign_in() {
    let w = World::start(sim_options()).await;
    let d = w.division;
    w.sync(Some(vec!["items"])).await;
    let state = w.server.running.as_ref().unwrap().state();
    let plan = crate::outbox::untracked_plans(&w.sim, d)[0]["ID"].as_str().unwrap().to_string();
    // Booked while Exact is away: it waits in the queue.
    w.sim.handle().set_serving(false);
    let (status, body) = issue(&w, &w.cookie, &plan, 0).await;
    assert_eq!(status, 202, "{body}");
    let uid = body["entries"][0]["uid"].as_str().unwrap().to_string();
    let id = body["entries"][0]["id"].as_u64().unwrap();
    // Meanwhile the user is removed from the company in Exact, and Exact comes back.
    w.sim.handle().revoke_user(0);
    expire_tokens(state, &w.user);
    w.sim.handle().set_serving(true);
    state.outbox.wake_all();
    eventually("the write waits for its author's new sign-in", 60, async || {
        let entry = state.outbox.get(d, id).unwrap().expect("the entry stays");
        entry.error.as_deref().is_some_and(|e| e.contains("to sign in with Exact Online again"))
    })
    .await;
    assert_eq!(issues_with(&w.sim, d, &uid), 0, "nothing was booked under a refused sign-in");
    let (status, body) = send(&w, &w.cookie, Method::GET, "/api/v1/auth/session", None).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("sign_in_refused")), "the session ended");

    // The same user signs in again (access given back): the write goes without anyone touching it.
    let again = browser_sign_in_as(&w.server.url, None).await;
    eventually("the write arrives after the new sign-in", 60, async || issues_with(&w.sim, d, &uid) == 1).await;
    let (_, session) = send(&w, &again.cookie, Method::GET, "/api/v1/auth/session", None).await;
    assert_eq!(session["providerAccess"], "ok");
    w.stop().await;
}

#[actix_web::test]
async fn the_schedule_syncs_only_activated_organizations() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    let issuer = stock_manager::auth::licence::Issuer::generate();
    let server = crate::provider::server_for(&sim, &issuer, |_| {}).await;
    crate::provider::browser_sign_in(&server.url).await;
    let running = server.running.as_ref().unwrap();
    let before = sim.handle().counters().calls;
    running.run_scheduled_sync().await;
    assert_eq!(sim.handle().counters().calls, before, "an organization without a licence is not synced");
    server.stop().await;
    sim.stop().await;
}
