//! HTTP handlers, one file per resource group. Handlers are thin: parse, call a service, map errors.

pub mod db;
pub mod events;
pub mod health;
pub mod labels;
pub mod live;
pub mod printers;
pub mod scope;
pub mod sync;

use crate::error::{AppError, Code};
use actix_web::HttpRequest;

/// Unknown paths under `/api` answer JSON, never the SPA's index.html.
pub async fn not_found(req: HttpRequest) -> Result<actix_web::HttpResponse, AppError> {
    Err(AppError::with_message(Code::NotFound, format!("No API route {} {}", req.method(), req.path())))
}
