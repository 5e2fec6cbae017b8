//! First run: a server without a client id and secret is set up from its Home page with the
//! one-time setup code, tested with a real sign-in at the simulator, and writes the settings file
//! in its data directory.

use crate::provider::{approve, quick_waits, set_cookie};
use crate::support::TestServer;
use esm_sim::{DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, SimOptions, Simulator};
use reqwest::StatusCode;
use serde_json::{Value, json};
use stock_manager::config::{Config, Secret};
use stock_manager::server::StartOptions;

fn query(url: &url::Url, key: &str) -> String {
    url.query_pairs().find(|(k, _)| k == key).map(|(_, v)| v.into_owned()).unwrap_or_default()
}

/// A server with no client id or secret whose settings file holds an admin's note, and whose
/// config file (read-only, as `/etc` is under the packaged unit) is `config`.
async fn unconfigured(sim: &Simulator, config: std::path::PathBuf, edit: impl FnOnce(&mut Config)) -> TestServer {
    let base = sim.base_url().to_string();
    TestServer::start_with(
        move |c| {
            c.provider.base_url = base;
            c.provider.client_id = String::new();
            c.provider.client_secret = Secret::default();
            c.sync.interval_minutes = 0;
            std::fs::create_dir_all(&c.data_dir).unwrap();
            std::fs::write(c.settings_file(), "# kept by the setup\n[sync]\ninterval_minutes = 7\n").unwrap();
            c.file = Some(config);
            edit(c);
        },
        StartOptions { waits: quick_waits(), ..StartOptions::default() },
    )
    .await
}

async fn post(server: &TestServer, path: &str, cookie: Option<&str>, body: Value) -> reqwest::Response {
    let mut req = server.client.post(server.at(path)).json(&body);
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    req.send().await.unwrap()
}

/// Starts a test sign-in with `secret`; answers the setup cookie and where Exact sent the browser back.
async fn test_sign_in(server: &TestServer, code: &str, sim: &Simulator, secret: &str) -> (String, url::Url) {
    test_sign_in_as(server, code, sim, secret, "esm_setup", None).await
}

/// [`test_sign_in`] from the page at `origin` (set when the server's public URL is not its
/// address), expecting the setup cookie `cookie_name`.
async fn test_sign_in_as(
    server: &TestServer,
    code: &str,
    sim: &Simulator,
    secret: &str,
    cookie_name: &str,
    origin: Option<&str>,
) -> (String, url::Url) {
    let mut req = server.client.post(server.at("/api/v1/setup/test")).json(
        &json!({"setupCode": code, "clientId": DEMO_CLIENT_ID, "clientSecret": secret, "baseUrl": sim.base_url()}),
    );
    if let Some(o) = origin {
        req = req.header("origin", o);
    }
    let res = req.send().await.unwrap();
    assert_eq!(res.status(), 200);
    let cookie = format!("{cookie_name}={}", set_cookie(&res, cookie_name).expect("setup cookie"));
    let body: Value = res.json().await.unwrap();
    let authorize = body["authorizeUrl"].as_str().unwrap();
    assert!(authorize.starts_with(sim.base_url()), "{authorize}");
    let back = approve(authorize).await;
    assert_eq!(back.path(), "/callback");
    (cookie, back)
}

#[actix_web::test]
async fn a_server_without_an_app_is_set_up_with_the_code_and_a_tested_sign_in() {
    let sim = Simulator::start(SimOptions { rate_limits: false, ..Default::default() }).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = unconfigured(&sim, dir.path().join("config.toml"), |_| {}).await;
    let running = server.running.as_ref().unwrap();
    let code = running.setup_code().expect("a setup code").to_string();
    let settings = running.state().config.settings_file();

    // What to register, and sign-in says it is not set up yet.
    let status: Value = server.get("/api/v1/setup").await.json().await.unwrap();
    assert_eq!(status["needed"], true);
    assert_eq!(status["redirectUrl"], format!("{}/callback", server.url));
    assert_eq!(status["settingsFile"], settings.display().to_string());
    assert!(status["hosts"].as_array().unwrap().iter().any(|h| h["url"] == "https://start.exactonline.nl"));
    assert!(!status.to_string().contains(&code), "the code is never sent");
    let login = server.get("/api/v1/auth/login").await;
    assert_eq!(login.status(), StatusCode::SERVICE_UNAVAILABLE);

    // A wrong code is refused, and guessing is throttled.
    let wrong = json!({"setupCode": "AAAA-AAAA-AAAA", "clientId": "x", "clientSecret": "y", "baseUrl": sim.base_url()});
    let res = post(&server, "/api/v1/setup/test", None, wrong.clone()).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert!(res.text().await.unwrap().contains("setup code is wrong"));
    for _ in 0..4 {
        post(&server, "/api/v1/setup/test", None, wrong.clone()).await;
    }
    let res = post(
        &server,
        "/api/v1/setup/test",
        None,
        json!({"setupCode": code, "clientId": "x", "clientSecret": "y", "baseUrl": sim.base_url()}),
    )
    .await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "even the right code waits after five wrong ones");
}

