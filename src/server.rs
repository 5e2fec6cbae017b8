//! Builds the actix application: middleware, the route table (which is also the security table),
//! TLS, mDNS and graceful shutdown.

use crate::config::Config;
use crate::discovery::Discovery;
use crate::error::{AppError, Catalogued, Code, Language};
use crate::exact::Waits;
use crate::state::{AppState, ScheduledOrgs};
use crate::sync;
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

/// How long in-flight requests may take to finish after a shutdown signal. Writes are durable
/// once accepted and event streams end at once, so a stop (a service manager's SIGTERM) takes
/// seconds, not the systemd timeout.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);
/// How often due provider tokens are looked for (a token is due in its last 30 s).
const TOKEN_RENEWAL_TICK: Duration = Duration::from_secs(10);
/// How long a renewal that could not reach Exact waits before it is tried again.
const TOKEN_RENEWAL_RETRY: Duration = Duration::from_secs(60);
/// How long a stop waits for aborted background tasks to drop their database handles.
const RELEASE_WAIT: Duration = Duration::from_secs(5);

/// The whole route table. Tiers: public, signed in, full access (spec §2); every API resource
/// states its tier where it is added (see `api::router`).
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/api")
            .wrap(ErrorHandlers::new().default_handler(json_error_body))
            // State-changing calls only as JSON (or a documented upload) from this server's origin.
            .wrap(middleware::from_fn(api::csrf::check))
            // API answers are data, never a page to render or frame; nor kept by a browser or a
            // proxy, so one user's answers never reach the next user of a shared handheld (a route
            // that caches on purpose, with an ETag, says so itself).
            .wrap(
                middleware::DefaultHeaders::new()
                    .add((
                        actix_web::http::header::CONTENT_SECURITY_POLICY,
                        "default-src 'none'; frame-ancestors 'none'",
                    ))
                    .add((actix_web::http::header::CACHE_CONTROL, "no-store")),
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
    if is_json {
        return Ok(ErrorHandlerResponse::Response(in_callers_language(res)));
    }
    if !(res.status().is_client_error() || res.status().is_server_error()) {
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
    /// Ends the sessions of users Exact refuses (`auth::refusal`).
    refusals: Option<tokio::task::JoinHandle<()>>,
    /// The daily backup, when configured.
    backups: Option<tokio::task::JoinHandle<()>>,
    /// Makes the Materials projection after syncs (`materials::warm`).
    warming: Option<tokio::task::JoinHandle<()>>,
    /// Waits for SIGTERM/SIGINT (`handle_signals`); ended with the server, so a restart's old
    /// server does not answer the next signal.
    signals: Option<tokio::task::JoinHandle<()>>,
}

/// How a served run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// A signal or a failure: the process ends.
    Stopped,
    /// The config was written (first-run setup): read it again and start again.
    Restart,
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
    // computed from the local copy and kept between requests; beside the state, not in it
    let shortages = web::Data::new(crate::materials::Shortages::default());
    let needs = web::Data::new(crate::planning::Needs::default());

    let extra = options.extra_routes;
    let tls = config.tls.enabled;
    let factory = {
        let (state, shortages, needs) = (state.clone(), shortages.clone(), needs.clone());
        move || {
            let app = App::new();
            let app = match extra {
                Some(f) => app.configure(f),
                None => app,
            };
            app.app_data(state.clone())
                .app_data(shortages.clone())
                .app_data(needs.clone())
                .app_data(crate::api::extractors::json_config(crate::limits::JSON_BODY_MAX_FULL))
                .app_data(crate::api::extractors::query_config())
                .app_data(crate::api::extractors::path_config())
                .wrap(security_headers(tls))
                .wrap(middleware::Compress::default())
                .wrap(middleware::from_fn(crate::api::slow_bodies::pace))
                .wrap(middleware::from_fn(telemetry::log_requests))
                .configure(routes)
        }
    };
    // Signals are ours (below), so that event streams end before the graceful wait begins.
    let workers = std::thread::available_parallelism().map_or(2, usize::from);
    let server = HttpServer::new(factory)
        .workers(workers)
        .on_connect(crate::api::peer_gone::record)
        // actix counts per worker; past the limit, new connections wait in the listen backlog
        .max_connections(connection_limit().div_ceil(workers).max(1))
        .shutdown_timeout(SHUTDOWN_GRACE.as_secs())
        .disable_signals();
    let server = if config.tls.enabled {
        let tls_config = tls::server_config(&config.tls, &config.data_dir)?;
        server.listen_rustls_0_23(listener, tls_config)?
    } else {
        server.listen(listener)?
    };
    let server = server.run();
    let handle = server.handle();
    let task = tokio::spawn(server);
    // Holds the stop flag, not the state: a restart must find the databases let go.
    let signals = options.handle_signals.then(|| tokio::spawn(stop_on_signal(state.stopping.clone(), handle.clone())));

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
    let sync = state.sync.clone();
    state.pictures.follow(state.sync.subscribe(), move |division| sync.is_running(division));
    let (sync, outbox) = (state.sync.clone(), state.outbox.clone());
    let warming = Some(crate::materials::warm::follow(
        state.sync.subscribe(),
        crate::materials::warm::Follow {
            shortages: shortages.clone().into_inner(),
            stores: state.stores.clone(),
            syncing: Box::new(move |division| sync.is_running(division)),
            queued: Box::new(move |division| {
                outbox.open_entries(division).map(|open| crate::issued::queued(&open)).unwrap_or_default()
            }),
        },
    ));
    let renewals = Some(state.tokens.spawn_renewals(TOKEN_RENEWAL_TICK, TOKEN_RENEWAL_RETRY));
    let refusals = Some(state.sign_out().watch());
    let schedule = Some(sync::schedule::spawn(
        state.sync.clone(),
        Arc::new(ScheduledOrgs(state.clone())),
        Duration::from_secs(config.sync.interval_minutes * 60),
        config.sync.on_startup,
    ));
    let backups = crate::backup::schedule::spawn(state.open_files(), &config.backup);
    let url = config.effective_public_url(bound);
    tracing::info!(%url, listen = %bound, tls = config.tls.enabled, "Stock Manager is serving");
    if let Some(first_run) = &state.first_run {
        // Not the code itself: logs travel further (collectors, support tickets) than the console,
        // where the command line prints it once.
        tracing::warn!(
            settings_file = %first_run.settings_file.display(),
            "Stock Manager is not set up: no Exact Online client id and secret. Open {url} and enter the setup code from the console"
        );
    }
    Ok(RunningServer {
        addr: bound,
        url,
        state,
        handle,
        task,
        discovery,
        schedule,
        renewals,
        refusals,
        backups,
        warming,
        signals,
    })
}

