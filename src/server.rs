//! Builds the actix application: middleware, the route table (which is also the security table),
//! TLS, mDNS and graceful shutdown.

use crate::auth::licence::Verifier;
use crate::auth::session::Sessions;
use crate::auth::tier::Auth;
use crate::auth::{accounts, orgs};
use crate::config::Config;
use crate::discovery::Discovery;
use crate::error::{self, AppError, Code};
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
use crate::{api, telemetry, tls, ui_assets};
use actix_web::body::{BoxBody, EitherBody};
use actix_web::dev::{ServerHandle, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::middleware::{self, ErrorHandlerResponse, ErrorHandlers};
use actix_web::{App, HttpServer, ResponseError, web};
use anyhow::{Context, Result};
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long in-flight requests may take to finish after a shutdown signal.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// How often due provider tokens are looked for (a token is due in its last 30 s).
const TOKEN_RENEWAL_TICK: Duration = Duration::from_secs(10);
/// How long a renewal that could not reach Exact waits before it is tried again.
const TOKEN_RENEWAL_RETRY: Duration = Duration::from_secs(60);
/// How long a stop waits for aborted background tasks to drop their database handles.
const RELEASE_WAIT: Duration = Duration::from_secs(5);
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
    /// The print queue and its worker; started by [`start`] (commands that only read leave it off).
    pub printing: Option<PrintService>,
    /// Write-back to the provider, one durable outbox per organization.
    pub outbox: Arc<OutboxService>,
    /// Item pictures, one file per organization, fetched after items syncs.
    pub pictures: Arc<PictureService>,
    /// Reverse proxies whose forwarded headers count (see `api::client`).
    pub proxies: api::client::TrustedProxies,
    /// The last data directory write probe and when it ran (health checks reuse it a while).
    write_probe: parking_lot::Mutex<Option<(Instant, bool)>>,
    /// The token of `{data_dir}/control.json` that local admin commands (backup) present; set by
    /// [`start`].
    pub control_token: Option<String>,
    /// The first-run setup, while no provider client id and secret are configured.
    pub first_run: Option<Arc<crate::setup::FirstRun>>,
    /// Notified when the server should stop and start again with its config read anew (after
    /// the first-run setup wrote it).
    pub restart: Arc<tokio::sync::Notify>,
}

impl AppState {
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
        .reporting_to(exact.reachability());
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
        if !admin_password.is_empty() && !crate::auth::password::is_hash(admin_password) {
            tracing::warn!(
                "[admin] password is stored as plain text: store its hash instead (stock-manager hash-password)"
            );
        }
        let proxies = api::client::TrustedProxies::from_config(&config.server.trusted_proxies);
        let restart = Arc::new(tokio::sync::Notify::new());
        let first_run = crate::setup::needed(&config).then(|| {
            let file = config.file.clone().unwrap_or_else(|| crate::config::DEFAULT_CONFIG_FILE.into());
            Arc::new(crate::setup::FirstRun::new(file, restart.clone()))
        });
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

/// The whole route table. Tiers: public, signed in, full access (spec §2); every API resource
/// states its tier where it is added (see `api::router`).
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/api")
            .wrap(ErrorHandlers::new().default_handler(json_error_body))
            // State-changing calls only as JSON (or a documented upload) from this server's origin.
            .wrap(middleware::from_fn(api::csrf::check))
            // API answers are data, never a page to render or frame.
            .wrap(
                middleware::DefaultHeaders::new().add((
                    actix_web::http::header::CONTENT_SECURITY_POLICY,
                    "default-src 'none'; frame-ancestors 'none'",
                )),
            )
            .service(
                web::scope("/v1")
                    // Each resource is added with its tier in its module (`api::register`).
                    .configure(|cfg| api::register(&mut api::router::Router::mounting(cfg)))
                    .default_service(web::to(api::not_found)),
            )
            .default_service(web::to(api::not_found)),
    )
    .default_service(web::to(ui_assets::serve));
}

/// Headers of every answer, UI and API (the UI's pages add their Content-Security-Policy).
fn security_headers(tls: bool) -> middleware::DefaultHeaders {
    use actix_web::http::header;
    let headers = middleware::DefaultHeaders::new()
        .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .add((header::REFERRER_POLICY, "same-origin"));
    if tls { headers.add((header::STRICT_TRANSPORT_SECURITY, "max-age=31536000")) } else { headers }
}

