//! The material issues behind the demo's issued quantities: Exact's material plans carry no
//! issued quantity of their own (only the plan details sum it), so every demo plan line with an
//! issued quantity gets the issue that booked it, as the product syncs them.
//!
//! Made last and without the random stream, so every other row (and Timestamp) stays as it was.

use super::{DAY, Gen};
use crate::store::deterministic_id;
use crate::tracking;
use crate::value::Val;

const PLANS: &str = "manufacturing/ShopOrderMaterialPlans";
const ISSUES: &str = "manufacturing/MaterialIssues";

impl Gen<'_> {
    pub(super) fn material_issues(&mut self) {
        let Some(plans) = self.d.table(PLANS) else { return };
        let mut issued: Vec<(u128, f64)> = plans
            .rows
            .keys()
            .filter(|k| plans.value(**k, "Type").as_i64() == Some(1))
            .filter_map(|k| plans.value(*k, "IssuedQuantity").as_f64().filter(|q| *q > 0.0).map(|q| (*k, q)))
            .collect();
        issued.sort_by_key(|(k, _)| *k);
        for (plan, quantity) in issued {
            let field = |f: &str| self.d.table(PLANS).map_or(Val::Null, |t| t.value(plan, f));
            let (order, item, wh) = (field("ShopOrder"), field("Item"), field("Warehouse"));
            // issued the day before the line was planned, and never after yesterday
            let planned = field("PlannedDate").as_i64().unwrap_or(self.today);
            let date = Val::Date(planned.min(self.today) - DAY);
            let mut vals = vec![
                ("ShopOrderMaterialPlan", Val::guid(plan)),
                ("ShopOrder", order),
                ("Item", item.clone()),
                ("Warehouse", wh),
                ("Quantity", Val::Dbl(quantity)),
                ("TransactionDate", date.clone()),
                ("CreatedDate", date.clone()),
                ("Created", date.clone()),
                ("Modified", date),
                ("CreatedBy", Val::guid(self.creator)),
                ("CreatedByFullName", Val::str("Eva van Dijk")),
                ("Creator", Val::guid(self.creator)),
                ("Division", Val::Int(self.d.code as i64)),
                ("IsBackflush", Val::Int(0)),
                ("HasReversibleQuantity", Val::Bool(true)),
            ];
            if let Some(item) = item.as_guid() {
                vals.extend(tracking::flags(&self.d, item));
            }
            crate::writes::denormalise(&self.d, &mut vals);
            self.d.upsert(ISSUES, deterministic_id(plan, tracking::MATERIAL_ISSUE as u128), &vals);
        }
    }
}
