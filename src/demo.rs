//! `stock-manager demo`: the simulator and the server together, wired to each other.

use crate::config::Config;
use crate::server::{self, StartOptions};
use crate::sim::{DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, SimOptions, Simulator};

/// What `demo` needs besides the loaded config.
pub struct DemoOptions {
    pub sim: SimOptions,
    /// Use this data directory instead of a fresh temporary one.
    pub keep_data_dir: bool,
}

/// Start the simulator, point the server's provider at it, print the lines a person needs,
/// and run until a signal stops the server; then stop the simulator.
pub async fn run(mut config: Config, opts: DemoOptions) -> anyhow::Result<()> {
    let sim = Simulator::start(opts.sim).await?;
    config.provider.base_url = sim.base_url().to_string();
    config.provider.client_id = DEMO_CLIENT_ID.to_string();
    config.provider.client_secret = crate::config::Secret::new(DEMO_CLIENT_SECRET);
    // A fresh data directory per run unless one was given; removed when the demo ends.
    let temp = if opts.keep_data_dir {
        None
    } else {
        let dir = std::env::temp_dir().join(format!("stock-manager-demo-{}", uuid::Uuid::new_v4().simple()));
        config.data_dir = dir.clone();
        Some(dir)
    };
    let user = sim.handle().0.users.first().map(|u| u.user_name.clone()).unwrap_or_default();
    // Demo user 0 is the installation's administrator; the other demo users are not.
    if !user.is_empty() && !config.admin.users.iter().any(|u| u.eq_ignore_ascii_case(&user)) {
        config.admin.users.push(user.clone());
    }
    // A code for the first division, signed with the demo key that only demo mode trusts.
    let licence = sim
        .handle()
        .0
        .divisions
        .first()
        .map(|d| crate::auth::licence::Issuer::demo().issue(i64::from(d.code), &d.description, None));
    let running =
        server::start(config, StartOptions { handle_signals: true, demo: true, ..StartOptions::default() }).await?;
    println!("URL: {}", running.url);
    println!("Simulator: {}", sim.base_url());
    println!("Demo user: {user}");
    if let Some(code) = licence {
        println!("Licence code: {code}");
    }
    let result = running.wait().await;
    let stopping = std::time::Instant::now();
    sim.stop_for_exit().await;
    tracing::info!(ms = stopping.elapsed().as_millis() as u64, "demo: simulator stopped");
    if let Some(dir) = temp {
        let _ = std::fs::remove_dir_all(dir);
    }
    result
}
