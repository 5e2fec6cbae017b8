//! Scanning's reads of the local copy: the open shop orders that need an item (with what was
//! issued and what the outbox still has to issue), the offline scan `catalogue` a handheld keeps,
//! and the `references` by which a booking made from that catalogue names what it books.

pub mod catalogue;
pub mod references;

use crate::exact::odata;
use crate::store::{OrgStore, StoreResult};
use serde_json::Value;
use std::collections::HashMap;

/// Shop order statuses that still take materials: 10 open, 20 in process (spec §3).
pub const ACTIVE_SHOP_ORDER_STATUSES: &str = "in.(10,20)";
/// Material plan lines of Type 1 are materials (2 are by-products).
pub const PLAN_TYPE_MATERIAL: &str = "eq.1";
/// Order ids per material-line query: keeps each `in.(…)` list short.
const ORDERS_PER_QUERY: usize = 100;

fn text_of(row: &Value, key: &str) -> Option<String> {
    row.get(key).and_then(Value::as_str).map(str::to_ascii_lowercase)
}

/// The open and in-process shop orders with a material line of `item`, each paired with that
/// line (an order that needs the item on two lines comes twice), by shop order number.
pub fn open_orders_needing(
    store: &OrgStore,
    item: &str,
    queued: &HashMap<String, f64>,
) -> StoreResult<Vec<(Value, Value)>> {
    let mut orders = store.all_rows("shopOrders", &[("Status", ACTIVE_SHOP_ORDER_STATUSES)])?;
    orders.sort_by_key(|o| o.get("ShopOrderNumber").and_then(Value::as_i64).unwrap_or(i64::MAX));
    let ids: Vec<String> = orders.iter().filter_map(|o| text_of(o, "ID")).filter(|id| odata::is_guid(id)).collect();
    let item_filter = format!("eq.{item}");
    let mut plans = Vec::new();
    for chunk in ids.chunks(ORDERS_PER_QUERY) {
        let in_list = format!("in.({})", chunk.join(","));
        plans.extend(store.all_rows(
            "shopOrderMaterialPlans",
            &[("ShopOrder", in_list.as_str()), ("Item", item_filter.as_str()), ("Type", PLAN_TYPE_MATERIAL)],
        )?);
    }
    crate::issued::attach(store, &mut plans)?;
    crate::issued::attach_queued(&mut plans, queued);
    let mut by_order: HashMap<String, Vec<Value>> = HashMap::new();
    for plan in plans {
        if let Some(order) = text_of(&plan, "ShopOrder") {
            by_order.entry(order).or_default().push(plan);
        }
    }
    let mut out = Vec::new();
    for order in orders {
        let Some(mut lines) = text_of(&order, "ID").and_then(|id| by_order.remove(&id)) else { continue };
        lines.sort_by_key(|p| p.get("LineNumber").and_then(Value::as_i64).unwrap_or(i64::MAX));
        for plan in lines {
            out.push((order.clone(), plan));
        }
    }
    Ok(out)
}
