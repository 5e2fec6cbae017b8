//! Integration tests: the real server (and later the simulator) on ephemeral loopback ports,
//! talked to over real HTTP. One binary, so it links once.

#[cfg(feature = "demo")]
mod provider;
mod support;

#[cfg(feature = "demo")]
mod admin_role;
#[cfg(feature = "demo")]
mod auth;
#[cfg(feature = "demo")]
mod backup;
#[cfg(feature = "demo")]
mod bank_accounts;
#[cfg(feature = "demo")]
mod bursts;
mod cli;
#[cfg(feature = "demo")]
mod counts;
mod discovery;
mod fuzz_regressions;
#[cfg(feature = "demo")]
mod hostile;
#[cfg(feature = "demo")]
mod hours;
#[cfg(feature = "demo")]
mod idempotency;
#[cfg(feature = "demo")]
mod import_data;
mod labels;
#[cfg(feature = "demo")]
mod labels_api;
#[cfg(feature = "demo")]
mod labels_receipt;
#[cfg(feature = "demo")]
mod labels_serial;
#[cfg(feature = "demo")]
mod live_lists;
#[cfg(feature = "demo")]
mod live_outage;
#[cfg(feature = "demo")]
mod materials;
#[cfg(feature = "demo")]
mod ops;
#[cfg(feature = "demo")]
mod outage;
#[cfg(feature = "demo")]
mod outbox;
#[cfg(feature = "demo")]
mod pictures;
mod printing;
#[cfg(feature = "demo")]
mod purchase_orders;
#[cfg(feature = "demo")]
mod references;
#[cfg(feature = "demo")]
mod reliability;
mod scan_catalogue;
#[cfg(feature = "demo")]
mod scanning;
#[cfg(feature = "demo")]
mod schema_changes;
mod server;
#[cfg(feature = "demo")]
mod setup;
#[cfg(feature = "demo")]
mod sim;
mod slow_clients;
#[cfg(feature = "demo")]
mod sync;
#[cfg(feature = "demo")]
mod sync_schedule;
#[cfg(feature = "demo")]
mod tokens;
#[cfg(feature = "demo")]
mod tracked;
#[cfg(feature = "demo")]
mod tracked_sim;
mod upgrade;
#[cfg(feature = "demo")]
mod warehouses;
#[cfg(feature = "demo")]
mod xsite;
