//! First run: while no provider client id and secret are configured, a local administrator sets
//! them up from the Home page. The server makes a one-time setup code (printed on the console,
//! never logged) that the page must present; the client id, secret and country host it takes are
//! tested with a real sign-in at that host, then written with the user who signed in (as an
//! administrator) to the settings file in the data directory, and the server restarts with them.

use crate::auth::throttle::Throttle;
use crate::config::{Config, Secret};
use anyhow::{Context, Result};
use parking_lot::Mutex;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// The Exact Online hosts, one per country; a company is reachable only through its own.
pub const PROVIDER_HOSTS: &[(&str, &str)] = &[
    ("Nederland", "https://start.exactonline.nl"),
    ("België / Belgique", "https://start.exactonline.be"),
    ("Deutschland", "https://start.exactonline.de"),
    ("France", "https://start.exactonline.fr"),
    ("España", "https://start.exactonline.es"),
    ("United Kingdom", "https://start.exactonline.co.uk"),
    ("United States", "https://start.exactonline.com"),
];

/// Wrong setup codes allowed per client address in [`CODE_WINDOW`].
const CODE_FAILURES: usize = 5;
const CODE_WINDOW: Duration = Duration::from_secs(15 * 60);
/// How long a tested-but-not-yet-signed-in setup waits for the provider's sign-in to come back.
const PENDING_TTL: Duration = Duration::from_secs(15 * 60);

/// Whether the server needs the first-run setup: no client id or no client secret.
pub fn needed(config: &Config) -> bool {
    config.provider.client_id.trim().is_empty() || config.provider.client_secret.is_empty()
}

/// What the setup page entered, waiting for the test sign-in to come back.
pub struct Pending {
    /// The `state` of the test sign-in (`setup.` + random), bound to the browser by a cookie.
    pub state: String,
    pub nonce: String,
    pub client_id: String,
    pub client_secret: Secret,
    pub base_url: String,
    pub redirect_uri: String,
    created: Instant,
}

/// The first-run setup of one server start.
pub struct FirstRun {
    code: String,
    /// Where the settings are written: `{data_dir}/settings.toml`.
    pub settings_file: PathBuf,
    pending: Mutex<Option<Pending>>,
    pub attempts: Throttle,
    done: Mutex<bool>,
    restart: std::sync::Arc<Notify>,
}

/// The prefix of a test sign-in's `state`, so the callback page knows where it belongs.
pub const STATE_PREFIX: &str = "setup.";

impl FirstRun {
    pub fn new(settings_file: PathBuf, restart: std::sync::Arc<Notify>) -> Self {
        FirstRun {
            code: new_code(),
            settings_file,
            pending: Mutex::new(None),
            attempts: Throttle::new(CODE_FAILURES, CODE_WINDOW),
            done: Mutex::new(false),
            restart,
        }
    }

    /// The code to print on the console; never logged, never sent in any answer.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// Whether `given` is this start's code (spaces and dashes do not count, nor case).
    pub fn code_matches(&self, given: &str) -> bool {
        let norm = |s: &str| s.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_uppercase();
        constant_time_eq(norm(given).as_bytes(), norm(&self.code).as_bytes())
    }

    pub fn is_done(&self) -> bool {
        *self.done.lock()
    }

    /// Keeps what the page entered until its test sign-in comes back (a newer test replaces it).
    pub fn begin(&self, pending: Pending) {
        *self.pending.lock() = Some(pending);
    }

    pub fn new_pending(client_id: String, client_secret: Secret, base_url: String, redirect_uri: String) -> Pending {
        Pending {
            state: format!("{STATE_PREFIX}{}", crate::auth::session::random_id()),
            nonce: crate::auth::session::random_id(),
            client_id,
            client_secret,
            base_url,
            redirect_uri,
            created: Instant::now(),
        }
    }

