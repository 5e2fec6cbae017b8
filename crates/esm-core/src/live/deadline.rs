//! Live reads of Exact Online under a deadline (`/exact/live/{table}`, `/exact/urlDirect`).
//!
//! The provider client retries a failing read for minutes (spec §9's waits), which left screens
//! loading without end during an outage. So a live read waits for the provider at most
//! `DEADLINE` (`DEADLINE_WHILE_UNREACHABLE` once calls are failing); when the provider fails
//! with an outage kind of error or the time runs out, the route answers its last known copy
//! with `X-Data-As-Of`, or `provider_unreachable` when it has none. A refusal by the provider
//! itself (a 4xx with its message, 401, 403) is answered as before: old data is no answer to a
//! request the provider calls wrong.

use super::Live;
use crate::error::{AppError, Code};
use crate::exact::ExactError;
use crate::exact::reachability::ProviderStatus;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::task::JoinHandle;

/// How long a live read waits for the provider.
pub const DEADLINE: Duration = Duration::from_secs(4);
/// How long it waits while the provider is known to be unreachable (a quick check it is back).
pub const DEADLINE_WHILE_UNREACHABLE: Duration = Duration::from_millis(1500);
/// On an answer served from the last known copy: when that copy was fetched (epoch ms).
pub const AS_OF_HEADER: &str = "X-Data-As-Of";

/// The deadline for a read started now.
pub fn deadline(status: &ProviderStatus) -> Duration {
    if status.reachable { DEADLINE } else { DEADLINE_WHILE_UNREACHABLE }
}

/// [`deadline`] for a read of `division`, plus the wait for the division's spent minute budget:
/// a read held back by Exact's rate limit is waited for, not taken for an outage.
pub fn deadline_for(live: &Live, division: i64) -> Duration {
    deadline(&live.exact.provider_status()) + live.exact.limiter(division).pending_wait()
}

/// Errors after which the last known copy is answered: the provider is away or overloaded
/// (network, 5xx, 429), or no usable token is there to ask it with.
pub fn falls_back(e: &ExactError) -> bool {
    e.is_transient() || matches!(e, ExactError::NoToken)
}

/// The answer when nothing is kept: the catalogue's outage message, never the provider's error.
pub fn unreachable() -> AppError {
    AppError::new(Code::ProviderUnreachable)
}

/// Set by a read when the provider answered one of its pages: the provider is up, only slow.
#[derive(Clone, Default)]
pub struct Progress(Arc<AtomicBool>);

