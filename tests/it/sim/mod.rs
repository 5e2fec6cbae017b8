//! The Exact Online simulator: conformance with the reference, paging, determinism, stock.

mod cli;
mod conformance;
mod faults;
mod paging;
mod state;

use esm_sim::{SimHandle, SimOptions, Simulator};
use serde_json::Value;

/// 2026-03-10T10:00:05Z: five seconds into a minute, so a test has 55 s before the window turns.
pub const START_MS: i64 = 1_773_136_805_000;
pub const DIV: i32 = 3_154_102;
pub const DIV2: i32 = 3_154_117;
pub const REDIRECT: &str = "http://localhost:9/callback";

/// A running simulator and a signed-in client.
pub struct Sim {
    pub sim: Simulator,
    pub client: reqwest::Client,
    pub token: String,
    pub refresh: String,
}

impl Sim {
    pub async fn start() -> Sim {
        Self::start_with(SimOptions::default()).await
    }

    pub async fn start_with(opts: SimOptions) -> Sim {
        let opts = SimOptions { start_ms: Some(START_MS), workers: 1, ..opts };
        let sim = Simulator::start(opts).await.expect("simulator starts");
        let client = crate::support::client();
        let (token, refresh) = sign_in(&client, sim.base_url()).await;
        Sim { sim, client, token, refresh }
    }

    pub fn h(&self) -> SimHandle {
        self.sim.handle()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.sim.base_url(), path)
    }

    /// GET `/api/v1/{DIV}/{path}` as JSON.
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.get_abs(&self.url(&format!("/api/v1/{DIV}/{path}"))).await
    }

    pub async fn get_abs(&self, url: &str) -> reqwest::Response {
        self.client
            .get(url)
            .bearer_auth(&self.token)
            .header("Accept", "application/json")
            .send()
            .await
            .expect("request")
    }

    pub async fn json(&self, path: &str) -> Value {
        let r = self.get(path).await;
        assert_eq!(r.status(), 200, "GET {path}");
        r.json().await.expect("json")
    }

    pub async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> reqwest::Response {
        let mut rb = self
            .client
            .request(method, self.url(&format!("/api/v1/{DIV}/{path}")))
            .bearer_auth(&self.token)
            .header("Accept", "application/json");
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        rb.send().await.expect("request")
    }

    pub async fn stop(self) {
        self.sim.stop().await;
    }
}

/// Sign in as a browser would: open the page, submit its form unchanged, follow the redirect's code.
pub async fn sign_in(client: &reqwest::Client, base: &str) -> (String, String) {
    let page = client
        .get(format!("{base}/api/oauth2/auth"))
        .query(&[
            ("client_id", "demo-client"),
            ("redirect_uri", REDIRECT),
            ("response_type", "code"),
            ("state", "s1"),
            ("force_login", "0"),
        ])
        .send()
        .await
        .expect("sign-in page")
        .text()
        .await
        .expect("html");
    let form = form_fields(&page);
    let res = client.post(format!("{base}/api/oauth2/auth")).form(&form).send().await.expect("approve");
    assert_eq!(res.status(), 302);
    let location = res.headers()["location"].to_str().expect("location").to_string();
    let url = url::Url::parse(&location).expect("redirect url");
    assert!(location.starts_with(REDIRECT));
    let q: std::collections::HashMap<_, _> = url.query_pairs().into_owned().collect();
    assert_eq!(q["state"], "s1");
    let t =
        token(client, base, &[("grant_type", "authorization_code"), ("code", &q["code"]), ("redirect_uri", REDIRECT)])
            .await;
    assert_eq!(t.status(), 200);
    let body: Value = t.json().await.expect("token json");
    (body["access_token"].as_str().expect("at").into(), body["refresh_token"].as_str().expect("rt").into())
}

pub async fn token(client: &reqwest::Client, base: &str, fields: &[(&str, &str)]) -> reqwest::Response {
    let mut form: Vec<(&str, &str)> = vec![("client_id", "demo-client"), ("client_secret", "demo-secret")];
    form.extend_from_slice(fields);
    client.post(format!("{base}/api/oauth2/token")).form(&form).send().await.expect("token call")
}

/// The (name, value) pairs a browser would submit: hidden inputs, checked radios, the submit button.
pub fn form_fields(html: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for tag in html.split('<').filter(|t| t.starts_with("input") || t.starts_with("button")) {
        let attr = |name: &str| {
            let key = format!("{name}=\"");
            tag.find(&key).map(|i| {
                let rest = &tag[i + key.len()..];
                rest[..rest.find('"').unwrap_or(rest.len())].replace("&amp;", "&").replace("&quot;", "\"")
            })
        };
        let is_radio = tag.contains("type=\"radio\"");
        if is_radio && !tag.contains(" checked") {
            continue;
        }
        if let (Some(n), Some(v)) = (attr("name"), attr("value")) {
            out.push((n, v));
        }
    }
    out
}

pub fn results(v: &Value) -> &Vec<Value> {
    v["d"]["results"].as_array().expect("d.results")
}
