//! Server-side sessions. The browser holds a random id in an HttpOnly cookie; `server.redb` keeps
//! the record under the SHA-256 of that id, so a copied database file yields no usable cookie.
//! Provider tokens stay in the token store; a session only names the provider user.

use crate::serverdb::{SESSIONS, ServerDb};
use actix_web::cookie::{Cookie, SameSite, time::Duration as CookieDuration};
use anyhow::Result;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Arc;

pub const SESSION_COOKIE: &str = "esm_session";
/// Binds a sign-in's `state` to the browser that started it.
pub const LOGIN_COOKIE: &str = "esm_login";
/// A session unused this long is over (a long shift plus a break).
pub const SESSION_IDLE_MS: i64 = 12 * 3_600_000;
/// A started sign-in must come back within this time (the provider's codes live 3 minutes).
pub const LOGIN_TTL_MS: i64 = 10 * 60_000;
/// How long a fresh re-authentication opens ImportData.
pub const REAUTH_TTL_MS: i64 = 10 * 60_000;
/// Last-seen is written at most this often, so reads do not turn into disk writes.
const TOUCH_EVERY_MS: i64 = 60_000;

/// A division the signed-in user may switch to.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DivisionChoice {
    pub division: i64,
    pub name: String,
    #[serde(default)]
    pub customer: String,
}

/// What the server remembers about a signed-in browser.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SessionRecord {
    /// The provider's UserID: the key of the token store.
    pub user: String,
    pub user_name: String,
    pub full_name: String,
    /// The organization the session works in.
    pub division: i64,
    pub customer_name: String,
    pub divisions: Vec<DivisionChoice>,
    /// The login process is complete (spec §4's registered / processComplete flag).
    pub registered: bool,
    /// ImportData is open until then (epoch ms) after a fresh re-authentication.
    pub reauth_until_ms: Option<i64>,
    pub created_ms: i64,
    pub last_seen_ms: i64,
}

