//! First run (see [`crate::setup`]): `GET /setup` says whether the server waits to be set up and
//! what to register in the Exact App Center; `POST /setup/test` takes the setup code, client id,
//! secret and country host and answers the Exact sign-in that tests them; `POST /setup/finish`
//! takes that sign-in's return, and when Exact accepted it writes the settings file (in the data
//! directory) and restarts.
//! All public: the setup code is the protection, and every route answers "already set up" once
//! the server has its credentials.

use super::router::Router;
use crate::auth::session;
use crate::config::Secret;
use crate::error::{AppError, AppResult, Code};
use crate::exact::oauth::OAuthClient;
use crate::exact::{ExactClient, Waits};
use crate::setup::{FirstRun, PROVIDER_HOSTS};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};
use utoipa::ToSchema;

pub fn routes(r: &mut Router) {
    r.public("/setup", |res| {
        res.get(status).json::<SetupStatus>(200, "Whether the server waits to be set up, and what to register for it")
    });
    r.public("/setup/test", |res| {
        res.post(test)
            .body::<SetupTestBody>()
            .json::<SetupTest>(200, "The Exact Online sign-in that tests the client id and secret")
            .fails(&[Code::NotFound, Code::TooManyRequests])
    });
    r.public("/setup/finish", |res| {
        res.post(finish)
            .body::<SetupFinishBody>()
            .json::<SetupDone>(200, "Exact Online accepted the settings: they are saved and the server restarts")
            .fails(&[Code::NotFound, Code::LoginState, Code::Provider])
    });
}

/// Whether the server waits to be set up; while it does, what to register in the Exact App Center.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SetupStatus {
    needed: bool,
    /// Set up just now: the server restarts with the new settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    restarting: Option<bool>,
    /// The redirect URL to register with the app.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "https://stock.demometaal.nl/callback")]
    redirect_url: Option<String>,
    /// The configured Exact Online host.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "https://start.exactonline.nl")]
    base_url: Option<String>,
    /// The configured client id (empty until set up).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "")]
    client_id: Option<String>,
    /// Exact Online's country hosts to choose from.
    #[serde(skip_serializing_if = "Option::is_none")]
    hosts: Option<Vec<ProviderHost>>,
    /// The settings file in the data directory the setup writes to.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "/var/lib/stock-manager/settings.toml")]
    settings_file: Option<String>,
}

/// One of Exact Online's country hosts.
#[derive(Serialize, ToSchema)]
struct ProviderHost {
    #[schema(example = "Nederland")]
    name: &'static str,
    #[schema(example = "https://start.exactonline.nl")]
    url: &'static str,
}

/// The cookie that binds a test sign-in to the browser that started it; `__Host-` under TLS, so
/// no other host or path can set it.
const SETUP_COOKIE: &str = "esm_setup";
const SECURE_SETUP_COOKIE: &str = "__Host-esm_setup";

fn setup_cookie_name(secure: bool) -> &'static str {
    if secure { SECURE_SETUP_COOKIE } else { SETUP_COOKIE }
}
const SETUP_COOKIE_TTL_MS: i64 = 15 * 60 * 1000;
/// Longest client id and secret accepted (Exact's are a GUID and about 12 characters).
const MAX_CREDENTIAL: usize = 200;

fn first_run(state: &AppState) -> AppResult<&Arc<FirstRun>> {
    state
        .first_run
        .as_ref()
        .filter(|f| !f.is_done())
        .ok_or_else(|| AppError::with_message(Code::NotFound, "Stock Manager is already set up"))
}

async fn status(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    let Ok(first_run) = first_run(&state) else {
        // Set up just now: this instance is about to make way for one with the new config.
        let restarting = state.first_run.as_ref().is_some_and(|f| f.is_done());
        let body = SetupStatus {
            needed: false,
            restarting: restarting.then_some(true),
            redirect_url: None,
            base_url: None,
            client_id: None,
            hosts: None,
            settings_file: None,
        };
        return HttpResponse::Ok().insert_header(("Cache-Control", "no-store")).json(body);
    };
    let hosts = PROVIDER_HOSTS.iter().map(|&(name, url)| ProviderHost { name, url }).collect();
    HttpResponse::Ok().insert_header(("Cache-Control", "no-store")).json(SetupStatus {
        needed: true,
        restarting: None,
        redirect_url: Some(super::client::callback_url(state.config.public_url.as_deref(), &req)),
        base_url: Some(state.config.provider.base_url.clone()),
        client_id: Some(state.config.provider.client_id.clone()),
        hosts: Some(hosts),
        settings_file: Some(first_run.settings_file.display().to_string()),
    })
}

/// The setup code and the app's credentials to test.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SetupTestBody {
    /// The code the server prints on its console.
    #[schema(example = "K7QF-2M9X-H4TW")]
    setup_code: String,
    /// The app's client id from the Exact App Center.
    #[schema(example = "3f6d2a10-5b7c-4e8f-9a1b-2c3d4e5f6a7b")]
    client_id: String,
    client_secret: String,
    /// The country host, e.g. one of `hosts`.
    #[schema(example = "https://start.exactonline.nl")]
    base_url: String,
}

