//! PDF renderer: one landscape page per sheet, in points, Courier-Bold, with an OpenAction
//! that opens the print dialog when the PDF is opened in a browser tab (spec §9 "auto-print").
//!
//! printpdf builds the document (pages, media boxes, the Courier-Bold resource, metadata); the
//! page content streams are written here directly with the same operators printpdf emits
//! (`re`/`f`, `BT Tf Td Tj ET`), because converting tens of thousands of bar rectangles through
//! its operation list cost more than everything else together (the 10x-over-reportlab target).

use super::layout::{Mark, Page};
use flate2::{Compression, write::ZlibEncoder};
use printpdf::{BuiltinFont, Mm, Op, PdfDocument, PdfFontHandle, PdfPage, PdfSaveOptions, Pt};
use std::io::Write;

/// The JavaScript the OpenAction runs: the viewer's print dialog, never a silent print.
pub const PRINT_SCRIPT: &str = "this.print({bUI: true, bSilent: false, bShrinkToFit: false});";

const PT_PER_MM: f32 = 72.0 / 25.4;
const FONT: BuiltinFont = BuiltinFont::CourierBold;

#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    #[error("the PDF has no catalog to attach the print action to")]
    NoCatalog,
    #[error("the PDF has {found} pages where {expected} were laid out")]
    PageCount { expected: usize, found: usize },
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
    doc.metadata.info.producer = format!("{} {}", esm_base::PRODUCT_NAME, esm_base::VERSION);
    doc.metadata.info.creator = esm_base::PRODUCT_NAME.to_string();
    // printpdf lays down the document with its first page (Courier-Bold in the resources); the
    // other pages share those resources and are cloned from it, which costs a dictionary each.
    let Some(first) = pages.first() else {
        return Err(PdfError::PageCount { expected: 1, found: 0 });
    };
    let ops = vec![
        Op::StartTextSection,
        Op::SetFont { font: PdfFontHandle::Builtin(FONT), size: Pt(10.0) },
        Op::EndTextSection,
    ];
    doc.with_pages(vec![PdfPage::new(Mm(first.width_mm), Mm(first.height_mm), ops)]);
    let options = PdfSaveOptions { subset_fonts: false, ..PdfSaveOptions::default() };
    let mut warnings = Vec::new();
    let mut lo = doc.to_lopdf_document(&options, &mut warnings);
    add_print_open_action(&mut lo)?;
    lo.compress();
    let page_ids: Vec<lopdf::ObjectId> = lo.get_pages().into_values().collect();
    let [first_id] = page_ids[..] else {
        return Err(PdfError::PageCount { expected: 1, found: page_ids.len() });
    };
    let template = lo.get_object(first_id).and_then(lopdf::Object::as_dict).map_err(|_| PdfError::NoCatalog)?.clone();
    let parent = template.get(b"Parent").and_then(lopdf::Object::as_reference).map_err(|_| PdfError::NoCatalog)?;
    if let Ok(old) = template.get(b"Contents").and_then(lopdf::Object::as_reference) {
        // The skeleton's font-selecting stream is replaced by the real content below.
        lo.objects.remove(&old);
    }
    let font = PdfFontHandle::Builtin(FONT).get_resource_name();
    let mut kids = Vec::with_capacity(pages.len());
    for (i, page) in pages.iter().enumerate() {
        let stream = lopdf::Stream::new(
            lopdf::Dictionary::from_iter(vec![("Filter", lopdf::Object::Name(b"FlateDecode".to_vec()))]),
            deflate(&content(page, &font))?,
        )
        .with_compression(false);
        let stream_id = lo.add_object(stream);
        let mut dict = template.clone();
        let bx = lopdf::Object::Array(vec![
            0.into(),
            0.into(),
            lopdf::Object::Real(page.width_mm * PT_PER_MM),
            lopdf::Object::Real(page.height_mm * PT_PER_MM),
        ]);
        for key in ["MediaBox", "TrimBox", "CropBox"] {
            dict.set(key, bx.clone());
        }
        dict.set("Contents", lopdf::Object::Reference(stream_id));
        let id = if i == 0 {
            lo.objects.insert(first_id, lopdf::Object::Dictionary(dict));
            first_id
        } else {
            lo.add_object(dict)
        };
        kids.push(lopdf::Object::Reference(id));
    }
    let count = kids.len() as i64;
    let tree = lo.get_object_mut(parent).and_then(lopdf::Object::as_dict_mut).map_err(|_| PdfError::NoCatalog)?;
    tree.set("Kids", lopdf::Object::Array(kids));
    tree.set("Count", count);
    let mut out = Vec::with_capacity(4096 + pages.len() * 1024);
    lo.save_to(&mut out)?;
    Ok(out)
}

