//! Who is signed in, per user (an administrator's view: names and times, never a cookie), and
//! ending every session of one user at once (a worker who left, a lost handheld). Served by
//! `api::sessions` and `api::admin`, and by `stock-manager sessions` (`cli::sessions`).

use super::session::SessionRecord;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::ToSchema;

/// One user's sessions.
#[derive(Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct UserSessions {
    /// The Exact user id (what `DELETE /sessions/{user}` takes).
    #[schema(example = "7a3c1d2e-0000-4000-8000-000000000001")]
    pub user: String,
    #[schema(example = "anna@example.com")]
    pub user_name: String,
    #[schema(example = "Anna de Vries")]
    pub full_name: String,
    /// Browsers and handhelds signed in as this user.
    pub sessions: usize,
    /// The latest use of any of them, epoch milliseconds.
    pub last_seen: i64,
    /// The earliest sign-in among them, epoch milliseconds.
    pub signed_in: i64,
}

/// What ending a user's sessions did.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Ended {
    pub user: String,
    pub ended: usize,
}

/// The live sessions grouped per user, optionally of one organization, most recently used first.
pub fn per_user(records: Vec<SessionRecord>, division: Option<i64>) -> Vec<UserSessions> {
    let mut users: BTreeMap<String, UserSessions> = BTreeMap::new();
    for r in records.into_iter().filter(|r| division.is_none_or(|d| r.division == d)) {
        let entry = users.entry(r.user.to_lowercase()).or_insert_with(|| UserSessions {
            user: r.user.clone(),
            user_name: r.user_name.clone(),
            full_name: r.full_name.clone(),
            sessions: 0,
            last_seen: r.last_seen_ms,
            signed_in: r.created_ms,
        });
        entry.sessions += 1;
        entry.last_seen = entry.last_seen.max(r.last_seen_ms);
        entry.signed_in = entry.signed_in.min(r.created_ms);
    }
    let mut list: Vec<UserSessions> = users.into_values().collect();
    list.sort_by(|a, b| b.last_seen.cmp(&a.last_seen).then_with(|| a.user_name.cmp(&b.user_name)));
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(user: &str, division: i64, created_ms: i64, last_seen_ms: i64) -> SessionRecord {
        SessionRecord {
            user: user.into(),
            user_name: format!("{user}@example.com"),
            full_name: user.to_uppercase(),
            division,
            customer_name: String::new(),
            divisions: vec![],
            registered: true,
            reauth_until_ms: None,
            created_ms,
            last_seen_ms,
        }
    }

    #[test]
    fn sessions_are_grouped_per_user_of_the_organization() {
        let records = vec![
            record("anna", 1, 10, 50),
            record("ANNA", 1, 5, 20),
            record("bob", 1, 7, 60),
            record("carl", 2, 1, 99),
        ];
        let list = per_user(records, Some(1));
        assert_eq!(list.iter().map(|u| (u.user.as_str(), u.sessions)).collect::<Vec<_>>(), [("bob", 1), ("anna", 2)]);
        assert_eq!((list[1].signed_in, list[1].last_seen), (5, 50));
    }
}
