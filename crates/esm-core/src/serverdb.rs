//! `server.redb`: what belongs to the installation rather than to one organization — provider
//! tokens, which user's token syncs which organization, sessions, and the organization registry
//! with its licences. Opened once per process and shared.

use anyhow::{Context, Result};
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file's name inside the data directory.
pub const FILE_NAME: &str = "server.redb";

/// Provider token sets by user key (the provider's UserID).
pub const TOKENS: TableDefinition<&str, &[u8]> = TableDefinition::new("provider_tokens");
/// The user whose token syncs an organization, by division.
pub const ORG_TOKEN_USER: TableDefinition<i64, &str> = TableDefinition::new("org_token_user");
/// Accounts of each organization, by `{division}/{user}`: every user who signed in to it and
/// has not signed out (JSON [`OrgAccount`]).
pub const ORG_USERS: TableDefinition<&str, &[u8]> = TableDefinition::new("org_users");
/// Sign-in sessions by the SHA-256 of their cookie value (JSON records).
pub const SESSIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("sessions");
/// Organizations known to this installation (licence, activation), by division as text.
pub const ORGS: TableDefinition<&str, &[u8]> = TableDefinition::new("organizations");
/// Printers found over mDNS that an administrator accepted: name → [`AcceptedPrinter`].
pub const ACCEPTED_PRINTERS: TableDefinition<&str, &[u8]> = TableDefinition::new("accepted_printers");

/// One of an organization's accounts: a user who signed in to it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OrgAccount {
    pub user_name: String,
    pub full_name: String,
}

/// A discovered printer an administrator accepted, at the URI it had then.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AcceptedPrinter {
    pub uri: String,
    /// The user name of who accepted it, for the log of who let what print.
    pub by: String,
    pub at: chrono::DateTime<chrono::Utc>,
}

fn org_user_key(division: i64, user: &str) -> String {
    format!("{division}/{user}")
}

pub struct ServerDb {
    db: Database,
}

impl ServerDb {
    /// Opens (or creates) `{data_dir}/server.redb`.
    pub fn open(data_dir: &Path) -> Result<ServerDb> {
        std::fs::create_dir_all(data_dir).with_context(|| format!("creating {}", data_dir.display()))?;
        let path = data_dir.join(FILE_NAME);
        // Owner-only before redb writes to it: no token is ever on disk with wider rights.
        esm_base::files::restrict_to_owner(&path)?;
        let db = Database::create(&path).with_context(|| format!("opening {}", path.display()))?;
        let tx = db.begin_write()?;
        tx.open_table(TOKENS)?;
        tx.open_table(ORG_TOKEN_USER)?;
        tx.open_table(ORG_USERS)?;
        tx.open_table(SESSIONS)?;
        tx.open_table(ORGS)?;
        tx.open_table(ACCEPTED_PRINTERS)?;
        tx.commit()?;
        Ok(ServerDb { db })
    }

    pub fn database(&self) -> &Database {
        &self.db
    }

    /// Reads a JSON value from a string-keyed table.
    pub fn get_json<T: DeserializeOwned>(&self, table: TableDefinition<&str, &[u8]>, key: &str) -> Result<Option<T>> {
        let tx = self.db.begin_read()?;
        let t = tx.open_table(table)?;
        match t.get(key)? {
            Some(v) => Ok(Some(serde_json::from_slice(v.value()).context("decoding a stored record")?)),
            None => Ok(None),
        }
    }

    /// Writes a JSON value durably.
    pub fn put_json<T: Serialize>(&self, table: TableDefinition<&str, &[u8]>, key: &str, value: &T) -> Result<()> {
        let bytes = serde_json::to_vec(value)?;
        let tx = self.db.begin_write()?;
        tx.open_table(table)?.insert(key, bytes.as_slice())?;
        tx.commit()?;
        Ok(())
    }

    pub fn remove(&self, table: TableDefinition<&str, &[u8]>, key: &str) -> Result<()> {
        let tx = self.db.begin_write()?;
        tx.open_table(table)?.remove(key)?;
        tx.commit()?;
        Ok(())
    }

