//! Fault injection: what can go wrong between the product and the provider.

use serde::{Deserialize, Serialize};

/// Faults applied to API calls (not to the control endpoint). Shares are 0.0..=1.0.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Faults {
    /// Added to every API response.
    pub latency_ms: u64,
    /// Added to every token-endpoint answer (a slow renewal, for cancelling one mid-way).
    pub token_latency_ms: u64,
    /// Share of calls answered with HTTP 500.
    pub error_500_share: f64,
    /// Every n-th call is answered with HTTP 500 (0: off): the same faults in every run, for
    /// tests that must see some 500s but never more in a row than a client retries.
    pub error_500_every: u32,
    /// Calls drawn since these faults were set (what `error_500_every` counts); not part of the
    /// control endpoint's JSON.
    #[serde(skip)]
    pub drawn: u32,
    /// While > 0, every division call is answered 429 and this counts down.
    pub storm_429_calls: u32,
    /// Share of JSON responses whose body is cut in half.
    pub malformed_json_share: f64,
    /// Share of calls whose connection is dropped without a complete response.
    pub drop_share: f64,
    /// While > 0, picture downloads (`/docs/SysImage.aspx`) are answered 500 and this counts down.
    pub picture_error_calls: u32,
}

impl Faults {
    /// Whether the next picture download fails (and counts it).
    pub fn draw_picture_error(&mut self) -> bool {
        if self.picture_error_calls > 0 {
            self.picture_error_calls -= 1;
            return true;
        }
        false
    }
}

/// What to do with one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    None,
    Error500,
    TooMany,
    Malformed,
    Drop,
}

impl Faults {
    /// Draw the fault for one call; `roll` is uniform in 0..1.
    pub fn draw(&mut self, roll: f64, division_scoped: bool) -> Fault {
        if division_scoped && self.storm_429_calls > 0 {
            self.storm_429_calls -= 1;
            return Fault::TooMany;
        }
        if self.error_500_every > 0 {
            self.drawn = self.drawn.wrapping_add(1);
            if self.drawn.is_multiple_of(self.error_500_every) {
                return Fault::Error500;
            }
        }
        let mut edge = self.drop_share;
        if roll < edge {
            return Fault::Drop;
        }
        edge += self.error_500_share;
        if roll < edge {
            return Fault::Error500;
        }
        edge += self.malformed_json_share;
        if roll < edge {
            return Fault::Malformed;
        }
        Fault::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_nth_call_is_a_500_whatever_the_roll() {
        let mut f: Faults = serde_json::from_str(r#"{"error_500_every": 3}"#).expect("faults");
        let drawn: Vec<Fault> = (0..9).map(|_| f.draw(0.99, true)).collect();
        let errors: Vec<usize> = (0..9).filter(|&i| drawn[i] == Fault::Error500).collect();
        assert_eq!(errors, [2, 5, 8]);
        assert!(drawn.iter().all(|d| matches!(d, Fault::None | Fault::Error500)));
    }
}
