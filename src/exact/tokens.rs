//! Provider tokens: stored in server.redb, refreshed on demand when under 30 s remain (spec §4,
//! §9), one refresh at a time per user (single flight), rotation respected.
//!
//! Exact refuses a refresh before the last 30 s of a token's life and kills the whole chain when
//! an old refresh token is reused, so two concurrent refreshes must never happen: the refresh
//! runs under a per-user lock and re-reads the stored token inside it.

use super::error::ExactError;
use super::oauth::{OAuthClient, TokenSet, now_ms};
use crate::serverdb::{ServerDb, TOKENS};
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Refresh when fewer than this many milliseconds remain (spec §9: 30 s).
pub const REFRESH_THRESHOLD_MS: i64 = 30_000;

pub struct TokenManager {
    db: Arc<ServerDb>,
    oauth: OAuthClient,
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    refreshing: Mutex<HashSet<String>>,
}

impl TokenManager {
    pub fn new(db: Arc<ServerDb>, oauth: OAuthClient) -> Self {
        TokenManager { db, oauth, locks: Mutex::default(), refreshing: Mutex::default() }
    }

    pub fn oauth(&self) -> &OAuthClient {
        &self.oauth
    }

    fn read(&self, user: &str) -> Result<Option<TokenSet>, ExactError> {
        self.db.get_json::<TokenSet>(TOKENS, user).map_err(|e| ExactError::Malformed(format!("token store: {e:#}")))
    }

    /// Stores a fresh token set for `user`.
    pub fn store(&self, user: &str, tokens: &TokenSet) -> Result<(), ExactError> {
        self.db.put_json(TOKENS, user, tokens).map_err(|e| ExactError::Malformed(format!("token store: {e:#}")))
    }

    /// Drops the user's tokens (logout, critical error).
    pub fn forget(&self, user: &str) -> Result<(), ExactError> {
        self.db.remove(TOKENS, user).map_err(|e| ExactError::Malformed(format!("token store: {e:#}")))
    }

    /// The stored expiry of the user's access token, if any.
    pub fn expiry_ms(&self, user: &str) -> Option<i64> {
        self.read(user).ok().flatten().map(|t| t.expires_at_ms)
    }

    /// Whether a refresh is running for the user (the spec's `refreshingAuthorization` flag).
    pub fn is_refreshing(&self, user: &str) -> bool {
        self.refreshing.lock().contains(user)
    }

    fn lock_for(&self, user: &str) -> Arc<tokio::sync::Mutex<()>> {
        self.locks.lock().entry(user.to_string()).or_default().clone()
    }

    /// A valid access token for `user`, refreshing it first when under 30 s remain.
    pub async fn access_token(&self, user: &str) -> Result<String, ExactError> {
        let current = self.read(user)?.ok_or(ExactError::NoToken)?;
        if current.remaining_ms(now_ms()) > REFRESH_THRESHOLD_MS {
            return Ok(current.access_token);
        }
        let lock = self.lock_for(user);
        let _guard = lock.lock().await;
        // Another caller may have refreshed while we waited: use its result.
        let current = self.read(user)?.ok_or(ExactError::NoToken)?;
        if current.remaining_ms(now_ms()) > REFRESH_THRESHOLD_MS {
            return Ok(current.access_token);
        }
        self.refreshing.lock().insert(user.to_string());
        let result = self.oauth.refresh(&current.refresh_token).await;
        self.refreshing.lock().remove(user);
        match result {
            Ok(fresh) => {
                self.store(user, &fresh)?;
                tracing::info!(user, "provider token refreshed");
                Ok(fresh.access_token)
            }
            Err(e) => {
                tracing::warn!(user, error = %e, "provider token refresh failed");
                Err(match e {
                    ExactError::Rejected { message, .. } => ExactError::Unauthorized(message),
                    other => other,
                })
            }
        }
    }
}
