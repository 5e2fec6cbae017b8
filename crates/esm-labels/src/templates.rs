//! Built-in label templates, each overridable by a file in the data directory (Gitea-style):
//! `{data_dir}/labels/templates/{type name}.json` replaces the built-in one without a rebuild.

use super::layout::{LayoutError, Template};
use super::types::LabelType;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The built-in templates, by type name; the JSON is the documentation of the format.
const BUILTIN: [(&str, &str); 6] = [
    ("electrical-72001926", include_str!("templates/electrical-72001926.json")),
    ("electrical-72001925", include_str!("templates/electrical-72001925.json")),
    ("electrical-x4", include_str!("templates/electrical-x4.json")),
    ("electrical-NEW", include_str!("templates/electrical-NEW.json")),
    ("cnc-new", include_str!("templates/cnc-new.json")),
    ("receipts", include_str!("templates/receipts.json")),
];

/// The folder under the data directory that holds template overrides.
pub fn override_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("labels").join("templates")
}

/// One template per label type, with where each came from.
#[derive(Debug, Clone)]
pub struct Templates {
    by_type: BTreeMap<u8, (Template, TemplateOrigin)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateOrigin {
    Builtin,
    Override(PathBuf),
}

fn parse(name: &str, json: &str, expected: LabelType) -> Result<Template, LayoutError> {
    let bad = |problem: String| LayoutError::Template { label_type: expected.number(), problem };
    let template: Template = serde_json::from_str(json).map_err(|e| bad(format!("{name}: {e}")))?;
    if template.label_type != expected.number() {
        return Err(bad(format!("{name} says label_type {}", template.label_type)));
    }
    template.validate()?;
    Ok(template)
}

impl Templates {
    /// The templates compiled into the binary.
    pub fn builtin() -> Result<Templates, LayoutError> {
        let mut by_type = BTreeMap::new();
        for (name, json) in BUILTIN {
            let t =
                LabelType::parse(name).map_err(|e| LayoutError::Template { label_type: 0, problem: e.to_string() })?;
            by_type.insert(t.number(), (parse(name, json, t)?, TemplateOrigin::Builtin));
        }
        Ok(Templates { by_type })
    }

    /// Built-in templates with the data directory's overrides applied; a bad override is an error
    /// (a silently ignored file would print the wrong label).
    pub fn load(data_dir: &Path) -> Result<Templates, LayoutError> {
        let mut templates = Self::builtin()?;
        let dir = override_dir(data_dir);
        for (name, _) in BUILTIN {
            let path = dir.join(format!("{name}.json"));
            let Ok(json) = std::fs::read_to_string(&path) else { continue };
            let t =
                LabelType::parse(name).map_err(|e| LayoutError::Template { label_type: 0, problem: e.to_string() })?;
            let template = parse(&path.display().to_string(), &json, t)?;
            tracing::info!(path = %path.display(), "label template overridden");
            templates.by_type.insert(t.number(), (template, TemplateOrigin::Override(path)));
        }
        Ok(templates)
    }

    pub fn get(&self, label_type: LabelType) -> Option<&Template> {
        self.by_type.get(&label_type.number()).map(|(t, _)| t)
    }

    pub fn origin(&self, label_type: LabelType) -> Option<&TemplateOrigin> {
        self.by_type.get(&label_type.number()).map(|(_, o)| o)
    }

