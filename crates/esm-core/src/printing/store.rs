//! The durable print queue: `{data_dir}/printing.redb`, one JSON row per job. Every state change
//! is committed before the next step, so a restart resumes where the queue stood.

use crate::labels::{LabelRecord, LabelType};
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};
use std::path::Path;

const JOBS: TableDefinition<u64, &[u8]> = TableDefinition::new("jobs");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
const NEXT_ID: &str = "next_id";
/// The queue file's name inside the data directory.
pub const FILE_NAME: &str = "printing.redb";

/// Why a job that was open in a restored backup failed.
pub const RESTORED: &str = "Restored from a backup: this job may have printed after the backup was made; check, then print it again if it did not";

/// A print job's id, unique in the data directory.
pub type JobId = u64;

/// Where a job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Accepted, not tried yet.
    Queued,
    /// The printer is off or unreachable; tried again with backoff.
    WaitingForPrinter,
    /// The document is being rendered; found so at start-up, the job fails (never rendered twice).
    Rendering,
    /// The document is on its way to the printer.
    Sending,
    /// The printer accepted it; its state is followed with Get-Job-Attributes.
    Printing,
    Completed,
    Failed,
    /// A user cancelled it (before it left, or the printer dropped it with Cancel-Job).
    Cancelled,
}

impl JobState {
    pub fn is_final(self) -> bool {
        matches!(self, JobState::Completed | JobState::Failed | JobState::Cancelled)
    }
}

/// A job as stored and as shown to the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrintJob {
    pub id: JobId,
    /// The organization that printed it; job lists are shown per organization.
    #[serde(default)]
    pub division: Option<i64>,
    pub printer: String,
    pub label_type: LabelType,
    pub title: String,
    /// What to print; rendered when the printer's formats are known.
    pub records: Vec<LabelRecord>,
    pub state: JobState,
    /// What the user should know (the last error, or why it waits).
    pub message: Option<String>,
    pub attempts: u32,
    /// The format sent: `application/pdf` or `image/pwg-raster`.
    pub format: Option<String>,
    /// The printer's own job id once accepted.
    pub ipp_job_id: Option<i32>,
    pub created: chrono::DateTime<chrono::Utc>,
    pub updated: chrono::DateTime<chrono::Utc>,
    /// When the worker should look at the job again.
    pub next_attempt: chrono::DateTime<chrono::Utc>,
}

#[derive(Debug, thiserror::Error)]
#[error("print queue: {0}")]
pub struct StoreError(String);

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError(e.to_string())
}

pub struct JobStore {
    db: Database,
}

impl JobStore {
    pub fn open(data_dir: &Path) -> Result<JobStore, StoreError> {
        std::fs::create_dir_all(data_dir).map_err(err)?;
        let db = Database::create(data_dir.join(FILE_NAME)).map_err(err)?;
        let tx = db.begin_write().map_err(err)?;
        {
            tx.open_table(JOBS).map_err(err)?;
            tx.open_table(META).map_err(err)?;
        }
        tx.commit().map_err(err)?;
        Ok(JobStore { db })
    }

    pub fn database(&self) -> &Database {
        &self.db
    }

    /// Stores a new job and gives it its id.
    pub fn insert(&self, mut job: PrintJob) -> Result<PrintJob, StoreError> {
        let tx = self.db.begin_write().map_err(err)?;
        {
            let mut meta = tx.open_table(META).map_err(err)?;
            let id = meta.get(NEXT_ID).map_err(err)?.map(|v| v.value()).unwrap_or(1);
            meta.insert(NEXT_ID, id + 1).map_err(err)?;
            job.id = id;
            let bytes = serde_json::to_vec(&job).map_err(err)?;
            tx.open_table(JOBS).map_err(err)?.insert(id, bytes.as_slice()).map_err(err)?;
        }
        tx.commit().map_err(err)?;
        Ok(job)
    }

    /// Replaces a job's row (durably, before the caller acts on the new state).
    pub fn update(&self, job: &PrintJob) -> Result<(), StoreError> {
        let tx = self.db.begin_write().map_err(err)?;
        {
            let bytes = serde_json::to_vec(job).map_err(err)?;
            tx.open_table(JOBS).map_err(err)?.insert(job.id, bytes.as_slice()).map_err(err)?;
        }
        tx.commit().map_err(err)
    }

    pub fn get(&self, id: JobId) -> Result<Option<PrintJob>, StoreError> {
        let tx = self.db.begin_read().map_err(err)?;
        let table = tx.open_table(JOBS).map_err(err)?;
        match table.get(id).map_err(err)? {
            Some(v) => Ok(Some(serde_json::from_slice(v.value()).map_err(err)?)),
            None => Ok(None),
        }
    }

    /// Every job, newest first.
    pub fn list(&self) -> Result<Vec<PrintJob>, StoreError> {
        let tx = self.db.begin_read().map_err(err)?;
        let table = tx.open_table(JOBS).map_err(err)?;
        let mut out = Vec::new();
        for row in table.iter().map_err(err)?.rev() {
            let (_, v) = row.map_err(err)?;
            match serde_json::from_slice::<PrintJob>(v.value()) {
                Ok(job) => out.push(job),
                Err(e) => tracing::warn!(error = %e, "skipping an unreadable print job row"),
            }
        }
        Ok(out)
    }

    /// After a restore from a backup: a job still open in the backup may have printed after the
    /// backup was made, so none prints again by itself; each fails with why, for the user to print
    /// again if the labels never came out. Answers how many.
    pub fn mark_restored(&self) -> Result<usize, StoreError> {
        let open = self.open_jobs()?;
        for mut job in open.iter().cloned() {
            job.state = JobState::Failed;
            job.message = Some(RESTORED.into());
            job.updated = chrono::Utc::now();
            self.update(&job)?;
        }
        Ok(open.len())
    }

    /// Jobs the worker still has to do something with.
    pub fn open_jobs(&self) -> Result<Vec<PrintJob>, StoreError> {
        Ok(self.list()?.into_iter().rev().filter(|j| !j.state.is_final()).collect())
    }
}
