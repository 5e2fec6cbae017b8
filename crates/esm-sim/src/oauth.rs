//! OAuth 2.0 as the provider runs it: single-use 3-minute codes, 600-second access tokens that may
//! only be renewed in their last 30 seconds, and rotating refresh tokens (one chain per user).

use serde::Serialize;
use std::collections::{HashMap, HashSet};

pub const ACCESS_TTL_MS: i64 = 600_000;
pub const TOO_EARLY_MS: i64 = 570_000;
pub const CODE_TTL_MS: i64 = 180_000;
pub const REFRESH_IDLE_MS: i64 = 30 * 86_400_000;
/// The shortest access-token lifetime tests may ask for.
pub const MIN_ACCESS_TTL_MS: i64 = 1_000;

/// A person who can sign in on the simulated sign-in page.
#[derive(Debug, Clone, Serialize)]
pub struct DemoUser {
    pub id: u128,
    pub user_name: String,
    pub first_name: String,
    pub last_name: String,
    pub email: String,
}

impl DemoUser {
    pub fn full_name(&self) -> String {
        format!("{} {}", self.first_name, self.last_name)
    }
}

struct Code {
    user: usize,
    redirect_uri: String,
    issued_ms: i64,
    used: bool,
}

struct Chain {
    current: String,
    issued_ms: i64,
    last_access_ms: i64,
}

/// The token endpoint's success body; `expires_in` is a string, as the provider sends it.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct TokenResponse {
    pub access_token: String,
    pub token_type: String,
    pub expires_in: String,
    pub refresh_token: String,
}

/// A token-endpoint refusal in the OAuth error shape.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenError {
    pub status: u16,
    pub error: &'static str,
    pub description: Option<String>,
    /// Value of the `Reason` response header, when the provider sends one.
    pub reason: Option<String>,
}

impl TokenError {
    fn new(status: u16, error: &'static str, description: Option<&str>) -> TokenError {
        TokenError { status, error, description: description.map(str::to_string), reason: None }
    }

    pub fn body(&self) -> String {
        match &self.description {
            Some(d) => serde_json::json!({"error": self.error, "error_description": d}).to_string(),
            None => serde_json::json!({"error": self.error}).to_string(),
        }
    }
}

pub struct OAuth {
    pub client_id: String,
    pub client_secret: String,
    codes: HashMap<String, Code>,
    access: HashMap<String, (usize, i64)>,
    chains: HashMap<usize, Chain>,
    old_refresh: HashSet<String>,
    /// Access token lifetime; the provider's is 600 s. Tests shorten it to see expiry quickly.
    access_ttl_ms: i64,
}

fn random_token(prefix: &str) -> String {
    // The provider's codes and refresh tokens contain '!', which clients must URL-encode.
    let a: u128 = rand::random();
    let b: u128 = rand::random();
    format!("{prefix}!IAAAA{a:032x}{b:032x}")
}

impl OAuth {
    pub fn new(client_id: &str, client_secret: &str) -> OAuth {
        OAuth {
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            codes: HashMap::new(),
            access: HashMap::new(),
            chains: HashMap::new(),
            old_refresh: HashSet::new(),
            access_ttl_ms: ACCESS_TTL_MS,
        }
    }

    /// Sets the lifetime of tokens issued from now on (at least 1 s). Renewal still opens 30 s
    /// before expiry, so a token of 30 s or less may be renewed as soon as it is issued.
    pub fn set_access_ttl_ms(&mut self, ms: i64) {
        self.access_ttl_ms = ms.max(MIN_ACCESS_TTL_MS);
    }

    pub fn access_ttl_ms(&self) -> i64 {
        self.access_ttl_ms
    }

    /// A fresh authorization code for `user`, bound to `redirect_uri`.
    pub fn issue_code(&mut self, user: usize, redirect_uri: &str, now_ms: i64) -> String {
        self.codes.retain(|_, c| now_ms - c.issued_ms < CODE_TTL_MS * 10);
        let code = random_token("XTzM");
        self.codes
            .insert(code.clone(), Code { user, redirect_uri: redirect_uri.into(), issued_ms: now_ms, used: false });
        code
    }