    /// The pending setup whose test sign-in came back with `state` from the browser holding
    /// `nonce`; taken, so a code is used once.
    pub fn take(&self, state: &str, nonce: Option<&str>) -> Option<Pending> {
        let mut slot = self.pending.lock();
        let p = slot.as_ref()?;
        let fresh = p.created.elapsed() < PENDING_TTL;
        let same = constant_time_eq(p.state.as_bytes(), state.as_bytes())
            && nonce.is_some_and(|n| constant_time_eq(p.nonce.as_bytes(), n.as_bytes()));
        if !same {
            return None;
        }
        let p = slot.take()?;
        fresh.then_some(p)
    }

    /// Writes the tested settings, with `admin` (who signed in to test them) as an administrator,
    /// and asks the server to restart with them.
    pub fn complete(&self, p: &Pending, admin: Option<&str>) -> Result<()> {
        let provider = ProviderSettings {
            client_id: &p.client_id,
            client_secret: p.client_secret.expose(),
            base_url: &p.base_url,
        };
        write_settings(&self.settings_file, &provider, admin)?;
        *self.done.lock() = true;
        self.restart.notify_one();
        Ok(())
    }
}

/// Twelve characters from an alphabet without look-alikes, shown as `XXXX-XXXX-XXXX`.
fn new_code() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let bytes: [u8; 12] = rand::random();
    let chars: Vec<char> = bytes.iter().map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char).collect();
    chars.chunks(4).map(|c| c.iter().collect::<String>()).collect::<Vec<_>>().join("-")
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// What the setup writes to `[provider]`.
pub struct ProviderSettings<'a> {
    pub client_id: &'a str,
    pub client_secret: &'a str,
    pub base_url: &'a str,
}

/// Sets `[provider] base_url`, `client_id` and `client_secret` in the settings file at `path`
/// (made, owner-only, when missing) and adds `admin` to `[admin] users` unless it is there,
/// keeping every other line and comment; a `client_secret_file` there is removed, since the secret
/// now is in the file. Written to a temporary file and renamed, so a crash leaves the old file.
pub fn write_settings(path: &Path, provider: &ProviderSettings<'_>, admin: Option<&str>) -> Result<()> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut doc: toml_edit::DocumentMut =
        text.parse().with_context(|| format!("{} is not valid TOML", path.display()))?;
    let table = |doc: &mut toml_edit::DocumentMut, name: &str| -> Result<()> {
        if !doc.contains_key(name) {
            doc[name] = toml_edit::table();
        }
        doc[name].as_table_mut().map(|_| ()).with_context(|| format!("[{name}] in {} is not a table", path.display()))
    };
    table(&mut doc, "provider")?;
    let section = &mut doc["provider"];
    section["base_url"] = toml_edit::value(provider.base_url);
    section["client_id"] = toml_edit::value(provider.client_id);
    section["client_secret"] = toml_edit::value(provider.client_secret);
    if let Some(t) = section.as_table_mut() {
        t.remove("client_secret_file");
    }
    if let Some(user) = admin.map(str::trim).filter(|u| !u.is_empty()) {
        table(&mut doc, "admin")?;
        let admin = &mut doc["admin"];
        if admin.get("users").is_none() {
            admin["users"] = toml_edit::value(toml_edit::Array::new());
        }
        let users = admin["users"].as_array_mut().context("[admin] users in the settings file is not a list")?;
        if !users.iter().any(|u| u.as_str().is_some_and(|u| u.eq_ignore_ascii_case(user))) {
            users.push(user);
        }
    }
    let out = doc.to_string();

    let tmp = path.with_extension("toml.setup-new");
    let _ = std::fs::remove_file(&tmp);
    let written = write_new(&tmp, out.as_bytes())
        .and_then(|()| std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display())));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// A new owner-only file with `data`, on disk before it is renamed over the old one.
