//! `GET /api/v1/materials/rows` (full access): the rows of the local copy behind the Materials
//! screen in one answer (`crate::materials`), instead of the hundred and more reads of the data
//! API the screen made before.

use super::router::Router;
use super::scope::Org;
use crate::error::{AppError, AppResult, Code};
use crate::materials::{MaterialRows, material_rows};
use crate::state::AppState;
use actix_web::{HttpResponse, web};

pub fn routes(r: &mut Router) {
    r.full("/materials/rows", |res| {
        res.get(rows)
            .json::<MaterialRows>(200, "Open shop orders, their material lines still to issue, open sales lines, and the items and stock in demand")
            .fails(&[Code::TableInfo])
    });
}

async fn rows(state: web::Data<AppState>, org: Org) -> AppResult<HttpResponse> {
    let store = state.stores.get(org.division)?;
    // what the outbox still has to issue is needed no more: it is on its way to Exact
    let open = state.outbox.open_entries(org.division).map_err(|e| AppError::new(Code::TableInfo).caused_by(e))?;
    let queued = crate::issued::queued(&open);
    let body = super::blocking(move || Ok(material_rows(&store, &queued)?)).await?;
    Ok(HttpResponse::Ok().json(body))
}
