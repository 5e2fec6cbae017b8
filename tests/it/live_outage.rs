//! Live reads during an Exact Online outage (issue 17): `/exact/urlDirect` and
//! `/exact/live/{table}` answer within seconds, from their last known copy marked with
//! `X-Data-As-Of` (and `responseDirect.asOf`), or `provider_unreachable` when there is none.

use crate::provider::{World, browser_sign_in, browser_sign_in_as, quick_waits};
use crate::support::TestServer;
use esm_sim::{Faults, SimOptions, Simulator};
use serde_json::Value;
use std::time::{Duration, Instant};
use stock_manager::auth::licence::Issuer;
use stock_manager::exact::Waits;
use stock_manager::exact::oauth::now_ms;
use stock_manager::server::StartOptions;

const LINES: &str = "purchaseorder/PurchaseOrderLines?$select=ID,Item,Quantity&$filter=Quantity gt 0";
/// The same read spelled another way: parameters swapped, the filter percent-encoded.
const LINES_RESPELLED: &str = "purchaseorder/PurchaseOrderLines?$filter=Quantity%20gt%200&$select=ID,Item,Quantity";
const NEVER_READ: &str = "purchaseorder/PurchaseOrders?$select=PurchaseOrderID,OrderNumber";

/// The longest any live read may take, whatever the provider does.
const BOUND: Duration = Duration::from_secs(6);

fn direct(path: &str) -> String {
    format!("/api/v1/exact/urlDirect?url={}", urlencoding::encode(path))
}

/// Status, `X-Data-As-Of`, body and how long the request took.
async fn timed(w: &World, path: &str) -> (u16, Option<i64>, Value, Duration) {
    let started = Instant::now();
    let res = w.get(path).await;
    let status = res.status().as_u16();
    let as_of = res.headers().get("x-data-as-of").map(|v| v.to_str().unwrap().parse::<i64>().unwrap());
    let body: Value = res.json().await.unwrap();
    (status, as_of, body, started.elapsed())
}

fn results(body: &Value) -> &Vec<Value> {
    body["responseDirect"]["results"].as_array().expect("results")
}

#[actix_web::test]
async fn live_reads_answer_from_their_last_known_copy_while_the_provider_is_down() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;

    // Online: fresh answers, no as-of anywhere.
    let before_lines = now_ms();
    let (status, as_of, online_lines, _) = timed(&w, &direct(LINES)).await;
    let after_lines = now_ms();
    assert_eq!(status, 200, "{online_lines}");
    assert_eq!(as_of, None);
    assert!(online_lines["responseDirect"].get("asOf").is_none(), "{online_lines}");
    assert!(!results(&online_lines).is_empty());
    let before_wh = now_ms();
    let (status, as_of, online_wh, _) = timed(&w, "/api/v1/exact/live/warehouses").await;
    let after_wh = now_ms();
    assert_eq!(status, 200, "{online_wh}");
    assert_eq!(as_of, None);
    assert!(!online_wh.as_array().unwrap().is_empty());

    w.sim.handle().set_serving(false);

    // The urlDirect read: the same rows, as of the first read.
    let (status, as_of, body, took) = timed(&w, &direct(LINES)).await;
    assert_eq!(status, 200, "{body}");
    assert!(took < BOUND, "answered in {took:?}");
    let as_of = as_of.expect("X-Data-As-Of");
    assert!((before_lines..=after_lines).contains(&as_of), "{as_of} is the time of the first read");
    assert_eq!(body["responseDirect"]["asOf"], as_of);
    assert_eq!(results(&body), results(&online_lines));
    assert!(body["responseDirect"].get("truncated").is_none(), "a read is whole or an error, never cut short");
    // Spelled another way, it is the same read.
    let (status, again, body, _) = timed(&w, &direct(LINES_RESPELLED)).await;
    assert_eq!((status, again), (200, Some(as_of)));
    assert_eq!(results(&body), results(&online_lines));

    // The live table: its cache, as of when it was fetched.
    let (status, as_of, body, took) = timed(&w, "/api/v1/exact/live/warehouses").await;
    assert_eq!(status, 200, "{body}");
    assert!(took < BOUND, "answered in {took:?}");
    let as_of = as_of.expect("X-Data-As-Of");
    assert!((before_wh..=after_wh).contains(&as_of), "{as_of} is the time of the first read");
    assert_eq!(body, online_wh);

    // A read never made before has nothing to show: the outage message, never Exact's error.
    let (status, as_of, body, took) = timed(&w, &direct(NEVER_READ)).await;
    assert_eq!(status, 503, "{body}");
    assert!(took < BOUND, "answered in {took:?}");
    assert_eq!(as_of, None);
    assert_eq!(body["error"]["code"], "provider_unreachable");
    assert_eq!(
        body["error"]["message"],
        "Exact Online cannot be reached right now: this needs Exact Online, local data and queued changes keep working"
    );

    // Back online: fresh again.
    w.sim.handle().set_serving(true);
    let (status, as_of, body, _) = timed(&w, &direct(LINES)).await;
    assert_eq!((status, as_of), (200, None), "{body}");
    assert!(body["responseDirect"].get("asOf").is_none());
    let (status, as_of, _, _) = timed(&w, "/api/v1/exact/live/warehouses").await;
    assert_eq!((status, as_of), (200, None));
    let (status, as_of, body, _) = timed(&w, &direct(NEVER_READ)).await;
    assert_eq!((status, as_of), (200, None), "{body}");
    w.stop().await;
}

