//! Reads of Exact Online made live, on a request, rather than from the synced copy: the live
//! tables cached in the store (`tables`, `GET /exact/live/{table}`) and direct reads of a
//! provider path (`direct`, `GET /exact/urlDirect`). Both wait for the provider at most a short
//! deadline (`deadline`) and then serve their last known copy with when it was fetched.

pub mod deadline;
pub mod direct;
pub mod tables;

pub use deadline::AS_OF_HEADER;
