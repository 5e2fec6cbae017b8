//! Sign-in, sessions, tiers and licences against the simulator, through HTTP as a browser would.

use crate::provider::{World, approve, browser_sign_in, browser_sign_in_as, server_for, set_cookie};
use crate::support::{TestServer, client, test_config};
use esm_sim::{SimOptions, Simulator};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use stock_manager::auth::licence::Issuer;
use stock_manager::server::{self, StartOptions};

fn sim_options() -> SimOptions {
    SimOptions { rate_limits: false, ..Default::default() }
}

async fn call(
    server: &TestServer,
    method: Method,
    path: &str,
    cookie: Option<&str>,
    body: Option<Value>,
) -> reqwest::Response {
    let mut req = server.client.request(method, server.at(path));
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    if let Some(b) = body {
        req = req.json(&b);
    }
    req.send().await.unwrap()
}

async fn json_of(res: reqwest::Response) -> Value {
    res.json().await.unwrap()
}

/// The path of a route with its parameters filled in.
fn concrete(path: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        out.push_str("items");
        rest = rest[i..].split_once('}').map_or("", |(_, r)| r);
    }
    out.push_str(rest);
    format!("/api/v1{out}")
}

#[actix_web::test]
async fn every_route_below_public_refuses_without_a_session_and_below_its_tier() {
    use stock_manager::auth::tier::Tier;
    let sim = Simulator::start(sim_options()).await.unwrap();
    let issuer = Issuer::generate();
    let server = server_for(&sim, &issuer, |_| {}).await;
    // Signed in but not activated: the signed-in tier.
    let signed_in = browser_sign_in(&server.url).await;
    assert_eq!(signed_in.session["tier"], "signedIn");
    let table = stock_manager::api::route_table();
    assert!(table.iter().filter(|r| r.tier == Tier::Full).count() >= 8, "the table is the mounted one: {table:?}");
    for route in &table {
        let path = concrete(route.path);
        for method in [Method::GET, Method::POST, Method::PUT, Method::DELETE] {
            let anonymous = call(&server, method.clone(), &path, None, None).await.status();
            let forged = call(&server, method.clone(), &path, Some("esm_session=forged"), None).await.status();
            if route.tier == Tier::Public {
                assert!(!matches!(anonymous.as_u16(), 401 | 403) || path.ends_with("/auth/refresh"), "{method} {path}");
                continue;
            }
            let below = call(&server, method.clone(), &path, Some(&signed_in.cookie), None).await.status();
            assert_eq!(anonymous, StatusCode::UNAUTHORIZED, "{method} {path} without a session");
            assert_eq!(forged, StatusCode::UNAUTHORIZED, "{method} {path} with a forged cookie");
            if route.tier >= Tier::Full {
                assert_eq!(below, StatusCode::FORBIDDEN, "{method} {path} below full access");
            } else {
                assert!(!matches!(below.as_u16(), 401 | 403), "{method} {path} signed in: {below}");
            }
        }
    }
    // Unknown API paths are not a way around the guard either.
    assert_eq!(call(&server, Method::GET, "/api/v1/db", None, None).await.status(), 404);
    server.stop().await;
    sim.stop().await;
}

