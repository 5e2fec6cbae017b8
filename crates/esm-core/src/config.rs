//! Configuration: defaults < settings file (`{data_dir}/settings.toml`, what the first-run setup
//! writes) < TOML config file < `ESM_*` environment variables < command-line options, validated
//! once at start. [`Config::sources`] says which layer each value came from (`doctor` shows it).
//!
//! Environment keys use `__` for nesting: `ESM_PROVIDER__CLIENT_SECRET`, `ESM_TLS__SELF_SIGNED`.
//! Secrets are held in [`Secret`], whose `Debug` and `Serialize` never show the value.

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// The top-level keys of [`Config`]; environment variables outside them are not configuration.
const TOP_LEVEL_KEYS: &[&str] = &[
    "listen",
    "public_url",
    "data_dir",
    "log_level",
    "log_format",
    "time_zone",
    "provider",
    "tls",
    "mdns",
    "sync",
    "store",
    "printers",
    "licence",
    "admin",
    "server",
    "backup",
];

/// The default file read when `--config` is not given and it exists.
pub const DEFAULT_CONFIG_FILE: &str = "config.toml";

/// The file in the data directory that the first-run setup writes: the data directory is the one
/// place every install lets the service write (the Debian unit keeps `/etc` read-only).
pub const SETTINGS_FILE: &str = "settings.toml";

/// A value that must never appear in logs, `--help`, debug output or responses.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }
    /// The value itself, for the one place that needs it (e.g. the token request body).
    pub fn expose(&self) -> &str {
        &self.0
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_empty() { "\"\"" } else { "\"***\"" })
    }
}

impl Serialize for Secret {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(if self.0.is_empty() { "" } else { "***" })
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Secret)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Address and port the HTTP(S) server listens on.
    pub listen: String,
    /// The URL users' browsers reach the server at; the OAuth redirect is `{public_url}/callback`.
    pub public_url: Option<String>,
    /// Where the stores (`server.redb`, one `org-{division}.redb` per organization) live.
    pub data_dir: PathBuf,
    /// Log filter: `error`, `warn`, `info`, `debug`, `trace`, or a tracing directive list.
    pub log_level: String,
    /// `text` for people, `json` for log collectors.
    pub log_format: LogFormat,
    /// The organization's time zone (IANA name): the UI shows server times and "today" in it.
    /// Exact Online's own dates are Amsterdam wall-clock times, hence the default.
    pub time_zone: String,
    pub provider: ProviderConfig,
    pub tls: TlsConfig,
    pub mdns: MdnsConfig,
    pub sync: SyncConfig,
    pub store: StoreConfig,
    pub printers: Vec<PrinterConfig>,
    pub licence: LicenceConfig,
    pub admin: AdminConfig,
    pub server: ServerConfig,
    pub backup: BackupConfig,
    /// The file this configuration was read from (`--config`, else `./config.toml`). Not a setting.
    #[serde(skip)]
    pub file: Option<PathBuf>,
    /// Where each value that is not a default came from, by dotted key. Not a setting.
    #[serde(skip)]
    pub sources: std::collections::BTreeMap<String, Source>,
}

/// The layer a configuration value came from, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    /// `{data_dir}/settings.toml`, written by the first-run setup.
    SettingsFile,
    /// The TOML config file.
    ConfigFile,
    /// An `ESM_*` environment variable.
    Environment,
    /// A command-line option (`--listen`, `--data-dir`).
    CommandLine,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::SettingsFile => "settings file",
            Source::ConfigFile => "config file",
            Source::Environment => "environment",
            Source::CommandLine => "command line",
        })
    }
}

