//! Access: sessions, access tiers, the organization registry and licence codes.

pub mod accounts;
pub mod admin;
pub mod licence;
pub mod orgs;
pub mod session;
pub mod throttle;
pub mod tier;
pub mod users;
