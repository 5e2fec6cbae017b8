//! The bottom of the crate graph: what every layer needs once, and nothing that knows about
//! Exact Online, HTTP or the store.
//!
//! - [`clock`]: the time deadlines are reckoned by (real, or the simulator's faster one in
//!   tests), and today's date;
//! - [`limits`]: every input limit of the server;
//! - [`ip_range`]: addresses and CIDR ranges from the configuration (trusted proxies, printers);
//! - [`files`]: files readable by their owner only (the data directory holds tokens and keys);
//! - [`language`] and [`texts`]: the UI's languages, and the catalogue of what the server says in
//!   them (beside the error codes' messages).

/// The product's version, as built (every crate of the workspace has the same).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The product's display name (spec §1); "ESM" is the narrow-screen short form.
pub const PRODUCT_NAME: &str = "Stock Manager";

pub mod clock;
pub mod files;
pub mod ip_range;
pub mod language;
pub mod limits;
pub mod order;
pub mod texts;
