//! The `Idempotency-Key` of the write routes against the simulator: a booking sent twice, or
//! eight times at once, or again after a restart, reaches Exact Online once; the same key with
//! another booking is refused.

use crate::provider::{World, server_for};
use esm_sim::{Faults, SimOptions};
use reqwest::Method;
use serde_json::{Value, json};

const KEY: &str = "4f9c2a8e-1b7d-4e3a-9c5f-2d8b6a1e0f37";
const ISSUES: &str = "POST manufacturing/MaterialIssues";

struct Answer {
    status: u16,
    replayed: bool,
    body: Value,
}

async fn send(req: reqwest::RequestBuilder, key: Option<&str>, body: &Value) -> Answer {
    send_raw(req.json(body), key).await
}

async fn send_raw(req: reqwest::RequestBuilder, key: Option<&str>) -> Answer {
    let req = match key {
        Some(k) => req.header("Idempotency-Key", k),
        None => req,
    };
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let replayed = res.headers().get("Idempotent-Replayed").is_some_and(|v| v == "true");
    Answer { status, replayed, body: res.json().await.unwrap_or(Value::Null) }
}

fn writes(w: &World, key: &str) -> u64 {
    w.sim.handle().counters().writes.get(key).copied().unwrap_or(0)
}

fn plans(w: &World) -> Vec<String> {
    let rows = crate::outbox::untracked_plans(&w.sim, w.division);
    rows.iter().filter_map(|r| r["ID"].as_str().map(str::to_string)).collect()
}

fn issue(plan: &str, quantity: i64) -> Value {
    json!({"ShopOrderMaterialPlan": plan, "Quantity": quantity, "TransactionDate": "2026-11-21"})
}

async fn outbox_len(w: &World, server: &crate::support::TestServer) -> usize {
    let res = server.client.get(server.at("/api/v1/outbox")).header("cookie", &w.cookie).send().await.unwrap();
    let outbox: Value = res.json().await.unwrap();
    outbox["entries"].as_array().map_or(0, Vec::len)
}

#[actix_web::test]
async fn a_booking_sent_twice_is_booked_once_and_answered_the_same() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let plans = plans(&w);
    let path = "/api/v1/exact/updateMaterialsIssues";
    let body = issue(&plans[0], 2);

    let first = send(w.request(Method::POST, &format!("{path}?wait=10")), Some(KEY), &body).await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert!(!first.replayed, "the first answer is no repeat");
    assert_eq!(writes(&w, ISSUES), 1);

    // The answer was lost: the handheld sends it again, fields in another order, without waiting.
    let reordered: Value = serde_json::from_str(&format!(
        r#"{{"TransactionDate":"2026-11-21","Quantity":2,"ShopOrderMaterialPlan":"{}"}}"#,
        plans[0]
    ))
    .unwrap();
    let again = send(w.request(Method::POST, path), Some(KEY), &reordered).await;
    assert_eq!((again.status, again.replayed), (200, true));
    assert_eq!(again.body, first.body, "the first answer, as it was");
    assert_eq!(writes(&w, ISSUES), 1, "booked once");
    assert_eq!(outbox_len(&w, &w.server).await, 1, "queued once");

    // The same key for another booking is a mistake of the client.
    for other in [issue(&plans[0], 3), issue(&plans[1], 2)] {
        let refused = send(w.request(Method::POST, path), Some(KEY), &other).await;
        assert_eq!(refused.status, 409, "{other}: {}", refused.body);
        assert_eq!(refused.body["error"]["code"], "idempotency_key_reused");
    }
    assert_eq!(writes(&w, ISSUES), 1);

    // A malformed key is a 400, and books nothing.
    let long = "k".repeat(201);
    let bad = send(w.request(Method::POST, path), Some(&long), &body).await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    let bad = send(w.request(Method::POST, path), Some(""), &body).await;
    assert_eq!(bad.status, 400, "{}", bad.body);

    // Without a key every request books, as before.
    for _ in 0..2 {
        let plain = send(w.request(Method::POST, &format!("{path}?wait=10")), None, &body).await;
        assert_eq!((plain.status, plain.replayed), (200, false), "{}", plain.body);
    }
    assert_eq!(writes(&w, ISSUES), 3);

    // A delete (its request is in the query) under a key is queued once too.
    let queued = outbox_len(&w, &w.server).await;
    let delete = "/api/v1/exact/deleteDataFromExact?endpoint=stockCounts&id=00000000-0000-0000-0000-0000000000d1";
    let d1 = send_raw(w.request(Method::DELETE, delete), Some("delete-1")).await;
    let d2 = send_raw(w.request(Method::DELETE, &format!("{delete}&wait=1")), Some("delete-1")).await;
    assert!(d1.status < 300 && !d1.replayed, "{}", d1.body);
    assert_eq!((d2.status, d2.replayed, &d2.body), (d1.status, true, &d1.body));
    let other = send_raw(w.request(Method::DELETE, &delete.replace("d1", "d2")), Some("delete-1")).await;
    assert_eq!(other.status, 409, "another id under the same key: {}", other.body);
    assert_eq!(outbox_len(&w, &w.server).await, queued + 1);
    w.stop().await;
}

