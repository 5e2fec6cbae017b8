//! The React bundle embedded in the binary: files by path, `index.html` for client routes.

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::{HttpRequest, HttpResponse};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "ui/dist/"]
#[allow_missing = true]
struct Bundle;

/// Hashed build outputs never change under the same name.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Other static files (favicon, manifest) may change between releases.
const SHORT: &str = "public, max-age=3600";
/// `index.html` must always be revalidated so a new release is picked up at once.
const NO_CACHE: &str = "no-cache";
/// The service worker, at the root so its scope is the whole app; revalidated on every check,
/// as it names the release the handhelds keep for opening without the server.
const SERVICE_WORKER: &str = "sw.js";
/// The pages' policy. Vite's build has no inline script or style (one module script and
/// stylesheets by URL; React sets `style` through the CSSOM, which style-src does not govern).
/// Pictures may come as data: URLs (batch reads) and label PDFs open as blob: URLs, whose document
/// inherits this policy: Chrome's PDF viewer counts as plugin content there, hence `object-src
/// blob:` rather than `'none'`, and reading the PDF back from its tab needs `connect-src blob:`
/// ('self' never covers blob:). The service worker and the web app manifest come from this server.
/// `'wasm-unsafe-eval'` lets the camera's bundled barcode decoder (a .wasm from this server, for
/// browsers without their own) be compiled; it allows no JavaScript eval.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; \
    img-src 'self' data: blob:; connect-src 'self' blob:; object-src blob:; worker-src 'self'; \
    manifest-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

/// Whether the bundle was built into this binary (the health check reports it).
pub fn bundle_present() -> bool {
    Bundle::get("index.html").is_some()
}

/// Serves `GET`/`HEAD` for everything outside `/api`: a file when the path names one, else the SPA.
pub async fn serve(req: HttpRequest) -> HttpResponse {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return HttpResponse::MethodNotAllowed().insert_header((header::ALLOW, "GET, HEAD")).finish();
    }
    let path = req.path().trim_start_matches('/');
    if !path.is_empty()
        && let Some(file) = Bundle::get(path)
    {
        let cache = if path.starts_with("assets/") {
            IMMUTABLE
        } else if path == SERVICE_WORKER {
            NO_CACHE
        } else {
            SHORT
        };
        return respond(&req, path, file, cache);
    }
    // A path that looks like a file (has an extension) and is missing is a real 404, not a route.
    let last = path.rsplit('/').next().unwrap_or("");
    if last.contains('.') && !last.ends_with(".html") {
        return HttpResponse::NotFound().content_type("text/plain; charset=utf-8").body("Not found");
    }
    match Bundle::get("index.html") {
        Some(index) => respond(&req, "index.html", index, NO_CACHE),
        None => HttpResponse::ServiceUnavailable()
            .content_type("text/plain; charset=utf-8")
            .body("Stock Manager: the web UI was not built into this binary (see README: The two commands)."),
    }
}

fn respond(req: &HttpRequest, path: &str, file: rust_embed::EmbeddedFile, cache: &str) -> HttpResponse {
    let etag = format!("\"{}\"", hex::encode(&file.metadata.sha256_hash()[..16]));
    let matches = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut builder = HttpResponse::build(if matches { StatusCode::NOT_MODIFIED } else { StatusCode::OK });
    builder
        .insert_header((header::CACHE_CONTROL, cache))
        .insert_header((header::ETAG, etag))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")));
    if matches {
        return builder.finish();
    }
    let mime = file.metadata.mimetype();
    let mime = if path.ends_with(".html") {
        "text/html; charset=utf-8"
    } else if path.ends_with(".js") {
        // a service worker is refused under any other type
        "text/javascript; charset=utf-8"
    } else if path.ends_with(".webmanifest") {
        "application/manifest+json"
    } else if path.ends_with(".wasm") {
        // compiling while it downloads (instantiateStreaming) takes this type only
        "application/wasm"
    } else {
        mime
    };
    builder.content_type(mime);
    if path.ends_with(".html") {
        builder.insert_header((header::X_FRAME_OPTIONS, "DENY"));
        builder.insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY));
        builder.insert_header((header::REFERRER_POLICY, "same-origin"));
    }
    if req.method() == Method::HEAD {
        return builder.finish();
    }
    builder.body(file.data.into_owned())
}
