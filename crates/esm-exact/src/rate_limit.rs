//! One rate limiter per division, shared by every user and job, fed by Exact's `X-RateLimit-*`
//! headers so that normal load never earns a 429.
//!
//! Calls reserve a slot before they go out (so concurrent callers count each other); every answer
//! replaces the estimate with the provider's own figures. When the minute's budget is spent the
//! caller waits until the minute window resets (one minute past the current minute).

use esm_base::clock::Clock;
use http::HeaderMap;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// The provider's per-division minute budget when no header has been seen yet.
pub const DEFAULT_MINUTE_LIMIT: u32 = 60;
/// Headroom kept so that calls by other apps on the same key never tip us over.
const SAFETY_MARGIN: u32 = 1;
/// Calls of each minute the background sync leaves to the shop floor: queued writes, live reads
/// and labels. After an outage the catch-up sync would otherwise take the whole budget while the
/// bookings made during it wait.
pub const FOREGROUND_RESERVE: u32 = 10;

tokio::task_local! {
    /// Set for the calls of a background sync (see [`in_background`]).
    static BACKGROUND: ();
}

/// Runs `work` as background work: its provider calls leave [`FOREGROUND_RESERVE`] calls of each
/// minute to the others. Tasks it spawns must be wrapped again.
pub async fn in_background<F: std::future::Future>(work: F) -> F::Output {
    BACKGROUND.scope((), work).await
}

fn is_background() -> bool {
    BACKGROUND.try_with(|_| ()).is_ok()
}

/// Whether the current task's calls are background work (tasks it spawns follow it).
pub fn is_background_task() -> bool {
    is_background()
}

#[derive(Debug, Default)]
struct Window {
    /// Calls left in the current minute, as last reported minus calls started since.
    minute_remaining: Option<u32>,
    /// When the minute window resets (epoch ms, provider clock).
    minute_reset_ms: Option<i64>,
    /// Calls left today.
    day_remaining: Option<u32>,
    day_reset_ms: Option<i64>,
    /// Calls started but not answered yet.
    in_flight: u32,
    /// Calls answered 429 (for reports).
    rejected: u64,
    /// Calls made (for reports).
    made: u64,
}

/// The limiter of one division.
#[derive(Debug)]
pub struct RateLimiter {
    window: Mutex<Window>,
    /// The longest a caller waits for a window reset (a minute; tests shorten it).
    max_wait: Duration,
    /// The clock the provider's window resets are compared with (the provider's own).
    clock: Clock,
}

impl Default for RateLimiter {
    fn default() -> Self {
        RateLimiter::new(Duration::from_secs(60))
    }
}

/// What a caller must do before calling.
enum Decision {
    Go,
    /// Sleep; with `true`, the window counts as reset afterwards (the provider will say).
    Wait(Duration, bool),
}

/// The start of the next wall-clock minute, from now.
fn until_next_minute(now: i64) -> Duration {
    let next = (now / 60_000 + 1) * 60_000;
    Duration::from_millis((next - now).max(0) as u64)
}

impl RateLimiter {
    pub fn new(max_wait: Duration) -> Self {
        RateLimiter::with_clock(max_wait, Clock::real())
    }

    /// A limiter that reckons window resets and waits by `clock`.
    pub fn with_clock(max_wait: Duration, clock: Clock) -> Self {
        RateLimiter { window: Mutex::default(), max_wait, clock }
    }

    fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// Waits until a call may go out and reserves it. Pair with [`RateLimiter::record`].
    pub async fn acquire(&self) {
        let keep = if is_background() { SAFETY_MARGIN + FOREGROUND_RESERVE } else { SAFETY_MARGIN };
        loop {
            let decision = {
                let mut w = self.window.lock();
                let now = self.now_ms();
                if let Some(reset) = w.minute_reset_ms
                    && now >= reset
                {
                    // A new minute: the provider's next answer will tell the real figure.
                    w.minute_remaining = None;
                    w.minute_reset_ms = None;
                }
                match w.minute_remaining {
                    Some(left) if left <= keep => {
                        let wait = match w.minute_reset_ms {
                            Some(reset) => Duration::from_millis((reset - now).clamp(0, 60_000) as u64),
                            None => until_next_minute(now),
                        };
                        Decision::Wait(wait.min(self.max_wait) + Duration::from_millis(50), true)
                    }
                    Some(left) => {
                        w.minute_remaining = Some(left - 1);
                        w.in_flight += 1;
                        w.made += 1;
                        Decision::Go
                    }
                    // Unknown budget: one call at a time until the headers tell us.
                    None if w.in_flight == 0 => {
                        w.in_flight += 1;
                        w.made += 1;
                        Decision::Go
                    }
                    None => Decision::Wait(Duration::from_millis(20), false),
                }
            };
            match decision {
                Decision::Go => return,
                Decision::Wait(d, reset) => {
                    tracing::debug!(wait_ms = d.as_millis() as u64, reset, "rate limiter wait");
                    self.clock.sleep(d).await;
                    if reset {
                        let mut w = self.window.lock();
                        // The waited-for window is over: probe with one call; its headers
                        // (or a 429) tell the real budget.
                        if w.minute_remaining.is_some_and(|left| left <= keep) {
                            w.minute_remaining = None;
                            w.minute_reset_ms = None;
                        }
                    }
                }
            }
        }
    }

