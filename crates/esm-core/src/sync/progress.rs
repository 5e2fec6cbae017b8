//! Sync progress as the toasts show it (spec §2, §3 Toast): name, message, total, remaining,
//! done, paused, and seconds remaining from the observed rate, rate-limit waits included.

use serde::Serialize;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SyncEvent {
    pub division: i64,
    /// The local table.
    pub table: &'static str,
    /// The endpoint's display name.
    pub name: &'static str,
    /// "Refreshing {display name}".
    pub message: String,
    pub total: u64,
    pub remaining: u64,
    pub done: bool,
    /// Waiting for the provider's rate limit or after an error.
    pub paused: bool,
    pub seconds_remaining: u64,
    /// Set when the table stopped with an error.
    pub error: Option<String>,
}

/// Tracks one table's progress and estimates the time left.
pub struct Progress {
    started: Instant,
    received: u64,
    /// Time spent waiting on purpose (rate limit, retry waits), not counted in the rate.
    waited: Duration,
    total: Option<u64>,
}

impl Progress {
    pub fn new() -> Self {
        Progress { started: Instant::now(), received: 0, waited: Duration::ZERO, total: None }
    }

    pub fn set_total(&mut self, total: Option<u64>) {
        if total.is_some() {
            self.total = total;
        }
    }

    pub fn add(&mut self, rows: u64) {
        self.received += rows;
    }

    pub fn waited(&mut self, d: Duration) {
        self.waited += d;
    }

    pub fn received(&self) -> u64 {
        self.received
    }

    /// Total rows: the provider's count when known, else what came plus one more page if more follow.
    pub fn total(&self, more: bool, page: u64) -> u64 {
        match self.total {
            Some(t) => t.max(self.received),
            None => self.received + if more { page } else { 0 },
        }
    }

    /// Seconds left at the observed rows/s, plus a wait the caller already knows it faces.
    pub fn eta_seconds(&self, remaining: u64, pending_wait: Duration) -> u64 {
        let working = self.started.elapsed().saturating_sub(self.waited).as_secs_f64().max(0.001);
        let rate = self.received as f64 / working;
        let work = if rate > 0.0 { remaining as f64 / rate } else { 0.0 };
        (work + pending_wait.as_secs_f64()).ceil() as u64
    }
}

impl Default for Progress {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_uses_the_count_or_estimates_a_page_ahead() {
        let mut p = Progress::new();
        p.add(1000);
        assert_eq!(p.total(true, 1000), 2000);
        assert_eq!(p.total(false, 1000), 1000);
        p.set_total(Some(5000));
        assert_eq!(p.total(true, 1000), 5000);
    }

    #[test]
    fn eta_includes_known_waits() {
        let mut p = Progress::new();
        p.add(0);
        assert_eq!(p.eta_seconds(0, Duration::from_secs(12)), 12);
    }
}
