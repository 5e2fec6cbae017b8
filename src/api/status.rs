//! What a signed-in screen needs to warn about: whether Exact Online answers, and how many of
//! the organization's writes wait in the outbox or were refused (signed-in tier).

use super::router::Router;
use crate::auth::tier::Session;
use crate::error::{AppError, AppResult};
use crate::exact::dropped::{self, DroppedProperty};
use crate::exact::reachability::ProviderStatus;
use crate::outbox::QueueCounts;
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use serde::Serialize;
use utoipa::ToSchema;

pub fn routes(r: &mut Router) {
    r.signed_in("/status", |res| {
        res.get(status).json::<ServerStatus>(
            200,
            "Whether Exact Online answers, and the organization's waiting and refused writes",
        )
    });
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ServerStatus {
    provider: ProviderStatus,
    /// The organization's writes in the outbox.
    outbox: QueueCounts,
    /// Properties Exact Online removed that the product no longer asks for: they show empty.
    dropped_properties: Vec<DroppedProperty>,
}

async fn status(state: web::Data<AppState>, session: Session) -> AppResult<HttpResponse> {
    let division = session.record.division;
    let outbox = state.outbox.counts(division).map_err(AppError::internal)?;
    let store = state.stores.get(division)?;
    let dropped_properties = super::blocking(move || Ok(dropped::all(&store)?)).await?;
    Ok(HttpResponse::Ok().insert_header(("Cache-Control", "no-store")).json(ServerStatus {
        provider: state.exact.provider_status(),
        outbox,
        dropped_properties,
    }))
}