/// Where to send the browser to test the credentials.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SetupTest {
    #[schema(
        example = "https://start.exactonline.nl/api/oauth2/auth?client_id=…&redirect_uri=…&response_type=code&state=…"
    )]
    authorize_url: String,
}

async fn test(state: web::Data<AppState>, req: HttpRequest, body: web::Json<SetupTestBody>) -> AppResult<HttpResponse> {
    let first_run = first_run(&state)?;
    let body = body.into_inner();
    let key = super::client::ClientInfo::of(&req).ip.map(|ip| ip.to_string()).unwrap_or_default();
    let now = Instant::now();
    first_run.attempts.check(&key, now).map_err(AppError::too_many_attempts)?;
    if !first_run.code_matches(&body.setup_code) {
        first_run.attempts.fail(&key, now);
        tracing::warn!("first-run setup refused: wrong setup code");
        return Err(AppError::with_message(
            Code::Forbidden,
            "The setup code is wrong: it is printed on the server's console (under systemd: journalctl -u stock-manager)",
        ));
    }
    first_run.attempts.succeed(&key);
    let client_id = body.client_id.trim().to_string();
    let client_secret = body.client_secret.trim().to_string();
    if client_id.is_empty() || client_secret.is_empty() {
        return Err(AppError::bad_request("Enter the client id and the client secret from the Exact App Center"));
    }
    if client_id.len() > MAX_CREDENTIAL || client_secret.len() > MAX_CREDENTIAL {
        return Err(AppError::bad_request("The client id or secret is too long"));
    }
    let base_url = provider_host(&body.base_url)?;
    if let Some(problem) = hidden_by_config(&state.config, &base_url) {
        return Err(AppError::bad_request(problem));
    }
    reachable(&base_url).await?;
    let redirect_uri = super::client::callback_url(state.config.public_url.as_deref(), &req);
    let pending = FirstRun::new_pending(client_id, Secret::new(client_secret), base_url, redirect_uri);
    let oauth = OAuthClient::new(http()?, &pending.base_url, &pending.client_id, pending.client_secret.clone());
    let authorize_url = oauth.authorize_url(&pending.redirect_uri, &pending.state);
    let nonce = pending.nonce.clone();
    first_run.begin(pending);
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .cookie(session::cookie(
            setup_cookie_name(state.auth.secure_cookies),
            nonce,
            state.auth.secure_cookies,
            SETUP_COOKIE_TTL_MS,
        ))
        .json(SetupTest { authorize_url }))
}

/// The country host, as an origin without a trailing slash: one of Exact's, or another https
/// origin (a proxy the company runs); plain http only on this machine (the built-in simulator).
fn provider_host(given: &str) -> AppResult<String> {
    let url = url::Url::parse(given.trim())
        .map_err(|_| AppError::bad_request("The Exact Online host is not a URL, e.g. https://start.exactonline.nl"))?;
    if !crate::config::is_provider_origin(&url) {
        return Err(AppError::bad_request("The Exact Online host must be an https:// address"));
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

/// Why what the setup would save could not take effect: a layer above the settings file (an old
/// config file's `client_id = ""`, an environment variable) sets the same key, and the server
/// would come back from its restart still waiting to be set up, or at another host.
fn hidden_by_config(config: &crate::config::Config, base_url: &str) -> Option<String> {
    use crate::config::Source;
    let above = |key: &str| config.sources.get(key).copied().filter(|s| *s > Source::SettingsFile);
    let base_differs = config.provider.base_url.trim_end_matches('/') != base_url;
    let hidden = ["provider.client_id", "provider.client_secret"]
        .into_iter()
        .chain(base_differs.then_some("provider.base_url"))
        .find_map(|key| above(key).map(|source| (key, source)))?;
    let (key, source) = hidden;
    let place = match (source, &config.file) {
        (Source::ConfigFile, Some(file)) => format!("the config file {}", file.display()),
        (source, _) => format!("the {source}"),
    };
    Some(format!(
        "`{key}` is set in {place}, which overrides what the setup saves: remove it there (or set all of [provider] there yourself) and restart Stock Manager"
    ))
}

/// How long the setup waits for Exact's host to answer before it says it cannot be reached.
const REACH_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether Exact's sign-in page answers from here: the browser goes there next, and from a network
/// that cannot reach it would land on its own error page, the typed form gone. Any answer will do.
async fn reachable(base_url: &str) -> AppResult<()> {
    let probe = http()?.get(format!("{base_url}/api/oauth2/auth")).timeout(REACH_TIMEOUT).send().await;
    match probe {
        Ok(_) => Ok(()),
        Err(e) => {
            tracing::warn!(host = %base_url, error = %e, "first-run setup: Exact Online cannot be reached");
            Err(AppError::with_message(
                Code::ProviderUnreachable,
                format!(
                    "Exact Online ({base_url}) cannot be reached from this server: check its internet connection and the country chosen, then test again"
                ),
            ))
        }
    }
}

fn http() -> AppResult<reqwest::Client> {
    ExactClient::http_client(Duration::from_secs(60)).map_err(AppError::internal)
}

/// What Exact Online's sign-in handed back to the callback page.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct SetupFinishBody {
    code: String,
    state: String,
}

/// The settings are saved; who signed in to test them.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SetupDone {
    done: bool,
    #[schema(example = "anna@demometaal.nl")]
    user_name: String,
    #[schema(example = "Demo Metaal B.V.")]
    customer_name: String,
    #[schema(example = 123456)]
    division: Option<i64>,
    #[schema(example = "/var/lib/stock-manager/settings.toml")]
    settings_file: String,
}

