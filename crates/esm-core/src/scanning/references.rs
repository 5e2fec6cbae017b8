//! What a handheld's scan catalogue calls items, shop orders and material lines: their codes and
//! numbers, not their GUIDs, which would be most of its size (docs/BENCHMARKS.md). A scanned
//! booking made from the catalogue (in a Wi-Fi dead spot) carries such a reference where the
//! GUID goes, and the server puts the GUID in from the local copy before the booking is checked
//! and queued:
//!
//! - `item:{Code}` in `Item` (stock count and warehouse transfer lines),
//! - `shopOrder:{ShopOrderNumber}` in `ShopOrder` (shop order receipt),
//! - `plan:{ShopOrderNumber}/{LineNumber}` in `ShopOrderMaterialPlan` (material issue).
//!
//! A GUID is taken as before; a reference the copy does not know is refused (400) with what was
//! not found, so a booking kept on the handheld shows why it was not sent.

use crate::error::{AppError, AppResult};
use crate::exact::odata;
use crate::store::{OrgStore, Query, StoreResult};
use esm_base::texts::Text;
use serde_json::{Map, Value};

pub const ITEM: &str = "item:";
pub const SHOP_ORDER: &str = "shopOrder:";
pub const PLAN: &str = "plan:";

/// The fields a reference may stand in, with the prefix each takes.
const FIELDS: [(&str, &str); 3] = [("Item", ITEM), ("ShopOrder", SHOP_ORDER), ("ShopOrderMaterialPlan", PLAN)];

/// The field's reference, when it holds one.
fn reference<'a>(field: &str, value: &'a Value) -> Option<&'a str> {
    let (_, prefix) = FIELDS.iter().find(|(f, _)| *f == field)?;
    value.as_str().filter(|s| s.starts_with(prefix))
}

/// Calls `visit` on each object of the body a reference may be in: the body (or each of a list
/// of them) and the lines of its line lists.
fn objects(body: &mut Value, visit: &mut impl FnMut(&mut Map<String, Value>) -> AppResult<()>) -> AppResult<()> {
    let tops: Vec<&mut Value> = match body {
        Value::Array(list) => list.iter_mut().collect(),
        other => vec![other],
    };
    for top in tops {
        let Value::Object(obj) = top else { continue };
        visit(obj)?;
        for value in obj.values_mut() {
            if let Value::Array(lines) = value {
                for line in lines.iter_mut() {
                    if let Value::Object(l) = line {
                        visit(l)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// Whether the body names anything by a reference (most do not: nothing to look up).
pub fn has_references(body: &Value) -> bool {
    let names = |obj: &Map<String, Value>| obj.iter().any(|(k, v)| reference(k, v).is_some());
    let tops: Vec<&Value> = match body {
        Value::Array(list) => list.iter().collect(),
        other => vec![other],
    };
    tops.into_iter().filter_map(Value::as_object).any(|obj| {
        names(obj) || obj.values().filter_map(Value::as_array).flatten().filter_map(Value::as_object).any(names)
    })
}

/// The body with each reference replaced by the GUID it names in the organization's copy.
pub fn resolve(store: &OrgStore, mut body: Value) -> AppResult<Value> {
    objects(&mut body, &mut |obj| {
        for (field, _) in FIELDS {
            let Some(text) = obj.get(field).and_then(|v| reference(field, v)) else { continue };
            let id = guid_of(store, text)?;
            obj.insert(field.to_string(), Value::String(id));
        }
        Ok(())
    })?;
    Ok(body)
}

/// What the copy does not know: said in the user's language, so a booking kept on the handheld
/// shows why in it.
fn not_found(text: Text) -> AppError {
    AppError::said(crate::error::Code::BadRequest, text)
}

/// The GUID `reference` names.
fn guid_of(store: &OrgStore, reference: &str) -> AppResult<String> {
    let found = if let Some(code) = reference.strip_prefix(ITEM) {
        one_id(store, "items", &[("Code", &format!("eq.{code}"))])
            .map_err(AppError::internal)?
            .ok_or_else(|| not_found(Text::ScannedItemNotInCopy { code: code.into() }))?
    } else if let Some(number) = reference.strip_prefix(SHOP_ORDER) {
        order_id(store, number)?
    } else if let Some(rest) = reference.strip_prefix(PLAN) {
        let (number, line) = rest.split_once('/').filter(|(_, l)| l.parse::<i64>().is_ok()).ok_or_else(|| {
            AppError::bad_request(format!("'{reference}' must look like plan:{{shop order number}}/{{line number}}"))
        })?;
        let order = order_id(store, number)?;
        one_id(
            store,
            "shopOrderMaterialPlans",
            &[("ShopOrder", &format!("eq.{order}")), ("LineNumber", &format!("eq.{line}"))],
        )
        .map_err(AppError::internal)?
        .ok_or_else(|| not_found(Text::ScannedMaterialLineNotInCopy { number: number.into(), line: line.into() }))?
    } else {
        return Err(AppError::bad_request(format!("'{reference}' is no reference")));
    };
    Ok(found)
}

fn order_id(store: &OrgStore, number: &str) -> AppResult<String> {
    if number.parse::<i64>().is_err() {
        return Err(AppError::bad_request(format!("'{number}' is no shop order number")));
    }
    one_id(store, "shopOrders", &[("ShopOrderNumber", &format!("eq.{number}"))])
        .map_err(AppError::internal)?
        .ok_or_else(|| not_found(Text::ScannedShopOrderNotInCopy { number: number.into() }))
}

/// The GUID of the one row matching `pairs`; none when no row (or more than one) does.
fn one_id(store: &OrgStore, table: &str, pairs: &[(&str, &str)]) -> StoreResult<Option<String>> {
    if store.row_count(table)? == 0 {
        return Ok(None);
    }
    let query = Query::from_pairs(pairs.iter().copied().chain([("limit", "2")]))?;
    let rows = store.query(table, &query)?.to_values()?;
    let [row] = rows.as_slice() else { return Ok(None) };
    Ok(row.get("ID").and_then(Value::as_str).map(str::to_ascii_lowercase).filter(|id| odata::is_guid(id)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_are_found_in_the_body_its_lists_and_its_lines_only() {
        let guid = "0badc0de-0000-4000-8000-000000000007";
        assert!(!has_references(&json!({"ShopOrderMaterialPlan": guid, "Quantity": 1})));
        assert!(has_references(&json!({"ShopOrderMaterialPlan": "plan:24001/1"})));
        assert!(has_references(&json!([{"ShopOrderMaterialPlan": guid}, {"ShopOrderMaterialPlan": "plan:1/2"}])));
        assert!(has_references(&json!({"Warehouse": guid, "StockCountLines": [{"Item": "item:BOLT"}]})));
        assert!(has_references(&json!({"ShopOrder": "shopOrder:24001"})));
        // a name in a field it does not stand for, or deeper than a line, is left as sent
        assert!(!has_references(&json!({"Item": "plan:1/2", "Description": "item:BOLT"})));
        assert!(!has_references(&json!({"Lines": [{"Sub": [{"Item": "item:BOLT"}]}]})));
        assert!(!has_references(&json!("item:BOLT")));
    }
}
