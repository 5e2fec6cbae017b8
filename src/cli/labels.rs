//! `stock-manager labels --source … --id … --type NAME [--out FILE | --printer NAME]`: the labels of
//! `POST /api/v1/labels` without a browser, with the organization's token from `server.redb`.
//! Like `sync`, it opens the data directory itself, so it runs while the server is stopped.

use crate::config::Config;
use crate::exact::Waits;
use crate::exact::tokens::UserToken as OrgToken;
use crate::labels::{
    LabelRequest, LabelSource, LabelType, ProviderLookups, RecordError, Selection, build_records, render_pdf,
};
use crate::printing::{JobState, PrintService};
use crate::state::AppState;
use anyhow::{Context, Result, bail};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where the labels go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// A PDF file (the one a browser tab would show).
    File(PathBuf),
    /// A printer by name: configured, or announced on the LAN.
    Printer(String),
}

#[derive(Debug, Clone)]
pub struct LabelsCommand {
    pub source: LabelSource,
    pub ids: Vec<String>,
    pub label_type: LabelType,
    pub output: Output,
    /// The organization; default the only one that signed in.
    pub org: Option<i64>,
}

/// How long the command follows a print job before leaving it to the queue.
const FOLLOW_LIMIT: Duration = Duration::from_secs(300);
/// How long a printer may stay away before the command leaves the job queued.
const WAIT_FOR_PRINTER: Duration = Duration::from_secs(30);

pub async fn run(config: &Config, command: LabelsCommand) -> Result<()> {
    let mut state = AppState::open(Arc::new(config.clone()), Waits::default(), false).context(
        "cannot open the data directory; if the server is running on it, print from the server instead \
         (POST /api/v1/labels or /api/v1/labels/print)",
    )?;
    let division = match command.org {
        Some(d) => d,
        None => only_division(&state.serverdb.org_divisions()?)?,
    };
    let user = crate::auth::accounts::sync_user(&state.serverdb, &state.stores, &state.tokens, division)
        .with_context(|| format!("organization {division} has no usable provider sign-in: sign in for it first"))?;
    let request = LabelRequest {
        source: command.source,
        ids: command.ids.iter().cloned().map(Selection::Id).collect(),
        label_type: command.label_type,
        printer: None,
    };
    let ids = request.normalized_ids().map_err(anyhow::Error::msg)?;
    let lookups = ProviderLookups::new(state.exact.clone(), division, OrgToken { tokens: state.tokens.clone(), user });
    let skipped = crate::organization::skipped_warehouses(&state.stores, division);
    let batch = match build_records(&lookups, request.source, &ids, request.label_type, &skipped).await {
        Ok(batch) => batch,
        Err(RecordError::NoLabels { messages }) => {
            for m in &messages {
                eprintln!("INFO: {m}");
            }
            bail!("{}", crate::labels::NO_LABELS_MESSAGE);
        }
        Err(e) => return Err(e.into()),
    };
    let status = format!("{:?}", batch.status).to_uppercase();
    for m in &batch.messages {
        eprintln!("{status}: {m}");
    }
    match command.output {
        Output::File(path) => {
            let pdf = render_pdf(&state.templates, &batch)?;
            std::fs::write(&path, pdf).with_context(|| format!("cannot write {}", path.display()))?;
            println!("{status}: {} labels ({}) written to {}", batch.label_count(), batch.label_type, path.display());
            Ok(())
        }
        Output::Printer(name) => {
            let service = state.start_printing()?.clone();
            let result = print_and_follow(&service, division, &name, &batch).await;
            service.shutdown().await;
            result
        }
    }
}

/// The organization when exactly one has signed in.
fn only_division(divisions: &[i64]) -> Result<i64> {
    match divisions {
        [one] => Ok(*one),
        [] => bail!("no organization has signed in yet: sign in through the web UI first"),
        many => {
            let list: Vec<String> = many.iter().map(i64::to_string).collect();
            bail!("several organizations have signed in ({}): choose one with --org", list.join(", "))
        }
    }
}

/// Queues the batch and reports the job until it ends; a printer that stays away leaves the job
/// in the durable queue, which the server prints from when it next runs.
async fn print_and_follow(
    service: &PrintService,
    division: i64,
    printer: &str,
    batch: &crate::labels::LabelBatch,
) -> Result<()> {
    let id = service.submit_for(Some(division), printer, batch)?;
    println!("Print job {id}: {} labels queued on {printer}", batch.label_count());
    let started = Instant::now();
    let mut waiting_since: Option<Instant> = None;
    let mut last = None;
    loop {
        let job = service.status(id)?.with_context(|| format!("print job {id} vanished"))?;
        if last != Some((job.state, job.message.clone())) {
            match &job.message {
                Some(m) => println!("Print job {id}: {:?}: {m}", job.state),
                None => println!("Print job {id}: {:?}", job.state),
            }
            last = Some((job.state, job.message.clone()));
        }
        match job.state {
            JobState::Completed => return Ok(()),
            JobState::Failed => bail!("print job {id} failed: {}", job.message.unwrap_or_default()),
            JobState::Cancelled => bail!("print job {id} was cancelled"),
            JobState::WaitingForPrinter => {
                let since = *waiting_since.get_or_insert_with(Instant::now);
                if since.elapsed() > WAIT_FOR_PRINTER {
                    println!("Print job {id} stays queued: it prints when the printer is back and the server runs");
                    return Ok(());
                }
            }
            _ => waiting_since = None,
        }
        if started.elapsed() > FOLLOW_LIMIT {
            println!("Print job {id} is still {:?}; the server follows it from here", job.state);
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_organization_must_be_unambiguous() {
        assert_eq!(only_division(&[3154102]).unwrap(), 3154102);
        assert!(only_division(&[]).unwrap_err().to_string().contains("sign in"));
        assert!(only_division(&[1, 2]).unwrap_err().to_string().contains("--org"));
    }
}
