//! The outbox's file: one redb database per organization (`outbox-{division}.redb`) holding the
//! writes in the order they were made. Every state change is a durable commit, so an entry is on
//! disk before it is sent and its acceptance is on disk before the next one goes.

use super::entry::{Entry, Method, Reconcile, State};
use anyhow::{Context, Result};
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use std::path::{Path, PathBuf};

const ENTRIES: TableDefinition<u64, &[u8]> = TableDefinition::new("entries");
/// Delivered entries kept for the user's history; older ones are pruned.
const KEEP_DELIVERED: usize = 200;
/// Why a restored write is looked up at Exact before it goes.
pub const RESTORED_CHECK: &str =
    "Restored from a backup: Exact Online is asked whether it already has this before it is sent";
/// Why a restored write waits for the user.
pub const RESTORED_ASK: &str = "Restored from a backup: this may have reached Exact Online after the backup was made, and \
     sending it again could book it twice or undo a later change. Look in Exact Online, then send it again or discard it";

pub struct OutboxDb {
    db: Database,
}

/// The outbox file of an organization.
pub fn path_of(data_dir: &Path, division: i64) -> PathBuf {
    data_dir.join(format!("outbox-{division}.redb"))
}

/// Divisions that have an outbox file in the data directory.
pub fn divisions_with_outbox(data_dir: &Path) -> Vec<i64> {
    let Ok(dir) = std::fs::read_dir(data_dir) else { return Vec::new() };
    dir.flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_prefix("outbox-")?.strip_suffix(".redb")?.parse().ok()
        })
        .collect()
}

impl OutboxDb {
    pub fn open(path: &Path) -> Result<OutboxDb> {
        let db = Database::create(path).with_context(|| format!("opening {}", path.display()))?;
        let tx = db.begin_write()?;
        tx.open_table(ENTRIES)?;
        tx.commit()?;
        Ok(OutboxDb { db })
    }

    pub fn database(&self) -> &Database {
        &self.db
    }

    /// Appends entries in one durable transaction; answers them with their ids.
    pub fn append(&self, mut entries: Vec<Entry>) -> Result<Vec<Entry>> {
        let tx = self.db.begin_write()?;
        {
            let mut t = tx.open_table(ENTRIES)?;
            let first = t.last()?.map_or(1, |(k, _)| k.value() + 1);
            for (id, e) in (first..).zip(entries.iter_mut()) {
                e.id = id;
                t.insert(e.id, serde_json::to_vec(e)?.as_slice())?;
            }
        }
        tx.commit()?;
        Ok(entries)
    }

    pub fn get(&self, id: u64) -> Result<Option<Entry>> {
        let tx = self.db.begin_read()?;
        let t = tx.open_table(ENTRIES)?;
        match t.get(id)? {
            Some(v) => Ok(Some(serde_json::from_slice(v.value()).context("decoding an outbox entry")?)),
            None => Ok(None),
        }
    }

    /// Writes an entry's new state durably.
    pub fn put(&self, entry: &Entry) -> Result<()> {
        let tx = self.db.begin_write()?;
        tx.open_table(ENTRIES)?.insert(entry.id, serde_json::to_vec(entry)?.as_slice())?;
        tx.commit()?;
        Ok(())
    }

    pub fn remove(&self, id: u64) -> Result<bool> {
        let tx = self.db.begin_write()?;
        let removed = tx.open_table(ENTRIES)?.remove(id)?.is_some();
        tx.commit()?;
        Ok(removed)
    }

    /// Every entry, oldest first.
    pub fn all(&self) -> Result<Vec<Entry>> {
        let tx = self.db.begin_read()?;
        let t = tx.open_table(ENTRIES)?;
        let mut out = Vec::new();
        for row in t.iter()? {
            let (_, v) = row?;
            out.push(serde_json::from_slice(v.value()).context("decoding an outbox entry")?);
        }
        Ok(out)
    }

    /// The oldest entry still to deliver (pending, or interrupted while sending).
    pub fn next_open(&self) -> Result<Option<Entry>> {
        Ok(self.all()?.into_iter().find(|e| matches!(e.state, State::Pending | State::Sending)))
    }

    /// After a restore from a backup: every write still open in the backup may have reached the
    /// provider after the backup was made, so none goes out blind. A write whose arrival can be
    /// looked up (a key or marker of ours) is marked "sending": the worker asks Exact before
    /// sending it, exactly as after a crash mid-send. A DELETE goes again (a second one changes
    /// nothing). A PUT of fields could undo a later change if sent again, and a write without a way
    /// to look it up could be booked twice: both wait for the user, with why. Answers how many
    /// entries were marked for a check and how many for the user.
    pub fn mark_restored(&self) -> Result<(usize, usize)> {
        let (mut checked, mut for_user) = (0, 0);
        let tx = self.db.begin_write()?;
        {
            let mut t = tx.open_table(ENTRIES)?;
            let mut changed = Vec::new();
            for row in t.iter()? {
                let (_, v) = row?;
                let mut e: Entry = serde_json::from_slice(v.value()).context("decoding an outbox entry")?;
                if !matches!(e.state, State::Pending | State::Sending) {
                    continue;
                }
                match (&e.reconcile, e.method) {
                    (Reconcile::Key { .. } | Reconcile::Marker { .. } | Reconcile::Status { .. }, _) => {
                        e.state = State::Sending;
                        e.error = Some(RESTORED_CHECK.into());
                        checked += 1;
                    }
                    (Reconcile::Idempotent, Method::Delete) => continue,
                    (Reconcile::Idempotent | Reconcile::Unknown, _) => {
                        e.state = State::Failed;
                        e.error = Some(RESTORED_ASK.into());
                        e.done_ms = Some(crate::exact::oauth::now_ms());
                        for_user += 1;
                    }
                }
                changed.push(e);
            }
            for e in changed {
                t.insert(e.id, serde_json::to_vec(&e)?.as_slice())?;
            }
        }
        tx.commit()?;
        Ok((checked, for_user))
    }

    /// Drops the oldest delivered entries beyond the kept history.
    pub fn prune(&self) -> Result<()> {
        let delivered: Vec<u64> = self.all()?.iter().filter(|e| e.state == State::Delivered).map(|e| e.id).collect();
        if delivered.len() <= KEEP_DELIVERED {
            return Ok(());
        }
        let tx = self.db.begin_write()?;
        {
            let mut t = tx.open_table(ENTRIES)?;
            for id in &delivered[..delivered.len() - KEEP_DELIVERED] {
                t.remove(*id)?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}
