//! First run (see [`crate::setup`]): `GET /setup` says whether the server waits to be set up and
//! what to register in the Exact App Center; `POST /setup/test` takes the setup code, client id,
//! secret and country host and answers the Exact sign-in that tests them; `POST /setup/finish`
//! takes that sign-in's return, and when Exact accepted it writes the config and restarts.
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
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub fn routes(r: &mut Router) {
    r.public("/setup", |res| res.get(status));
    r.public("/setup/test", |res| res.post(test));
    r.public("/setup/finish", |res| res.post(finish));
}

/// The cookie that binds a test sign-in to the browser that started it.
const SETUP_COOKIE: &str = "esm_setup";
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
        let body = if restarting { json!({ "needed": false, "restarting": true }) } else { json!({ "needed": false }) };
        return HttpResponse::Ok().insert_header(("Cache-Control", "no-store")).json(body);
    };
    let hosts: Vec<Value> = PROVIDER_HOSTS.iter().map(|(name, url)| json!({ "name": name, "url": url })).collect();
    HttpResponse::Ok().insert_header(("Cache-Control", "no-store")).json(json!({
        "needed": true,
        "redirectUrl": super::auth::callback_url(&state, &req),
        "baseUrl": state.config.provider.base_url,
        "clientId": state.config.provider.client_id,
        "hosts": hosts,
        "configFile": first_run.config_file.display().to_string(),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TestBody {
    setup_code: String,
    client_id: String,
    client_secret: String,
    base_url: String,
}

async fn test(state: web::Data<AppState>, req: HttpRequest, body: web::Json<TestBody>) -> AppResult<HttpResponse> {
    let first_run = first_run(&state)?;
    let body = body.into_inner();
    let key = super::client::ClientInfo::of(&req).ip.map(|ip| ip.to_string()).unwrap_or_default();
    let now = Instant::now();
    first_run.attempts.check(&key, now).map_err(super::auth::too_many)?;
    if !first_run.code_matches(&body.setup_code) {
        first_run.attempts.fail(&key, now);
        tracing::warn!("first-run setup refused: wrong setup code");
        return Err(AppError::with_message(
            Code::Forbidden,
            "The setup code is wrong: it is printed in the server's log and on its console",
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
    let redirect_uri = super::auth::callback_url(&state, &req);
    let pending = FirstRun::new_pending(client_id, Secret::new(client_secret), base_url, redirect_uri);
    let oauth = OAuthClient::new(http()?, &pending.base_url, &pending.client_id, pending.client_secret.clone());
    let authorize_url = oauth.authorize_url(&pending.redirect_uri, &pending.state);
    let nonce = pending.nonce.clone();
    first_run.begin(pending);
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .cookie(session::cookie(SETUP_COOKIE, nonce, state.auth.secure_cookies, SETUP_COOKIE_TTL_MS))
        .json(json!({ "authorizeUrl": authorize_url })))
}

/// The country host, as an origin without a trailing slash: one of Exact's, or another http(s)
/// origin (a test double, a proxy the company runs).
fn provider_host(given: &str) -> AppResult<String> {
    let url = url::Url::parse(given.trim())
        .map_err(|_| AppError::bad_request("The Exact Online host is not a URL, e.g. https://start.exactonline.nl"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(AppError::bad_request("The Exact Online host must be an https:// address"));
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

fn http() -> AppResult<reqwest::Client> {
    ExactClient::http_client(Duration::from_secs(60)).map_err(AppError::internal)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FinishBody {
    code: String,
    state: String,
}

async fn finish(state: web::Data<AppState>, req: HttpRequest, body: web::Json<FinishBody>) -> AppResult<HttpResponse> {
    let first_run = first_run(&state)?;
    let nonce = req.cookie(SETUP_COOKIE).map(|c| c.value().to_string());
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
    first_run.complete(&pending).map_err(|e| {
        tracing::error!(error = %format!("{e:#}"), "first-run setup: the config cannot be written");
        AppError::with_message(
            Code::Unknown,
            format!(
                "Exact Online accepted the settings, but they cannot be saved ({e:#}). Put client_id, client_secret and base_url in the [provider] section of {} and restart Stock Manager",
                first_run.config_file.display()
            ),
        )
    })?;
    tracing::info!(config_file = %first_run.config_file.display(), base_url = %pending.base_url, "first-run setup done: restarting with the new settings");
    Ok(HttpResponse::Ok().cookie(session::removal(SETUP_COOKIE, state.auth.secure_cookies)).json(json!({
        "done": true,
        "userName": text("UserName"),
        "customerName": text("DivisionCustomerName"),
        "division": me.get("CurrentDivision").and_then(Value::as_i64),
        "configFile": first_run.config_file.display().to_string(),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_is_an_http_origin() {
        assert_eq!(provider_host("https://start.exactonline.be/").unwrap(), "https://start.exactonline.be");
        assert_eq!(provider_host(" http://127.0.0.1:9000 ").unwrap(), "http://127.0.0.1:9000");
        assert!(provider_host("start.exactonline.nl").is_err());
        assert!(provider_host("ftp://start.exactonline.nl").is_err());
        assert!(provider_host("javascript:alert(1)").is_err());
    }
}
