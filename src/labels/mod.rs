//! Labels: records from the three sources → one layout per label type → PDF or raster.
//!
//! The HTTP handler and the CLI call [`build_records`] with a [`LabelLookups`] over the provider,
//! then [`render_pdf`] (new browser tab) or [`render_raster_pages`] (PWG raster for IPP).

pub mod barcode;
pub mod layout;
pub mod pdf;
pub mod raster;
pub mod records;
pub mod templates;
pub mod types;

pub use barcode::{BarcodeError, Symbology};
pub use layout::{LayoutError, Page, Template};
pub use records::{
    LabelBatch, LabelInfoRows, LabelLookups, LabelRecord, LabelSource, LabelStatus, NO_LABELS_MESSAGE, RecordError,
    Selection, build_records,
};
pub use templates::Templates;
pub use types::LabelType;

use crate::error::{AppError, Code};

/// The resolution the PDF's bars are snapped to: whole dots at 300 dpi also land on whole dots
/// at 600 dpi and match `pdftoppm -r 300`.
pub const PDF_GRID_DPI: f32 = 300.0;

/// Anything that stops labels from being produced.
#[derive(Debug, thiserror::Error)]
pub enum LabelError {
    #[error(transparent)]
    Records(#[from] RecordError),
    #[error(transparent)]
    Layout(#[from] LayoutError),
    #[error("no template for label type {0}")]
    NoTemplate(LabelType),
    #[error(transparent)]
    Pdf(#[from] pdf::PdfError),
    #[error(transparent)]
    Raster(#[from] raster::RasterError),
}

impl LabelError {
    /// The spec §4 result kind this error is reported as.
    pub fn status(&self) -> LabelStatus {
        match self {
            LabelError::Records(e) => e.status(),
            _ => LabelStatus::Error,
        }
    }
}

impl From<LabelError> for AppError {
    fn from(err: LabelError) -> Self {
        match err {
            LabelError::Records(RecordError::NoLabels { .. }) => AppError::new(Code::NoLabels),
            LabelError::Records(RecordError::EmptyPayload) => AppError::new(Code::EmptyPayload),
            LabelError::Records(RecordError::Lookup(cause)) => AppError::new(Code::Provider).caused_by(cause),
            // Barcode and fit problems name the bad value: the user can fix the item code.
            LabelError::Layout(e @ (LayoutError::Barcode(_) | LayoutError::BarcodeTooWide { .. })) => {
                AppError::bad_request(e.to_string())
            }
            other => AppError::internal(other),
        }
    }
}

/// Lays out every copy of every record of `batch` with its type's template.
pub fn layout_batch(templates: &Templates, batch: &LabelBatch, dpi: f32) -> Result<Vec<Page>, LabelError> {
    let template = templates.get(batch.label_type).ok_or(LabelError::NoTemplate(batch.label_type))?;
    Ok(template.layout(&batch.expanded(), dpi)?)
}

/// The multi-page PDF of a batch for a browser tab, opening the print dialog when opened.
pub fn render_pdf(templates: &Templates, batch: &LabelBatch) -> Result<Vec<u8>, LabelError> {
    render_pdf_at(templates, batch, PDF_GRID_DPI)
}

/// The PDF with its bars on whole dots of a printer of `dpi` (when the printer is known).
pub fn render_pdf_at(templates: &Templates, batch: &LabelBatch, dpi: f32) -> Result<Vec<u8>, LabelError> {
    let pages = layout_batch(templates, batch, dpi)?;
    Ok(pdf::render(&pages, &format!("Labels {}", batch.label_type))?)
}

/// The batch as bitmaps at the printer's resolution, turned for rotated media.
pub fn render_raster_pages(
    templates: &Templates,
    batch: &LabelBatch,
    dpi: u32,
) -> Result<Vec<raster::Bitmap>, LabelError> {
    let pages = layout_batch(templates, batch, dpi as f32)?;
    let mut out = Vec::with_capacity(pages.len());
    for page in &pages {
        out.push(raster::render(page, dpi)?);
    }
    Ok(out)
}
