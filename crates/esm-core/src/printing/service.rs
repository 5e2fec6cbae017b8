//! The print service: accepts jobs into the durable queue and a tokio worker sends them, with
//! backoff while a printer is away, then follows each job with Get-Job-Attributes.
//!
//! Exactly once: a job is only resent when the printer could not be reached at all (nothing was
//! sent). A job interrupted mid-send (crash, or a printer that vanished after taking the body)
//! is marked failed rather than risking a second print.

use super::ipp_client::{Document, IppClient, IppError, IppJobState, PrinterCapabilities};
use super::raster_doc::{self, SpoolError};
use super::registry::{Printer, PrinterRegistry};
use super::store::{JobId, JobState, JobStore, PrintJob, StoreError};
use crate::labels::{LabelBatch, LabelError, LabelStatus, Templates, check_label_count, render_pdf_at};
use chrono::Utc;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::Notify;

/// Timings of the worker; tests shorten them.
#[derive(Debug, Clone)]
pub struct PrintOptions {
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// How often a printing job's state is asked for.
    pub poll_interval: Duration,
    pub request_timeout: Duration,
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions {
            initial_backoff: Duration::from_secs(2),
            max_backoff: Duration::from_secs(60),
            poll_interval: Duration::from_secs(2),
            request_timeout: Duration::from_secs(60),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PrintError {
    #[error("Unknown printer '{0}'")]
    UnknownPrinter(String),
    /// Announced over mDNS but not accepted by an administrator (nor in a configured subnet).
    #[error(
        "Printer '{0}' was found on the network and is not accepted yet: an administrator accepts it in Global Settings"
    )]
    NotAccepted(String),
    #[error("Printer '{printer}' is not set up for {label_type} labels")]
    WrongLabelType { printer: String, label_type: String },
    /// More labels than one job may hold ([`crate::limits::LABEL_MAX_PER_JOB`]).
    #[error("{0}")]
    TooManyLabels(String),
    #[error(transparent)]
    Labels(#[from] LabelError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Ipp(#[from] IppError),
}

impl From<PrintError> for crate::error::AppError {
    fn from(err: PrintError) -> Self {
        use crate::error::{AppError, Code};
        match err {
            PrintError::UnknownPrinter(_) => AppError::with_message(Code::NotFound, err.to_string()),
            PrintError::NotAccepted(_) => AppError::with_message(Code::Forbidden, err.to_string()),
            PrintError::WrongLabelType { .. } | PrintError::TooManyLabels(_) => AppError::bad_request(err.to_string()),
            PrintError::Labels(e) => e.into(),
            PrintError::Ipp(IppError::Unreachable(_)) => AppError::new(Code::Timeout).caused_by(err),
            other => AppError::internal(other),
        }
    }
}

/// What a cancel request did.
#[derive(Debug)]
pub enum Cancelled {
    /// The job had not left for the printer: it is cancelled now.
    Now(PrintJob),
    /// The job is being rendered, sent or printed: the worker stops it at its next step (between
    /// pages while rendering, with Cancel-Job once the printer holds it).
    Requested(PrintJob),
    /// The job had ended already (printed, failed or cancelled); nothing changed.
    Ended(PrintJob),
}

/// The job the worker has in hand, and the jobs users asked to cancel.
#[derive(Default)]
struct Cancels {
    current: Option<(JobId, Arc<AtomicBool>)>,
    requested: HashSet<JobId>,
}

/// The spool of raster documents inside the data directory: one file per job being sent.
const SPOOL_DIR: &str = "print-spool";

/// How long a stop waits for the worker's step in hand (a render stops between pages).
const SHUTDOWN_WAIT: Duration = Duration::from_secs(2);

struct Inner {
    store: JobStore,
    spool: PathBuf,
    /// The service is stopping: a render in hand stops, and its job waits for the next start.
    stopping: AtomicBool,
    cancels: parking_lot::Mutex<Cancels>,
    registry: PrinterRegistry,
    templates: Arc<Templates>,
    options: PrintOptions,
    strict: IppClient,
    insecure: IppClient,
}

/// Cheap to clone; the worker stops when the last clone is dropped or on [`PrintService::shutdown`].
#[derive(Clone)]
pub struct PrintService {
    inner: Arc<Inner>,
    wake: Arc<Notify>,
    stop: Arc<Notify>,
    worker: Arc<parking_lot::Mutex<Option<tokio::task::JoinHandle<()>>>>,
}

impl PrintService {
    /// Opens `{data_dir}/printing.redb`, recovers interrupted jobs and starts the worker.
    /// Must be called inside a tokio runtime.
    pub fn start(
        data_dir: &Path,
        registry: PrinterRegistry,
        templates: Arc<Templates>,
        options: PrintOptions,
    ) -> Result<PrintService, PrintError> {
        let store = JobStore::open(data_dir)?;
        for mut job in store.open_jobs()? {
            let why = match job.state {
                JobState::Sending => {
                    "Interrupted while sending to the printer; check whether it printed before printing again"
                }
                // The server stopped (or died) while rendering it: never try that again by itself.
                JobState::Rendering => {
                    "The labels could not be rendered: the server stopped while rendering them; print them again"
                }
                _ => continue,
            };
            job.state = JobState::Failed;
            job.message = Some(why.into());
            job.updated = Utc::now();
            store.update(&job)?;
        }
        // Documents of a run that stopped mid-send are of no use: their jobs failed above.
        let spool = data_dir.join(SPOOL_DIR);
        if spool.exists()
            && let Err(e) = std::fs::remove_dir_all(&spool)
        {
            tracing::warn!(error = %e, "could not clear the print spool");
        }
        let inner = Arc::new(Inner {
            spool,
            stopping: AtomicBool::new(false),
            cancels: parking_lot::Mutex::new(Cancels::default()),
            strict: IppClient::new(false, options.request_timeout)?,
            insecure: IppClient::new(true, options.request_timeout)?,
            store,
            registry,
            templates,
            options,
        });
        let (wake, stop) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
        let handle = tokio::spawn(worker(Arc::downgrade(&inner), wake.clone(), stop.clone()));
        Ok(PrintService { inner, wake, stop, worker: Arc::new(parking_lot::Mutex::new(Some(handle))) })
    }

