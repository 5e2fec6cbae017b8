//! Provider → store: incremental sync per endpoint by `Timestamp gt n` (spec §4), deleted
//! entries, progress events for the toasts, and the background schedule.

pub mod engine;
pub mod groups;
pub mod progress;
pub mod schedule;
pub mod sink;
mod store_sink;

pub use engine::{SyncEngine, SyncReport, TableOutcome};
pub use progress::SyncEvent;
pub use sink::SyncSink;