impl Progress {
    pub fn answered(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn seen(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// How a read settled.
pub enum Settled<T> {
    /// The provider's answer.
    Fresh(T),
    /// Serve the last known copy (or `unreachable()` without one); the reason is for the log.
    Stale(String),
    /// The provider refused the request: answer its error as usual.
    Refused(ExactError),
}

/// Aborts a read its caller stopped waiting for: the deadline passed before Exact answered any
/// of it (it would otherwise go on retrying for minutes), or the request's future was dropped
/// (the server stopping, an HTTP/2 stream reset, its client hanging up: `api::peer_gone`),
/// whatever the read had done. Nothing of a read is half done: its copy is kept only once it is whole. Only a read [`settle`] detached on purpose (Exact
/// answering slowly while a copy was served) runs on, to refresh that copy.
struct Abandon<T> {
    read: Option<JoinHandle<T>>,
}

impl<T> Drop for Abandon<T> {
    fn drop(&mut self) {
        if let Some(read) = &self.read {
            read.abort();
        }
    }
}

/// Waits for a spawned read at most `deadline`. Past it, the copy is answered when `has_copy()`
/// (a read the provider is answering goes on in the background and refreshes the copy); without
/// a copy, a read being answered is waited for to its end (the provider is up), one that is not
/// is abandoned.
pub async fn settle<T>(
    read: JoinHandle<Result<T, ExactError>>,
    progress: &Progress,
    deadline: Duration,
    has_copy: impl FnOnce() -> bool,
) -> Result<Settled<T>, AppError> {
    let mut guard = Abandon { read: Some(read) };
    let Some(handle) = guard.read.as_mut() else { return Err(AppError::internal(anyhow::anyhow!("no read"))) };
    let joined = match tokio::time::timeout(deadline, &mut *handle).await {
        Ok(joined) => joined,
        Err(_) if !progress.seen() => {
            return Ok(Settled::Stale(format!("no answer from Exact Online within {} ms", deadline.as_millis())));
        }
        Err(_) if has_copy() => {
            // Detached: it finishes in the background and keeps its answer.
            guard.read = None;
            return Ok(Settled::Stale(format!("Exact Online is answering slowly (over {} ms)", deadline.as_millis())));
        }
        Err(_) => handle.await,
    };
    guard.read = None;
    match joined {
        Ok(Ok(v)) => Ok(Settled::Fresh(v)),
        Ok(Err(e)) if falls_back(&e) => Ok(Settled::Stale(e.to_string())),
        Ok(Err(e)) => Ok(Settled::Refused(e)),
        Err(e) => Err(AppError::internal(anyhow::anyhow!("live read stopped: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::{Waits, reachability::Reachability};
    use std::time::Instant;

    fn spawn<T: Send + 'static>(
        f: impl std::future::Future<Output = Result<T, ExactError>> + Send + 'static,
    ) -> JoinHandle<Result<T, ExactError>> {
        tokio::spawn(f)
    }

    #[test]
    fn the_deadline_is_shorter_than_any_retry_wait_and_shorter_still_in_an_outage() {
        let r = Reachability::default();
        assert_eq!(deadline(&r.status()), DEADLINE);
        r.failed(1, "refused");
        assert_eq!(deadline(&r.status()), DEADLINE_WHILE_UNREACHABLE);
        // The production retry wait alone outlasts the deadline: the deadline bounds a read.
        assert!(Waits::default().read_retry > DEADLINE * 2);
        assert!(DEADLINE < Duration::from_secs(5));
    }

    #[test]
    fn only_outage_kinds_of_errors_fall_back() {
        assert!(falls_back(&ExactError::Network("refused".into())));
        assert!(falls_back(&ExactError::Server { status: 503, message: "down".into() }));
        assert!(falls_back(&ExactError::RateLimited));
        assert!(falls_back(&ExactError::NoToken));
        assert!(!falls_back(&ExactError::Rejected { status: 400, message: "bad filter".into() }));
        assert!(!falls_back(&ExactError::Unauthorized("revoked".into())));
        assert!(!falls_back(&ExactError::Forbidden("no".into())));
        assert!(!falls_back(&ExactError::Malformed("junk".into())));
        assert_eq!(unreachable().code(), Code::ProviderUnreachable);
    }

    #[tokio::test]
    async fn an_unanswered_read_is_cut_at_the_deadline_and_aborted() {
        let progress = Progress::default();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let read = spawn(async move {
            // Holds `tx` until aborted: a retry wait of the production length.
            let _tx = tx;
            tokio::time::sleep(Waits::default().read_retry).await;
            Ok(1)
        });
        let started = Instant::now();
        let settled = settle(read, &progress, Duration::from_millis(200), || true).await.unwrap();
        assert!(matches!(settled, Settled::Stale(_)));
        assert!(started.elapsed() < Duration::from_secs(1));
        assert!(rx.await.is_err(), "the read was aborted (its sender dropped)");
    }

    #[tokio::test]
    async fn a_read_being_answered_goes_on_past_the_deadline() {
        // With a copy: the copy is answered now and the read finishes in the background.
        let progress = Progress::default();
        let (tx, rx) = tokio::sync::oneshot::channel();
        let p = progress.clone();
        let read = spawn(async move {
            p.answered();
            tokio::time::sleep(Duration::from_millis(400)).await;
            let _ = tx.send(());
            Ok(1)
        });
        let settled = settle(read, &progress, Duration::from_millis(100), || true).await.unwrap();
        assert!(matches!(settled, Settled::Stale(_)));
        assert!(rx.await.is_ok(), "the read went on to its end");
        // Without one: it is waited for.
        let progress = Progress::default();
        let p = progress.clone();
        let read = spawn(async move {
            p.answered();
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok(7)
        });
        let settled = settle(read, &progress, Duration::from_millis(100), || false).await.unwrap();
        assert!(matches!(settled, Settled::Fresh(7)));
    }

    #[tokio::test]
    async fn a_read_whose_client_went_away_is_aborted_even_while_answered() {
        let progress = Progress::default();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let p = progress.clone();
        let read = spawn(async move {
            let _tx = tx;
            p.answered();
            // many more pages to come
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok(1)
        });
        // No copy, so the read being answered is waited for; then the request is dropped.
        let waiting = settle(read, &progress, Duration::from_millis(50), || false);
        assert!(tokio::time::timeout(Duration::from_millis(300), waiting).await.is_err());
        assert!(rx.await.is_err(), "the read was aborted with its request");
    }

    #[tokio::test]
    async fn errors_settle_by_their_kind() {
        let p = Progress::default();
        let s = settle(spawn(async { Err::<(), _>(ExactError::Network("x".into())) }), &p, DEADLINE, || false);
        assert!(matches!(s.await.unwrap(), Settled::Stale(_)));
        let s = settle(
            spawn(async { Err::<(), _>(ExactError::Rejected { status: 400, message: "bad".into() }) }),
            &p,
            DEADLINE,
            || true,
        );
        assert!(matches!(s.await.unwrap(), Settled::Refused(ExactError::Rejected { .. })));
        let s = settle(spawn(async { Ok(3) }), &p, DEADLINE, || true);
        assert!(matches!(s.await.unwrap(), Settled::Fresh(3)));
    }
}
