//! Backup and restore of the data directory (docs/install-and-operate.md "Backup and restore").
//!
//! Who takes the snapshot: the running server holds every redb file open and locked, so only it
//! can copy them consistently; a second process could only copy bytes that may be mid-commit.
//! `stock-manager backup` therefore asks the server on this machine (its loopback URL and a token
//! from `{data_dir}/control.json`, see `control`) and the server streams the backup back, which
//! also means the file lands wherever the operator may write, not where the service may. With no
//! server running, the command opens the files itself (holding redb's lock keeps a server from
//! starting on them meanwhile). Scheduled backups run inside the server (`schedule`).
//! How one file is copied consistently is in `snapshot`; the file format in `archive`.

pub mod archive;
pub mod control;
pub mod restore;
pub mod schedule;

use crate::config::Config;
use crate::outbox::OutboxService;
use crate::pictures::PictureService;
use crate::printing::PrintService;
use crate::serverdb::ServerDb;
use crate::store::{Stores, snapshot};
use anyhow::{Context, Result, bail};
use archive::{Manifest, Source};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The division in `{prefix}{division}.redb`.
fn division_of(rel: &str, prefix: &str) -> Option<i64> {
    rel.strip_prefix(prefix)?.strip_suffix(".redb")?.parse().ok()
}

/// What the running server holds open in its data directory: a backup copies each file through
/// its holder's own handle, so nothing the server does is disturbed.
#[derive(Clone)]
pub struct OpenFiles {
    pub data_dir: PathBuf,
    pub serverdb: Arc<ServerDb>,
    /// The print queue, when this server runs one.
    pub printing: Option<PrintService>,
    pub stores: Arc<Stores>,
    pub outbox: Arc<OutboxService>,
    pub pictures: Arc<PictureService>,
}

impl Source for OpenFiles {
    fn snapshot_db(&self, rel: &str, src: &Path, dest: &Path) -> Result<()> {
        if rel == crate::serverdb::FILE_NAME {
            return snapshot::copy_open_db(self.serverdb.database(), src, dest);
        }
        if rel == crate::printing::store::FILE_NAME
            && let Some(printing) = &self.printing
        {
            return printing.snapshot_to(src, dest);
        }
        if let Some(division) = division_of(rel, "org-") {
            return self.stores.get(division)?.snapshot_to(dest);
        }
        if let Some(division) = division_of(rel, "outbox-") {
            return self.outbox.snapshot_to(division, dest);
        }
        if let Some(division) = division_of(rel, "pictures-") {
            return self.pictures.snapshot_to(division, dest);
        }
        // A file no part of this server owns: nobody holds it, so open it ourselves.
        snapshot::copy_closed_db(src, dest)
    }
}

/// Snapshots files nobody has open (the server is stopped).
pub struct ClosedFiles;

impl Source for ClosedFiles {
    fn snapshot_db(&self, _rel: &str, src: &Path, dest: &Path) -> Result<()> {
        snapshot::copy_closed_db(src, dest)
    }
}

/// A backup taken inside the running server, written to `out`.
pub fn take_in_server(files: &OpenFiles, out: &Path) -> Result<Manifest> {
    archive::write(&files.data_dir, files, out)
}

/// `{file}.partial` beside the target: written there, renamed when whole.
fn partial_path(to: &Path) -> PathBuf {
    let mut name = to.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".partial");
    to.with_file_name(name)
}

/// `stock-manager backup --to FILE`.
pub async fn run_backup(config: &Config, to: &Path) -> Result<Manifest> {
    if to.exists() {
        bail!("{} exists; choose a new file name (a backup never overwrites one)", to.display());
    }
    if !config.data_dir.is_dir() {
        bail!("the data directory {} does not exist", config.data_dir.display());
    }
    let partial = partial_path(to);
    let _ = std::fs::remove_file(&partial);
    let result = take(config, &partial).await;
    match result {
        Ok(manifest) => {
            std::fs::rename(&partial, to).with_context(|| format!("writing {}", to.display()))?;
            Ok(manifest)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            Err(e)
        }
    }
}

async fn take(config: &Config, out: &Path) -> Result<Manifest> {
    if let Some(control) = control::read(&config.data_dir)? {
        match download(&control, out).await {
            Ok(()) => {
                // Checked end to end: what arrived is what the server wrote.
                let path = out.to_path_buf();
                return tokio::task::spawn_blocking(move || archive::read(&path, None)).await?;
            }
            // A control file left by a server that is gone (killed): nothing listens there.
            Err(e) if control::nobody_there(&e) => {
                tracing::info!("no server answers at {}; backing up the stopped data directory", control.url);
                let _ = std::fs::remove_file(out);
            }
            Err(e) => return Err(e.context(format!("asking the server at {} for the backup", control.url))),
        }
    }
    let (data_dir, out) = (config.data_dir.clone(), out.to_path_buf());
    tokio::task::spawn_blocking(move || archive::write(&data_dir, &ClosedFiles, &out)).await?
}

/// Fetches a backup from the running server into `out`.
async fn download(control: &control::Control, out: &Path) -> Result<()> {
    use futures_util::StreamExt;
    use tokio::io::AsyncWriteExt;
    let res = control::client()?
        .get(format!("{}/api/v1/admin/backup", control.url))
        .bearer_auth(&control.token)
        .send()
        .await
        .map_err(anyhow::Error::from)?;
    if !res.status().is_success() {
        let status = res.status();
        let body = res.text().await.unwrap_or_default();
        bail!("the server at {} answered {status}: {body}", control.url);
    }
    let mut file = tokio::fs::File::from_std(esm_base::files::create_private(out)?);
    let mut body = res.bytes_stream();
    while let Some(chunk) = body.next().await {
        file.write_all(&chunk.context("the server stopped sending the backup")?).await?;
    }
    file.sync_all().await?;
    Ok(())
}

/// One line for the operator about a backup.
pub fn describe(manifest: &Manifest) -> String {
    format!(
        "{} files, {:.1} MB, Stock Manager {}, store schema {}, taken {}",
        manifest.files.len(),
        manifest.total_bytes() as f64 / 1e6,
        manifest.version,
        manifest.store_schema,
        manifest.created
    )
}

#[cfg(test)]
mod tests;