fn deflate(raw: &[u8]) -> Result<Vec<u8>, std::io::Error> {
    // Fast compression: content streams of bars and short strings shrink well at level 1.
    let mut encoder = ZlibEncoder::new(Vec::with_capacity(raw.len() / 3), Compression::fast());
    encoder.write_all(raw)?;
    encoder.finish()
}

/// A page's content stream: all bars as one filled path, then each text line.
fn content(page: &Page, font: &str) -> Vec<u8> {
    let h = page.height_mm;
    let mut out = Vec::with_capacity(16 + page.marks.len() * 40);
    out.extend_from_slice(b"0 g\n");
    let mut rects = 0;
    for mark in &page.marks {
        if let Mark::Rect { x, y, w, h: rh } = mark {
            for v in [x * PT_PER_MM, (h - y - rh) * PT_PER_MM, w * PT_PER_MM, rh * PT_PER_MM] {
                number(&mut out, v);
                out.push(b' ');
            }
            out.extend_from_slice(b"re\n");
            rects += 1;
        }
    }
    if rects > 0 {
        out.extend_from_slice(b"f\n");
    }
    for mark in &page.marks {
        if let Mark::Text { x, baseline, em, text } = mark {
            out.extend_from_slice(b"BT /");
            out.extend_from_slice(font.as_bytes());
            out.push(b' ');
            number(&mut out, em * PT_PER_MM);
            out.extend_from_slice(b" Tf ");
            number(&mut out, x * PT_PER_MM);
            out.push(b' ');
            number(&mut out, (h - baseline) * PT_PER_MM);
            out.extend_from_slice(b" Td (");
            string(&mut out, text);
            out.extend_from_slice(b") Tj ET\n");
        }
    }
    out
}

/// A PDF number with three decimals (a thousandth of a point is far below a printer dot).
fn number(out: &mut Vec<u8>, v: f32) {
    let milli = (v as f64 * 1000.0).round() as i64;
    if milli < 0 {
        out.push(b'-');
    }
    let milli = milli.unsigned_abs();
    let (mut whole, mut frac) = (milli / 1000, milli % 1000);
    // Digits by hand: this runs four times per bar, and formatting allocations showed in the bench.
    let mut digits = [0u8; 20];
    let mut n = 0;
    loop {
        digits[n] = b'0' + (whole % 10) as u8;
        n += 1;
        whole /= 10;
        if whole == 0 {
            break;
        }
    }
    out.extend(digits[..n].iter().rev());
    if frac != 0 {
        out.push(b'.');
        let mut places = 3;
        while frac % 10 == 0 {
            frac /= 10;
            places -= 1;
        }
        let div = [1, 10, 100, 1000][places - 1];
        let mut scale = div;
        while scale > 0 {
            out.push(b'0' + (frac / scale % 10) as u8);
            scale /= 10;
        }
    }
}

/// A literal string in WinAnsi (the layout keeps text to Latin-1, where the two agree).
fn string(out: &mut Vec<u8>, text: &str) {
    for c in text.chars() {
        let b = u32::from(c).min(0xff) as u8;
        if matches!(b, b'(' | b')' | b'\\') {
            out.push(b'\\');
        }
        out.push(b);
    }
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
    fn content_numbers_and_strings() {
        let mut out = Vec::new();
        number(&mut out, 12.5);
        out.push(b' ');
        number(&mut out, -0.0004);
        out.push(b' ');
        number(&mut out, 3.0);
        out.push(b' ');
        number(&mut out, -1.25);
        out.push(b' ');
        number(&mut out, 100.075);
        out.push(b' ');
        number(&mut out, 0.5);
        assert_eq!(String::from_utf8(out).unwrap(), "12.5 0 3 -1.25 100.075 0.5");
        let mut out = Vec::new();
        string(&mut out, "a(b)\\é");
        assert_eq!(out, b"a\\(b\\)\\\\\xe9");
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