    /// Copies the queue's file (`src`) consistently while it stays in use (backups).
    pub fn snapshot_to(&self, src: &Path, dest: &Path) -> anyhow::Result<()> {
        crate::store::snapshot::copy_open_db(self.inner.store.database(), src, dest)
    }

    /// Queues a batch for a printer; the label layout is checked now so bad barcodes fail here.
    pub fn submit(&self, printer: &str, batch: &LabelBatch) -> Result<JobId, PrintError> {
        self.submit_for(None, printer, batch)
    }

    /// [`PrintService::submit`] on behalf of an organization, whose job list then shows it.
    pub fn submit_for(&self, division: Option<i64>, printer: &str, batch: &LabelBatch) -> Result<JobId, PrintError> {
        let found = self.inner.registry.get(printer).ok_or_else(|| PrintError::UnknownPrinter(printer.to_string()))?;
        if !found.accepted {
            return Err(PrintError::NotAccepted(printer.to_string()));
        }
        if !found.supports(batch.label_type) {
            return Err(PrintError::WrongLabelType {
                printer: printer.into(),
                label_type: batch.label_type.to_string(),
            });
        }
        check_label_count(batch.label_count() as u64).map_err(PrintError::TooManyLabels)?;
        crate::labels::layout_batch(&self.inner.templates, batch, crate::labels::PDF_GRID_DPI)?;
        let now = Utc::now();
        let job = self.inner.store.insert(PrintJob {
            id: 0,
            division,
            printer: printer.to_string(),
            label_type: batch.label_type,
            title: format!("{} labels ({})", batch.label_count(), batch.label_type),
            records: batch.records.clone(),
            state: JobState::Queued,
            message: None,
            attempts: 0,
            format: None,
            ipp_job_id: None,
            created: now,
            updated: now,
            next_attempt: now,
        })?;
        tracing::info!(job = job.id, printer, "print job queued");
        self.wake.notify_one();
        Ok(job.id)
    }

