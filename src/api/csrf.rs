//! Cross-site safety of the API (DESIGN "Unattended operation": state-changing routes accept only
//! JSON, or a documented upload type, from the server's own origin). Mounted once around `/api`.
//!
//! - `POST`, `PUT`, `PATCH`, `DELETE` (anything but `GET`/`HEAD`/`OPTIONS`) with an `Origin` (or,
//!   without one, a `Referer`) of another site answer 403. Browsers always send `Origin` on such
//!   requests; clients without one (scripts, the tests, curl) are not browsers and carry no
//!   ambient cookie of a victim, so they pass.
//! - Their body must be `application/json` (or the route's documented upload type): a form or
//!   `text/plain`, the only bodies another site can send without asking first, answers 415. A
//!   request without a body needs no `Content-Type` (logout, retry).
//!
//! This server's own origin is the host the request came to (its `Host`, or a trusted proxy's
//! `X-Forwarded-Host` that the sign-in's callback URL already follows: see `api::client`), over
//! http or https, and the configured `public_url`.

use super::client::ClientInfo;
use crate::error::{AppError, Code};
use crate::state::AppState;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{Method, header};
use actix_web::middleware::Next;
use actix_web::{HttpRequest, web};

/// Routes that take a raw upload besides JSON, with its content types (docs/architecture.md: Sign-in, sessions and access tiers).
const UPLOADS: &[(&str, &[&str])] = &[("/api/v1/importData/import", &["application/x-ndjson"])];

/// Middleware around `/api`: refuses cross-site and non-JSON state-changing requests.
pub async fn check(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    if changes_state(req.method()) {
        let public_url = req.app_data::<web::Data<AppState>>().and_then(|s| s.config.public_url.clone());
        let client = ClientInfo::of(req.request());
        same_origin(req.request(), public_url.as_deref(), &client)?;
        json_body(req.request())?;
    }
    next.call(req).await
}