async fn finish(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<SetupFinishBody>,
) -> AppResult<HttpResponse> {
    let first_run = first_run(&state)?;
    let nonce = req.cookie(setup_cookie_name(state.auth.secure_cookies)).map(|c| c.value().to_string());
    let pending = first_run.take(&body.state, nonce.as_deref()).ok_or_else(|| {
        AppError::with_message(
            Code::LoginState,
            "This sign-in does not belong to a setup started in this browser, or it took too long: start the setup again",
        )
    })?;
    let http = http()?;
    let oauth = OAuthClient::new(http.clone(), &pending.base_url, &pending.client_id, pending.client_secret.clone());
    let tokens = oauth.exchange_code(&body.code, &pending.redirect_uri).await.map_err(|e| {
        tracing::warn!(error = %e, "first-run setup: Exact Online refused the client id and secret");
        AppError::with_message(
            Code::BadRequest,
            format!(
                "Exact Online did not accept this client id and secret ({e}): check them in the App Center, and that its redirect URL is {}",
                pending.redirect_uri
            ),
        )
    })?;
    let me =
        ExactClient::new(http, &pending.base_url, Waits::default()).me(&tokens.access_token).await.map_err(|e| {
            AppError::with_message(
                Code::Provider,
                format!("Exact Online signed in, then did not answer who you are: {e}"),
            )
        })?;
    let text = |k: &str| me.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    // The Exact user id: unlike the e-mail address, its owner cannot change it.
    let admin = Some(text("UserID")).filter(|id| !id.is_empty()).or_else(|| Some(text("Email")));
    first_run.complete(&pending, admin.as_deref()).map_err(|e| {
        tracing::error!(error = %format!("{e:#}"), "first-run setup: the settings file cannot be written");
        AppError::with_message(
            Code::Unknown,
            format!(
                "Exact Online accepted the settings, but they cannot be saved ({e:#}): the service must be able to write its data directory ({})",
                first_run.settings_file.display()
            ),
        )
    })?;
    tracing::info!(settings_file = %first_run.settings_file.display(), base_url = %pending.base_url, "first-run setup done: restarting with the new settings");
    let cookie = session::removal(setup_cookie_name(state.auth.secure_cookies), state.auth.secure_cookies);
    Ok(HttpResponse::Ok().cookie(cookie).json(SetupDone {
        done: true,
        user_name: text("UserName"),
        customer_name: text("DivisionCustomerName"),
        division: me.get("CurrentDivision").and_then(Value::as_i64),
        settings_file: first_run.settings_file.display().to_string(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_is_an_http_origin() {
        assert_eq!(provider_host("https://start.exactonline.be/").unwrap(), "https://start.exactonline.be");
        assert_eq!(provider_host(" http://127.0.0.1:9000 ").unwrap(), "http://127.0.0.1:9000");
        assert_eq!(provider_host("http://[::1]:9000").unwrap(), "http://[::1]:9000");
        assert!(provider_host("http://start.exactonline.nl").is_err(), "the secret would go in the clear");
        assert!(provider_host("http://exact.example.lan:8080").is_err());
        assert!(provider_host("start.exactonline.nl").is_err());
        assert!(provider_host("ftp://start.exactonline.nl").is_err());
        assert!(provider_host("javascript:alert(1)").is_err());
    }

    #[test]
    fn keys_set_above_the_settings_file_stop_the_setup_with_where_they_are() {
        use crate::config::{Config, Source};
        let mut config = Config { file: Some("/etc/stock-manager/config.toml".into()), ..Config::default() };
        let nl = "https://start.exactonline.nl";
        config.sources.insert("provider.client_secret".into(), Source::SettingsFile);
        assert_eq!(hidden_by_config(&config, nl), None);
        config.sources.insert("provider.base_url".into(), Source::ConfigFile);
        assert_eq!(hidden_by_config(&config, nl), None, "the same host");
        let other = hidden_by_config(&config, "https://start.exactonline.be").expect("another host is hidden");
        assert!(other.contains("`provider.base_url`") && other.contains("/etc/stock-manager/config.toml"), "{other}");
        config.sources.insert("provider.client_id".into(), Source::Environment);
        let id = hidden_by_config(&config, nl).expect("hidden");
        assert!(id.contains("`provider.client_id` is set in the environment"), "{id}");
    }
}
