//! `stock-manager sync [--org DIV] [--endpoints …]`: a headless sync with a terminal progress
//! bar, for cron and first installs. Uses the same engine, store and tokens as the server.

use crate::config::Config;
use crate::exact::Waits;
use crate::state::AppState;
use crate::sync::engine::SyncEngine;
use crate::sync::sink::SyncSink;
use anyhow::{Context, Result, bail};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::collections::HashMap;
use std::sync::Arc;

/// Runs the sync and prints a summary; fails when any table failed.
pub async fn run(config: &Config, org: Option<i64>, endpoints: &[String]) -> Result<()> {
    // The same parts the server is built from, without serving.
    let state = AppState::open(Arc::new(config.clone()), Waits::default(), false).context(
        "cannot open the data directory; if the server is running on it, sync from the server instead \
         (Sync Data in the UI, or POST /api/v1/sync)",
    )?;
    let (serverdb, tokens, stores, engine) = (state.serverdb, state.tokens, state.stores, state.sync);
    let selected = SyncEngine::with_deleted_entries(SyncEngine::resolve(endpoints)?);
    let divisions = match org {
        Some(d) => vec![d],
        None => serverdb.org_divisions()?,
    };
    if divisions.is_empty() {
        bail!("no organization has signed in yet: sign in through the web UI first, then sync");
    }
    let mut failed = Vec::new();
    for division in divisions {
        let token = crate::auth::accounts::org_token(&serverdb, &stores, &tokens, division)
            .with_context(|| format!("organization {division} has no usable provider sign-in: sign in for it first"))?;
        let store = stores.get(division)?;
        let bars = MultiProgress::new();
        let style = ProgressStyle::with_template("{prefix:>34} [{bar:30}] {pos}/{len} rows  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        let mut rx = engine.subscribe();
        let watcher = tokio::spawn(async move {
            let mut by_table: HashMap<&'static str, ProgressBar> = HashMap::new();
            while let Ok(ev) = rx.recv().await {
                let bar = by_table.entry(ev.table).or_insert_with(|| {
                    let b = bars.add(ProgressBar::new(ev.total));
                    b.set_style(style.clone());
                    b.set_prefix(ev.name);
                    b
                });
                bar.set_length(ev.total.max(1));
                bar.set_position(ev.total - ev.remaining);
                if ev.done {
                    match &ev.error {
                        Some(e) => bar.abandon_with_message(format!("failed: {e}")),
                        None => bar.finish_with_message("done"),
                    }
                } else if ev.paused {
                    bar.set_message(format!("waiting for the rate limit, ~{} s left", ev.seconds_remaining));
                } else {
                    bar.set_message(format!("~{} s left", ev.seconds_remaining));
                }
            }
        });
        let report = engine.run(division, &token, &selected, store as Arc<dyn SyncSink>).await?;
        watcher.abort();
        for (table, outcome) in &report.tables {
            match &outcome.error {
                Some(e) => {
                    println!("{division} {table}: FAILED: {e}");
                    failed.push(format!("{division}/{table}"));
                }
                None => println!("{division} {table}: {} rows, timestamp {:?}", outcome.rows, outcome.timestamp),
            }
        }
    }
    if !failed.is_empty() {
        bail!("sync failed for {}", failed.join(", "));
    }
    Ok(())
}
