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
/// The cookie names over TLS: `__Host-` makes browsers insist on Secure, Path=/ and no Domain,
/// so a sibling host or a plain-http page cannot plant or overwrite them.
const SECURE_SESSION_COOKIE: &str = "__Host-esm_session";
const SECURE_LOGIN_COOKIE: &str = "__Host-esm_login";
/// A session unused this long is over (a long shift plus a break).
pub const SESSION_IDLE_MS: i64 = 12 * 3_600_000;
/// A session ends this long after its sign-in however busy it is (a stolen cookie does not last).
pub const SESSION_MAX_MS: i64 = 7 * 24 * 3_600_000;
pub use crate::limits::{MAX_PENDING_LOGINS, MAX_PENDING_LOGINS_PER_ADDRESS, MAX_STREAMS_PER_SESSION};
/// A started sign-in must come back within this time (the provider's codes live 3 minutes).
pub const LOGIN_TTL_MS: i64 = 10 * 60_000;
/// How long a fresh re-authentication makes an administrator (with the admin password) and opens
/// ImportData.
pub const REAUTH_TTL_MS: i64 = 15 * 60_000;
/// Last-seen is written at most this often, so reads do not turn into disk writes.
const TOUCH_EVERY_MS: i64 = 60_000;

/// A division the signed-in user may switch to.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct DivisionChoice {
    #[schema(example = 123456)]
    pub division: i64,
    #[schema(example = "Demo Metaal B.V.")]
    pub name: String,
    /// Always sent; a session kept before customers were stored reads as empty.
    #[serde(default)]
    #[schema(example = "Demo Metaal B.V.", required = true)]
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

impl SessionRecord {
    /// Neither idle too long nor past its absolute lifetime.
    pub fn live_at(&self, now_ms: i64) -> bool {
        now_ms - self.last_seen_ms <= SESSION_IDLE_MS && now_ms - self.created_ms <= SESSION_MAX_MS
    }
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
    /// Where the sign-in was started from (bounded per address).
    pub address: Option<std::net::IpAddr>,
}

/// Why a sign-in could not be started now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LoginsFull {
    #[error("too many sign-ins in progress from this address")]
    Address,
    #[error("too many sign-ins in progress")]
    Server,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default, utoipa::ToSchema)]
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

/// The session cookie's name: `__Host-` prefixed when cookies are Secure.
pub fn session_cookie_name(secure: bool) -> &'static str {
    if secure { SECURE_SESSION_COOKIE } else { SESSION_COOKIE }
}

/// The login cookie's name: `__Host-` prefixed when cookies are Secure.
pub fn login_cookie_name(secure: bool) -> &'static str {
    if secure { SECURE_LOGIN_COOKIE } else { LOGIN_COOKIE }
}

/// The session table plus the sign-ins in flight (memory only: a restart asks for a new sign-in).
pub struct Sessions {
    db: Arc<ServerDb>,
    pending: Mutex<HashMap<String, PendingLogin>>,
    /// Open event streams per session (by the session's key), oldest first.
    streams: Arc<Mutex<StreamTable>>,
    /// Sessions (by key) ended because Exact refused their user, with when: their browser's next
    /// call hears why once (memory only: after a restart it hears "not authorized").
    refused: Mutex<HashMap<String, i64>>,
}

/// Sessions ended by a refusal that are remembered to tell their browser why; older ones are
/// forgotten first (a browser that never came back within the idle time would have expired).
const MAX_REFUSED_KEPT: usize = 10_000;

#[derive(Default)]
struct StreamTable {
    next_id: u64,
    open: HashMap<String, std::collections::VecDeque<(u64, Arc<tokio::sync::Notify>)>>,
}

/// One open event stream of a session; dropping it frees the slot. `closed` is signalled when a
/// newer stream of the same session took the slot.
pub struct StreamSlot {
    streams: Arc<Mutex<StreamTable>>,
    key: String,
    id: u64,
    closed: Arc<tokio::sync::Notify>,
}

impl StreamSlot {
    /// Resolves once a newer stream of the session took this one's slot.
    pub async fn closed(&self) {
        self.closed.notified().await
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut table = self.streams.lock();
        if let Some(open) = table.open.get_mut(&self.key) {
            open.retain(|(id, _)| *id != self.id);
            if open.is_empty() {
                table.open.remove(&self.key);
            }
        }
    }
}

