//! Labels: records from the three sources → one layout per label type → PDF or raster.
//!
//! The HTTP handler and the CLI call [`build_records`] with a [`LabelLookups`] over the provider,
//! then [`render_pdf`] (new browser tab) or [`render_raster_pages`] (PWG raster for IPP). When
//! Exact Online cannot be reached, the handler builds shop order and item labels from the local
//! copy instead ([`build_from_local_copy`] over [`StoreLookups`]): a WARNING that names the copy's
//! time; goods receipts are not in the copy and answer [`NeedsExact`].

pub mod provider_lookups;
pub mod store_lookups;

// Records, layouts, barcodes and renderers are their own crate; this module adds the lookups
// (provider and local copy), the HTTP error mapping and the command line.
pub use esm_labels::{barcode, layout, pdf, raster, records, templates, types};

pub use barcode::{BarcodeError, Symbology};
pub use layout::{LayoutError, Page, Template};
pub use provider_lookups::ProviderLookups;
pub use records::{
    LabelBatch, LabelInfoRows, LabelLookups, LabelRecord, LabelSource, LabelStatus, NO_LABELS_MESSAGE, RecordError,
    Selection, SkippedWarehouses, build_records,
};
pub use store_lookups::{LocalCopyReason, NeedsExact, StoreLookups, build_from_local_copy};
pub use templates::Templates;
pub use types::LabelType;

use crate::error::{AppError, Code, Text};

/// The resolution the PDF's bars are snapped to: whole dots at 300 dpi also land on whole dots
/// at 600 dpi and match `pdftoppm -r 300`.
pub const PDF_GRID_DPI: f32 = 300.0;

/// The body of `POST /api/v1/labels` (DESIGN.md): `{source, ids, type}`; `printer` for printing.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize, utoipa::ToSchema)]
pub struct LabelRequest {
    pub source: LabelSource,
    pub ids: Vec<Selection>,
    /// A type name or number; missing means type 1 (spec §9).
    #[serde(rename = "type", default)]
    pub label_type: LabelType,
    /// The printer to print on (printing only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "Zebra magazijn")]
    pub printer: Option<String>,
}

impl LabelRequest {
    /// The ids as the provider writes them (lower-case GUIDs); anything else is refused before a
    /// call is made, with the offending value named.
    pub fn normalized_ids(&self) -> Result<Vec<Selection>, String> {
        self.ids
            .iter()
            .map(|s| {
                let id = s.id().trim();
                if !crate::exact::odata::is_guid(id) {
                    return Err(format!("'{id}' is not an ID: ids are Exact Online GUIDs"));
                }
                let id = id.to_ascii_lowercase();
                Ok(match s.print_count() {
                    None => Selection::Id(id),
                    Some(n) => Selection::WithCount { id, print_count: Some(n) },
                })
            })
            .collect()
    }

    /// Refuses a request past the label limits before anything is read for it: too many ids, or
    /// more labels asked for by their print counts (times `copies`) than one job may hold.
    pub fn within_limits(&self, copies: u32) -> Result<(), String> {
        use crate::limits::LABEL_MAX_IDS;
        if self.ids.len() > LABEL_MAX_IDS {
            return Err(format!("At most {LABEL_MAX_IDS} ids per label request, got {}", self.ids.len()));
        }
        let asked: u64 = self.ids.iter().filter_map(Selection::print_count).map(u64::from).sum();
        check_label_count(asked.saturating_mul(u64::from(copies.max(1))))
    }
}

