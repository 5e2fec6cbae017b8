//! The one layout description both renderers draw: templates (boxes of text, barcodes and lines
//! in millimetres, with `{Field}` placeholders) resolved against label records into pages of
//! positioned text lines and filled rectangles.
//!
//! Everything that decides where ink goes happens here, so the PDF and the raster of a label
//! differ only in how a glyph is drawn. Units: millimetres from the top-left corner of the sheet.
//! Font sizes in templates are the spec's canvas pixels (38, 76, 100), one pixel being
//! `px_mm` millimetres of em height (0.1 mm by default): 38 px is a 3.8 mm (10.8 pt) em.

use super::barcode::{self, BarcodeError, Symbology};
use super::records::LabelRecord;
use serde::{Deserialize, Serialize};

/// The PDF margin of spec §9 (5 points); every template element must stay inside it.
pub const MARGIN_MM: f32 = 5.0 * 25.4 / 72.0;
/// Courier and its metric twin Liberation Mono advance every glyph by 0.6 em.
pub const ADVANCE_EM: f32 = 0.6;
/// Baseline-to-baseline distance of wrapped lines, in em.
pub const LINE_HEIGHT_EM: f32 = 1.1;
/// Distance from the top of a line box to its baseline, in em (Courier's ascent is ~0.63 em).
const BASELINE_EM: f32 = 0.8;
/// Below this em height (about 4 pt) text is truncated instead of shrunk further.
const MIN_EM_MM: f32 = 1.4;
/// Quiet zone on each side of a barcode, in modules (readers need at least 10).
pub const QUIET_MODULES: usize = 10;
/// Widest bar module used, in millimetres: wider buys nothing and wastes label width.
const MAX_MODULE_MM: f32 = 0.5;

/// A label type's template: the sheet, where labels sit on it, and what one label shows.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Template {
    /// The label type number this template draws (spec §9).
    pub label_type: u8,
    pub sheet_width_mm: f32,
    pub sheet_height_mm: f32,
    pub label_width_mm: f32,
    pub label_height_mm: f32,
    /// Top-left corner of each label on the sheet; records fill the slots in order.
    pub slots: Vec<[f32; 2]>,
    /// The sticker is fed rotated: raster output is turned a quarter for the printer.
    #[serde(default)]
    pub rotate_for_media: bool,
    /// Millimetres per canvas pixel for `font_px`.
    #[serde(default = "default_px_mm")]
    pub px_mm: f32,
    pub elements: Vec<Element>,
}

fn default_px_mm() -> f32 {
    0.1
}

fn default_line_mm() -> f32 {
    0.3
}

/// One thing drawn on a label, in millimetres relative to the label's top-left corner. Any
/// element may be drawn only for records that have a field (`if_present`, e.g. the serial number
/// line) or only for those that lack it (`if_absent`, e.g. the layout it replaces).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Element {
    /// Text wrapped to `max_lines` and shrunk from `font_px` until it fits the box.
    Text {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        text: String,
        font_px: f32,
        max_lines: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        if_present: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        if_absent: Option<String>,
    },
    /// A barcode filling the box height; the quiet zone is inside the box.
    Barcode {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        data: String,
        #[serde(default)]
        symbology: Symbology,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        if_present: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        if_absent: Option<String>,
    },
    /// A straight rule.
    Line {
        x1: f32,
        y1: f32,
        x2: f32,
        y2: f32,
        #[serde(default = "default_line_mm")]
        width: f32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        if_present: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        if_absent: Option<String>,
    },
}

impl Element {
    /// The fields a record must have and must lack for this element to be drawn.
    fn condition(&self) -> (Option<&str>, Option<&str>) {
        match self {
            Element::Text { if_present, if_absent, .. }
            | Element::Barcode { if_present, if_absent, .. }
            | Element::Line { if_present, if_absent, .. } => (if_present.as_deref(), if_absent.as_deref()),
        }
    }

    /// Whether the element is drawn on `record`'s label ([`LabelRecord::has`]).
    pub fn applies_to(&self, record: &LabelRecord) -> bool {
        let (present, absent) = self.condition();
        present.is_none_or(|f| record.has(f)) && absent.is_none_or(|f| !record.has(f))
    }
}

/// A resolved sheet: what to draw, ready for a renderer.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub width_mm: f32,
    pub height_mm: f32,
    pub rotate_for_media: bool,
    pub marks: Vec<Mark>,
}

/// A positioned mark on a page.
#[derive(Debug, Clone, PartialEq)]
pub enum Mark {
    /// One line of monospace bold text; `baseline` is measured from the top of the page.
    Text { x: f32, baseline: f32, em: f32, text: String },
    /// A filled black rectangle (bars and rules).
    Rect { x: f32, y: f32, w: f32, h: f32 },
    /// Where a barcode was placed and the text a reader must return (for tests and previews).
    BarcodeInfo { x: f32, y: f32, w: f32, h: f32, symbology: Symbology, text: String },
}