    /// Cancels a job on behalf of `by`; `None` when there is no such job.
    pub fn cancel(&self, id: JobId, by: &str) -> Result<Option<Cancelled>, PrintError> {
        let mut cancels = self.inner.cancels.lock();
        let Some(mut job) = self.inner.store.get(id)? else { return Ok(None) };
        if job.state.is_final() {
            return Ok(Some(Cancelled::Ended(job)));
        }
        let in_hand = cancels.current.as_ref().filter(|(current, _)| *current == id).map(|(_, flag)| flag.clone());
        match (in_hand, job.state) {
            (None, JobState::Queued | JobState::WaitingForPrinter) => {
                self.inner.save(&mut job, JobState::Cancelled, Some(format!("Cancelled by {by}")), Duration::ZERO);
                tracing::info!(job = id, by, "print job cancelled before it was sent");
                Ok(Some(Cancelled::Now(job)))
            }
            (in_hand, _) => {
                if let Some(flag) = in_hand {
                    flag.store(true, Ordering::Relaxed);
                }
                cancels.requested.insert(id);
                drop(cancels);
                tracing::info!(job = id, by, "print job cancel requested");
                self.wake.notify_one();
                Ok(Some(Cancelled::Requested(job)))
            }
        }
    }

    /// Whether a cancel of the job is on its way (the job lists show "cancelling").
    pub fn cancel_requested(&self, id: JobId) -> bool {
        self.inner.cancels.lock().requested.contains(&id)
    }

    pub fn status(&self, id: JobId) -> Result<Option<PrintJob>, PrintError> {
        Ok(self.inner.store.get(id)?)
    }

    /// Every job, newest first.
    pub fn list(&self) -> Result<Vec<PrintJob>, PrintError> {
        Ok(self.inner.store.list()?)
    }

    pub fn printers(&self) -> Vec<Printer> {
        self.inner.registry.list()
    }

    /// The registry the worker sends to (shared: discovery and callers see the same printers).
    pub fn registry(&self) -> &PrinterRegistry {
        &self.inner.registry
    }

    /// Asks a printer what it can do (for the printers page).
    pub async fn capabilities(&self, printer: &str) -> Result<PrinterCapabilities, PrintError> {
        let p = self.inner.registry.get(printer).ok_or_else(|| PrintError::UnknownPrinter(printer.to_string()))?;
        if !p.accepted {
            // Nothing is sent to an address that merely announced itself.
            return Err(PrintError::NotAccepted(printer.to_string()));
        }
        Ok(self.inner.client(&p).capabilities(&p.uri).await?)
    }

    /// Stops the worker and waits for it (bounded: a render in hand stops between pages and its
    /// job is queued again); queued jobs stay in the file for the next start.
    pub async fn shutdown(&self) {
        self.inner.stopping.store(true, Ordering::Relaxed);
        if let Some((_, flag)) = &self.inner.cancels.lock().current {
            flag.store(true, Ordering::Relaxed);
        }
        self.stop.notify_one();
        let handle = self.worker.lock().take();
        if let Some(handle) = handle {
            let abort = handle.abort_handle();
            match tokio::time::timeout(SHUTDOWN_WAIT, handle).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!(error = %e, "print worker ended badly"),
                Err(_) => {
                    tracing::warn!("the print worker did not stop in time; its job resumes at the next start");
                    abort.abort();
                }
            }
        }
    }
}

impl Inner {
    fn client(&self, printer: &Printer) -> &IppClient {
        if printer.insecure_tls { &self.insecure } else { &self.strict }
    }