/// The command-line options that override the configuration.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Overrides {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listen: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ProviderConfig {
    /// The Exact Online host of the company's country, e.g. `https://start.exactonline.nl`.
    pub base_url: String,
    /// The app's client id from the Exact App Center.
    pub client_id: String,
    /// The app's client secret from the Exact App Center.
    pub client_secret: Secret,
    /// A file holding the client secret instead (e.g. a systemd credential); read at start.
    pub client_secret_file: Option<PathBuf>,
    /// Seconds before an HTTP call to the provider is abandoned.
    pub timeout_seconds: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct TlsConfig {
    /// Serve HTTPS instead of HTTP.
    pub enabled: bool,
    /// PEM certificate chain (used when `self_signed` is false).
    pub cert: Option<PathBuf>,
    /// PEM private key (used when `self_signed` is false).
    pub key: Option<PathBuf>,
    /// Create (once) and reuse a self-signed certificate in `{data_dir}/tls/`.
    pub self_signed: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MdnsConfig {
    /// Announce the server on the LAN and browse for IPP printers.
    pub enabled: bool,
    /// The announced instance name; default "Stock Manager on {host}".
    pub instance_name: Option<String>,
    /// Use only the loopback interface (tests, or hosts where multicast must stay local).
    pub loopback_only: bool,
    /// Printers announced from these subnets (CIDR, e.g. `192.168.10.0/24`) print without an
    /// administrator accepting them first; empty = every discovered printer waits to be accepted.
    pub printer_subnets: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SyncConfig {
    /// Minutes between background incremental syncs of every activated organization; 0 = off.
    pub interval_minutes: u64,
    /// Run one incremental sync shortly after start.
    pub on_startup: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StoreConfig {
    /// Page cache of each organization's store file, in MB: more makes a large sync faster, less
    /// keeps the server's memory smaller.
    pub cache_mb: u64,
}

/// Bounds of `store.cache_mb`: below 8 MB redb thrashes; above 64 GB is surely a typo.
const CACHE_MB: std::ops::RangeInclusive<u64> = 8..=65_536;

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig { cache_mb: (crate::store::DEFAULT_CACHE_BYTES >> 20) as u64 }
    }
}

impl StoreConfig {
    pub fn cache_bytes(&self) -> usize {
        usize::try_from(self.cache_mb).unwrap_or(usize::MAX).saturating_mul(1 << 20)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PrinterConfig {
    /// The name users pick the printer by.
    pub name: String,
    /// `ipp://host:631/ipp/print` or `ipps://…`.
    pub uri: String,
    /// Label types this printer holds media for (e.g. `receipts`, `cnc-new`); empty = any.
    #[serde(default)]
    pub label_types: Vec<String>,
    /// Accept a self-signed printer certificate on `ipps://`.
    #[serde(default)]
    pub insecure_tls: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct LicenceConfig {
    /// Base64 ed25519 public key that licence codes are checked against; empty = the built-in vendor key.
    pub public_key: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct AdminConfig {
    /// Password for the fresh re-authentication that ImportData needs: an Argon2 PHC string from
    /// `stock-manager hash-password` (or, for compatibility, the plain password); empty = a
    /// second provider sign-in.
    pub password: Secret,
    /// A file holding the password (or its hash) instead; read at start.
    pub password_file: Option<PathBuf>,
    /// Exact users who are this installation's administrators while no password is set: their
    /// Exact user ids (GUIDs) or e-mail addresses, compared without regard to case.
    pub users: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct ServerConfig {
    /// Reverse proxies (addresses or CIDR ranges) whose `X-Forwarded-For`, `X-Forwarded-Proto`
    /// and `X-Forwarded-Host` are believed; empty = none (the direct peer is the client).
    pub trusted_proxies: Vec<String>,
}

/// The daily backup, taken by the running server (docs/install-and-operate.md "Backup and restore").
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BackupConfig {
    /// Directory the daily backups go to; unset = no scheduled backups.
    pub dir: Option<PathBuf>,
    /// Local time of day to take it, `HH:MM`.
    pub time: String,
    /// How many of the newest daily backups to keep in `dir`.
    pub keep: u32,
}

impl Default for BackupConfig {
    fn default() -> Self {
        BackupConfig { dir: None, time: "02:30".into(), keep: 7 }
    }
}

impl BackupConfig {
    pub fn time_of_day(&self) -> Result<chrono::NaiveTime, String> {
        chrono::NaiveTime::parse_from_str(&self.time, "%H:%M").map_err(|_| format!("time '{}' is not HH:MM", self.time))
    }

    /// The schedule's own problems: "time …" or "keep …" (the key first, as `validate` names it).
    fn check(&self) -> Result<(), String> {
        self.time_of_day()?;
        if self.keep == 0 || self.keep > 3650 {
            return Err("keep must be between 1 and 3650".into());
        }
        Ok(())
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: "0.0.0.0:8080".into(),
            public_url: None,
            data_dir: PathBuf::from("data"),
            log_level: "info".into(),
            log_format: LogFormat::Text,
            time_zone: DEFAULT_TIME_ZONE.into(),
            provider: ProviderConfig::default(),
            tls: TlsConfig::default(),
            mdns: MdnsConfig::default(),
            sync: SyncConfig::default(),
            store: StoreConfig::default(),
            printers: Vec::new(),
            licence: LicenceConfig::default(),
            admin: AdminConfig::default(),
            server: ServerConfig::default(),
            backup: BackupConfig::default(),
            file: None,
            sources: Default::default(),
        }
    }
}

impl Default for ProviderConfig {
    fn default() -> Self {
        ProviderConfig {
            base_url: "https://start.exactonline.nl".into(),
            client_id: String::new(),
            client_secret: Secret::default(),
            client_secret_file: None,
            timeout_seconds: 60,
        }
    }
}

impl Default for MdnsConfig {
    fn default() -> Self {
        MdnsConfig { enabled: true, instance_name: None, loopback_only: false, printer_subnets: Vec::new() }
    }
}

impl Default for SyncConfig {
    fn default() -> Self {
        SyncConfig { interval_minutes: 15, on_startup: true }
    }
}

/// A configuration problem, naming the key and what is wrong with it.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("configuration file {path}: {message}")]
    File { path: String, message: String },
    #[error("invalid configuration: {0}")]
    Parse(String),
    #[error("invalid configuration: `{key}` {problem}")]
    Invalid { key: String, problem: String },
}

fn invalid(key: &str, problem: impl Into<String>) -> ConfigError {
    ConfigError::Invalid { key: key.into(), problem: problem.into() }
}

impl Config {
    /// Loads the layered configuration. `file` is `--config`; without it `./config.toml` is read
    /// if present. The settings file is looked for in the data directory that the other layers name.
    pub fn load(file: Option<&Path>, cli: &Overrides) -> Result<Config, ConfigError> {
        // Only the config's own keys: other ESM_* variables (ESM_SKIP_UI_BUILD for the build,
        // ESM_BIN for the test scripts) are not configuration.
        let env = Env::prefixed("ESM_")
            .filter(|key| {
                TOP_LEVEL_KEYS.contains(&key.as_str().split("__").next().unwrap_or("").to_ascii_lowercase().as_str())
            })
            .split("__");
        Self::load_with_env(file, env, cli)
    }

    fn load_with_env(file: Option<&Path>, env: Env, cli: &Overrides) -> Result<Config, ConfigError> {
        let config_file = match file {
            Some(path) if !path.is_file() => {
                return Err(ConfigError::File {
                    path: path.display().to_string(),
                    message: "does not exist or is not a file".into(),
                });
            }
            Some(path) => Some(path.to_path_buf()),
            None => Path::new(DEFAULT_CONFIG_FILE).is_file().then(|| PathBuf::from(DEFAULT_CONFIG_FILE)),
        };
        let config_layer = config_file.as_deref().map(Toml::file);
        let cli_layer = Serialized::defaults(cli.clone());
        let above = |fig: Figment| {
            let fig = match &config_layer {
                Some(layer) => fig.merge(layer),
                None => fig,
            };
            fig.merge(env.clone()).merge(cli_layer.clone())
        };
        let defaults = Figment::from(Serialized::defaults(Config::default()));
        // The data directory comes from the layers above the settings file, which lives in it.
        let data_dir: PathBuf =
            above(defaults.clone()).extract_inner("data_dir").map_err(|e| ConfigError::Parse(describe_figment(e)))?;
        let settings = data_dir.join(SETTINGS_FILE);
        let settings_layer = settings.is_file().then(|| Toml::file(&settings));
        if let Some(layer) = &settings_layer
            && Figment::from(layer).find_value("data_dir").is_ok()
        {
            return Err(ConfigError::File {
                path: settings.display().to_string(),
                message: "must not set `data_dir`: it is the file's own place".into(),
            });
        }
        let fig = match &settings_layer {
            Some(layer) => above(defaults.merge(layer)),
            None => above(defaults),
        };
        // The defaults serialise secrets as "" so the merge never carries a masked value.
        let mut config: Config = fig.extract().map_err(|e| ConfigError::Parse(describe_figment(e)))?;
        config.file = Some(file.map_or_else(|| PathBuf::from(DEFAULT_CONFIG_FILE), Path::to_path_buf));
        let layers: [(Source, Option<Figment>); 4] = [
            (Source::SettingsFile, settings_layer.map(Figment::from)),
            (Source::ConfigFile, config_layer.map(Figment::from)),
            (Source::Environment, Some(Figment::from(env))),
            (Source::CommandLine, Some(Figment::from(cli_layer))),
        ];
        for key in leaf_keys(&fig) {
            let from = layers.iter().rev().find(|(_, l)| l.as_ref().is_some_and(|l| l.find_value(&key).is_ok()));
            if let Some((source, _)) = from {
                config.sources.insert(key, *source);
            }
        }
        // A secret file named above the settings file wins over the secret the setup wrote there.
        if config.provider.client_secret_file.is_some()
            && config.sources.get("provider.client_secret") == Some(&Source::SettingsFile)
            && config.sources.get("provider.client_secret_file") != Some(&Source::SettingsFile)
        {
            config.provider.client_secret = Secret::default();
        }
        config.read_secret_files()?;
        config.validate()?;
        Ok(config)
    }

    /// Where the first-run setup writes: the settings file in the data directory.
    pub fn settings_file(&self) -> PathBuf {
        self.data_dir.join(SETTINGS_FILE)
    }

    /// Parses a TOML document over the defaults (no environment), for tests and tools.
    pub fn from_toml_str(text: &str) -> Result<Config, ConfigError> {
        let mut config: Config = Figment::from(Serialized::defaults(Config::default()))
            .merge(Toml::string(text))
            .extract()
            .map_err(|e| ConfigError::Parse(describe_figment(e)))?;
        config.read_secret_files()?;
        config.validate()?;
        Ok(config)
    }

    /// Reads `client_secret_file` and `password_file` into their secrets. Setting both a secret
    /// and its file is refused: which one wins would be a guess.
    pub fn read_secret_files(&mut self) -> Result<(), ConfigError> {
        let pairs = [
            ("provider.client_secret", &mut self.provider.client_secret, &self.provider.client_secret_file),
            ("admin.password", &mut self.admin.password, &self.admin.password_file),
        ];
        for (key, secret, file) in pairs {
            let Some(file) = file else { continue };
            if !secret.is_empty() {
                return Err(invalid(key, format!("and `{key}_file` are both set: keep one")));
            }
            *secret = read_secret_file(file).map_err(|problem| invalid(&format!("{key}_file"), problem))?;
        }
        Ok(())
    }

    /// Checks every value once, so the server never starts half-configured.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.listen_addr()?;
        if let Some(url) = &self.public_url {
            let parsed = url::Url::parse(url).map_err(|e| invalid("public_url", format!("is not a URL: {e}")))?;
            if !matches!(parsed.scheme(), "http" | "https") {
                return Err(invalid("public_url", "must start with http:// or https://"));
            }
        }
        if self.data_dir.as_os_str().is_empty() {
            return Err(invalid("data_dir", "must not be empty"));
        }
        check_time_zone(&self.time_zone).map_err(|problem| invalid("time_zone", problem))?;
        tracing_subscriber::EnvFilter::try_new(&self.log_level)
            .map_err(|e| invalid("log_level", format!("is not a log filter: {e}")))?;
        let base = url::Url::parse(&self.provider.base_url)
            .map_err(|e| invalid("provider.base_url", format!("is not a URL: {e}")))?;
        if !is_provider_origin(&base) {
            return Err(invalid(
                "provider.base_url",
                "must be an https:// URL with a host (http:// only on this machine)",
            ));
        }
        if self.provider.timeout_seconds == 0 || self.provider.timeout_seconds > 600 {
            return Err(invalid("provider.timeout_seconds", "must be between 1 and 600"));
        }
        if self.tls.enabled && !self.tls.self_signed {
            match (&self.tls.cert, &self.tls.key) {
                (Some(cert), Some(key)) => {
                    if !cert.is_file() {
                        return Err(invalid("tls.cert", format!("file {} does not exist", cert.display())));
                    }
                    if !key.is_file() {
                        return Err(invalid("tls.key", format!("file {} does not exist", key.display())));
                    }
                }
                _ => return Err(invalid("tls", "needs `cert` and `key`, or `self_signed = true`")),
            }
        }
        if let Some(name) = &self.mdns.instance_name
            && (name.is_empty() || name.len() > 63)
        {
            return Err(invalid("mdns.instance_name", "must be 1 to 63 characters"));
        }
        for (i, subnet) in self.mdns.printer_subnets.iter().enumerate() {
            crate::ip_range::IpRange::parse(subnet)
                .map_err(|e| invalid(&format!("mdns.printer_subnets[{i}]"), format!("'{subnet}' {e}")))?;
        }
        if self.sync.interval_minutes > 24 * 60 {
            return Err(invalid("sync.interval_minutes", "must be at most 1440 (one day); 0 turns it off"));
        }
        if !CACHE_MB.contains(&self.store.cache_mb) {
            return Err(invalid(
                "store.cache_mb",
                format!("must be between {} and {}", CACHE_MB.start(), CACHE_MB.end()),
            ));
        }
        self.backup.check().map_err(|problem| {
            let (key, problem) = problem.split_once(' ').unwrap_or(("", &problem));
            invalid(&format!("backup.{key}"), problem)
        })?;
        if let Some(dir) = &self.backup.dir
            && (dir.as_os_str().is_empty() || dir.starts_with(&self.data_dir))
        {
            // Inside the data directory, every backup would hold all the ones before it.
            return Err(invalid("backup.dir", "must be set and lie outside data_dir"));
        }
        let mut names = std::collections::HashSet::new();
        for (i, p) in self.printers.iter().enumerate() {
            let key = format!("printers[{i}]");
            if p.name.trim().is_empty() {
                return Err(invalid(&format!("{key}.name"), "must not be empty"));
            }
            if !names.insert(p.name.as_str()) {
                return Err(invalid(&format!("{key}.name"), format!("'{}' is used twice", p.name)));
            }
            let uri =
                url::Url::parse(&p.uri).map_err(|e| invalid(&format!("{key}.uri"), format!("is not a URI: {e}")))?;
            if !matches!(uri.scheme(), "ipp" | "ipps" | "http" | "https") || uri.host_str().is_none() {
                return Err(invalid(&format!("{key}.uri"), "must be ipp://, ipps://, http:// or https:// with a host"));
            }
        }
        for (i, entry) in self.server.trusted_proxies.iter().enumerate() {
            crate::ip_range::IpRange::parse(entry)
                .map_err(|problem| invalid(&format!("server.trusted_proxies[{i}]"), format!("'{entry}' {problem}")))?;
        }
        let password = self.admin.password.expose();
        if crate::password::is_hash(password) {
            crate::password::check_hash(password).map_err(|problem| invalid("admin.password", problem))?;
        }
        if let Some(key) = &self.licence.public_key
            && !key.is_empty()
        {
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(key.trim())
                .map_err(|_| invalid("licence.public_key", "is not base64"))?;
            if bytes.len() != 32 {
                return Err(invalid("licence.public_key", "must be a 32-byte ed25519 public key"));
            }
        }
        Ok(())
    }

    /// The parsed listen address.
    pub fn listen_addr(&self) -> Result<SocketAddr, ConfigError> {
        self.listen
            .parse::<SocketAddr>()
            .map_err(|_| invalid("listen", format!("'{}' is not HOST:PORT (e.g. 0.0.0.0:8080)", self.listen)))
    }

    /// The URL browsers use, derived from the listen address when `public_url` is not set.
    pub fn effective_public_url(&self, bound: SocketAddr) -> String {
        if let Some(url) = &self.public_url {
            return url.trim_end_matches('/').to_string();
        }
        let scheme = if self.tls.enabled { "https" } else { "http" };
        let host = if bound.ip().is_unspecified() { "localhost".to_string() } else { bound.ip().to_string() };
        let host = if host.contains(':') { format!("[{host}]") } else { host };
        format!("{scheme}://{host}:{}", bound.port())
    }
}

/// The time zone when the config names none: Exact Online's dates are Amsterdam wall-clock times.
pub const DEFAULT_TIME_ZONE: &str = "Europe/Amsterdam";

/// The areas of the IANA time zone names ("Europe/Amsterdam", "America/Argentina/Salta").
const ZONE_AREAS: &[&str] = &[
    "Africa",
    "America",
    "Antarctica",
    "Arctic",
    "Asia",
    "Atlantic",
    "Australia",
    "Europe",
    "Indian",
    "Pacific",
    "Etc",
];

/// An IANA name's shape: `UTC`, or a known area and a place. Without a time zone database in the
/// server this catches typos and abbreviations ("CET", "GMT+1"); the browser checks the name
/// itself and falls back to Amsterdam time when it does not know it.
fn check_time_zone(name: &str) -> Result<(), String> {
    if name == "UTC" {
        return Ok(());
    }
    let mut parts = name.split('/');
    let area = parts.next().unwrap_or_default();
    let places: Vec<&str> = parts.collect();
    let place_ok =
        |p: &&str| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+'));
    if ZONE_AREAS.contains(&area) && !places.is_empty() && places.len() <= 2 && places.iter().all(place_ok) {
        Ok(())
    } else {
        Err(format!("'{name}' is not a time zone name such as \"Europe/Amsterdam\" or \"UTC\""))
    }
}

/// Whether `url` may be the Exact Online host: https, or plain http on this machine only (the
/// built-in simulator and tests); anything else would send the client secret in the clear.
pub fn is_provider_origin(url: &url::Url) -> bool {
    let loopback = match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => return false,
    };
    url.scheme() == "https" || (url.scheme() == "http" && loopback)
}

/// Every dotted key with a value in `fig` (tables are walked into, lists are one value).
fn leaf_keys(fig: &Figment) -> Vec<String> {
    fn walk(prefix: &str, dict: &figment::value::Dict, out: &mut Vec<String>) {
        for (k, v) in dict {
            let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            match v.as_dict() {
                Some(inner) => walk(&key, inner, out),
                None => out.push(key),
            }
        }
    }
    let mut out = Vec::new();
    if let Ok(dict) = figment::Provider::data(fig).map(|mut d| d.remove(&figment::Profile::Default).unwrap_or_default())
    {
        walk("", &dict, &mut out);
    }
    out
}

/// A secret kept in a file: its first line (editors and `echo` add a final newline).
fn read_secret_file(path: &Path) -> Result<Secret, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let value = text.lines().next().unwrap_or("").trim_end();
    if value.is_empty() {
        return Err(format!("{} is empty", path.display()));
    }
    Ok(Secret::new(value))
}

/// Figment's errors already name the key ("for key `listen`"); keep them on one line.
fn describe_figment(err: figment::Error) -> String {
    err.into_iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        Config::default().validate().expect("defaults validate");
    }

    #[test]
    fn toml_overrides_defaults() {
        let c = Config::from_toml_str("listen = \"127.0.0.1:9000\"\n[provider]\nclient_id = \"abc\"\n").unwrap();
        assert_eq!(c.listen, "127.0.0.1:9000");
        assert_eq!(c.provider.client_id, "abc");
        assert_eq!(c.provider.base_url, "https://start.exactonline.nl");
    }

    #[test]
    fn bad_listen_names_the_key() {
        let err = Config::from_toml_str("listen = \"nonsense\"").unwrap_err().to_string();
        assert!(err.contains("`listen`"), "{err}");
    }

    #[test]
    fn the_store_cache_is_bounded_and_defaults_to_the_stores_own() {
        assert_eq!(Config::default().store.cache_bytes(), crate::store::DEFAULT_CACHE_BYTES);
        assert_eq!(Config::from_toml_str("[store]\ncache_mb = 512").expect("valid").store.cache_bytes(), 512 << 20);
        for bad in ["0", "4", "70000"] {
            let err = Config::from_toml_str(&format!("[store]\ncache_mb = {bad}")).unwrap_err().to_string();
            assert!(err.contains("store.cache_mb") && err.contains("between 8 and 65536"), "{err}");
        }
    }

    #[test]
    fn wrong_type_names_the_key() {
        let err = Config::from_toml_str("[sync]\ninterval_minutes = \"often\"").unwrap_err().to_string();
        assert!(err.contains("interval_minutes"), "{err}");
    }

    #[test]
    fn unknown_key_is_refused() {
        let err = Config::from_toml_str("lisen = \"0.0.0.0:1\"").unwrap_err().to_string();
        assert!(err.contains("lisen"), "{err}");
    }

    #[test]
    fn tls_without_files_is_refused() {
        let err = Config::from_toml_str("[tls]\nenabled = true").unwrap_err().to_string();
        assert!(err.contains("`tls`"), "{err}");
    }

    #[test]
    fn printer_uri_is_checked() {
        let err = Config::from_toml_str("[[printers]]\nname = \"p\"\nuri = \"ftp://x\"").unwrap_err().to_string();
        assert!(err.contains("printers[0].uri"), "{err}");
    }

    #[test]
    fn secrets_never_show_in_debug_or_serialisation() {
        let c = Config::from_toml_str("[provider]\nclient_secret = \"hunter2-very-secret\"").unwrap();
        assert_eq!(c.provider.client_secret.expose(), "hunter2-very-secret");
        assert!(!format!("{c:?}").contains("hunter2"));
        assert!(!serde_json::to_string(&c).unwrap().contains("hunter2"));
    }

    #[test]
    #[allow(clippy::result_large_err)] // figment's Jail API fixes the error type
    fn environment_overrides_the_file() {
        figment::Jail::expect_with(|jail| {
            jail.create_file("esm.toml", "listen = \"127.0.0.1:9000\"\n[provider]\nclient_id = \"file\"")?;
            jail.set_env("ESM_PROVIDER__CLIENT_ID", "env");
            jail.set_env("ESM_LISTEN", "127.0.0.1:9001");
            jail.set_env("ESM_SKIP_UI_BUILD", "1");
            let c = Config::load(Some(Path::new("esm.toml")), &Overrides::default()).expect("loads");
            assert_eq!(c.provider.client_id, "env");
            assert_eq!(c.listen, "127.0.0.1:9001");
            Ok(())
        });
    }

    #[test]
    #[allow(clippy::result_large_err)] // figment's Jail API fixes the error type
    fn the_settings_file_is_below_the_config_file_the_environment_and_the_command_line() {
        figment::Jail::expect_with(|jail| {
            std::fs::create_dir("data").expect("jail is writable");
            jail.create_file(
                "data/settings.toml",
                "listen = \"127.0.0.1:9001\"\nlog_level = \"debug\"\ntime_zone = \"UTC\"\n[provider]\nclient_id = \"setup\"\nclient_secret = \"from-setup\"\n[admin]\nusers = [\"anna\"]\n",
            )?;
            jail.create_file("esm.toml", "time_zone = \"Europe/London\"\nlisten = \"127.0.0.1:9002\"\n")?;
            jail.set_env("ESM_LOG_LEVEL", "warn");
            jail.set_env("ESM_LISTEN", "127.0.0.1:9003");
            let cli = Overrides { listen: Some("127.0.0.1:9004".into()), data_dir: None };
            let c = Config::load(Some(Path::new("esm.toml")), &cli).expect("loads");
            assert_eq!((c.provider.client_id.as_str(), c.provider.client_secret.expose()), ("setup", "from-setup"));
            assert_eq!(c.admin.users, ["anna"]);
            assert_eq!(
                (c.time_zone.as_str(), c.log_level.as_str(), c.listen.as_str()),
                ("Europe/London", "warn", "127.0.0.1:9004")
            );
            let source = |k: &str| c.sources.get(k).copied();
            assert_eq!(source("provider.client_id"), Some(Source::SettingsFile));
            assert_eq!(source("admin.users"), Some(Source::SettingsFile));
            assert_eq!(source("time_zone"), Some(Source::ConfigFile));
            assert_eq!(source("log_level"), Some(Source::Environment));
            assert_eq!(source("listen"), Some(Source::CommandLine));
            assert_eq!(source("sync.interval_minutes"), None, "a default has no source");
            assert_eq!(c.settings_file(), Path::new("data").join(SETTINGS_FILE));

            // --data-dir moves where the settings file is looked for.
            let cli = Overrides { listen: None, data_dir: Some("elsewhere".into()) };
            let c = Config::load(Some(Path::new("esm.toml")), &cli).expect("loads");
            assert_eq!(c.provider.client_id, "");
            assert_eq!(c.sources.get("data_dir"), Some(&Source::CommandLine));

            // The settings file lives in the data directory, so it cannot move it.
            jail.create_file("data/settings.toml", "data_dir = \"/srv/other\"\n")?;
            let err = Config::load(Some(Path::new("esm.toml")), &Overrides::default()).unwrap_err().to_string();
            assert!(err.contains("settings.toml") && err.contains("data_dir"), "{err}");
            Ok(())
        });
    }

    #[test]
    #[allow(clippy::result_large_err)] // figment's Jail API fixes the error type
    fn a_secret_file_in_the_config_file_wins_over_the_setups_secret() {
        figment::Jail::expect_with(|jail| {
            std::fs::create_dir("data").expect("jail is writable");
            jail.create_file("data/settings.toml", "[provider]\nclient_id = \"id\"\nclient_secret = \"from-setup\"\n")?;
            jail.create_file("secret", "from-the-file\n")?;
            jail.create_file("esm.toml", "[provider]\nclient_secret_file = \"secret\"\n")?;
            let c = Config::load(Some(Path::new("esm.toml")), &Overrides::default()).expect("loads");
            assert_eq!(c.provider.client_secret.expose(), "from-the-file");
            Ok(())
        });
    }

    #[test]
    fn the_exact_host_is_https_but_on_this_machine() {
        for good in ["https://start.exactonline.nl", "http://127.0.0.1:9000", "http://localhost:1", "http://[::1]:2"] {
            Config::from_toml_str(&format!("[provider]\nbase_url = {good:?}")).expect(good);
        }
        for bad in ["http://start.exactonline.nl", "http://10.0.0.5:8080", "ftp://start.exactonline.nl"] {
            let err = Config::from_toml_str(&format!("[provider]\nbase_url = {bad:?}")).expect_err(bad).to_string();
            assert!(err.contains("provider.base_url") && err.contains("https://"), "{bad}: {err}");
        }
    }

    #[test]
    fn every_top_level_key_is_listed_for_the_environment() {
        let value = serde_json::to_value(Config::default()).unwrap();
        let keys: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
        let mut listed: Vec<String> = TOP_LEVEL_KEYS.iter().map(|k| k.to_string()).collect();
        let mut keys_sorted = keys.clone();
        keys_sorted.sort();
        listed.sort();
        assert_eq!(keys_sorted, listed);
    }

    #[test]
    fn secrets_are_read_from_their_files() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("client_secret");
        std::fs::write(&secret, "from-a-file\n").unwrap();
        let password = dir.path().join("admin_password");
        std::fs::write(&password, "plain-admin\r\n").unwrap();
        let text = format!(
            "[provider]\nclient_secret_file = {:?}\n[admin]\npassword_file = {:?}\n",
            secret.display().to_string(),
            password.display().to_string()
        );
        let c = Config::from_toml_str(&text).expect("valid");
        assert_eq!(c.provider.client_secret.expose(), "from-a-file");
        assert_eq!(c.admin.password.expose(), "plain-admin");
        assert!(!format!("{c:?}").contains("from-a-file"));
    }

    #[test]
    fn a_secret_file_that_is_missing_empty_or_doubled_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope").display().to_string();
        let err = Config::from_toml_str(&format!("[provider]\nclient_secret_file = {missing:?}")).unwrap_err();
        assert!(err.to_string().contains("provider.client_secret_file") && err.to_string().contains("cannot read"));
        let empty = dir.path().join("empty");
        std::fs::write(&empty, "\n").unwrap();
        let empty = empty.display().to_string();
        let err = Config::from_toml_str(&format!("[admin]\npassword_file = {empty:?}")).unwrap_err().to_string();
        assert!(err.contains("admin.password_file") && err.contains("is empty"), "{err}");
        let both = format!("[admin]\npassword = \"x\"\npassword_file = {empty:?}");
        let err = Config::from_toml_str(&both).unwrap_err().to_string();
        assert!(err.contains("both set"), "{err}");
    }

    #[test]
    fn trusted_proxies_and_password_hashes_are_checked() {
        let ok = Config::from_toml_str("[server]\ntrusted_proxies = [\"127.0.0.1\", \"10.0.0.0/8\", \"fd00::/8\"]");
        assert_eq!(ok.expect("valid").server.trusted_proxies.len(), 3);
        let err = Config::from_toml_str("[server]\ntrusted_proxies = [\"10.0.0.0/33\"]").unwrap_err().to_string();
        assert!(err.contains("server.trusted_proxies[0]"), "{err}");
        let err = Config::from_toml_str("[admin]\npassword = \"$argon2id$nonsense\"").unwrap_err().to_string();
        assert!(err.contains("admin.password"), "{err}");
    }

    #[test]
    fn the_backup_section_is_off_by_default_and_checked() {
        assert!(Config::default().backup.dir.is_none());
        let ok = Config::from_toml_str(
            "data_dir = \"/srv/esm\"\n[backup]\ndir = \"/mnt/backups\"\ntime = \"23:15\"\nkeep = 14\n",
        )
        .expect("valid");
        assert_eq!((ok.backup.time_of_day().expect("time").to_string().as_str(), ok.backup.keep), ("23:15:00", 14));
        for (toml, key) in [
            ("[backup]\ntime = \"25:00\"", "`backup.time`"),
            ("[backup]\nkeep = 0", "`backup.keep`"),
            ("data_dir = \"/srv/esm\"\n[backup]\ndir = \"/srv/esm/backups\"", "`backup.dir`"),
        ] {
            let err = Config::from_toml_str(toml).expect_err(toml).to_string();
            assert!(err.contains(key), "{toml}: {err}");
        }
        let example = include_str!("../../../config.example.toml");
        assert!(Config::from_toml_str(example).is_ok(), "the example config is valid");
    }

    #[test]
    fn the_time_zone_defaults_to_amsterdam_and_must_be_an_iana_name() {
        assert_eq!(Config::default().time_zone, "Europe/Amsterdam");
        for good in ["UTC", "Europe/London", "America/Argentina/Salta", "Etc/GMT-2", "America/Port-au-Prince"] {
            let c = Config::from_toml_str(&format!("time_zone = {good:?}")).expect(good);
            assert_eq!(c.time_zone, good);
        }
        for bad in ["", "CET", "GMT+1", "Europe", "Europe/", "Mars/Olympus", "Europe/Amster dam", "Europe/../etc"] {
            let err = Config::from_toml_str(&format!("time_zone = {bad:?}")).expect_err(bad).to_string();
            assert!(err.contains("`time_zone`"), "{bad}: {err}");
        }
    }

    #[test]
    fn public_url_is_derived_from_the_bound_address() {
        let c = Config::default();
        assert_eq!(c.effective_public_url("0.0.0.0:8080".parse().unwrap()), "http://localhost:8080");
        let c = Config { public_url: Some("https://esm.factory.lan/".into()), ..Config::default() };
        assert_eq!(c.effective_public_url("0.0.0.0:8080".parse().unwrap()), "https://esm.factory.lan");
    }
}