#[actix_web::test]
async fn sign_in_sets_a_safe_cookie_and_the_session_reports_the_organization() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    let issuer = Issuer::generate();
    let server = server_for(&sim, &issuer, |c| {
        c.sync.interval_minutes = 45;
        c.time_zone = "Europe/London".into();
    })
    .await;
    let anonymous = json_of(call(&server, Method::GET, "/api/v1/auth/session", None, None).await).await;
    assert_eq!(anonymous["tier"], "public");
    // Global Settings shows the server's interval for organizations that set none.
    assert_eq!(anonymous["syncIntervalDefault"], 45);
    assert_eq!(anonymous["organizationDetails"]["uuid"], "notInitialized");
    assert_eq!(anonymous["organizationDetails"]["division"], -1);
    // Links to Exact's pages go to the configured country host.
    assert_eq!(anonymous["exactHost"], sim.base_url().trim_end_matches('/'));
    // Server times and "today" are shown in the configured time zone.
    assert_eq!(anonymous["timeZone"], "Europe/London");

    let login = call(&server, Method::GET, "/api/v1/auth/login?returnTo=/planning", None, None).await;
    assert_eq!(login.status(), 302);
    let set = login.headers().get_all("set-cookie").iter().map(|v| v.to_str().unwrap().to_string()).collect::<Vec<_>>();
    let state_cookie = set.iter().find(|c| c.starts_with("esm_login=")).expect("state cookie");
    for flag in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(state_cookie.contains(flag), "{state_cookie}");
    }
    let location = login.headers()["location"].to_str().unwrap().to_string();
    assert!(location.starts_with(&format!("{}/api/oauth2/auth?", sim.base_url())), "{location}");
    assert!(location.contains(&format!("redirect_uri={}", urlencoding::encode(&format!("{}/callback", server.url)))));

    let back = approve(&location).await;
    let nonce = set_cookie(&login, "esm_login").unwrap();
    let code = back.query_pairs().find(|(k, _)| k == "code").unwrap().1.into_owned();
    let state = back.query_pairs().find(|(k, _)| k == "state").unwrap().1.into_owned();
    // Login CSRF: the right state from another browser (no or another login cookie) is refused.
    let body = json!({"code": code, "state": state});
    for cookie in [None, Some("esm_login=someone-else")] {
        let res = call(&server, Method::POST, "/api/v1/auth/authorize", cookie, Some(body.clone())).await;
        assert_eq!(res.status(), 400);
        assert_eq!(json_of(res).await["error"]["code"], "login_state");
    }
    let res =
        call(&server, Method::POST, "/api/v1/auth/authorize", Some(&format!("esm_login={nonce}")), Some(body.clone()))
            .await;
    assert_eq!(res.status(), 200);
    let session_cookie = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .find(|c| c.starts_with("esm_session="))
        .expect("session cookie");
    for flag in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(session_cookie.contains(flag), "{session_cookie}");
    }
    assert!(!session_cookie.contains("Secure"), "plain http: no Secure flag");
    let cookie = format!("esm_session={}", set_cookie(&res, "esm_session").unwrap());
    let session = json_of(res).await;
    assert_eq!(session["tier"], "signedIn");
    assert_eq!(session["registered"], false, "the registered flag starts false");
    assert_eq!(session["returnTo"], "/planning");
    assert_eq!(session["division"], 3154102);
    assert_eq!(session["customer_name"], "Van Dijk Machinebouw B.V.");
    assert_eq!(session["userName"], "demo@vandijk-machinebouw.nl");
    assert_eq!(session["divisions"].as_array().map(Vec::len), Some(2));
    assert!(session["tokenExpiresAt"].as_i64().unwrap() > 0);
    assert_eq!(session["organizationDetails"]["division"], 3154102);
    assert_eq!(session["organizationDetails"]["sync_timestamps"]["items"], 1);
    assert_eq!(session["organizationDetails"]["preferences"]["weekends_disabled"], false);
    assert!(session.to_string().find("access_token").is_none(), "no provider token in the answer");
    // The state was single-use.
    let again =
        call(&server, Method::POST, "/api/v1/auth/authorize", Some(&format!("esm_login={nonce}")), Some(body)).await;
    assert_eq!(again.status(), 400);

    // Organization calls of the signed-in tier.
    let current = json_of(call(&server, Method::GET, "/api/v1/exact/current", Some(&cookie), None).await).await;
    assert_eq!(current["division"], 3154102);
    assert_eq!(current["customer_name"], "Van Dijk Machinebouw B.V.");
    let details = json_of(call(&server, Method::GET, "/api/v1/exact/divisionDetails", Some(&cookie), None).await).await;
    assert_eq!(details["division"], 3154102);
    assert_eq!(details["division_description"], "Van Dijk Machinebouw B.V.");
    let check = json_of(call(&server, Method::GET, "/api/v1/checkUser", Some(&cookie), None).await).await;
    assert_eq!(check["activated"], false);
    assert!(check["token"]["expires_at"].as_i64().is_some());

    // Activation completes the login process: full access.
    let code = issuer.issue(3154102, "Van Dijk Machinebouw B.V.", None);
    let body = json!({"division": 3154102, "customer": "Van Dijk Machinebouw B.V.", "code": code});
    let res = call(&server, Method::POST, "/api/v1/license/activate", Some(&cookie), Some(body)).await;
    assert_eq!(res.status(), 200);
    assert_eq!(json_of(res).await["activated"], true);
    let session = json_of(call(&server, Method::GET, "/api/v1/auth/session", Some(&cookie), None).await).await;
    assert_eq!(session["tier"], "full");
    assert_eq!(call(&server, Method::GET, "/api/v1/sync", Some(&cookie), None).await.status(), 200);

    // Logout ends the session and drops the user's provider tokens.
    let user = server.running.as_ref().unwrap().state().serverdb.org_token_user(3154102).unwrap().unwrap();
    let res = call(&server, Method::POST, "/api/v1/auth/logout", Some(&cookie), None).await;
    assert_eq!(res.status(), 204);
    let session = json_of(call(&server, Method::GET, "/api/v1/auth/session", Some(&cookie), None).await).await;
    assert_eq!(session["tier"], "public");
    assert_eq!(call(&server, Method::GET, "/api/v1/sync", Some(&cookie), None).await.status(), 401);
    let state = server.running.as_ref().unwrap().state();
    assert!(state.tokens.expiry_ms(&user).is_none(), "tokens dropped with the last session");
    assert!(state.serverdb.org_users(3154102).unwrap().is_empty(), "no longer an account of the organization");
    server.stop().await;
    sim.stop().await;
}

