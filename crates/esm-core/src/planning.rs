//! What Planning's material dots are worked out from, read from the local copy in one answer
//! (`GET /api/v1/planning/materials`): each open shop order's material lines with what they still
//! need (planned, less what Exact has issued and what the outbox still has to issue), and the
//! free stock and planned receipts of those items, summed over warehouses.
//!
//! The screen used to read every open material line and every stock position itself, a thousand
//! rows a page (at scale large over two hundred pages, twelve seconds before the dots showed).
//! It still allocates the stock to the orders itself, by their start dates, which a planner moves.

use crate::exact::odata::{field_f64, field_id as lower};
use crate::kept::Kept;
use crate::materials::flow::tidy;
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
#[derive(Debug, Clone, PartialEq)]
pub struct LineNeed {
    /// The material plan line's id, lower case: what the outbox's issues are matched by. Not in
    /// the answer: 118,000 random ids made most of its 5.8 MB (compressed), a second of the
    /// server's time and of the browser's while Planning's bars were still coming in.
    pub id: String,
    /// The line's `LineNumber` in its shop order.
    pub line: i64,
    /// The item, by its place in the needs' `items`.
    pub item: usize,
    /// Planned, less what was issued in Exact and what the outbox still has to issue.
    pub quantity: f64,
}

/// An open shop order's material lines that still need something.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderNeeds {
    pub shop_order: String,
    pub lines: Vec<LineNeed>,
}

/// An item's free stock and planned receipts (`PlanningIn`), over all warehouses.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemStock {
    pub item: String,
    pub free: f64,
    pub incoming: f64,
}

/// The needs, grouped so that each order's and each item's id is kept once (118,000 lines at
/// scale large).
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialNeeds {
    /// Every item a line needs, once, with its stock.
    pub items: Vec<ItemStock>,
    pub orders: Vec<OrderNeeds>,
}

/// The answer on the wire, in columns: five lists of numbers and two of ids. As objects (a
/// line `{"line":…,"item":…,"quantity":…}`, an item `{"item":…,"free":…,"incoming":…}`) it was
/// 12 MB at scale large, and parsing it held up Planning's bars on the browser's one thread.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NeedsAnswer {
    /// Every item a line needs, once, lower case: a line names its item by its place here.
    pub items: Vec<String>,
    /// Each item's free stock over all warehouses, at the item's place.
    pub free: Vec<f64>,
    /// Each item's planned receipts (`PlanningIn`) over all warehouses, at the item's place.
    pub incoming: Vec<f64>,
    /// The open shop orders that still need something, lower case.
    pub orders: Vec<String>,
    /// How many lines each order has: an order's lines follow those of the orders before it.
    pub counts: Vec<usize>,
    /// Each line's `LineNumber` in its shop order: what the shop order window finds it by.
    pub line: Vec<i64>,
    /// Each line's item, by its place in `items`.
    pub item: Vec<usize>,
    /// What each line still needs: planned, less what was issued in Exact and what the outbox
    /// still has to issue.
    pub quantity: Vec<f64>,
}

impl From<&MaterialNeeds> for NeedsAnswer {
    fn from(needs: &MaterialNeeds) -> Self {
        let lines = needs.orders.iter().map(|o| o.lines.len()).sum();
        let mut answer = NeedsAnswer {
            items: needs.items.iter().map(|i| i.item.clone()).collect(),
            free: needs.items.iter().map(|i| i.free).collect(),
            incoming: needs.items.iter().map(|i| i.incoming).collect(),
            orders: needs.orders.iter().map(|o| o.shop_order.clone()).collect(),
            counts: needs.orders.iter().map(|o| o.lines.len()).collect(),
            line: Vec::with_capacity(lines),
            item: Vec::with_capacity(lines),
            quantity: Vec::with_capacity(lines),
        };
        for l in needs.orders.iter().flat_map(|o| &o.lines) {
            answer.line.push(l.line);
            answer.item.push(l.item);
            answer.quantity.push(l.quantity);
        }
        answer
    }
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
        &[("Status", DONE_PLANS), ("select", "ID,ShopOrder,Item,PlannedQuantity,Type,LineNumber")],
    )?;
    rows.retain(|p| {
        let kind = field_f64(p, "Type");
        (kind == 0.0 || kind == MATERIAL) && orders.contains(&lower(p, "ShopOrder"))
    });
    crate::issued::attach(store, &mut rows)?;
    let mut items: Vec<ItemStock> = Vec::new();
    let mut item_at: HashMap<String, usize> = HashMap::new();
    let mut orders: BTreeMap<String, Vec<LineNeed>> = BTreeMap::new();
    for p in &rows {
        let quantity = tidy(field_f64(p, "PlannedQuantity") - field_f64(p, crate::issued::FIELD));
        if quantity <= 0.0 {
            continue;
        }
        let item = lower(p, "Item");
        let at = *item_at.entry(item.clone()).or_insert_with(|| {
            items.push(ItemStock { item, free: 0.0, incoming: 0.0 });
            items.len() - 1
        });
        orders.entry(lower(p, "ShopOrder")).or_default().push(LineNeed {
            id: lower(p, "ID"),
            line: field_f64(p, "LineNumber") as i64,
            item: at,
            quantity,
        });
    }
    for s in store.all_rows("stockPositions", &[("select", "ItemId,FreeStock,PlanningIn")])? {
        if let Some(&at) = item_at.get(&lower(&s, "ItemId")) {
            items[at].free += field_f64(&s, "FreeStock");
            items[at].incoming += field_f64(&s, "PlanningIn");
        }
    }
    for i in &mut items {
        (i.free, i.incoming) = (tidy(i.free), tidy(i.incoming));
    }
    let orders = orders.into_iter().map(|(shop_order, lines)| OrderNeeds { shop_order, lines }).collect();
    Ok(MaterialNeeds { items, orders })
}

