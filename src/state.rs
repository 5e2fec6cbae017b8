//! The shared state of every handler (databases, provider client, services) and the
//! background schedule's view of the organizations it syncs.

use crate::auth::licence::Verifier;
use crate::auth::session::Sessions;
use crate::auth::tier::Auth;
use crate::auth::{accounts, orgs};
use crate::config::Config;
use crate::exact::catalogue;
use crate::exact::oauth::OAuthClient;
use crate::exact::tokens::TokenManager;
use crate::exact::{ExactClient, Waits};
use crate::ip_range::IpRange;
use crate::labels::Templates;
use crate::outbox::OutboxService;
use crate::pictures::{PictureService, PictureWaits};
use crate::printing::{PrintOptions, PrintService, PrinterRegistry};
use crate::serverdb::{ACCEPTED_PRINTERS, AcceptedPrinter, ServerDb};
use crate::store::Stores;
use crate::sync::engine::OrgToken;
use crate::sync::schedule::OrgResolver;
use crate::sync::{self, SyncEngine, SyncSink};
use actix_web::web;
use anyhow::{Context, Result};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a data directory write probe's result stands.
pub const WRITE_PROBE_EVERY: Duration = Duration::from_secs(30);

/// Shared state of every handler.
pub struct AppState {
    pub config: Arc<Config>,
    pub started: Instant,
    /// `server.redb`: tokens, sessions, organizations, licences.
    pub serverdb: Arc<ServerDb>,
    /// The provider client, with the per-division rate limiters shared by all users and jobs.
    pub exact: ExactClient,
    pub tokens: Arc<TokenManager>,
    pub sync: Arc<SyncEngine>,
    /// One store per organization.
    pub stores: Arc<Stores>,
    /// Sessions, licence checking and attempt throttling.
    pub auth: Arc<Auth>,
    /// Label templates: built-in, with the data directory's overrides.
    pub templates: Arc<Templates>,
    /// The print queue and its worker; started by [`crate::server::start`] (commands that only read leave it off).
    pub printing: Option<PrintService>,
    /// Write-back to the provider, one durable outbox per organization.
    pub outbox: Arc<OutboxService>,
    /// Item pictures, one file per organization, fetched after items syncs.
    pub pictures: Arc<PictureService>,
    /// Reverse proxies whose forwarded headers count (`api::client` reads them).
    pub proxies: crate::ip_range::TrustedProxies,
    /// The last data directory write probe and when it ran (health checks reuse it a while).
    write_probe: parking_lot::Mutex<Option<(Instant, bool)>>,
    /// The token of `{data_dir}/control.json` that local admin commands (backup) present; set by
    /// [`crate::server::start`].
    pub control_token: Option<String>,
    /// The first-run setup, while no provider client id and secret are configured.
    pub first_run: Option<Arc<crate::setup::FirstRun>>,
    /// Notified when the server should stop and start again with its config read anew (after
    /// the first-run setup wrote it).
    pub restart: Arc<tokio::sync::Notify>,
    /// Turns true when the server begins to stop: open event streams end at once instead of
    /// holding the shutdown for its whole grace period.
    pub stopping: Arc<tokio::sync::watch::Sender<bool>>,
    /// Live and direct reads in progress per user (`read_slots`).
    pub live_reads: Arc<crate::read_slots::ReadSlots>,
}

impl AppState {
    /// What this server holds open in its data directory, for a backup to copy through.
    pub fn open_files(&self) -> crate::backup::OpenFiles {
        crate::backup::OpenFiles {
            data_dir: self.config.data_dir.clone(),
            serverdb: self.serverdb.clone(),
            printing: self.printing.clone(),
            stores: self.stores.clone(),
            outbox: self.outbox.clone(),
            pictures: self.pictures.clone(),
        }
    }

    /// What live and direct reads of Exact Online work with.
    pub fn live(&self) -> crate::live::Live {
        crate::live::Live {
            exact: self.exact.clone(),
            stores: self.stores.clone(),
            tokens: self.tokens.clone(),
            serverdb: self.serverdb.clone(),
            reads: self.live_reads.clone(),
        }
    }

    /// What a user's leaving touches: their sessions, accounts, tokens and queued writes.
    pub fn sign_out(&self) -> crate::sign_out::SignOut {
        crate::sign_out::SignOut {
            auth: self.auth.clone(),
            serverdb: self.serverdb.clone(),
            tokens: self.tokens.clone(),
            outbox: self.outbox.clone(),
        }
    }

    /// The provider sign-in that serves the organization's own calls (`organization::org_token`).
    pub fn org_token(&self, division: i64) -> crate::error::AppResult<OrgToken> {
        crate::organization::org_token(&self.serverdb, &self.stores, &self.tokens, division)
    }

    /// The print service, which the server always starts (a state built for a command may not).
    pub fn print_service(&self) -> crate::error::AppResult<&PrintService> {
        self.printing.as_ref().ok_or_else(|| crate::error::AppError::new(crate::error::Code::Unavailable))
    }