/// Why a template or a record could not be laid out.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LayoutError {
    #[error(transparent)]
    Barcode(#[from] BarcodeError),
    #[error("the barcode '{data}' does not fit in {width_mm:.1} mm at {dpi} dpi (it needs {needed_mm:.1} mm)")]
    BarcodeTooWide { data: String, width_mm: f32, dpi: f32, needed_mm: f32 },
    #[error("template for label type {label_type}: {problem}")]
    Template { label_type: u8, problem: String },
}

impl Template {
    /// Checks geometry and placeholders once, so a bad override fails at load and not mid-print.
    pub fn validate(&self) -> Result<(), LayoutError> {
        let bad = |problem: String| LayoutError::Template { label_type: self.label_type, problem };
        if self.slots.is_empty() {
            return Err(bad("needs at least one slot".into()));
        }
        let dims = [self.sheet_width_mm, self.sheet_height_mm, self.label_width_mm, self.label_height_mm, self.px_mm];
        if dims.iter().any(|d| !d.is_finite() || *d <= 0.0) {
            return Err(bad("sizes must be positive".into()));
        }
        for [sx, sy] in &self.slots {
            if *sx < 0.0
                || *sy < 0.0
                || sx + self.label_width_mm > self.sheet_width_mm + 0.01
                || sy + self.label_height_mm > self.sheet_height_mm + 0.01
            {
                return Err(bad(format!("slot at ({sx}, {sy}) leaves the sheet")));
            }
        }
        let inside = |x: f32, y: f32, w: f32, h: f32| {
            x >= MARGIN_MM - 0.01
                && y >= MARGIN_MM - 0.01
                && x + w <= self.label_width_mm - MARGIN_MM + 0.01
                && y + h <= self.label_height_mm - MARGIN_MM + 0.01
                && w > 0.0
                && h > 0.0
        };
        for (i, e) in self.elements.iter().enumerate() {
            let (ok, texts) = match e {
                Element::Text { x, y, w, h, text, max_lines, font_px, .. } => {
                    if *max_lines == 0 || *font_px <= 0.0 {
                        return Err(bad(format!("element {i}: max_lines and font_px must be positive")));
                    }
                    (inside(*x, *y, *w, *h), vec![text])
                }
                Element::Barcode { x, y, w, h, data, .. } => (inside(*x, *y, *w, *h), vec![data]),
                Element::Line { x1, y1, x2, y2, .. } => {
                    let (x, y) = (x1.min(*x2), y1.min(*y2));
                    (inside(x, y, (x2 - x1).abs().max(0.01), (y2 - y1).abs().max(0.01)), vec![])
                }
            };
            if !ok {
                return Err(bad(format!("element {i} is outside the {MARGIN_MM:.2} mm margin")));
            }
            let (present, absent) = e.condition();
            for (key, name) in [("if_present", present), ("if_absent", absent)] {
                if let Some(name) = name.filter(|n| !LabelRecord::FIELDS.contains(n)) {
                    return Err(bad(format!("element {i}: unknown field {name} in {key}")));
                }
            }
            for t in texts {
                for name in placeholders(t) {
                    if !LabelRecord::FIELDS.contains(&name) {
                        return Err(bad(format!("element {i}: unknown field {{{name}}}")));
                    }
                }
            }
        }
        Ok(())
    }

    /// Lays out `records` on as many sheets as they need; bars snap to whole dots at `dpi`.
    pub fn layout(&self, records: &[LabelRecord], dpi: f32) -> Result<Vec<Page>, LayoutError> {
        let mut pages = Vec::with_capacity(records.len().div_ceil(self.slots.len()));
        for sheet in records.chunks(self.slots.len()) {
            let mut marks = Vec::new();
            for (record, [sx, sy]) in sheet.iter().zip(&self.slots) {
                for e in self.elements.iter().filter(|e| e.applies_to(record)) {
                    self.place(e, record, *sx, *sy, dpi, &mut marks)?;
                }
            }
            pages.push(Page {
                width_mm: self.sheet_width_mm,
                height_mm: self.sheet_height_mm,
                rotate_for_media: self.rotate_for_media,
                marks,
            });
        }
        Ok(pages)
    }

