//! A label batch as a PWG raster document at the printer's resolution and pixel format.

use super::ipp_client::PrinterCapabilities;
use crate::labels::raster::pwg::{self, PwgType};
use crate::labels::{LabelBatch, LabelError, Templates, render_raster_pages};

/// Renders for a raster-only printer; grey is the fallback when it names no type we know.
pub fn render_pwg(
    templates: &Templates,
    batch: &LabelBatch,
    caps: &PrinterCapabilities,
) -> Result<Vec<u8>, LabelError> {
    let kind = PwgType::choose(caps.pwg_raster_types.iter().map(String::as_str)).unwrap_or(PwgType::Sgray8);
    let pages = render_raster_pages(templates, batch, caps.raster_dpi())?;
    Ok(pwg::encode(&pages, kind))
}
