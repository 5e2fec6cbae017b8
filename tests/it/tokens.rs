//! Provider tokens: refresh in the last 30 s, single flight under concurrency, rotation, a
//! revoked token reported as not authorized, and syncs that outlive many tokens.

use crate::provider::World;
use esm_sim::{Counters, SimOptions};
use stock_manager::exact::oauth::now_ms;
use stock_manager::exact::tokens::UserToken;
use stock_manager::exact::{ExactError, catalogue};

#[actix_web::test]
async fn concurrent_callers_refresh_once_and_share_the_new_token() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let state = w.server.running.as_ref().unwrap().state();
    let mut stored = state
        .serverdb
        .get_json::<stock_manager::exact::oauth::TokenSet>(stock_manager::serverdb::TOKENS, &w.user)
        .unwrap()
        .unwrap();
    let old_access = stored.access_token.clone();
    // Into the last 30 s locally, and past the provider's 570 s rule on its clock.
    stored.expires_at_ms = now_ms() + 10_000;
    state.tokens.store(&w.user, &stored).unwrap();
    w.sim.handle().advance_clock(580);
    let before = w.sim.handle().counters().token_calls;
    let calls = (0..8).map(|_| state.tokens.access_token(&w.user));
    let results = futures_util::future::join_all(calls).await;
    let tokens: Vec<String> = results.into_iter().map(|r| r.expect("refreshed")).collect();
    assert!(tokens.iter().all(|t| *t == tokens[0]), "everyone got the same new token");
    assert_ne!(tokens[0], old_access);
    assert_eq!(w.sim.handle().counters().token_calls - before, 1, "exactly one refresh reached the provider");
    // The new token works.
    let me = state.exact.me(&tokens[0]).await.expect("new token accepted");
    assert_eq!(me["UserID"].as_str(), Some(w.user.as_str()));
    w.stop().await;
}

#[actix_web::test]
async fn revoked_tokens_report_not_authorized_and_break_nothing() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let first = w.sync(Some(vec!["items"])).await;
    let rows = first["tables"]["items"]["rows"].as_u64().unwrap();
    w.sim.handle().revoke_tokens();
    let state = w.server.running.as_ref().unwrap().state();
    let token = state.tokens.access_token(&w.user).await.unwrap();
    match state.exact.me(&token).await {
        Err(ExactError::Unauthorized(_)) => {}
        other => panic!("expected unauthorized, got {other:?}"),
    }
    let res = w.post_json("/api/v1/sync", serde_json::json!({"endpoints": ["items"]})).await;
    match res.status().as_u16() {
        202 => {
            let started = std::time::Instant::now();
            while state.sync.is_running(w.division) {
                assert!(started.elapsed() < std::time::Duration::from_secs(60), "the sync ends");
                actix_web::rt::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            let report = state.sync.last_report(w.division).expect("the sync's report");
            let err = report.tables["items"].error.clone().unwrap_or_default().to_lowercase();
            assert!(
                err.contains("refused the token") || err.contains("authorized"),
                "not authorized is reported: {err}"
            );
        }
        // the background renewal met Exact's refusal first (a busy machine): no sign-in serves
        // the organization any more, which the sync start says at once
        403 => {
            let body: serde_json::Value = res.json().await.unwrap();
            assert_eq!(body["error"]["code"], "provider_sign_in", "{body}");
        }
        other => panic!("a sync start answers 202, or 403 once the refusal is known: {other}"),
    }
    let store = state.stores.get(w.division).unwrap();
    assert_eq!(store.row_count("items").unwrap(), rows, "the local copy is intact");
    // Exact refused the renewal too: the user's session has ended, and says why.
    let res = w.get("/api/v1/auth/session").await;
    assert_eq!(res.status(), 401);
    assert_eq!(res.json::<serde_json::Value>().await.unwrap()["error"]["code"], "sign_in_refused");
    w.stop().await;
}

/// Simulated seconds per real second for the long runs below: Exact's minute windows and token
/// lifetimes pass this much faster while the server waits every wait it would wait for real.
/// (A whole sync at scale medium takes the debug build about two minutes of its own work, which
/// no clock speeds up: that run is `scripts/load --scale medium --token-lifetime 30`.)
const SPEED: u32 = 20;