/// Turns actix's own empty error responses under `/api` (405, extractor failures) into the
/// catalogue's JSON shape; responses that already carry a body pass through.
fn json_error_body<B>(res: ServiceResponse<B>) -> actix_web::Result<ErrorHandlerResponse<B>> {
    let is_json = res
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json || !(res.status().is_client_error() || res.status().is_server_error()) {
        return Ok(ErrorHandlerResponse::Response(res.map_into_left_body()));
    }
    let code = match res.status() {
        StatusCode::METHOD_NOT_ALLOWED => Code::MethodNotAllowed,
        StatusCode::NOT_FOUND => Code::NotFound,
        StatusCode::PAYLOAD_TOO_LARGE => Code::PayloadTooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => Code::UnsupportedMediaType,
        s if s.is_client_error() => Code::BadRequest,
        _ => Code::Unknown,
    };
    let (req, old) = res.into_parts();
    let mut new = AppError::new(code).error_response();
    // Keep the status actix chose (e.g. 415) while giving it the catalogue body.
    *new.status_mut() = old.status();
    if let Some(allow) = old.headers().get(actix_web::http::header::ALLOW) {
        new.headers_mut().insert(actix_web::http::header::ALLOW, allow.clone());
    }
    let res = ServiceResponse::new(req, new.map_body(|_, b| EitherBody::<B, BoxBody>::right(b)));
    Ok(ErrorHandlerResponse::Response(res))
}

/// A server that is running; stop it with [`RunningServer::stop`] or wait for a signal.
pub struct RunningServer {
    pub addr: SocketAddr,
    pub url: String,
    state: web::Data<AppState>,
    handle: ServerHandle,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
    discovery: Option<Discovery>,
    schedule: Option<tokio::task::JoinHandle<()>>,
    /// Renews due provider tokens in the background.
    renewals: Option<tokio::task::JoinHandle<()>>,
    /// The daily backup, when configured.
    backups: Option<tokio::task::JoinHandle<()>>,
}

/// How a served run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// A signal or a failure: the process ends.
    Stopped,
    /// The config was written (first-run setup): read it again and start again.
    Restart,
}

/// The background schedule's view of the server: every activated organization with an account.
struct ScheduledOrgs(web::Data<AppState>);

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

/// Options that tests and the `demo` command change; `serve` uses the defaults.
#[derive(Clone, Default)]
pub struct StartOptions {
    /// Let actix install SIGTERM/SIGINT handlers (the real process; not in-process tests).
    pub handle_signals: bool,
    /// Extra routes mounted before the fallback (tests mount probes such as a slow handler).
    pub extra_routes: Option<fn(&mut web::ServiceConfig)>,
    /// The spec's waits; tests shorten them.
    pub waits: Waits,
    /// `stock-manager demo`: licence codes signed with the demo key are accepted.
    pub demo: bool,
}

/// Binds, prepares the data directory, starts serving and announces the server.
pub async fn start(config: Config, options: StartOptions) -> Result<RunningServer> {
    let config = Arc::new(config);
    prepare_data_dir(&config.data_dir)?;
    let addr = config.listen_addr()?;
    let listener = TcpListener::bind(addr).with_context(|| format!("cannot listen on {addr}"))?;
    let bound = listener.local_addr()?;
    let mut state = AppState::open(config.clone(), options.waits.clone(), options.demo)?;
    let printing = state.start_printing()?.clone();
    // Written only once the databases are ours: a backup command that finds it finds this server.
    state.control_token = Some(
        crate::backup::control::publish(&config.data_dir, bound, config.tls.enabled)
            .context("cannot write the control file to the data directory")?,
    );
    let state = web::Data::new(state);

    let extra = options.extra_routes;
    let tls = config.tls.enabled;
    let factory = {
        let state = state.clone();
        move || {
            let app = App::new();
            let app = match extra {
                Some(f) => app.configure(f),
                None => app,
            };
            app.app_data(state.clone())
                .app_data(error::json_config(crate::limits::JSON_BODY_MAX_FULL))
                .app_data(error::query_config())
                .app_data(error::path_config())
                .wrap(security_headers(tls))
                .wrap(middleware::Compress::default())
                .wrap(middleware::from_fn(telemetry::log_requests))
                .configure(routes)
        }
    };
    let mut server = HttpServer::new(factory).shutdown_timeout(SHUTDOWN_GRACE.as_secs());
    if !options.handle_signals {
        server = server.disable_signals();
    }
    let server = if config.tls.enabled {
        let tls_config = tls::server_config(&config.tls, &config.data_dir)?;
        server.listen_rustls_0_23(listener, tls_config)?
    } else {
        server.listen(listener)?
    };
    let server = server.run();
    let handle = server.handle();
    let task = tokio::spawn(server);

    let discovery = if config.mdns.enabled {
        match Discovery::announce(&config.mdns, bound.port(), config.tls.enabled) {
            Ok(d) => Some(d),
            Err(e) => {
                // The LAN announcement is a convenience: the server works without it.
                tracing::warn!(error = %format!("{e:#}"), "mDNS announcement failed; continuing without it");
                None
            }
        }
    } else {
        None
    };
    if let Some(d) = &discovery
        && let Err(e) = printing.registry().browse(d.daemon())
    {
        tracing::warn!(error = %format!("{e:#}"), "browsing for IPP printers failed; configured printers still work");
    }
    // Writes left from before a stop or a crash go on now.
    state.outbox.resume();
    state.pictures.follow(state.sync.subscribe());
    let renewals = Some(state.tokens.spawn_renewals(TOKEN_RENEWAL_TICK, TOKEN_RENEWAL_RETRY));
    let schedule = Some(sync::schedule::spawn(
        state.sync.clone(),
        Arc::new(ScheduledOrgs(state.clone())),
        Duration::from_secs(config.sync.interval_minutes * 60),
        config.sync.on_startup,
    ));
    let backups = crate::backup::schedule::spawn(state.clone());
    let url = config.effective_public_url(bound);
    tracing::info!(%url, listen = %bound, tls = config.tls.enabled, "Stock Manager is serving");
    if let Some(first_run) = &state.first_run {
        // The one secret that is logged on purpose: whoever can read the log or the console may
        // set the server up; it is good for this start only.
        tracing::warn!(
            setup_code = first_run.code(),
            config_file = %first_run.config_file.display(),
            "Stock Manager is not set up: no Exact Online client id and secret. Open {url} and enter the setup code"
        );
    }
    Ok(RunningServer { addr: bound, url, state, handle, task, discovery, schedule, renewals, backups })
}

