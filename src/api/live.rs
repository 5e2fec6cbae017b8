//! `GET /api/v1/exact/live/{table}`: a live table (spec §3's non-sync endpoints), read by
//! `crate::live::tables`; a copy served in place of a fresh read carries `X-Data-As-Of`.

use super::peer_gone::unless_gone;
use super::router::Router;
use super::scope::Org;
use crate::auth::tier::Session;
use crate::error::{AppError, AppResult, Code};
use crate::exact::catalogue::{self, Kind};
use crate::live::{AS_OF_HEADER, tables};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use utoipa::IntoParams;

pub fn routes(r: &mut Router) {
    r.full("/exact/live/{table}", |res| {
        res.get(read)
            .query::<LiveQuery>()
            .list::<super::views::TableRow>(
                200,
                "The table's rows; a copy kept from an earlier read says when it was fetched in X-Data-As-Of",
            )
            .header(AS_OF_HEADER, "Only on a copy kept from an earlier read: when it was fetched, epoch milliseconds")
            .fails(&[Code::SyncEndpointLive, Code::ProviderUnreachable, Code::ProviderSignIn, Code::Warehouses])
            .fails(&[Code::TableInfo, Code::TooManyRequests])
    });
}

#[derive(Deserialize, Default, IntoParams)]
struct LiveQuery {
    /// Ask Exact Online even when the kept copy is fresh.
    #[serde(default)]
    refresh: bool,
}

async fn read(
    req: HttpRequest,
    state: web::Data<AppState>,
    session: Session,
    org: Org,
    table: web::Path<String>,
    q: web::Query<LiveQuery>,
) -> AppResult<HttpResponse> {
    let ep = match catalogue::by_table(&table) {
        Some(ep) if ep.kind == Kind::Live => ep,
        Some(_) => return Err(AppError::new(Code::SyncEndpointLive)),
        None => return Err(AppError::bad_request(format!("unknown endpoint '{table}'"))),
    };
    // Held until answered, or dropped with the read when its client goes away.
    let live = state.live();
    let _slot = crate::live::read_slot(&live, &session.record.user).await?;
    let table = unless_gone(&req, tables::read(&live, org.division, ep, q.refresh)).await?;
    let mut res = HttpResponse::Ok();
    res.content_type("application/json");
    if let Some(t) = table.as_of {
        res.insert_header((AS_OF_HEADER, t.to_string()));
    }
    Ok(res.body(table.body))
}
