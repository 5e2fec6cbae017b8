//! `stock-manager doctor`: checks an install from the command line, one line per check with
//! OK, WARN or FAIL and what to do about it. Each check is a function of the configuration, so
//! the tests run them against the simulator.

use crate::config::Config;
use std::fmt;
use std::path::Path;
use std::time::Duration;

/// How long a network check waits for an answer (Exact, a printer).
pub const NETWORK_TIMEOUT: Duration = Duration::from_secs(5);
/// Clock skew against Exact beyond which token and licence times go wrong.
const SKEW_WARN_SECS: i64 = 30;
const SKEW_FAIL_SECS: i64 = 300;
/// Free space in the data directory: a large sync needs room to grow the stores.
const DISK_WARN_BYTES: u64 = 2 << 30;
const DISK_FAIL_BYTES: u64 = 256 << 20;
/// A certificate this close to its end is worth renewing now.
const CERT_WARN_DAYS: i64 = 30;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Ok,
    Warn,
    Fail,
}

/// The outcome of one check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub name: &'static str,
    pub level: Level,
    /// What was found and, unless OK, what to do about it.
    pub message: String,
}

impl Check {
    fn ok(name: &'static str, message: impl Into<String>) -> Check {
        Check { name, level: Level::Ok, message: message.into() }
    }
    fn warn(name: &'static str, message: impl Into<String>) -> Check {
        Check { name, level: Level::Warn, message: message.into() }
    }
    fn fail(name: &'static str, message: impl Into<String>) -> Check {
        Check { name, level: Level::Fail, message: message.into() }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.level {
            Level::Ok => "OK",
            Level::Warn => "WARN",
            Level::Fail => "FAIL",
        };
        write!(f, "{level:<4} {:<10} {}", self.name, self.message)
    }
}

/// Every check after the configuration parsed, in the order they are printed.
pub async fn run(config: &Config) -> Vec<Check> {
    let mut checks = sources(config);
    checks.extend(check_secrets(config));
    checks.extend(check_data_dir(&config.data_dir));
    checks.extend(check_dropped_properties(&config.data_dir));
    checks.extend(check_exact(config).await);
    checks.extend(check_printers(config).await);
    checks.extend(check_tls(config));
    checks.push(check_mdns(config));
    checks
}

/// Each value that is not a default, with the layer it came from (secrets masked), so an admin
/// sees which of the settings file, config file, environment or command line to edit.
pub fn sources(config: &Config) -> Vec<Check> {
    let values = serde_json::to_value(config).unwrap_or_default();
    config
        .sources
        .iter()
        .map(|(key, source)| {
            let pointer = format!("/{}", key.replace('.', "/"));
            let value = values.pointer(&pointer).map_or_else(|| "?".to_string(), |v| v.to_string());
            let place = match source {
                crate::config::Source::SettingsFile => format!(" {}", config.settings_file().display()),
                crate::config::Source::ConfigFile => {
                    config.file.as_ref().map(|f| format!(" {}", f.display())).unwrap_or_default()
                }
                _ => String::new(),
            };
            Check::ok("source", format!("{key} = {value} ({source}{place})"))
        })
        .collect()
}

/// The app's credentials are there, and the admin password is stored as a hash.
pub fn check_secrets(config: &Config) -> Vec<Check> {
    let mut checks = Vec::new();
    if crate::setup::needed(config) {
        checks.push(Check::fail(
            "exact-app",
            "provider.client_id or client_secret is empty: open the server's Home page with the setup code from its console, or set them from the Exact App Center (docs/install-and-operate.md: Registering the app)",
        ));
    } else {
        checks.push(Check::ok("exact-app", "client id and secret are set"));
    }
    let password = config.admin.password.expose();
    if password.is_empty() {
        checks.push(Check::ok("admin", "no admin password: ImportData asks for a second Exact sign-in"));
    } else if crate::password::is_hash(password) {
        checks.push(Check::ok("admin", "the admin password is stored as an Argon2 hash"));
    } else {
        checks.push(Check::warn(
            "admin",
            "the admin password is plain text: replace it with the output of `stock-manager hash-password`",
        ));
    }
    checks
}

