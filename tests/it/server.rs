//! The HTTP frame: health, version, the embedded UI, fallbacks, errors, compression, shutdown.

use crate::support::TestServer;
use actix_web::{HttpResponse, web};
use serde_json::Value;
use std::time::Duration;
use stock_manager::server::StartOptions;

#[actix_web::test]
async fn health_reports_status_version_uptime_and_store() {
    let s = TestServer::start().await;
    let res = s.get("/api/v1/health").await;
    assert_eq!(res.status(), 200);
    assert!(res.headers().get("x-request-id").is_some(), "request id header");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["status"], "ok");
    assert_eq!(body["version"], stock_manager::VERSION);
    assert!(body["uptime_seconds"].is_u64());
    assert_eq!(body["store"]["status"], "ok");
    s.stop().await;
}

/// API answers are never kept by a browser or a proxy (a shared handheld, the next user): every
/// one says `no-store`, also an error and an unknown path.
#[actix_web::test]
async fn api_answers_are_not_stored() {
    let s = TestServer::start().await;
    for path in ["/api/v1/version", "/api/v1/auth/session", "/api/v1/sync", "/api/v1/nope"] {
        let res = s.get(path).await;
        assert_eq!(res.headers().get("cache-control").and_then(|v| v.to_str().ok()), Some("no-store"), "{path}");
    }
    s.stop().await;
}

#[actix_web::test]
async fn version_names_the_product_and_data_version() {
    let s = TestServer::start().await;
    let body: Value = s.get("/api/v1/version").await.json().await.unwrap();
    assert_eq!(body["name"], "Stock Manager");
    assert_eq!(body["version"], stock_manager::VERSION);
    assert_eq!(body["data_version"], "1.7");
    assert_eq!(body["environment"], "production");
    s.stop().await;
}

#[actix_web::test]
async fn index_is_served_with_no_cache_and_the_title() {
    let s = TestServer::start().await;
    let res = s.get("/").await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["cache-control"], "no-cache");
    assert!(res.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    let html = res.text().await.unwrap();
    assert!(html.contains("<title>Stock Manager</title>"), "{html}");
    s.stop().await;
}

#[actix_web::test]
async fn client_routes_fall_back_to_index_html() {
    let s = TestServer::start().await;
    for path in
        ["/dashboard", "/scanning?division=1", "/license-code?division=1&customer=X", "/callback?code=a&state=b"]
    {
        let res = s.get(path).await;
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(res.headers()["cache-control"], "no-cache", "{path}");
        assert!(res.text().await.unwrap().contains("<div id=\"root\">"), "{path}");
    }
    s.stop().await;
}

#[actix_web::test]
async fn hashed_assets_are_immutable_and_revalidate_with_etag() {
    let s = TestServer::start().await;
    let html = s.get("/").await.text().await.unwrap();
    let start = html.find("/assets/").expect("an asset link in index.html");
    let end = html[start..].find('"').unwrap() + start;
    let asset = &html[start..end];
    let res = s.get(asset).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["cache-control"], "public, max-age=31536000, immutable");
    let etag = res.headers()["etag"].to_str().unwrap().to_string();
    let again = s.client.get(s.at(asset)).header("If-None-Match", &etag).send().await.unwrap();
    assert_eq!(again.status(), 304);
    s.stop().await;
}

#[actix_web::test]
async fn service_worker_and_manifest_make_an_installable_app() {
    let s = TestServer::start().await;
    let sw = s.get("/sw.js").await;
    assert_eq!(sw.status(), 200);
    // revalidated on every check, so a new release reaches the handhelds
    assert_eq!(sw.headers()["cache-control"], "no-cache");
    assert!(sw.headers()["content-type"].to_str().unwrap().starts_with("text/javascript"));
    let source = sw.text().await.unwrap();
    assert!(source.contains("\"/index.html\""), "the shell is precached: {source}");
    assert!(source.contains("\"/assets/"), "the screens' code is precached");
    let manifest = s.get("/manifest.webmanifest").await;
    assert_eq!(manifest.status(), 200);
    assert_eq!(manifest.headers()["content-type"], "application/manifest+json");
    let body: Value = manifest.json().await.unwrap();
    assert_eq!(body["display"], "standalone");
    for icon in body["icons"].as_array().unwrap() {
        let src = icon["src"].as_str().unwrap();
        assert_eq!(s.get(src).await.status(), 200, "{src}");
    }
    let csp = s.get("/").await.headers()["content-security-policy"].to_str().unwrap().to_string();
    assert!(csp.contains("worker-src 'self'") && csp.contains("manifest-src 'self'"), "{csp}");
    s.stop().await;
}

