//! The daily backup (`[backup] dir`, `time`, `keep`): taken by the server itself, which holds the
//! files, into `{dir}/stock-manager-{YYYYMMDD-HHMMSS}.tar`, keeping the newest `keep`.

use super::OpenFiles;
use crate::config::BackupConfig;
use anyhow::{Context, Result};
use chrono::{DateTime, Local, NaiveTime, TimeZone};
use std::path::{Path, PathBuf};
use std::time::Duration;

const PREFIX: &str = "stock-manager-";
const SUFFIX: &str = ".tar";

/// The next moment at `time` (local) after `now`.
pub fn next_run(now: DateTime<Local>, time: NaiveTime) -> DateTime<Local> {
    let mut day = now.date_naive();
    for _ in 0..3 {
        // A time a DST change skips has no local moment that day: the next day's is taken.
        if let Some(at) = Local.from_local_datetime(&day.and_time(time)).earliest()
            && at > now
        {
            return at;
        }
        day = day.succ_opt().unwrap_or(day);
    }
    now + chrono::Duration::days(1)
}

/// Starts the daily backup when `[backup] dir` is set.
pub fn spawn(files: OpenFiles, config: &BackupConfig) -> Option<tokio::task::JoinHandle<()>> {
    let config = config.clone();
    let dir = config.dir.clone()?;
    let time = config.time_of_day().ok()?;
    Some(tokio::spawn(async move {
        loop {
            let now = Local::now();
            let wait = (next_run(now, time) - now).to_std().unwrap_or(Duration::from_secs(60));
            tokio::time::sleep(wait).await;
            let (files, dir, keep) = (files.clone(), dir.clone(), config.keep);
            match tokio::task::spawn_blocking(move || run_once(&files, &dir, keep)).await {
                Ok(Ok(path)) => tracing::info!(path = %path.display(), "daily backup written"),
                Ok(Err(e)) => tracing::error!(error = %format!("{e:#}"), "daily backup failed"),
                Err(e) => tracing::error!(error = %e, "daily backup failed"),
            }
        }
    }))
}

/// Takes one backup into `dir` and prunes the oldest beyond `keep`. Answers the new file.
pub fn run_once(files: &OpenFiles, dir: &Path, keep: u32) -> Result<PathBuf> {
    esm_base::files::create_private_dir(dir)?;
    let name = format!("{PREFIX}{}{SUFFIX}", Local::now().format("%Y%m%d-%H%M%S"));
    let path = dir.join(&name);
    if path.exists() {
        // Two backups within a second (a clock set back): keep the one there.
        anyhow::bail!("{} exists; not overwritten", path.display());
    }
    let partial = dir.join(format!(".{name}.partial"));
    let _ = std::fs::remove_file(&partial);
    if let Err(e) = super::take_in_server(files, &partial) {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    std::fs::rename(&partial, &path).with_context(|| format!("writing {}", path.display()))?;
    prune(dir, keep)?;
    Ok(path)
}

/// Removes all but the newest `keep` scheduled backups in `dir` (their names sort by time).
pub fn prune(dir: &Path, keep: u32) -> Result<Vec<PathBuf>> {
    let mut ours: Vec<PathBuf> = std::fs::read_dir(dir)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(PREFIX) && n.ends_with(SUFFIX))
        })
        .collect();
    ours.sort();
    let excess = ours.len().saturating_sub(keep.max(1) as usize);
    let removed: Vec<PathBuf> = ours.drain(..excess).collect();
    for p in &removed {
        std::fs::remove_file(p).with_context(|| format!("removing the old backup {}", p.display()))?;
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_run_is_today_if_still_ahead_else_tomorrow() {
        let at = |h, m| NaiveTime::from_hms_opt(h, m, 0).expect("time");
        let now =
            Local.from_local_datetime(&chrono::NaiveDate::from_ymd_opt(2026, 6, 10).expect("date").and_time(at(1, 0)));
        let now = now.earliest().expect("a plain June night");
        assert_eq!(next_run(now, at(2, 30)).naive_local().to_string(), "2026-06-10 02:30:00");
        assert_eq!(next_run(now, at(0, 30)).naive_local().to_string(), "2026-06-11 00:30:00");
        assert_eq!(next_run(now, at(1, 0)).naive_local().to_string(), "2026-06-11 01:00:00");
    }

    #[test]
    fn pruning_keeps_the_newest_and_touches_nothing_else() {
        let dir = tempfile::tempdir().expect("dir");
        for name in [
            "stock-manager-20260101-023000.tar",
            "stock-manager-20260102-023000.tar",
            "stock-manager-20260103-023000.tar",
            "notes.txt",
        ] {
            std::fs::write(dir.path().join(name), b"x").expect("write");
        }
        let removed = prune(dir.path(), 2).expect("prune");
        assert_eq!(removed, vec![dir.path().join("stock-manager-20260101-023000.tar")]);
        assert!(dir.path().join("notes.txt").exists());
        assert!(dir.path().join("stock-manager-20260103-023000.tar").exists());
    }
}