#[actix_web::test]
async fn a_direct_read_kept_for_one_user_is_never_served_to_another() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let other = browser_sign_in_as(&w.server.url, Some(1)).await;
    let as_other = async |path: &str| {
        let res = w.server.client.get(w.server.at(path)).header("cookie", &other.cookie).send().await.unwrap();
        let as_of = res.headers().get("x-data-as-of").is_some();
        (res.status().as_u16(), as_of, res.json::<Value>().await.unwrap())
    };
    let (status, _, checked) = as_other("/api/v1/checkUser").await;
    assert_eq!((status, &checked["activated"]), (200, &Value::Bool(true)), "B joins the organization");
    // User A reads under their own Exact rights; user B has never made this read.
    let (status, _, a_online, _) = timed(&w, &direct(LINES)).await;
    assert_eq!(status, 200, "{a_online}");

    w.sim.handle().set_serving(false);
    let (status, _, body) = as_other(&direct(LINES)).await;
    assert_eq!(status, 503, "B is not served what A fetched: {body}");
    assert_eq!(body["error"]["code"], "provider_unreachable");
    let (status, as_of, body, _) = timed(&w, &direct(LINES)).await;
    assert_eq!((status, as_of.is_some()), (200, true), "A still has theirs: {body}");
    assert_eq!(results(&body), results(&a_online));

    // Once B made the read themselves, their own copy answers for them.
    w.sim.handle().set_serving(true);
    let (status, as_of, _) = as_other(&direct(LINES)).await;
    assert_eq!((status, as_of), (200, false));
    w.sim.handle().set_serving(false);
    let (status, as_of, _) = as_other(&direct(LINES)).await;
    assert_eq!((status, as_of), (200, true));
    w.stop().await;
}

#[actix_web::test]
async fn a_user_has_at_most_four_reads_of_exact_going_at_once() {
    use stock_manager::limits::MAX_LIVE_READS_PER_USER;
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let state = w.server.running.as_ref().unwrap().state();
    // Slow answers, and a screen asking for more reads at once than a user may have going: they
    // take turns, and every one is answered.
    w.sim.handle().set_faults(Faults { latency_ms: 300, ..Default::default() });
    let mut going = Vec::new();
    for n in 0..MAX_LIVE_READS_PER_USER + 3 {
        let req =
            w.request(reqwest::Method::GET, &direct(&format!("logistics/Items?$select=ID&$filter=Code eq 'X{n}'")));
        going.push(tokio::spawn(req.send()));
    }
    let mut most = 0;
    while !going.iter().all(|r| r.is_finished()) {
        most = most.max(state.live_reads.taken_by(&w.user));
        actix_web::rt::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(most, MAX_LIVE_READS_PER_USER, "never more at once");
    for read in going {
        let res = read.await.unwrap().unwrap();
        assert_eq!(res.status(), 200, "each is answered in its turn");
    }
    assert_eq!(state.live_reads.taken_by(&w.user), 0, "every place is free again");
    w.stop().await;
}

#[actix_web::test]
async fn a_read_whose_client_went_away_stops_and_frees_its_place() {
    use stock_manager::limits::MAX_LIVE_READS_PER_USER;
    use tokio::io::AsyncWriteExt;
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let state = w.server.running.as_ref().unwrap().state();
    let (status, _, all, _) =
        timed(&w, &direct("purchaseorder/PurchaseOrderLines?$select=ID&$filter=Quantity gt 0")).await;
    assert_eq!(status, 200, "{all}");
    let pages = results(&all).len().div_ceil(60);
    assert!(pages >= 5, "a read of several pages: {pages}");
    // Every page answers within the deadline, so a read with no copy waits for Exact to its end:
    // 1.5 s a page, far longer than the wait below.
    w.sim.handle().set_faults(Faults { latency_ms: 1500, ..Default::default() });
    let long = direct("purchaseorder/PurchaseOrderLines?$select=ID,Item&$filter=Quantity gt 0");
    let host = w.server.url.trim_start_matches("http://").to_string();
    let mut clients = Vec::new();
    for _ in 0..MAX_LIVE_READS_PER_USER {
        let mut c = tokio::net::TcpStream::connect(&host).await.expect("connect");
        let request = format!("GET {long} HTTP/1.1\r\nHost: {host}\r\nCookie: {}\r\n\r\n", w.cookie);
        c.write_all(request.as_bytes()).await.expect("send");
        clients.push(c);
    }
    let waited = Instant::now();
    while state.live_reads.taken_by(&w.user) < MAX_LIVE_READS_PER_USER {
        assert!(waited.elapsed() < Duration::from_secs(5), "the reads never started");
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    }
    // Exact is answering their pages when the clients (HTTP/1, as a handheld's browser) hang up.
    actix_web::rt::time::sleep(Duration::from_millis(2000)).await;
    drop(clients);
    let gone = Instant::now();
    while state.live_reads.taken_by(&w.user) > 0 {
        assert!(gone.elapsed() < Duration::from_secs(3), "the reads went on for nobody");
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    }
    // The places are free at once: a screen's next read is answered without waiting its turn.
    w.sim.handle().set_faults(Faults::default());
    let (status, _, _, took) = timed(&w, &direct(LINES)).await;
    assert_eq!(status, 200);
    assert!(took < Duration::from_secs(3), "{took:?}");
    w.stop().await;
}

#[actix_web::test]
async fn a_refusal_by_the_provider_is_not_answered_with_old_data() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let bad = "purchaseorder/PurchaseOrderLines?$filter=NoSuchField eq 1";
    let (status, _, body, _) = timed(&w, &direct(bad)).await;
    assert_eq!(status, 502, "the provider's own refusal, as before: {body}");
    assert_eq!(body["error"]["code"], "provider");
    // A read with a copy that Exact now refuses (the app's tokens were revoked): its refusal,
    // not the copy.
    let (status, _, _, _) = timed(&w, &direct(LINES)).await;
    assert_eq!(status, 200);
    w.sim.handle().revoke_tokens();
    let (status, as_of, body, _) = timed(&w, &direct(LINES)).await;
    assert_eq!((status, as_of), (403, None), "{body}");
    assert_eq!(body["error"]["code"], "provider_sign_in");
    // Exact refused the renewal too: the session has ended, and the next call says why.
    let (status, _, body, _) = timed(&w, "/api/v1/exact/live/employees").await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["error"]["code"], "sign_in_refused");
    w.stop().await;
}

