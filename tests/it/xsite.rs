//! Hostile or careless requests (issue 18, the cross-site, header and session part): foreign
//! origins and non-JSON bodies on state-changing calls, login floods, sync timestamps moved
//! forward, urlDirect path tricks, the security headers, and sessions that end.

use crate::provider::{World, approve, server_for, set_cookie};
use crate::support::TestServer;
use esm_sim::{SimOptions, Simulator};
use futures_util::StreamExt;
use reqwest::Method;
use serde_json::{Value, json};
use std::time::Duration;
use stock_manager::auth::licence::Issuer;
use stock_manager::auth::session::{MAX_PENDING_LOGINS, MAX_PENDING_LOGINS_PER_ADDRESS};

fn sim_options() -> SimOptions {
    SimOptions { rate_limits: false, ..Default::default() }
}

async fn code_of(res: reqwest::Response) -> String {
    let body: Value = res.json().await.unwrap();
    body["error"]["code"].as_str().unwrap_or_default().to_string()
}

#[actix_web::test]
async fn state_changing_calls_come_from_this_server_as_json() {
    let w = World::start(sim_options()).await;
    let sync = json!({"endpoints": ["projects"]});

    // Another site, by Origin or (without one) by Referer: refused before anything happens.
    for (header, value) in
        [("origin", "http://evil.example"), ("origin", "null"), ("referer", "http://evil.example/page")]
    {
        let res = w.request(Method::POST, "/api/v1/sync").header(header, value).json(&sync).send().await.unwrap();
        assert_eq!(res.status(), 403, "{header}: {value}");
        assert_eq!(code_of(res).await, "forbidden");
    }
    let res = w
        .request(Method::PUT, "/api/v1/exact/updateShopOrder")
        .header("origin", "http://evil.example")
        .json(&json!({"ID": "00000000-0000-0000-0000-000000000001", "PlannedStartDate": "2030-01-01"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    let outbox: Value = w.get("/api/v1/outbox").await.json().await.unwrap();
    assert_eq!(outbox["entries"], json!([]), "nothing was queued");
    let status: Value = w.get("/api/v1/sync").await.json().await.unwrap();
    assert_eq!(status["running"], false, "no sync was started");

    // A form or text body, the kinds another site can send without asking: 415.
    let res = w.request(Method::POST, "/api/v1/sync").form(&[("endpoints", "projects")]).send().await.unwrap();
    assert_eq!(res.status(), 415);
    assert_eq!(code_of(res).await, "unsupported_media_type");
    let res = w
        .request(Method::POST, "/api/v1/sync")
        .header("content-type", "text/plain")
        .body(sync.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 415);

    // The UI's own calls: same origin, JSON; and a POST without a body.
    let res = w.request(Method::POST, "/api/v1/sync").header("origin", &w.server.url).json(&sync).send().await.unwrap();
    assert_eq!(res.status(), 202, "{}", res.text().await.unwrap());
    w.wait_for_sync().await;
    let details: Value = w.get("/api/v1/organizationDetails").await.json().await.unwrap();
    let res = w
        .request(Method::PUT, "/api/v1/updatePreferences")
        .header("origin", &w.server.url)
        .header("referer", format!("{}/settings", w.server.url))
        .json(&json!({"uuid": details["uuid"], "preferences": {"theme": "dark"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let res = w.request(Method::POST, "/api/v1/auth/refresh").header("origin", &w.server.url).send().await.unwrap();
    assert_eq!(res.status(), 200, "a POST without a body needs no Content-Type");
    // No Origin at all: not a browser (scripts, tests), accepted.
    w.sync(Some(vec!["projects"])).await;
    w.stop().await;
}

/// The test process's resident memory in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap_or("VmRSS: 0 kB");
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or(0)
}

#[actix_web::test]
async fn anonymous_login_floods_keep_memory_bounded() {
    let s = TestServer::start().await;
    let http = s.client.clone();
    let flood = |return_to: String| {
        let (http, url) = (http.clone(), s.url.clone());
        futures_util::stream::iter(0..2000)
            .map(move |_| {
                let http = http.clone();
                let url = format!("{url}/api/v1/auth/login?returnTo=/{}", return_to);
                async move { http.get(url).send().await.map(|r| r.status().as_u16()).unwrap_or(0) }
            })
            .buffer_unordered(8)
            .collect::<Vec<u16>>()
    };
    let before = rss_kib();
    let statuses = flood("x".repeat(60 * 1024)).await;
    let mut seen = statuses.clone();
    seen.dedup();
    assert!(statuses.iter().all(|s| *s == 400 || *s == 431), "a 60 KB returnTo is refused: {seen:?}");
    let statuses = flood("x".repeat(2000)).await;
    assert!(statuses.iter().all(|s| *s == 302 || *s == 429), "a 2 KB one is fine, up to the bound");
    let started = statuses.iter().filter(|s| **s == 302).count();
    assert_eq!(started, MAX_PENDING_LOGINS_PER_ADDRESS, "one address starts so many at once");
    let pending = s.running.as_ref().unwrap().state().auth.sessions.pending_logins();
    assert!(pending <= MAX_PENDING_LOGINS, "{pending} sign-ins kept");
    let grown = rss_kib().saturating_sub(before);
    // Kept without limits the first flood alone would hold some 120 MB; tests running alongside
    // share the process, so the bound leaves them room.
    assert!(grown < 100 * 1024, "memory grew {grown} KiB");
    s.stop().await;
}

#[actix_web::test]
async fn sync_timestamps_only_move_back() {
    let w = World::start(sim_options()).await;
    w.sync(Some(vec!["projects"])).await;
    let details: Value = w.get("/api/v1/organizationDetails").await.json().await.unwrap();
    let stored = details["sync_timestamps"]["projects"].as_i64().unwrap();
    assert!(stored > 1, "{details}");
    let put = |projects: Value| {
        let mut body = details.clone();
        body["sync_timestamps"]["projects"] = projects;
        w.request(Method::PUT, "/api/v1/updateOrganizationSyncTimestamps").json(&body).send()
    };
    for forward in [json!(stored + 1), json!(i64::MAX), json!("9223372036854775807"), json!(-1)] {
        let res = put(forward.clone()).await.unwrap();
        assert_eq!(res.status(), 400, "{forward}");
        let body: Value = res.json().await.unwrap();
        assert!(body["error"]["message"].as_str().unwrap().contains("projects"), "{body}");
    }
    let after: Value = w.get("/api/v1/organizationDetails").await.json().await.unwrap();
    assert_eq!(after["sync_timestamps"]["projects"].as_i64(), Some(stored), "unchanged");
    let res = put(json!(stored)).await.unwrap();
    assert_eq!(res.status(), 200, "unchanged is fine");
    let res = put(json!(stored / 2)).await.unwrap();
    assert_eq!(res.status(), 200, "back is fine");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["sync_timestamps"]["projects"].as_i64(), Some(stored / 2));
    // The next sync reads from there and brings the table back to the provider's newest.
    let status = w.sync(Some(vec!["projects"])).await;
    assert_eq!(status["tables"]["projects"]["timestamp"].as_i64(), Some(stored), "{status}");
    w.stop().await;
}

#[actix_web::test]
async fn url_direct_reads_no_other_division_however_the_path_is_spelled() {
    let w = World::start(sim_options()).await;
    let direct =
        |url: &str| w.request(Method::GET, &format!("/api/v1/exact/urlDirect?url={}", urlencoding::encode(url))).send();
    let res = direct("manufacturing/Operations").await.unwrap();
    assert_eq!(res.status(), 200, "own division: {}", res.text().await.unwrap());
    let other = "3154117/project/Projects";
    let sim = w.sim.base_url().to_string();
    for bad in [
        format!("../{other}"),
        format!("%2e%2e/{other}"),
        format!("%2E%2E/{other}"),
        format!("..%2f{other}"),
        format!("..%2F{other}"),
        format!("%252e%252e/{other}"),
        format!("%25252e%25252e%252f{other}"),
        format!(".%2e/{other}"),
        format!("x/%2e%2e/%2e%2e/{other}"),
        format!("x%5c..%5c..%5c{other}"),
        format!("x//{other}"),
        format!("{sim}/api/v1/{other}"),
        format!("{sim}/api/v1/{}/%2e%2e/{other}", w.division),
        "https://elsewhere.example/api/v1/3154102/project/Projects".to_string(),
    ] {
        let res = direct(&bad).await.unwrap();
        assert_eq!(res.status(), 403, "{bad}");
    }
    w.stop().await;
}

#[actix_web::test]
async fn answers_carry_the_security_headers() {
    let s = TestServer::start().await;
    let page = s.get("/").await;
    assert_eq!(page.status(), 200);
    let header = |res: &reqwest::Response, name: &str| {
        res.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string()
    };
    let csp = header(&page, "content-security-policy");
    for part in [
        "default-src 'self'",
        "script-src 'self'",
        "img-src 'self' data: blob:",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'self'",
    ] {
        assert!(csp.contains(part), "{part} in {csp}");
    }
    // quoted: 'wasm-unsafe-eval' (the camera's decoder) compiles WebAssembly only, no script eval
    assert!(!csp.contains("'unsafe-inline'") && !csp.contains("'unsafe-eval'"), "{csp}");
    let html = page.text().await.unwrap();
    assert!(!html.contains("<script>") && !html.contains("<style"), "no inline script or style the policy would block");
    for res in [s.get("/").await, s.get("/api/v1/health").await, s.get("/api/v1/nope").await] {
        assert_eq!(header(&res, "x-content-type-options"), "nosniff");
        assert_eq!(header(&res, "referrer-policy"), "same-origin");
        assert!(res.headers().get("strict-transport-security").is_none(), "plain http: no HSTS");
    }
    let api = s.get("/api/v1/health").await;
    assert!(header(&api, "content-security-policy").contains("default-src 'none'"));
    s.stop().await;
}

#[actix_web::test]
async fn health_checks_do_not_write_each_time() {
    let s = TestServer::start().await;
    let state = s.running.as_ref().unwrap().state();
    assert_eq!(s.get("/api/v1/health").await.status(), 200);
    // The probe's answer stands a while: a data directory gone read-only shows up later, not on
    // every call's write. Removing the directory makes a fresh probe fail.
    let dir = state.config.data_dir.clone();
    let moved = dir.with_extension("moved");
    std::fs::rename(&dir, &moved).unwrap();
    assert_eq!(s.get("/api/v1/health").await.status(), 200, "the cached probe answers");
    std::fs::rename(&moved, &dir).unwrap();
    s.stop().await;
}

#[actix_web::test]
async fn cookies_are_host_prefixed_when_secure() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    let issuer = Issuer::generate();
    let server = server_for(&sim, &issuer, |c| c.public_url = Some("https://esm.example".into())).await;
    let login = server.get("/api/v1/auth/login").await;
    assert_eq!(login.status(), 302);
    let set: Vec<String> =
        login.headers().get_all("set-cookie").iter().map(|v| v.to_str().unwrap().to_string()).collect();
    let cookie = set.iter().find(|c| c.starts_with("__Host-esm_login=")).expect("a __Host- login cookie");
    for flag in ["Secure", "Path=/", "HttpOnly"] {
        assert!(cookie.contains(flag), "{cookie}");
    }
    assert!(!cookie.contains("Domain"), "{cookie}");
    let nonce = set_cookie(&login, "__Host-esm_login").unwrap();
    let back = approve(login.headers()["location"].to_str().unwrap()).await;
    let query = |k: &str| back.query_pairs().find(|(q, _)| q == k).map(|(_, v)| v.into_owned()).unwrap();
    let body = json!({"code": query("code"), "state": query("state")});
    // The callback page posts from this server's address (the proxy's, https).
    let res = server
        .client
        .post(server.at("/api/v1/auth/authorize"))
        .header("cookie", format!("__Host-esm_login={nonce}"))
        .header("origin", "https://esm.example")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    let session = set_cookie(&res, "__Host-esm_session").expect("a __Host- session cookie");
    let me: Value = server
        .client
        .get(server.at("/api/v1/auth/session"))
        .header("cookie", format!("__Host-esm_session={session}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["tier"], "signedIn");
    let plain: Value = server
        .client
        .get(server.at("/api/v1/auth/session"))
        .header("cookie", format!("esm_session={session}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(plain["tier"], "public", "the unprefixed name is not read under TLS");
    server.stop().await;
    sim.stop().await;
}

/// The cookie value of the world's session.
fn session_id(w: &World) -> String {
    w.cookie.trim_start_matches("esm_session=").to_string()
}

#[actix_web::test]
async fn sessions_end_after_their_lifetime() {
    use stock_manager::auth::session::SESSION_MAX_MS;
    let w = World::start(sim_options()).await;
    let state = w.server.running.as_ref().unwrap().state();
    let id = session_id(&w);
    let now = stock_manager::exact::oauth::now_ms();
    let mut record = state.auth.sessions.get(&id, now).unwrap().expect("the session");
    // Busy all along (seen just now), but signed in longer ago than the lifetime.
    record.created_ms = now - SESSION_MAX_MS - 1_000;
    record.last_seen_ms = now;
    state.auth.sessions.save(&id, &record).unwrap();
    let me: Value = w.get("/api/v1/auth/session").await.json().await.unwrap();
    assert_eq!(me["tier"], "public");
    assert_eq!(w.get("/api/v1/sync").await.status(), 401);
    w.stop().await;
}

/// The max-age of the session cookie a response sets, in seconds.
fn session_max_age(res: &reqwest::Response) -> Option<i64> {
    res.headers().get_all("set-cookie").iter().filter_map(|v| v.to_str().ok()).find_map(|v| {
        if !v.starts_with("esm_session=") {
            return None;
        }
        v.split(';').find_map(|p| p.trim().strip_prefix("Max-Age=").and_then(|n| n.parse().ok()))
    })
}

#[actix_web::test]
async fn a_session_in_use_renews_its_cookie_up_to_its_lifetime() {
    use stock_manager::auth::session::{SESSION_IDLE_MS, SESSION_MAX_MS};
    let w = World::start(sim_options()).await;
    let state = w.server.running.as_ref().unwrap().state();
    let id = session_id(&w);
    let now = stock_manager::exact::oauth::now_ms();
    // Used just now: nothing to renew.
    assert_eq!(session_max_age(&w.get("/api/v1/sync").await), None);
    // Signed in ten hours ago and last used five minutes ago: this use moves the idle end, and
    // the browser's cookie must follow it or it would expire two hours from now.
    let mut record = state.auth.sessions.get(&id, now).unwrap().expect("the session");
    record.created_ms = now - 10 * 3_600_000;
    record.last_seen_ms = now - 5 * 60_000;
    state.auth.sessions.save(&id, &record).unwrap();
    let res = w.get("/api/v1/sync").await;
    assert_eq!(res.status(), 200);
    assert_eq!(set_cookie(&res, "esm_session").as_deref(), Some(id.as_str()), "the same session");
    assert_eq!(session_max_age(&res), Some(SESSION_IDLE_MS / 1000));
    // Near the end of its lifetime the cookie lives only as long as the session may.
    let mut record = state.auth.sessions.get(&id, now).unwrap().expect("the session");
    record.created_ms = now - SESSION_MAX_MS + 3_600_000;
    record.last_seen_ms = now - 5 * 60_000;
    state.auth.sessions.save(&id, &record).unwrap();
    let age = session_max_age(&w.get("/api/v1/sync").await).expect("renewed");
    assert!((3_500..=3_600).contains(&age), "about an hour left: {age}");
    w.stop().await;
}

#[actix_web::test]
async fn event_streams_end_with_the_session_and_the_oldest_gives_way() {
    use stock_manager::auth::session::MAX_STREAMS_PER_SESSION;
    let w = World::start(sim_options()).await;
    let mut open = Vec::new();
    for _ in 0..MAX_STREAMS_PER_SESSION {
        let res = w.get("/api/v1/events").await;
        assert_eq!(res.status(), 200);
        open.push(res);
    }
    // One more closes the session's oldest: a handheld back from a Wi-Fi dead spot gets its
    // stream, while the one it lost there is still open as far as the server can tell.
    let newest = w.get("/api/v1/events").await;
    assert_eq!(newest.status(), 200, "the newest stream is served");
    let mut oldest = open.remove(0).bytes_stream();
    let ended = actix_web::rt::time::timeout(Duration::from_secs(10), async {
        while let Some(chunk) = oldest.next().await {
            if chunk.is_err() {
                break;
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the oldest stream ended");
    let state = w.server.running.as_ref().unwrap().state();
    let id = w.cookie.split_once('=').map(|(_, v)| v.split(';').next().unwrap_or(v)).unwrap_or_default();
    assert_eq!(state.auth.sessions.open_streams(id), MAX_STREAMS_PER_SESSION);
    open.push(newest);

    // Logout (a POST without a body, from the page): every stream of the session ends.
    let res = w.request(Method::POST, "/api/v1/auth/logout").header("origin", &w.server.url).send().await.unwrap();
    assert_eq!(res.status(), 204);
    for res in open {
        let mut stream = res.bytes_stream();
        let ended = actix_web::rt::time::timeout(Duration::from_secs(20), async {
            while let Some(chunk) = stream.next().await {
                if chunk.is_err() {
                    break;
                }
            }
        })
        .await;
        assert!(ended.is_ok(), "the stream ended after logout");
    }
    assert_eq!(w.get("/api/v1/events").await.status(), 401);
    w.stop().await;
}

#[actix_web::test]
async fn an_event_stream_ends_when_its_session_switches_organization() {
    let w = World::start(sim_options()).await;
    let stream = w.get("/api/v1/events").await;
    assert_eq!(stream.status(), 200);
    let session: serde_json::Value = w.get("/api/v1/auth/session").await.json().await.unwrap();
    let other = session["divisions"]
        .as_array()
        .and_then(|d| d.iter().filter_map(|d| d["division"].as_i64()).find(|d| *d != w.division))
        .expect("the demo user has a second organization");
    let res = w.post_json("/api/v1/auth/division", serde_json::json!({ "division": other })).await;
    assert_eq!(res.status(), 200);
    // The old organization's toasts stop: the stream ends, and the browser opens the new one's.
    let mut stream = stream.bytes_stream();
    let ended = actix_web::rt::time::timeout(Duration::from_secs(10), async {
        while let Some(chunk) = stream.next().await {
            if chunk.is_err() {
                break;
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the stream of the old organization ended");
    w.stop().await;
}

#[actix_web::test]
async fn tls_answers_carry_hsts_and_host_prefixed_cookies() {
    let s = TestServer::start_with(
        |c| {
            c.tls.enabled = true;
            c.tls.self_signed = true;
        },
        stock_manager::server::StartOptions::default(),
    )
    .await;
    let port = s.running.as_ref().unwrap().addr.port();
    let client = reqwest::Client::builder()
        .danger_accept_invalid_certs(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = client.get(format!("https://localhost:{port}/api/v1/health")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.headers().get("strict-transport-security").is_some());
    let login = client.get(format!("https://localhost:{port}/api/v1/auth/login")).send().await.unwrap();
    assert_eq!(login.status(), 302);
    assert!(set_cookie(&login, "__Host-esm_login").is_some(), "{:?}", login.headers());
    assert!(set_cookie(&login, "esm_login").is_none());
    s.stop().await;
}
