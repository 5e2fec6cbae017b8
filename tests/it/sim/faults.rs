//! Fault injection and the control endpoint.

use super::{DIV, Sim};
use esm_sim::Faults;
use serde_json::{Value, json};

#[actix_web::test]
async fn a_500_share_of_one_fails_every_call() {
    let s = Sim::start().await;
    s.h().set_faults(Faults { error_500_share: 1.0, ..Default::default() });
    let r = s.get("logistics/ItemGroups").await;
    assert_eq!(r.status(), 500);
    let v: Value = r.json().await.unwrap();
    assert!(v["error"]["message"]["value"].is_string());
    assert_eq!(s.h().counters().sent_500, 1);
    s.stop().await;
}

#[actix_web::test]
async fn malformed_json_is_not_json() {
    let s = Sim::start().await;
    s.h().set_faults(Faults { malformed_json_share: 1.0, ..Default::default() });
    let r = s.get("logistics/ItemGroups").await;
    assert_eq!(r.status(), 200);
    assert!(serde_json::from_slice::<Value>(&r.bytes().await.unwrap()).is_err());
    s.stop().await;
}

#[actix_web::test]
async fn dropped_connections_fail_the_request() {
    let s = Sim::start().await;
    s.h().set_faults(Faults { drop_share: 1.0, ..Default::default() });
    let r = s.client.get(s.url(&format!("/api/v1/{DIV}/logistics/ItemGroups"))).bearer_auth(&s.token).send().await;
    let failed = match r {
        Err(_) => true,
        Ok(resp) => resp.bytes().await.is_err(),
    };
    assert!(failed, "the client must see a broken connection");
    s.stop().await;
}

#[actix_web::test]
async fn a_429_storm_refuses_division_calls_then_ends() {
    let s = Sim::start().await;
    s.h().set_faults(Faults { storm_429_calls: 3, ..Default::default() });
    for _ in 0..3 {
        assert_eq!(s.get("logistics/ItemGroups").await.status(), 429);
    }
    assert_eq!(s.get("logistics/ItemGroups").await.status(), 200);
    assert_eq!(s.h().counters().sent_429, 3);
    s.stop().await;
}

#[actix_web::test]
async fn latency_delays_answers() {
    let s = Sim::start().await;
    s.h().set_faults(Faults { latency_ms: 300, ..Default::default() });
    let t = std::time::Instant::now();
    assert_eq!(s.get("logistics/ItemGroups").await.status(), 200);
    assert!(t.elapsed() >= std::time::Duration::from_millis(300));
    s.stop().await;
}

#[actix_web::test]
async fn revoked_tokens_are_401_and_cannot_be_refreshed() {
    let s = Sim::start().await;
    s.h().revoke_tokens();
    assert_eq!(s.get("logistics/ItemGroups").await.status(), 401);
    s.h().advance_clock(600);
    let r =
        super::token(&s.client, s.sim.base_url(), &[("grant_type", "refresh_token"), ("refresh_token", &s.refresh)])
            .await;
    assert!(r.status() == 400 || r.status() == 401);
    s.stop().await;
}

#[actix_web::test]
async fn a_stopped_provider_drops_connections_until_started_again() {
    let s = Sim::start().await;
    s.h().set_serving(false);
    let r = s.client.get(s.url(&format!("/api/v1/{DIV}/logistics/ItemGroups"))).bearer_auth(&s.token).send().await;
    let failed = match r {
        Err(_) => true,
        Ok(resp) => resp.bytes().await.is_err(),
    };
    assert!(failed);
    s.h().set_serving(true);
    assert_eq!(s.get("logistics/ItemGroups").await.status(), 200);
    s.stop().await;
}

#[actix_web::test]
async fn the_http_control_endpoint_moves_time_sets_faults_and_reads_rows() {
    let s = Sim::start().await;
    let c = &s.client;
    let before: Value = c.get(s.url("/_sim/clock")).send().await.unwrap().json().await.unwrap();
    let after: Value =
        c.post(s.url("/_sim/clock")).json(&json!({"advance_secs": 3600})).send().await.unwrap().json().await.unwrap();
    assert!(after["now_ms"].as_i64().unwrap() - before["now_ms"].as_i64().unwrap() >= 3_600_000);
    let f: Value =
        c.put(s.url("/_sim/faults")).json(&json!({"error_500_share": 1.0})).send().await.unwrap().json().await.unwrap();
    assert_eq!(f["error_500_share"], 1.0);
    // The access token is now an hour old: sign in again for a fresh one.
    let (token, _) = super::sign_in(c, s.sim.base_url()).await;
    let r = c
        .get(s.url(&format!("/api/v1/{DIV}/logistics/ItemGroups")))
        .bearer_auth(&token)
        .header("Accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 500);
    c.put(s.url("/_sim/faults")).json(&json!({})).send().await.unwrap();
    let counters: Value = c.get(s.url("/_sim/counters")).send().await.unwrap().json().await.unwrap();
    assert_eq!(counters["sent_500"], 1);
    let rows: Value = c
        .get(s.url(&format!("/_sim/rows/{DIV}/sync/Inventory/StockPositions")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(!rows.as_array().unwrap().is_empty());
    assert!(rows[0]["CurrentStock"].is_number());
    let stats: Value = c.get(s.url("/_sim/stats")).send().await.unwrap().json().await.unwrap();
    assert!(stats["total_rows"].as_u64().unwrap() > 10_000);
    // 1,000 items plus the seven tracked ones made last (four batch materials, two serial made
    // items, one batch made item).
    assert_eq!(stats["divisions"][DIV.to_string()]["logistics/Items"], 1007);
    assert_eq!(c.post(s.url("/_sim/serving")).json(&json!({"on": false})).send().await.unwrap().status(), 204);
    assert!(c.get(s.url(&format!("/api/v1/{DIV}/logistics/ItemGroups"))).bearer_auth(&token).send().await.is_err());
    c.post(s.url("/_sim/serving")).json(&json!({"on": true})).send().await.unwrap();
    s.stop().await;
}
