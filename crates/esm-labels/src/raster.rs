//! Raster renderer: draws a laid-out page into an 8-bit grey bitmap at a printer's resolution,
//! with Liberation Mono Bold (metric-compatible with Courier, SIL OFL) for text.

pub mod pwg;

use super::layout::{ADVANCE_EM, Mark, Page};
use ab_glyph::{Font, FontRef, PxScale, point};
use std::sync::OnceLock;

/// The embedded raster font; its licence is crates/esm-labels/assets/fonts/LICENSE-LiberationMono.txt.
const FONT_BYTES: &[u8] = include_bytes!("../assets/fonts/LiberationMono-Bold.ttf");

/// Largest bitmap side accepted, in dots (a 1 m label at 1200 dpi), so a bad template cannot
/// make us allocate gigabytes.
const MAX_SIDE: u32 = 48_000;

#[derive(Debug, thiserror::Error)]
pub enum RasterError {
    #[error("the embedded raster font cannot be read")]
    Font,
    #[error("a {width}x{height} dot page at {dpi} dpi is too large to rasterise")]
    TooLarge { width: u32, height: u32, dpi: u32 },
    #[error("the resolution must be between 72 and 2400 dpi, not {0}")]
    Resolution(u32),
}

fn font() -> Result<&'static FontRef<'static>, RasterError> {
    static FONT: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(FONT_BYTES).ok()).as_ref().ok_or(RasterError::Font)
}

/// An 8-bit grey image: 0 is black, 255 is white (the PWG `sgray` convention).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bitmap {
    pub width: u32,
    pub height: u32,
    pub dpi: u32,
    pub pixels: Vec<u8>,
}

impl Bitmap {
    pub fn blank(width: u32, height: u32, dpi: u32) -> Bitmap {
        Bitmap { width, height, dpi, pixels: vec![255; width as usize * height as usize] }
    }

    pub fn row(&self, y: u32) -> &[u8] {
        let w = self.width as usize;
        &self.pixels[y as usize * w..(y as usize + 1) * w]
    }

    fn darken(&mut self, x: i64, y: i64, coverage: f32) {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 {
            return;
        }
        let i = y as usize * self.width as usize + x as usize;
        let ink = (coverage.clamp(0.0, 1.0) * 255.0) as u8;
        self.pixels[i] = self.pixels[i].min(255 - ink);
    }

    fn fill(&mut self, x0: i64, y0: i64, x1: i64, y1: i64) {
        let (x0, x1) = (x0.clamp(0, self.width as i64) as usize, x1.clamp(0, self.width as i64) as usize);
        let (y0, y1) = (y0.clamp(0, self.height as i64) as usize, y1.clamp(0, self.height as i64) as usize);
        let w = self.width as usize;
        for y in y0..y1 {
            self.pixels[y * w + x0..y * w + x1.max(x0)].fill(0);
        }
    }

    /// Turned a quarter clockwise: a sticker laid out landscape, fed portrait.
    pub fn rotated_clockwise(&self) -> Bitmap {
        let (w, h) = (self.width as usize, self.height as usize);
        let mut out = vec![255; w * h];
        for y in 0..h {
            for x in 0..w {
                // Source (x, y) lands at column h-1-y, row x of the h-wide result.
                out[x * h + (h - 1 - y)] = self.pixels[y * w + x];
            }
        }
        Bitmap { width: self.height, height: self.width, dpi: self.dpi, pixels: out }
    }

    /// Pure black and white, as label printers print (threshold at mid grey).
    pub fn thresholded(&self) -> Bitmap {
        Bitmap { pixels: self.pixels.iter().map(|p| if *p < 128 { 0 } else { 255 }).collect(), ..self.clone() }
    }

