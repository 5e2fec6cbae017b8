//! What has been issued to each material plan line, summed from the synced material issues
//! (`materialIssues`, Exact's `sync/Manufacturing/MaterialIssues`).
//!
//! Exact's material plans carry no issued quantity (only the live plan details do), so a line's
//! "still to issue" is its planned quantity less these; a return is a negative issue and counts
//! against them.

use crate::outbox::{Entry, State};
use crate::store::{OrgStore, StoreResult};
use serde_json::Value;
use std::collections::HashMap;

pub const TABLE: &str = "materialIssues";
/// The field a plan row carries the sum in, once [`attach`] has run.
pub const FIELD: &str = "IssuedQuantity";
/// The field a plan row carries what the outbox still has to issue to it.
pub const QUEUED_FIELD: &str = "QueuedQuantity";
/// Plan ids per query: keeps each `in.(…)` list short.
const PLANS_PER_QUERY: usize = 100;

/// The quantity issued to each of `plans` (lower-case ids); lines with no issue are left out.
pub fn by_plan(store: &OrgStore, plans: &[String]) -> StoreResult<HashMap<String, f64>> {
    // a copy that never synced the table reads it as empty: no issue yet
    let mut out: HashMap<String, f64> = HashMap::new();
    for chunk in plans.chunks(PLANS_PER_QUERY) {
        let in_list = format!("in.({})", chunk.join(","));
        let pairs = [("ShopOrderMaterialPlan", in_list.as_str()), ("select", "ShopOrderMaterialPlan,Quantity")];
        for issue in store.all_rows(TABLE, &pairs)? {
            let plan = issue.get("ShopOrderMaterialPlan").and_then(Value::as_str).map(str::to_ascii_lowercase);
            let quantity = issue.get("Quantity").and_then(Value::as_f64).filter(|q| q.is_finite());
            if let (Some(plan), Some(quantity)) = (plan, quantity) {
                *out.entry(plan).or_default() += quantity;
            }
        }
    }
    Ok(out)
}

/// Sets each plan row's `IssuedQuantity` to what was issued to it (0 when nothing was).
pub fn attach(store: &OrgStore, plans: &mut [Value]) -> StoreResult<()> {
    let ids: Vec<String> = plans
        .iter()
        .filter_map(|p| p.get("ID").and_then(Value::as_str))
        .map(str::to_ascii_lowercase)
        .filter(|id| crate::exact::odata::is_guid(id))
        .collect();
    let issued = by_plan(store, &ids)?;
    for plan in plans.iter_mut() {
        let id = plan.get("ID").and_then(Value::as_str).map(str::to_ascii_lowercase).unwrap_or_default();
        if let Some(row) = plan.as_object_mut() {
            row.insert(FIELD.into(), issued.get(&id).copied().unwrap_or(0.0).into());
        }
    }
    Ok(())
}

/// What the outbox's open writes (`entries`, pending or sending) still issue to each material
/// line: booked here, not yet in Exact (or not yet synced back).
pub fn queued(entries: &[Entry]) -> HashMap<String, f64> {
    let mut out: HashMap<String, f64> = HashMap::new();
    for e in entries.iter().filter(|e| matches!(e.state, State::Pending | State::Sending)) {
        if e.action != "updateMaterialsIssues" {
            continue;
        }
        let Some(body) = &e.body else { continue };
        let plan = body.get("ShopOrderMaterialPlan").and_then(Value::as_str).map(str::to_ascii_lowercase);
        let quantity = body.get("Quantity").and_then(Value::as_f64).filter(|q| q.is_finite());
        if let (Some(plan), Some(quantity)) = (plan, quantity) {
            *out.entry(plan).or_default() += quantity;
        }
    }
    out
}

/// Sets each plan row's `QueuedQuantity` from [`queued`] (0 when nothing waits for it).
pub fn attach_queued(plans: &mut [Value], queued: &HashMap<String, f64>) {
    for plan in plans.iter_mut() {
        let id = plan.get("ID").and_then(Value::as_str).map(str::to_ascii_lowercase).unwrap_or_default();
        if let Some(row) = plan.as_object_mut() {
            row.insert(QUEUED_FIELD.into(), queued.get(&id).copied().unwrap_or(0.0).into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(action: &str, state: State, body: Value) -> Entry {
        serde_json::from_value(json!({
            "id": 1, "uid": "u", "action": action, "method": "POST", "path": "manufacturing/MaterialIssues",
            "body": body, "reconcile": {"by": "unknown"}, "tables": [], "user": "1", "user_name": "A",
            "state": state, "attempts": 0, "error": null, "created_ms": 0, "sent_ms": null, "done_ms": null,
            "result_key": null
        }))
        .expect("an entry")
    }

    #[test]
    fn only_open_material_issues_count_as_queued() {
        let plan = "0BADC0DE-0000-4000-8000-000000000006";
        let issue = |q: f64| json!({"ShopOrderMaterialPlan": plan, "Quantity": q});
        let entries = [
            entry("updateMaterialsIssues", State::Pending, issue(2.0)),
            entry("updateMaterialsIssues", State::Sending, issue(0.5)),
            entry("updateMaterialsIssues", State::Delivered, issue(7.0)),
            entry("updateMaterialsIssues", State::Failed, issue(9.0)),
            entry("createByProductReceipt", State::Pending, issue(4.0)),
        ];
        let q = queued(&entries);
        assert_eq!(q.get(&plan.to_ascii_lowercase()), Some(&2.5));
        let mut rows = vec![json!({"ID": plan}), json!({"ID": "other"})];
        attach_queued(&mut rows, &q);
        assert_eq!((rows[0][QUEUED_FIELD].as_f64(), rows[1][QUEUED_FIELD].as_f64()), (Some(2.5), Some(0.0)));
    }
}
