//! HTTPS: a rustls server config from PEM files, or a self-signed certificate made once and kept.

use crate::config::TlsConfig;
use anyhow::{Context, Result, bail};
use std::fs;
use std::io::BufReader;
use std::path::{Path, PathBuf};

/// Installs ring as the process-wide rustls provider (once; later calls are no-ops).
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Builds the server's rustls config from the TLS section.
pub fn server_config(tls: &TlsConfig, data_dir: &Path) -> Result<rustls::ServerConfig> {
    install_crypto_provider();
    let (cert_path, key_path) = if tls.self_signed {
        ensure_self_signed(&data_dir.join("tls"))?
    } else {
        match (&tls.cert, &tls.key) {
            (Some(c), Some(k)) => (c.clone(), k.clone()),
            _ => bail!("tls needs cert and key, or self_signed = true"),
        }
    };
    let certs = rustls_pemfile::certs(&mut BufReader::new(
        fs::File::open(&cert_path).with_context(|| format!("opening certificate {}", cert_path.display()))?,
    ))
    .collect::<std::result::Result<Vec<_>, _>>()
    .with_context(|| format!("reading certificate {}", cert_path.display()))?;
    if certs.is_empty() {
        bail!("no certificate found in {}", cert_path.display());
    }
    let key = rustls_pemfile::private_key(&mut BufReader::new(
        fs::File::open(&key_path).with_context(|| format!("opening key {}", key_path.display()))?,
    ))
    .with_context(|| format!("reading key {}", key_path.display()))?
    .with_context(|| format!("no private key found in {}", key_path.display()))?;
    let mut config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .context("certificate and key do not match")?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// The names a handheld may use to reach this host: its host name, `.local`, localhost and its IPs.
pub fn host_names() -> Vec<String> {
    let mut names = vec!["localhost".to_string(), "127.0.0.1".to_string(), "::1".to_string()];
    if let Ok(host) = hostname::get() {
        let host = host.to_string_lossy().to_string();
        if !host.is_empty() {
            names.push(format!("{host}.local"));
            names.push(host);
        }
    }
    if let Ok(ifaces) = if_addrs::get_if_addrs() {
        for iface in ifaces {
            let ip = iface.ip().to_string();
            if !names.contains(&ip) {
                names.push(ip);
            }
        }
    }
    names
}

/// Creates `cert.pem`/`key.pem` in `dir` unless they exist; returns their paths.
pub fn ensure_self_signed(dir: &Path) -> Result<(PathBuf, PathBuf)> {
    let cert_path = dir.join("cert.pem");
    let key_path = dir.join("key.pem");
    if cert_path.is_file() && key_path.is_file() {
        return Ok((cert_path, key_path));
    }
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let names = host_names();
    let cert = rcgen::generate_simple_self_signed(names).context("generating a self-signed certificate")?;
    fs::write(&cert_path, cert.cert.pem()).with_context(|| format!("writing {}", cert_path.display()))?;
    write_private(&key_path, cert.signing_key.serialize_pem().as_bytes())?;
    tracing::info!(path = %cert_path.display(), "created a self-signed certificate");
    Ok((cert_path, key_path))
}

fn write_private(path: &Path, data: &[u8]) -> Result<()> {
    #[cfg(unix)]
    {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(path)
            .with_context(|| format!("writing {}", path.display()))?;
        f.write_all(data)?;
        Ok(())
    }
    #[cfg(not(unix))]
    {
        fs::write(path, data).with_context(|| format!("writing {}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_signed_is_created_once_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let (c1, _) = ensure_self_signed(dir.path()).unwrap();
        let first = fs::read(&c1).unwrap();
        let (c2, _) = ensure_self_signed(dir.path()).unwrap();
        assert_eq!(first, fs::read(c2).unwrap());
        let tls = TlsConfig { enabled: true, self_signed: true, cert: None, key: None };
        server_config(&tls, dir.path()).expect("loads the generated pair");
    }
}
