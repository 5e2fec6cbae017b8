//! The Exact Online simulator: a real HTTP server that behaves like the provider's REST API,
//! with deterministic demo data, a simulated clock, rate limits, fault injection and a control
//! endpoint. See `README.md` in this folder for the behaviour and the choices made.

pub mod clock;
pub mod control;
pub mod faults;
pub mod generate;
pub mod oauth;
pub mod odata;
pub mod pictures;
pub mod rate_limit;
pub mod server;
pub mod stock;
pub mod store;
pub mod tracking;
pub mod value;
pub mod writes;

use parking_lot::{Mutex, RwLock};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub use control::SimHandle;
pub use faults::Faults;
pub use generate::Scale;

/// Client id accepted unless configured otherwise.
pub const DEMO_CLIENT_ID: &str = "demo-client";
/// Client secret accepted unless configured otherwise.
pub const DEMO_CLIENT_SECRET: &str = "demo-secret";

/// How to start a simulator.
#[derive(Debug, Clone)]
pub struct SimOptions {
    pub scale: Scale,
    pub seed: u64,
    /// HOST:PORT to bind; port 0 picks a free one.
    pub bind: String,
    pub rate_limits: bool,
    pub client_id: String,
    pub client_secret: String,
    /// Simulated start time (UTC epoch ms); `None` = now. Fix it for byte-identical data.
    pub start_ms: Option<i64>,
    pub faults: Faults,
    /// HTTP worker threads.
    pub workers: usize,
    /// Simulated seconds per real second (1 = real time): tests that must see many minutes of
    /// rate limits and token lifetimes run the clock faster and give the product the same clock.
    pub clock_speed: u32,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            scale: Scale::Small,
            seed: 42,
            bind: "127.0.0.1:0".into(),
            rate_limits: true,
            client_id: DEMO_CLIENT_ID.into(),
            client_secret: DEMO_CLIENT_SECRET.into(),
            start_ms: None,
            faults: Faults::default(),
            workers: 2,
            clock_speed: 1,
        }
    }
}

/// Company (division) as listed by `system/Divisions`.
#[derive(Debug, Clone, Serialize)]
pub struct DivisionInfo {
    pub code: i32,
    pub description: String,
    pub city: String,
}

/// Call and write counters, readable in-process and at `GET /_sim/counters`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Counters {
    /// Accepted writes per "METHOD path" (e.g. `POST manufacturing/MaterialIssues`).
    pub writes: BTreeMap<String, u64>,
    /// Division calls (the ones under the provider's per-division minute limit) per
    /// `"{division}@{minute window start, epoch ms}"`, last hour kept.
    pub calls_per_minute: BTreeMap<String, u64>,
    /// Every API call, `current/Me` included, per minute window start (epoch ms), last hour kept.
    pub all_calls_per_minute: BTreeMap<i64, u64>,
    pub calls: u64,
    pub sent_429: u64,
    /// API calls refused for their token (unknown or expired).
    pub sent_401: u64,
    pub sent_500: u64,
    pub dropped: u64,
    pub token_calls: u64,
    /// Pictures served at `/docs/SysImage.aspx`.
    pub pictures: u64,
    /// Reads and writes refused for naming a removed property (`POST /_sim/schema`).
    pub removed_refusals: u64,
}

/// State shared by the HTTP workers and the control handle.
pub struct SimState {
    pub base_url: String,
    pub clock: Arc<clock::Clock>,
    pub divisions: Vec<DivisionInfo>,
    pub data: Vec<RwLock<store::Division>>,
    pub users: Vec<oauth::DemoUser>,
    pub oauth: Mutex<oauth::OAuth>,
    pub limits: Mutex<rate_limit::RateLimits>,
    pub rate_limits_on: AtomicBool,
    pub faults: Mutex<Faults>,
    pub serving: AtomicBool,
    pub counters: Mutex<Counters>,
    /// Properties removed without notice (`POST /_sim/schema`), per view path as the schema
    /// spells it (`logistics/Items`, `sync/Logistics/Items`); every division alike.
    pub removed: RwLock<BTreeMap<&'static str, Vec<&'static str>>>,
}

impl SimState {
    /// Index of a division code in `data`.
    pub fn division_index(&self, code: i32) -> Option<usize> {
        self.divisions.iter().position(|d| d.code == code)
    }

    /// The properties removed from a view (empty for most).
    pub fn removed_from(&self, view: &esm_exact::schema::Entity) -> Vec<&'static str> {
        self.removed.read().get(view.path).cloned().unwrap_or_default()
    }
}

/// A running simulator.
pub struct Simulator {
    state: Arc<SimState>,
    server: actix_web::dev::ServerHandle,
    addr: std::net::SocketAddr,
}

impl Simulator {
    /// Generate the demo data and start serving. Must run inside an actix/tokio runtime.
    pub async fn start(opts: SimOptions) -> anyhow::Result<Simulator> {
        let listener = std::net::TcpListener::bind(&opts.bind)?;
        let addr = listener.local_addr()?;
        let base_url = format!("http://{addr}");
        let clock = Arc::new(clock::Clock::running(opts.start_ms, opts.clock_speed));
        let world = generate::generate(opts.scale, opts.seed, clock.cet_ms(), &base_url);
        let state = Arc::new(SimState {
            base_url,
            clock,
            divisions: world.divisions,
            data: world.data.into_iter().map(RwLock::new).collect(),
            users: world.users,
            oauth: Mutex::new(oauth::OAuth::new(&opts.client_id, &opts.client_secret)),
            limits: Mutex::new(rate_limit::RateLimits::default()),
            rate_limits_on: AtomicBool::new(opts.rate_limits),
            faults: Mutex::new(opts.faults.clone()),
            serving: AtomicBool::new(true),
            counters: Mutex::new(Counters::default()),
            removed: RwLock::new(BTreeMap::new()),
        });
        let server = server::serve(state.clone(), listener, opts.workers.max(1))?;
        let handle = server.handle();
        actix_web::rt::spawn(server);
        Ok(Simulator { state, server: handle, addr })
    }

    /// `http://127.0.0.1:PORT`: the provider host to configure (`/api/v1/…`, `/api/oauth2/…`).
    pub fn base_url(&self) -> &str {
        &self.state.base_url
    }

    pub fn addr(&self) -> std::net::SocketAddr {
        self.addr
    }

    /// The in-process control handle (clock, faults, counters, rows).
    pub fn handle(&self) -> SimHandle {
        SimHandle(self.state.clone())
    }

    /// Stop serving and release the port.
    pub async fn stop(self) {
        self.state.serving.store(false, Ordering::SeqCst);
        self.server.stop(true).await;
    }

    /// Stop serving when the process ends next: the data is left for the exit to give back,
    /// rather than freed row by row (7.6 s of a demo's stop at scale large, most of it).
    pub async fn stop_for_exit(self) {
        // one holder more that never lets go: no thread frees the data as its last holder
        std::mem::forget(self.state.clone());
        self.stop().await;
    }
}
