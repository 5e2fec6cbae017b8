//! `server.redb`: what belongs to the installation rather than to one organization — provider
//! tokens, which user's token syncs which organization, sessions, and the organization registry
//! with its licences. Opened once per process and shared.

use anyhow::{Context, Result};
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::Path;

/// Provider token sets by user key (the provider's UserID).
pub const TOKENS: TableDefinition<&str, &[u8]> = TableDefinition::new("provider_tokens");
/// The user whose token syncs an organization, by division.
pub const ORG_TOKEN_USER: TableDefinition<i64, &str> = TableDefinition::new("org_token_user");
/// Sign-in sessions by the SHA-256 of their cookie value (JSON records).
pub const SESSIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("sessions");
/// Organizations known to this installation (licence, activation), by division as text.
pub const ORGS: TableDefinition<&str, &[u8]> = TableDefinition::new("organizations");

pub struct ServerDb {
    db: Database,
}

impl ServerDb {
    /// Opens (or creates) `{data_dir}/server.redb`.
    pub fn open(data_dir: &Path) -> Result<ServerDb> {
        std::fs::create_dir_all(data_dir).with_context(|| format!("creating {}", data_dir.display()))?;
        let path = data_dir.join("server.redb");
        let db = Database::create(&path).with_context(|| format!("opening {}", path.display()))?;
        let tx = db.begin_write()?;
        tx.open_table(TOKENS)?;
        tx.open_table(ORG_TOKEN_USER)?;
        tx.open_table(SESSIONS)?;
        tx.open_table(ORGS)?;
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

    /// Remembers which user's token syncs `division`.
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

    /// Every division that has a token owner (the background schedule syncs these).
    pub fn org_divisions(&self) -> Result<Vec<i64>> {
        let tx = self.db.begin_read()?;
        let t = tx.open_table(ORG_TOKEN_USER)?;
        let mut out = Vec::new();
        for entry in t.iter()? {
            out.push(entry?.0.value());
        }
        Ok(out)
    }
}
