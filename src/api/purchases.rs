//! `GET /api/v1/purchases/open` (full access): the purchase order lines still to be received,
//! each with its order's supplier, warehouse and dates, from the local copy (`crate::purchases`).

use super::blocking;
use super::router::Router;
use super::scope::Org;
use crate::error::{AppResult, Code};
use crate::materials::Shortages;
use crate::purchases::OpenPurchaseLine;
use crate::state::AppState;
use actix_web::{HttpResponse, web};

pub fn routes(r: &mut Router) {
    r.full("/purchases/open", |res| {
        res.get(open)
            .list::<OpenPurchaseLine>(
                200,
                "The lines of open purchase orders still expecting goods, by order number and line",
            )
            .fails(&[Code::TableInfo])
    });
}

async fn open(state: web::Data<AppState>, shortages: web::Data<Shortages>, org: Org) -> AppResult<HttpResponse> {
    let store = state.stores.get(org.division)?;
    let lines = blocking(move || Ok(shortages.open_purchases().get(org.division, &store)?)).await?;
    Ok(HttpResponse::Ok().json(&*lines))
}