#[actix_web::test]
async fn the_cameras_bundled_decoder_is_served_precached_and_allowed_to_compile() {
    let s = TestServer::start().await;
    let sw = s.get("/sw.js").await.text().await.unwrap();
    // the precache list names it, so a browser without its own decoder scans offline too
    let end = sw.find(".wasm\"").expect("a .wasm in the precache list") + ".wasm".len();
    let start = sw[..end].rfind('"').unwrap() + 1;
    let wasm = &sw[start..end];
    assert!(wasm.starts_with("/assets/"), "{wasm}");
    let res = s.get(wasm).await;
    assert_eq!(res.status(), 200, "{wasm}");
    assert_eq!(res.headers()["content-type"], "application/wasm");
    assert_eq!(res.headers()["cache-control"], "public, max-age=31536000, immutable");
    assert_eq!(&res.bytes().await.unwrap()[..4], b"\0asm", "a WebAssembly module");
    let csp = s.get("/").await.headers()["content-security-policy"].to_str().unwrap().to_string();
    let script_src = csp.split(';').map(str::trim).find(|d| d.starts_with("script-src ")).unwrap_or_default();
    assert_eq!(script_src, "script-src 'self' 'wasm-unsafe-eval'", "{csp}");
    s.stop().await;
}

#[actix_web::test]
async fn missing_files_are_404_not_the_spa() {
    let s = TestServer::start().await;
    assert_eq!(s.get("/assets/nope-123.js").await.status(), 404);
    s.stop().await;
}

#[actix_web::test]
async fn unknown_api_paths_answer_json_404() {
    let s = TestServer::start().await;
    for path in ["/api/v1/nope", "/api/v2/health", "/api/whatever"] {
        let res = s.get(path).await;
        assert_eq!(res.status(), 404, "{path}");
        assert!(res.headers()["content-type"].to_str().unwrap().starts_with("application/json"));
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"]["code"], "not_found", "{path}");
        assert!(body["error"]["message"].as_str().unwrap().contains(path.split('?').next().unwrap()));
    }
    s.stop().await;
}

#[actix_web::test]
async fn wrong_method_answers_json_405() {
    let s = TestServer::start().await;
    let res = s.client.delete(s.at("/api/v1/health")).send().await.unwrap();
    assert_eq!(res.status(), 405);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "method_not_allowed");
    let res = s.client.post(s.at("/dashboard")).send().await.unwrap();
    assert_eq!(res.status(), 405);
    s.stop().await;
}

#[actix_web::test]
async fn responses_are_compressed_when_asked() {
    let s = TestServer::start().await;
    let raw = reqwest::Client::builder().no_gzip().build().unwrap();
    let html = s.get("/").await.text().await.unwrap();
    let start = html.find("/assets/").unwrap();
    let end = html[start..].find('"').unwrap() + start;
    let res = raw.get(s.at(&html[start..end])).header("Accept-Encoding", "gzip").send().await.unwrap();
    assert_eq!(res.headers()["content-encoding"], "gzip");
    s.stop().await;
}

async fn slow() -> HttpResponse {
    actix_web::rt::time::sleep(Duration::from_millis(800)).await;
    HttpResponse::Ok().body("finished")
}

fn slow_route(cfg: &mut web::ServiceConfig) {
    cfg.route("/test-slow", web::get().to(slow));
}

