//! The provider (Exact Online) client: OAuth, tokens, rate limits, paging, literals, catalogue.

pub mod catalogue;
pub mod client;
pub mod clock;
pub mod dropped;
pub mod envelope;
pub mod error;
pub mod oauth;
pub mod odata;
pub mod rate_limit;
pub mod reachability;
pub mod schema;
pub mod tokens;

pub use client::{ExactClient, Waits};
pub use clock::Clock;
pub use error::ExactError;
