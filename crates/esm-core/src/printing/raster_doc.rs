//! A label batch as a PWG raster document at the printer's resolution and pixel format, spooled
//! to a file page by page: a 5,000-label job at 600 dpi holds one page bitmap at a time, not
//! gigabytes of them.

use super::ipp_client::PrinterCapabilities;
use crate::labels::raster::{self, pwg};
use crate::labels::{LabelBatch, LabelError, Templates, layout_batch};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Debug, thiserror::Error)]
pub enum SpoolError {
    #[error(transparent)]
    Labels(#[from] LabelError),
    #[error("the print spool could not be written: {0}")]
    Io(#[from] std::io::Error),
    /// The job was cancelled while its pages were being rendered.
    #[error("cancelled while rendering")]
    Cancelled,
}

/// Renders for a raster-only printer into `path` (replaced), checking `cancel` between pages;
/// grey is the fallback when the printer names no type we know. Answers the file's length.
pub fn spool_pwg(
    templates: &Templates,
    batch: &LabelBatch,
    caps: &PrinterCapabilities,
    path: &Path,
    cancel: &AtomicBool,
) -> Result<u64, SpoolError> {
    let kind = pwg::PwgType::choose(caps.pwg_raster_types.iter().map(String::as_str)).unwrap_or(pwg::PwgType::Sgray8);
    let dpi = caps.raster_dpi();
    // The layout is a list of drawing instructions per page: small beside the bitmaps.
    let pages = layout_batch(templates, batch, dpi as f32)?;
    let total = pages.len() as u32;
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    file.write_all(pwg::SYNC)?;
    let mut encoded = Vec::new();
    for page in &pages {
        if cancel.load(Ordering::Relaxed) {
            return Err(SpoolError::Cancelled);
        }
        let bitmap = raster::render(page, dpi).map_err(LabelError::from)?;
        encoded.clear();
        pwg::encode_page(&bitmap, kind, total, &mut encoded);
        drop(bitmap);
        file.write_all(&encoded)?;
    }
    let file = file.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    Ok(file.metadata()?.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::{LabelRecord, LabelStatus, LabelType, render_raster_pages};

    fn batch(labels: u32) -> LabelBatch {
        let record = LabelRecord {
            item_code: "A-100".into(),
            description: "Bolt M8".into(),
            print_count: labels,
            ..LabelRecord::default()
        };
        LabelBatch {
            status: LabelStatus::Success,
            messages: vec![],
            label_type: LabelType::DEFAULT,
            records: vec![record],
        }
    }

    fn caps(types: &[&str]) -> PrinterCapabilities {
        PrinterCapabilities {
            pwg_raster_types: types.iter().map(|t| t.to_string()).collect(),
            pwg_raster_resolutions: vec![203],
            ..Default::default()
        }
    }

    #[test]
    fn the_spooled_file_is_the_document_encoded_at_once() {
        let templates = Templates::builtin().expect("the built-in templates");
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("job.pwg");
        for kind in ["black_1", "sgray_8", "srgb_8"] {
            let len =
                spool_pwg(&templates, &batch(3), &caps(&[kind]), &path, &AtomicBool::new(false)).expect("spooled");
            let spooled = std::fs::read(&path).expect("the spool file");
            assert_eq!(spooled.len() as u64, len);
            let pages = render_raster_pages(&templates, &batch(3), 203).expect("pages");
            let kind = pwg::PwgType::from_keyword(kind).expect("a known type");
            assert_eq!(spooled, pwg::encode(&pages, kind), "{kind:?}");
        }
    }

    #[test]
    fn a_cancelled_job_stops_rendering() {
        let templates = Templates::builtin().expect("the built-in templates");
        let dir = tempfile::tempdir().expect("a temporary directory");
        let cancel = AtomicBool::new(true);
        let err = spool_pwg(&templates, &batch(50), &caps(&[]), &dir.path().join("job.pwg"), &cancel).unwrap_err();
        assert!(matches!(err, SpoolError::Cancelled), "{err}");
    }
}
