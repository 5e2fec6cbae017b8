//! A user's sessions ending, and what goes with them: signing out (`end_session`), an
//! administrator ending a user's sessions (`end_user`), and Exact Online refusing a user
//! (`refused`, `watch`). Each touches the sessions, the organizations' accounts, the provider
//! tokens and the outbox at once: [`SignOut`] holds those four (the state hands one out).
//!
//! When Exact Online ends a user (their access withdrawn, removed from the company), their
//! sessions end here too. An outage signs nobody out: only Exact answering the user's refresh
//! token with a refusal does (`exact::tokens` records it and tells [`watch`]). The user's token
//! set stays, marked refused, so the writes they queued wait with "waiting for … to sign in again"
//! and go once the same user signs in anew; they no longer count as one of the organization's
//! accounts for sync, live reads and labels.

use crate::auth::tier::Auth;
use crate::exact::oauth::now_ms;
use crate::exact::tokens::{Access, TokenManager};
use crate::outbox::OutboxService;
use crate::serverdb::ServerDb;
use std::sync::{Arc, Weak};
use tokio::sync::broadcast::error::RecvError;

/// Whether Exact refused `user`'s sign-in (no provider call: what the token store knows). Asked
/// on every request, so it takes only the tokens.
pub fn is_refused(tokens: &TokenManager, user: &str) -> bool {
    tokens.access(user) == Access::SignInNeeded
}

/// What a user's leaving touches, each shared with the rest of the server.
#[derive(Clone)]
pub struct SignOut {
    pub auth: Arc<Auth>,
    pub serverdb: Arc<ServerDb>,
    pub tokens: Arc<TokenManager>,
    pub outbox: Arc<OutboxService>,
}

/// A [`SignOut`] held weakly, by the refusal watch: a stopped server's databases are let go.
struct Held {
    auth: Weak<Auth>,
    serverdb: Weak<ServerDb>,
    tokens: Weak<TokenManager>,
    outbox: Weak<OutboxService>,
}

impl Held {
    fn upgrade(&self) -> Option<SignOut> {
        Some(SignOut {
            auth: self.auth.upgrade()?,
            serverdb: self.serverdb.upgrade()?,
            tokens: self.tokens.upgrade()?,
            outbox: self.outbox.upgrade()?,
        })
    }
}

impl SignOut {
    /// Drops the session. The user's provider tokens go with their last session, unless writes they
    /// queued still wait to be sent: then the tokens stay for those writes only (the outbox drops
    /// them once they are through), and the user no longer counts as one of the organization's
    /// accounts for sync, live reads and labels.
    pub fn end_session(&self, id: &str, user: &str) {
        if let Err(e) = self.auth.sessions.delete(id) {
            tracing::error!(error = %format!("{e:#}"), "cannot remove a session");
        }
        self.let_go_of_user(user);
    }

    /// Once `user` has no session left: they no longer count as an account of their organizations,
    /// and their provider tokens go (or stay only for the writes they queued).
    pub fn let_go_of_user(&self, user: &str) {
        match self.auth.sessions.user_has_sessions(user, now_ms()) {
            Ok(false) => {
                if let Err(e) = self.serverdb.remove_org_user(user) {
                    tracing::error!(error = %format!("{e:#}"), "cannot remove the user from their organizations");
                }
                let result = if self.outbox.has_open_writes_of(user) {
                    self.tokens.keep_for_queued_writes(user)
                } else {
                    self.tokens.forget(user)
                };
                if let Err(e) = result {
                    tracing::error!(error = %e, "cannot drop provider tokens");
                }
            }
            Ok(true) => {}
            Err(e) => tracing::error!(error = %format!("{e:#}"), "cannot list sessions"),
        }
    }

    /// Ends every session of `user` and lets go of them; answers how many there were.
    pub fn end_user(&self, user: &str) -> anyhow::Result<usize> {
        let ended = self.auth.sessions.end_all_of(user)?;
        if ended > 0 {
            self.let_go_of_user(user);
        }
        Ok(ended)
    }

    /// Ends every session of `user` (streams too; each browser hears why at its next call) and takes
    /// the user off their organizations' accounts.
    pub fn refused(&self, user: &str) {
        match self.auth.sessions.end_refused(user, now_ms()) {
            Ok(0) => {}
            Ok(ended) => tracing::info!(ended, "Exact Online refused a user's sign-in: their sessions ended"),
            Err(e) => tracing::error!(error = %format!("{e:#}"), "cannot end the sessions of a refused user"),
        }
        if let Err(e) = self.serverdb.remove_org_user(user) {
            tracing::error!(error = %format!("{e:#}"), "cannot remove a refused user from their organizations");
        }
    }

    /// Ends the sessions of each user Exact refuses, as the refusal is heard (a request's renewal, the
    /// background renewals every token goes through within its 10 minutes, or a queued write's). The
    /// task holds the parts weakly: a stopped server's databases are let go.
    pub fn watch(&self) -> tokio::task::JoinHandle<()> {
        let mut refusals = self.tokens.refusals();
        let held = Held {
            auth: Arc::downgrade(&self.auth),
            serverdb: Arc::downgrade(&self.serverdb),
            tokens: Arc::downgrade(&self.tokens),
            outbox: Arc::downgrade(&self.outbox),
        };
        tokio::spawn(async move {
            loop {
                let heard = refusals.recv().await;
                let Some(parts) = held.upgrade() else { return };
                match heard {
                    Ok(user) => parts.refused(&user),
                    // Refusals were missed: every session whose user is refused now ends.
                    Err(RecvError::Lagged(_)) => parts.sign_out_every_refused(),
                    Err(RecvError::Closed) => return,
                }
            }
        })
    }

    fn sign_out_every_refused(&self) {
        let records = match self.auth.sessions.live_records(now_ms()) {
            Ok(records) => records,
            Err(e) => {
                tracing::error!(error = %format!("{e:#}"), "cannot list sessions");
                return;
            }
        };
        let mut users: Vec<String> = records.into_iter().map(|r| r.user).collect();
        users.sort();
        users.dedup();
        for user in users.iter().filter(|u| is_refused(&self.tokens, u)) {
            self.refused(user);
        }
    }
}