#[actix_web::test]
async fn graceful_stop_lets_in_flight_requests_finish() {
    let s = TestServer::start_with(|_| {}, StartOptions { extra_routes: Some(slow_route), ..Default::default() }).await;
    let client = s.client.clone();
    let url = s.at("/test-slow");
    let in_flight = actix_web::rt::spawn(async move { client.get(url).send().await?.text().await });
    actix_web::rt::time::sleep(Duration::from_millis(200)).await;
    let url = s.url.clone();
    let started = std::time::Instant::now();
    s.stop().await;
    assert!(started.elapsed() < Duration::from_secs(11), "bounded shutdown");
    let body = in_flight.await.unwrap().expect("the in-flight request completed");
    assert_eq!(body, "finished");
    // After the stop nothing listens any more.
    assert!(crate::support::client().get(format!("{url}/api/v1/health")).send().await.is_err());
}

/// Answers whether the connection kept the socket `api::peer_gone` watches for a hang-up.
fn peer_route(cfg: &mut actix_web::web::ServiceConfig) {
    cfg.route(
        "/test/peer",
        actix_web::web::get().to(|req: actix_web::HttpRequest| async move {
            let kept = req.conn_data::<stock_manager::api::peer_gone::PeerSocket>().is_some();
            if kept { "kept" } else { "none" }
        }),
    );
}

#[actix_web::test]
async fn self_signed_tls_serves_https() {
    let s = TestServer::start_with(
        |c| {
            c.tls.enabled = true;
            c.tls.self_signed = true;
        },
        StartOptions { extra_routes: Some(peer_route), ..Default::default() },
    )
    .await;
    let addr = s.running.as_ref().unwrap().addr;
    let client = reqwest::Client::builder().danger_accept_invalid_certs(true).build().unwrap();
    let res = client.get(format!("https://localhost:{}/api/v1/health", addr.port())).send().await.unwrap();
    assert_eq!(res.status(), 200);
    // A live read under TLS stops when its client hangs up, as over plain HTTP.
    let res = client.get(format!("https://localhost:{}/test/peer", addr.port())).send().await.unwrap();
    assert_eq!(res.text().await.unwrap(), "kept");
    // Plain HTTP on the TLS port is not served.
    assert!(
        crate::support::client()
            .get(format!("http://{addr}/api/v1/health"))
            .send()
            .await
            .map(|r| !r.status().is_success())
            .unwrap_or(true)
    );
    s.stop().await;
}

/// The catalogue's messages follow the caller's language (the UI sends its own as
/// `Accept-Language`); a more precise message, which names what was wrong, stays as it is.
#[actix_web::test]
async fn catalogue_messages_come_in_the_callers_language() {
    use stock_manager::error::{Code, Language};
    let s = TestServer::start().await;
    let ask = |language: &'static str, path: &'static str| {
        s.client.get(s.at(path)).header("accept-language", language).send()
    };
    for (language, want) in [
        ("nl", Code::NotAuthorized.message_in(Language::Nl)),
        ("nl-NL,nl;q=0.9,en;q=0.8", Code::NotAuthorized.message_in(Language::Nl)),
        ("en", Code::NotAuthorized.message()),
        ("de", Code::NotAuthorized.message()),
    ] {
        let res = ask(language, "/api/v1/counts").await.unwrap();
        assert_eq!(res.status(), 401, "{language}");
        assert_eq!(res.headers().get("cache-control").and_then(|v| v.to_str().ok()), Some("no-store"));
        let body: Value = res.json().await.unwrap();
        assert_eq!(
            (body["error"]["code"].as_str(), body["error"]["message"].as_str()),
            (Some("not_authorized"), Some(want))
        );
    }
    let body: Value = ask("nl", "/api/v1/nope").await.unwrap().json().await.unwrap();
    assert_eq!(body["error"]["code"], "not_found");
    assert!(body["error"]["message"].as_str().unwrap().starts_with("No API route"), "a precise message stays: {body}");
    s.stop().await;
}
