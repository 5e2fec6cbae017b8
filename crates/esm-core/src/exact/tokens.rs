//! Provider tokens: one set per provider user, stored in server.redb, renewed when under 30 s
//! remain (spec §4, §9), one renewal at a time per user (single flight), rotation respected.
//!
//! Exact refuses a refresh before the last 30 s of a token's life and kills the whole chain when
//! an old refresh token is reused, so two concurrent refreshes must never happen and a rotated
//! refresh token must never be lost. Each renewal therefore runs in a task of its own that holds
//! the user's lock from reading the stored set to storing the new one: a caller that gives up
//! (a cancelled request, a client that went away) stops waiting, never the renewal.
//!
//! Nothing here decides whether a session is valid: an unreachable provider leaves the stored set
//! as it is (it is renewed when Exact answers again), and a refresh token Exact no longer accepts
//! is marked as such, so the user is asked to sign in again without losing their local work.

use super::error::ExactError;
use super::oauth::{OAuthClient, TokenSet};
use crate::serverdb::{ServerDb, TOKENS};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Refresh when fewer than this many milliseconds remain (spec §9: 30 s).
pub const REFRESH_THRESHOLD_MS: i64 = 30_000;
/// Refusals told before a slow listener misses some (it then reads the store instead).
const REFUSALS_BUFFERED: usize = 64;

/// A user's stored token set and what is known about it beyond the provider's answer.
#[derive(Clone, Serialize, Deserialize)]
struct Stored {
    #[serde(flatten)]
    set: TokenSet,
    /// Why Exact no longer accepts the refresh token (revoked, expired, chain broken); a new
    /// sign-in clears it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refused: Option<String>,
    /// The user signed out; the set is kept only for the writes they queued before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    signed_out: bool,
}

/// What the server can do with a user's provider sign-in right now, without asking the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum Access {
    /// A token set is stored and Exact has not refused it (it may be renewed when due).
    Ok,
    /// Exact refused the refresh token: the user must sign in with Exact Online again.
    SignInNeeded,
    /// No token set is stored (never signed in here, or signed out).
    None,
}

/// A stored user's provider sign-in, for calls that take its token as they go out (see
/// `client::Bearer`): renewed when due, and once more when Exact refuses it.
#[derive(Clone)]
pub struct UserToken {
    pub tokens: Arc<TokenManager>,
    pub user: String,
}

impl UserToken {
    pub fn new(tokens: Arc<TokenManager>, user: impl Into<String>) -> Self {
        UserToken { tokens, user: user.into() }
    }

    /// The user's sign-in, checked first (and renewed when due), so a missing or refused one is
    /// reported before any call is made.
    pub async fn checked(tokens: &Arc<TokenManager>, user: &str) -> Result<Self, ExactError> {
        tokens.access_token(user).await?;
        Ok(UserToken::new(tokens.clone(), user))
    }
}

pub struct TokenManager {
    db: Arc<ServerDb>,
    oauth: OAuthClient,
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    refreshing: Mutex<HashSet<String>>,
    /// Users whose refresh token Exact just refused: their sessions end (`auth::refusal`).
    refusals: tokio::sync::broadcast::Sender<String>,
}

fn store_error(e: anyhow::Error) -> ExactError {
    ExactError::Malformed(format!("token store: {e:#}"))
}

/// Whether the token endpoint's refusal only says "too early": the current token still works.
fn too_early(message: &str) -> bool {
    message.contains("TooEarlyToRefreshTokens") || message.contains("not expired")
}

impl TokenManager {
    pub fn new(db: Arc<ServerDb>, oauth: OAuthClient) -> Self {
        let (refusals, _) = tokio::sync::broadcast::channel(REFUSALS_BUFFERED);
        TokenManager { db, oauth, locks: Mutex::default(), refreshing: Mutex::default(), refusals }
    }

    /// Tells of every user whose refresh token Exact refuses from now on, once per refusal. A
    /// receiver that fell behind hears `Lagged` and should look at [`TokenManager::access`].
    pub fn refusals(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.refusals.subscribe()
    }

    pub fn oauth(&self) -> &OAuthClient {
        &self.oauth
    }