#[actix_web::test]
async fn a_wrong_secret_fails_the_test_and_writes_nothing_then_the_right_one_is_saved() {
    let sim = Simulator::start(SimOptions { rate_limits: false, ..Default::default() }).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    // The config file cannot be written (as under the packaged unit): the setup does not need to.
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "# the admin's\n").unwrap();
    let mut readonly = std::fs::metadata(&config).unwrap().permissions();
    readonly.set_readonly(true);
    std::fs::set_permissions(&config, readonly).unwrap();
    let server = unconfigured(&sim, config.clone(), |_| {}).await;
    let running = server.running.as_ref().unwrap();
    let code = running.setup_code().unwrap().to_string();
    let file = running.state().config.settings_file();
    let before = std::fs::read_to_string(&file).unwrap();

    // The sign-in at Exact works with any secret; the code exchange is the test.
    let (cookie, back) = test_sign_in(&server, &code, &sim, "not-the-secret").await;
    let finish = json!({"code": query(&back, "code"), "state": query(&back, "state")});
    assert!(finish["state"].as_str().unwrap().starts_with("setup."));
    let res = post(&server, "/api/v1/setup/finish", Some(&cookie), finish.clone()).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let text = res.text().await.unwrap();
    assert!(text.contains("did not accept this client id and secret"), "{text}");
    assert!(!text.contains("not-the-secret"), "the secret is never echoed");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before, "nothing written");

    // The same return again, or from another browser, is refused.
    let res = post(&server, "/api/v1/setup/finish", Some(&cookie), finish).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let (_, back) = test_sign_in(&server, &code, &sim, DEMO_CLIENT_SECRET).await;
    let other = json!({"code": query(&back, "code"), "state": query(&back, "state")});
    let res = post(&server, "/api/v1/setup/finish", Some("esm_setup=someone-else"), other).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);

    // The right secret: Exact says who signed in, the settings file is written keeping the
    // admin's lines, with that user as an administrator; the config file is left alone.
    let (cookie, back) = test_sign_in(&server, &code, &sim, DEMO_CLIENT_SECRET).await;
    let res = post(
        &server,
        "/api/v1/setup/finish",
        Some(&cookie),
        json!({"code": query(&back, "code"), "state": query(&back, "state")}),
    )
    .await;
    assert_eq!(res.status(), 200);
    let done: Value = res.json().await.unwrap();
    assert_eq!(done["done"], true);
    assert!(!done["userName"].as_str().unwrap().is_empty());
    assert!(!done.to_string().contains(DEMO_CLIENT_SECRET));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("# kept by the setup"), "{text}");
    let written = Config::from_toml_str(&text).unwrap();
    assert_eq!(written.provider.client_id, DEMO_CLIENT_ID);
    assert_eq!(written.provider.client_secret.expose(), DEMO_CLIENT_SECRET);
    assert_eq!(written.provider.base_url, sim.base_url().trim_end_matches('/'));
    assert_eq!(written.sync.interval_minutes, 7);
    assert_eq!(written.admin.users.len(), 1, "{text}");
    assert!(!written.admin.users[0].is_empty() && !written.admin.users[0].contains('@'), "the user id: {text}");
    assert_eq!(done["settingsFile"], file.display().to_string());
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "# the admin's\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }

    // Done: the setup routes close, and the server asks to be restarted with the new config.
    let status: Value = server.get("/api/v1/setup").await.json().await.unwrap();
    assert_eq!(status, json!({"needed": false, "restarting": true}));
    let res = post(
        &server,
        "/api/v1/setup/test",
        None,
        json!({"setupCode": code, "clientId": "x", "clientSecret": "y", "baseUrl": sim.base_url()}),
    )
    .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let mut server = server;
    let ended =
        tokio::time::timeout(std::time::Duration::from_secs(20), server.running.take().unwrap().wait_or_restart())
            .await
            .expect("the server restarts")
            .unwrap();
    assert_eq!(ended, stock_manager::server::Ended::Restart);
}

