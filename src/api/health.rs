//! Liveness and version (public tier).

use super::router::Router;
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use serde::Serialize;
use utoipa::ToSchema;

pub fn routes(r: &mut Router) {
    r.public("/health", |res| {
        res.get(health)
            .json::<Health>(200, "The server runs and can write its data")
            .json::<Health>(503, "The server runs but cannot write its data directory")
    });
    r.public("/version", |res| res.get(version).json::<Version>(200, "The product, its version and its data version"));
}

#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok`, or `degraded` when the data directory is not writable.
    #[schema(example = "ok")]
    pub status: &'static str,
    #[schema(example = "0.1.0")]
    pub version: &'static str,
    #[schema(example = 86_400)]
    pub uptime_seconds: u64,
    pub store: StoreHealth,
    /// Whether the server carries the UI.
    pub ui: bool,
}

#[derive(Serialize, ToSchema)]
pub struct StoreHealth {
    /// `ok`, or `unavailable` when the data directory is not writable.
    #[schema(example = "ok")]
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

#[derive(Serialize, ToSchema)]
struct Version {
    #[schema(example = "Stock Manager")]
    name: &'static str,
    #[schema(example = "0.1.0")]
    version: &'static str,
    #[schema(example = "1.7")]
    data_version: &'static str,
    #[schema(example = "production")]
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
