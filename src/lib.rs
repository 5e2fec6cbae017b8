//! Stock Manager: an on-premise stock and production manager for Exact Online companies.
//!
//! The binary (`src/main.rs`) only parses the command line; everything it runs lives here so
//! that integration tests can start the real server in-process on an ephemeral port.

// The crates below, under the paths the rest of the code knows: the foundation, the store, and
// the services (`esm-core`), so a module names the layer, not the crate.
pub use esm_base::{ip_range, limits};
pub use esm_core::{
    auth, backup, config, counts, discovery, error, exact, export_file, hours, issued, kept, labels, live, materials,
    organization, outbox, password, pictures, planning, printing, purchases, read_slots, scanning, serverdb, setup,
    sign_out, sync, tls, tracking,
};
/// The local store, its own crate below the services.
pub use esm_store as store;

pub mod api;
pub mod cli;
#[cfg(feature = "demo")]
pub mod demo;
pub mod doctor;
pub mod fuzzing;
pub mod server;
/// The Exact Online simulator, its own crate, in the product only with the `demo` feature.
#[cfg(feature = "demo")]
pub use esm_sim as sim;
pub mod state;
pub mod telemetry;
pub mod ui_assets;

pub use esm_base::{PRODUCT_NAME, VERSION};