impl Sessions {
    pub fn new(db: Arc<ServerDb>) -> Self {
        Sessions { db, pending: Mutex::default(), streams: Arc::default(), refused: Mutex::default() }
    }

    /// Stores a new session; answers the cookie value (shown to nobody but the browser).
    pub fn create(&self, record: &SessionRecord) -> Result<String> {
        let id = random_id();
        self.db.put_json(SESSIONS, &key_of(&id), record)?;
        Ok(id)
    }

    /// The record stored under `key`. One that no longer decodes (damaged, or written by a version
    /// with another shape) is removed and answers [`Unreadable`]: its browser cannot go on with it
    /// and must sign in again, where a plain error would refuse it on every call.
    fn read(&self, key: &str) -> Result<Option<SessionRecord>> {
        let Some(raw) =
            self.db.get_json::<serde_json::Value>(SESSIONS, key).map_err(|e| unreadable_if_decoding(self, key, e))?
        else {
            return Ok(None);
        };
        match serde_json::from_value::<SessionRecord>(raw) {
            Ok(record) => Ok(Some(record)),
            Err(e) => Err(unreadable(self, key, e.into())),
        }
    }

    /// The live session behind a cookie value; an idle or too old one is removed and answers `None`.
    /// A stored record that cannot be read any more is removed and answers an [`Unreadable`] error.
    pub fn get(&self, cookie_value: &str, now_ms: i64) -> Result<Option<SessionRecord>> {
        let key = key_of(cookie_value);
        let Some(mut record) = self.read(&key)? else { return Ok(None) };
        if !record.live_at(now_ms) {
            self.db.remove(SESSIONS, &key)?;
            return Ok(None);
        }
        if now_ms - record.last_seen_ms > TOUCH_EVERY_MS {
            record.last_seen_ms = now_ms;
            self.db.put_json(SESSIONS, &key, &record)?;
        }
        Ok(Some(record))
    }