    /// Now, on the clock token expiry is reckoned by.
    fn now_ms(&self) -> i64 {
        self.oauth.clock().now_ms()
    }

    fn read(&self, user: &str) -> Result<Option<Stored>, ExactError> {
        self.db.get_json::<Stored>(TOKENS, user).map_err(store_error)
    }

    fn write(&self, user: &str, stored: &Stored) -> Result<(), ExactError> {
        self.db.put_json(TOKENS, user, stored).map_err(store_error)
    }

    /// Stores a fresh token set for `user` (a sign-in): usable again, whatever was known before.
    pub fn store(&self, user: &str, tokens: &TokenSet) -> Result<(), ExactError> {
        self.write(user, &Stored { set: tokens.clone(), refused: None, signed_out: false })
    }

    /// Drops the user's tokens.
    pub fn forget(&self, user: &str) -> Result<(), ExactError> {
        self.db.remove(TOKENS, user).map_err(store_error)
    }

    /// The user signed out: their set no longer serves anyone else, but is kept for the writes
    /// they queued before (dropped with [`TokenManager::forget`] once those are through).
    pub fn keep_for_queued_writes(&self, user: &str) -> Result<(), ExactError> {
        match self.read(user)? {
            Some(mut s) => {
                s.signed_out = true;
                self.write(user, &s)
            }
            None => Ok(()),
        }
    }

    /// Whether the user's set is only kept for their queued writes.
    pub fn is_signed_out(&self, user: &str) -> bool {
        self.read(user).ok().flatten().is_some_and(|s| s.signed_out)
    }

    /// The stored expiry of the user's access token, if any.
    pub fn expiry_ms(&self, user: &str) -> Option<i64> {
        self.read(user).ok().flatten().map(|t| t.set.expires_at_ms)
    }

    /// What the server can do with the user's sign-in (no provider call).
    pub fn access(&self, user: &str) -> Access {
        match self.read(user) {
            Ok(Some(s)) if s.refused.is_some() => Access::SignInNeeded,
            Ok(Some(_)) => Access::Ok,
            Ok(None) => Access::None,
            Err(e) => {
                tracing::error!(error = %e, "cannot read provider tokens");
                Access::None
            }
        }
    }

    /// Whether the user's set may serve the organization's sync, live reads and labels.
    pub fn serves_others(&self, user: &str) -> bool {
        self.read(user).ok().flatten().is_some_and(|s| s.refused.is_none() && !s.signed_out)
    }

    /// Whether a refresh is running for the user (the spec's `refreshingAuthorization` flag).
    pub fn is_refreshing(&self, user: &str) -> bool {
        self.refreshing.lock().contains(user)
    }

    fn lock_for(&self, user: &str) -> Arc<tokio::sync::Mutex<()>> {
        self.locks.lock().entry(user.to_string()).or_default().clone()
    }

    /// A valid access token for `user`, renewing it first when under 30 s remain.
    pub async fn access_token(self: &Arc<Self>, user: &str) -> Result<String, ExactError> {
        let current = self.usable(user)?;
        if current.set.remaining_ms(self.now_ms()) > REFRESH_THRESHOLD_MS {
            return Ok(current.set.access_token);
        }
        self.renew(user, current.set.access_token, false).await
    }

    /// The user's stored set, unless there is none or Exact refused its refresh token.
    fn usable(&self, user: &str) -> Result<Stored, ExactError> {
        let current = self.read(user)?.ok_or(ExactError::NoToken)?;
        match current.refused {
            Some(reason) => Err(ExactError::Unauthorized(reason)),
            None => Ok(current),
        }
    }

