//! The outbox's file: one redb database per organization (`outbox-{division}.redb`) holding the
//! writes in the order they were made. Every state change is a durable commit, so an entry is on
//! disk before it is sent and its acceptance is on disk before the next one goes.

use super::entry::{Entry, Method, Reconcile, State};
use anyhow::{Context, Result};
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

const ENTRIES: TableDefinition<u64, &[u8]> = TableDefinition::new("entries");
/// Idempotency keys of writes (scoped key → [`KeyRecord`]), kept beside the entries they made.
const KEYS: TableDefinition<&str, &[u8]> = TableDefinition::new("idempotency_keys");
/// The same keys by when they were first used, so expired ones are found without a full scan.
const KEY_TIMES: TableDefinition<(i64, &str), ()> = TableDefinition::new("idempotency_key_times");
/// Counters kept across removals: `next_id` is the id the next entry gets, so the id of a
/// discarded or pruned entry never comes back (a kept answer or an open screen names only its own).
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
const NEXT_ID: &str = "next_id";
/// How long a key is remembered: far beyond any retry of a lost answer.
pub const KEEP_KEYS_MS: i64 = 7 * 24 * 3_600_000;
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

/// What an idempotency key was first used for, and what that request was answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyRecord {
    /// Hash of the first request's method, path, query and body.
    pub fingerprint: String,
    /// The entries it queued.
    pub entries: Vec<u64>,
    pub created_ms: i64,
    /// The first answer, once it was given.
    pub answer: Option<KeptAnswer>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptAnswer {
    pub status: u16,
    /// The JSON body as sent.
    pub body: String,
}

/// What appending under an idempotency key did.
#[derive(Debug)]
pub enum Appended {
    /// The key was new: the entries are stored, with their ids.
    New(Vec<Entry>),
    /// The key was used before: nothing was stored.
    Known(KeyRecord),
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

/// Reserves `count` ids in the open transaction and answers the first. A file written before the
/// counter existed starts after its newest entry.
fn take_ids(tx: &redb::WriteTransaction, entries: &redb::Table<'_, u64, &'static [u8]>, count: usize) -> Result<u64> {
    let mut meta = tx.open_table(META)?;
    let after_newest = entries.last()?.map_or(1, |(k, _)| k.value() + 1);
    let first = meta.get(NEXT_ID)?.map_or(after_newest, |v| v.value().max(after_newest));
    meta.insert(NEXT_ID, first + count as u64)?;
    Ok(first)
}

impl OutboxDb {
    pub fn open(path: &Path) -> Result<OutboxDb> {
        let db = Database::create(path).with_context(|| format!("opening {}", path.display()))?;
        let tx = db.begin_write()?;
        tx.open_table(ENTRIES)?;
        tx.open_table(KEYS)?;
        tx.open_table(KEY_TIMES)?;
        tx.open_table(META)?;
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
            let first = take_ids(&tx, &t, entries.len())?;
            for (id, e) in (first..).zip(entries.iter_mut()) {
                e.id = id;
                t.insert(e.id, serde_json::to_vec(e)?.as_slice())?;
            }
        }
        tx.commit()?;
        Ok(entries)
    }

    /// Appends entries under an idempotency key (already scoped to its user) in one durable
    /// transaction with the key's record, so a crash cannot keep one without the other. A key
    /// seen before stores nothing and answers its record. Keys older than [`KEEP_KEYS_MS`] go.
    pub fn append_keyed(&self, mut entries: Vec<Entry>, key: &str, fingerprint: &str, now: i64) -> Result<Appended> {
        let tx = self.db.begin_write()?;
        {
            let mut keys = tx.open_table(KEYS)?;
            let mut times = tx.open_table(KEY_TIMES)?;
            let expired: Vec<(i64, String)> = times
                .range(..(now - KEEP_KEYS_MS, ""))?
                .map(|row| row.map(|(k, _)| (k.value().0, k.value().1.to_string())))
                .collect::<Result<_, _>>()?;
            for (at, k) in &expired {
                times.remove((*at, k.as_str()))?;
                keys.remove(k.as_str())?;
            }
            if let Some(v) = keys.get(key)? {
                let record: KeyRecord = serde_json::from_slice(v.value()).context("decoding an idempotency key")?;
                return Ok(Appended::Known(record));
            }
            let mut t = tx.open_table(ENTRIES)?;
            let first = take_ids(&tx, &t, entries.len())?;
            for (id, e) in (first..).zip(entries.iter_mut()) {
                e.id = id;
                t.insert(e.id, serde_json::to_vec(e)?.as_slice())?;
            }
            let record = KeyRecord {
                fingerprint: fingerprint.to_string(),
                entries: entries.iter().map(|e| e.id).collect(),
                created_ms: now,
                answer: None,
            };
            keys.insert(key, serde_json::to_vec(&record)?.as_slice())?;
            times.insert((now, key), ())?;
        }
        tx.commit()?;
        Ok(Appended::New(entries))
    }

    /// The record of an idempotency key, if it is known.
    pub fn key(&self, key: &str) -> Result<Option<KeyRecord>> {
        let tx = self.db.begin_read()?;
        let t = tx.open_table(KEYS)?;
        match t.get(key)? {
            Some(v) => Ok(Some(serde_json::from_slice(v.value()).context("decoding an idempotency key")?)),
            None => Ok(None),
        }
    }

