//! The provider's API limits: 60 calls per minute per division (wall-clock minute windows) and
//! 5,000 per day (reset at 00:00 UTC), reported in six `X-RateLimit-*` headers in epoch ms.

use std::collections::HashMap;

pub const MINUTELY_LIMIT: u32 = 60;
pub const DAILY_LIMIT: u32 = 5000;
const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 86_400_000;

#[derive(Debug, Default, Clone, Copy)]
struct Window {
    start_ms: i64,
    used: u32,
}

/// Counters per division.
#[derive(Debug, Default)]
pub struct RateLimits {
    minute: HashMap<i32, Window>,
    day: HashMap<i32, Window>,
}

/// The outcome of one call: headers to send and whether it is refused.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub headers: Vec<(&'static str, String)>,
    pub refused: bool,
}

impl RateLimits {
    /// Count a division-scoped call at `now_ms` (UTC).
    pub fn check(&mut self, division: i32, now_ms: i64) -> Verdict {
        let minute_start = now_ms - now_ms.rem_euclid(MINUTE_MS);
        let day_start = now_ms - now_ms.rem_euclid(DAY_MS);
        let m = self.minute.entry(division).or_default();
        if m.start_ms != minute_start {
            *m = Window { start_ms: minute_start, used: 0 };
        }
        let d = self.day.entry(division).or_default();
        if d.start_ms != day_start {
            *d = Window { start_ms: day_start, used: 0 };
        }
        let daily = vec![
            ("X-RateLimit-Limit", DAILY_LIMIT.to_string()),
            ("X-RateLimit-Remaining", DAILY_LIMIT.saturating_sub(d.used).to_string()),
            ("X-RateLimit-Reset", (day_start + DAY_MS).to_string()),
        ];
        if d.used >= DAILY_LIMIT {
            // A daily refusal carries only the daily headers.
            return Verdict { headers: daily, refused: true };
        }
        if m.used >= MINUTELY_LIMIT {
            // A minutely refusal carries only the minutely headers (clients read the daily ones as 0).
            return Verdict { headers: minutely(m), refused: true };
        }
        m.used += 1;
        d.used += 1;
        let mut headers = vec![
            ("X-RateLimit-Limit", DAILY_LIMIT.to_string()),
            ("X-RateLimit-Remaining", (DAILY_LIMIT - d.used).to_string()),
            ("X-RateLimit-Reset", (day_start + DAY_MS).to_string()),
        ];
        headers.extend(minutely(m));
        Verdict { headers, refused: false }
    }

    /// Calls counted in the current minute window of a division.
    pub fn used_this_minute(&self, division: i32, now_ms: i64) -> u32 {
        let minute_start = now_ms - now_ms.rem_euclid(MINUTE_MS);
        self.minute.get(&division).filter(|w| w.start_ms == minute_start).map_or(0, |w| w.used)
    }
}

fn minutely(m: &Window) -> Vec<(&'static str, String)> {
    vec![
        ("X-RateLimit-Minutely-Limit", MINUTELY_LIMIT.to_string()),
        ("X-RateLimit-Minutely-Remaining", MINUTELY_LIMIT.saturating_sub(m.used).to_string()),
        ("X-RateLimit-Minutely-Reset", (m.start_ms + MINUTE_MS).to_string()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixty_per_wall_clock_minute_then_refused_until_the_next_minute() {
        let mut r = RateLimits::default();
        let t0 = 1_699_999_980_000 + 40_000; // 40 s into a minute
        for i in 0..60 {
            let v = r.check(1, t0 + i);
            assert!(!v.refused);
            assert_eq!(v.headers.len(), 6);
        }
        let v = r.check(1, t0 + 100);
        assert!(v.refused);
        assert_eq!(v.headers.len(), 3);
        assert!(v.headers.iter().all(|(h, _)| h.contains("Minutely")));
        assert!(!r.check(2, t0).refused, "other divisions are unaffected");
        assert!(!r.check(1, t0 + 20_000).refused, "a new minute opens at :00");
    }
}