    fn place(
        &self,
        e: &Element,
        record: &LabelRecord,
        ox: f32,
        oy: f32,
        dpi: f32,
        marks: &mut Vec<Mark>,
    ) -> Result<(), LayoutError> {
        match e {
            Element::Text { x, y, w, h, text, font_px, max_lines, .. } => {
                let value = fill(text, record);
                let fitted = fit_text(&value, *w, *h, font_px * self.px_mm, *max_lines);
                for (i, line) in fitted.lines.into_iter().enumerate() {
                    let baseline = oy + y + fitted.em * (BASELINE_EM + LINE_HEIGHT_EM * i as f32);
                    marks.push(Mark::Text { x: ox + x, baseline, em: fitted.em, text: line });
                }
            }
            Element::Barcode { x, y, w, h, data, symbology, .. } => {
                let value = fill(data, record);
                let code = barcode::encode(*symbology, &value)?;
                let dot = 25.4 / dpi;
                let total = code.modules.len() + 2 * QUIET_MODULES;
                let dots_per_module = ((w / dot) / total as f32).floor().min((MAX_MODULE_MM / dot).floor().max(2.0));
                if dots_per_module < 2.0 {
                    return Err(LayoutError::BarcodeTooWide {
                        data: value,
                        width_mm: *w,
                        dpi,
                        needed_mm: total as f32 * 2.0 * dot,
                    });
                }
                let module = dots_per_module * dot;
                let width = total as f32 * module;
                // Centre the code, then snap its left edge to the dot grid so every bar is whole dots.
                let left = snap(ox + x + (w - width) / 2.0, dot) + QUIET_MODULES as f32 * module;
                let top = oy + y;
                for (start, run) in code.bars() {
                    marks.push(Mark::Rect { x: left + start as f32 * module, y: top, w: run as f32 * module, h: *h });
                }
                marks.push(Mark::BarcodeInfo {
                    x: ox + x,
                    y: top,
                    w: *w,
                    h: *h,
                    symbology: code.symbology,
                    text: code.text,
                });
            }
            Element::Line { x1, y1, x2, y2, width, .. } => {
                let (x, y) = (ox + x1.min(*x2), oy + y1.min(*y2));
                let (w, h) = ((x2 - x1).abs(), (y2 - y1).abs());
                let (w, h) = if h < w { (w, *width) } else { (*width, h) };
                marks.push(Mark::Rect { x, y, w, h });
            }
        }
        Ok(())
    }
}

fn snap(v: f32, dot: f32) -> f32 {
    (v / dot).round() * dot
}

/// The `{Field}` names used in a template string.
fn placeholders(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                out.push(&after[..close]);
                rest = &after[close + 1..];
            }
            None => break,
        }
    }
    out
}

/// Replaces `{Field}` with the record's value, keeping only what Courier's WinAnsi encoding can show.
pub fn fill(template: &str, record: &LabelRecord) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                out.push_str(&record.field(&after[..close]));
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    printable(&out)
}

/// Keeps Latin-1 printable characters (what both the builtin PDF font and the raster font draw).
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => ' ',
            ' '..='~' | '\u{a0}'..='\u{ff}' => c,
            _ => '?',
        })
        .collect()
}

/// Text fitted into a box: its lines and the em height they are drawn at.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedText {
    pub lines: Vec<String>,
    pub em: f32,
}

/// Wraps at word boundaries and shrinks from `max_em` until the text fits `max_lines` lines and
/// the box; at the minimum size the last line is cut.
pub fn fit_text(text: &str, w: f32, h: f32, max_em: f32, max_lines: usize) -> FittedText {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut em = max_em.min(h / (BASELINE_EM + 0.25)).max(MIN_EM_MM);
    loop {
        let cols = ((w / (em * ADVANCE_EM)).floor() as usize).max(1);
        let rows = (((h / em - BASELINE_EM - 0.25) / LINE_HEIGHT_EM).floor() as usize + 1).clamp(1, max_lines);
        let lines = wrap(&text, cols);
        if lines.len() <= rows {
            return FittedText { lines, em };
        }
        if em <= MIN_EM_MM {
            let mut kept: Vec<String> = lines.into_iter().take(rows).collect();
            if let Some(last) = kept.last_mut() {
                let mut cut: String = last.chars().take(cols.saturating_sub(1)).collect();
                cut.push('~');
                *last = cut;
            }
            return FittedText { lines: kept, em };
        }
        em = (em * 0.93).max(MIN_EM_MM);
    }
}

