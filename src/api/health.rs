//! Liveness and version (public tier).

use super::router::Router;
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use serde::Serialize;

pub fn routes(r: &mut Router) {
    r.public("/health", |res| res.get(health));
    r.public("/version", |res| res.get(version));
}

#[derive(Serialize)]
pub struct Health {
    pub status: &'static str,
    pub version: &'static str,
    pub uptime_seconds: u64,
    pub store: StoreHealth,
    pub ui: bool,
}

#[derive(Serialize)]
pub struct StoreHealth {
    pub status: &'static str,
    pub data_dir_writable: bool,
}

async fn health(state: web::Data<AppState>) -> HttpResponse {
    let writable = state.data_dir_writable();
    let body = Health {
        status: if writable { "ok" } else { "degraded" },
        version: crate::VERSION,
        uptime_seconds: state.started.elapsed().as_secs(),
        store: StoreHealth { status: if writable { "ok" } else { "unavailable" }, data_dir_writable: writable },
        ui: crate::ui_assets::bundle_present(),
    };
    let mut resp = if writable { HttpResponse::Ok() } else { HttpResponse::ServiceUnavailable() };
    resp.insert_header(("Cache-Control", "no-store")).json(body)
}

#[derive(Serialize)]
struct Version {
    name: &'static str,
    version: &'static str,
    data_version: &'static str,
    environment: &'static str,
}

async fn version() -> HttpResponse {
    // Spec §1: data version 1.7, environment production.
    HttpResponse::Ok().json(Version {
        name: crate::PRODUCT_NAME,
        version: crate::VERSION,
        data_version: "1.7",
        environment: "production",
    })
}
