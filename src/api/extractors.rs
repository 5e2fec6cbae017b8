//! actix's own extractor errors (bad JSON, a bad query or path) as the catalogue's answers, so
//! no route answers them in actix's words.

use crate::error::{AppError, Code};

/// Turns actix's own extractor errors (bad JSON, bad query) into catalogue errors; bodies over
/// `limit` bytes are a 413 (the limits per route class are in `crate::limits`).
pub fn json_config(limit: usize) -> actix_web::web::JsonConfig {
    actix_web::web::JsonConfig::default().limit(limit).error_handler(|err, _req| {
        use actix_web::error::JsonPayloadError;
        let app = match &err {
            JsonPayloadError::OverflowKnownLength { .. } | JsonPayloadError::Overflow { .. } => {
                AppError::new(Code::PayloadTooLarge)
            }
            JsonPayloadError::Payload(e) if super::slow_bodies::too_slow(e) => AppError::new(Code::RequestTimeout),
            JsonPayloadError::ContentType => {
                AppError::bad_request("The input provided was bad: expected Content-Type application/json")
            }
            other => AppError::bad_request(format!("The input provided was bad: {other}")),
        };
        app.into()
    })
}

/// Query-string extractor errors become 400s with the catalogue shape.
pub fn query_config() -> actix_web::web::QueryConfig {
    actix_web::web::QueryConfig::default()
        .error_handler(|err, _req| AppError::bad_request(format!("The input provided was bad: {err}")).into())
}

/// Path extractor errors become 400s with the catalogue shape.
pub fn path_config() -> actix_web::web::PathConfig {
    actix_web::web::PathConfig::default()
        .error_handler(|err, _req| AppError::bad_request(format!("The input provided was bad: {err}")).into())
}
