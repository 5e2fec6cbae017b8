//! Reads of Exact Online made live, on a request, rather than from the synced copy: the live
//! tables cached in the store (`tables`, `GET /exact/live/{table}`) and direct reads of a
//! provider path (`direct`, `GET /exact/urlDirect`). Both wait for the provider at most a short
//! deadline (`deadline`) and then serve their last known copy with when it was fetched.

pub mod deadline;
pub mod direct;
pub mod tables;

pub use deadline::AS_OF_HEADER;

use crate::error::AppResult;
use crate::exact::ExactClient;
use crate::exact::tokens::TokenManager;
use crate::read_slots::{ReadSlot, ReadSlots};
use crate::serverdb::ServerDb;
use crate::store::Stores;
use std::sync::Arc;

/// What a live read works with: the provider client, the stores its copies are kept in, the
/// sign-ins it reads with and each user's places; shared with the rest of the server, and cloned
/// into the reads that go on after their request stopped waiting.
#[derive(Clone)]
pub struct Live {
    pub exact: ExactClient,
    pub stores: Arc<Stores>,
    pub tokens: Arc<TokenManager>,
    pub serverdb: Arc<ServerDb>,
    pub reads: Arc<ReadSlots>,
}

impl Live {
    /// The provider sign-in that serves the organization's own calls.
    fn org_token(&self, division: i64) -> AppResult<UserToken> {
        crate::organization::org_token(&self.serverdb, &self.stores, &self.tokens, division)
    }
}

/// A place for one more live or direct read of `user` (waiting for one while they have the most
/// going), or 429.
pub async fn read_slot(live: &Live, user: &str) -> AppResult<ReadSlot> {
    live.reads.take(user).await.ok_or_else(|| {
        crate::error::AppError::with_message(
            crate::error::Code::TooManyRequests,
            format!(
                "At most {} reads of Exact Online at once per user: wait for the others to finish",
                crate::limits::MAX_LIVE_READS_PER_USER
            ),
        )
        .retry_after(std::time::Duration::from_secs(1))
    })
}

use crate::exact::ExactError;
use crate::exact::client::gather;
use crate::exact::tokens::UserToken;
use deadline::Progress;
use serde_json::Value;

/// Every row behind a provider URL, page after page up to the read limit (`gather`), telling
/// `progress` of each page so the deadline knows the provider is answering.
async fn all_rows(
    live: &Live,
    division: i64,
    token: &UserToken,
    url: &str,
    progress: &Progress,
) -> Result<Vec<Value>, ExactError> {
    let mut rows = Vec::new();
    live.exact
        .for_each_page(division, token, url, false, |page| {
            progress.answered();
            let within = gather(&mut rows, page.rows.into_iter().map(Value::Object));
            async move { within.map(|()| true) }
        })
        .await?;
    Ok(rows)
}