    /// The built-in JSON of a type, as a starting point for an override.
    pub fn builtin_json(label_type: LabelType) -> Option<&'static str> {
        BUILTIN.iter().find(|(name, _)| *name == label_type.name()).map(|(_, json)| *json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_has_a_valid_builtin_template() {
        let templates = Templates::builtin().expect("built-in templates are valid");
        for t in LabelType::all() {
            let template = templates.get(t).expect("template");
            assert_eq!(template.label_type, t.number());
            assert_eq!(templates.origin(t), Some(&TemplateOrigin::Builtin));
        }
    }

    #[test]
    fn spec_geometry() {
        let templates = Templates::builtin().unwrap();
        let get = |n| templates.get(LabelType::from_number(n).unwrap()).unwrap().clone();
        assert_eq!(get(1).slots.len(), 2);
        assert_eq!((get(1).sheet_width_mm, get(1).sheet_height_mm), (90.0, 30.0));
        assert_eq!(get(2).slots.len(), 4);
        assert_eq!((get(2).sheet_width_mm, get(2).sheet_height_mm), (90.0, 40.0));
        assert_eq!(get(3).slots.len(), 4);
        assert!(get(4).rotate_for_media);
        assert!((get(4).label_width_mm / get(4).label_height_mm - 70.0 / 50.0).abs() < 1e-6);
        assert_eq!((get(6).label_width_mm, get(6).label_height_mm), (100.0, 23.0));
        assert_eq!((get(7).label_width_mm, get(7).label_height_mm), (76.2, 44.45));
    }

    /// Every text line drawn, as (left, top, right, bottom) in mm and its text.
    fn text_boxes(template: &Template, record: &crate::records::LabelRecord) -> Vec<([f32; 4], String)> {
        use crate::layout::{ADVANCE_EM, Mark};
        let pages = template.layout(std::slice::from_ref(record), 300.0).expect("laid out");
        pages[0]
            .marks
            .iter()
            .filter_map(|m| match m {
                Mark::Text { x, baseline, em, text } => {
                    let right = x + text.chars().count() as f32 * em * ADVANCE_EM;
                    Some(([*x, baseline - 0.8 * em, right, baseline + 0.25 * em], text.clone()))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn every_builtin_template_prints_a_serial_number_only_where_there_is_one() {
        use crate::records::LabelRecord;
        let templates = Templates::builtin().unwrap();
        // A description at full size and one that has to shrink.
        for description in ["Motor RVS 304 120x5", "Motor RVS 304 120x5 with a description too long for one line"] {
            let plain = LabelRecord {
                item_code: "42-100123".into(),
                description: description.into(),
                project_description: Some("Alpha hall".into()),
                purchase_order_number: Some("40012".into()),
                receipt_number: Some("7".into()),
                free_text_06: Some("TK-00012".into()),
                free_text_07: Some("Rev B".into()),
                ..LabelRecord::default()
            };
            let serial = LabelRecord { serial_number: Some("42-100123-0017".into()), ..plain.clone() };
            for t in LabelType::all() {
                let template = templates.get(t).unwrap();
                // The quantity where the type has room for it (4, 6 and 7), never overlapping.
                for record in [&plain, &serial] {
                    let counted = LabelRecord { quantity: Some("100 stuk".into()), ..record.clone() };
                    let lines = text_boxes(template, &counted);
                    let with_quantity = lines.iter().filter(|(_, text)| text.contains("Qty 100 stuk")).count();
                    assert_eq!(with_quantity, usize::from([4, 6, 7].contains(&t.number())), "{t}: {lines:?}");
                    assert_no_overlap(t, &lines);
                }
                let lines = text_boxes(template, &plain);
                assert!(lines.iter().all(|(_, text)| !text.contains("Qty")), "{t}: no quantity, no 'Qty': {lines:?}");
                assert!(lines.iter().all(|(_, text)| !text.contains("S/N")), "{t}: {lines:?}");
                let lines = text_boxes(template, &serial);
                let with_serial = lines.iter().filter(|(_, text)| text.contains("S/N 42-100123-0017")).count();
                assert_eq!(with_serial, 1, "{t}: the serial number once, whole: {lines:?}");
                assert!(lines.iter().any(|(_, text)| text.starts_with("Motor")), "{t}: the description stays");
                assert_no_overlap(t, &lines);
            }
        }
    }

    fn assert_no_overlap(t: LabelType, lines: &[([f32; 4], String)]) {
        for (i, (a, ta)) in lines.iter().enumerate() {
            for (b, tb) in &lines[i + 1..] {
                let apart = a[2] <= b[0] || b[2] <= a[0] || a[3] <= b[1] + 0.01 || b[3] <= a[1] + 0.01;
                assert!(apart, "{t}: '{ta}' and '{tb}' overlap");
            }
        }
    }

    #[test]
    fn overrides_replace_builtins_and_bad_ones_fail() {
        let dir = tempfile::tempdir().unwrap();
        let over = override_dir(dir.path());
        std::fs::create_dir_all(&over).unwrap();
        let json = Templates::builtin_json(LabelType::from_number(7).unwrap()).unwrap().replace("\"PO ", "\"Order ");
        std::fs::write(over.join("receipts.json"), json).unwrap();
        let templates = Templates::load(dir.path()).unwrap();
        let t7 = LabelType::from_number(7).unwrap();
        assert!(matches!(templates.origin(t7), Some(TemplateOrigin::Override(_))));
        assert!(format!("{:?}", templates.get(t7).unwrap()).contains("Order {PurchaseOrderNumber}"));

        std::fs::write(over.join("cnc-new.json"), "{\"label_type\": 6}").unwrap();
        assert!(Templates::load(dir.path()).is_err());
        let bad_field =
            Templates::builtin_json(LabelType::from_number(6).unwrap()).unwrap().replace("{Project}", "{Nope}");
        std::fs::write(over.join("cnc-new.json"), bad_field).unwrap();
        let err = Templates::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("unknown field {Nope}"), "{err}");
    }
}
