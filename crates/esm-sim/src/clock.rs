//! The simulated clock: real time plus an offset that tests move forward, optionally running
//! faster than real time. Token lifetimes, auth codes and rate-limit windows all read it.

use std::sync::atomic::{AtomicI64, Ordering};

#[derive(Debug)]
pub struct Clock {
    offset_ms: AtomicI64,
    /// Simulated milliseconds per real one (1 = real time). A faster clock lets a test live
    /// through many rate-limit minutes and token lifetimes in seconds; the product then reads
    /// this clock too (see `exact::clock`), so both sides agree on every deadline.
    speed: u32,
    /// Real time at which the clock started, for the speed-up.
    started_real_ms: i64,
}

impl Default for Clock {
    fn default() -> Self {
        Clock { offset_ms: AtomicI64::new(0), speed: 1, started_real_ms: real_now_ms() }
    }
}

impl Clock {
    /// A clock that starts at `start_ms` (UTC epoch ms) and then runs with real time.
    pub fn starting_at(start_ms: Option<i64>) -> Clock {
        Clock::running(start_ms, 1)
    }

    /// A clock that starts at `start_ms` (UTC epoch ms; `None` = now) and then runs `speed`
    /// times as fast as real time.
    pub fn running(start_ms: Option<i64>, speed: u32) -> Clock {
        let c = Clock { speed: speed.max(1), ..Clock::default() };
        if let Some(s) = start_ms {
            c.offset_ms.store(s - real_now_ms(), Ordering::SeqCst);
        }
        c
    }

    /// Real time run at the clock's speed since it started.
    fn sped_up(&self) -> i64 {
        let real = real_now_ms();
        real + (real - self.started_real_ms) * (i64::from(self.speed) - 1)
    }

    /// Current simulated UTC time in epoch ms.
    pub fn now_ms(&self) -> i64 {
        self.sped_up() + self.offset_ms.load(Ordering::SeqCst)
    }

    pub fn advance_ms(&self, ms: i64) {
        self.offset_ms.fetch_add(ms, Ordering::SeqCst);
    }

    pub fn set_ms(&self, to_ms: i64) {
        self.offset_ms.store(to_ms - self.sped_up(), Ordering::SeqCst);
    }

    pub fn speed(&self) -> u32 {
        self.speed
    }

    /// Amsterdam wall-clock time written as if it were UTC: the provider's `/Date(ms)/` convention.
    pub fn cet_ms(&self) -> i64 {
        to_cet(self.now_ms())
    }
}

impl esm_base::clock::TimeSource for Clock {
    fn now_ms(&self) -> i64 {
        Clock::now_ms(self)
    }

    fn speed(&self) -> u32 {
        self.speed
    }
}

fn real_now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// UTC epoch ms -> CET/CEST wall-clock as if UTC (EU rule: summer time from the last Sunday of
/// March 01:00 UTC to the last Sunday of October 01:00 UTC).
pub fn to_cet(utc_ms: i64) -> i64 {
    use chrono::{Datelike, TimeZone};
    let Some(dt) = chrono::Utc.timestamp_millis_opt(utc_ms).single() else { return utc_ms };
    let last_sunday = |month: u32| {
        let mut d = chrono::NaiveDate::from_ymd_opt(dt.year(), month, 31).unwrap_or_default();
        while d.weekday() != chrono::Weekday::Sun {
            d = d.pred_opt().unwrap_or(d);
        }
        d.and_hms_opt(1, 0, 0).unwrap_or_default().and_utc().timestamp_millis()
    };
    let summer = utc_ms >= last_sunday(3) && utc_ms < last_sunday(10);
    utc_ms + if summer { 2 } else { 1 } * 3_600_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cet_is_one_or_two_hours_ahead() {
        // 2024-01-15T12:00:00Z -> 13:00 CET
        assert_eq!(to_cet(1_705_320_000_000), 1_705_320_000_000 + 3_600_000);
        // 2024-07-15T12:00:00Z -> 14:00 CEST
        assert_eq!(to_cet(1_721_044_800_000), 1_721_044_800_000 + 7_200_000);
    }

    #[test]
    fn the_clock_moves_when_told() {
        let c = Clock::starting_at(Some(1_000_000));
        let before = c.now_ms();
        c.advance_ms(600_000);
        assert!(c.now_ms() - before >= 600_000);
    }

    #[test]
    fn a_fast_clock_runs_at_its_speed_and_still_moves_when_told() {
        let c = Clock::running(Some(1_000_000), 50);
        let before = c.now_ms();
        std::thread::sleep(std::time::Duration::from_millis(100));
        let ran = c.now_ms() - before;
        assert!((4_000..60_000).contains(&ran), "100 ms of real time is about 5 s: {ran}");
        c.set_ms(2_000_000);
        assert!((2_000_000..2_010_000).contains(&c.now_ms()));
        c.advance_ms(60_000);
        assert!(c.now_ms() >= 2_060_000);
    }
}