/// The needs per organization, kept until their tables change, with their answer's JSON: at
/// scale large 6.4 MB, which every load of Planning would otherwise lay out again.
pub struct Needs {
    needs: Kept<MaterialNeeds>,
    answer: Kept<bytes::Bytes>,
}

impl Default for Needs {
    fn default() -> Self {
        Needs { needs: Kept::new(&TABLES), answer: Kept::new(&TABLES) }
    }
}

impl Needs {
    /// The organization's needs; `queued` is what the outbox still issues to each line
    /// (blocking: run it off the async workers).
    pub fn get(
        &self,
        division: i64,
        store: &OrgStore,
        queued: &HashMap<String, f64>,
    ) -> StoreResult<std::sync::Arc<MaterialNeeds>> {
        let kept = self.needs.get(division, store, make)?;
        if queued.is_empty() {
            return Ok(kept);
        }
        let orders = kept
            .orders
            .iter()
            .map(|o| {
                let lines = o
                    .lines
                    .iter()
                    .filter_map(|l| {
                        let quantity = tidy(l.quantity - queued.get(&l.id).copied().unwrap_or(0.0));
                        (quantity > 0.0).then(|| LineNeed { quantity, ..l.clone() })
                    })
                    .collect();
                OrderNeeds { shop_order: o.shop_order.clone(), lines }
            })
            .filter(|o| !o.lines.is_empty())
            .collect();
        Ok(std::sync::Arc::new(MaterialNeeds { items: kept.items.clone(), orders }))
    }

    /// [`Needs::get`] as the answer's JSON (`NeedsAnswer`): kept while the outbox issues nothing,
    /// made for the request otherwise.
    pub fn answer(&self, division: i64, store: &OrgStore, queued: &HashMap<String, f64>) -> StoreResult<bytes::Bytes> {
        let json = |needs: &MaterialNeeds| -> StoreResult<bytes::Bytes> {
            Ok(serde_json::to_vec(&NeedsAnswer::from(needs)).map_err(std::io::Error::from)?.into())
        };
        if queued.is_empty() {
            let kept = self.answer.get(division, store, |store| json(&*self.get(division, store, queued)?))?;
            return Ok(bytes::Bytes::clone(&kept));
        }
        json(&*self.get(division, store, queued)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::materials::rows::tests::{guid, store};

    /// (line id, item id, quantity) of each line.
    fn lines(needs: &MaterialNeeds) -> Vec<(String, String, f64)> {
        let mut out: Vec<(String, String, f64)> = needs
            .orders
            .iter()
            .flat_map(|o| o.lines.iter().map(|l| (l.id.clone(), needs.items[l.item].item.clone(), l.quantity)))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    #[test]
    fn open_orders_lines_with_what_they_still_need_and_their_items_stock() {
        // the Materials fixture: bolt lines 30 (4, open order) and 31 (4, 2 issued, running
        // order), paint only on a finished order's line and a finished line; bolt 5 free
        let (_dir, store) = store();
        let needs = Needs::default();
        let got = needs.get(1, &store, &HashMap::new()).unwrap();
        assert_eq!(lines(&got), vec![(guid(30), guid(10), 4.0), (guid(31), guid(10), 2.0)]);
        assert_eq!(got.orders.len(), 2, "grouped by order");
        // the window finds a line by its order and line number; the ids stay on the server
        let answer = serde_json::to_value(NeedsAnswer::from(&*got)).unwrap();
        let at = answer["orders"].as_array().unwrap().iter().position(|o| *o == guid(1)).unwrap();
        let start: u64 = answer["counts"].as_array().unwrap()[..at].iter().filter_map(|c| c.as_u64()).sum();
        assert_eq!(answer["counts"][at], 1);
        let start = start as usize;
        assert_eq!(
            (&answer["line"][start], &answer["item"][start], &answer["quantity"][start]),
            (&serde_json::json!(1), &serde_json::json!(0), &serde_json::json!(4.0))
        );
        assert_eq!(answer["items"], serde_json::json!([guid(10)]));
        assert_eq!((&answer["free"], &answer["incoming"]), (&serde_json::json!([5.0]), &serde_json::json!([0.0])));
        assert_eq!(answer["line"].as_array().unwrap().len(), 2, "one entry per line in each column");
        // the JSON is that answer, and kept: a second request gets the same bytes
        let json = needs.answer(1, &store, &HashMap::new()).unwrap();
        assert_eq!(serde_json::from_slice::<serde_json::Value>(&json).unwrap(), answer);
        assert_eq!(needs.answer(1, &store, &HashMap::new()).unwrap().as_ptr(), json.as_ptr(), "kept");
        assert_eq!(
            got.items,
            vec![ItemStock { item: guid(10), free: 5.0, incoming: 0.0 }],
            "paint is needed by no open line"
        );
        // what the outbox still issues comes off; a line it covers is left out, and its order
        let queued = HashMap::from([(guid(30), 1.5), (guid(31), 2.0)]);
        let got = needs.get(1, &store, &queued).unwrap();
        assert_eq!(lines(&got), vec![(guid(30), guid(10), 2.5)]);
        assert_eq!(got.orders.len(), 1);
        let json: serde_json::Value = serde_json::from_slice(&needs.answer(1, &store, &queued).unwrap()).unwrap();
        assert_eq!(json["quantity"], serde_json::json!([2.5]), "the answer follows the outbox");
    }
}
