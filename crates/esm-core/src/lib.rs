//! The services of Stock Manager, below the HTTP layer: the configuration, the provider client
//! and its tokens, the sync, the outbox, sessions and licences, printing, pictures, counts, and the
//! answers the office screens read from the local copy. The product crate (`stock-manager`) puts
//! the API, the server, the commands and the shared state on top; nothing here knows of them.

// Foundation modules from the bottom crate, under the paths the rest of the code knows.
pub use esm_base::{PRODUCT_NAME, VERSION, ip_range, limits};
/// The local store, its own crate below the services.
pub use esm_store as store;

pub mod auth;
pub mod backup;
pub mod config;
pub mod counts;
pub mod discovery;
pub mod error;
pub mod exact;
pub mod export_file;
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
pub mod serverdb;
pub mod setup;
pub mod sign_out;
pub mod sync;
pub mod tls;
pub mod tracking;
