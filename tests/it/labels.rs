//! Labels against real peers: every label type and symbology is rendered to PDF, rasterised with
//! `pdftoppm -r 300` and every barcode decoded with `zbarimg`; the raster renderer's output is
//! decoded too and compared with golden images (regenerate with ESM_UPDATE_GOLDEN=1).

use std::path::{Path, PathBuf};
use std::process::Command;
use stock_manager::labels::layout::{Element, Mark};
use stock_manager::labels::{
    LabelBatch, LabelRecord, LabelStatus, LabelType, Symbology, Templates, layout_batch, render_pdf,
    render_raster_pages,
};

/// One page's text per PDF page (pdftotext ends each with a form feed), whitespace collapsed;
/// `None` without pdftotext.
pub(crate) fn page_texts(pdf: &[u8]) -> Option<Vec<String>> {
    let pdftotext = tool("pdftotext")?;
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("labels.pdf");
    std::fs::write(&file, pdf).expect("write pdf");
    let out = std::process::Command::new(pdftotext).arg(&file).arg("-").output().expect("pdftotext runs");
    let all = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut pages: Vec<String> =
        all.split('\u{c}').map(|p| p.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    if pages.last().is_some_and(String::is_empty) {
        pages.pop();
    }
    Some(pages)
}

/// A provider field as a label prints it: trimmed text, numbers without quotes, null as empty.
pub(crate) fn field_text(v: &serde_json::Value, key: &str) -> String {
    match &v[key] {
        serde_json::Value::String(s) => s.trim().to_string(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A tool from the real world, or None when it is missing outside CI (under CI a missing tool fails).
pub fn tool(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|d| d.join(name)).find(|p| p.is_file()));
    if found.is_none() {
        assert!(std::env::var_os("CI").is_none(), "{name} is required under CI (scripts/setup installs it)");
        eprintln!("SKIPPED: {name} is not installed (scripts/setup installs it)");
    }
    found
}

fn record(code: &str, description: &str) -> LabelRecord {
    LabelRecord {
        item_id: format!("id-{code}"),
        item_code: code.into(),
        description: description.into(),
        shop_order_number: Some("4711".into()),
        project_description: Some("Alpha hall".into()),
        purchase_order_number: Some("20001".into()),
        receipt_number: Some("55".into()),
        supplier_code: Some("S100".into()),
        supplier_description: Some("Bolts Inc".into()),
        warehouse_and_location_for_label: "W-L: WH2-B-07".into(),
        post_processing_description: Some("Zinc plated".into()),
        free_text_06: Some("400V".into()),
        free_text_08: Some("IP65".into()),
        print_count: 1,
        ..LabelRecord::default()
    }
}

fn batch(label_type: LabelType, records: Vec<LabelRecord>) -> LabelBatch {
    LabelBatch { status: LabelStatus::Success, messages: vec![], label_type, records }
}

/// The codes a type is tested with: as many as fill one sheet, so every slot is read.
fn sample_batch(label_type: LabelType) -> LabelBatch {
    let templates = Templates::builtin().expect("templates");
    let slots = templates.get(label_type).expect("template").slots.len();
    let records = (0..slots)
        .map(|i| record(&format!("EL-{}{i}", label_type.number()), "Cable gland M20 nickel plated brass with lock nut"))
        .collect();
    batch(label_type, records)
}

/// Decodes every barcode in an image file with zbarimg, sorted (UPC-A reported as its 12 digits).
pub fn zbar_decode(zbarimg: &Path, image: &Path) -> Vec<String> {
    let out = Command::new(zbarimg).args(["-q", "--raw", "-Supca.enable"]).arg(image).output().expect("zbarimg runs");
    let mut codes: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    codes.sort();
    codes
}

/// Rasterises a PDF with pdftoppm at 300 dpi; returns one PNG per page.
pub(crate) fn pdf_to_pngs(pdftoppm: &Path, pdf: &[u8], dir: &Path) -> Vec<PathBuf> {
    let input = dir.join("labels.pdf");
    std::fs::write(&input, pdf).expect("write pdf");
    let status = Command::new(pdftoppm)
        .args(["-r", "300", "-png"])
        .arg(&input)
        .arg(dir.join("page"))
        .status()
        .expect("pdftoppm runs");
    assert!(status.success(), "pdftoppm failed");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    pages.sort();
    pages
}

/// The texts the layout says each page's barcodes must read as, sorted per page.
fn expected_codes(templates: &Templates, batch: &LabelBatch, dpi: f32) -> Vec<Vec<String>> {
    layout_batch(templates, batch, dpi)
        .expect("layout")
        .iter()
        .map(|page| {
            let mut codes: Vec<String> = page
                .marks
                .iter()
                .filter_map(|m| match m {
                    Mark::BarcodeInfo { text, .. } => Some(text.clone()),
                    _ => None,
                })
                .collect();
            codes.sort();
            codes
        })
        .collect()
}

fn check_pdf_decodes(templates: &Templates, batch: &LabelBatch) {
    let (Some(pdftoppm), Some(zbarimg)) = (tool("pdftoppm"), tool("zbarimg")) else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let pdf = render_pdf(templates, batch).expect("pdf renders");
    let pngs = pdf_to_pngs(&pdftoppm, &pdf, dir.path());
    let expected = expected_codes(templates, batch, 300.0);
    assert_eq!(pngs.len(), expected.len(), "one page per sheet");
    for (png, want) in pngs.iter().zip(&expected) {
        assert_eq!(&zbar_decode(&zbarimg, png), want, "{} ({:?})", batch.label_type, png.file_name());
    }
}

#[test]
fn every_label_type_pdf_decodes_at_300_dpi() {
    let templates = Templates::builtin().expect("templates");
    for label_type in LabelType::all() {
        check_pdf_decodes(&templates, &sample_batch(label_type));
    }
}

/// The receipts template with its barcode switched to `symbology`.
fn templates_with(symbology: Symbology) -> Templates {
    let dir = tempfile::tempdir().expect("temp dir");
    let over = stock_manager::labels::templates::override_dir(dir.path());
    std::fs::create_dir_all(&over).expect("mkdir");
    let t7 = LabelType::parse("receipts").expect("type");
    let mut template = Templates::builtin().expect("templates").get(t7).expect("template").clone();
    for e in &mut template.elements {
        if let Element::Barcode { symbology: s, .. } = e {
            *s = symbology;
        }
    }
    std::fs::write(over.join("receipts.json"), serde_json::to_string(&template).expect("json")).expect("write");
    Templates::load(dir.path()).expect("override loads")
}

#[test]
fn every_symbology_pdf_decodes() {
    let cases = [
        (Symbology::Code128, "AB-1234/x"),
        (Symbology::Code128, "12345678"),
        (Symbology::Ean, "5901234123457"),
        (Symbology::Ean8, "9638507"),
        (Symbology::Ean13, "590123412345"),
        (Symbology::Upca, "03600029145"),
        (Symbology::Itf, "12345678"),
        (Symbology::Code39, "ESM-42"),
        (Symbology::Codabar, "A40156B"),
        (Symbology::Codabar, "C12-34D"),
    ];
    for (symbology, code) in cases {
        let templates = templates_with(symbology);
        check_pdf_decodes(&templates, &batch(LabelType::parse("receipts").expect("type"), vec![record(code, "x")]));
    }
}

#[test]
fn invalid_codes_are_refused_before_rendering() {
    let templates = templates_with(Symbology::Ean13);
    let err = render_pdf(&templates, &batch(LabelType::parse("receipts").expect("type"), vec![record("12345", "x")]))
        .expect_err("refused");
    assert_eq!(err.to_string(), "EAN13 must be of length 12 or 13");
    let long = record("THIS-ITEM-CODE-IS-FAR-TOO-LONG-FOR-A-SMALL-LABEL", "x");
    let err =
        render_pdf(&Templates::builtin().expect("t"), &batch(LabelType::DEFAULT, vec![long])).expect_err("refused");
    assert!(err.to_string().contains("does not fit"), "{err}");
}

#[test]
fn raster_labels_decode_at_printer_resolutions() {
    let Some(zbarimg) = tool("zbarimg") else { return };
    let templates = Templates::builtin().expect("templates");
    let dir = tempfile::tempdir().expect("temp dir");
    for dpi in [203, 300] {
        for label_type in LabelType::all() {
            let batch = sample_batch(label_type);
            let pages = match render_raster_pages(&templates, &batch, dpi) {
                Ok(p) => p,
                Err(e) => panic!("{label_type} at {dpi} dpi: {e}"),
            };
            let expected = expected_codes(&templates, &batch, dpi as f32);
            for (i, (page, want)) in pages.iter().zip(&expected).enumerate() {
                let path = dir.path().join(format!("t{}-{dpi}-{i}.png", label_type.number()));
                std::fs::write(&path, page.thresholded().to_png().expect("png")).expect("write");
                assert_eq!(&zbar_decode(&zbarimg, &path), want, "{label_type} at {dpi} dpi");
            }
        }
    }
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/labels")
}

/// Layouts must not drift silently: the raster of each type is compared with a committed image.
#[test]
fn golden_images_per_type() {
    let templates = Templates::builtin().expect("templates");
    let update = std::env::var_os("ESM_UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for label_type in LabelType::all() {
        let page = render_raster_pages(&templates, &sample_batch(label_type), 200).expect("raster").remove(0);
        let page = page.thresholded();
        let path = golden_dir().join(format!("{}.png", label_type.name()));
        if update {
            std::fs::create_dir_all(golden_dir()).expect("mkdir");
            std::fs::write(&path, page.to_png().expect("png")).expect("write golden");
            continue;
        }
        let golden =
            image::open(&path).unwrap_or_else(|e| panic!("{}: {e} (ESM_UPDATE_GOLDEN=1 creates it)", path.display()));
        let golden = golden.to_luma8();
        if (golden.width(), golden.height()) != (page.width, page.height) {
            failures.push(format!(
                "{label_type}: size {}x{} != golden {}x{}",
                page.width,
                page.height,
                golden.width(),
                golden.height()
            ));
            continue;
        }
        let differing =
            golden.as_raw().iter().zip(&page.pixels).filter(|(a, b)| (**a as i16 - **b as i16).abs() > 64).count();
        // Glyph edges may move a dot between font rasteriser versions; layout drift moves far more.
        let tolerance = page.pixels.len() / 200;
        if differing > tolerance {
            failures.push(format!("{label_type}: {differing} pixels differ (tolerance {tolerance})"));
        }
    }
    assert!(failures.is_empty(), "golden images differ:\n{}", failures.join("\n"));
}
