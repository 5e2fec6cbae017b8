//! Consistent copies of redb files, taken while their owner keeps using them.
//!
//! redb keeps its file locked while it is open, and gives no way to read a table without its
//! key and value types, so a generic "copy every table" is not possible. What redb does promise is
//! crash safety: whatever bytes are on disk when the power goes, the file opens at its last
//! durable commit. [`copy_open_db`] therefore first commits an empty durable transaction (so recent
//! fast commits are included), then holds a write transaction — redb admits one writer at a time
//! and readers never write — while it copies the file's bytes. No byte changes during the copy, so
//! the copy is exactly what a power cut at that instant would have left, only without the power
//! cut. Opening the copy with redb then repairs it to that commit (the source was open, so the copy
//! is marked for recovery), [`verify`] checks every page, and the clean close leaves a file that
//! opens instantly. This covers every table of every file, including tables added later.

use anyhow::{Context, Result, bail};
use esm_base::files::copy_file;
use redb::{Database, Durability};
use std::path::Path;

/// Copies the redb file `src`, open in this process as `db`, to `dest` (which must not exist),
/// and verifies the copy.
pub fn copy_open_db(db: &Database, src: &Path, dest: &Path) -> Result<()> {
    let mut flush = db.begin_write()?;
    flush.set_durability(Durability::Immediate)?;
    flush.commit()?;
    {
        // Held, never committed: other writers wait until the bytes are copied.
        let _writers_wait = db.begin_write()?;
        copy_file(src, dest)?;
    }
    verify(dest)
}

/// Copies a redb file that nobody has open: opening it takes redb's lock, so the server cannot
/// open it meanwhile; a file the server holds is reported, never copied half-written.
pub fn copy_closed_db(src: &Path, dest: &Path) -> Result<()> {
    let db = match Database::open(src) {
        Ok(db) => db,
        Err(redb::DatabaseError::DatabaseAlreadyOpen) => {
            bail!("{} is in use by a running server: ask that server for the backup", src.display())
        }
        Err(e) => return Err(e).with_context(|| format!("opening {}", src.display())),
    };
    copy_open_db(&db, src, dest)
}

/// Opens a copied redb file (repairing it to its last durable commit if it needs it), checks every
/// page and closes it cleanly.
pub fn verify(path: &Path) -> Result<()> {
    let mut db = Database::open(path).with_context(|| format!("{} does not open as a database", path.display()))?;
    if !db.check_integrity().with_context(|| format!("checking {}", path.display()))? {
        // check_integrity answers false when it had to repair something: the copy is usable, but
        // the repair happened on the copy, so say so.
        tracing::info!(path = %path.display(), "a copied database was repaired to its last durable commit");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use redb::{ReadableDatabase, ReadableTableMetadata, TableDefinition};

    const T: TableDefinition<u64, u64> = TableDefinition::new("t");

    #[test]
    fn a_copy_taken_while_fast_commits_pile_up_holds_them_all() {
        let dir = tempfile::tempdir().expect("dir");
        let src = dir.path().join("a.redb");
        let db = Database::create(&src).expect("create");
        for i in 0..50u64 {
            let mut tx = db.begin_write().expect("write");
            // Fast commits, as a sync makes them: not on disk for sure until a durable one.
            tx.set_durability(Durability::None).expect("durability");
            tx.open_table(T).expect("table").insert(i, i * 2).expect("insert");
            tx.commit().expect("commit");
        }
        let dest = dir.path().join("copy.redb");
        copy_open_db(&db, &src, &dest).expect("copy");
        // The source stays usable.
        let tx = db.begin_write().expect("write after the copy");
        tx.open_table(T).expect("table").insert(99, 1).expect("insert");
        tx.commit().expect("commit");
        let copy = Database::open(&dest).expect("the copy opens");
        let read = copy.begin_read().expect("read");
        let t = read.open_table(T).expect("table");
        assert_eq!(t.len().expect("len"), 50, "every fast commit made before the copy, none after");
        assert_eq!(t.get(7).expect("get").map(|v| v.value()), Some(14));
    }

    #[test]
    fn a_file_held_by_another_handle_is_not_copied_blind() {
        let dir = tempfile::tempdir().expect("dir");
        let src = dir.path().join("held.redb");
        let _held = Database::create(&src).expect("create");
        let err = copy_closed_db(&src, &dir.path().join("copy.redb")).expect_err("refused");
        assert!(err.to_string().contains("in use by a running server"), "{err}");
    }
}
