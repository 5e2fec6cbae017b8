//! Bounds that hold under a burst: one request cannot flood the outbox.

use crate::outbox::untracked_plans;
use crate::provider::World;
use esm_sim::SimOptions;
use reqwest::Method;
use serde_json::{Value, json};

#[actix_web::test]
async fn a_write_of_more_than_200_entries_is_refused_and_queues_nothing() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    w.sync(None).await;
    let plan = untracked_plans(&w.sim, w.division)[0]["ID"].as_str().unwrap().to_string();
    let batch: Vec<Value> = (0..201)
        .map(|_| json!({"ShopOrderMaterialPlan": plan, "Quantity": 1, "TransactionDate": "2026-11-21"}))
        .collect();
    let res = w.request(Method::POST, "/api/v1/exact/updateMaterialsIssues").json(&batch).send().await.unwrap();
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "too_many_entries", "{body}");

    let outbox: Value = w.request(Method::GET, "/api/v1/outbox").send().await.unwrap().json().await.unwrap();
    assert_eq!(outbox["entries"].as_array().map(Vec::len), Some(0), "{outbox}");
    w.server.stop().await;
}
