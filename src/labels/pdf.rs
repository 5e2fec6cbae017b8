//! PDF renderer: one landscape page per sheet, in points, Courier-Bold, with an OpenAction
//! that opens the print dialog when the PDF is opened in a browser tab (spec §9 "auto-print").

use super::layout::{Mark, Page};
use printpdf::{
    BuiltinFont, Mm, Op, PaintMode, PdfDocument, PdfFontHandle, PdfPage, PdfSaveOptions, Point, Pt, Rect, TextItem,
};

/// The JavaScript the OpenAction runs: the viewer's print dialog, never a silent print.
pub const PRINT_SCRIPT: &str = "this.print({bUI: true, bSilent: false, bShrinkToFit: false});";

const PT_PER_MM: f32 = 72.0 / 25.4;

#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    #[error("the PDF has no catalog to attach the print action to")]
    NoCatalog,
    #[error("writing the PDF failed: {0}")]
    Write(#[from] std::io::Error),
}

/// Renders the pages to PDF bytes.
pub fn render(pages: &[Page], title: &str) -> Result<Vec<u8>, PdfError> {
    let mut doc = PdfDocument::new(title);
    let now = printpdf::OffsetDateTime::now();
    doc.metadata.info.creation_date = now;
    doc.metadata.info.modification_date = now;
    doc.metadata.info.metadata_date = now;
    doc.metadata.info.producer = format!("{} {}", crate::PRODUCT_NAME, crate::VERSION);
    doc.metadata.info.creator = crate::PRODUCT_NAME.to_string();
    let pdf_pages: Vec<PdfPage> = pages.iter().map(page_ops).collect();
    doc.with_pages(pdf_pages);
    let options = PdfSaveOptions { subset_fonts: false, ..PdfSaveOptions::default() };
    let mut warnings = Vec::new();
    let mut lo = doc.to_lopdf_document(&options, &mut warnings);
    add_print_open_action(&mut lo)?;
    lo.compress();
    let mut out = Vec::with_capacity(4096 + pages.len() * 2048);
    lo.save_to(&mut out)?;
    Ok(out)
}

fn page_ops(page: &Page) -> PdfPage {
    let h = page.height_mm;
    let mut ops = Vec::with_capacity(page.marks.len() * 2 + 4);
    ops.push(Op::SetFillColor {
        col: printpdf::Color::Greyscale(printpdf::Greyscale { percent: 0.0, icc_profile: None }),
    });
    for mark in &page.marks {
        match mark {
            Mark::Rect { x, y, w, h: rh } => ops.push(Op::DrawRectangle {
                rectangle: Rect {
                    x: Pt(x * PT_PER_MM),
                    y: Pt((h - y - rh) * PT_PER_MM),
                    width: Pt(w * PT_PER_MM),
                    height: Pt(rh * PT_PER_MM),
                    mode: Some(PaintMode::Fill),
                    winding_order: None,
                },
            }),
            Mark::Text { x, baseline, em, text } => {
                ops.push(Op::StartTextSection);
                ops.push(Op::SetFont {
                    font: PdfFontHandle::Builtin(BuiltinFont::CourierBold),
                    size: Pt(em * PT_PER_MM),
                });
                ops.push(Op::SetTextCursor { pos: Point { x: Pt(x * PT_PER_MM), y: Pt((h - baseline) * PT_PER_MM) } });
                ops.push(Op::ShowText { items: vec![TextItem::Text(text.clone())] });
                ops.push(Op::EndTextSection);
            }
            Mark::BarcodeInfo { .. } => {}
        }
    }
    PdfPage::new(Mm(page.width_mm), Mm(page.height_mm), ops)
}

/// printpdf 0.12 has no document-action hook, so the action goes into the catalog of the
/// lopdf document it produces.
fn add_print_open_action(doc: &mut lopdf::Document) -> Result<(), PdfError> {
    use lopdf::{Dictionary, Object, StringFormat};
    let root = doc.trailer.get(b"Root").and_then(Object::as_reference).map_err(|_| PdfError::NoCatalog)?;
    let action = Dictionary::from_iter(vec![
        ("Type", Object::Name(b"Action".to_vec())),
        ("S", Object::Name(b"JavaScript".to_vec())),
        ("JS", Object::String(PRINT_SCRIPT.as_bytes().to_vec(), StringFormat::Literal)),
    ]);
    let action_id = doc.add_object(action);
    let catalog = doc.get_object_mut(root).and_then(Object::as_dict_mut).map_err(|_| PdfError::NoCatalog)?;
    catalog.set("OpenAction", Object::Reference(action_id));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Page> {
        vec![
            Page {
                width_mm: 76.2,
                height_mm: 44.45,
                rotate_for_media: false,
                marks: vec![
                    Mark::Text { x: 2.0, baseline: 6.0, em: 4.0, text: "ABC-123 é".into() },
                    Mark::Rect { x: 2.0, y: 10.0, w: 0.5, h: 10.0 },
                ],
            };
            2
        ]
    }

    #[test]
    fn pdf_has_pages_print_action_font_and_date() {
        let bytes = render(&sample(), "Labels").unwrap();
        assert!(bytes.starts_with(b"%PDF-"));
        let doc = lopdf::Document::load_mem(&bytes).unwrap();
        assert_eq!(doc.get_pages().len(), 2);
        let root = doc.trailer.get(b"Root").unwrap().as_reference().unwrap();
        let catalog = doc.get_dictionary(root).unwrap();
        let action_ref = catalog.get(b"OpenAction").unwrap().as_reference().unwrap();
        let action = doc.get_dictionary(action_ref).unwrap();
        assert_eq!(action.get(b"S").unwrap().as_name().unwrap(), b"JavaScript");
        let js = action.get(b"JS").unwrap().as_str().unwrap();
        assert!(String::from_utf8_lossy(js).contains("this.print"));
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("D:1970"), "creation date must be set");
        let fonts: Vec<_> = doc
            .objects
            .values()
            .filter_map(|o| o.as_dict().ok())
            .filter_map(|d| d.get(b"BaseFont").ok())
            .filter_map(|b| b.as_name().ok())
            .map(|n| String::from_utf8_lossy(n).to_string())
            .collect();
        assert!(fonts.iter().any(|f| f == "Courier-Bold"), "{fonts:?}");
        let page = doc.get_pages().into_values().next().unwrap();
        let media = doc.get_dictionary(page).unwrap().get(b"MediaBox").unwrap().as_array().unwrap().clone();
        let w = media[2].as_float().unwrap();
        let h = media[3].as_float().unwrap();
        assert!(w > h, "landscape");
        assert!((w - 76.2 * PT_PER_MM).abs() < 0.5);
    }
}