    /// Every JSON record of a string-keyed table (small tables only: sessions, organizations).
    pub fn all_json<T: DeserializeOwned>(&self, table: TableDefinition<&str, &[u8]>) -> Result<Vec<(String, T)>> {
        let tx = self.db.begin_read()?;
        let t = tx.open_table(table)?;
        let mut out = Vec::new();
        for entry in t.iter()? {
            let (k, v) = entry?;
            if let Ok(value) = serde_json::from_slice(v.value()) {
                out.push((k.value().to_string(), value));
            }
        }
        Ok(out)
    }

    /// Remembers the user who signed in to `division` last (the first choice after the chosen
    /// sync account).
    pub fn set_org_token_user(&self, division: i64, user: &str) -> Result<()> {
        let tx = self.db.begin_write()?;
        tx.open_table(ORG_TOKEN_USER)?.insert(division, user)?;
        tx.commit()?;
        Ok(())
    }

    pub fn org_token_user(&self, division: i64) -> Result<Option<String>> {
        let tx = self.db.begin_read()?;
        let t = tx.open_table(ORG_TOKEN_USER)?;
        Ok(t.get(division)?.map(|v| v.value().to_string()))
    }

    /// Adds (or renames) one of the organization's accounts.
    pub fn add_org_user(&self, division: i64, user: &str, account: &OrgAccount) -> Result<()> {
        self.put_json(ORG_USERS, &org_user_key(division, user), account)
    }

    /// The organization's accounts, by user key.
    pub fn org_users(&self, division: i64) -> Result<Vec<(String, OrgAccount)>> {
        let prefix = org_user_key(division, "");
        let tx = self.db.begin_read()?;
        let t = tx.open_table(ORG_USERS)?;
        let mut out = Vec::new();
        for entry in t.range(prefix.as_str()..)? {
            let (k, v) = entry?;
            let Some(user) = k.value().strip_prefix(prefix.as_str()) else { break };
            if let Ok(account) = serde_json::from_slice(v.value()) {
                out.push((user.to_string(), account));
            }
        }
        Ok(out)
    }

    /// The user signed out everywhere: no longer an account of any organization.
    pub fn remove_org_user(&self, user: &str) -> Result<()> {
        let suffix = format!("/{user}");
        let tx = self.db.begin_write()?;
        {
            let mut t = tx.open_table(ORG_USERS)?;
            let keys: Vec<String> = t
                .iter()?
                .filter_map(|e| e.ok().map(|(k, _)| k.value().to_string()))
                .filter(|k| k.ends_with(&suffix))
                .collect();
            for k in keys {
                t.remove(k.as_str())?;
            }
            let mut owners = tx.open_table(ORG_TOKEN_USER)?;
            let owned: Vec<i64> = owners
                .iter()?
                .filter_map(|e| e.ok())
                .filter(|(_, v)| v.value() == user)
                .map(|(k, _)| k.value())
                .collect();
            for division in owned {
                owners.remove(division)?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Every division that has an account (the background schedule syncs the activated ones).
    pub fn org_divisions(&self) -> Result<Vec<i64>> {
        let tx = self.db.begin_read()?;
        let mut out = std::collections::BTreeSet::new();
        for entry in tx.open_table(ORG_TOKEN_USER)?.iter()? {
            out.insert(entry?.0.value());
        }
        for entry in tx.open_table(ORG_USERS)?.iter()? {
            let (k, _) = entry?;
            if let Some(d) = k.value().split_once('/').and_then(|(d, _)| d.parse().ok()) {
                out.insert(d);
            }
        }
        Ok(out.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn the_token_file_is_owner_only_and_an_old_one_is_tightened() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let mode = |p: &Path| std::fs::metadata(p).expect("metadata").permissions().mode() & 0o777;
        let path = dir.path().join("server.redb");
        let db = ServerDb::open(dir.path()).expect("open new");
        assert_eq!(mode(&path), 0o600);
        db.put_json(SESSIONS, "s", &"kept").expect("write");
        drop(db);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("loosen");
        let db = ServerDb::open(dir.path()).expect("open existing");
        assert_eq!(mode(&path), 0o600);
        assert_eq!(db.get_json::<String>(SESSIONS, "s").expect("read").as_deref(), Some("kept"));
    }
}
