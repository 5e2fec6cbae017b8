//! Whether the provider answers, from the outcome of every call: the UI shows an outage (reads
//! then come from the store and writes wait in the outbox) without probing the provider itself.

use parking_lot::Mutex;
use serde::Serialize;

/// What the last calls said about the provider.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ProviderStatus {
    /// False after a call failed on the network or with a 5xx, until a call gets an answer.
    pub reachable: bool,
    /// Since when (epoch ms) it is in this state; none before the first call.
    #[schema(example = 1_780_000_000_000_i64)]
    pub since_ms: Option<i64>,
    /// The last failure's message (kept after recovery, for the record).
    pub last_error: Option<String>,
}

pub struct Reachability {
    status: Mutex<ProviderStatus>,
}

impl Default for Reachability {
    fn default() -> Self {
        Reachability { status: Mutex::new(ProviderStatus { reachable: true, since_ms: None, last_error: None }) }
    }
}

impl Reachability {
    /// A call got an answer that was not a server error (a 4xx or 429 is an answer too).
    pub fn answered(&self, now_ms: i64) {
        let mut s = self.status.lock();
        if !s.reachable || s.since_ms.is_none() {
            s.reachable = true;
            s.since_ms = Some(now_ms);
        }
    }

    /// A call failed on the network or with a server error.
    pub fn failed(&self, now_ms: i64, error: &str) {
        let mut s = self.status.lock();
        if s.reachable || s.since_ms.is_none() {
            s.reachable = false;
            s.since_ms = Some(now_ms);
        }
        s.last_error = Some(error.to_string());
    }

    pub fn status(&self) -> ProviderStatus {
        self.status.lock().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outage_starts_at_the_first_failure_and_ends_at_the_first_answer() {
        let r = Reachability::default();
        assert_eq!(r.status(), ProviderStatus { reachable: true, since_ms: None, last_error: None });
        r.answered(10);
        assert_eq!(r.status().since_ms, Some(10));
        r.failed(20, "connection refused");
        r.failed(30, "timed out");
        let down = r.status();
        assert!(!down.reachable);
        assert_eq!(down.since_ms, Some(20), "the outage began at the first failure");
        assert_eq!(down.last_error.as_deref(), Some("timed out"));
        r.answered(40);
        r.answered(50);
        let up = r.status();
        assert!(up.reachable);
        assert_eq!(up.since_ms, Some(40));
        assert_eq!(up.last_error.as_deref(), Some("timed out"), "the last failure stays on record");
    }

    #[test]
    fn a_failure_before_any_answer_is_an_outage() {
        let r = Reachability::default();
        r.failed(5, "refused");
        assert_eq!(r.status().since_ms, Some(5));
        assert!(!r.status().reachable);
    }
}
