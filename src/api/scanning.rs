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

use super::blocking;
use super::router::Router;
use super::scope::Org;
use crate::error::{AppError, AppResult, Code};
use crate::exact::odata;
use crate::scanning::open_orders_needing;
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

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
    let pairs = blocking(move || Ok(open_orders_needing(&store, &item, &queued)?)).await?;
    let body: Vec<OrderNeeding> = pairs.into_iter().map(|(order, plan)| OrderNeeding { order, plan }).collect();
    Ok(HttpResponse::Ok().json(body))
}