fn write_new(path: &Path, data: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut f = esm_base::files::create_private(path)?;
    f.write_all(data).with_context(|| format!("cannot write {}", path.display()))?;
    f.sync_all().with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_twelve_unambiguous_characters_and_match_however_typed() {
        let fr = FirstRun::new(PathBuf::from("x.toml"), Default::default());
        let code = fr.code().to_string();
        assert_eq!(code.len(), 14);
        assert!(code.chars().all(|c| c == '-' || (c.is_ascii_alphanumeric() && !"01IO".contains(c))), "{code}");
        assert!(fr.code_matches(&code));
        assert!(fr.code_matches(&code.replace('-', " ").to_lowercase()));
        assert!(!fr.code_matches(&code[..13]));
        assert!(!fr.code_matches(""));
        assert_ne!(new_code(), new_code());
    }

    #[test]
    fn a_pending_setup_is_taken_once_and_only_with_its_state_and_browser() {
        let fr = FirstRun::new(PathBuf::from("x.toml"), Default::default());
        let p = FirstRun::new_pending("id".into(), Secret::new("s"), "https://e".into(), "https://h/callback".into());
        let (state, nonce) = (p.state.clone(), p.nonce.clone());
        assert!(state.starts_with(STATE_PREFIX));
        fr.begin(p);
        assert!(fr.take(&state, Some("other browser")).is_none());
        assert!(fr.take(&state, None).is_none());
        assert!(fr.take("setup.other", Some(&nonce)).is_none());
        assert_eq!(fr.take(&state, Some(&nonce)).map(|p| p.client_id).as_deref(), Some("id"));
        assert!(fr.take(&state, Some(&nonce)).is_none(), "used once");
    }

    #[test]
    fn the_provider_settings_are_written_keeping_the_rest_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "# the admin's note\nlisten = \"0.0.0.0:8080\"\n\n[provider]\n# host of the country\nbase_url = \"https://start.exactonline.nl\"\nclient_id = \"\"\nclient_secret = \"\"\nclient_secret_file = \"/nowhere\"\ntimeout_seconds = 30\n\n[sync]\ninterval_minutes = 5\n",
        )
        .unwrap();
        let provider = ProviderSettings {
            client_id: "9f1c-id",
            client_secret: "se\"cret",
            base_url: "https://start.exactonline.be",
        };
        write_settings(&path, &provider, None).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("# the admin's note") && text.contains("# host of the country"), "{text}");
        let c = Config::from_toml_str(&text).unwrap();
        assert_eq!(c.listen, "0.0.0.0:8080");
        assert_eq!(c.provider.client_id, "9f1c-id");
        assert_eq!(c.provider.client_secret.expose(), "se\"cret");
        assert_eq!(c.provider.base_url, "https://start.exactonline.be");
        assert_eq!(c.provider.timeout_seconds, 30);
        assert!(c.provider.client_secret_file.is_none());
        assert_eq!(c.sync.interval_minutes, 5);
        assert!(!needed(&c));
        assert!(!dir.path().join("config.toml.setup-new").exists());
    }

    #[test]
    fn a_missing_settings_file_is_made_owner_only_with_the_admin() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.toml");
        write_settings(&path, &NL, Some("anna@demometaal.nl")).unwrap();
        let c = Config::from_toml_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(c.provider.client_id, "id");
        assert_eq!(c.admin.users, ["anna@demometaal.nl"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
    }

    const NL: ProviderSettings<'static> =
        ProviderSettings { client_id: "id", client_secret: "secret", base_url: "https://start.exactonline.nl" };

    #[test]
    fn the_setup_user_is_added_to_the_administrators_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.toml");
        std::fs::write(&path, "[admin]\nusers = [\"piet@demometaal.nl\"]\n").unwrap();
        write_settings(&path, &NL, Some("Anna@demometaal.nl")).unwrap();
        write_settings(&path, &NL, Some("anna@DEMOMETAAL.nl")).unwrap();
        write_settings(&path, &NL, Some("  ")).unwrap();
        let c = Config::from_toml_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(c.admin.users, ["piet@demometaal.nl", "Anna@demometaal.nl"]);
    }

    #[test]
    fn a_config_file_that_is_not_toml_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "this is [not toml").unwrap();
        let err = write_settings(&path, &NL, None).unwrap_err();
        assert!(format!("{err:#}").contains("not valid TOML"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "this is [not toml");
    }
}
