//! HTTP handlers, one file per resource group. Handlers are thin: parse, call a service, map errors.

pub mod admin;
pub mod auth;
pub mod client;
pub mod contract;
pub mod counts;
pub mod csrf;
pub mod db;
pub mod events;
pub mod extractors;
pub mod guard;
pub mod health;
pub mod hours;
pub mod idempotency;
pub mod import_data;
pub mod labels;
pub mod licence;
pub mod live;
pub mod materials;
pub mod openapi;
pub mod org;
pub mod peer_gone;
pub mod pictures;
pub mod planning;
pub mod printers;
pub mod purchases;
pub mod router;
pub mod scan_catalogue;
pub mod scanning;
pub mod scope;
pub mod sessions;
pub mod setup;
pub mod slow_bodies;
pub mod status;
pub mod sync;
pub mod tracking;
pub mod views;
pub mod write;

use crate::error::{AppError, AppResult, Code};
use actix_web::HttpRequest;
pub use extractors::{CallerLanguage, language_of};
use router::{RouteInfo, Router};

/// Every API resource under `/api/v1`, in mounting order (specific paths before `{table}` ones).
pub fn register(r: &mut Router) {
    health::routes(r);
    status::routes(r);
    openapi::routes(r);
    setup::routes(r);
    auth::routes(r);
    licence::routes(r);
    org::routes(r);
    sync::routes(r);
    events::routes(r);
    db::routes(r);
    scanning::routes(r);
    materials::routes(r);
    purchases::routes(r);
    planning::routes(r);
    counts::routes(r);
    tracking::routes(r);
    scan_catalogue::routes(r);
    hours::routes(r);
    live::routes(r);
    write::routes(r);
    import_data::routes(r);
    pictures::routes(r);
    labels::routes(r);
    printers::routes(r);
    sessions::routes(r);
    admin::routes(r);
}

/// The route table with tiers, as mounted (the tier test walks it).
pub fn route_table() -> Vec<RouteInfo> {
    let mut r = Router::recording();
    register(&mut r);
    r.table().to_vec()
}

/// Runs store work off the async workers (a durable commit waits for the disk), for the handlers
/// of every resource.
pub(crate) async fn blocking<T: Send + 'static>(f: impl FnOnce() -> AppResult<T> + Send + 'static) -> AppResult<T> {
    actix_web::web::block(f).await.map_err(|e| AppError::internal(anyhow::anyhow!("{e}")))?
}

/// Unknown paths under `/api` answer JSON, never the SPA's index.html.
pub async fn not_found(req: HttpRequest) -> Result<actix_web::HttpResponse, AppError> {
    Err(AppError::with_message(Code::NotFound, format!("No API route {} {}", req.method(), req.path())))
}