/// A sign-in that went to the provider and has not come back yet.
#[derive(Debug, Clone)]
pub struct PendingLogin {
    /// Must equal the login cookie of the browser that comes back.
    pub nonce: String,
    pub redirect_uri: String,
    pub purpose: LoginPurpose,
    pub return_to: Option<String>,
    pub created_ms: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum LoginPurpose {
    /// A normal sign-in: a new session.
    #[default]
    Login,
    /// The second sign-in ImportData asks for: refreshes the current session's re-auth time.
    Reauth,
}

/// 32 random bytes, URL-safe: session ids, login nonces and states.
pub fn random_id() -> String {
    let bytes: [u8; 32] = rand::random();
    URL_SAFE_NO_PAD.encode(bytes)
}

fn key_of(cookie_value: &str) -> String {
    let digest = Sha256::digest(cookie_value.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The session table plus the sign-ins in flight (memory only: a restart asks for a new sign-in).
pub struct Sessions {
    db: Arc<ServerDb>,
    pending: Mutex<HashMap<String, PendingLogin>>,
}

impl Sessions {
    pub fn new(db: Arc<ServerDb>) -> Self {
        Sessions { db, pending: Mutex::default() }
    }

    /// Stores a new session; answers the cookie value (shown to nobody but the browser).
    pub fn create(&self, record: &SessionRecord) -> Result<String> {
        let id = random_id();
        self.db.put_json(SESSIONS, &key_of(&id), record)?;
        Ok(id)
    }

    /// The live session behind a cookie value; an idle one is removed and answers `None`.
    pub fn get(&self, cookie_value: &str, now_ms: i64) -> Result<Option<SessionRecord>> {
        let key = key_of(cookie_value);
        let Some(mut record) = self.db.get_json::<SessionRecord>(SESSIONS, &key)? else { return Ok(None) };
        if now_ms - record.last_seen_ms > SESSION_IDLE_MS {
            self.db.remove(SESSIONS, &key)?;
            return Ok(None);
        }
        if now_ms - record.last_seen_ms > TOUCH_EVERY_MS {
            record.last_seen_ms = now_ms;
            self.db.put_json(SESSIONS, &key, &record)?;
        }
        Ok(Some(record))
    }

    pub fn save(&self, cookie_value: &str, record: &SessionRecord) -> Result<()> {
        self.db.put_json(SESSIONS, &key_of(cookie_value), record)
    }

    pub fn delete(&self, cookie_value: &str) -> Result<()> {
        self.db.remove(SESSIONS, &key_of(cookie_value))
    }

    /// Whether any other session still belongs to `user` (their tokens are shared).
    pub fn user_has_sessions(&self, user: &str) -> Result<bool> {
        Ok(self.db.all_json::<SessionRecord>(SESSIONS)?.iter().any(|(_, r)| r.user == user))
    }

    /// Remembers a sign-in that is leaving for the provider; answers its `state`.
    pub fn start_login(&self, login: PendingLogin) -> String {
        let state = random_id();
        let mut pending = self.pending.lock();
        pending.retain(|_, p| login.created_ms - p.created_ms < LOGIN_TTL_MS);
        pending.insert(state.clone(), login);
        state
    }

    /// Takes the sign-in for `state` if the browser's login cookie matches it and it is recent.
    pub fn finish_login(&self, state: &str, nonce: Option<&str>, now_ms: i64) -> Option<PendingLogin> {
        let mut pending = self.pending.lock();
        let login = pending.get(state)?;
        // A mismatching browser leaves the entry for the right one.
        if nonce != Some(login.nonce.as_str()) {
            return None;
        }
        let login = pending.remove(state)?;
        (now_ms - login.created_ms < LOGIN_TTL_MS).then_some(login)
    }
}

/// A cookie with the flags every cookie of ours carries.
pub fn cookie(name: &'static str, value: String, secure: bool, max_age_ms: i64) -> Cookie<'static> {
    Cookie::build(name, value)
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(secure)
        .max_age(CookieDuration::milliseconds(max_age_ms))
        .finish()
}

/// Tells the browser to forget a cookie.
pub fn removal(name: &'static str, secure: bool) -> Cookie<'static> {
    let mut c = cookie(name, String::new(), secure, 0);
    c.make_removal();
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(now: i64) -> SessionRecord {
        SessionRecord {
            user: "u1".into(),
            user_name: "demo".into(),
            full_name: "Demo".into(),
            division: 1,
            customer_name: "C".into(),
            divisions: vec![],
            registered: false,
            reauth_until_ms: None,
            created_ms: now,
            last_seen_ms: now,
        }
    }

    #[test]
    fn sessions_live_until_idle_and_are_stored_under_a_hash() {
        let dir = tempfile::tempdir().unwrap();
        let db = Arc::new(ServerDb::open(dir.path()).unwrap());
        let sessions = Sessions::new(db.clone());
        let id = sessions.create(&record(1_000)).unwrap();
        assert!(db.get_json::<SessionRecord>(SESSIONS, &id).unwrap().is_none(), "the raw id is never a key");
        assert_eq!(sessions.get(&id, 2_000).unwrap().map(|r| r.user), Some("u1".into()));
        assert!(sessions.get("forged", 2_000).unwrap().is_none());
        assert!(sessions.get(&id, 1_000 + SESSION_IDLE_MS + 1).unwrap().is_none(), "idle sessions end");
        assert!(sessions.get(&id, 2_000).unwrap().is_none(), "and are gone");
    }

    #[test]
    fn a_login_finishes_once_and_only_in_the_browser_that_started_it() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = Sessions::new(Arc::new(ServerDb::open(dir.path()).unwrap()));
        let login = |nonce: &str| PendingLogin {
            nonce: nonce.into(),
            redirect_uri: "http://x/callback".into(),
            purpose: LoginPurpose::Login,
            return_to: None,
            created_ms: 0,
        };
        let state = sessions.start_login(login("n1"));
        assert!(sessions.finish_login(&state, Some("other"), 1).is_none(), "another browser's cookie");
        assert!(sessions.finish_login(&state, None, 1).is_none(), "no cookie");
        assert!(sessions.finish_login(&state, Some("n1"), 1).is_some());
        assert!(sessions.finish_login(&state, Some("n1"), 2).is_none(), "single use");
        let late = sessions.start_login(login("n2"));
        assert!(sessions.finish_login(&late, Some("n2"), LOGIN_TTL_MS + 1).is_none(), "too late");
    }
}
