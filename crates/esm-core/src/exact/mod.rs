//! The provider (Exact Online) client: OAuth, tokens, rate limits, paging, literals, catalogue.

pub mod catalogue;
pub mod client;
pub mod dropped;
pub mod envelope;
pub mod error;
pub mod oauth;
pub mod reachability;
pub mod tokens;

// The provider's schemas, literals and rate limiter are their own crate, below this client.
pub use esm_exact::{odata, rate_limit, schema};

pub use client::{ExactClient, Waits};
pub use error::ExactError;
pub use esm_base::clock::{self, Clock};
