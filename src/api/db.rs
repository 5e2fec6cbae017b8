//! The local copy (full access): `GET /api/v1/db/{table}` with PostgREST-style filters,
//! `GET /api/v1/db/joins`, and `DELETE /api/v1/db/{table}` (clears a table and its timestamp).

use super::router::Router;
use super::scope::Org;
use super::views::TableRow;
use crate::error::{AppError, AppResult, Code};
use crate::exact::catalogue::{self, Kind};
use crate::limits::{JOIN_MAX_CONCURRENT, JOIN_QUEUE_WAIT};
use crate::state::AppState;
use crate::store::Query;
use crate::store::joins::parse_joins_query;
use actix_web::{HttpRequest, HttpResponse, web};
use utoipa::IntoParams;

pub fn routes(r: &mut Router) {
    // `joins` is registered first so it is never taken for a table name.
    r.full("/db/joins", |res| {
        res.get(joins)
            .query::<JoinsQuery>()
            .list::<TableRow>(200, "The base table's rows with their joined rows")
            .fails(&[Code::JoinLengthMismatch, Code::TableInfo])
    });
    r.full("/db/{table}", |res| {
        res.get(read)
            .query::<TableQuery>()
            .list::<TableRow>(200, "The table's rows that match")
            .fails(&[Code::TableInfo])
            .delete(clear)
            .admin()
            .empty(204, "The table is emptied; its next sync reads it from the start")
            .fails(&[Code::SyncRunning, Code::TableInfo])
    });
}

/// PostgREST-style reading of a table. Beside these, any of the table's columns filters as
/// `column=op.value` (`eq`, `neq`, `gt`, `gte`, `lt`, `lte`, `like`, `ilike`, `in`, `is`, with
/// `not.`), and `or=(…)`/`and=(…)` group conditions.
#[derive(IntoParams)]
pub struct TableQuery {
    /// The columns to answer, comma separated (all when left out).
    #[param(example = "ID,Code,Description")]
    pub select: Option<String>,
    /// Columns to sort by, comma separated, each `column[.asc|.desc][.nullsfirst|.nullslast]`.
    #[param(example = "Code.asc")]
    pub order: Option<String>,
    /// At most this many rows (at most 1000, the default).
    #[param(maximum = 1000, example = 100)]
    pub limit: Option<u64>,
    /// Rows to skip first.
    pub offset: Option<u64>,
}

/// A table's rows with the rows of other tables that match them. Beside these, the base
/// table's columns filter, select, order and page as in `GET /db/{table}`.
#[derive(IntoParams)]
pub struct JoinsQuery {
    /// The base table.
    #[param(example = "shopOrders")]
    pub table: String,
    /// A JSON list of `{source, joinOn, joinOnSelf}`: rows of `source` whose `joinOn` fields equal
    /// the base row's `joinOnSelf` fields.
    #[param(example = r#"[{"source":"items","joinOn":["ID"],"joinOnSelf":["Item"]}]"#)]
    pub joins: Option<String>,
    /// Merge the first match's fields into the row as `{source}.{field}` instead of attaching
    /// the matches as an array under the source's name.
    pub flatten: Option<bool>,
}

/// A table that exists and is read from the store (spec §5: non-sync endpoints are refused here).
fn stored_table(table: &str) -> AppResult<&'static catalogue::Endpoint> {
    match catalogue::by_table(table) {
        Some(ep) if ep.kind == Kind::Live => Err(AppError::bad_request(format!(
            "'{table}' is not a synced table: read it live through /api/v1/exact/live/{table}"
        ))),
        Some(ep) => Ok(ep),
        None => Err(AppError::bad_request(format!("unknown table '{table}'"))),
    }
}

fn json(bytes: Vec<u8>) -> HttpResponse {
    HttpResponse::Ok().content_type("application/json").body(bytes)
}

async fn read(
    state: web::Data<AppState>,
    org: Org,
    table: web::Path<String>,
    req: HttpRequest,
) -> AppResult<HttpResponse> {
    let ep = stored_table(&table)?;
    let query = Query::parse(req.query_string())?;
    let store = state.stores.get(org.division)?;
    let page = super::blocking(move || Ok(store.query(ep.table, &query)?)).await?;
    Ok(json(page.into_json()))
}

/// The join queries being computed (see [`JOIN_MAX_CONCURRENT`]).
static JOIN_SLOTS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(JOIN_MAX_CONCURRENT);

async fn joins(state: web::Data<AppState>, org: Org, req: HttpRequest) -> AppResult<HttpResponse> {
    let base = query_base(req.query_string())?;
    // `table` names the base table; the rest is the query and the joins.
    let rest: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(url::form_urlencoded::parse(req.query_string().as_bytes()).filter(|(k, _)| k != "table"))
        .finish();
    let (query, specs, flatten) = parse_joins_query(&rest)?;
    let ep = stored_table(&base)?;
    for j in &specs {
        stored_table(&j.source)?;
    }
    let store = state.stores.get(org.division)?;
    let _slot = match tokio::time::timeout(JOIN_QUEUE_WAIT, JOIN_SLOTS.acquire()).await {
        Ok(Ok(slot)) => slot,
        Ok(Err(e)) => return Err(AppError::internal(e)),
        Err(_) => {
            return Err(AppError::with_message(
                Code::Unavailable,
                "The server is busy with other join queries: try again in a moment",
            ));
        }
    };
    let body = super::blocking(move || Ok(store.query_joins(ep.table, &query, &specs, flatten)?)).await?;
    Ok(json(body))
}

/// The base table of a joins query: `table=…`.
fn query_base(qs: &str) -> AppResult<String> {
    url::form_urlencoded::parse(qs.as_bytes())
        .find(|(k, _)| k == "table")
        .map(|(_, v)| v.into_owned())
        .ok_or_else(|| AppError::bad_request("a joins query needs table=…"))
}

async fn clear(state: web::Data<AppState>, org: Org, table: web::Path<String>) -> AppResult<HttpResponse> {
    let ep = catalogue::by_table(&table).ok_or_else(|| AppError::bad_request(format!("unknown table '{table}'")))?;
    if state.sync.is_running(org.division) {
        return Err(AppError::new(Code::SyncRunning));
    }
    let store = state.stores.get(org.division)?;
    super::blocking(move || Ok(store.clear_table(ep.table)?)).await?;
    Ok(HttpResponse::NoContent().finish())
}