    /// Renews, in the background, every stored token set that is due (its last 30 s), so chains
    /// stay alive without a request asking and a refresh token Exact refused is noticed (the UI
    /// then asks that user to sign in again). After a failed renewal (Exact away) a user's set is
    /// tried again after `retry`, not on every tick.
    pub fn spawn_renewals(
        self: &Arc<Self>,
        every: std::time::Duration,
        retry: std::time::Duration,
    ) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            let mut failed_at: HashMap<String, tokio::time::Instant> = HashMap::new();
            let mut ticker = tokio::time::interval(every);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticker.tick().await;
                let due: Vec<String> = match this.db.all_json::<Stored>(TOKENS) {
                    Ok(all) => all
                        .into_iter()
                        .filter(|(_, s)| {
                            s.refused.is_none() && s.set.remaining_ms(this.now_ms()) <= REFRESH_THRESHOLD_MS
                        })
                        .map(|(user, _)| user)
                        .collect(),
                    Err(e) => {
                        tracing::error!(error = %format!("{e:#}"), "cannot read provider tokens");
                        continue;
                    }
                };
                for user in due {
                    if failed_at.get(&user).is_some_and(|t| t.elapsed() < retry) {
                        continue;
                    }
                    match this.access_token(&user).await {
                        Err(e) if e.is_transient() => {
                            failed_at.insert(user, tokio::time::Instant::now());
                        }
                        _ => {
                            failed_at.remove(&user);
                        }
                    }
                }
            }
        })
    }

    /// Exact refused `access_token` although it looked valid (revoked early, clocks apart): renew
    /// it, unless it was already replaced by a token that is not due. Answers the token to try
    /// once more; the same one when Exact would not renew it yet.
    pub async fn rejected(self: &Arc<Self>, user: &str, access_token: &str) -> Result<String, ExactError> {
        let current = self.usable(user)?;
        let refused_is_current = current.set.access_token == access_token;
        self.renew(user, current.set.access_token, refused_is_current).await
    }

    /// Runs one renewal for `user` in its own task (see the module notes) and waits for it.
    /// `seen`: the stored token the caller found due or refused; `force`: renew even if it
    /// does not look due (Exact refused it).
    async fn renew(self: &Arc<Self>, user: &str, seen: String, force: bool) -> Result<String, ExactError> {
        let this = self.clone();
        let user = user.to_string();
        let task = tokio::spawn(async move { this.renew_locked(&user, &seen, force).await });
        task.await.map_err(|e| ExactError::Malformed(format!("token renewal stopped: {e}")))?
    }

    async fn renew_locked(&self, user: &str, seen: &str, force: bool) -> Result<String, ExactError> {
        let lock = self.lock_for(user);
        let _guard = lock.lock().await;
        let mut current = self.usable(user)?;
        // Another renewal finished while this one waited for the lock: its token is as new as
        // one this renewal would get (a token that lives 30 s or less is always due, so "due"
        // alone would renew it once per waiting caller).
        if current.set.access_token != seen {
            return Ok(current.set.access_token);
        }
        let due = current.set.remaining_ms(self.now_ms()) <= REFRESH_THRESHOLD_MS;
        if !force && !due {
            return Ok(current.set.access_token);
        }
        self.refreshing.lock().insert(user.to_string());
        let result = self.oauth.refresh(&current.set.refresh_token).await;
        self.refreshing.lock().remove(user);
        match result {
            Ok(fresh) => {
                current.set = fresh;
                self.write(user, &current)?;
                tracing::info!(user, "provider token refreshed");
                Ok(current.set.access_token)
            }
            Err(ExactError::Unauthorized(message)) if too_early(&message) => {
                // Exact still counts the token as valid (clocks apart): keep using it.
                tracing::warn!(user, %message, "provider token renewal refused as too early");
                Ok(current.set.access_token)
            }
            Err(ExactError::Unauthorized(message)) => {
                tracing::warn!(user, %message, "Exact Online no longer accepts the refresh token; sign-in needed");
                current.refused = Some(message.clone());
                self.write(user, &current)?;
                // Nobody listening (a CLI, a unit test) is fine: the store keeps the refusal.
                let _ = self.refusals.send(user.to_string());
                Err(ExactError::Unauthorized(message))
            }
            Err(e) => {
                // Unreachable or failing: the stored chain stays as it is for the next try.
                tracing::warn!(user, error = %e, "provider token renewal failed; will try again");
                if current.set.remaining_ms(self.now_ms()) > 0 && !force {
                    return Ok(current.set.access_token);
                }
                Err(e)
            }
        }
    }
}
