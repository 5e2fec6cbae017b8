//! Provider tokens: refresh in the last 30 s, single flight under concurrency, rotation, and a
//! revoked token reported as not authorized.

use crate::provider::World;
use stock_manager::exact::ExactError;
use stock_manager::exact::oauth::now_ms;
use stock_manager::sim::SimOptions;

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
    let second = w.sync(Some(vec!["items"])).await;
    let err = second["tables"]["items"]["error"].as_str().unwrap_or_default().to_lowercase();
    assert!(err.contains("refused the token") || err.contains("authorized"), "not authorized is reported: {second}");
    assert_eq!(second["tables"]["items"]["rows"].as_u64(), Some(rows), "the local copy is intact");
    w.stop().await;
}
