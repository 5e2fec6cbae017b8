//! Makes an organization's material lines and its first projection as soon as a sync that
//! changed their tables has ended, so the Materials screen opened after a sync does not wait the
//! seconds a large copy takes to read.

use super::{Shortages, TABLES};
use crate::store::Stores;
use crate::sync::SyncEvent;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

/// How often an organization whose tables changed is checked for its sync to have ended.
const CHECK_EVERY: Duration = Duration::from_secs(1);

/// What the warming needs of the rest of the server.
pub struct Follow {
    pub shortages: Arc<Shortages>,
    pub stores: Arc<Stores>,
    /// Whether the organization's sync still runs (warming waits for its end).
    pub syncing: Box<dyn Fn(i64) -> bool + Send + Sync>,
    /// What the outbox still has to issue to each material line of the organization (called on
    /// the runtime).
    pub queued: Box<dyn Fn(i64) -> HashMap<String, f64> + Send + Sync>,
}

/// Follows the sync events until they end. The work runs on a thread of its own, not the
/// runtime's blocking pool: a stop does not wait for it (it only reads).
pub fn follow(mut events: broadcast::Receiver<SyncEvent>, with: Follow) -> tokio::task::JoinHandle<()> {
    let with = Arc::new(with);
    tokio::spawn(async move {
        let mut pending: BTreeSet<i64> = BTreeSet::new();
        let mut tick = tokio::time::interval(CHECK_EVERY);
        loop {
            tokio::select! {
                event = events.recv() => match event {
                    Ok(e) if e.done && TABLES.contains(&e.table) => {
                        pending.insert(e.division);
                    }
                    Ok(_) => {}
                    // only progress events come in such numbers; the next done event catches up
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                _ = tick.tick(), if !pending.is_empty() => {
                    let ended: Vec<i64> = pending.iter().copied().filter(|d| !(with.syncing)(*d)).collect();
                    for division in ended {
                        pending.remove(&division);
                        let with = with.clone();
                        // here, on the runtime: the outbox's first use starts its worker task
                        let queued = (with.queued)(division);
                        let spawned = std::thread::Builder::new().name("materials-warm".into()).spawn(move || {
                            let warmed = with.stores.get(division).and_then(|store| with.shortages.warm(division, &store, &queued));
                            if let Err(e) = warmed {
                                tracing::warn!(division, error = %e, "could not make the material lines ahead");
                            }
                        });
                        if let Err(e) = spawned {
                            tracing::warn!(error = %e, "could not start making the material lines ahead");
                        }
                    }
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Commit;
    use serde_json::json;
    use std::sync::atomic::{AtomicBool, Ordering};

    fn done(division: i64, table: &'static str) -> SyncEvent {
        SyncEvent {
            division,
            table,
            name: table,
            message: String::new(),
            total: 1,
            remaining: 0,
            done: true,
            paused: false,
            seconds_remaining: 0,
            error: None,
        }
    }

    #[tokio::test]
    async fn the_lines_are_made_once_the_sync_that_changed_them_ends() {
        let dir = tempfile::tempdir().unwrap();
        let stores = Arc::new(Stores::new(dir.path(), crate::exact::catalogue::table_specs()));
        let store = stores.get(1).unwrap();
        let shortages = Arc::new(Shortages::default());
        let syncing = Arc::new(AtomicBool::new(true));
        let (tx, rx) = broadcast::channel(16);
        let still = syncing.clone();
        let task = follow(
            rx,
            Follow {
                shortages: shortages.clone(),
                stores: stores.clone(),
                syncing: Box::new(move |_| still.load(Ordering::SeqCst)),
                queued: Box::new(|_| HashMap::new()),
            },
        );
        let row = json!({"ID": "0123abcd-ef01-4a2b-8c3d-000000000001", "Code": "BOLT", "Timestamp": "1"});
        store.apply_batch("items", vec![row], Some(1), Commit::Durable).unwrap();
        // an event of a table the lines are not made of is passed over
        tx.send(done(1, "hourEntries")).unwrap();
        tx.send(done(1, "items")).unwrap();
        tokio::time::sleep(CHECK_EVERY * 2).await;
        assert!(!shortages.is_current(1, &store), "not while the sync still runs");
        syncing.store(false, Ordering::SeqCst);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !shortages.is_current(1, &store) {
            assert!(std::time::Instant::now() < deadline, "made after the sync ended");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        task.abort();
    }
}
