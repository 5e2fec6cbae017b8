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

    /// Checks and counts an attempt in one step, before it is evaluated: attempts made in
    /// parallel cannot all pass the check while none has failed yet. A success then clears the
    /// key with [`Throttle::succeed`].
    pub fn attempt(&self, key: &str, now: Instant) -> Result<(), Duration> {
        let mut all = self.failures.lock();
        if all.len() > 10_000 {
            all.retain(|_, l| l.back().is_some_and(|t| now.duration_since(*t) < self.window));
        }
        let list = all.entry(key.to_string()).or_default();
        while list.front().is_some_and(|t| now.duration_since(*t) >= self.window) {
            list.pop_front();
        }
        if list.len() >= self.max_failures {
            let oldest = list.front().copied().unwrap_or(now);
            return Err(self.window.saturating_sub(now.duration_since(oldest)));
        }
        list.push_back(now);
        Ok(())
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

/// Expensive checks (an Argon2 verification holds about 19 MiB and tens of milliseconds of CPU)
/// running at once: at most one per key and `max` in all; others are refused, not queued.
pub struct Slots {
    max: usize,
    busy: Mutex<HashMap<String, ()>>,
}

/// A taken slot, given back on drop.
pub struct Slot<'a> {
    slots: &'a Slots,
    key: String,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.slots.busy.lock().remove(&self.key);
    }
}

impl Slots {
    pub fn new(max: usize) -> Self {
        Slots { max, busy: Mutex::default() }
    }

    /// A slot for `key`, or `None` while `key` has one or all are taken.
    pub fn take(&self, key: &str) -> Option<Slot<'_>> {
        let mut busy = self.busy.lock();
        if busy.len() >= self.max || busy.contains_key(key) {
            return None;
        }
        busy.insert(key.to_string(), ());
        Some(Slot { slots: self, key: key.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_are_counted_before_they_are_evaluated() {
        let t = Throttle::new(5, Duration::from_secs(600));
        let now = Instant::now();
        let passed = (0..48).filter(|_| t.attempt("anna", now).is_ok()).count();
        assert_eq!(passed, 5);
        t.succeed("anna");
        assert!(t.attempt("anna", now).is_ok());
    }

    #[test]
    fn one_slot_per_key_and_a_few_in_all() {
        let slots = Slots::new(2);
        let a = slots.take("anna").expect("free");
        assert!(slots.take("anna").is_none(), "one per key");
        let _b = slots.take("bob").expect("free");
        assert!(slots.take("carl").is_none(), "two in all");
        drop(a);
        assert!(slots.take("carl").is_some());
    }

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
