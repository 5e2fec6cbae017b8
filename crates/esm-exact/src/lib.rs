//! What Exact Online is to the product, as data and rules: the entity schemas (paths, keys, typed
//! fields), the OData literals and value formats it reads and writes, and the per-division rate
//! limiter its `X-RateLimit-*` headers feed. Both the product's client and the simulator build
//! on these, so they cannot disagree on a field or a date.
//!
//! The client that makes the calls (OAuth, tokens, paging, its errors as the catalogue's answers)
//! is in `stock_manager::exact`, above this crate.

pub mod odata;
pub mod rate_limit;
pub mod schema;