#[actix_web::test]
async fn https_public_url_marks_cookies_secure() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    let issuer = Issuer::generate();
    let server = server_for(&sim, &issuer, |c| c.public_url = Some("https://esm.factory.lan".into())).await;
    let login = call(&server, Method::GET, "/api/v1/auth/login", None, None).await;
    let cookie = login.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.contains("Secure"), "{cookie}");
    let location = login.headers()["location"].to_str().unwrap();
    assert!(location.contains(&urlencoding::encode("https://esm.factory.lan/callback").into_owned()), "{location}");
    server.stop().await;
    sim.stop().await;
}

#[actix_web::test]
async fn sessions_survive_a_restart() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = || {
        let mut c = test_config(&dir);
        c.provider.base_url = sim.base_url().to_string();
        c.provider.client_id = "demo-client".into();
        c.provider.client_secret = stock_manager::config::Secret::new("demo-secret");
        c.sync.on_startup = false;
        c.sync.interval_minutes = 0;
        c
    };
    stock_manager::tls::install_crypto_provider();
    let first = server::start(config(), StartOptions::default()).await.unwrap();
    let signed_in = browser_sign_in(&first.url).await;
    first.stop(true).await.unwrap();
    let second = server::start(config(), StartOptions::default()).await.unwrap();
    let res = client()
        .get(format!("{}/api/v1/auth/session", second.url))
        .header("cookie", &signed_in.cookie)
        .send()
        .await
        .unwrap();
    let session: Value = res.json().await.unwrap();
    assert_eq!(session["tier"], "signedIn");
    assert_eq!(session["division"], 3154102);
    second.stop(true).await.unwrap();
    sim.stop().await;
}

/// The code of a refusal's JSON body.
async fn code_of(res: reqwest::Response) -> String {
    json_of(res).await["error"]["code"].as_str().unwrap_or_default().to_string()
}

