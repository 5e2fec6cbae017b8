//! Shared test harness: a server on port 0 with a fresh data directory.

use std::time::Duration;
use stock_manager::config::Config;
use stock_manager::server::{self, RunningServer, StartOptions};

pub struct TestServer {
    pub url: String,
    pub client: reqwest::Client,
    pub running: Option<RunningServer>,
    /// Kept so the data directory lives as long as the server.
    pub _dir: tempfile::TempDir,
}

/// A config for tests: loopback, ephemeral port, fresh data dir, no mDNS unless asked.
pub fn test_config(dir: &tempfile::TempDir) -> Config {
    let mut config = Config {
        listen: "127.0.0.1:0".into(),
        data_dir: dir.path().join("data"),
        log_level: "warn".into(),
        ..Default::default()
    };
    config.mdns.enabled = false;
    // A set-up server (the first-run setup has its own tests in `setup.rs`).
    config.provider.client_id = "test-client".into();
    config.provider.client_secret = stock_manager::config::Secret::new("test-secret");
    // The simulator's first user administers the installation, as in `demo` (`admin_role.rs`
    // signs in as the others to see administrator actions refused).
    config.admin.users = vec![DEMO_ADMIN.into()];
    config
}

/// The simulator's first user, this installation's administrator in tests and in `demo`.
pub const DEMO_ADMIN: &str = "demo@vandijk-machinebouw.nl";

impl TestServer {
    pub async fn start() -> TestServer {
        Self::start_with(|_| {}, StartOptions::default()).await
    }

    pub async fn start_with(edit: impl FnOnce(&mut Config), options: StartOptions) -> TestServer {
        stock_manager::tls::install_crypto_provider();
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = test_config(&dir);
        edit(&mut config);
        config.validate().expect("test config is valid");
        let running = server::start(config, options).await.expect("server starts");
        let url = format!("http://{}", running.addr);
        TestServer { url, client: client(), running: Some(running), _dir: dir }
    }

    pub fn at(&self, path: &str) -> String {
        format!("{}{}", self.url, path)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client.get(self.at(path)).send().await.expect("request")
    }

    pub async fn stop(mut self) {
        if let Some(r) = self.running.take() {
            r.stop(true).await.expect("clean stop");
        }
    }
}

pub fn client() -> reqwest::Client {
    stock_manager::tls::install_crypto_provider();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

/// The release or debug binary that cargo built for these tests.
pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_stock-manager")
}