fn prepare_data_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create the data directory {}", dir.display()))?;
    // Staging areas and files of backups cut off by a crash.
    for entry in std::fs::read_dir(dir)?.flatten() {
        if entry.file_name().to_string_lossy().starts_with(".backup-") {
            let path = entry.path();
            let _ = if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
        }
    }
    Ok(())
}

impl RunningServer {
    /// The server's shared state (for the CLI and in-process tests).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Waits until the server ends (a signal when `handle_signals`), then withdraws mDNS.
    pub async fn wait(mut self) -> Result<()> {
        let result = (&mut self.task).await;
        self.release().await;
        result.context("server task panicked")?.context("server failed")
    }

    /// The first-run setup code while the server waits to be set up (the console shows it).
    pub fn setup_code(&self) -> Option<&str> {
        self.state.first_run.as_ref().map(|f| f.code())
    }

    /// Waits until the server ends (as [`Self::wait`]) or its config changed and it should be
    /// started again: then it stops (gracefully) and answers [`Ended::Restart`].
    pub async fn wait_or_restart(mut self) -> Result<Ended> {
        let restart = self.state.restart.clone();
        let ended = tokio::select! {
            result = &mut self.task => Some(result),
            () = restart.notified() => None,
        };
        match ended {
            Some(result) => {
                self.release().await;
                result.context("server task panicked")?.context("server failed")?;
                Ok(Ended::Stopped)
            }
            None => {
                tracing::info!("restarting with the new configuration");
                self.stop(true).await?;
                Ok(Ended::Restart)
            }
        }
    }

    /// Stops accepting, lets in-flight requests finish (bounded by [`SHUTDOWN_GRACE`]), withdraws
    /// mDNS and stops the print worker (queued jobs stay for the next start).
    pub async fn stop(mut self, graceful: bool) -> Result<()> {
        self.handle.stop(graceful).await;
        let result = (&mut self.task).await;
        self.release().await;
        result.context("server task panicked")?.context("server failed")
    }

    /// Withdraws mDNS, stops the workers and waits (bounded) until the aborted tasks have let go
    /// of the databases, so the same data directory can be opened again right after a stop.
    async fn release(mut self) {
        self.withdraw();
        if let Some(p) = &self.state.printing {
            p.shutdown().await;
        }
        let serverdb = Arc::downgrade(&self.state.serverdb);
        let stores = Arc::downgrade(&self.state.stores);
        drop(self);
        let deadline = Instant::now() + RELEASE_WAIT;
        while serverdb.strong_count() + stores.strong_count() > 0 {
            if Instant::now() >= deadline {
                tracing::warn!("background tasks still hold the databases after the stop");
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn withdraw(&mut self) {
        if let Some(r) = self.renewals.take() {
            r.abort();
        }
        if let Some(s) = self.schedule.take() {
            s.abort();
        }
        if let Some(b) = self.backups.take() {
            b.abort();
        }
        if let Some(token) = &self.state.control_token {
            crate::backup::control::withdraw(&self.state.config.data_dir, token);
        }
        self.state.outbox.stop();
        self.state.pictures.stop();
        if let Some(d) = self.discovery.take() {
            d.withdraw();
        }
    }

    /// Runs one pass of the background schedule now (what the timer does every interval).
    pub async fn run_scheduled_sync(&self) {
        sync::schedule::run_once(&self.state.sync, &ScheduledOrgs(self.state.clone())).await;
    }
}