/// Refuses more labels than one request or print job may make ([`crate::limits::LABEL_MAX_PER_JOB`]).
pub fn check_label_count(labels: u64) -> Result<(), String> {
    use crate::limits::LABEL_MAX_PER_JOB;
    if labels > LABEL_MAX_PER_JOB as u64 {
        return Err(format!(
            "Too many labels: at most {LABEL_MAX_PER_JOB} per request or print job (print counts × copies), got {labels}"
        ));
    }
    Ok(())
}

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
            // Provider failures keep their own mapping (expired token, timeout, rate limit); the
            // local copy's failures are the store's, or a source it cannot serve.
            LabelError::Records(RecordError::Lookup(cause)) => {
                let cause = match cause.downcast::<crate::exact::ExactError>() {
                    Ok(exact) => return exact.into(),
                    Err(cause) => cause,
                };
                let cause = match cause.downcast::<crate::store::StoreError>() {
                    Ok(store) => return store.into(),
                    Err(cause) => cause,
                };
                match cause.downcast::<NeedsExact>() {
                    Ok(NeedsExact) => AppError::said(Code::ProviderUnreachable, Text::GoodsReceiptLabelsNeedExact),
                    Err(cause) => AppError::new(Code::Provider).caused_by(cause),
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_body_follows_the_contract() {
        let r: LabelRequest = serde_json::from_str(
            r#"{"source": "goods_receipt", "ids": ["a", {"id": "b", "print_count": 2}], "type": "receipts"}"#,
        )
        .unwrap();
        assert_eq!(r.source, LabelSource::GoodsReceipt);
        assert_eq!(r.ids.len(), 2);
        assert_eq!(r.label_type.number(), 7);
        let r: LabelRequest = serde_json::from_str(r#"{"source": "shop_order", "ids": ["x"]}"#).unwrap();
        assert_eq!(r.label_type, LabelType::DEFAULT);
        let r: LabelRequest = serde_json::from_str(r#"{"source": "item_direct", "ids": [], "type": 6}"#).unwrap();
        assert_eq!(r.label_type.name(), "cnc-new");
        assert!(serde_json::from_str::<LabelRequest>(r#"{"source": "nope", "ids": []}"#).is_err());
    }

    #[test]
    fn requests_past_the_label_limits_are_refused_before_any_read() {
        use crate::limits::{LABEL_MAX_IDS, LABEL_MAX_PER_JOB};
        let request = |ids: Vec<Selection>| LabelRequest {
            source: LabelSource::ItemDirect,
            ids,
            label_type: LabelType::DEFAULT,
            printer: None,
        };
        let ids = |n: usize| (0..n).map(|i| Selection::Id(format!("id-{i}"))).collect::<Vec<_>>();
        assert!(request(ids(LABEL_MAX_IDS)).within_limits(100).is_ok(), "counts come from the data");
        let err = request(ids(LABEL_MAX_IDS + 1)).within_limits(1).expect_err("too many ids");
        assert!(err.contains("ids per label request"), "{err}");
        let counted = |n: u32| vec![Selection::WithCount { id: "a".into(), print_count: Some(n) }];
        let max = u32::try_from(LABEL_MAX_PER_JOB).expect("fits");
        assert!(request(counted(max)).within_limits(1).is_ok());
        assert!(request(counted(max / 10 + 1)).within_limits(10).expect_err("× copies").contains("Too many labels"));
        assert!(request(counted(u32::MAX)).within_limits(u32::MAX).is_err(), "no overflow");
        assert!(check_label_count(LABEL_MAX_PER_JOB as u64 + 1).is_err());
    }

    #[test]
    fn errors_map_to_the_catalogue() {
        let no_labels: AppError = LabelError::Records(RecordError::NoLabels { messages: vec![] }).into();
        assert_eq!(no_labels.code(), Code::NoLabels);
        assert_eq!(no_labels.message(), NO_LABELS_MESSAGE);
        let empty: AppError = LabelError::Records(RecordError::EmptyPayload).into();
        assert_eq!(empty.code(), Code::EmptyPayload);
        let bad = barcode::encode(Symbology::Ean, "123").unwrap_err();
        let bad: AppError = LabelError::Layout(LayoutError::Barcode(bad)).into();
        assert_eq!(bad.code(), Code::BadRequest);
        assert_eq!(bad.message(), "EAN must be of length 8, 12 or 13");
    }
}
