//! Who is an administrator of the installation. Administrator actions (organization settings,
//! printer acceptance, table clearing, sync-timestamp changes, ImportData, ending other users'
//! sessions) change what the whole plant depends on, so an ordinary signed-in user may not.
//!
//! An administrator is someone who confirmed the admin password within the last 15 minutes, or,
//! where no admin password is set, an Exact user the installation lists in `admin.users` (Exact
//! user id or user name/e-mail, without regard to case; the first-run setup writes its user there).

use super::session::SessionRecord;
use crate::config::AdminConfig;
use serde::Serialize;

/// Why a session is (or is not) an administrator's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// Confirmed the admin password; an administrator until the re-authentication ends.
    Password,
    /// Listed in `admin.users` (no admin password is set).
    Listed,
    /// Not an administrator now.
    None,
}

impl Standing {
    pub fn is_administrator(self) -> bool {
        self != Standing::None
    }
}

/// The session's standing at `now_ms`.
pub fn standing(admin: &AdminConfig, record: &SessionRecord, now_ms: i64) -> Standing {
    if !admin.password.is_empty() {
        // With a password set, only the password makes an administrator: a second Exact sign-in
        // proves who the user is, not that they may change the plant.
        return if record.reauth_until_ms.is_some_and(|t| t > now_ms) { Standing::Password } else { Standing::None };
    }
    let listed =
        |name: &str| !name.trim().is_empty() && admin.users.iter().any(|u| u.trim().eq_ignore_ascii_case(name.trim()));
    if listed(&record.user) || listed(&record.user_name) { Standing::Listed } else { Standing::None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Secret;

    fn record(user: &str, user_name: &str, reauth_until_ms: Option<i64>) -> SessionRecord {
        SessionRecord {
            user: user.into(),
            user_name: user_name.into(),
            full_name: "Anna".into(),
            division: 1,
            customer_name: String::new(),
            divisions: vec![],
            registered: true,
            reauth_until_ms,
            created_ms: 0,
            last_seen_ms: 0,
        }
    }

    #[test]
    fn listed_users_are_administrators_while_no_password_is_set() {
        let admin =
            AdminConfig { users: vec!["ANNA@EXAMPLE.COM".into(), " 0a1b-guid ".into()], ..AdminConfig::default() };
        assert_eq!(standing(&admin, &record("x", "anna@example.com", None), 5), Standing::Listed);
        assert_eq!(standing(&admin, &record("0A1B-GUID", "other", None), 5), Standing::Listed);
        assert_eq!(standing(&admin, &record("y", "bob@example.com", Some(10)), 5), Standing::None);
        assert_eq!(standing(&admin, &record("", "", None), 5), Standing::None);
    }

    #[test]
    fn with_a_password_only_a_fresh_password_confirmation_counts() {
        let admin = AdminConfig {
            password: Secret::new("letmein"),
            users: vec!["anna@example.com".into()],
            ..AdminConfig::default()
        };
        assert_eq!(standing(&admin, &record("x", "anna@example.com", None), 5), Standing::None);
        assert_eq!(standing(&admin, &record("y", "bob@example.com", Some(10)), 5), Standing::Password);
        assert_eq!(standing(&admin, &record("y", "bob@example.com", Some(10)), 10), Standing::None);
    }
}
