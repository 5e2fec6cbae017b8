//! The background schedule: an incremental sync of every known organization every interval,
//! besides the on-demand ones. The interval is the organization's own (Global Settings,
//! preference `sync_interval_minutes`, 0 = off) when it has set one, else the config's
//! `sync.interval_minutes`; a change takes effect at the next check, without a restart. A run
//! that finds the organization already syncing skips it (spec §4: sync is blocked while another
//! sync runs).

use super::engine::{OrgToken, SyncEngine};
use super::sink::SyncSink;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// The organization preference that sets its sync interval, in minutes (0 = off).
pub const INTERVAL_PREFERENCE: &str = "sync_interval_minutes";
/// The longest interval, in minutes (one day), for the preference as for the config.
pub const MAX_INTERVAL_MINUTES: u64 = 24 * 60;
/// How often the schedule looks for organizations that are due: a changed interval takes effect
/// within this time.
pub const CHECK_EVERY: Duration = Duration::from_secs(60);

/// The interval an organization's preferences set: `None` when they set none (the config's
/// applies), `Some(ZERO)` when they turn the schedule off.
pub fn interval_preference(preferences: &Value) -> Option<Duration> {
    let minutes = preferences.get(INTERVAL_PREFERENCE)?.as_u64()?;
    Some(Duration::from_secs(minutes.min(MAX_INTERVAL_MINUTES) * 60))
}

/// What the schedule needs from the rest of the server, per organization.
pub trait OrgResolver: Send + Sync + 'static {
    /// Organizations to keep in sync.
    fn divisions(&self) -> Vec<i64>;
    /// The token and store of one organization, or `None` when it cannot sync now.
    fn resolve(&self, division: i64) -> Option<(OrgToken, Arc<dyn SyncSink>)>;
    /// The organization's own interval ([`interval_preference`]), read at every check.
    fn interval(&self, division: i64) -> Option<Duration>;
}

/// How long the start-up pass lets the server finish starting before its first provider calls.
const STARTUP_DELAY: Duration = Duration::from_secs(5);

/// Starts the schedule with `default_interval` for organizations that set none; returns the task
/// so the server can abort it on shutdown. It runs even when the default is off: an organization
/// may turn its own schedule on at any time.
pub fn spawn(
    engine: Arc<SyncEngine>,
    resolver: Arc<dyn OrgResolver>,
    default_interval: Duration,
    on_startup: bool,
) -> tokio::task::JoinHandle<()> {
    spawn_after(engine, resolver, default_interval, on_startup.then_some(STARTUP_DELAY))
}

fn spawn_after(
    engine: Arc<SyncEngine>,
    resolver: Arc<dyn OrgResolver>,
    default_interval: Duration,
    startup_delay: Option<Duration>,
) -> tokio::task::JoinHandle<()> {
    // The start-up pass catches up the organizations the server knew when it started; one that
    // signs in meanwhile syncs on demand, and a second sync right after its own would only
    // repeat the toasts (and spend the provider's minute budget).
    let startup = startup_delay.map(|delay| (delay, resolver.divisions()));
    let mut due = Due::new(default_interval);
    // Known organizations count as synced now: the first pass comes one interval after the start.
    due.ran(&resolver.divisions());
    tokio::spawn(async move {
        if let Some((delay, known)) = startup {
            tokio::time::sleep(delay).await;
            due.ran(&known);
            run_for(&engine, resolver.as_ref(), &known).await;
        }
        let mut ticker = tokio::time::interval(CHECK_EVERY);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticker.tick().await;
        loop {
            ticker.tick().await;
            let now_due = due.take(resolver.as_ref());
            run_for(&engine, resolver.as_ref(), &now_due).await;
        }
    })
}

/// When each organization last had its scheduled sync (or, before its first, when the schedule
/// first saw it: a server that starts is not a reason to sync every organization at once).
struct Due {
    default_interval: Duration,
    last: HashMap<i64, Instant>,
}

impl Due {
    fn new(default_interval: Duration) -> Self {
        Due { default_interval, last: HashMap::new() }
    }

    fn ran(&mut self, divisions: &[i64]) {
        let now = Instant::now();
        for &d in divisions {
            self.last.insert(d, now);
        }
    }

