//! The background schedule: an incremental sync of every known organization every
//! `sync.interval_minutes`, besides the on-demand ones. A run that finds the organization already
//! syncing skips it (spec §4: sync is blocked while another sync runs).

use super::engine::{OrgToken, SyncEngine};
use super::sink::SyncSink;
use std::sync::Arc;
use std::time::Duration;

/// What the schedule needs from the rest of the server, per organization.
pub trait OrgResolver: Send + Sync + 'static {
    /// Organizations to keep in sync.
    fn divisions(&self) -> Vec<i64>;
    /// The token and store of one organization, or `None` when it cannot sync now.
    fn resolve(&self, division: i64) -> Option<(OrgToken, Arc<dyn SyncSink>)>;
}

/// How long the start-up pass lets the server finish starting before its first provider calls.
const STARTUP_DELAY: Duration = Duration::from_secs(5);

/// Starts the schedule; returns the task so the server can abort it on shutdown.
pub fn spawn(
    engine: Arc<SyncEngine>,
    resolver: Arc<dyn OrgResolver>,
    interval: Duration,
    on_startup: bool,
) -> Option<tokio::task::JoinHandle<()>> {
    spawn_after(engine, resolver, interval, on_startup.then_some(STARTUP_DELAY))
}

fn spawn_after(
    engine: Arc<SyncEngine>,
    resolver: Arc<dyn OrgResolver>,
    interval: Duration,
    startup_delay: Option<Duration>,
) -> Option<tokio::task::JoinHandle<()>> {
    if interval.is_zero() && startup_delay.is_none() {
        return None;
    }
    // The start-up pass catches up the organizations the server knew when it started; one that
    // signs in meanwhile syncs on demand, and a second sync right after its own would only
    // repeat the toasts (and spend the provider's minute budget).
    let startup = startup_delay.map(|delay| (delay, resolver.divisions()));
    Some(tokio::spawn(async move {
        if let Some((delay, known)) = startup {
            tokio::time::sleep(delay).await;
            run_for(&engine, resolver.as_ref(), &known).await;
        }
        if interval.is_zero() {
            return;
        }
        let mut ticker = tokio::time::interval(interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticker.tick().await;
        loop {
            ticker.tick().await;
            run_once(&engine, resolver.as_ref()).await;
        }
    }))
}

/// One pass over every organization.
pub async fn run_once(engine: &SyncEngine, resolver: &dyn OrgResolver) {
    run_for(engine, resolver, &resolver.divisions()).await
}

/// One pass over `divisions`.
async fn run_for(engine: &SyncEngine, resolver: &dyn OrgResolver, divisions: &[i64]) {
    let endpoints = match SyncEngine::resolve(&[]) {
        Ok(e) => SyncEngine::with_deleted_entries(e),
        Err(e) => {
            tracing::error!(error = %e, "scheduled sync: endpoint selection failed");
            return;
        }
    };
    for &division in divisions {
        let Some((token, sink)) = resolver.resolve(division) else { continue };
        match crate::exact::rate_limit::in_background(engine.run(division, &token, &endpoints, sink)).await {
            Ok(report) => {
                let failed = report.failed_tables();
                if failed.is_empty() {
                    tracing::info!(division, "scheduled sync finished");
                } else {
                    tracing::warn!(division, ?failed, "scheduled sync finished with failed tables");
                }
            }
            Err(e) => tracing::info!(division, reason = %e, "scheduled sync skipped"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::{ExactClient, Waits};
    use parking_lot::Mutex;

    /// Knows `known` organizations and records which ones a pass asked for (syncing none).
    #[derive(Default)]
    struct Orgs {
        known: Mutex<Vec<i64>>,
        asked: Mutex<Vec<i64>>,
    }

    impl OrgResolver for Orgs {
        fn divisions(&self) -> Vec<i64> {
            self.known.lock().clone()
        }

        fn resolve(&self, division: i64) -> Option<(OrgToken, Arc<dyn SyncSink>)> {
            self.asked.lock().push(division);
            None
        }
    }

    #[tokio::test]
    async fn the_start_up_pass_syncs_only_the_organizations_known_at_start() {
        let http = ExactClient::http_client(Duration::from_secs(5)).expect("http");
        let engine = Arc::new(SyncEngine::new(ExactClient::new(http, "http://127.0.0.1:9", Waits::default())));
        let orgs = Arc::new(Orgs { known: Mutex::new(vec![1]), ..Default::default() });
        let task = spawn_after(engine.clone(), orgs.clone(), Duration::ZERO, Some(Duration::from_millis(50)))
            .expect("a start-up pass");
        // An organization signs in (and syncs on demand) before the pass begins.
        orgs.known.lock().push(2);
        task.await.expect("pass");
        assert_eq!(*orgs.asked.lock(), vec![1]);
        // The regular passes take every organization.
        run_once(&engine, orgs.as_ref()).await;
        assert_eq!(*orgs.asked.lock(), vec![1, 1, 2]);
        assert!(spawn(engine, orgs, Duration::ZERO, false).is_none(), "nothing to schedule");
    }
}