    /// PNG bytes, for previews and golden images.
    pub fn to_png(&self) -> Result<Vec<u8>, image::ImageError> {
        let mut out = std::io::Cursor::new(Vec::new());
        let img = image::GrayImage::from_raw(self.width, self.height, self.pixels.clone()).ok_or_else(|| {
            image::ImageError::Parameter(image::error::ParameterError::from_kind(
                image::error::ParameterErrorKind::DimensionMismatch,
            ))
        })?;
        img.write_to(&mut out, image::ImageFormat::Png)?;
        Ok(out.into_inner())
    }
}

/// Renders one page at `dpi`; rotated media come out turned for the printer.
pub fn render(page: &Page, dpi: u32) -> Result<Bitmap, RasterError> {
    if !(72..=2400).contains(&dpi) {
        return Err(RasterError::Resolution(dpi));
    }
    let per_mm = dpi as f32 / 25.4;
    let width = (page.width_mm * per_mm).round() as u32;
    let height = (page.height_mm * per_mm).round() as u32;
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return Err(RasterError::TooLarge { width, height, dpi });
    }
    let font = font()?;
    let mut bitmap = Bitmap::blank(width, height, dpi);
    let dots = |mm: f32| (mm * per_mm).round() as i64;
    for mark in &page.marks {
        match mark {
            // Bars are laid out on whole dots at this dpi, so rounding keeps every module exact.
            Mark::Rect { x, y, w, h } => bitmap.fill(dots(*x), dots(*y), dots(x + w), dots(y + h)),
            Mark::Text { x, baseline, em, text } => {
                draw_text(&mut bitmap, font, *x * per_mm, *baseline * per_mm, em * per_mm, text)
            }
            Mark::BarcodeInfo { .. } => {}
        }
    }
    Ok(if page.rotate_for_media { bitmap.rotated_clockwise() } else { bitmap })
}

fn draw_text(bitmap: &mut Bitmap, font: &FontRef<'_>, x: f32, baseline: f32, em_px: f32, text: &str) {
    let units_per_em = font.units_per_em().unwrap_or(2048.0);
    // ab_glyph scales by ascent-to-descent height; convert so the em is `em_px` tall like the PDF's.
    let scale = PxScale::from(em_px * font.height_unscaled() / units_per_em);
    for (i, c) in text.chars().enumerate() {
        let glyph = font.glyph_id(c).with_scale_and_position(scale, point(x + i as f32 * ADVANCE_EM * em_px, baseline));
        if let Some(outlined) = font.outline_glyph(glyph) {
            let bounds = outlined.px_bounds();
            outlined.draw(|gx, gy, coverage| {
                bitmap.darken(bounds.min.x as i64 + gx as i64, bounds.min.y as i64 + gy as i64, coverage);
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(rotate: bool) -> Page {
        Page {
            width_mm: 25.4,
            height_mm: 12.7,
            rotate_for_media: rotate,
            marks: vec![
                Mark::Rect { x: 2.54, y: 2.54, w: 2.54, h: 2.54 },
                Mark::Text { x: 8.0, baseline: 8.0, em: 3.0, text: "AB".into() },
            ],
        }
    }

    #[test]
    fn rects_land_on_exact_dots_and_text_has_ink() {
        let bmp = render(&page(false), 100).unwrap();
        assert_eq!((bmp.width, bmp.height), (100, 50));
        assert_eq!(bmp.row(10)[10], 0);
        assert_eq!(bmp.row(10)[19], 0);
        assert_eq!(bmp.row(10)[20], 255);
        assert_eq!(bmp.row(9)[10], 255);
        let text_ink = (15..35).flat_map(|y| bmp.row(y)[31..60].to_vec()).filter(|p| *p < 128).count();
        assert!(text_ink > 20, "text drawn: {text_ink} dark dots");
    }

    #[test]
    fn rotation_turns_the_page() {
        let flat = render(&page(false), 100).unwrap();
        let turned = render(&page(true), 100).unwrap();
        assert_eq!((turned.width, turned.height), (flat.height, flat.width));
        assert_eq!(turned.row(10)[flat.height as usize - 1 - 10], 0);
        assert!(render(&page(false), 10).is_err());
    }
}
