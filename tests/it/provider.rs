//! Harness for tests that need the provider: the simulator plus a server pointed at it, signed in
//! the way a browser would (the sign-in form's default choice), with the token stored for the
//! organization.

use crate::support::{TestServer, client};
use std::time::Duration;
use stock_manager::exact::Waits;
use stock_manager::server::StartOptions;
use stock_manager::sim::{SimOptions, Simulator};

pub struct World {
    pub sim: Simulator,
    pub server: TestServer,
    pub division: i64,
    pub user: String,
}

/// Short waits so retry paths run in seconds, not the spec's 20 s.
pub fn quick_waits() -> Waits {
    Waits {
        read_retry: Duration::from_millis(200),
        write_retry: Duration::from_millis(100),
        attempts: 6,
        rate_limit_max: Duration::from_millis(500),
        ..Waits::default()
    }
}

/// Submits the simulator's sign-in form with its default choice; returns the authorization code.
pub async fn sign_in_code(sim_base: &str, redirect_uri: &str) -> String {
    let http = client();
    let url = format!(
        "{sim_base}/api/oauth2/auth?client_id=demo-client&redirect_uri={}&response_type=code&state=s1",
        urlencoding::encode(redirect_uri)
    );
    let html = http.get(&url).send().await.unwrap().text().await.unwrap();
    let mut form: Vec<(String, String)> = Vec::new();
    for part in html.split("<input").skip(1) {
        let attr = |name: &str| {
            let key = format!("{name}=\"");
            part.find(&key).map(|i| {
                let rest = &part[i + key.len()..];
                rest[..rest.find('"').unwrap_or(0)].to_string()
            })
        };
        let ty = attr("type").unwrap_or_default();
        if ty == "hidden" || (ty == "radio" && part.contains("checked")) {
            form.push((attr("name").unwrap(), attr("value").unwrap_or_default()));
        }
    }
    let res = http.post(format!("{sim_base}/api/oauth2/auth")).form(&form).send().await.unwrap();
    assert_eq!(res.status(), 302, "sign-in redirects back");
    let location = res.headers()["location"].to_str().unwrap().to_string();
    let parsed = url::Url::parse(&location).unwrap();
    let code = parsed.query_pairs().find(|(k, _)| k == "code").map(|(_, v)| v.into_owned()).expect("code");
    assert_eq!(parsed.query_pairs().find(|(k, _)| k == "state").map(|(_, v)| v.into_owned()).as_deref(), Some("s1"));
    code
}

impl World {
    pub async fn start(sim: SimOptions) -> World {
        let sim = Simulator::start(sim).await.expect("simulator starts");
        let base = sim.base_url().to_string();
        let server = TestServer::start_with(
            move |c| {
                c.provider.base_url = base;
                c.provider.client_id = "demo-client".into();
                c.provider.client_secret = stock_manager::config::Secret::new("demo-secret");
                c.sync.interval_minutes = 0;
                c.sync.on_startup = false;
            },
            StartOptions { waits: quick_waits(), ..StartOptions::default() },
        )
        .await;
        let redirect = format!("{}/callback", server.url);
        let code = sign_in_code(sim.base_url(), &redirect).await;
        let state = server.running.as_ref().unwrap().state();
        let tokens = state.tokens.oauth().exchange_code(&code, &redirect).await.expect("code exchange");
        let me = state.exact.me(&tokens.access_token).await.expect("current/Me");
        let user = me["UserID"].as_str().expect("UserID").to_string();
        let division = me["CurrentDivision"].as_i64().expect("CurrentDivision");
        state.tokens.store(&user, &tokens).unwrap();
        state.serverdb.set_org_token_user(division, &user).unwrap();
        World { sim, server, division, user }
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.server
            .client
            .get(self.server.at(path))
            .header("x-esm-division", self.division.to_string())
            .send()
            .await
            .unwrap()
    }

    pub async fn post_json(&self, path: &str, body: serde_json::Value) -> reqwest::Response {
        self.server
            .client
            .post(self.server.at(path))
            .header("x-esm-division", self.division.to_string())
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    /// Starts a sync over HTTP and waits until it finished; returns the final status.
    pub async fn sync(&self, endpoints: Option<Vec<&str>>) -> serde_json::Value {
        let body = match endpoints {
            Some(e) => serde_json::json!({ "endpoints": e }),
            None => serde_json::json!({}),
        };
        let res = self.post_json("/api/v1/sync", body).await;
        assert_eq!(res.status(), 202, "{}", res.text().await.unwrap_or_default());
        self.wait_for_sync().await
    }

    pub async fn wait_for_sync(&self) -> serde_json::Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(120);
        loop {
            let status: serde_json::Value = self.get("/api/v1/sync").await.json().await.unwrap();
            if status["running"] == false {
                return status;
            }
            assert!(std::time::Instant::now() < deadline, "sync finished in time");
            actix_web::rt::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn stop(self) {
        self.server.stop().await;
        self.sim.stop().await;
    }
}
