//! What Planning's material dots are worked out from, read from the local copy in one answer
//! (`GET /api/v1/planning/materials`): each open shop order's material lines with what they still
//! need (planned, less what Exact has issued and what the outbox still has to issue), and the
//! free stock and planned receipts of those items, summed over warehouses.
//!
//! The screen used to read every open material line and every stock position itself, a thousand
//! rows a page (at scale large over two hundred pages, twelve seconds before the dots showed).
//! It still allocates the stock to the orders itself, by their start dates, which a planner moves.

use crate::exact::odata::{field_f64, field_text};
use crate::kept::Kept;
use crate::store::{OrgStore, StoreResult};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use utoipa::ToSchema;

/// The tables the needs are made of: a write to any of them makes them again.
const TABLES: [&str; 4] = ["shopOrders", "shopOrderMaterialPlans", crate::issued::TABLE, "stockPositions"];
/// Shop orders still to be made: 10 open, 20 in process.
const OPEN_SHOP_ORDERS: &str = "lt.30";
/// Material plan statuses whose material is needed no more: complete, cancelled (spec §3), and
/// Exact's finished 30.
const DONE_PLANS: &str = "not.in.(21,30,45)";
/// Plan type 1 is a material; 2 a by-product, which yields stock rather than using it.
const MATERIAL: f64 = 1.0;

/// A material line of an open shop order and what it still needs.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanNeed {
    /// The material plan line's id, lower case.
    pub id: String,
    pub shop_order: String,
    pub item: String,
    /// Planned, less what was issued in Exact and what the outbox still has to issue.
    pub quantity: f64,
}

/// An item's free stock and planned receipts (`PlanningIn`), over all warehouses.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemStock {
    pub item: String,
    pub free: f64,
    pub incoming: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MaterialNeeds {
    pub plans: Vec<PlanNeed>,
    /// The items of `plans` only.
    pub stock: Vec<ItemStock>,
}

fn lower(row: &serde_json::Value, key: &str) -> String {
    field_text(row, key).to_ascii_lowercase()
}

/// The needs as the local copy has them (before what the outbox still issues).
fn make(store: &OrgStore) -> StoreResult<MaterialNeeds> {
    let orders: HashSet<String> = store
        .all_rows("shopOrders", &[("Status", OPEN_SHOP_ORDERS), ("select", "ID")])?
        .iter()
        .map(|o| lower(o, "ID"))
        .collect();
    let mut rows = store.all_rows(
        "shopOrderMaterialPlans",
        &[("Status", DONE_PLANS), ("select", "ID,ShopOrder,Item,PlannedQuantity,Type")],
    )?;
    rows.retain(|p| {
        let kind = field_f64(p, "Type");
        (kind == 0.0 || kind == MATERIAL) && orders.contains(&lower(p, "ShopOrder"))
    });
    crate::issued::attach(store, &mut rows)?;
    let plans: Vec<PlanNeed> = rows
        .iter()
        .map(|p| PlanNeed {
            id: lower(p, "ID"),
            shop_order: lower(p, "ShopOrder"),
            item: lower(p, "Item"),
            quantity: tidy(field_f64(p, "PlannedQuantity") - field_f64(p, crate::issued::FIELD)),
        })
        .filter(|p| p.quantity > 0.0)
        .collect();
    let items: HashSet<&str> = plans.iter().map(|p| p.item.as_str()).collect();
    let mut stock: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for s in store.all_rows("stockPositions", &[("select", "ItemId,FreeStock,PlanningIn")])? {
        let item = lower(&s, "ItemId");
        if items.contains(item.as_str()) {
            let sum = stock.entry(item).or_default();
            sum.0 += field_f64(&s, "FreeStock");
            sum.1 += field_f64(&s, "PlanningIn");
        }
    }
    let stock = stock
        .into_iter()
        .map(|(item, (free, incoming))| ItemStock { item, free: tidy(free), incoming: tidy(incoming) })
        .collect();
    Ok(MaterialNeeds { plans, stock })
}

/// Quantities summed in floating point drift; six decimals are kept.
fn tidy(n: f64) -> f64 {
    (n * 1e6).round() / 1e6
}

/// The needs per organization, kept until their tables change.
pub struct Needs(Kept<MaterialNeeds>);

impl Default for Needs {
    fn default() -> Self {
        Needs(Kept::new(&TABLES))
    }
}

impl Needs {
    /// The organization's needs; `queued` is what the outbox still issues to each line
    /// (blocking: run it off the async workers).
    pub fn get(&self, division: i64, store: &OrgStore, queued: &HashMap<String, f64>) -> StoreResult<MaterialNeeds> {
        let kept = self.0.get(division, store, make)?;
        let plans = kept
            .plans
            .iter()
            .filter_map(|p| {
                let quantity = tidy(p.quantity - queued.get(&p.id).copied().unwrap_or(0.0));
                (quantity > 0.0).then(|| PlanNeed { quantity, ..p.clone() })
            })
            .collect();
        Ok(MaterialNeeds { plans, stock: kept.stock.clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::materials::rows::tests::{guid, store};

    #[test]
    fn open_orders_lines_with_what_they_still_need_and_their_items_stock() {
        // the Materials fixture: bolt lines 30 (4, open order) and 31 (4, 2 issued, running
        // order), paint only on a finished order's line and a finished line; bolt 5 free
        let (_dir, store) = store();
        let needs = Needs::default();
        let got = needs.get(1, &store, &HashMap::new()).unwrap();
        let plans: Vec<(String, f64)> = got.plans.iter().map(|p| (p.id.clone(), p.quantity)).collect();
        assert_eq!(plans.len(), 2, "{plans:?}");
        assert!(plans.contains(&(guid(30), 4.0)) && plans.contains(&(guid(31), 2.0)));
        assert_eq!(
            got.stock,
            vec![ItemStock { item: guid(10), free: 5.0, incoming: 0.0 }],
            "paint is needed by no open line"
        );
        // what the outbox still issues comes off; a line it covers is left out
        let queued = HashMap::from([(guid(30), 1.5), (guid(31), 2.0)]);
        let got = needs.get(1, &store, &queued).unwrap();
        assert_eq!(got.plans.iter().map(|p| (p.id.clone(), p.quantity)).collect::<Vec<_>>(), vec![(guid(30), 2.5)]);
    }
}