#[actix_web::test]
async fn a_user_exact_refuses_is_signed_out_everywhere_and_others_stay() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    // Tokens that need renewal after one second.
    sim.handle().set_token_lifetime(31);
    let server = server_for(&sim, &Issuer::generate(), |_| {}).await;
    let kept = browser_sign_in_as(&server.url, Some(0)).await;
    let removed = browser_sign_in_as(&server.url, Some(1)).await;
    let second_device = browser_sign_in_as(&server.url, Some(1)).await;
    actix_web::rt::time::sleep(std::time::Duration::from_millis(1200)).await;
    // An administrator removes user 1 from the company in Exact.
    sim.handle().revoke_user(1);

    let res = call(&server, Method::POST, "/api/v1/auth/refresh", Some(&removed.cookie), None).await;
    assert_eq!(res.status(), 401, "the refusal ends the session");
    assert!(set_cookie(&res, "esm_session").is_some_and(|v| v.is_empty()), "the browser forgets the cookie");
    assert_eq!(code_of(res).await, "sign_in_refused");
    // The user's other device is signed out too, and hears why once.
    let res = call(&server, Method::GET, "/api/v1/checkUser", Some(&second_device.cookie), None).await;
    assert_eq!((res.status().as_u16(), code_of(res).await.as_str()), (401, "sign_in_refused"));
    let res = call(&server, Method::GET, "/api/v1/checkUser", Some(&second_device.cookie), None).await;
    assert_eq!(code_of(res).await, "not_authorized");
    // Another user of the same company goes on.
    let res = call(&server, Method::POST, "/api/v1/auth/refresh", Some(&kept.cookie), None).await;
    assert_eq!(res.status(), 200);
    assert_eq!(json_of(res).await["providerAccess"], "ok");
    // Access given back in Exact: a new sign-in works as ever.
    let again = browser_sign_in_as(&server.url, Some(1)).await;
    let session = json_of(call(&server, Method::GET, "/api/v1/auth/session", Some(&again.cookie), None).await).await;
    assert_eq!((session["tier"].as_str(), session["providerAccess"].as_str()), (Some("signedIn"), Some("ok")));
    server.stop().await;
    sim.stop().await;
}

#[actix_web::test]
async fn a_refused_user_is_signed_out_without_a_request_of_theirs() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    sim.handle().set_token_lifetime(31);
    let server = server_for(&sim, &Issuer::generate(), |_| {}).await;
    let removed = browser_sign_in_as(&server.url, Some(1)).await;
    let user_name = removed.session["userName"].as_str().expect("user name").to_string();
    sim.handle().revoke_user(1);
    // Nobody calls: the background renewal every token goes through before it expires hears the
    // refusal (with Exact's 10-minute tokens, within 10 minutes; here the token is due at once).
    let sessions = &server.running.as_ref().unwrap().state().auth.sessions;
    let started = std::time::Instant::now();
    loop {
        let now = stock_manager::exact::oauth::now_ms();
        let left = sessions.live_records(now).unwrap();
        if !left.iter().any(|r| r.user_name == user_name) {
            break;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "signed out by the renewal");
        actix_web::rt::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let res = call(&server, Method::GET, "/api/v1/auth/session", Some(&removed.cookie), None).await;
    assert_eq!((res.status().as_u16(), code_of(res).await.as_str()), (401, "sign_in_refused"));
    server.stop().await;
    sim.stop().await;
}

#[actix_web::test]
async fn an_outage_signs_nobody_out_even_a_user_exact_refuses_meanwhile() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    sim.handle().set_token_lifetime(31);
    let server = server_for(&sim, &Issuer::generate(), |_| {}).await;
    let removed = browser_sign_in_as(&server.url, Some(1)).await;
    actix_web::rt::time::sleep(std::time::Duration::from_millis(1200)).await;
    sim.handle().set_serving(false);
    sim.handle().revoke_user(1);
    // Exact cannot be reached: nothing tells a refusal from an outage, so the session holds.
    let res = call(&server, Method::POST, "/api/v1/auth/refresh", Some(&removed.cookie), None).await;
    assert_eq!(res.status(), 200, "an outage ends no session");
    assert_eq!(json_of(res).await["providerAccess"], "ok");
    assert_eq!(call(&server, Method::GET, "/api/v1/checkUser", Some(&removed.cookie), None).await.status(), 200);
    // Exact answers again, and says no.
    sim.handle().set_serving(true);
    let res = call(&server, Method::POST, "/api/v1/auth/refresh", Some(&removed.cookie), None).await;
    assert_eq!((res.status().as_u16(), code_of(res).await.as_str()), (401, "sign_in_refused"));
    server.stop().await;
    sim.stop().await;
}