    /// The division of the session behind a cookie value while it still holds, without counting
    /// as a use (an open event stream must not keep an idle session alive).
    pub fn live_division(&self, cookie_value: &str, now_ms: i64) -> Result<Option<i64>> {
        match self.read(&key_of(cookie_value)) {
            Ok(record) => Ok(record.filter(|r| r.live_at(now_ms)).map(|r| r.division)),
            Err(e) if e.is::<Unreadable>() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Whether the session behind a cookie value still holds (see [`Sessions::live_division`]).
    pub fn is_live(&self, cookie_value: &str, now_ms: i64) -> Result<bool> {
        Ok(self.live_division(cookie_value, now_ms)?.is_some())
    }

    /// Takes one of the session's event stream slots. When all are in use the oldest stream is
    /// closed for it: a handheld that lost its Wi-Fi leaves streams the server cannot see are gone
    /// (only a write tells, and TCP may retry one for minutes), and the one asking now is the one
    /// that is surely there.
    pub fn open_stream(&self, cookie_value: &str) -> StreamSlot {
        let key = key_of(cookie_value);
        let mut table = self.streams.lock();
        table.next_id += 1;
        let id = table.next_id;
        let closed = Arc::new(tokio::sync::Notify::new());
        let open = table.open.entry(key.clone()).or_default();
        while open.len() >= MAX_STREAMS_PER_SESSION {
            if let Some((_, oldest)) = open.pop_front() {
                // A stored permit: the stream ends at its next look even if it is not waiting now.
                oldest.notify_one();
            }
        }
        open.push_back((id, closed.clone()));
        StreamSlot { streams: self.streams.clone(), key, id, closed }
    }

    /// Open event streams of the session behind a cookie value.
    pub fn open_streams(&self, cookie_value: &str) -> usize {
        self.streams.lock().open.get(&key_of(cookie_value)).map_or(0, |o| o.len())
    }

    pub fn save(&self, cookie_value: &str, record: &SessionRecord) -> Result<()> {
        self.db.put_json(SESSIONS, &key_of(cookie_value), record)
    }

    pub fn delete(&self, cookie_value: &str) -> Result<()> {
        self.db.remove(SESSIONS, &key_of(cookie_value))
    }

    /// Every live session's record (what an administrator sees: no cookie values).
    pub fn live_records(&self, now_ms: i64) -> Result<Vec<SessionRecord>> {
        let all = self.db.all_json::<serde_json::Value>(SESSIONS)?;
        Ok(all
            .into_iter()
            .filter_map(|(_, raw)| serde_json::from_value::<SessionRecord>(raw).ok())
            .filter(|r| r.live_at(now_ms))
            .collect())
    }

    /// Ends every session of `user` at once (their open event streams too); answers how many.
    pub fn end_all_of(&self, user: &str) -> Result<usize> {
        Ok(self.end_where_user(user)?.len())
    }

    /// Ends every session of `user` because Exact refused their sign-in, remembering each so that
    /// its browser's next call can say why ([`Sessions::take_refusal`]); answers how many.
    pub fn end_refused(&self, user: &str, now_ms: i64) -> Result<usize> {
        let keys = self.end_where_user(user)?;
        let mut refused = self.refused.lock();
        refused.retain(|_, at| now_ms - *at <= SESSION_IDLE_MS);
        for key in &keys {
            if refused.len() >= MAX_REFUSED_KEPT
                && let Some(oldest) = refused.iter().min_by_key(|(_, at)| **at).map(|(k, _)| k.clone())
            {
                refused.remove(&oldest);
            }
            refused.insert(key.clone(), now_ms);
        }
        Ok(keys.len())
    }

    /// Whether the session behind a cookie value was ended because Exact refused its user; told
    /// once.
    pub fn take_refusal(&self, cookie_value: &str) -> bool {
        self.refused.lock().remove(&key_of(cookie_value)).is_some()
    }

    /// Removes every session of `user` and closes their event streams; answers their keys.
    fn end_where_user(&self, user: &str) -> Result<Vec<String>> {
        let all = self.db.all_json::<serde_json::Value>(SESSIONS)?;
        let keys: Vec<String> = all
            .into_iter()
            .filter(|(_, r)| {
                r.get("user").and_then(serde_json::Value::as_str).is_some_and(|u| u.eq_ignore_ascii_case(user))
            })
            .map(|(key, _)| key)
            .collect();
        for key in &keys {
            self.db.remove(SESSIONS, key)?;
            if let Some(open) = self.streams.lock().open.remove(key) {
                for (_, closed) in open {
                    closed.notify_one();
                }
            }
        }
        Ok(keys)
    }

    /// Whether any other session still belongs to `user` (their tokens are shared).
    pub fn user_has_sessions(&self, user: &str, now_ms: i64) -> Result<bool> {
        // Read loosely: one unreadable record must not stop every logout from dropping tokens.
        let all = self.db.all_json::<serde_json::Value>(SESSIONS)?;
        let ms = |r: &serde_json::Value, field: &str| r.get(field).and_then(serde_json::Value::as_i64);
        Ok(all.iter().any(|(_, r)| {
            // an expired session left in the file (no request came to remove it) keeps nothing
            // open; a record without times is counted, to be safe
            let live = match (ms(r, "created_ms"), ms(r, "last_seen_ms")) {
                (Some(created_ms), Some(last_seen_ms)) => {
                    now_ms - last_seen_ms <= SESSION_IDLE_MS && now_ms - created_ms <= SESSION_MAX_MS
                }
                _ => true,
            };
            live && r.get("user").and_then(serde_json::Value::as_str) == Some(user)
        }))
    }

    /// Remembers a sign-in that is leaving for the provider; answers its `state`. Past the bounds
    /// (per address, then server-wide) the start is refused and every sign-in in progress stays:
    /// a flood waits for its own to expire, it never pushes out someone else's.
    pub fn start_login(&self, login: PendingLogin) -> Result<String, LoginsFull> {
        let mut pending = self.pending.lock();
        pending.retain(|_, p| login.created_ms - p.created_ms < LOGIN_TTL_MS);
        if login.address.is_some()
            && pending.values().filter(|p| p.address == login.address).count() >= MAX_PENDING_LOGINS_PER_ADDRESS
        {
            return Err(LoginsFull::Address);
        }
        if pending.len() >= MAX_PENDING_LOGINS {
            return Err(LoginsFull::Server);
        }
        let state = random_id();
        pending.insert(state.clone(), login);
        Ok(state)
    }

    /// Sign-ins in flight.
    pub fn pending_logins(&self) -> usize {
        self.pending.lock().len()
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

/// A stored session that could not be decoded any more; it has been removed (spec §8's critical
/// error: the browser is returned to the sign-in).
#[derive(Debug, thiserror::Error)]
#[error("a stored session could not be read and was removed")]
pub struct Unreadable;

/// `e` (from reading `key`) as [`Unreadable`] when it is a decoding failure, after removing the
/// record; other failures (the database itself) pass unchanged.
fn unreadable_if_decoding(sessions: &Sessions, key: &str, e: anyhow::Error) -> anyhow::Error {
    if e.downcast_ref::<serde_json::Error>().is_some() { unreadable(sessions, key, e) } else { e }
}

fn unreadable(sessions: &Sessions, key: &str, cause: anyhow::Error) -> anyhow::Error {
    tracing::warn!(cause = %format!("{cause:#}"), "a stored session cannot be read; it is removed");
    if let Err(e) = sessions.db.remove(SESSIONS, key) {
        tracing::error!(error = %format!("{e:#}"), "cannot remove an unreadable session");
    }
    anyhow::Error::new(Unreadable)
}

/// A cookie with the flags every cookie of ours carries (`secure` ones are named `__Host-…` by
/// the callers: see [`session_cookie_name`]).
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
    fn an_unreadable_session_is_removed_and_reported_as_such() {
        let dir = tempfile::tempdir().unwrap();
        let db = Arc::new(ServerDb::open(dir.path()).unwrap());
        let sessions = Sessions::new(db.clone());
        let id = sessions.create(&record(1_000)).unwrap();
        let other = sessions.create(&record(1_000)).unwrap();
        // a record of another shape (an incompatible version, or damage)
        db.put_json(SESSIONS, &key_of(&id), &serde_json::json!({ "user": 7 })).unwrap();
        assert!(sessions.user_has_sessions("u1", 2_000).unwrap(), "the readable one still counts");
        assert!(!sessions.user_has_sessions("u1", 1_000 + SESSION_IDLE_MS + 1).unwrap(), "an idle one does not");
        let err = sessions.get(&id, 2_000).expect_err("not a session any more");
        assert!(err.is::<Unreadable>(), "{err:#}");
        assert!(sessions.get(&id, 2_000).unwrap().is_none(), "and it is gone");
        assert!(sessions.get(&other, 2_000).unwrap().is_some(), "the others stay");
        db.put_json(SESSIONS, &key_of(&other), &serde_json::json!("garbage")).unwrap();
        assert!(!sessions.is_live(&other, 2_000).unwrap(), "an event stream ends with it");
        assert!(sessions.get(&other, 2_000).unwrap().is_none());
    }

    #[test]
    fn sessions_end_after_their_lifetime_however_busy() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = Sessions::new(Arc::new(ServerDb::open(dir.path()).unwrap()));
        let id = sessions.create(&record(0)).unwrap();
        let mut t = 0;
        while t < SESSION_MAX_MS - SESSION_IDLE_MS {
            t += SESSION_IDLE_MS / 2;
            assert!(sessions.get(&id, t).unwrap().is_some(), "used every 6 hours at {t}");
        }
        assert!(sessions.is_live(&id, SESSION_MAX_MS).unwrap());
        assert!(!sessions.is_live(&id, SESSION_MAX_MS + 1).unwrap(), "a stream sees the end");
        assert!(sessions.get(&id, SESSION_MAX_MS + 1).unwrap().is_none(), "7 days after sign-in it ends");
    }

    #[tokio::test]
    async fn event_streams_per_session_are_capped_by_closing_the_oldest() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = Sessions::new(Arc::new(ServerDb::open(dir.path()).unwrap()));
        let mut open: Vec<_> = (0..MAX_STREAMS_PER_SESSION).map(|_| sessions.open_stream("a")).collect();
        assert_eq!(sessions.open_streams("a"), MAX_STREAMS_PER_SESSION);
        let newest = sessions.open_stream("a");
        assert_eq!(sessions.open_streams("a"), MAX_STREAMS_PER_SESSION, "still at the cap");
        let closed = tokio::time::timeout(std::time::Duration::from_secs(1), open[0].closed()).await;
        assert!(closed.is_ok(), "the oldest stream is told to end");
        let second = tokio::time::timeout(std::time::Duration::from_millis(50), open[1].closed()).await;
        assert!(second.is_err(), "the others stay");
        let _b = sessions.open_stream("b");
        assert_eq!(sessions.open_streams("b"), 1, "another session has its own");
        drop(open.remove(0));
        assert_eq!(sessions.open_streams("a"), MAX_STREAMS_PER_SESSION, "dropping the closed one changes nothing");
        drop(open);
        drop(newest);
        assert_eq!(sessions.open_streams("a"), 0, "every slot is freed");
    }

    #[tokio::test]
    async fn sessions_ended_by_a_refusal_say_so_once_and_only_theirs() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = Sessions::new(Arc::new(ServerDb::open(dir.path()).unwrap()));
        let first = sessions.create(&record(0)).unwrap();
        let second = sessions.create(&record(0)).unwrap();
        let other = sessions.create(&SessionRecord { user: "u2".into(), ..record(0) }).unwrap();
        let stream = sessions.open_stream(&first);
        assert_eq!(sessions.end_refused("U1", 10).unwrap(), 2, "user ids compare as Exact's GUIDs do");
        let closed = tokio::time::timeout(std::time::Duration::from_secs(1), stream.closed()).await;
        assert!(closed.is_ok(), "their event stream ends");
        assert!(sessions.get(&first, 20).unwrap().is_none() && sessions.get(&second, 20).unwrap().is_none());
        assert!(sessions.take_refusal(&first), "the browser hears why");
        assert!(!sessions.take_refusal(&first), "once");
        assert!(!sessions.take_refusal(&other) && sessions.get(&other, 20).unwrap().is_some(), "others stay");
        // remembered no longer than a session could have stayed idle
        sessions.end_refused("u2", SESSION_IDLE_MS + 20).unwrap();
        assert!(!sessions.take_refusal(&second), "forgotten once it would have expired anyway");
        assert!(sessions.take_refusal(&other));
    }