    fn backoff(&self, attempts: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempts.saturating_sub(1).min(16));
        self.options.initial_backoff.saturating_mul(factor).min(self.options.max_backoff)
    }

    fn save(&self, job: &mut PrintJob, state: JobState, message: Option<String>, after: Duration) {
        job.state = state;
        job.message = message;
        job.updated = Utc::now();
        job.next_attempt =
            job.updated + chrono::Duration::from_std(after).unwrap_or_else(|_| chrono::Duration::seconds(60));
        if let Err(e) = self.store.update(job) {
            tracing::error!(job = job.id, error = %e, "could not save the print job state");
        }
    }

    fn wait(&self, job: &mut PrintJob, why: String) {
        job.attempts += 1;
        let after = self.backoff(job.attempts);
        tracing::info!(job = job.id, printer = %job.printer, attempts = job.attempts, "waiting for printer: {why}");
        self.save(job, JobState::WaitingForPrinter, Some(format!("Waiting for printer: {why}")), after);
    }

    /// Takes the job in hand (so a cancel request reaches its rendering), steps it, lets go.
    async fn step_in_hand(&self, id: JobId) {
        let (mut job, cancel) = {
            let mut cancels = self.cancels.lock();
            // Read again under the lock: the list the worker holds may predate a cancel.
            let job = match self.store.get(id) {
                Ok(Some(job)) if !job.state.is_final() => job,
                _ => return,
            };
            let cancel = Arc::new(AtomicBool::new(cancels.requested.contains(&id)));
            cancels.current = Some((id, cancel.clone()));
            (job, cancel)
        };
        if cancel.load(Ordering::Relaxed) {
            self.cancel_now(&mut job).await;
        } else {
            self.step(&mut job, &cancel).await;
            // Asked for while it was being sent: the printer holds it now, so cancel it there.
            // (The flag alone may also be the service's stop, which cancels nothing.)
            let asked = self.cancels.lock().requested.contains(&id);
            if asked && !job.state.is_final() {
                self.cancel_now(&mut job).await;
            }
        }
        let mut cancels = self.cancels.lock();
        cancels.current = None;
        if job.state.is_final() {
            cancels.requested.remove(&id);
        }
    }

    /// Ends a job a user cancelled: with Cancel-Job when the printer holds it.
    async fn cancel_now(&self, job: &mut PrintJob) {
        let cancelled = Some("Cancelled".to_string());
        let (Some(ipp_id), Some(printer)) = (job.ipp_job_id, self.registry.usable(&job.printer)) else {
            return self.save(job, JobState::Cancelled, cancelled, Duration::ZERO);
        };
        let client = self.client(&printer);
        match client.cancel_job(&printer.uri, ipp_id).await {
            Ok(()) => self.save(job, JobState::Cancelled, cancelled, Duration::ZERO),
            // The printer keeps no such job any more: it printed (or ended) before the cancel.
            Err(IppError::Refused(why)) => match client.job_state(&printer.uri, ipp_id).await {
                Ok(IppJobState::Completed) => self.save(
                    job,
                    JobState::Completed,
                    Some("Printed before it could be cancelled".into()),
                    Duration::ZERO,
                ),
                _ => self.save(job, JobState::Cancelled, Some(format!("Cancelled ({why})")), Duration::ZERO),
            },
            // Not reached: the cancel stays asked for and is tried again.
            Err(e) => {
                let message = Some(format!("Cancelling: {e}"));
                self.save(job, job.state, message, self.options.poll_interval.max(self.backoff(2)))
            }
        }
    }

    /// One step of a job: send it, or ask how it is doing.
    async fn step(&self, job: &mut PrintJob, cancel: &Arc<AtomicBool>) {
        match job.state {
            JobState::Queued | JobState::WaitingForPrinter => self.send(job, cancel).await,
            JobState::Printing => self.follow(job).await,
            JobState::Rendering | JobState::Sending | JobState::Completed | JobState::Failed | JobState::Cancelled => {}
        }
    }

    async fn send(&self, job: &mut PrintJob, cancel: &Arc<AtomicBool>) {
        // A job too big to render (one from before the limits, or put in the queue file by hand)
        // fails once with its reason instead of being tried again and again.
        let labels = job.records.iter().map(|r| u64::from(r.print_count)).sum();
        if let Err(why) = check_label_count(labels) {
            return self.save(job, JobState::Failed, Some(why), Duration::ZERO);
        }
        let Some(printer) = self.registry.get(&job.printer) else {
            return self.wait(job, "the printer is not known (yet)".into());
        };
        if !printer.accepted {
            return self.wait(job, "the printer is not accepted by an administrator".into());
        }
        let client = self.client(&printer);
        let caps = match client.capabilities(&printer.uri).await {
            Ok(caps) => caps,
            Err(e) => return self.wait(job, e.to_string()),
        };
        if !caps.accepting_jobs || caps.state == "stopped" {
            return self.wait(job, format!("the printer is {} and not accepting jobs", caps.state));
        }
        let batch = LabelBatch {
            status: LabelStatus::Success,
            messages: vec![],
            label_type: job.label_type,
            records: job.records.clone(),
        };
        if !caps.accepts_pdf() && !caps.accepts_pwg_raster() {
            let formats = caps.document_formats.join(", ");
            return self.save(
                job,
                JobState::Failed,
                Some(format!("The printer takes neither PDF nor PWG raster ({formats})")),
                Duration::ZERO,
            );
        }
        // Durable before rendering: a render that takes the process down fails the job on the
        // next start rather than taking it down again.
        self.save(job, JobState::Rendering, None, Duration::ZERO);
        let spool = self.spool.join(format!("job-{}.pwg", job.id));
        let rendered = match self.render(batch, caps, spool, cancel.clone()).await {
            Ok(d) => d,
            // Stopped by the server's stop, not by a user: nothing was sent, so it renders again.
            Err(RenderError::Cancelled)
                if self.stopping.load(Ordering::Relaxed) && !self.cancels.lock().requested.contains(&job.id) =>
            {
                let message = Some("The server stopped while rendering; it is rendered again".into());
                return self.save(job, JobState::Queued, message, Duration::ZERO);
            }
            Err(RenderError::Cancelled) => {
                return self.save(job, JobState::Cancelled, Some("Cancelled".into()), Duration::ZERO);
            }
            Err(RenderError::Failed(why)) => {
                tracing::warn!(job = job.id, %why, "print job could not be rendered");
                return self.save(job, JobState::Failed, Some(why), Duration::ZERO);
            }
        };
        job.format = Some(rendered.format().to_string());
        job.attempts += 1;
        // Durable before the body leaves: a crash from here on is never resent.
        self.save(job, JobState::Sending, None, Duration::ZERO);
        let sent = client.print_job(&printer.uri, rendered.document(), rendered.format(), &job.title).await;
        drop(rendered);
        match sent {
            Ok(id) => {
                job.ipp_job_id = Some(id);
                tracing::info!(
                    job = job.id,
                    ipp_job = id,
                    format = job.format.as_deref(),
                    "print job accepted by the printer"
                );
                self.save(job, JobState::Printing, None, self.options.poll_interval);
            }
            Err(IppError::Unreachable(why)) => self.wait(job, why),
            Err(e) => self.save(job, JobState::Failed, Some(e.to_string()), Duration::ZERO),
        }
    }

    /// Renders off the async threads: a PDF in memory, PWG raster page by page into `spool`. An
    /// error or a panic is the job's failure message.
    async fn render(
        &self,
        batch: LabelBatch,
        caps: PrinterCapabilities,
        spool: PathBuf,
        cancel: Arc<AtomicBool>,
    ) -> Result<Rendered, RenderError> {
        let templates = self.templates.clone();
        let rendered = tokio::task::spawn_blocking(move || {
            if caps.accepts_pdf() {
                // Bars on the printer's own dot grid: a 300 dpi grid resampled to 203 dpi does not scan.
                return render_pdf_at(&templates, &batch, caps.raster_dpi() as f32)
                    .map(Rendered::Pdf)
                    .map_err(SpoolError::from);
            }
            if let Some(dir) = spool.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let spooled = Spooled(spool);
            let len = raster_doc::spool_pwg(&templates, &batch, &caps, &spooled.0, &cancel)?;
            Ok(Rendered::Raster { file: spooled, len })
        })
        .await;
        let failed = |e: &dyn std::fmt::Display| RenderError::Failed(format!("The labels could not be rendered: {e}"));
        match rendered {
            Ok(Ok(document)) => Ok(document),
            Ok(Err(SpoolError::Cancelled)) => Err(RenderError::Cancelled),
            Ok(Err(e)) => Err(failed(&e)),
            Err(e) => Err(failed(&e)),
        }
    }

    async fn follow(&self, job: &mut PrintJob) {
        let (Some(printer), Some(ipp_id)) = (self.registry.usable(&job.printer), job.ipp_job_id) else {
            return self.save(job, JobState::Failed, Some("The printer or its job id is gone".into()), Duration::ZERO);
        };
        match self.client(&printer).job_state(&printer.uri, ipp_id).await {
            Ok(IppJobState::Completed) => self.save(job, JobState::Completed, None, Duration::ZERO),
            Ok(state @ (IppJobState::Canceled | IppJobState::Aborted)) => {
                self.save(job, JobState::Failed, Some(format!("The printer reports the job {state:?}")), Duration::ZERO)
            }
            Ok(state) => {
                let message = Some(format!("Printer job {ipp_id}: {state:?}"));
                self.save(job, JobState::Printing, message, self.options.poll_interval)
            }
            // The job is on the printer already: keep asking, never resend.
            Err(e) => {
                self.save(job, JobState::Printing, Some(e.to_string()), self.options.poll_interval.max(self.backoff(2)))
            }
        }
    }
}

