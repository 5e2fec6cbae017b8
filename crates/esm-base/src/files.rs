//! Files readable and writable by their owner only: the data directory holds provider tokens,
//! session ids, private keys and backups. One place decides how such a file is made, so no writer
//! can leave one with wider rights.

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::Path;

fn private_options() -> std::fs::OpenOptions {
    #[allow(unused_mut)] // the mode is set on unix only
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// Creates a new file readable by its owner only; an existing file is an error, never reused.
pub fn create_private(path: &Path) -> Result<std::fs::File> {
    let mut options = private_options();
    options.write(true).create_new(true);
    options.open(path).with_context(|| format!("creating {}", path.display()))
}

/// Writes `data` to a new file readable by its owner only.
pub fn write_new_private(path: &Path, data: &[u8]) -> Result<()> {
    create_private(path)?.write_all(data).with_context(|| format!("writing {}", path.display()))
}

/// Writes `data` to `path` readable by its owner only, replacing what was there. An existing file
/// keeps the rights it has: on unix they are tightened first.
pub fn replace_private(path: &Path, data: &[u8]) -> Result<()> {
    if path.exists() {
        restrict_to_owner(path)?;
    }
    let mut options = private_options();
    options.write(true).create(true).truncate(true);
    let mut file = options.open(path).with_context(|| format!("writing {}", path.display()))?;
    file.write_all(data).with_context(|| format!("writing {}", path.display()))
}

/// Makes `path` (created empty when missing) readable and writable by its owner only, before
/// anything secret is written to it; a file from an older release is tightened. On Windows the
/// data directory's ACL (service account and administrators) protects it.
pub fn restrict_to_owner(path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mut options = private_options();
        options.create(true).append(true);
        options.open(path).with_context(|| format!("opening {}", path.display()))?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .with_context(|| format!("restricting {}", path.display()))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Creates a directory (and its parents) readable by its owner only.
pub fn create_private_dir(dir: &Path) -> Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).with_context(|| format!("creating {}", dir.display()))
}

/// Copies a plain file to `dest` (created new, readable by its owner only) and syncs it.
pub fn copy_file(src: &Path, dest: &Path) -> Result<()> {
    let mut from = std::fs::File::open(src).with_context(|| format!("opening {}", src.display()))?;
    let mut to = create_private(dest)?;
    std::io::copy(&mut from, &mut to).with_context(|| format!("copying {}", src.display()))?;
    to.sync_all()?;
    Ok(())
}

/// SHA-256 (hex) and size of a file.
pub fn digest_file(path: &Path) -> Result<(String, u64)> {
    let mut file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut size = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        size += n as u64;
    }
    Ok((hex::encode(hasher.finalize()), size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).expect("metadata").permissions().mode() & 0o777
    }

    #[test]
    fn a_new_private_file_is_never_an_old_one() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("key.pem");
        write_new_private(&path, b"secret").expect("first write");
        assert!(write_new_private(&path, b"other").is_err(), "an existing file is not overwritten");
        assert_eq!(std::fs::read(&path).expect("read"), b"secret");
        #[cfg(unix)]
        assert_eq!(mode(&path), 0o600);
    }

    #[test]
    fn replacing_tightens_a_file_that_was_readable_by_all() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("key.pem");
        std::fs::write(&path, b"old, longer text").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        }
        replace_private(&path, b"new").expect("replace");
        assert_eq!(std::fs::read(&path).expect("read"), b"new");
        #[cfg(unix)]
        assert_eq!(mode(&path), 0o600);
    }

    #[test]
    fn a_copy_is_private_and_has_the_same_digest() {
        let dir = tempfile::tempdir().expect("dir");
        let src = dir.path().join("a");
        std::fs::write(&src, b"abc").expect("write");
        let dest = dir.path().join("b");
        copy_file(&src, &dest).expect("copy");
        let (a, size) = digest_file(&src).expect("digest");
        assert_eq!(size, 3);
        assert_eq!(a, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(digest_file(&dest).expect("digest").0, a);
        #[cfg(unix)]
        assert_eq!(mode(&dest), 0o600);
    }
}
