//! Each user has at most `MAX_LIVE_READS_PER_USER` live or direct reads of Exact Online going at
//! once: every one holds a connection to Exact, its pages in memory and a share of the
//! organization's call budget. A screen may ask for more at once (a list read in chunks of ids),
//! so one more waits up to `LIVE_READ_SLOT_WAIT` for a place, and only then is answered 429.

use crate::limits::{LIVE_READ_SLOT_WAIT, MAX_LIVE_READS_PER_USER};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The places for reads, per user.
#[derive(Default)]
pub struct ReadSlots {
    users: Mutex<HashMap<String, Arc<Semaphore>>>,
}

/// One read's place; dropping it (the read answered, or its request dropped) frees it.
pub struct ReadSlot {
    _place: OwnedSemaphorePermit,
}

impl ReadSlots {
    /// A place for one more read of `user`, waiting up to [`LIVE_READ_SLOT_WAIT`] for one.
    pub async fn take(&self, user: &str) -> Option<ReadSlot> {
        self.take_within(user, LIVE_READ_SLOT_WAIT).await
    }

    async fn take_within(&self, user: &str, wait: Duration) -> Option<ReadSlot> {
        let places = {
            let mut users = self.users.lock();
            // users with nothing going and nobody else holding their places are forgotten
            users.retain(|_, s| Arc::strong_count(s) > 1 || s.available_permits() < MAX_LIVE_READS_PER_USER);
            users.entry(user.to_string()).or_insert_with(|| Arc::new(Semaphore::new(MAX_LIVE_READS_PER_USER))).clone()
        };
        match tokio::time::timeout(wait, places.acquire_owned()).await {
            Ok(Ok(permit)) => Some(ReadSlot { _place: permit }),
            _ => None,
        }
    }

    /// Reads of `user` going now.
    pub fn taken_by(&self, user: &str) -> usize {
        self.users.lock().get(user).map_or(0, |s| MAX_LIVE_READS_PER_USER - s.available_permits())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_user_has_at_most_so_many_reads_and_others_their_own() {
        let slots = ReadSlots::default();
        let short = Duration::from_millis(50);
        let mut held = Vec::new();
        for _ in 0..MAX_LIVE_READS_PER_USER {
            held.push(slots.take_within("a", short).await.expect("a place"));
        }
        assert!(slots.take_within("a", short).await.is_none(), "one more waits, then is refused");
        assert!(slots.take_within("b", short).await.is_some(), "another user has their own");
        assert_eq!(slots.taken_by("a"), MAX_LIVE_READS_PER_USER);
        // one more waiting gets the place a finished read frees
        let freed = async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            held.pop();
        };
        let (got, ()) = tokio::join!(slots.take_within("a", Duration::from_secs(5)), freed);
        assert!(got.is_some());
        drop((got, held));
        assert_eq!(slots.taken_by("a"), 0);
    }
}