/// The data directory exists, only its owner can write it, `server.redb` (tokens, sessions) is
/// the owner's alone, a file can be written, and there is room.
pub fn check_data_dir(dir: &Path) -> Vec<Check> {
    let shown = dir.display();
    let meta = match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => m,
        Ok(_) => return vec![Check::fail("data-dir", format!("{shown} is not a directory: fix data_dir"))],
        Err(e) => {
            return vec![Check::fail(
                "data-dir",
                format!("{shown}: {e}: create it (owned by the service user, mode 750) or fix data_dir"),
            )];
        }
    };
    let mut checks = Vec::new();
    checks.push(permissions(dir, &meta));
    let server_db = dir.join("server.redb");
    match std::fs::metadata(&server_db) {
        Ok(m) => checks.push(server_db_permissions(&server_db, &m)),
        Err(_) => checks.push(Check::ok("server.redb", "not made yet (the first start makes it, mode 600)")),
    }
    let probe = dir.join(".doctor-probe");
    match std::fs::write(&probe, b"ok") {
        Ok(()) => {
            let _ = std::fs::remove_file(&probe);
            checks.push(Check::ok("writable", format!("{shown} accepts writes")));
        }
        Err(e) => checks.push(Check::fail(
            "writable",
            format!("cannot write in {shown}: {e}: run as the service user, or chown the directory to it"),
        )),
    }
    checks.push(disk_space(dir));
    checks
}

/// The properties Exact Online removed that each organization no longer asks for (reference
/// §17): the product goes on without them, and they show empty.
pub fn check_dropped_properties(dir: &Path) -> Vec<Check> {
    // A missing or unreadable directory is the data-dir check's to report.
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut stores: Vec<(i64, std::path::PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let division = name.strip_prefix("org-")?.strip_suffix(".redb")?.parse().ok()?;
            Some((division, e.path()))
        })
        .collect();
    stores.sort();
    let mut checks = Vec::new();
    for (division, path) in stores {
        let db = match redb::ReadOnlyDatabase::open(&path) {
            Ok(db) => db,
            Err(redb::DatabaseError::DatabaseAlreadyOpen) => {
                checks.push(Check::ok(
                    "schema",
                    format!("organization {division} is open in the running server: GET /api/v1/status lists the properties Exact Online removed"),
                ));
                continue;
            }
            Err(e) => {
                checks.push(Check::warn(
                    "schema",
                    format!("organization {division}: {} cannot be read: {e}", path.display()),
                ));
                continue;
            }
        };
        let prefix = crate::store::meta::kv_key(crate::exact::dropped::KV_PREFIX);
        let read = redb::ReadableDatabase::begin_read(&db)
            .map_err(|e| e.to_string())
            .and_then(|txn| crate::store::meta::scan_raw(&txn, &prefix).map_err(|e| e.to_string()));
        match read {
            Ok(entries) => {
                for d in crate::exact::dropped::parse_entries(entries) {
                    checks.push(Check::warn(
                        "schema",
                        format!(
                            "organization {division}: Exact Online removed {} from {} (since {}): the product no longer reads it and shows it empty",
                            d.property, d.endpoint, d.since
                        ),
                    ));
                }
            }
            Err(e) => checks.push(Check::warn("schema", format!("organization {division}: {e}"))),
        }
    }
    if checks.is_empty() {
        checks.push(Check::ok("schema", "Exact Online has removed no property the product reads"));
    }
    checks
}

#[cfg(unix)]
fn permissions(dir: &Path, meta: &std::fs::Metadata) -> Check {
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode() & 0o777;
    let shown = dir.display();
    if mode & 0o002 != 0 {
        Check::fail("data-dir", format!("{shown} is writable by anyone (mode {mode:o}): chmod 750 {shown}"))
    } else if mode & 0o020 != 0 {
        Check::warn("data-dir", format!("{shown} is writable by its group (mode {mode:o}): chmod 750 {shown}"))
    } else {
        Check::ok("data-dir", format!("{shown} (mode {mode:o})"))
    }
}

#[cfg(not(unix))]
fn permissions(dir: &Path, _meta: &std::fs::Metadata) -> Check {
    Check::ok("data-dir", format!("{} exists (permissions are not checked on this system)", dir.display()))
}

#[cfg(unix)]
fn server_db_permissions(path: &Path, meta: &std::fs::Metadata) -> Check {
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode() & 0o777;
    let shown = path.display();
    if mode & 0o007 != 0 {
        Check::fail("server.redb", format!("anyone can read the sign-in tokens (mode {mode:o}): chmod 600 {shown}"))
    } else if mode & 0o070 != 0 {
        Check::warn("server.redb", format!("its group can read the sign-in tokens (mode {mode:o}): chmod 600 {shown}"))
    } else {
        Check::ok("server.redb", format!("mode {mode:o}"))
    }
}

