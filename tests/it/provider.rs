//! Harness for tests that need the provider: the simulator plus a server pointed at it, signed in
//! the way a browser would (our login route, the provider's form with its default choice, our
//! authorize route) and the organization activated with a licence code.

use crate::support::{TestServer, client};
use esm_sim::{SimOptions, Simulator};
use std::time::Duration;
use stock_manager::auth::licence::Issuer;
use stock_manager::config::Config;
use stock_manager::exact::Waits;
use stock_manager::server::StartOptions;

pub struct World {
    pub sim: Simulator,
    pub server: TestServer,
    pub division: i64,
    pub user: String,
    /// `Cookie` header of the signed-in, activated session.
    pub cookie: String,
    /// Signs licence codes the server trusts.
    pub issuer: Issuer,
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

/// Submits the simulator's sign-in form (reached at `authorize_url`) with its default choice;
/// answers where the provider sends the browser back (the callback URL with code and state).
pub async fn approve(authorize_url: &str) -> url::Url {
    approve_as(authorize_url, None).await
}

/// [`approve`] as the demo user at `user` (the form's order), or the default choice.
pub async fn approve_as(authorize_url: &str, user: Option<usize>) -> url::Url {
    let http = client();
    let html = http.get(authorize_url).send().await.unwrap().text().await.unwrap();
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
        let chosen = match user {
            Some(i) => attr("value").is_some_and(|v| v == i.to_string()),
            None => part.contains("checked"),
        };
        if ty == "hidden" || (ty == "radio" && chosen) {
            form.push((attr("name").unwrap(), attr("value").unwrap_or_default()));
        }
    }
    let parsed = url::Url::parse(authorize_url).unwrap();
    let action = format!("{}{}", &parsed[..url::Position::BeforePath], parsed.path());
    let res = http.post(action).form(&form).send().await.unwrap();
    assert_eq!(res.status(), 302, "sign-in redirects back");
    url::Url::parse(res.headers()["location"].to_str().unwrap()).unwrap()
}

pub fn query(url: &url::Url, key: &str) -> Option<String> {
    url.query_pairs().find(|(k, _)| k == key).map(|(_, v)| v.into_owned())
}

/// Signs in at the simulator for `redirect_uri` outside the product's login route; returns the code.
pub async fn sign_in_code(sim_base: &str, redirect_uri: &str) -> String {
    let url = format!(
        "{sim_base}/api/oauth2/auth?client_id=demo-client&redirect_uri={}&response_type=code&state=s1",
        urlencoding::encode(redirect_uri)
    );
    let back = approve(&url).await;
    assert_eq!(query(&back, "state").as_deref(), Some("s1"));
    query(&back, "code").expect("code")
}

/// The value of a `Set-Cookie` the response carries.
pub fn set_cookie(res: &reqwest::Response, name: &str) -> Option<String> {
    res.headers().get_all("set-cookie").iter().filter_map(|v| v.to_str().ok()).find_map(|v| {
        let (pair, _) = v.split_once(';').unwrap_or((v, ""));
        let (k, val) = pair.split_once('=')?;
        (k.trim() == name).then(|| val.trim().to_string())
    })
}

/// What a browser's sign-in leaves: the session cookie (as a `Cookie` header) and the session.
pub struct SignedIn {
    pub cookie: String,
    pub session: serde_json::Value,
    /// The provider's authorization code and the sign-in's state (for tests that look for leaks).
    pub code: String,
    pub state: String,
}

/// Signs in the way a browser does: our login route (state cookie), the provider's form, then
/// our authorize route with the code and state.
pub async fn browser_sign_in(server_url: &str) -> SignedIn {
    browser_sign_in_as(server_url, None).await
}

