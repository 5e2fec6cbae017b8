//! The sync interval of Global Settings: saved with the organization's preferences where the
//! background schedule reads it at every check (the schedule itself is tested with paused time in
//! `sync::schedule`), and refused when it is no interval.

use crate::provider::World;
use esm_sim::SimOptions;
use reqwest::Method;
use serde_json::{Value, json};
use std::time::Duration;
use stock_manager::sync::schedule::interval_preference;

#[actix_web::test]
async fn the_sync_interval_preference_is_what_the_schedule_reads() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let details: Value = w.get("/api/v1/organizationDetails").await.json().await.unwrap();
    let state = w.server.running.as_ref().unwrap().state();
    let store = state.stores.get(w.division).unwrap();
    let scheduled = || interval_preference(&store.org_details().unwrap().unwrap().preferences);
    assert_eq!(scheduled(), None, "nothing set: the config's interval applies");

    let save = |minutes: Value| {
        let mut org = details.clone();
        org["preferences"]["sync_interval_minutes"] = minutes;
        w.request(Method::PUT, "/api/v1/updateOrganizationPreferences").json(&org).send()
    };
    assert_eq!(save(json!(5)).await.unwrap().status(), 200);
    assert_eq!(scheduled(), Some(Duration::from_secs(5 * 60)));
    assert_eq!(save(json!(0)).await.unwrap().status(), 200);
    assert_eq!(scheduled(), Some(Duration::ZERO), "0 turns the schedule off");
    for bad in [json!(-1), json!(1441), json!(2.5), json!("often")] {
        let res = save(bad.clone()).await.unwrap();
        assert_eq!(res.status(), 400, "{bad}");
        let body: Value = res.json().await.unwrap();
        assert!(body["error"]["message"].as_str().unwrap().contains("sync_interval_minutes"), "{body}");
    }
    assert_eq!(scheduled(), Some(Duration::ZERO), "a refused value changes nothing");
    w.stop().await;
}
