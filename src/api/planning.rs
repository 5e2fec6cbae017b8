//! `GET /api/v1/planning/materials` (full access): Planning's material needs and the stock of
//! their items in one answer from the local copy (`crate::planning`).

use super::blocking;
use super::router::Router;
use super::scope::Org;
use crate::error::{AppError, AppResult, Code};
use crate::planning::{Needs, NeedsAnswer};
use crate::state::AppState;
use actix_web::{HttpResponse, web};

pub fn routes(r: &mut Router) {
    r.full("/planning/materials", |res| {
        res.get(materials)
            .json::<NeedsAnswer>(
                200,
                "The open shop orders' material lines with what they still need, and those items' stock",
            )
            .fails(&[Code::TableInfo])
    });
}

async fn materials(state: web::Data<AppState>, needs: web::Data<Needs>, org: Org) -> AppResult<HttpResponse> {
    let store = state.stores.get(org.division)?;
    // what the outbox still has to issue is needed no more: it is on its way to Exact
    let open = state.outbox.open_entries(org.division).map_err(|e| AppError::new(Code::TableInfo).caused_by(e))?;
    let queued = crate::issued::queued(&open);
    let body = blocking(move || Ok(needs.answer(org.division, &store, &queued)?)).await?;
    Ok(HttpResponse::Ok().content_type("application/json").body(body))
}
