//! Direct reads of a provider path (`GET /exact/urlDirect`): every page followed under the
//! live-read deadline (`deadline`); each answer is kept as the URL's last known one for the user
//! who read it (a read goes under that user's Exact rights), served to them in an outage with
//! when it was fetched.

use super::Live;
use super::deadline::{self, Progress, Settled};
use crate::error::{AppError, AppResult};
use crate::exact::ExactError;
use crate::exact::oauth::now_ms;
use crate::exact::tokens::UserToken;
use crate::store::OrgStore;
use crate::store::last_known::{self, Kept};
use serde_json::json;
use std::sync::Arc;

/// A direct read as answered: the `{"results"}` body, and `as_of` (when it was fetched, epoch
/// ms) on a last known answer served in place of a fresh read.
pub struct Direct {
    pub body: Vec<u8>,
    pub as_of: Option<i64>,
}

/// Reads `url` (already checked to lie in `division`) as `user`: the provider's answer within the
/// deadline, else the URL's last known answer, else `provider_unreachable`.
pub async fn read(live: &Live, division: i64, user: String, url: String) -> AppResult<Direct> {
    let store = live.stores.get(division)?;
    let deadline = deadline::deadline_for(live, division);
    let progress = Progress::default();
    let read = tokio::spawn(fetch(live.clone(), store.clone(), division, user.clone(), url.clone(), progress.clone()));
    let has_copy = || store.last_known_fetched(&user, &url).ok().flatten().is_some();
    let why = match deadline::settle(read, &progress, deadline, has_copy).await? {
        Settled::Fresh(body) => return Ok(Direct { body, as_of: None }),
        Settled::Refused(e) => return Err(e.into()),
        Settled::Stale(why) => why,
    };
    last_known(store, user, url, why).await
}

/// `user`'s last known answer of the URL in place of a fresh read (`why` is for the log), or
/// `provider_unreachable` without one.
async fn last_known(store: Arc<OrgStore>, user: String, url: String, why: String) -> AppResult<Direct> {
    let (s, r, u) = (store.clone(), user.clone(), url.clone());
    let copy = tokio::task::spawn_blocking(move || s.last_known(&r, &u))
        .await
        .map_err(|e| AppError::internal(anyhow::anyhow!("{e}")))??
        .filter(|c| c.body.starts_with(b"{") && c.body.ends_with(b"}"));
    let Some(copy) = copy else {
        return Err(deadline::unreachable().caused_by(anyhow::anyhow!("urlDirect: {why}")));
    };
    tracing::warn!(as_of = copy.fetched_ms, reason = %why, "Exact Online read failed; serving its last known answer");
    // Served counts as used: it is the last to be evicted. Off the request, best effort.
    let now = now_ms();
    tokio::spawn(async move {
        match tokio::task::spawn_blocking(move || store.touch_last_known(&user, &url, now)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "could not record the use of a last known answer"),
            Err(e) => tracing::warn!(error = %e, "could not record the use of a last known answer"),
        }
    });
    Ok(Direct { body: copy.body, as_of: Some(copy.fetched_ms) })
}

/// Reads every page of `url` (more than `PROVIDER_READ_MAX_ROWS` rows is an error) and answers
/// `{"results"}` as JSON, keeping it as the URL's last known answer (off the request, best effort).
async fn fetch(
    live: Live,
    store: Arc<OrgStore>,
    division: i64,
    user: String,
    url: String,
    progress: Progress,
) -> Result<Vec<u8>, ExactError> {
    let token = UserToken::new(live.tokens.clone(), user.clone());
    let rows = super::all_rows(&live, division, &token, &url, &progress).await?;
    let fetched = now_ms();
    let body = serde_json::to_vec(&json!({"results": rows})).map_err(|e| ExactError::Malformed(e.to_string()))?;
    let (copy, bytes) = (body.clone(), body.len());
    tokio::spawn(async move {
        match tokio::task::spawn_blocking(move || {
            store.keep_last_known(&user, &url, &copy, fetched, &last_known::LIMITS)
        })
        .await
        {
            Ok(Ok(Kept::Stored { evicted })) if evicted > 0 => {
                tracing::debug!(evicted, "older last known answers evicted");
            }
            Ok(Ok(Kept::TooLarge)) => tracing::info!(bytes, "answer too large to keep as the last known one"),
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "could not keep the last known answer"),
            Err(e) => tracing::warn!(error = %e, "could not keep the last known answer"),
        }
    });
    Ok(body)
}
