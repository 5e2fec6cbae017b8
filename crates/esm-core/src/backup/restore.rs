//! `stock-manager restore FILE`: a backup back into an empty data directory, checked file by file,
//! with the outbox and the print queue made safe to resume (nothing goes out twice).

use super::archive::{self, Manifest};
use crate::store::snapshot;
use anyhow::{Context, Result, bail};
use std::path::Path;

/// What a restore did, for the operator.
#[derive(Debug, Clone, PartialEq)]
pub struct Restored {
    pub manifest: Manifest,
    /// Queued writes that are looked up at Exact Online before they go.
    pub writes_checked: usize,
    /// Queued writes left for the user to check (they may have been booked after the backup).
    pub writes_for_user: usize,
    /// Print jobs that were open in the backup, now failed for the user to print again.
    pub print_jobs_failed: usize,
}

/// Restores `archive` into `data_dir`, which must be empty or absent. On any failure the
/// directory is left as empty as it was found.
pub fn restore(archive_path: &Path, data_dir: &Path) -> Result<Restored> {
    let existed = data_dir.exists();
    if existed {
        let mut entries = std::fs::read_dir(data_dir).with_context(|| format!("reading {}", data_dir.display()))?;
        if entries.next().is_some() {
            bail!(
                "the data directory {} is not empty: restore only into an empty or new directory \
                 (stop the server and move the current directory aside first), so nothing is overwritten or mixed",
                data_dir.display()
            );
        }
    }
    esm_base::files::create_private_dir(data_dir)?;
    match restore_into(archive_path, data_dir) {
        Ok(r) => Ok(r),
        Err(e) => {
            // Back to how it was found, so a second attempt (another backup file) can go ahead.
            if existed {
                if let Ok(entries) = std::fs::read_dir(data_dir) {
                    for entry in entries.flatten() {
                        let p = entry.path();
                        let _ = if p.is_dir() { std::fs::remove_dir_all(&p) } else { std::fs::remove_file(&p) };
                    }
                }
            } else {
                let _ = std::fs::remove_dir_all(data_dir);
            }
            Err(e)
        }
    }
}

fn restore_into(archive_path: &Path, data_dir: &Path) -> Result<Restored> {
    let manifest = archive::read(archive_path, Some(data_dir))?;
    for f in manifest.files.iter().filter(|f| f.database) {
        snapshot::verify(&data_dir.join(&f.path)).with_context(|| format!("'{}' in the backup", f.path))?;
    }
    let (mut writes_checked, mut writes_for_user) = (0, 0);
    for division in crate::outbox::store::divisions_with_outbox(data_dir) {
        let db = crate::outbox::store::OutboxDb::open(&crate::outbox::store::path_of(data_dir, division))?;
        let (checked, for_user) = db.mark_restored()?;
        writes_checked += checked;
        writes_for_user += for_user;
    }
    let print_jobs_failed = if data_dir.join(crate::printing::store::FILE_NAME).exists() {
        crate::printing::store::JobStore::open(data_dir)?.mark_restored()?
    } else {
        0
    };
    Ok(Restored { manifest, writes_checked, writes_for_user, print_jobs_failed })
}
