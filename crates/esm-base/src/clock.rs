//! The time the product reckons the provider's deadlines by: token expiry, rate-limit windows and
//! the spec's waits between tries.
//!
//! It is real time, except in tests that must live through many of Exact's minutes (a sync that
//! outlasts several tokens at 60 calls a minute): those share the simulator's clock, which may run
//! faster than real time, so both sides agree on when a token dies and a minute window resets
//! while the product still waits every wait it would wait for real, only shorter in real time.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A clock other than the real one (the simulator's).
pub trait TimeSource: Send + Sync {
    /// Current time on this clock, epoch milliseconds.
    fn now_ms(&self) -> i64;
    /// How many of this clock's milliseconds pass per real one (1 = real time).
    fn speed(&self) -> u32;
}

/// The provider-facing clock: real time unless it follows a [`TimeSource`].
#[derive(Clone, Default)]
pub struct Clock(Option<Arc<dyn TimeSource>>);

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            None => f.write_str("Clock(real)"),
            Some(s) => write!(f, "Clock(x{})", s.speed()),
        }
    }
}

fn real_now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

impl Clock {
    /// Real time.
    pub fn real() -> Clock {
        Clock(None)
    }

    /// A clock that reads `source` and waits at its speed.
    pub fn following(source: Arc<dyn TimeSource>) -> Clock {
        Clock(Some(source))
    }

    /// Current time, epoch milliseconds.
    pub fn now_ms(&self) -> i64 {
        match &self.0 {
            None => real_now_ms(),
            Some(s) => s.now_ms(),
        }
    }

    /// How long `d` of this clock's time takes in real time.
    pub fn real_duration(&self, d: Duration) -> Duration {
        match &self.0 {
            None => d,
            Some(s) => d / s.speed().max(1),
        }
    }

    /// Waits `d` of this clock's time.
    pub async fn sleep(&self, d: Duration) {
        tokio::time::sleep(self.real_duration(d)).await;
    }
}

/// Today's date on this machine's calendar: the date the plant works on (the server stands in the
/// plant, so its zone is the organization's), for licences and the dates a booking defaults to.
pub fn today() -> chrono::NaiveDate {
    chrono::Local::now().date_naive()
}

/// Midnight of [`today`] as the provider's date-time text (`2026-12-02T00:00:00`): the date a
/// write to Exact Online defaults to.
pub fn today_as_provider_date() -> String {
    today().format("%Y-%m-%dT00:00:00").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fast;

    impl TimeSource for Fast {
        fn now_ms(&self) -> i64 {
            42
        }
        fn speed(&self) -> u32 {
            20
        }
    }

    #[tokio::test]
    async fn a_fast_clock_waits_its_time_in_less_real_time() {
        let clock = Clock::following(Arc::new(Fast));
        assert_eq!(clock.now_ms(), 42);
        let started = std::time::Instant::now();
        clock.sleep(Duration::from_secs(2)).await;
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(100) && took < Duration::from_secs(1), "{took:?}");
        assert!((Clock::real().now_ms() - real_now_ms()).abs() < 1000);
    }
}
