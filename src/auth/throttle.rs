//! Counts failed attempts per key in a sliding window (licence codes, re-auth passwords), so a
//! code cannot be guessed by trying many.

use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

pub struct Throttle {
    max_failures: usize,
    window: Duration,
    failures: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl Throttle {
    pub fn new(max_failures: usize, window: Duration) -> Self {
        Throttle { max_failures, window, failures: Mutex::default() }
    }

    /// `Err(wait)` while `key` has used up its failures in the window.
    pub fn check(&self, key: &str, now: Instant) -> Result<(), Duration> {
        let mut all = self.failures.lock();
        let Some(list) = all.get_mut(key) else { return Ok(()) };
        while list.front().is_some_and(|t| now.duration_since(*t) >= self.window) {
            list.pop_front();
        }
        if list.len() < self.max_failures {
            return Ok(());
        }
        let oldest = list.front().copied().unwrap_or(now);
        Err(self.window.saturating_sub(now.duration_since(oldest)))
    }

    pub fn fail(&self, key: &str, now: Instant) {
        let mut all = self.failures.lock();
        // Bound memory: forget keys whose failures are all old.
        if all.len() > 10_000 {
            all.retain(|_, l| l.back().is_some_and(|t| now.duration_since(*t) < self.window));
        }
        all.entry(key.to_string()).or_default().push_back(now);
    }

    pub fn succeed(&self, key: &str) {
        self.failures.lock().remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_beyond_the_limit_wait_out_the_window() {
        let t = Throttle::new(3, Duration::from_secs(60));
        let start = Instant::now();
        for i in 0..3 {
            assert!(t.check("ip", start).is_ok(), "attempt {i}");
            t.fail("ip", start);
        }
        let wait = t.check("ip", start + Duration::from_secs(10)).unwrap_err();
        assert_eq!(wait, Duration::from_secs(50));
        assert!(t.check("other", start).is_ok(), "keys are separate");
        assert!(t.check("ip", start + Duration::from_secs(60)).is_ok(), "the window slides");
        t.succeed("ip");
        assert!(t.check("ip", start).is_ok());
    }
}
