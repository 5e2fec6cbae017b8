//! `GET /api/v1/materials/shortages` (full access): a page of the Materials screen's projection,
//! made on the server from the local copy (`crate::materials`): the items in demand shortest
//! first, each with its figures and its lines, and how many items are in each state.

use super::blocking;
use super::router::Router;
use super::scope::Org;
use crate::error::{AppError, AppResult, Code};
use crate::exact::odata;
use crate::materials::projection::Filters;
use crate::materials::{MAX_PAGE, PageRequest, ShortagePage, Shortages, Show};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use utoipa::IntoParams;

pub fn routes(r: &mut Router) {
    r.full("/materials/shortages", |res| {
        res.get(shortages)
            .query::<ShortageQuery>()
            .json::<ShortagePage>(
                200,
                "A page of the items in demand, shortest first, with their lines and the counts per state",
            )
            .fails(&[Code::TableInfo])
    });
}

/// Items per page when the request names none.
const DEFAULT_PAGE: usize = 100;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct ShortageQuery {
    /// Only this warehouse's lines (an ID); all when absent.
    warehouse: Option<String>,
    /// Only items of this item group (an ID).
    item_group: Option<String>,
    /// Only items with demand for this project (an ID).
    project: Option<String>,
    /// `short`, `attention` (short or covered only by supply still to come; the default) or `all`.
    #[param(value_type = Option<String>)]
    show: Option<Show>,
    /// Part of the item's code or description.
    search: Option<String>,
    /// Items to skip (default 0).
    offset: Option<usize>,
    /// Items to list (default 100, at most 500).
    limit: Option<usize>,
}

/// An id filter: absent or empty means all; otherwise a GUID, lower case.
fn id_filter(name: &str, value: Option<String>) -> AppResult<String> {
    let value = value.unwrap_or_default().trim().to_ascii_lowercase();
    if value.is_empty() || odata::is_guid(&value) {
        Ok(value)
    } else {
        Err(AppError::bad_request(format!("'{name}' must be an ID (a GUID)")))
    }
}

async fn shortages(
    state: web::Data<AppState>,
    shortages: web::Data<Shortages>,
    org: Org,
    q: web::Query<ShortageQuery>,
) -> AppResult<HttpResponse> {
    let q = q.into_inner();
    let limit = q.limit.unwrap_or(DEFAULT_PAGE);
    if limit == 0 || limit > MAX_PAGE {
        return Err(AppError::bad_request(format!("'limit' must be between 1 and {MAX_PAGE}")));
    }
    let request = PageRequest {
        filters: Filters {
            warehouse: id_filter("warehouse", q.warehouse)?,
            project: id_filter("project", q.project)?,
            item_group: id_filter("itemGroup", q.item_group)?,
        },
        show: q.show.unwrap_or_default(),
        search: q.search.unwrap_or_default(),
        offset: q.offset.unwrap_or(0),
        limit,
    };
    let store = state.stores.get(org.division)?;
    // what the outbox still has to issue is needed no more: it is on its way to Exact
    let open = state.outbox.open_entries(org.division).map_err(|e| AppError::new(Code::TableInfo).caused_by(e))?;
    let queued = crate::issued::queued(&open);
    let body = blocking(move || Ok(shortages.page(org.division, &store, &request, &queued)?)).await?;
    Ok(HttpResponse::Ok().json(body))
}
