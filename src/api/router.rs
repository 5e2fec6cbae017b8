//! The route table is the security table: every API resource is added with its access tier, and
//! the tier's guard is wrapped around it right here, so a route cannot be added unprotected by
//! forgetting a check in its handler. The same table, recorded without mounting, drives the
//! exhaustive tier test.

use crate::auth::tier::{Tier, guard};
use actix_web::{Resource, middleware::from_fn, web};
use serde::Serialize;

/// One API resource: its path under `/api/v1` and its tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RouteInfo {
    pub tier: Tier,
    pub path: &'static str,
}

pub struct Router<'a> {
    cfg: Option<&'a mut web::ServiceConfig>,
    table: Vec<RouteInfo>,
}

impl<'a> Router<'a> {
    /// A router that mounts into an actix service config.
    pub fn mounting(cfg: &'a mut web::ServiceConfig) -> Self {
        Router { cfg: Some(cfg), table: Vec::new() }
    }

    /// A router that only records the table.
    pub fn recording() -> Router<'static> {
        Router { cfg: None, table: Vec::new() }
    }

    pub fn table(&self) -> &[RouteInfo] {
        &self.table
    }

    /// Open to everyone.
    pub fn public(&mut self, path: &'static str, build: impl FnOnce(Resource) -> Resource) {
        self.add(Tier::Public, path, build);
    }

    /// Needs a session.
    pub fn signed_in(&mut self, path: &'static str, build: impl FnOnce(Resource) -> Resource) {
        self.add(Tier::SignedIn, path, build);
    }

    /// Needs a session of an activated organization whose login process is complete.
    pub fn full(&mut self, path: &'static str, build: impl FnOnce(Resource) -> Resource) {
        self.add(Tier::Full, path, build);
    }

    /// Needs full access and a fresh re-authentication.
    pub fn import_data(&mut self, path: &'static str, build: impl FnOnce(Resource) -> Resource) {
        self.add(Tier::ImportData, path, build);
    }

    fn add(&mut self, tier: Tier, path: &'static str, build: impl FnOnce(Resource) -> Resource) {
        self.table.push(RouteInfo { tier, path });
        let Some(cfg) = self.cfg.as_deref_mut() else { return };
        // Resources (not bare routes) so that a wrong method answers 405 rather than 404.
        let resource = build(web::resource(path));
        match tier {
            Tier::Public => {
                cfg.service(resource);
            }
            required => {
                cfg.service(resource.wrap(from_fn(move |req, next| guard(required, req, next))));
            }
        }
    }
}