/// Greedy word wrap to `cols` characters; words longer than a line are split.
fn wrap(text: &str, cols: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word: Vec<char> = word.chars().collect();
        let current_len = current.chars().count();
        if current_len > 0 && current_len + 1 + word.len() <= cols {
            current.push(' ');
            current.extend(word);
            continue;
        }
        if current_len > 0 {
            lines.push(std::mem::take(&mut current));
        }
        while word.len() > cols {
            lines.push(word.drain(..cols).collect());
        }
        current = word.into_iter().collect();
    }
    if !current.is_empty() || lines.is_empty() {
        lines.push(current);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_words_and_splits_long_ones() {
        assert_eq!(wrap("aaa bbb ccc", 7), vec!["aaa bbb", "ccc"]);
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 4), vec![""]);
    }

    #[test]
    fn text_shrinks_to_the_line_limit() {
        let long = "Cable gland M20 nickel plated brass with lock nut and seal";
        let one = fit_text(long, 40.0, 10.0, 3.8, 1);
        assert_eq!(one.lines.len(), 1);
        let two = fit_text(long, 40.0, 10.0, 3.8, 2);
        assert!(two.lines.len() <= 2);
        assert!(two.em >= one.em, "two lines allow a larger size");
        let short = fit_text("AB", 40.0, 10.0, 3.8, 2);
        assert_eq!(short.em, 3.8);
        for line in &two.lines {
            assert!(line.chars().count() as f32 * two.em * ADVANCE_EM <= 40.0 + 0.01);
        }
    }

    #[test]
    fn too_long_text_is_cut_at_the_minimum_size() {
        let text = "x".repeat(500);
        let fitted = fit_text(&text, 20.0, 3.0, 3.8, 1);
        assert_eq!(fitted.lines.len(), 1);
        assert!(fitted.lines[0].ends_with('~'));
    }

    #[test]
    fn conditional_elements_follow_the_record() {
        let json = r#"{"label_type": 7, "sheet_width_mm": 50, "sheet_height_mm": 20, "label_width_mm": 50,
            "label_height_mm": 20, "slots": [[0, 0]], "elements": [
            {"kind": "text", "x": 2, "y": 2, "w": 46, "h": 4, "text": "{ItemCode}", "font_px": 30, "max_lines": 1},
            {"kind": "text", "x": 2, "y": 7, "w": 46, "h": 4, "text": "no serial", "font_px": 30, "max_lines": 1,
             "if_absent": "SerialNumber"},
            {"kind": "text", "x": 2, "y": 7, "w": 46, "h": 4, "text": "S/N {SerialNumber}", "font_px": 30,
             "max_lines": 1, "if_present": "SerialNumber"},
            {"kind": "line", "x1": 2, "y1": 12, "x2": 48, "y2": 12, "if_present": "SerialNumber"},
            {"kind": "barcode", "x": 2, "y": 13, "w": 46, "h": 5, "data": "{SerialNumber}", "if_present": "SerialNumber"}
        ]}"#;
        let template: Template = serde_json::from_str(json).unwrap();
        template.validate().unwrap();
        let drawn = |r: &LabelRecord| {
            let pages = template.layout(std::slice::from_ref(r), 300.0).unwrap();
            let texts: Vec<String> = pages[0]
                .marks
                .iter()
                .filter_map(|m| match m {
                    Mark::Text { text, .. } => Some(text.clone()),
                    _ => None,
                })
                .collect();
            let barcodes: Vec<String> = pages[0]
                .marks
                .iter()
                .filter_map(|m| match m {
                    Mark::BarcodeInfo { text, .. } => Some(text.clone()),
                    _ => None,
                })
                .collect();
            let rects = pages[0].marks.iter().filter(|m| matches!(m, Mark::Rect { .. })).count();
            (texts, barcodes, rects)
        };
        let plain = LabelRecord { item_code: "A-1".into(), ..LabelRecord::default() };
        assert_eq!(drawn(&plain), (vec!["A-1".to_string(), "no serial".to_string()], vec![], 0));
        let serial = LabelRecord { serial_number: Some("SN-7".into()), ..plain.clone() };
        let (texts, barcodes, rects) = drawn(&serial);
        assert_eq!(texts, vec!["A-1", "S/N SN-7"]);
        assert_eq!(barcodes, vec!["SN-7"]);
        assert!(rects > 1, "the rule and the bars");
        let blank = LabelRecord { serial_number: Some(" ".into()), ..plain.clone() };
        assert_eq!(drawn(&blank).0, vec!["A-1", "no serial"], "a blank serial number is none");

        let back = serde_json::to_value(&template).unwrap();
        assert_eq!(back["elements"][2]["if_present"], "SerialNumber");
        assert!(back["elements"][0].get("if_present").is_none() && back["elements"][0].get("if_absent").is_none());
        let unknown = json.replace(r#""if_absent": "SerialNumber""#, r#""if_absent": "Serial""#);
        let err = serde_json::from_str::<Template>(&unknown).unwrap().validate().unwrap_err().to_string();
        assert!(err.contains("unknown field Serial in if_absent"), "{err}");
        let typo = json.replace(r#""if_absent""#, r#""if_missing""#);
        assert!(serde_json::from_str::<Template>(&typo).is_err(), "unknown keys are refused");
    }

    #[test]
    fn placeholders_are_found_and_filled() {
        assert_eq!(placeholders("Pr: {Project} / {ItemCode}"), vec!["Project", "ItemCode"]);
        let r = LabelRecord { item_code: "A-1".into(), ..LabelRecord::default() };
        assert_eq!(fill("code {ItemCode} ∑", &r), "code A-1 ?");
    }
}