    /// Keeps the first answer given under a key; a key that has one keeps it. Answers the kept one.
    pub fn keep_answer(&self, key: &str, answer: KeptAnswer) -> Result<Option<KeptAnswer>> {
        let tx = self.db.begin_write()?;
        let kept = {
            let mut t = tx.open_table(KEYS)?;
            let record = match t.get(key)? {
                Some(v) => Some(serde_json::from_slice::<KeyRecord>(v.value()).context("decoding an idempotency key")?),
                None => None,
            };
            match record {
                None => None,
                Some(KeyRecord { answer: Some(first), .. }) => Some(first),
                Some(mut record) => {
                    record.answer = Some(answer.clone());
                    t.insert(key, serde_json::to_vec(&record)?.as_slice())?;
                    Some(answer)
                }
            }
        };
        tx.commit()?;
        Ok(kept)
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
                // Its numbers may have been reserved after the backup: look before reserving.
                if let Some(r) = e.reserve.as_mut() {
                    r.started = true;
                }
                match (&e.reconcile, e.method) {
                    (
                        Reconcile::Key { .. }
                        | Reconcile::Marker { .. }
                        | Reconcile::Status { .. }
                        | Reconcile::Reserved { .. },
                        _,
                    ) => {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry() -> Entry {
        Entry {
            id: 0,
            uid: uuid::Uuid::new_v4().to_string(),
            action: "createGoodsReceipt".into(),
            method: Method::Post,
            path: "purchaseorder/GoodsReceipts".into(),
            body: Some(json!({"Quantity": 1})),
            reconcile: Reconcile::Unknown,
            tables: vec![],
            user: "u1".into(),
            user_name: "Ann".into(),
            state: State::Pending,
            attempts: 0,
            error: None,
            created_ms: 1,
            sent_ms: None,
            done_ms: None,
            result_key: None,
            reserve: None,
        }
    }

    fn answer(status: u16) -> KeptAnswer {
        KeptAnswer { status, body: format!("{{\"status\":{status}}}") }
    }

    #[test]
    fn a_key_queues_once_keeps_its_first_answer_and_survives_a_reopen() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let path = path_of(dir.path(), 7);
        let db = OutboxDb::open(&path)?;
        let Appended::New(first) = db.append_keyed(vec![entry(), entry()], "u1\nk", "fp", 1_000)? else {
            panic!("a new key queues");
        };
        assert_eq!(first.iter().map(|e| e.id).collect::<Vec<_>>(), [1, 2]);
        let Appended::Known(record) = db.append_keyed(vec![entry()], "u1\nk", "other", 2_000)? else {
            panic!("a known key queues nothing");
        };
        assert_eq!(
            record,
            KeyRecord { fingerprint: "fp".into(), entries: vec![1, 2], created_ms: 1_000, answer: None }
        );
        assert_eq!(db.all()?.len(), 2);
        assert_eq!(db.keep_answer("u1\nk", answer(202))?, Some(answer(202)));
        assert_eq!(db.keep_answer("u1\nk", answer(200))?, Some(answer(202)), "the first answer stands");
        assert_eq!(db.keep_answer("u1\nnever", answer(200))?, None);
        assert!(
            matches!(db.append_keyed(vec![entry()], "u2\nk", "fp", 3_000)?, Appended::New(_)),
            "another user's key"
        );
        drop(db);

        let db = OutboxDb::open(&path)?;
        assert_eq!(db.key("u1\nk")?.and_then(|r| r.answer), Some(answer(202)));
        assert_eq!(db.all()?.len(), 3);
        Ok(())
    }

    #[test]
    fn the_id_of_a_discarded_newest_entry_is_not_given_again() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let path = path_of(dir.path(), 7);
        let db = OutboxDb::open(&path)?;
        let first = db.append(vec![entry(), entry()])?;
        assert!(db.remove(first[1].id)?);
        assert_eq!(db.append(vec![entry()])?[0].id, 3);
        let Appended::New(keyed) = db.append_keyed(vec![entry()], "u1\nk", "fp", 1_000)? else {
            panic!("a new key queues");
        };
        assert!(db.remove(keyed[0].id)?);
        drop(db);

        let db = OutboxDb::open(&path)?;
        assert_eq!(db.append(vec![entry()])?[0].id, 5, "the counter survives a reopen");
        Ok(())
    }

    #[test]
    fn keys_are_forgotten_after_a_week() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let db = OutboxDb::open(&path_of(dir.path(), 7))?;
        assert!(matches!(db.append_keyed(vec![entry()], "old", "fp", 1_000)?, Appended::New(_)));
        assert!(matches!(db.append_keyed(vec![entry()], "recent", "fp", 5_000)?, Appended::New(_)));
        let week_later = 1_000 + KEEP_KEYS_MS + 1;
        assert!(matches!(db.append_keyed(vec![entry()], "new", "fp", week_later)?, Appended::New(_)));
        assert_eq!(db.key("old")?, None, "pruned by the write a week later");
        assert!(db.key("recent")?.is_some());
        Ok(())
    }
}
