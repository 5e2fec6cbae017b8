//! The route table is the security table: every API resource is added with its access tier, and
//! the tier's guard is wrapped around it right here, so a route cannot be added unprotected by
//! forgetting a check in its handler. The same table, recorded without mounting, drives the
//! exhaustive tier test and the OpenAPI document.

use crate::auth::tier::{Tier, guard};
use actix_web::dev::Handler;
use actix_web::{FromRequest, Resource, Responder, middleware::from_fn, web};
use serde::Serialize;

/// The largest JSON body a route of `tier` takes: who may call it bounds what it may send.
pub fn json_body_max(tier: Tier) -> usize {
    use crate::limits::{JSON_BODY_MAX_FULL, JSON_BODY_MAX_PUBLIC, JSON_BODY_MAX_SIGNED_IN};
    match tier {
        Tier::Public => JSON_BODY_MAX_PUBLIC,
        Tier::SignedIn => JSON_BODY_MAX_SIGNED_IN,
        Tier::Full | Tier::ImportData => JSON_BODY_MAX_FULL,
    }
}

/// One API resource: its path under `/api/v1`, its tier and its methods.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RouteInfo {
    pub tier: Tier,
    pub path: &'static str,
    pub methods: Vec<&'static str>,
    /// Its writes take an `Idempotency-Key` header (`super::idempotency`).
    pub keyed: bool,
}

/// A resource being declared: actix's resource (when mounting) and the methods it answers.
pub struct Res {
    inner: Option<Resource>,
    methods: Vec<&'static str>,
    keyed: bool,
}

macro_rules! method {
    ($name:ident, $verb:literal) => {
        pub fn $name<F, Args>(mut self, handler: F) -> Self
        where
            F: Handler<Args>,
            Args: FromRequest + 'static,
            F::Output: Responder + 'static,
        {
            self.methods.push($verb);
            self.inner = self.inner.map(|r| r.$name(handler));
            self
        }
    };
}

impl Res {
    method!(get, "GET");
    method!(post, "POST");
    method!(put, "PUT");
    method!(delete, "DELETE");

    /// Marks the resource's writes as taking an `Idempotency-Key` (for the OpenAPI document;
    /// the handlers take it with `super::idempotency::IdempotencyKey`).
    pub fn keyed(mut self) -> Self {
        self.keyed = true;
        self
    }
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
    pub fn public(&mut self, path: &'static str, build: impl FnOnce(Res) -> Res) {
        self.add(Tier::Public, path, build);
    }

    /// Needs a session.
    pub fn signed_in(&mut self, path: &'static str, build: impl FnOnce(Res) -> Res) {
        self.add(Tier::SignedIn, path, build);
    }

    /// Needs a session of an activated organization whose login process is complete.
    pub fn full(&mut self, path: &'static str, build: impl FnOnce(Res) -> Res) {
        self.add(Tier::Full, path, build);
    }

    /// Needs full access and a fresh re-authentication.
    pub fn import_data(&mut self, path: &'static str, build: impl FnOnce(Res) -> Res) {
        self.add(Tier::ImportData, path, build);
    }

    fn add(&mut self, tier: Tier, path: &'static str, build: impl FnOnce(Res) -> Res) {
        // Resources (not bare routes) so that a wrong method answers 405 rather than 404.
        let inner = self.cfg.is_some().then(|| web::resource(path));
        let res = build(Res { inner, methods: Vec::new(), keyed: false });
        self.table.push(RouteInfo { tier, path, methods: res.methods, keyed: res.keyed });
        let (Some(cfg), Some(resource)) = (self.cfg.as_deref_mut(), res.inner) else { return };
        let resource = resource.app_data(crate::error::json_config(json_body_max(tier)));
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
