//! The backup file: one tar holding `manifest.json` first, then every file of the data directory
//! under `data/`. The manifest names the product version, the store's schema version and each
//! file's size and SHA-256, so a restore can tell a whole, untouched backup from anything else.

use anyhow::{Context, Result, bail};
use esm_base::files::{self, create_private, create_private_dir};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

/// Bump when the archive's layout changes; a restore refuses formats newer than it knows.
pub const FORMAT: u32 = 1;
pub const MANIFEST: &str = "manifest.json";
const PRODUCT: &str = "stock-manager";
/// Where the data directory's files sit inside the tar.
const DATA_PREFIX: &str = "data/";
/// A manifest larger than this is not ours (it lists file names and digests).
const MANIFEST_MAX: u64 = 4 << 20;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub product: String,
    /// The release that wrote it.
    pub version: String,
    /// When the snapshot was taken (RFC 3339, UTC).
    pub created: String,
    /// The organization stores' schema version (`store::SCHEMA_VERSION`).
    pub store_schema: u32,
    pub files: Vec<FileEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Relative to the data directory, `/`-separated.
    pub path: String,
    pub size: u64,
    pub sha256: String,
    /// A redb file (verified by opening it on restore).
    pub database: bool,
}

impl Manifest {
    pub fn total_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }
}

/// What a data directory entry is to a backup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Database,
    File,
    /// Belongs to the running process only, or is a half-made file.
    Skip,
}

/// Classifies a path relative to the data directory.
pub fn classify(rel: &str) -> Kind {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    // The running server's address and token (meaningless to another process), staging
    // directories and probes (dot files), uploads still being received.
    if rel == super::control::FILE_NAME
        || name.starts_with('.')
        || (name.starts_with("import-") && name.ends_with(".ndjson"))
        || name.ends_with(".tmp")
        || name.ends_with(".partial")
    {
        return Kind::Skip;
    }
    if name.ends_with(".redb") { Kind::Database } else { Kind::File }
}

/// Takes the snapshot of one redb file; the server and the offline command differ only here.
pub trait Source {
    fn snapshot_db(&self, rel: &str, src: &Path, dest: &Path) -> Result<()>;
}