/// The default selection's tables that the simulator serves (the catalogue may name a table
/// before the simulator has it).
fn served_tables() -> Vec<&'static str> {
    catalogue::default_selection()
        .into_iter()
        .filter(|t| {
            catalogue::by_table(t)
                .and_then(|e| e.sync_path)
                .is_some_and(|p| stock_manager::exact::schema::entity(&format!("sync/{p}")).is_some())
        })
        .collect()
}

/// Runs a sync of every served table and answers its status, the simulated milliseconds it
/// took, and the simulator's counters before and after.
async fn timed_sync(w: &World) -> (serde_json::Value, i64, Counters, Counters) {
    let (before, started) = (w.sim.handle().counters(), w.sim.handle().now_ms());
    let status = w.sync(Some(served_tables())).await;
    (status, w.sim.handle().now_ms() - started, before, w.sim.handle().counters())
}

fn assert_no_table_error(status: &serde_json::Value) {
    let tables = status["tables"].as_object().expect("tables");
    for table in served_tables() {
        assert!(tables.contains_key(table), "{table} was synced: {status}");
    }
    for (table, outcome) in tables {
        assert!(outcome["error"].is_null(), "{table}: {}", outcome["error"]);
    }
}

#[actix_web::test]
async fn the_small_demo_syncs_twice_in_a_row_with_20_second_tokens() {
    let options = SimOptions { clock_speed: SPEED, ..Default::default() };
    let w = World::start_on_sim_time(options, 20).await;
    // Every answer takes 100 ms (2 simulated s), so a sync outlives its first token however fast
    // this machine is: without it a quick run took 19.4 simulated s, under the token's 20.
    w.sim.handle().set_faults(esm_sim::Faults { latency_ms: 100, ..Default::default() });
    for run in 0..2 {
        let (status, took_ms, before, after) = timed_sync(&w).await;
        assert_no_table_error(&status);
        eprintln!(
            "small demo run {run}, 20 s tokens: {} calls, {} token calls, {} refused tokens in {} simulated s",
            after.calls - before.calls,
            after.token_calls - before.token_calls,
            after.sent_401 - before.sent_401,
            took_ms / 1000
        );
        if run == 0 {
            assert!(took_ms > 20_000, "the first sync outlived its first token: {took_ms} ms");
        }
    }
    w.stop().await;
}

#[actix_web::test]
async fn a_token_exact_refuses_is_renewed_and_the_call_sent_once_more() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let state = w.server.running.as_ref().unwrap().state();
    let stale = state.tokens.access_token(&w.user).await.unwrap();
    // Exact's clock is ahead: the stored token looks valid here but has expired there.
    w.sim.handle().advance_clock(700);
    let before = w.sim.handle().counters();
    let user = UserToken::new(state.tokens.clone(), w.user.clone());
    let me = state.exact.me(&user).await.expect("sent again with a renewed token");
    assert_eq!(me["UserID"].as_str(), Some(w.user.as_str()));
    let after = w.sim.handle().counters();
    assert_eq!((after.sent_401 - before.sent_401, after.token_calls - before.token_calls), (1, 1));
    // A token given as it is goes out as it is.
    match state.exact.me(&stale).await {
        Err(ExactError::Unauthorized(_)) => {}
        other => panic!("expected unauthorized, got {other:?}"),
    }
    // Refused again after the renewal (the app was revoked): that refusal is the answer.
    w.sim.handle().revoke_tokens();
    match state.exact.me(&user).await {
        Err(ExactError::Unauthorized(_)) => {}
        other => panic!("expected unauthorized, got {other:?}"),
    }
    w.stop().await;
}

#[actix_web::test]
async fn a_page_that_waits_out_an_outage_longer_than_its_token_goes_on_with_a_renewed_one() {
    let options = SimOptions { clock_speed: SPEED, ..Default::default() };
    let w = World::start_on_sim_time(options, 40).await;
    w.sim.handle().set_serving(false);
    let res = w.post_json("/api/v1/sync", serde_json::json!({"endpoints": ["items"]})).await;
    assert_eq!(res.status(), 202);
    // Exact is away for a simulated minute: longer than the token lives, shorter than the tries
    // of one page (six, 20 s apart).
    actix_web::rt::time::sleep(std::time::Duration::from_millis(60_000 / u64::from(SPEED))).await;
    w.sim.handle().set_serving(true);
    let status = w.wait_for_sync().await;
    let items = &status["tables"]["items"];
    assert!(items["error"].is_null(), "{status}");
    assert!(items["rows"].as_u64().is_some_and(|n| n > 0), "{status}");
    w.stop().await;
}
