//! Access: licence codes (sessions and access tiers join them with sign-in).

pub mod licence;