/// Every file of the data directory worth keeping, relative and `/`-separated, sorted.
fn walk(data_dir: &Path) -> Result<Vec<(String, Kind)>> {
    fn visit(root: &Path, dir: &Path, out: &mut Vec<(String, Kind)>) -> Result<()> {
        for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let entry = entry?;
            let path = entry.path();
            let Ok(rel) = path.strip_prefix(root) else { continue };
            let Some(rel) = rel.to_str().map(|s| s.replace('\\', "/")) else {
                tracing::warn!(path = %path.display(), "backup: skipping a file whose name is not UTF-8");
                continue;
            };
            if classify(&rel) == Kind::Skip {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path)?;
            if meta.is_dir() {
                visit(root, &path, out)?;
            } else if meta.is_file() {
                out.push((rel.clone(), classify(&rel)));
            } else {
                tracing::warn!(path = %path.display(), "backup: skipping something that is not a plain file");
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    visit(data_dir, data_dir, &mut out)?;
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Removes a directory tree when dropped (staging areas, failed restores).
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Snapshots every file of `data_dir` into a staging directory inside it, then writes the tar to
/// `out` (created new). Answers its manifest.
pub fn write(data_dir: &Path, source: &dyn Source, out: &Path) -> Result<Manifest> {
    let staging = data_dir.join(format!(".backup-staging-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&staging).with_context(|| format!("creating {}", staging.display()))?;
    let _cleanup = RemoveOnDrop(staging.clone());
    let mut files = Vec::new();
    for (rel, kind) in walk(data_dir)? {
        let src = data_dir.join(&rel);
        let dest = staging.join(&rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        match kind {
            Kind::Database => source.snapshot_db(&rel, &src, &dest).with_context(|| format!("snapshot of {rel}"))?,
            Kind::File => match files::copy_file(&src, &dest) {
                Ok(()) => {}
                // Removed meanwhile (a finished upload, a replaced template): nothing to keep.
                Err(e) if !src.exists() => {
                    tracing::debug!(rel, error = %e, "backup: a file went away while copying");
                    continue;
                }
                Err(e) => return Err(e),
            },
            Kind::Skip => continue,
        }
        let (sha256, size) = files::digest_file(&dest)?;
        files.push(FileEntry { path: rel, size, sha256, database: kind == Kind::Database });
    }
    let manifest = Manifest {
        format: FORMAT,
        product: PRODUCT.into(),
        version: crate::VERSION.into(),
        created: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        store_schema: crate::store::SCHEMA_VERSION,
        files,
    };
    let mut tar = tar::Builder::new(std::io::BufWriter::new(create_private(out)?));
    let manifest_bytes = serde_json::to_vec_pretty(&manifest)?;
    tar.append_data(&mut header(manifest_bytes.len() as u64), MANIFEST, manifest_bytes.as_slice())?;
    for f in &manifest.files {
        let staged = staging.join(&f.path);
        let mut file = std::fs::File::open(&staged)?;
        tar.append_data(&mut header(f.size), format!("{DATA_PREFIX}{}", f.path), &mut file)?;
        // Gone as soon as it is in the tar: the disk holds the data about once more, not twice.
        drop(file);
        std::fs::remove_file(&staged)?;
    }
    let file = tar.into_inner()?.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    Ok(manifest)
}

fn header(size: u64) -> tar::Header {
    let mut h = tar::Header::new_gnu();
    h.set_size(size);
    h.set_mode(0o600);
    h.set_mtime(chrono::Utc::now().timestamp().max(0) as u64);
    h.set_entry_type(tar::EntryType::Regular);
    h
}

/// A relative path made only of plain names (no `..`, no root, no drive).
fn safe_relative(rel: &str) -> Option<PathBuf> {
    let path = Path::new(rel);
    let plain = !rel.is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)));
    plain.then(|| path.to_path_buf())
}

/// Writes through to `inner` while hashing.
struct Hashing<W> {
    inner: W,
    hasher: Sha256,
    size: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.size += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Reads a backup, checking every file against the manifest. With `into`, the files are written
/// there (a directory that must exist); without, they are only checked.
pub fn read(archive: &Path, into: Option<&Path>) -> Result<Manifest> {
    let file = std::fs::File::open(archive).with_context(|| format!("opening {}", archive.display()))?;
    let mut tar = tar::Archive::new(std::io::BufReader::new(file));
    let mut entries = tar.entries().context("not a backup file (no tar archive)")?;
    let not_ours = || format!("{} is not a Stock Manager backup", archive.display());
    let mut first = entries.next().with_context(not_ours)?.with_context(not_ours)?;
    if first.path()?.to_str() != Some(MANIFEST) || first.size() > MANIFEST_MAX {
        bail!(not_ours());
    }
    let mut text = Vec::new();
    first.read_to_end(&mut text)?;
    drop(first);
    let manifest: Manifest = serde_json::from_slice(&text).with_context(not_ours)?;
    if manifest.product != PRODUCT {
        bail!(not_ours());
    }
    if manifest.format > FORMAT {
        bail!(
            "the backup was made by Stock Manager {} in a newer format ({}); restore it with that release or a newer one",
            manifest.version,
            manifest.format
        );
    }
    let mut expected: BTreeMap<&str, &FileEntry> = BTreeMap::new();
    for f in &manifest.files {
        if safe_relative(&f.path).is_none() || expected.insert(f.path.as_str(), f).is_some() {
            bail!("the backup's manifest names an unsafe or repeated path '{}'", f.path);
        }
    }
    for entry in entries {
        let mut entry = entry?;
        let name = entry.path()?.to_string_lossy().into_owned();
        let Some(rel) = name.strip_prefix(DATA_PREFIX) else { bail!("unexpected entry '{name}' in the backup") };
        if entry.header().entry_type() != tar::EntryType::Regular {
            bail!("'{rel}' in the backup is not a plain file");
        }
        let Some(want) = expected.remove(rel) else { bail!("'{rel}' is in the backup but not in its manifest") };
        let (sha256, size) = match into {
            Some(dir) => {
                let dest = dir.join(safe_relative(rel).with_context(|| format!("unsafe path '{rel}'"))?);
                if let Some(parent) = dest.parent() {
                    create_private_dir(parent)?;
                }
                let mut out = Hashing { inner: create_private(&dest)?, hasher: Sha256::new(), size: 0 };
                std::io::copy(&mut entry, &mut out).with_context(|| format!("writing {}", dest.display()))?;
                out.inner.sync_all()?;
                (hex::encode(out.hasher.finalize()), out.size)
            }
            None => {
                let mut out = Hashing { inner: std::io::sink(), hasher: Sha256::new(), size: 0 };
                std::io::copy(&mut entry, &mut out)?;
                (hex::encode(out.hasher.finalize()), out.size)
            }
        };
        if sha256 != want.sha256 || size != want.size {
            bail!("'{rel}' in the backup is damaged (its checksum does not match the manifest)");
        }
    }
    if let Some(missing) = expected.keys().next() {
        bail!("the backup is incomplete: '{missing}' is missing (a cut-off copy?)");
    }
    Ok(manifest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_belongs_in_a_backup() {
        assert_eq!(classify("server.redb"), Kind::Database);
        assert_eq!(classify("org-12.redb"), Kind::Database);
        assert_eq!(classify("tls/key.pem"), Kind::File);
        assert_eq!(classify("labels/templates/receipts.toml"), Kind::File);
        for skipped in
            ["control.json", ".write-probe", ".backup-staging-1", "import-ab.ndjson", "x.tmp", "b.tar.partial"]
        {
            assert_eq!(classify(skipped), Kind::Skip, "{skipped}");
        }
    }

    #[test]
    fn only_plain_relative_paths_are_restored() {
        assert!(safe_relative("tls/cert.pem").is_some());
        for bad in ["", "../x", "/etc/passwd", "a/../../b", "./a"] {
            assert!(safe_relative(bad).is_none(), "{bad}");
        }
    }
}