    fn login_from(at: i64, address: Option<&str>) -> PendingLogin {
        PendingLogin {
            nonce: format!("n{at}"),
            redirect_uri: "http://x/callback".into(),
            purpose: LoginPurpose::Login,
            return_to: None,
            created_ms: at,
            address: address.map(|a| a.parse().expect("an address")),
        }
    }

    #[test]
    fn pending_sign_ins_are_bounded_per_address_and_in_all_without_forgetting_any() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = Sessions::new(Arc::new(ServerDb::open(dir.path()).unwrap()));
        let real = sessions.start_login(login_from(0, Some("10.0.0.7"))).expect("a real sign-in starts");
        for at in 1..=MAX_PENDING_LOGINS_PER_ADDRESS as i64 {
            sessions.start_login(login_from(at, Some("10.0.0.66"))).expect("within the address's bound");
        }
        assert_eq!(sessions.start_login(login_from(99, Some("10.0.0.66"))), Err(LoginsFull::Address));
        // many addresses fill the server's bound; then everybody waits, nobody is pushed out
        let mut at = 100;
        while sessions.pending_logins() < MAX_PENDING_LOGINS {
            let address = format!("10.1.{}.{}", at / 250, at % 250);
            sessions.start_login(login_from(at, Some(&address))).expect("within the bound");
            at += 1;
        }
        assert_eq!(sessions.start_login(login_from(at, Some("10.9.9.9"))), Err(LoginsFull::Server));
        assert!(sessions.finish_login(&real, Some("n0"), at).is_some(), "the real sign-in still finishes");
        // expired ones make room again
        let later = sessions.start_login(login_from(LOGIN_TTL_MS + 200_000, Some("10.0.0.66")));
        assert!(later.is_ok(), "after the sign-in time, the flood's entries are gone");
    }

    #[test]
    fn a_login_finishes_once_and_only_in_the_browser_that_started_it() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = Sessions::new(Arc::new(ServerDb::open(dir.path()).unwrap()));
        let login = |nonce: &str| PendingLogin { nonce: nonce.into(), ..login_from(0, None) };
        let state = sessions.start_login(login("n1")).unwrap();
        assert!(sessions.finish_login(&state, Some("other"), 1).is_none(), "another browser's cookie");
        assert!(sessions.finish_login(&state, None, 1).is_none(), "no cookie");
        assert!(sessions.finish_login(&state, Some("n1"), 1).is_some());
        assert!(sessions.finish_login(&state, Some("n1"), 2).is_none(), "single use");
        let late = sessions.start_login(login("n2")).unwrap();
        assert!(sessions.finish_login(&late, Some("n2"), LOGIN_TTL_MS + 1).is_none(), "too late");
    }
}