    /// Takes the provider's figures from an answer (any status), ending the reserved call.
    pub fn record(&self, headers: Option<&HeaderMap>, status: u16) {
        let mut w = self.window.lock();
        w.in_flight = w.in_flight.saturating_sub(1);
        if status == 429 {
            w.rejected += 1;
        }
        let Some(h) = headers else { return };
        let num = |name: &str| h.get(name).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<i64>().ok());
        if let Some(left) = num("x-ratelimit-minutely-remaining") {
            // Calls still in flight were counted by the provider after this answer was made.
            let left = (left.max(0) as u32).saturating_sub(w.in_flight);
            w.minute_remaining = Some(match w.minute_remaining {
                Some(ours) if status != 429 => ours.min(left),
                _ => left,
            });
        } else if status == 429 {
            w.minute_remaining = Some(0);
        }
        if let Some(reset) = num("x-ratelimit-minutely-reset") {
            w.minute_reset_ms = Some(reset);
        } else if status == 429 && w.minute_reset_ms.is_none() {
            let now = self.now_ms();
            w.minute_reset_ms = Some(now + until_next_minute(now).as_millis() as i64);
        }
        if let Some(left) = num("x-ratelimit-remaining") {
            w.day_remaining = Some(left.max(0) as u32);
        }
        if let Some(reset) = num("x-ratelimit-reset") {
            w.day_reset_ms = Some(reset);
        }
    }

    /// Ends a reserved call that got no answer (network error).
    pub fn abandon(&self) {
        let mut w = self.window.lock();
        w.in_flight = w.in_flight.saturating_sub(1);
    }

    /// How long a caller would wait now for the next slot (for progress estimates).
    pub fn pending_wait(&self) -> Duration {
        let w = self.window.lock();
        match (w.minute_remaining, w.minute_reset_ms) {
            (Some(left), Some(reset)) if left <= SAFETY_MARGIN => {
                Duration::from_millis((reset - self.now_ms()).clamp(0, 60_000) as u64).min(self.max_wait)
            }
            _ => Duration::ZERO,
        }
    }

    /// Calls made and calls refused with 429 since start.
    pub fn counters(&self) -> (u64, u64) {
        let w = self.window.lock();
        (w.made, w.rejected)
    }

    /// Calls left today, when known.
    pub fn day_remaining(&self) -> Option<u32> {
        self.window.lock().day_remaining
    }
}

/// The limiters of all divisions.
#[derive(Debug)]
pub struct RateLimiters {
    by_division: Mutex<HashMap<i64, Arc<RateLimiter>>>,
    max_wait: Duration,
    clock: Clock,
}

impl RateLimiters {
    pub fn new(max_wait: Duration, clock: Clock) -> Self {
        RateLimiters { by_division: Mutex::default(), max_wait, clock }
    }

    pub fn for_division(&self, division: i64) -> Arc<RateLimiter> {
        self.by_division
            .lock()
            .entry(division)
            .or_insert_with(|| Arc::new(RateLimiter::with_clock(self.max_wait, self.clock.clone())))
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn now_ms() -> i64 {
        Clock::real().now_ms()
    }

    fn headers(remaining: i64, reset: i64) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-ratelimit-minutely-remaining", HeaderValue::from_str(&remaining.to_string()).unwrap());
        h.insert("x-ratelimit-minutely-reset", HeaderValue::from_str(&reset.to_string()).unwrap());
        h
    }

    #[tokio::test]
    async fn first_call_goes_then_budget_is_followed() {
        let l = RateLimiter::default();
        l.acquire().await;
        l.record(Some(&headers(3, now_ms() + 60_000)), 200);
        // 3 left with a margin of 1: two more calls go at once.
        l.acquire().await;
        l.acquire().await;
        assert_eq!(l.window.lock().minute_remaining, Some(1));
        assert!(l.pending_wait() > Duration::from_secs(50));
    }

    #[tokio::test]
    async fn spent_budget_waits_for_the_reset() {
        let l = RateLimiter::default();
        l.acquire().await;
        l.record(Some(&headers(0, now_ms() + 300)), 200);
        let started = std::time::Instant::now();
        tokio::time::timeout(Duration::from_secs(5), l.acquire()).await.expect("the reset frees the budget");
        assert!(started.elapsed() >= Duration::from_millis(250), "waited for the reset");
    }

    #[test]
    fn a_429_without_headers_closes_the_minute() {
        let l = RateLimiter::default();
        l.window.lock().in_flight = 1;
        l.record(None, 429);
        assert_eq!(l.counters().1, 1);
        l.record(Some(&HeaderMap::new()), 429);
        assert_eq!(l.window.lock().minute_remaining, Some(0));
        assert!(l.window.lock().minute_reset_ms.is_some());
    }

    #[tokio::test]
    async fn the_background_sync_leaves_a_reserve_to_the_shop_floor() {
        let l = RateLimiter::default();
        l.acquire().await;
        l.record(Some(&headers(FOREGROUND_RESERVE as i64 + 3, now_ms() + 60_000)), 200);
        // The sync takes the budget down to the reserve, then waits for the next minute.
        in_background(async {
            l.acquire().await;
            l.acquire().await;
            let blocked = tokio::time::timeout(Duration::from_millis(200), l.acquire()).await;
            assert!(blocked.is_err(), "the reserve is not the sync's");
        })
        .await;
        // A booking still goes at once.
        tokio::time::timeout(Duration::from_millis(200), l.acquire()).await.expect("the reserve is the shop floor's");
        assert_eq!(l.window.lock().minute_remaining, Some(FOREGROUND_RESERVE));
    }
}
