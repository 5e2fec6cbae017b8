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

/// The caller's language: the UI sends its own as `Accept-Language`; English when it names
/// neither English nor Dutch.
pub fn language_of(req: &actix_web::HttpRequest) -> crate::error::Language {
    req.headers()
        .get(actix_web::http::header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .map(crate::error::Language::from_accept_language)
        .unwrap_or_default()
}

/// The caller's language as a handler argument (see [`language_of`]).
#[derive(Debug, Clone, Copy)]
pub struct CallerLanguage(pub crate::error::Language);

impl actix_web::FromRequest for CallerLanguage {
    type Error = std::convert::Infallible;
    type Future = std::future::Ready<Result<Self, Self::Error>>;

    fn from_request(req: &actix_web::HttpRequest, _payload: &mut actix_web::dev::Payload) -> Self::Future {
        std::future::ready(Ok(CallerLanguage(language_of(req))))
    }
}