    /// Handle a POST to the token endpoint (form fields already decoded).
    pub fn token(&mut self, form: &HashMap<String, String>, now_ms: i64) -> Result<TokenResponse, TokenError> {
        let field = |k: &str| form.get(k).map(String::as_str).unwrap_or("");
        if field("client_id") != self.client_id || field("client_secret") != self.client_secret {
            return Err(TokenError::new(400, "invalid_request", None));
        }
        match field("grant_type") {
            "authorization_code" => {
                let code = self
                    .codes
                    .get_mut(field("code"))
                    .ok_or_else(|| TokenError::new(400, "invalid_grant", Some("The authorization code is invalid.")))?;
                if code.used {
                    return Err(TokenError::new(
                        400,
                        "invalid_grant",
                        Some("The authorization code has already been used."),
                    ));
                }
                if now_ms - code.issued_ms > CODE_TTL_MS {
                    return Err(TokenError::new(400, "invalid_grant", Some("The authorization code has expired.")));
                }
                if code.redirect_uri != field("redirect_uri") {
                    return Err(TokenError::new(400, "invalid_grant", Some("The redirect_uri does not match.")));
                }
                code.used = true;
                let user = code.user;
                // A new sign-in starts a new chain; the previous chain's refresh token dies.
                if let Some(old) = self.chains.remove(&user) {
                    self.old_refresh.insert(old.current);
                }
                Ok(self.issue(user, now_ms))
            }
            "refresh_token" => {
                let token = field("refresh_token");
                if self.old_refresh.contains(token) {
                    return Err(TokenError::new(401, "unauthorized_client", Some("Old refresh token used.")));
                }
                let (user, chain) = self
                    .chains
                    .iter()
                    .find(|(_, c)| c.current == token)
                    .map(|(u, c)| (*u, (c.issued_ms, c.last_access_ms)))
                    .ok_or_else(|| TokenError::new(400, "invalid_grant", Some("The refresh token is invalid.")))?;
                let (issued, last_access) = chain;
                if now_ms - issued > REFRESH_IDLE_MS {
                    let fmt = |ms: i64| {
                        chrono::DateTime::from_timestamp_millis(ms)
                            .map(|d| d.format("%-m/%-d/%Y %-I:%M:%S %p").to_string())
                            .unwrap_or_default()
                    };
                    let msg = format!(
                        "The refresh token expired at {} and it is now {}.",
                        fmt(issued + REFRESH_IDLE_MS),
                        fmt(now_ms)
                    );
                    return Err(TokenError::new(400, "invalid_request", Some(&msg)));
                }
                // Renewal opens in the token's last 30 s (570 s into the provider's 600 s).
                if now_ms - last_access < self.access_ttl_ms - (ACCESS_TTL_MS - TOO_EARLY_MS) {
                    let mut e =
                        TokenError::new(400, "access_denied", Some("Rate limit exceeded: access_token not expired"));
                    e.reason = Some("TooEarlyToRefreshTokens: Rate limit exceeded: access_token not expired".into());
                    return Err(e);
                }
                self.old_refresh.insert(token.to_string());
                self.chains.remove(&user);
                Ok(self.issue(user, now_ms))
            }
            _ => Err(TokenError::new(400, "unsupported_grant_type", None)),
        }
    }

    fn issue(&mut self, user: usize, now_ms: i64) -> TokenResponse {
        self.access.retain(|_, (_, exp)| *exp > now_ms - self.access_ttl_ms);
        let access_token = format!("AAEAA{:032x}{:032x}", rand::random::<u128>(), rand::random::<u128>());
        let refresh_token = random_token("Gcp7");
        self.access.insert(access_token.clone(), (user, now_ms + self.access_ttl_ms));
        self.chains.insert(user, Chain { current: refresh_token.clone(), issued_ms: now_ms, last_access_ms: now_ms });
        TokenResponse {
            access_token,
            token_type: "bearer".into(),
            expires_in: (self.access_ttl_ms / 1000).to_string(),
            refresh_token,
        }
    }

    /// The user behind a bearer token, if it is known and not expired.
    pub fn user_of(&self, access_token: &str, now_ms: i64) -> Option<usize> {
        self.access.get(access_token).filter(|(_, exp)| *exp > now_ms).map(|(u, _)| *u)
    }

    /// Ends one user's grant (an administrator removed them from the company, or they withdrew
    /// the app): their access tokens stop working and their refresh token is no longer known, so
    /// Exact answers `invalid_grant` to it. A new sign-in starts a new grant.
    pub fn revoke_user(&mut self, user: usize) {
        self.access.retain(|_, (u, _)| *u != user);
        self.chains.remove(&user);
    }

