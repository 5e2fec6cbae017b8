//! Stock Manager: an on-premise stock and production manager for Exact Online companies.
//!
//! The binary (`src/main.rs`) only parses the command line; everything it runs lives here so
//! that integration tests can start the real server in-process on an ephemeral port.

// Foundation modules from the bottom crate, under the paths the rest of the code knows.
pub use esm_base::{ip_range, limits};
/// The local store, its own crate below the services.
pub use esm_store as store;

pub mod api;
pub mod auth;
pub mod backup;
pub mod cli;
pub mod config;
pub mod counts;
#[cfg(feature = "demo")]
pub mod demo;
pub mod discovery;
pub mod doctor;
pub mod error;
pub mod exact;
pub mod export_file;
pub mod fuzzing;
pub mod hours;
pub mod issued;
pub mod kept;
pub mod labels;
pub mod live;
pub mod materials;
pub mod organization;
pub mod outbox;
pub mod password;
pub mod pictures;
pub mod planning;
pub mod printing;
pub mod purchases;
pub mod read_slots;
pub mod scanning;
pub mod server;
pub mod serverdb;
pub mod setup;
pub mod sign_out;
/// The Exact Online simulator, its own crate, in the product only with the `demo` feature.
#[cfg(feature = "demo")]
pub use esm_sim as sim;
pub mod state;
pub mod sync;
pub mod telemetry;
pub mod tls;
pub mod tracking;
pub mod ui_assets;

pub use esm_base::{PRODUCT_NAME, VERSION};
