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

/// Starts the schedule; returns the task so the server can abort it on shutdown.
pub fn spawn(
    engine: Arc<SyncEngine>,
    resolver: Arc<dyn OrgResolver>,
    interval: Duration,
    on_startup: bool,
) -> Option<tokio::task::JoinHandle<()>> {
    if interval.is_zero() && !on_startup {
        return None;
    }
    Some(tokio::spawn(async move {
        if on_startup {
            // Let the server finish starting before the first provider calls.
            tokio::time::sleep(Duration::from_secs(5)).await;
            run_once(&engine, resolver.as_ref()).await;
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
    let endpoints = match SyncEngine::resolve(&[]) {
        Ok(e) => e,
        Err(e) => {
            tracing::error!(error = %e, "scheduled sync: endpoint selection failed");
            return;
        }
    };
    for division in resolver.divisions() {
        let Some((token, sink)) = resolver.resolve(division) else { continue };
        match engine.run(division, &token, &endpoints, sink).await {
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
