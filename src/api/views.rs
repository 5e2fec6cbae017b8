//! Answer shapes that several resources share: a row of a table (the data API and the live
//! reads), a print job (the print queue and label printing). Handlers take them from here, so no
//! handler imports another.

use crate::printing::{JobState, PrintJob};
use serde::Serialize;
use serde_json::{Map, Value, json};
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema};

/// A row of a synced or live table: the provider's record, whose fields depend on the table.
pub struct TableRow(pub Map<String, Value>);

// By hand: utoipa keeps no example on a free-form object.
impl utoipa::PartialSchema for TableRow {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .description(Some(
                "A row of a synced or live table: the provider's record, whose fields depend on the table",
            ))
            .examples([json!({
                "ID": "0badc0de-0000-4000-8000-000000000010",
                "Code": "RVS-PLAAT-2MM",
                "Description": "RVS plaat 2 mm",
                "Timestamp": 41_200_317
            })])
            .into()
    }
}

impl ToSchema for TableRow {}

/// A job as the user sees it: no label data, the state in words.
#[derive(Serialize, ToSchema)]
pub(crate) struct JobView<'a> {
    #[schema(example = 17)]
    pub(crate) id: u64,
    #[schema(example = "Zebra magazijn")]
    pub(crate) printer: &'a str,
    /// The label type's name.
    #[schema(example = "electrical-72001926")]
    pub(crate) label_type: &'static str,
    #[schema(example = "Shop order 24005")]
    pub(crate) title: &'a str,
    #[schema(example = 12)]
    pub(crate) labels: usize,
    pub(crate) state: JobState,
    /// The state in words.
    #[schema(example = "Waiting for printer")]
    pub(crate) state_text: &'static str,
    /// A cancel was asked for and is on its way (the job is rendering, being sent or printing).
    pub(crate) cancelling: bool,
    /// The printer's message, or why the job failed.
    #[schema(required = true)]
    pub(crate) message: Option<&'a str>,
    pub(crate) attempts: u32,
    /// The document format sent (`application/pdf` or `image/pwg-raster`).
    #[schema(example = "application/pdf")]
    #[schema(required = true)]
    pub(crate) format: Option<&'a str>,
    /// The job's number at the printer.
    #[schema(required = true)]
    pub(crate) printer_job_id: Option<i32>,
    #[schema(value_type = String, format = DateTime, example = "2026-11-21T08:30:00Z")]
    pub(crate) created: chrono::DateTime<chrono::Utc>,
    #[schema(value_type = String, format = DateTime, example = "2026-11-21T08:30:04Z")]
    pub(crate) updated: chrono::DateTime<chrono::Utc>,
}

pub(crate) fn job_view(job: &PrintJob) -> JobView<'_> {
    JobView {
        id: job.id,
        printer: &job.printer,
        label_type: job.label_type.name(),
        title: &job.title,
        labels: job.records.iter().map(|r| r.print_count as usize).sum(),
        state: job.state,
        state_text: match job.state {
            JobState::Queued => "Queued",
            JobState::WaitingForPrinter => "Waiting for printer",
            JobState::Rendering => "Rendering",
            JobState::Sending => "Sending",
            JobState::Printing => "Printing",
            JobState::Completed => "Completed",
            JobState::Failed => "Failed",
            JobState::Cancelled => "Cancelled",
        },
        cancelling: false,
        message: job.message.as_deref(),
        attempts: job.attempts,
        format: job.format.as_deref(),
        printer_job_id: job.ipp_job_id,
        created: job.created,
        updated: job.updated,
    }
}