#[actix_web::test]
async fn eight_parallel_duplicates_book_once_and_all_get_the_first_answer() {
    // Slow answers, so the duplicates arrive while the first is still being answered.
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    w.sim.handle().set_faults(Faults { latency_ms: 300, ..Default::default() });
    let body = issue(&plans(&w)[0], 1);
    let path = "/api/v1/exact/updateMaterialsIssues?wait=10";
    let answers =
        futures_util::future::join_all((0..8).map(|_| send(w.request(Method::POST, path), Some(KEY), &body))).await;
    assert_eq!(writes(&w, ISSUES), 1, "booked once");
    assert_eq!(outbox_len(&w, &w.server).await, 1, "queued once");
    assert_eq!(answers.iter().filter(|a| !a.replayed).count(), 1, "one first answer, seven repeats");
    for a in &answers {
        assert_eq!(a.status, 200, "{}", a.body);
        assert_eq!(a.body, answers[0].body, "every duplicate answers the same");
    }
    w.stop().await;
}

#[actix_web::test]
async fn a_key_is_still_known_after_a_restart() {
    let mut w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let plans = plans(&w);
    let path = "/api/v1/exact/updateMaterialsIssues";
    let body = issue(&plans[0], 4);
    let first = send(w.request(Method::POST, &format!("{path}?wait=10")), Some(KEY), &body).await;
    assert_eq!(first.status, 200, "{}", first.body);

    let data_dir = w.server.running.as_ref().unwrap().state().config.data_dir.clone();
    w.server.running.take().unwrap().stop(true).await.unwrap();
    let server = server_for(&w.sim, &w.issuer, |c| c.data_dir = data_dir).await;
    let post = || server.client.post(server.at(path)).header("cookie", &w.cookie);

    let again = send(post(), Some(KEY), &body).await;
    assert_eq!((again.status, again.replayed), (200, true), "{}", again.body);
    assert_eq!(again.body, first.body);
    let other = send(post(), Some(KEY), &issue(&plans[0], 5)).await;
    assert_eq!(other.status, 409, "{}", other.body);
    assert_eq!(writes(&w, ISSUES), 1, "booked once across the restart");
    assert_eq!(outbox_len(&w, &server).await, 1);
    server.stop().await;
    w.stop().await;
}

#[actix_web::test]
async fn a_booking_whose_answer_a_stop_cut_off_is_answered_from_its_entry_after_the_restart() {
    let mut w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let plans = plans(&w);
    let path = "/api/v1/exact/updateMaterialsIssues";
    let body = issue(&plans[0], 6);
    // Slow answers: the server stops while the first request still waits for Exact Online.
    w.sim.handle().set_faults(Faults { latency_ms: 1_500, ..Default::default() });
    let first = w.request(Method::POST, &format!("{path}?wait=30")).header("Idempotency-Key", KEY).json(&body);
    let cut = actix_web::rt::spawn(async move { first.send().await.map(|r| r.status()) });
    actix_web::rt::time::sleep(std::time::Duration::from_millis(500)).await;
    let data_dir = w.server.running.as_ref().unwrap().state().config.data_dir.clone();
    w.server.running.take().unwrap().stop(false).await.unwrap();
    assert!(cut.await.unwrap().is_err(), "the first request got no answer");

    w.sim.handle().set_faults(Faults::default());
    let server = server_for(&w.sim, &w.issuer, |c| c.data_dir = data_dir).await;
    let post = || server.client.post(server.at(&format!("{path}?wait=10"))).header("cookie", &w.cookie);
    let again = send(post(), Some(KEY), &body).await;
    assert!(again.replayed, "answered from the entry the first request queued: {}", again.body);
    assert!([200, 202].contains(&again.status), "{}", again.body);
    assert_eq!(again.body["entries"].as_array().map(Vec::len), Some(1), "{}", again.body);
    let third = send(post(), Some(KEY), &body).await;
    assert_eq!((third.status, &third.body), (again.status, &again.body), "and that answer stands");
    assert_eq!(outbox_len(&w, &server).await, 1, "queued once");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while writes(&w, ISSUES) == 0 {
        assert!(std::time::Instant::now() < deadline, "the queued booking is delivered after the restart");
        actix_web::rt::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    actix_web::rt::time::sleep(std::time::Duration::from_millis(500)).await;
    let issues = w.sim.handle().rows(w.division as i32, "manufacturing/MaterialIssues").unwrap_or_default();
    let uid = again.body["entries"][0]["uid"].as_str().unwrap_or_default().to_string();
    assert!(!uid.is_empty(), "{}", again.body);
    let booked = issues.iter().filter(|r| r["Note"].as_str().is_some_and(|n| n.contains(&uid))).count();
    assert_eq!(booked, 1, "booked once at Exact Online");
    server.stop().await;
    w.stop().await;
}