#[cfg(not(unix))]
fn server_db_permissions(_path: &Path, _meta: &std::fs::Metadata) -> Check {
    Check::ok("server.redb", "exists (permissions are not checked on this system)")
}

#[cfg(unix)]
fn disk_space(dir: &Path) -> Check {
    match rustix::fs::statvfs(dir) {
        Ok(s) => {
            let free = s.f_bavail.saturating_mul(s.f_frsize);
            let text = format!("{:.1} GB free in {}", free as f64 / f64::from(1u32 << 30), dir.display());
            if free < DISK_FAIL_BYTES {
                Check::fail("disk", format!("{text}: free space or move data_dir to a larger disk"))
            } else if free < DISK_WARN_BYTES {
                Check::warn("disk", format!("{text}: a large sync may need more; free some space"))
            } else {
                Check::ok("disk", text)
            }
        }
        Err(e) => Check::warn("disk", format!("cannot read the free space of {}: {e}", dir.display())),
    }
}

#[cfg(not(unix))]
fn disk_space(dir: &Path) -> Check {
    Check::warn("disk", format!("free space in {} is not checked on this system: check it by hand", dir.display()))
}

/// Exact Online answers at the configured host, and this machine's clock agrees with its `Date`.
pub async fn check_exact(config: &Config) -> Vec<Check> {
    crate::tls::install_crypto_provider();
    let base = &config.provider.base_url;
    let client =
        match reqwest::Client::builder().timeout(NETWORK_TIMEOUT).redirect(reqwest::redirect::Policy::none()).build() {
            Ok(c) => c,
            Err(e) => return vec![Check::fail("exact", format!("cannot make an HTTP client: {e}"))],
        };
    let response = match client.get(base).send().await {
        Ok(r) => r,
        Err(e) => {
            return vec![Check::fail(
                "exact",
                format!("{base} cannot be reached: {e:#}: check DNS, the firewall and provider.base_url"),
            )];
        }
    };
    let mut checks = vec![Check::ok("exact", format!("{base} answers (HTTP {})", response.status().as_u16()))];
    let date = response
        .headers()
        .get(reqwest::header::DATE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| chrono::DateTime::parse_from_rfc2822(v).ok());
    checks.push(match date {
        Some(date) => clock_skew(chrono::Utc::now().timestamp() - date.timestamp()),
        None => Check::warn("clock", format!("{base} sent no Date header: compare the clock by hand")),
    });
    checks
}

/// Judges the difference between this machine's clock and Exact's (seconds, positive = ahead).
pub fn clock_skew(ahead_secs: i64) -> Check {
    let text = match ahead_secs {
        0 => "the clock agrees with Exact Online".to_string(),
        s if s > 0 => format!("the clock is {s} s ahead of Exact Online"),
        s => format!("the clock is {} s behind Exact Online", -s),
    };
    let fix = "enable time synchronisation (e.g. `timedatectl set-ntp true`)";
    match ahead_secs.abs() {
        s if s > SKEW_FAIL_SECS => Check::fail("clock", format!("{text}: {fix}")),
        s if s > SKEW_WARN_SECS => Check::warn("clock", format!("{text}: {fix}")),
        _ => Check::ok("clock", text),
    }
}

/// Each configured printer answers IPP Get-Printer-Attributes.
pub async fn check_printers(config: &Config) -> Vec<Check> {
    let mut checks = Vec::new();
    for printer in &config.printers {
        let client = match crate::printing::ipp_client::IppClient::new(printer.insecure_tls, NETWORK_TIMEOUT) {
            Ok(c) => c,
            Err(e) => {
                checks.push(Check::fail("printer", format!("{}: {e}", printer.name)));
                continue;
            }
        };
        checks.push(match client.capabilities(&printer.uri).await {
            Ok(caps) => {
                let formats = match (caps.accepts_pdf(), caps.accepts_pwg_raster()) {
                    (true, _) => "takes PDF",
                    (false, true) => "takes PWG raster",
                    (false, false) => "takes neither PDF nor PWG raster",
                };
                let text = format!("{} at {} answers, {formats}", printer.name, printer.uri);
                if caps.accepts_pdf() || caps.accepts_pwg_raster() {
                    Check::ok("printer", text)
                } else {
                    Check::warn("printer", format!("{text}: labels cannot be sent to it"))
                }
            }
            Err(e) => Check::fail(
                "printer",
                format!(
                    "{} at {} does not answer: {e}: check it is on and the URI in [[printers]]",
                    printer.name, printer.uri
                ),
            ),
        });
    }
    checks
}

