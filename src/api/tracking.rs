//! Serial and batch numbers in stock (full access): `GET /api/v1/tracking/numbers?item={guid}`
//! with optional `warehouse` and `location`: the item's serials and batches in stock there, from
//! the local copy (`crate::tracking`), batches first-expiring first, for the screens that book a
//! tracked item.

use super::blocking;
use super::router::Router;
use super::scope::Org;
use crate::error::{AppError, AppResult, Code};
use crate::exact::odata;
use crate::state::AppState;
use crate::tracking::{self, NumbersInStock};
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use utoipa::IntoParams;

pub fn routes(r: &mut Router) {
    r.full("/tracking/numbers", |res| {
        res.get(numbers)
            .query::<NumbersQuery>()
            .json::<NumbersInStock>(200, "The item's serial and batch numbers in stock at that place")
            .fails(&[Code::TableInfo])
    });
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct NumbersQuery {
    /// The item's ID.
    #[param(example = "0badc0de-0000-4000-8000-000000000007")]
    item: String,
    /// Only this warehouse.
    #[param(example = "0badc0de-0000-4000-8000-000000000008")]
    warehouse: Option<String>,
    /// Only this storage location.
    location: Option<String>,
}

/// A GUID parameter, lower-cased, or a clear 400 naming it.
fn guid(value: Option<String>, name: &str) -> AppResult<Option<String>> {
    match value.map(|v| v.trim().to_ascii_lowercase()).filter(|v| !v.is_empty()) {
        Some(v) if odata::is_guid(&v) => Ok(Some(v)),
        Some(_) => Err(AppError::bad_request(format!("'{name}' must be an ID (a GUID)"))),
        None => Ok(None),
    }
}

async fn numbers(state: web::Data<AppState>, org: Org, q: web::Query<NumbersQuery>) -> AppResult<HttpResponse> {
    let q = q.into_inner();
    let item = guid(Some(q.item), "item")?.ok_or_else(|| AppError::bad_request("'item' is required"))?;
    let warehouse = guid(q.warehouse, "warehouse")?;
    let location = guid(q.location, "location")?;
    let store = state.stores.get(org.division)?;
    let found = blocking(move || {
        tracking::in_stock(&store, &item, warehouse.as_deref(), location.as_deref())
            .map_err(|e| AppError::new(Code::TableInfo).caused_by(e))
    })
    .await?;
    Ok(HttpResponse::Ok().json(found))
}