fn changes_state(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

fn header_str(req: &HttpRequest, name: header::HeaderName) -> Option<&str> {
    req.headers().get(name).map(|v| v.to_str().unwrap_or("\u{0}invalid"))
}

/// 403 when the request names a site that is not this server.
fn same_origin(req: &HttpRequest, public_url: Option<&str>, client: &ClientInfo) -> Result<(), AppError> {
    let (claimed, what) = match header_str(req, header::ORIGIN) {
        Some(origin) => (origin, "Origin"),
        None => match header_str(req, header::REFERER) {
            Some(referer) => (referer, "Referer"),
            None => return Ok(()),
        },
    };
    // `Origin: null` (sandboxed frames, some redirects) is never this server.
    let from = url::Url::parse(claimed).ok().map(|u| u.origin()).filter(|o| o.is_tuple());
    let ours = |from: &url::Origin| {
        let hosts = [header_str(req, header::HOST), Some(client.host.as_str())];
        let by_host = hosts.into_iter().flatten().any(|host| {
            ["http", "https"]
                .iter()
                .any(|scheme| url::Url::parse(&format!("{scheme}://{host}")).is_ok_and(|u| u.origin() == *from))
        });
        by_host || public_url.and_then(|p| url::Url::parse(p).ok()).is_some_and(|u| u.origin() == *from)
    };
    if from.as_ref().is_some_and(ours) {
        return Ok(());
    }
    tracing::warn!(
        method = %req.method(),
        path = req.path(),
        claimed = %claimed.chars().take(100).collect::<String>(),
        "cross-site request refused ({what})"
    );
    Err(AppError::with_message(
        Code::Forbidden,
        format!("Refused: this request comes from another site ({what} is not this server)"),
    ))
}

/// The media type of a `Content-Type` value, lower case, without parameters.
fn media_type(value: &str) -> String {
    value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}

fn has_body(req: &HttpRequest) -> bool {
    let length = header_str(req, header::CONTENT_LENGTH).map(|l| l.trim() != "0");
    length.unwrap_or(false) || req.headers().contains_key(header::TRANSFER_ENCODING)
}

/// 415 unless the body is JSON or the route's documented upload type; no body needs no type.
fn json_body(req: &HttpRequest) -> Result<(), AppError> {
    let Some(content_type) = header_str(req, header::CONTENT_TYPE) else {
        if has_body(req) {
            return Err(AppError::new(Code::UnsupportedMediaType));
        }
        return Ok(());
    };
    let media = media_type(content_type);
    if media == "application/json" {
        return Ok(());
    }
    let upload = UPLOADS.iter().find(|(path, _)| *path == req.path());
    match upload {
        Some((_, types)) if types.contains(&media.as_str()) => Ok(()),
        Some((_, types)) => Err(AppError::with_message(
            Code::UnsupportedMediaType,
            format!("This upload takes {} or application/json", types.join(", ")),
        )),
        None => Err(AppError::new(Code::UnsupportedMediaType)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::client::TrustedProxies;
    use actix_web::test::TestRequest;

    fn req(headers: &[(&str, &str)]) -> HttpRequest {
        let mut r = TestRequest::post()
            .uri("/api/v1/sync")
            .peer_addr("127.0.0.1:40000".parse().unwrap())
            .insert_header(("host", "esm.lan:8080"));
        for (k, v) in headers {
            r = r.insert_header((*k, *v));
        }
        r.to_http_request()
    }

    /// `same_origin` with no proxy trusted (the default).
    fn origin_ok(req: &HttpRequest, public_url: Option<&str>) -> Result<(), AppError> {
        same_origin(req, public_url, &ClientInfo::resolve(req, &TrustedProxies::default()))
    }

    #[test]
    fn only_this_servers_origin_passes() {
        assert!(origin_ok(&req(&[]), None).is_ok(), "no Origin: not a browser");
        assert!(origin_ok(&req(&[("origin", "http://esm.lan:8080")]), None).is_ok());
        assert!(origin_ok(&req(&[("origin", "https://esm.lan:8080")]), None).is_ok(), "TLS at a proxy");
        assert!(origin_ok(&req(&[("referer", "http://esm.lan:8080/planning?x=1")]), None).is_ok());
        for bad in ["http://evil.example", "http://esm.lan:8081", "http://esm.lan", "null", "", "esm.lan:8080"] {
            assert!(origin_ok(&req(&[("origin", bad)]), None).is_err(), "{bad}");
        }
        assert!(origin_ok(&req(&[("referer", "http://evil.example/esm.lan:8080")]), None).is_err());
        let public = Some("https://esm.factory.lan/");
        assert!(origin_ok(&req(&[("origin", "https://esm.factory.lan")]), public).is_ok());
        assert!(origin_ok(&req(&[("origin", "https://esm.factory.lan:443")]), public).is_ok());
        assert!(origin_ok(&req(&[("origin", "http://esm.factory.lan")]), public).is_err(), "scheme counts");
        // Behind a trusted proxy that passes the browser's host along; from anyone else the
        // header counts for nothing.
        let proxied = req(&[("x-forwarded-host", "esm.factory.lan"), ("origin", "https://esm.factory.lan")]);
        let trusted = TrustedProxies::from_config(&["127.0.0.1".to_string()]);
        assert!(same_origin(&proxied, None, &ClientInfo::resolve(&proxied, &trusted)).is_ok());
        assert!(origin_ok(&proxied, None).is_err());
    }

    #[test]
    fn bodies_must_be_json_or_the_routes_upload() {
        assert!(json_body(&req(&[])).is_ok(), "no body");
        assert!(json_body(&req(&[("content-length", "0")])).is_ok());
        assert!(json_body(&req(&[("content-type", "application/json")])).is_ok());
        assert!(json_body(&req(&[("content-type", "Application/JSON; charset=utf-8")])).is_ok());
        for bad in ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x"] {
            let e = json_body(&req(&[("content-type", bad)])).unwrap_err();
            assert_eq!(e.code(), Code::UnsupportedMediaType, "{bad}");
        }
        assert!(json_body(&req(&[("content-length", "5")])).is_err(), "a body without a type");
        let upload = |ct: &str| {
            TestRequest::post().uri("/api/v1/importData/import").insert_header(("content-type", ct)).to_http_request()
        };
        assert!(json_body(&upload("application/x-ndjson")).is_ok());
        assert!(json_body(&upload("text/plain")).is_err());
    }
}
