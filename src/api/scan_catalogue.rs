//! `GET /api/v1/scanning/catalogue` (full access): the offline scan catalogue
//! (`crate::scanning::catalogue` builds it), revalidated by its ETag, sent gzipped as built.

use super::blocking;
use super::router::Router;
use super::scope::Org;
use crate::error::{AppError, AppResult, Code};
use crate::scanning::catalogue;
use crate::state::AppState;
use actix_web::http::header::{self, EntityTag, IfNoneMatch};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};

pub fn routes(r: &mut Router) {
    r.full("/scanning/catalogue", |res| {
        res.get(get)
            .json::<catalogue::Wire>(200, "The catalogue (gzipped when the client takes gzip)")
            .empty(304, "Unchanged since the ETag sent in If-None-Match")
            .header("ETag", "The catalogue's version, to revalidate with (If-None-Match)")
            .fails(&[Code::TableInfo])
    });
}

async fn get(state: web::Data<AppState>, org: Org, req: HttpRequest) -> AppResult<HttpResponse> {
    let store = state.stores.get(org.division)?;
    let division = org.division;
    let current = store.clone();
    let tag = blocking(move || Ok(catalogue::etag(&current, division)?)).await?;
    let entity = EntityTag::new_strong(tag);
    let fresh = match req.get_header::<IfNoneMatch>() {
        Some(IfNoneMatch::Any) => true,
        Some(IfNoneMatch::Items(tags)) => tags.iter().any(|t| t.weak_eq(&entity)),
        None => false,
    };
    let mut res = if fresh { HttpResponse::NotModified() } else { HttpResponse::Ok() };
    // revalidated on every use: the handheld decides when to ask, the tag whether to send
    res.insert_header(header::ETag(entity.clone())).insert_header((header::CACHE_CONTROL, "private, no-cache"));
    if fresh {
        return Ok(res.finish());
    }
    let body = catalogue::built(store, division, entity.tag().to_string()).await?;
    res.content_type("application/json").insert_header((header::VARY, "Accept-Encoding"));
    // gzipped once at its best level when built, rather than by the middleware for each handheld
    if takes_gzip(&req) {
        return Ok(res.insert_header(header::ContentEncoding::Gzip).body(body));
    }
    // a client without gzip is rare (browsers all take it): unpacked for it alone
    let json = blocking(move || catalogue::gunzip(&body).map_err(AppError::internal)).await?;
    Ok(res.body(json))
}

/// Whether the request's `Accept-Encoding` takes gzip (and does not refuse it with `q=0`).
fn takes_gzip(req: &HttpRequest) -> bool {
    req.headers().get_all(header::ACCEPT_ENCODING).filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).any(
        |part| {
            let mut bits = part.split(';').map(str::trim);
            let gzip = bits.next().is_some_and(|name| name.eq_ignore_ascii_case("gzip") || name == "*");
            let refused = bits.any(|p| p.strip_prefix("q=").and_then(|q| q.parse::<f32>().ok()) == Some(0.0));
            gzip && !refused
        },
    )
}
