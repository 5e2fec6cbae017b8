//! Stock Manager: an on-premise stock and production manager for Exact Online companies.
//!
//! The binary (`src/main.rs`) only parses the command line; everything it runs lives here so
//! that integration tests can start the real server in-process on an ephemeral port.

pub mod api;
pub mod auth;
pub mod backup;
pub mod config;
pub mod counts;
#[cfg(feature = "demo")]
pub mod demo;
pub mod discovery;
pub mod doctor;
pub mod error;
pub mod exact;
pub mod fuzzing;
pub mod ip_range;
pub mod issued;
pub mod labels;
pub mod limits;
pub mod live;
pub mod materials;
pub mod organization;
pub mod outbox;
pub mod pictures;
pub mod printing;
pub mod server;
pub mod serverdb;
pub mod setup;
#[cfg(feature = "demo")]
pub mod sim;
pub mod state;
pub mod store;
pub mod sync;
pub mod telemetry;
pub mod tls;
pub mod tracking;
pub mod ui_assets;

/// The product's version, as built.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The product's display name (spec §1); "ESM" is the narrow-screen short form.
pub const PRODUCT_NAME: &str = "Stock Manager";