/// A world whose server waits as in production (20 s between retries, 6 attempts): only the
/// live-read deadline can keep a read short.
async fn world_with_production_waits() -> World {
    assert!(Waits::default().read_retry > quick_waits().read_retry);
    let sim = Simulator::start(SimOptions { rate_limits: false, ..Default::default() }).await.expect("simulator");
    let issuer = Issuer::generate();
    let (base, key) = (sim.base_url().to_string(), issuer.public_key());
    let server = TestServer::start_with(
        move |c| {
            c.provider.base_url = base;
            c.provider.client_id = "demo-client".into();
            c.provider.client_secret = stock_manager::config::Secret::new("demo-secret");
            c.sync.interval_minutes = 0;
            c.sync.on_startup = false;
            c.licence.public_key = Some(key);
        },
        StartOptions { waits: Waits::default(), ..StartOptions::default() },
    )
    .await;
    let signed_in = browser_sign_in(&server.url).await;
    let division = signed_in.session["division"].as_i64().unwrap();
    let customer = signed_in.session["customer_name"].as_str().unwrap().to_string();
    let user = server.running.as_ref().unwrap().state().serverdb.org_token_user(division).unwrap().unwrap();
    let res = server
        .client
        .post(server.at("/api/v1/license/activate"))
        .header("cookie", &signed_in.cookie)
        .json(&serde_json::json!({"division": division, "customer": customer, "code": issuer.issue(division, &customer, None)}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "licence activation");
    World { sim, server, division, user, cookie: signed_in.cookie, issuer }
}

#[actix_web::test]
async fn the_deadline_bounds_a_read_whatever_the_retry_waits() {
    let w = world_with_production_waits().await;
    let (status, _, online, _) = timed(&w, &direct(LINES)).await;
    assert_eq!(status, 200, "{online}");

    w.sim.handle().set_serving(false);
    let (status, as_of, body, took) = timed(&w, &direct(LINES)).await;
    assert_eq!(status, 200, "{body}");
    assert!(as_of.is_some());
    assert!(took < BOUND, "a 20 s retry wait is cut at the deadline: {took:?}");
    assert_eq!(results(&body), results(&online));
    // Nothing kept: the live table never read and a new URL both answer the outage message.
    for path in ["/api/v1/exact/live/warehouses".to_string(), direct(NEVER_READ)] {
        let (status, _, body, took) = timed(&w, &path).await;
        assert_eq!(status, 503, "{path}: {body}");
        assert_eq!(body["error"]["code"], "provider_unreachable");
        assert!(took < BOUND, "{path}: {took:?}");
    }

    // The reads cut off left nothing behind (no rate-limiter slot, no stuck token refresh):
    // the first read after the outage is fresh and quick.
    w.sim.handle().set_serving(true);
    let (status, as_of, body, took) = timed(&w, &direct(LINES)).await;
    assert_eq!((status, as_of), (200, None), "{body}");
    assert!(took < BOUND, "{took:?}");
    let (status, as_of, _, _) = timed(&w, "/api/v1/exact/live/warehouses").await;
    assert_eq!((status, as_of), (200, None));
    w.stop().await;
}