    /// The organizations whose interval has passed, marked as run now (a run that cannot start,
    /// for want of a sign-in say, waits a whole interval too, rather than retrying every check).
    fn take(&mut self, resolver: &dyn OrgResolver) -> Vec<i64> {
        let now = Instant::now();
        let mut out = Vec::new();
        for division in resolver.divisions() {
            let interval = resolver.interval(division).unwrap_or(self.default_interval);
            let last = *self.last.entry(division).or_insert(now);
            if !interval.is_zero() && now.duration_since(last) >= interval {
                self.last.insert(division, now);
                out.push(division);
            }
        }
        out
    }
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
    use serde_json::json;

    /// Knows `known` organizations with their own intervals, and records which ones a pass
    /// asked for (syncing none).
    #[derive(Default)]
    struct Orgs {
        known: Mutex<Vec<i64>>,
        intervals: Mutex<HashMap<i64, Duration>>,
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

        fn interval(&self, division: i64) -> Option<Duration> {
            self.intervals.lock().get(&division).copied()
        }
    }

    fn engine() -> Arc<SyncEngine> {
        let http = ExactClient::http_client(Duration::from_secs(5)).expect("http");
        Arc::new(SyncEngine::new(ExactClient::new(http, "http://127.0.0.1:9", Waits::default())))
    }

    const MINUTE: Duration = Duration::from_secs(60);

    #[tokio::test(start_paused = true)]
    async fn the_start_up_pass_syncs_only_the_organizations_known_at_start() {
        let engine = engine();
        let orgs = Arc::new(Orgs { known: Mutex::new(vec![1]), ..Default::default() });
        let task = spawn_after(engine.clone(), orgs.clone(), Duration::ZERO, Some(Duration::from_millis(50)));
        // An organization signs in (and syncs on demand) before the pass begins.
        orgs.known.lock().push(2);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(*orgs.asked.lock(), vec![1]);
        // With the schedule off, the checks after it sync nobody.
        tokio::time::sleep(MINUTE * 60).await;
        assert_eq!(*orgs.asked.lock(), vec![1]);
        task.abort();
        // The regular passes take every organization.
        run_once(&engine, orgs.as_ref()).await;
        assert_eq!(*orgs.asked.lock(), vec![1, 1, 2]);
    }

    #[tokio::test(start_paused = true)]
    async fn each_organization_syncs_at_its_own_interval_and_a_change_needs_no_restart() {
        let orgs = Arc::new(Orgs { known: Mutex::new(vec![1, 2, 3]), ..Default::default() });
        // 1 keeps the config's 15 minutes, 2 syncs every 5, 3 turned its schedule off.
        orgs.intervals.lock().extend([(2, MINUTE * 5), (3, Duration::ZERO)]);
        let task = spawn(engine(), orgs.clone(), MINUTE * 15, false);
        // Half a minute past the checks, so none is due at the very moment the test looks.
        tokio::time::sleep(MINUTE * 16 + MINUTE / 2).await;
        assert_eq!(*orgs.asked.lock(), vec![2, 2, 1, 2], "2 at 5, 10 and 15 minutes; 1 at 15; 3 never");
        // Global Settings saved: 1 every minute, 2 off. The next checks follow them.
        orgs.intervals.lock().extend([(1, MINUTE), (2, Duration::ZERO)]);
        orgs.asked.lock().clear();
        tokio::time::sleep(MINUTE * 2).await;
        assert_eq!(*orgs.asked.lock(), vec![1, 1], "1 at 17 and 18 minutes");
        task.abort();
    }

    #[test]
    fn the_preference_is_minutes_capped_at_a_day_and_absent_when_not_a_number() {
        assert_eq!(interval_preference(&json!({"sync_interval_minutes": 5})), Some(MINUTE * 5));
        assert_eq!(interval_preference(&json!({"sync_interval_minutes": 0})), Some(Duration::ZERO));
        assert_eq!(interval_preference(&json!({"sync_interval_minutes": 100_000})), Some(MINUTE * 1440));
        assert_eq!(interval_preference(&json!({"sync_interval_minutes": "often"})), None);
        assert_eq!(interval_preference(&json!({"sync_interval_minutes": -1})), None);
        assert_eq!(interval_preference(&json!({"weekends_disabled": true})), None);
    }
}