    /// Forget every token and chain: the user revoked the app.
    pub fn revoke_all(&mut self) {
        self.access.clear();
        let chains: Vec<String> = self.chains.drain().map(|(_, c)| c.current).collect();
        self.old_refresh.extend(chains);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn codes_are_single_use_and_refresh_tokens_rotate() {
        let mut o = OAuth::new("c", "s");
        let code = o.issue_code(0, "http://x/cb", 0);
        let grant = [
            ("grant_type", "authorization_code"),
            ("client_id", "c"),
            ("client_secret", "s"),
            ("redirect_uri", "http://x/cb"),
        ];
        let mut f = form(&grant);
        f.insert("code".into(), code.clone());
        let t = o.token(&f, 1000).expect("first exchange");
        assert_eq!(t.expires_in, "600");
        assert_eq!(o.token(&f, 1000).expect_err("reuse").status, 400);
        let r = form(&[
            ("grant_type", "refresh_token"),
            ("client_id", "c"),
            ("client_secret", "s"),
            ("refresh_token", &t.refresh_token),
        ]);
        let early = o.token(&r, 1000 + 500_000).expect_err("too early");
        assert_eq!(early.error, "access_denied");
        assert!(early.reason.is_some());
        let t2 = o.token(&r, 1000 + 570_000).expect("in the last 30 s");
        assert_ne!(t2.refresh_token, t.refresh_token);
        let old = o.token(&r, 1000 + 1_200_000).expect_err("old token");
        assert_eq!((old.status, old.description.as_deref()), (401, Some("Old refresh token used.")));
        assert!(o.user_of(&t2.access_token, 1000 + 570_000 + 599_000).is_some());
        assert!(o.user_of(&t2.access_token, 1000 + 570_000 + 600_000).is_none());
    }

    #[test]
    fn short_tokens_may_be_renewed_at_once_and_die_at_their_lifetime() {
        let mut o = OAuth::new("c", "s");
        o.set_access_ttl_ms(20_000);
        let code = o.issue_code(0, "r", 0);
        let grant =
            [("grant_type", "authorization_code"), ("client_id", "c"), ("client_secret", "s"), ("redirect_uri", "r")];
        let mut f = form(&grant);
        f.insert("code".into(), code);
        let t = o.token(&f, 1000).expect("exchange");
        assert_eq!(t.expires_in, "20");
        assert!(o.user_of(&t.access_token, 1000 + 19_999).is_some());
        assert!(o.user_of(&t.access_token, 1000 + 20_000).is_none());
        let r = form(&[
            ("grant_type", "refresh_token"),
            ("client_id", "c"),
            ("client_secret", "s"),
            ("refresh_token", &t.refresh_token),
        ]);
        let t2 = o.token(&r, 1001).expect("a 20 s token is in its last 30 s from the start");
        assert!(o.user_of(&t2.access_token, 1001).is_some());
        o.set_access_ttl_ms(0);
        assert_eq!(o.access_ttl_ms(), MIN_ACCESS_TTL_MS);
    }

    #[test]
    fn a_revoked_user_is_refused_with_invalid_grant_and_others_go_on() {
        let mut o = OAuth::new("c", "s");
        o.set_access_ttl_ms(1_000);
        let sign_in = |o: &mut OAuth, user: usize| {
            let code = o.issue_code(user, "http://x/cb", 0);
            let f = form(&[
                ("client_id", "c"),
                ("client_secret", "s"),
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", "http://x/cb"),
            ]);
            o.token(&f, 0).unwrap()
        };
        let gone = sign_in(&mut o, 1);
        let kept = sign_in(&mut o, 2);
        o.revoke_user(1);
        assert_eq!(o.user_of(&gone.access_token, 10), None, "their access token stops working");
        assert_eq!(o.user_of(&kept.access_token, 10), Some(2));
        let refresh = |t: &str| {
            form(&[("client_id", "c"), ("client_secret", "s"), ("grant_type", "refresh_token"), ("refresh_token", t)])
        };
        let e = o.token(&refresh(&gone.refresh_token), 2_000).expect_err("refused");
        assert_eq!((e.status, e.error), (400, "invalid_grant"));
        assert!(o.token(&refresh(&kept.refresh_token), 2_000).is_ok(), "another user's grant stays");
        assert!(sign_in(&mut o, 1).access_token.starts_with("AAEAA"), "signing in again works");
    }

    #[test]
    fn codes_expire_after_three_minutes() {
        let mut o = OAuth::new("c", "s");
        let code = o.issue_code(0, "r", 0);
        let f = form(&[
            ("grant_type", "authorization_code"),
            ("client_id", "c"),
            ("client_secret", "s"),
            ("redirect_uri", "r"),
            ("code", &code),
        ]);
        assert_eq!(o.token(&f, CODE_TTL_MS + 1).expect_err("expired").status, 400);
    }
}
