//! Fault injection: what can go wrong between the product and the provider.

use serde::{Deserialize, Serialize};

/// Faults applied to API calls (not to the control endpoint). Shares are 0.0..=1.0.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Faults {
    /// Added to every API response.
    pub latency_ms: u64,
    /// Share of calls answered with HTTP 500.
    pub error_500_share: f64,
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
