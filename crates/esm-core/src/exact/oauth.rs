//! Exact Online's OAuth 2.0 code grant: the authorize URL, the code exchange and the refresh.

use super::clock::Clock;
use super::error::ExactError;
use super::reachability::Reachability;
use crate::config::Secret;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A provider token set with its absolute expiry (spec §3: expires_in converted to a time).
#[derive(Clone, Serialize, Deserialize, PartialEq)]
pub struct TokenSet {
    pub access_token: String,
    pub refresh_token: String,
    /// Epoch milliseconds at which the access token expires.
    pub expires_at_ms: i64,
}

impl std::fmt::Debug for TokenSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenSet").field("expires_at_ms", &self.expires_at_ms).finish_non_exhaustive()
    }
}

impl TokenSet {
    /// Milliseconds left before the access token expires (negative when expired).
    pub fn remaining_ms(&self, now_ms: i64) -> i64 {
        self.expires_at_ms - now_ms
    }
}

pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// The token endpoint's success body; `expires_in` is the string "600" on the real service.
#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    refresh_token: String,
    #[serde(default)]
    expires_in: Option<serde_json::Value>,
    #[serde(default)]
    token_type: Option<String>,
}

/// The app's OAuth client for one provider host.
#[derive(Clone)]
pub struct OAuthClient {
    http: reqwest::Client,
    base_url: String,
    client_id: String,
    client_secret: Secret,
    /// Token calls count for the outage banner like every other provider call.
    reachability: Option<Arc<Reachability>>,
    /// What a token's `expires_in` counts from.
    clock: Clock,
}

impl OAuthClient {
    pub fn new(http: reqwest::Client, base_url: &str, client_id: &str, client_secret: Secret) -> Self {
        OAuthClient {
            http,
            base_url: base_url.trim_end_matches('/').to_string(),
            client_id: client_id.to_string(),
            client_secret,
            reachability: None,
            clock: Clock::real(),
        }
    }

    /// Reckons token expiry by `clock` (the provider client's).
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The clock token expiry is reckoned by.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Reports the outcome of token calls to `reachability` (the provider client's).
    pub fn reporting_to(mut self, reachability: Arc<Reachability>) -> Self {
        self.reachability = Some(reachability);
        self
    }

    fn report(&self, failure: Option<&str>) {
        if let Some(r) = &self.reachability {
            match failure {
                Some(error) => r.failed(now_ms(), error),
                None => r.answered(now_ms()),
            }
        }
    }

    /// Where the browser goes to sign in; `state` binds the answer to this browser.
    pub fn authorize_url(&self, redirect_uri: &str, state: &str) -> String {
        format!(
            "{}/api/oauth2/auth?client_id={}&redirect_uri={}&response_type=code&state={}&force_login=0",
            self.base_url,
            urlencoding::encode(&self.client_id),
            urlencoding::encode(redirect_uri),
            urlencoding::encode(state)
        )
    }

    /// Exchanges a (single-use, 3-minute) authorization code for tokens.
    pub async fn exchange_code(&self, code: &str, redirect_uri: &str) -> Result<TokenSet, ExactError> {
        self.token_call(&[
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("grant_type", "authorization_code"),
            ("client_id", &self.client_id),
            ("client_secret", self.client_secret.expose()),
        ])
        .await
    }

    /// Exchanges the refresh token for a new set (the old refresh token dies: rotation).
    pub async fn refresh(&self, refresh_token: &str) -> Result<TokenSet, ExactError> {
        self.token_call(&[
            ("refresh_token", refresh_token),
            ("grant_type", "refresh_token"),
            ("client_id", &self.client_id),
            ("client_secret", self.client_secret.expose()),
        ])
        .await
    }

    async fn token_call(&self, form: &[(&str, &str)]) -> Result<TokenSet, ExactError> {
        let url = format!("{}/api/oauth2/token", self.base_url);
        let resp = self
            .http
            .post(&url)
            .header("Accept", "application/json")
            .form(form)
            .send()
            .await
            .map_err(|e| ExactError::Network(without_url(e)))
            .inspect_err(|e| self.report(Some(&e.to_string())))?;
        let status = resp.status().as_u16();
        let body = resp
            .bytes()
            .await
            .map_err(|e| ExactError::Network(without_url(e)))
            .inspect_err(|e| self.report(Some(&e.to_string())))?;
        if status >= 500 {
            self.report(Some(&format!("Exact Online answered {status}")));
        } else {
            self.report(None);
        }
        if status != 200 {
            let message = super::envelope::error_message(&body);
            return Err(match status {
                400 | 401 | 403 => ExactError::Unauthorized(message),
                s if s >= 500 => ExactError::Server { status: s, message },
                s => ExactError::Rejected { status: s, message },
            });
        }
        let parsed: TokenResponse = serde_json::from_slice(&body)
            .map_err(|e| ExactError::Malformed(format!("token response is not as expected: {e}")))?;
        if let Some(t) = &parsed.token_type
            && !t.eq_ignore_ascii_case("bearer")
        {
            return Err(ExactError::Malformed(format!("unexpected token type {t}")));
        }
        let seconds = match &parsed.expires_in {
            Some(serde_json::Value::String(s)) => s.trim().parse::<i64>().ok(),
            Some(serde_json::Value::Number(n)) => n.as_i64(),
            _ => None,
        }
        .unwrap_or(600);
        Ok(TokenSet {
            access_token: parsed.access_token,
            refresh_token: parsed.refresh_token,
            expires_at_ms: self.clock.now_ms() + Duration::from_secs(seconds.max(0) as u64).as_millis() as i64,
        })
    }
}

/// reqwest errors print the URL; the token URL has no secret, but query strings elsewhere might.
pub(crate) fn without_url(e: reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else if e.is_body() || e.is_decode() {
        "the answer broke off"
    } else {
        "request failed"
    };
    format!("{kind}: {}", e.without_url())
}