/// SIGTERM (a service manager) or SIGINT (Ctrl-C): event streams end, then the server stops
/// gracefully; the waiting `wait` then releases the rest.
async fn stop_on_signal(stopping: Arc<tokio::sync::watch::Sender<bool>>, handle: ServerHandle) {
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM; Ctrl-C still stops the server");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = terminate => tracing::info!("SIGTERM: stopping"),
        r = tokio::signal::ctrl_c() => match r {
            Ok(()) => tracing::info!("interrupted: stopping"),
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for Ctrl-C");
                return;
            }
        },
    }
    let started = std::time::Instant::now();
    stopping.send_replace(true);
    handle.stop(true).await;
    tracing::info!(ms = started.elapsed().as_millis() as u64, "HTTP server stopped");
}

/// An error answer with a catalogue's message (its code's, or a catalogue text), said again in the
/// caller's language (`Accept-Language`, which the UI sets to its own); any other precise message
/// stays as it is.
fn in_callers_language<B>(res: ServiceResponse<B>) -> ServiceResponse<EitherBody<B, BoxBody>> {
    let catalogued = res.response().extensions().get::<Catalogued>().cloned();
    let language = crate::api::language_of(res.request());
    match catalogued {
        Some(catalogued) if language != Language::En => {
            let (req, old) = res.into_parts();
            let new = old.set_body(BoxBody::new(catalogued.body_in(language)));
            ServiceResponse::new(req, new.map_body(|_, b| EitherBody::<B, BoxBody>::right(b)))
        }
        _ => res.map_into_left_body(),
    }
}

/// How many connections the server holds at once: `limits::MAX_CONNECTIONS`, or a third of the
/// descriptors this process may open where that is fewer (each connection holds two: its socket
/// and the duplicate `api::peer_gone` watches) (after raising the soft limit to the
/// hard one, as far as the system allows), so connections can never use up the descriptors the
/// databases, printers and Exact's calls need.
pub fn connection_limit() -> usize {
    let may_open = open_files_limit();
    crate::limits::MAX_CONNECTIONS.min(may_open.map_or(usize::MAX, |n| n / 3)).max(64)
}

#[cfg(unix)]
fn open_files_limit() -> Option<usize> {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    // A shell's soft limit (often 1024) is below what the system grants this user: take it.
    if limit.current < limit.maximum {
        let raised = rustix::process::Rlimit { current: limit.maximum, maximum: limit.maximum };
        if setrlimit(Resource::Nofile, raised).is_ok() {
            limit = raised;
        }
    }
    limit.current.map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

#[cfg(not(unix))]
fn open_files_limit() -> Option<usize> {
    None
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
        // The process ends next: nothing will open the databases again, so no wait for them.
        let releasing = Instant::now();
        self.release(false).await;
        tracing::info!(ms = releasing.elapsed().as_millis() as u64, "workers stopped");
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
                self.release(false).await;
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
        self.state.stopping.send_replace(true);
        self.handle.stop(graceful).await;
        let result = (&mut self.task).await;
        self.release(true).await;
        result.context("server task panicked")?.context("server failed")
    }

    /// Withdraws mDNS and stops the workers; with `reopen`, also waits (bounded) until the
    /// aborted tasks have let go of the databases, so the same data directory can be opened again
    /// right after a stop.
    async fn release(mut self, reopen: bool) {
        self.withdraw();
        if let Some(p) = &self.state.printing {
            p.shutdown().await;
        }
        let serverdb = Arc::downgrade(&self.state.serverdb);
        let stores = Arc::downgrade(&self.state.stores);
        drop(self);
        if !reopen {
            return;
        }
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
        if let Some(r) = self.refusals.take() {
            r.abort();
        }
        if let Some(s) = self.schedule.take() {
            s.abort();
        }
        if let Some(b) = self.backups.take() {
            b.abort();
        }
        if let Some(w) = self.warming.take() {
            w.abort();
        }
        if let Some(s) = self.signals.take() {
            s.abort();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_never_take_more_than_half_the_descriptors() {
        let limit = connection_limit();
        assert!(limit <= crate::limits::MAX_CONNECTIONS);
        if let Some(may_open) = open_files_limit() {
            assert!(limit <= (may_open / 2).max(64), "{limit} of {may_open}");
        }
    }
}