#[actix_web::test]
async fn under_tls_the_setup_cookie_is_host_prefixed_and_only_https_hosts_are_taken() {
    let sim = Simulator::start(SimOptions { rate_limits: false, ..Default::default() }).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = unconfigured(&sim, dir.path().join("config.toml"), |c| {
        c.public_url = Some("https://esm.example".into());
    })
    .await;
    let running = server.running.as_ref().unwrap();
    let code = running.setup_code().unwrap().to_string();
    let settings = running.state().config.settings_file();

    let res = server
        .client
        .post(server.at("/api/v1/setup/test"))
        .header("origin", "https://esm.example")
        .json(
            &json!({"setupCode": code, "clientId": "x", "clientSecret": "y", "baseUrl": "http://start.exactonline.nl"}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(res.text().await.unwrap().contains("https://"));

    let (cookie, back) =
        test_sign_in_as(&server, &code, &sim, DEMO_CLIENT_SECRET, "__Host-esm_setup", Some("https://esm.example"))
            .await;
    assert!(cookie.starts_with("__Host-esm_setup="));
    let res = server
        .client
        .post(server.at("/api/v1/setup/finish"))
        .header("origin", "https://esm.example")
        .header("cookie", cookie.replace("__Host-", ""))
        .json(&json!({"code": query(&back, "code"), "state": query(&back, "state")}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST, "the cookie without its prefix does not count");
    let (cookie, back) =
        test_sign_in_as(&server, &code, &sim, DEMO_CLIENT_SECRET, "__Host-esm_setup", Some("https://esm.example"))
            .await;
    let res = server
        .client
        .post(server.at("/api/v1/setup/finish"))
        .header("origin", "https://esm.example")
        .header("cookie", cookie)
        .json(&json!({"code": query(&back, "code"), "state": query(&back, "state")}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    let written = Config::from_toml_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(written.provider.client_id, DEMO_CLIENT_ID);
}

#[actix_web::test]
async fn a_configured_server_has_no_setup() {
    let server = TestServer::start().await;
    assert!(server.running.as_ref().unwrap().setup_code().is_none());
    let status: Value = server.get("/api/v1/setup").await.json().await.unwrap();
    assert_eq!(status, json!({"needed": false}));
    let res = server
        .client
        .post(server.at("/api/v1/setup/test"))
        .json(
            &json!({"setupCode": "x", "clientId": "x", "clientSecret": "y", "baseUrl": "https://start.exactonline.nl"}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

#[actix_web::test]
async fn an_exact_host_that_cannot_be_reached_is_said_before_the_browser_goes_there() {
    let sim = Simulator::start(SimOptions { rate_limits: false, ..Default::default() }).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = unconfigured(&sim, dir.path().join("config.toml"), |_| {}).await;
    let code = server.running.as_ref().unwrap().setup_code().unwrap().to_string();
    // nothing listens on port 1 of this machine: as a factory network without internet
    let gone = "http://127.0.0.1:1";
    let res = post(
        &server,
        "/api/v1/setup/test",
        None,
        json!({"setupCode": code, "clientId": DEMO_CLIENT_ID, "clientSecret": DEMO_CLIENT_SECRET, "baseUrl": gone}),
    )
    .await;
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(set_cookie(&res, "esm_setup").is_none(), "no sign-in was started");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "provider_unreachable");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.starts_with(&format!("Exact Online ({gone}) cannot be reached from this server")), "{message}");
    // still open to a host that answers, the same code
    let (cookie, back) = test_sign_in(&server, &code, &sim, DEMO_CLIENT_SECRET).await;
    assert!(cookie.starts_with("esm_setup=") && back.query().is_some_and(|q| q.contains("code=")));
}