#[actix_web::test]
async fn a_flood_of_sign_in_starts_from_one_address_pushes_out_no_real_sign_in() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    // The flood comes through the trusted proxy (so it has an address of its own); the real
    // browser straight from loopback.
    let server = server_for(&sim, &Issuer::generate(), |c| c.server.trusted_proxies = vec!["127.0.0.1".into()]).await;
    // A real user starts signing in, and is at Exact's page when the flood begins.
    let real = server.client.get(server.at("/api/v1/auth/login")).send().await.unwrap();
    assert_eq!(real.status(), 302);
    let nonce = set_cookie(&real, "esm_login").expect("login cookie");
    let to_exact = real.headers()["location"].to_str().unwrap().to_string();

    let mut statuses = Vec::new();
    for _ in 0..1001 {
        let res = server
            .client
            .get(server.at("/api/v1/auth/login"))
            .header("x-forwarded-for", "203.0.113.9")
            .send()
            .await
            .unwrap();
        if res.status() == 429 {
            assert!(res.headers().contains_key("retry-after"), "the flood is told when to come back");
        }
        statuses.push(res.status().as_u16());
    }
    let started = statuses.iter().filter(|s| **s == 302).count();
    assert_eq!(started, stock_manager::limits::MAX_PENDING_LOGINS_PER_ADDRESS);
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 1001 - started);

    // The real sign-in comes back and completes.
    let back = approve(&to_exact).await;
    let code = crate::provider::query(&back, "code").expect("code");
    let state = crate::provider::query(&back, "state").expect("state");
    let res = server
        .client
        .post(server.at("/api/v1/auth/authorize"))
        .header("cookie", format!("esm_login={nonce}"))
        .json(&json!({"code": code, "state": state}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "the real sign-in completes");
    assert!(set_cookie(&res, "esm_session").is_some_and(|v| !v.is_empty()));
    // Someone else still starts a sign-in at once.
    let other = server.client.get(server.at("/api/v1/auth/login")).send().await.unwrap();
    assert_eq!(other.status(), 302);
    server.stop().await;
    sim.stop().await;
}

#[actix_web::test]
async fn a_session_the_server_cannot_read_any_more_is_a_critical_error_once() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    let server = server_for(&sim, &Issuer::generate(), |_| {}).await;
    let first = browser_sign_in(&server.url).await;
    let second = browser_sign_in(&server.url).await;
    // Both records turn into something no version of the server wrote (damage, or a downgrade).
    let db = &server.running.as_ref().unwrap().state().serverdb;
    use stock_manager::serverdb::SESSIONS;
    for (key, _) in db.all_json::<Value>(SESSIONS).unwrap() {
        db.put_json(SESSIONS, &key, &json!({ "user": 7, "division": "x" })).unwrap();
    }

    let res = call(&server, Method::GET, "/api/v1/checkUser", Some(&first.cookie), None).await;
    assert_eq!(res.status(), 401, "not a 500 on every call");
    let body = json_of(res).await;
    assert_eq!(body["error"]["code"], "critical");
    assert_eq!(body["error"]["message"], "A CRITICAL error occurred, you will be returned to the login screen");
    let res = call(&server, Method::GET, "/api/v1/checkUser", Some(&first.cookie), None).await;
    assert_eq!(json_of(res).await["error"]["code"], "not_authorized", "said once: the record is gone");

    // The session check says it too, and tells the browser to forget the cookie.
    let res = call(&server, Method::GET, "/api/v1/auth/session", Some(&second.cookie), None).await;
    assert_eq!(res.status(), 401);
    assert!(set_cookie(&res, "esm_session").is_some_and(|v| v.is_empty()), "the cookie is removed");
    assert_eq!(json_of(res).await["error"]["code"], "critical");
    let session = json_of(call(&server, Method::GET, "/api/v1/auth/session", Some(&second.cookie), None).await).await;
    assert_eq!(session["tier"], "public");

    // Signing in again works as ever.
    let again = browser_sign_in(&server.url).await;
    assert_eq!(call(&server, Method::GET, "/api/v1/checkUser", Some(&again.cookie), None).await.status(), 200);
    server.stop().await;
    sim.stop().await;
}