async fn worker(inner: std::sync::Weak<Inner>, wake: Arc<Notify>, stop: Arc<Notify>) {
    loop {
        let Some(strong) = inner.upgrade() else { return };
        let now = Utc::now();
        let jobs = match strong.store.open_jobs() {
            Ok(jobs) => jobs,
            Err(e) => {
                tracing::error!(error = %e, "print queue unreadable");
                Vec::new()
            }
        };
        let asked = strong.cancels.lock().requested.clone();
        for job in jobs.into_iter().filter(|j| j.next_attempt <= now || asked.contains(&j.id)) {
            if strong.stopping.load(Ordering::Relaxed) {
                return;
            }
            strong.step_in_hand(job.id).await;
        }
        let next = strong
            .store
            .open_jobs()
            .ok()
            .and_then(|jobs| jobs.iter().map(|j| j.next_attempt).min())
            .map(|t| (t - Utc::now()).to_std().unwrap_or(Duration::ZERO))
            .unwrap_or(Duration::from_secs(3600))
            .max(Duration::from_millis(50));
        // Not holding the service while asleep, so dropping it closes the queue file.
        drop(strong);
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(next) => {}
            _ = stop.notified() => return,
        }
    }
}

/// A document ready to send.
enum Rendered {
    Pdf(Vec<u8>),
    Raster { file: Spooled, len: u64 },
}

impl Rendered {
    fn format(&self) -> &'static str {
        match self {
            Rendered::Pdf(_) => "application/pdf",
            Rendered::Raster { .. } => "image/pwg-raster",
        }
    }

    fn document(&self) -> Document<'_> {
        match self {
            Rendered::Pdf(bytes) => Document::Bytes(bytes),
            Rendered::Raster { file, len } => Document::File { path: &file.0, len: *len },
        }
    }
}

/// A spool file, removed once its job is sent (or failed, or cancelled).
struct Spooled(PathBuf);

impl Drop for Spooled {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_file(&self.0)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(path = %self.0.display(), error = %e, "could not remove a spooled print document");
        }
    }
}

enum RenderError {
    Cancelled,
    Failed(String),
}