/// The served certificate can be read and is not (nearly) expired.
pub fn check_tls(config: &Config) -> Option<Check> {
    let path = crate::tls::cert_path(&config.tls, &config.data_dir)?;
    if config.tls.self_signed && !path.is_file() {
        return Some(Check::ok("tls", "the self-signed certificate is made at the first start"));
    }
    let certs = match crate::tls::load_certs(&path) {
        Ok(c) => c,
        Err(e) => return Some(Check::fail("tls", format!("{e:#}: fix tls.cert"))),
    };
    let Some(not_after) = certs.first().and_then(|c| crate::tls::not_after(c)) else {
        return Some(Check::warn("tls", format!("cannot read the expiry of {}", path.display())));
    };
    let days = (not_after - chrono::Utc::now().timestamp()).div_euclid(86_400);
    let until = chrono::DateTime::from_timestamp(not_after, 0).map(|d| d.format("%Y-%m-%d").to_string());
    let until = until.unwrap_or_default();
    let renew = if config.tls.self_signed {
        format!("delete {} and the key beside it, then restart to make a new one", path.display())
    } else {
        "renew it and replace tls.cert and tls.key".to_string()
    };
    Some(if days < 0 {
        Check::fail("tls", format!("the certificate expired on {until}: {renew}"))
    } else if days < CERT_WARN_DAYS {
        Check::warn("tls", format!("the certificate expires on {until}, in {days} days: {renew}"))
    } else {
        Check::ok("tls", format!("the certificate is valid until {until}"))
    })
}

/// mDNS is off by choice, or a responder can start on this host's interfaces.
pub fn check_mdns(config: &Config) -> Check {
    if !config.mdns.enabled {
        return Check::ok("mdns", "off ([mdns] enabled = false): handhelds need the URL typed in");
    }
    match mdns_sd::ServiceDaemon::new() {
        Ok(daemon) => {
            let _ = daemon.shutdown();
            Check::ok("mdns", "a responder can start: the server is announced on the LAN")
        }
        Err(e) => Check::warn(
            "mdns",
            format!("cannot start mDNS ({e}): the server still works, but is not announced and printers are not found"),
        ),
    }
}

/// Whether any check failed (the command then exits non-zero).
pub fn failed(checks: &[Check]) -> bool {
    checks.iter().any(|c| c.level == Level::Fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skew_is_judged_both_ways() {
        assert_eq!(clock_skew(3).level, Level::Ok);
        assert_eq!(clock_skew(-45).level, Level::Warn);
        assert!(clock_skew(-45).message.contains("45 s behind"));
        assert_eq!(clock_skew(600).level, Level::Fail);
    }

    #[cfg(unix)]
    #[test]
    fn loose_permissions_are_named_with_their_fix() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let set = |p: &Path, mode| std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
        set(dir.path(), 0o750);
        let db = dir.path().join("server.redb");
        std::fs::write(&db, b"").unwrap();
        set(&db, 0o600);
        let checks = check_data_dir(dir.path());
        assert!(checks.iter().all(|c| c.level != Level::Fail), "{checks:?}");
        set(&db, 0o644);
        set(dir.path(), 0o777);
        let checks = check_data_dir(dir.path());
        let by_name = |n: &str| checks.iter().find(|c| c.name == n).cloned().unwrap();
        assert_eq!(by_name("data-dir").level, Level::Fail);
        assert!(by_name("data-dir").message.contains("chmod 750"));
        assert_eq!(by_name("server.redb").level, Level::Fail);
        assert!(by_name("server.redb").message.contains("chmod 600"));
        set(dir.path(), 0o700);
    }

    #[test]
    fn a_missing_data_dir_fails() {
        let dir = tempfile::tempdir().unwrap();
        let checks = check_data_dir(&dir.path().join("nope"));
        assert_eq!(checks.len(), 1);
        assert_eq!(checks[0].level, Level::Fail);
        assert!(failed(&checks));
    }
}
