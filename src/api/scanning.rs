//! Reads of the Scanning screen that one table query cannot answer (full access):
//! `GET /api/v1/scanning/ordersNeeding?item={guid}`: the open and in-process shop orders that
//! need the item as a material, each with its material plan line, from the local copy; each line
//! carries `IssuedQuantity`, summed from the synced material issues, and `QueuedQuantity`, what
//! the outbox still has to issue to it (`crate::issued`).
//!
//! The screen used to read the item's material lines (the oldest 1000) and then their orders;
//! an item used for years has thousands of lines of finished orders, and the open ones fell off
//! the end. Here the open orders come first (few, whatever the history), then their lines of the
//! item, so the answer is complete however long the item's history is.

use super::router::Router;
use super::scope::Org;
use crate::error::{AppError, AppResult, Code};
use crate::exact::odata;
use crate::state::AppState;
use crate::store::{OrgStore, StoreResult};
use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use utoipa::{IntoParams, ToSchema};

/// Shop order statuses that still take materials: 10 open, 20 in process (spec §3).
pub const ACTIVE_SHOP_ORDER_STATUSES: &str = "in.(10,20)";
/// Material plan lines of Type 1 are materials (2 are by-products).
pub const PLAN_TYPE_MATERIAL: &str = "eq.1";
/// Order ids per material-line query: keeps each `in.(…)` list short.
const ORDERS_PER_QUERY: usize = 100;

pub fn routes(r: &mut Router) {
    r.full("/scanning/ordersNeeding", |res| {
        res.get(orders_needing)
            .query::<NeedingQuery>()
            .list::<OrderNeeding>(200, "The open and in-process shop orders needing the item, by shop order number")
            .fails(&[Code::TableInfo])
    });
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct NeedingQuery {
    /// The item's ID.
    #[param(example = "0badc0de-0000-4000-8000-000000000007")]
    item: String,
}

/// A shop order that needs the item, with its material plan line of the item (an order needing
/// it on two lines comes twice).
#[derive(Serialize, ToSchema)]
pub struct OrderNeeding {
    /// The shop order's row of the local copy (`shopOrders`).
    #[schema(value_type = Object)]
    pub order: Value,
    /// The material plan line's row (`shopOrderMaterialPlans`).
    #[schema(value_type = Object)]
    pub plan: Value,
}

async fn orders_needing(state: web::Data<AppState>, org: Org, q: web::Query<NeedingQuery>) -> AppResult<HttpResponse> {
    let item = q.into_inner().item.trim().to_ascii_lowercase();
    if !odata::is_guid(&item) {
        return Err(AppError::bad_request("'item' must be an item ID (a GUID)"));
    }
    let store = state.stores.get(org.division)?;
    // what the outbox still has to issue counts as issued already: a worker must not issue twice
    let open = state.outbox.open_entries(org.division).map_err(|e| AppError::new(Code::TableInfo).caused_by(e))?;
    let queued = crate::issued::queued(&open);
    let pairs = web::block(move || open_orders_needing(&store, &item, &queued))
        .await
        .map_err(|e| AppError::new(Code::TableInfo).caused_by(anyhow::anyhow!("{e}")))??;
    let body: Vec<OrderNeeding> = pairs.into_iter().map(|(order, plan)| OrderNeeding { order, plan }).collect();
    Ok(HttpResponse::Ok().json(body))
}

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
