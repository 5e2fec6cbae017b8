//! `{data_dir}/control.json`: how a command on this machine reaches the server that holds the data
//! directory — its loopback URL and a token made fresh at every start. The file is readable by the
//! server's user only, so whoever can read it could read the databases anyway: the token gives
//! nothing the file system does not already give, and nobody else gets in.

use anyhow::{Context, Result};
use esm_base::files::create_private;
use serde::{Deserialize, Serialize};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::Path;

pub const FILE_NAME: &str = "control.json";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Control {
    /// `http(s)://{loopback}:{port}`.
    pub url: String,
    pub token: String,
    pub pid: u32,
}

/// The address a local command reaches a server bound to `bound` at.
fn loopback(bound: SocketAddr) -> SocketAddr {
    let ip = match bound.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, bound.port())
}

/// Writes the control file for a server bound to `bound`; answers its token.
pub fn publish(data_dir: &Path, bound: SocketAddr, tls: bool) -> Result<String> {
    let token = hex::encode(rand::random::<[u8; 32]>());
    let scheme = if tls { "https" } else { "http" };
    let control =
        Control { url: format!("{scheme}://{}", loopback(bound)), token: token.clone(), pid: std::process::id() };
    let path = data_dir.join(FILE_NAME);
    let tmp = data_dir.join(format!(".{FILE_NAME}.{}", uuid::Uuid::new_v4().simple()));
    {
        use std::io::Write;
        let mut f = create_private(&tmp)?;
        f.write_all(&serde_json::to_vec_pretty(&control)?)?;
        f.sync_all()?;
    }
    // Renamed into place, so a reader never sees half a file.
    std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))?;
    Ok(token)
}

/// Removes the control file if it is still the one with `token` (a newer server may own it).
pub fn withdraw(data_dir: &Path, token: &str) {
    let path = data_dir.join(FILE_NAME);
    if read(data_dir).ok().flatten().is_some_and(|c| c.token == token) {
        let _ = std::fs::remove_file(path);
    }
}

pub fn read(data_dir: &Path) -> Result<Option<Control>> {
    let path = data_dir.join(FILE_NAME);
    match std::fs::read(&path) {
        Ok(bytes) => Ok(Some(serde_json::from_slice(&bytes).with_context(|| format!("reading {}", path.display()))?)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// The HTTP client a local command reaches its server with. Loopback to our own server: its
/// certificate names the host, not 127.0.0.1, and the token (which only the server's user can
/// read) is what proves who is who.
pub fn client() -> Result<reqwest::Client> {
    crate::tls::install_crypto_provider();
    Ok(reqwest::Client::builder()
        .danger_accept_invalid_certs(true)
        .connect_timeout(std::time::Duration::from_secs(5))
        .build()?)
}

/// Whether nothing listens at a control file's address (a server that is gone, killed), as opposed
/// to a server that failed.
pub fn nobody_there(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
            || cause.downcast_ref::<reqwest::Error>().is_some_and(reqwest::Error::is_connect)
    })
}

/// Compares tokens in constant time (the endpoint must not leak how much of a guess was right).
pub fn token_matches(expected: &str, given: &str) -> bool {
    expected.len() == given.len() && expected.bytes().zip(given.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wildcard_bind_is_reached_over_loopback() {
        assert_eq!(loopback("0.0.0.0:8080".parse().expect("addr")).to_string(), "127.0.0.1:8080");
        assert_eq!(loopback("[::]:8443".parse().expect("addr")).to_string(), "[::1]:8443");
        assert_eq!(loopback("127.0.0.1:9".parse().expect("addr")).to_string(), "127.0.0.1:9");
    }

    #[test]
    fn the_file_is_withdrawn_only_by_its_own_server() {
        let dir = tempfile::tempdir().expect("dir");
        let first = publish(dir.path(), "127.0.0.1:1".parse().expect("addr"), false).expect("publish");
        let second = publish(dir.path(), "127.0.0.1:2".parse().expect("addr"), true).expect("publish");
        withdraw(dir.path(), &first);
        let c = read(dir.path()).expect("read").expect("still there");
        assert_eq!((c.url.as_str(), c.token == second), ("https://127.0.0.1:2", true));
        withdraw(dir.path(), &second);
        assert!(read(dir.path()).expect("read").is_none());
        assert!(token_matches("abc", "abc") && !token_matches("abc", "abd") && !token_matches("abc", "ab"));
    }
}