    /// Opens the server database and builds the provider client from the configuration.
    pub fn open(config: Arc<Config>, waits: Waits, demo: bool) -> Result<Self> {
        let serverdb = Arc::new(ServerDb::open(&config.data_dir)?);
        let http = ExactClient::http_client(Duration::from_secs(config.provider.timeout_seconds))?;
        let exact = ExactClient::new(http.clone(), &config.provider.base_url, waits.clone());
        let oauth = OAuthClient::new(
            http,
            &config.provider.base_url,
            &config.provider.client_id,
            config.provider.client_secret.clone(),
        )
        .reporting_to(exact.reachability())
        .with_clock(waits.clock.clone());
        let tokens = Arc::new(TokenManager::new(serverdb.clone(), oauth));
        let sync = Arc::new(SyncEngine::new(exact.clone()));
        let stores = Arc::new(
            Stores::new(&config.data_dir, catalogue::table_specs()).with_cache_bytes(config.store.cache_bytes()),
        );
        let verifier = Verifier::new(config.licence.public_key.as_deref(), demo);
        if let Err(e) = &verifier {
            tracing::warn!("licence codes cannot be checked: {e}");
        }
        let secure = config.tls.enabled || config.public_url.as_deref().is_some_and(|u| u.starts_with("https://"));
        let auth = Arc::new(Auth::new(Sessions::new(serverdb.clone()), verifier, secure));
        let templates = Arc::new(Templates::load(&config.data_dir).context("label templates")?);
        let outbox = OutboxService::new(
            config.data_dir.clone(),
            exact.clone(),
            tokens.clone(),
            serverdb.clone(),
            sync.clone(),
            stores.clone(),
        );
        let pictures = PictureService::new(
            config.data_dir.clone(),
            exact.clone(),
            tokens.clone(),
            serverdb.clone(),
            stores.clone(),
            PictureWaits::from_exact(&waits),
        );
        let admin_password = config.admin.password.expose();
        if !admin_password.is_empty() && !crate::password::is_hash(admin_password) {
            tracing::warn!(
                "[admin] password is stored as plain text: store its hash instead (stock-manager hash-password)"
            );
        }
        let proxies = crate::ip_range::TrustedProxies::from_config(&config.server.trusted_proxies);
        let restart = Arc::new(tokio::sync::Notify::new());
        let first_run = crate::setup::needed(&config)
            .then(|| Arc::new(crate::setup::FirstRun::new(config.settings_file(), restart.clone())));
        Ok(AppState {
            config,
            started: Instant::now(),
            serverdb,
            exact,
            tokens,
            sync,
            stores,
            auth,
            templates,
            printing: None,
            outbox,
            pictures,
            proxies,
            write_probe: parking_lot::Mutex::new(None),
            control_token: None,
            first_run,
            restart,
            stopping: Arc::new(tokio::sync::watch::Sender::new(false)),
            live_reads: Arc::default(),
        })
    }

    /// Starts the print queue's worker over the configured printers (needs a tokio runtime).
    pub fn start_printing(&mut self) -> Result<&PrintService> {
        let subnets = self.config.mdns.printer_subnets.iter().filter_map(|s| IpRange::parse(s).ok()).collect();
        let accepted = self
            .serverdb
            .all_json::<AcceptedPrinter>(ACCEPTED_PRINTERS)
            .context("cannot read the accepted printers")?
            .into_iter()
            .map(|(name, p)| (name, p.uri))
            .collect();
        let registry = PrinterRegistry::from_config(&self.config.printers).with_acceptance(subnets, accepted);
        let service =
            PrintService::start(&self.config.data_dir, registry, self.templates.clone(), PrintOptions::default())
                .context("cannot open the print queue")?;
        Ok(self.printing.insert(service))
    }

    /// Whether the data directory accepts writes (the store lives there). Probed by writing a
    /// file at most once per [`WRITE_PROBE_EVERY`], so health checks in a loop write nothing.
    pub fn data_dir_writable(&self) -> bool {
        let mut last = self.write_probe.lock();
        if let Some((at, ok)) = *last
            && at.elapsed() < WRITE_PROBE_EVERY
        {
            return ok;
        }
        let probe = self.config.data_dir.join(".write-probe");
        let ok = std::fs::write(&probe, b"ok").is_ok();
        let _ = std::fs::remove_file(&probe);
        *last = Some((Instant::now(), ok));
        ok
    }
}

/// The background schedule's view of the server: every activated organization with an account.
pub(crate) struct ScheduledOrgs(pub(crate) web::Data<AppState>);

impl OrgResolver for ScheduledOrgs {
    fn divisions(&self) -> Vec<i64> {
        let known = self.0.serverdb.org_divisions().unwrap_or_else(|e| {
            tracing::error!(error = %format!("{e:#}"), "scheduled sync: cannot list organizations");
            Vec::new()
        });
        let today = crate::auth::tier::today();
        known.into_iter().filter(|&d| orgs::is_active(&self.0.serverdb, d, today).unwrap_or(false)).collect()
    }

    fn resolve(&self, division: i64) -> Option<(OrgToken, Arc<dyn SyncSink>)> {
        let state = &self.0;
        let Some(token) = accounts::org_token(&state.serverdb, &state.stores, &state.tokens, division) else {
            tracing::warn!(division, "scheduled sync skipped: no account has a usable Exact Online sign-in");
            return None;
        };
        let store = match self.0.stores.get(division) {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(division, error = %e, "scheduled sync: cannot open the store");
                return None;
            }
        };
        Some((token, store as Arc<dyn SyncSink>))
    }

    fn interval(&self, division: i64) -> Option<Duration> {
        let details = self.0.stores.get(division).ok()?.org_details().ok()??;
        sync::schedule::interval_preference(&details.preferences)
    }
}