#[actix_web::test]
async fn licence_codes_are_checked_and_guessing_is_throttled() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    let issuer = Issuer::generate();
    let server = server_for(&sim, &issuer, |_| {}).await;
    let s = browser_sign_in(&server.url).await;
    let activate = |code: String, division: i64| {
        let body = json!({"division": division, "customer": "Van Dijk Machinebouw B.V.", "code": code});
        call(&server, Method::POST, "/api/v1/license/activate", Some(&s.cookie), Some(body))
    };
    let expired = issuer.issue(3154102, "Van Dijk Machinebouw B.V.", chrono::NaiveDate::from_ymd_opt(2020, 1, 31));
    let other = issuer.issue(3154117, "Van Dijk Machinebouw B.V.", None);
    let foreign = Issuer::generate().issue(3154102, "Van Dijk Machinebouw B.V.", None);
    for (code, says) in [
        (expired, "expired on 2020-01-31"),
        (other, "for division 3154117"),
        (foreign, "not issued by the vendor"),
        ("ESM1.garbage".to_string(), "not a valid licence code"),
    ] {
        let res = activate(code, 3154102).await;
        assert_eq!(res.status(), 400);
        let body = json_of(res).await;
        assert_eq!(body["error"]["code"], "licence_invalid");
        assert!(body["error"]["message"].as_str().unwrap().contains(says), "{body}");
    }
    // Another organization's division in the body is refused outright.
    assert_eq!(activate(issuer.issue(3154117, "x", None), 3154117).await.status(), 403);
    // The fifth failure uses up the window: even the right code waits now.
    assert_eq!(activate("wrong".into(), 3154102).await.status(), 400);
    let res = activate(issuer.issue(3154102, "Van Dijk Machinebouw B.V.", None), 3154102).await;
    assert_eq!(res.status(), 429);
    assert!(json_of(res).await["error"]["message"].as_str().unwrap().contains("wait"));
    server.stop().await;
    sim.stop().await;
}

