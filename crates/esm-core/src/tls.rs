//! HTTPS: a rustls server config from PEM files, or a self-signed certificate made once and kept.

use crate::config::TlsConfig;
use anyhow::{Context, Result, bail};
use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::fs;
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
    let certs = load_certs(&cert_path)?;
    let key = PrivateKeyDer::from_pem_file(&key_path).map_err(|e| match e {
        pem::Error::NoItemsFound => anyhow::anyhow!("no private key found in {}", key_path.display()),
        e => anyhow::anyhow!("reading key {}: {e}", key_path.display()),
    })?;
    let mut config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .context("certificate and key do not match")?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// The certificate chain of a PEM file (at least one certificate).
pub fn load_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<std::result::Result<Vec<_>, _>>())
        .map_err(|e| anyhow::anyhow!("reading certificate {}: {e}", path.display()))?;
    if certs.is_empty() {
        bail!("no certificate found in {}", path.display());
    }
    Ok(certs)
}

/// The certificate files the server serves with: the configured pair, or the self-signed one
/// in `{data_dir}/tls/` (`None` when TLS is off).
pub fn cert_path(tls: &TlsConfig, data_dir: &Path) -> Option<PathBuf> {
    if !tls.enabled {
        return None;
    }
    if tls.self_signed { Some(data_dir.join("tls").join("cert.pem")) } else { tls.cert.clone() }
}

/// When a DER certificate stops being valid (its `notAfter`), as seconds since the epoch.
/// A small DER walk: Certificate → TBSCertificate → [version], serial, signature, issuer, validity.
pub fn not_after(cert: &[u8]) -> Option<i64> {
    let (tag, cert_body, _) = der_item(cert)?;
    if tag != 0x30 {
        return None;
    }
    let (tag, mut tbs, _) = der_item(cert_body)?;
    if tag != 0x30 {
        return None;
    }
    // Skip the optional explicit version, the serial number, the signature algorithm and the issuer.
    let (tag, _, rest) = der_item(tbs)?;
    if tag == 0xa0 {
        tbs = rest;
        let (_, _, rest) = der_item(tbs)?;
        tbs = rest;
    } else {
        tbs = rest;
    }
    for _ in 0..2 {
        let (_, _, rest) = der_item(tbs)?;
        tbs = rest;
    }
    let (tag, validity, _) = der_item(tbs)?;
    if tag != 0x30 {
        return None;
    }
    let (_, _, rest) = der_item(validity)?;
    let (tag, time, _) = der_item(rest)?;
    let text = std::str::from_utf8(time).ok()?;
    let parsed = match tag {
        // UTCTime: YYMMDDHHMMSSZ, years 1950–2049 (RFC 5280).
        0x17 => {
            let yy: i32 = text.get(0..2)?.parse().ok()?;
            let year = if yy >= 50 { 1900 + yy } else { 2000 + yy };
            chrono::NaiveDateTime::parse_from_str(&format!("{year}{}", text.get(2..)?), "%Y%m%d%H%M%SZ").ok()?
        }
        0x18 => chrono::NaiveDateTime::parse_from_str(text, "%Y%m%d%H%M%SZ").ok()?,
        _ => return None,
    };
    Some(parsed.and_utc().timestamp())
}

/// One DER item: its tag, its contents and what follows it.
fn der_item(data: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let tag = *data.first()?;
    let first = *data.get(1)? as usize;
    let (len, header) = if first < 0x80 {
        (first, 2)
    } else {
        let n = first & 0x7f;
        if n == 0 || n > 4 {
            return None;
        }
        let len = data.get(2..2 + n)?.iter().fold(0usize, |acc, b| (acc << 8) | *b as usize);
        (len, 2 + n)
    };
    let body = data.get(header..header.checked_add(len)?)?;
    Some((tag, body, &data[header + len..]))
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
    esm_base::files::replace_private(&key_path, cert.signing_key.serialize_pem().as_bytes())?;
    tracing::info!(path = %cert_path.display(), "created a self-signed certificate");
    Ok((cert_path, key_path))
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

    #[test]
    fn a_missing_key_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let (cert, _) = ensure_self_signed(dir.path()).unwrap();
        let empty = dir.path().join("empty.pem");
        fs::write(&empty, "nothing here\n").unwrap();
        let tls = TlsConfig { enabled: true, self_signed: false, cert: Some(cert), key: Some(empty) };
        let err = server_config(&tls, dir.path()).unwrap_err().to_string();
        assert!(err.contains("no private key found"), "{err}");
    }

    #[test]
    fn the_expiry_of_a_certificate_is_read() {
        let mut params = rcgen::CertificateParams::new(vec!["esm.test".to_string()]).unwrap();
        params.not_after = rcgen::date_time_ymd(2031, 4, 5);
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        let expected = chrono::NaiveDate::from_ymd_opt(2031, 4, 5).unwrap().and_hms_opt(0, 0, 0).unwrap();
        assert_eq!(not_after(cert.der()), Some(expected.and_utc().timestamp()));
        params.not_after = rcgen::date_time_ymd(2051, 1, 2); // GeneralizedTime from 2050 on
        let cert = params.self_signed(&key).unwrap();
        let expected = chrono::NaiveDate::from_ymd_opt(2051, 1, 2).unwrap().and_hms_opt(0, 0, 0).unwrap();
        assert_eq!(not_after(cert.der()), Some(expected.and_utc().timestamp()));
        assert_eq!(not_after(b"\x30\x03\x02\x01"), None);
    }
}
