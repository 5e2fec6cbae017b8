//! The bodies of the fuzz targets in `fuzz/` (run by `scripts/fuzz`). They live here so that the
//! inputs a fuzzer once crashed on, saved under `fuzz/regressions/<target>/`, are replayed by the
//! ordinary test suite (`tests/it/fuzz_regressions.rs`) without libFuzzer.
//! Each body feeds untrusted input to a parser or encoder: an error is fine, a panic is a bug.

use crate::exact::envelope::{parse_collection, parse_collection_raw, parse_single};
use crate::exact::odata::{as_i64, parse_date_ms};
use crate::labels::barcode::{Symbology, encode};
use crate::labels::records::LabelRecord;
use crate::labels::templates::Templates;
use crate::labels::types::LabelType;
use crate::store::joins::{JoinSpec, parse_joins_query};
use crate::store::query::Query;
use serde_json::Value;

/// The names of the targets, as `fuzz/Cargo.toml` and `scripts/fuzz` know them.
pub const TARGETS: [&str; 4] = ["data_filter", "sim_odata", "provider_json", "label_input"];

/// Runs target `name` on one input; `false` when there is no such target.
pub fn run(name: &str, data: &[u8]) -> bool {
    match name {
        "data_filter" => data_filter(data),
        "sim_odata" => sim_odata(data),
        "provider_json" => provider_json(data),
        "label_input" => label_input(data),
        _ => return false,
    }
    true
}

/// The data API's query string: filters, select, order, paging and joins.
pub fn data_filter(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = Query::parse(text);
    let _ = parse_joins_query(text);
    let _ = JoinSpec::parse_list(text);
}

/// The simulator's OData `$filter` parser and its query-string decoding.
#[cfg(feature = "demo")]
pub fn sim_odata(data: &[u8]) {
    use crate::sim::odata::{decode_pairs, parse::parse_filter};
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = parse_filter(text);
    for (k, v) in decode_pairs(text) {
        if k == "$filter" {
            let _ = parse_filter(&v);
        }
    }
}

#[cfg(not(feature = "demo"))]
pub fn sim_odata(_data: &[u8]) {}

/// What the provider sends back: envelopes, `/Date(ms)/` dates and Int64 strings.
pub fn provider_json(data: &[u8]) {
    if let Ok(page) = parse_collection(data) {
        for row in &page.rows {
            for v in row.values() {
                let _ = as_i64(v);
                if let Some(s) = v.as_str() {
                    let _ = parse_date_ms(s);
                }
            }
        }
    }
    let _ = parse_collection_raw(data);
    let _ = parse_single(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_date_ms(text);
        let _ = as_i64(&Value::String(text.to_string()));
    }
}

/// Barcode data for every symbology (the first byte picks one), and the same text as provider
/// fields laid out on every built-in label type (text fitting, wrapping, cutting).
pub fn label_input(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let symbology = Symbology::ALL[usize::from(selector) % Symbology::ALL.len()];
    if let Ok(code) = encode(symbology, text) {
        assert!(!code.modules.is_empty(), "an encoded barcode has bars");
    }
    let Ok(templates) = Templates::builtin() else { return };
    let record = LabelRecord {
        item_id: text.to_string(),
        item_code: text.to_string(),
        description: text.repeat(usize::from(selector % 4) + 1),
        shop_order_number: Some(text.to_string()),
        project_description: Some(text.to_string()),
        supplier_description: Some(text.to_string()),
        warehouse_and_location_for_label: text.to_string(),
        ..LabelRecord::default()
    };
    for label_type in LabelType::all() {
        if let Some(t) = templates.get(label_type) {
            let _ = t.layout(std::slice::from_ref(&record), 203.0);
        }
    }
}