/// [`browser_sign_in`] as the demo user at `user`, or the sign-in page's default choice.
pub async fn browser_sign_in_as(server_url: &str, user: Option<usize>) -> SignedIn {
    let http = client();
    let res = http.get(format!("{server_url}/api/v1/auth/login")).send().await.unwrap();
    assert_eq!(res.status(), 302, "login sends the browser to the provider");
    let nonce = set_cookie(&res, "esm_login").expect("login cookie");
    let back = approve_as(res.headers()["location"].to_str().unwrap(), user).await;
    assert_eq!(back.path(), "/callback");
    let code = query(&back, "code").expect("code");
    let state = query(&back, "state").expect("state");
    let body = serde_json::json!({"code": code, "state": state});
    let res = http
        .post(format!("{server_url}/api/v1/auth/authorize"))
        .header("cookie", format!("esm_login={nonce}"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "authorize");
    let cookie = format!("esm_session={}", set_cookie(&res, "esm_session").expect("session cookie"));
    SignedIn { cookie, session: res.json().await.unwrap(), code, state }
}

/// A server pointed at `sim` (no schedule) that trusts `issuer`'s licence codes; `edit` adds to
/// its config.
pub async fn server_for(sim: &Simulator, issuer: &Issuer, edit: impl FnOnce(&mut Config)) -> TestServer {
    server_waiting(sim, issuer, edit, quick_waits()).await
}

/// [`server_for`] with the given waits (and the clock they are reckoned by).
pub async fn server_waiting(
    sim: &Simulator,
    issuer: &Issuer,
    edit: impl FnOnce(&mut Config),
    waits: Waits,
) -> TestServer {
    let base = sim.base_url().to_string();
    let key = issuer.public_key();
    TestServer::start_with(
        move |c| {
            c.provider.base_url = base;
            c.provider.client_id = "demo-client".into();
            c.provider.client_secret = stock_manager::config::Secret::new("demo-secret");
            c.sync.interval_minutes = 0;
            c.sync.on_startup = false;
            c.licence.public_key = Some(key);
            edit(c);
        },
        StartOptions { waits, ..StartOptions::default() },
    )
    .await
}

impl World {
    pub async fn start(sim: SimOptions) -> World {
        World::start_with(sim, |_| {}).await
    }

    /// [`World::start`] with `edit` adding to the server's config (printers, say).
    pub async fn start_with(sim: SimOptions, edit: impl FnOnce(&mut Config)) -> World {
        let sim = Simulator::start(sim).await.expect("simulator starts");
        let issuer = Issuer::generate();
        let server = server_for(&sim, &issuer, edit).await;
        World::signed_in(sim, issuer, server).await
    }

    /// A world whose server waits the spec's waits by the simulator's clock (which may run faster
    /// than real time), with access tokens of `token_seconds` from the first sign-in on: a sync
    /// lives through Exact's minute windows and token lifetimes as it would for real.
    pub async fn start_on_sim_time(sim: SimOptions, token_seconds: i64) -> World {
        let sim = Simulator::start(sim).await.expect("simulator starts");
        sim.handle().set_token_lifetime(token_seconds);
        let issuer = Issuer::generate();
        let waits = Waits { clock: sim.handle().clock(), ..Waits::default() };
        let server = server_waiting(&sim, &issuer, |_| {}, waits).await;
        World::signed_in(sim, issuer, server).await
    }

    /// Signs in at `server` and activates the organization.
    async fn signed_in(sim: Simulator, issuer: Issuer, server: TestServer) -> World {
        let signed_in = browser_sign_in(&server.url).await;
        let division = signed_in.session["division"].as_i64().expect("division");
        let customer = signed_in.session["customer_name"].as_str().expect("customer").to_string();
        let state = server.running.as_ref().unwrap().state();
        let user = state.serverdb.org_token_user(division).unwrap().expect("token owner");
        let code = issuer.issue(division, &customer, None);
        let res = server
            .client
            .post(server.at("/api/v1/license/activate"))
            .header("cookie", &signed_in.cookie)
            .json(&serde_json::json!({"division": division, "customer": customer, "code": code}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "licence activation");
        World { sim, server, division, user, cookie: signed_in.cookie, issuer }
    }

    /// A request with the session cookie.
    pub fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.server.client.request(method, self.server.at(path)).header("cookie", &self.cookie)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.request(reqwest::Method::GET, path).send().await.unwrap()
    }

    pub async fn post_json(&self, path: &str, body: serde_json::Value) -> reqwest::Response {
        self.request(reqwest::Method::POST, path).json(&body).send().await.unwrap()
    }

    /// Starts a sync over HTTP and waits until it finished; returns the final status.
    pub async fn sync(&self, endpoints: Option<Vec<&str>>) -> serde_json::Value {
        let body = match endpoints {
            Some(e) => serde_json::json!({ "endpoints": e }),
            None => serde_json::json!({}),
        };
        // A write the outbox just sent starts its own sync of the tables it touched: let that
        // one finish, then run ours (the product answers 409 `sync_running` meanwhile).
        for _ in 0..20 {
            let res = self.post_json("/api/v1/sync", body.clone()).await;
            if res.status() == 409 {
                self.wait_for_sync().await;
                continue;
            }
            assert_eq!(res.status(), 202, "{}", res.text().await.unwrap_or_default());
            return self.wait_for_sync().await;
        }
        panic!("a sync could be started within 20 tries")
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

    /// Waits (up to 60 s) until the outbox has nothing left to send, and checks that nothing in
    /// it was refused; answers its last listing.
    pub async fn outbox_drained(&self) -> serde_json::Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let outbox: serde_json::Value = self.get("/api/v1/outbox").await.json().await.unwrap();
            if outbox["pending"] == 0 {
                assert_eq!(outbox["failed"], 0, "{outbox}");
                return outbox;
            }
            assert!(std::time::Instant::now() < deadline, "delivered in time: {outbox}");
            actix_web::rt::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub async fn stop(self) {
        self.server.stop().await;
        self.sim.stop().await;
    }
}