#[actix_web::test]
async fn one_organization_never_reaches_another() {
    let w = World::start(sim_options()).await;
    w.sync(Some(vec!["projects"])).await;
    let a_rows = json_of(w.get("/api/v1/db/projects").await).await;
    assert!(!a_rows.as_array().unwrap().is_empty());
    let details = json_of(w.get("/api/v1/organizationDetails").await).await;
    let uuid = details["uuid"].as_str().unwrap().to_string();
    assert_eq!(details["division"], w.division);
    assert!(details["sync_timestamps"]["projects"].as_i64().unwrap() > 1);

    // Switch to the user's other division: not activated there, so no data access.
    let res = w.post_json("/api/v1/auth/division", json!({"division": 3154117})).await;
    assert_eq!(res.status(), 200);
    let b = json_of(res).await;
    assert_eq!(b["tier"], "signedIn");
    assert_eq!(b["division"], 3154117);
    assert_ne!(b["organizationDetails"]["uuid"], uuid.as_str());
    assert_eq!(w.get("/api/v1/db/projects").await.status(), 403);
    // Writes naming organization A are refused from B's session.
    let res = w
        .request(Method::PUT, "/api/v1/updatePreferences")
        .json(&json!({"uuid": uuid, "preferences": {}}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    // Activate B: its store is its own, empty until synced.
    let code = w.issuer.issue(3154117, "Van Dijk Machinebouw B.V.", None);
    let res = w.post_json("/api/v1/license/activate", json!({"division": 3154117, "code": code})).await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    let b_rows = json_of(w.get("/api/v1/db/projects").await).await;
    assert_eq!(b_rows, json!([]), "B never sees A's rows");
    // A division the user has no access to cannot be switched to.
    assert_eq!(w.post_json("/api/v1/auth/division", json!({"division": 999})).await.status(), 403);
    w.stop().await;
}

#[actix_web::test]
async fn preferences_timestamps_and_permissions_are_saved_for_the_session_organization() {
    let w = World::start(sim_options()).await;
    let details = json_of(w.get("/api/v1/organizationDetails").await).await;
    let uuid = details["uuid"].as_str().unwrap().to_string();
    let put = |path: &'static str, body: Value| w.request(Method::PUT, path).json(&body).send();

    let res = put("/api/v1/updatePreferences", json!({"uuid": uuid, "preferences": {"theme": "dark"}})).await.unwrap();
    assert_eq!(res.status(), 200);
    let session = json_of(w.get("/api/v1/auth/session").await).await;
    assert_eq!(session["userPreferences"]["theme"], "dark");

    let mut org = details.clone();
    org["preferences"]["weekends_disabled"] = json!(true);
    let res = put("/api/v1/updateOrganizationPreferences", org).await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(json_of(res).await["preferences"]["weekends_disabled"], true);

    w.sync(Some(vec!["projects"])).await;
    let mut org = json_of(w.get("/api/v1/organizationDetails").await).await;
    org["sync_timestamps"]["projects"] = json!(1);
    let res = put("/api/v1/updateOrganizationSyncTimestamps", org).await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(json_of(res).await["sync_timestamps"]["projects"], 1);
    let mut bad = details.clone();
    bad["sync_timestamps"]["nonsense"] = json!(5);
    assert_eq!(put("/api/v1/updateOrganizationSyncTimestamps", bad).await.unwrap().status(), 400);

    let perms = json!({"organization_id": uuid, "data": [{"user": "demo", "can": ["labels"]}]});
    assert_eq!(put("/api/v1/db/userPermissions", perms).await.unwrap().status(), 200);
    let saved = json_of(w.get("/api/v1/db/userPermissions").await).await;
    assert_eq!(saved["data"][0]["can"][0], "labels");
    let other = json!({"organization_id": "another-org", "data": []});
    assert_eq!(put("/api/v1/db/userPermissions", other).await.unwrap().status(), 403);
    w.stop().await;
}

#[actix_web::test]
async fn import_data_needs_a_fresh_re_authentication() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    let issuer = Issuer::generate();
    let server = server_for(&sim, &issuer, |c| c.admin.password = stock_manager::config::Secret::new("letmein")).await;
    let s = browser_sign_in(&server.url).await;
    assert!(s.session["importDataUntil"].is_null());
    let wrong =
        call(&server, Method::POST, "/api/v1/auth/reauth", Some(&s.cookie), Some(json!({"password": "nope"}))).await;
    assert_eq!(wrong.status(), 401);
    let right =
        call(&server, Method::POST, "/api/v1/auth/reauth", Some(&s.cookie), Some(json!({"password": "letmein"}))).await;
    assert_eq!(right.status(), 200);
    let until = json_of(right).await["importDataUntil"].as_i64().unwrap();
    assert!(until > stock_manager::exact::oauth::now_ms());
    server.stop().await;
    sim.stop().await;
}

/// The whole sign-in, activation, a sync and logout in a real `demo` process logging at debug
/// level: nothing secret reaches its log.
#[test]
fn logs_carry_no_token_code_cookie_or_secret() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(crate::support::binary())
        .env("ESM_MDNS__ENABLED", "false")
        .env("ESM_LOG_LEVEL", "debug")
        .args(["demo", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut printed = std::collections::HashMap::new();
    while printed.len() < 4 {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "demo printed its lines");
        if let Some((k, v)) = line.trim().split_once(": ") {
            printed.insert(k.to_string(), v.to_string());
        }
    }
    let stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = BufReader::new(stderr).read_to_string(&mut s);
        s
    });
    let url = printed["URL"].clone();
    let licence = printed["Licence code"].clone();
    let signed_in = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
        let s = browser_sign_in(&url).await;
        let http = client();
        let body = json!({"division": s.session["division"], "code": licence});
        let res = http
            .post(format!("{url}/api/v1/license/activate"))
            .header("cookie", &s.cookie)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let res = http
            .post(format!("{url}/api/v1/sync"))
            .header("cookie", &s.cookie)
            .json(&json!({"endpoints": ["projects"]}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 202);
        actix_web::rt::time::sleep(std::time::Duration::from_secs(2)).await;
        http.post(format!("{url}/api/v1/auth/logout")).header("cookie", &s.cookie).send().await.unwrap();
        s
    });
    let pid = child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    let _ = child.wait();
    let log = log.join().unwrap();
    assert!(log.contains("signed in"), "the log was captured at debug level: {log}");
    let cookie_value = signed_in.cookie.trim_start_matches("esm_session=");
    for (what, secret) in [
        ("session cookie", cookie_value),
        ("authorization code", signed_in.code.as_str()),
        ("sign-in state", signed_in.state.as_str()),
        ("licence code", licence.as_str()),
        ("client secret", "demo-secret"),
        // The simulator's access and refresh tokens start with these.
        ("access token", "AAEAA"),
        ("refresh token", "Gcp7!"),
        ("bearer header", "Bearer "),
    ] {
        assert!(!log.contains(secret), "the log contains the {what}");
    }
}
