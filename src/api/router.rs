//! The route table is the security table: every API resource is added with its access tier, and
//! the tier's guard is wrapped around it right here, so a route cannot be added unprotected by
//! forgetting a check in its handler. The same table, recorded without mounting, drives the
//! exhaustive tier test and the OpenAPI document.

use super::contract::{Content, Op, Shape};
use super::guard::guard;
use crate::auth::tier::Tier;
use crate::error::Code;
use actix_web::dev::Handler;
use actix_web::{FromRequest, Resource, Responder, middleware::from_fn, web};
use utoipa::{IntoParams, ToSchema};

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
#[derive(Debug, Clone)]
pub struct RouteInfo {
    pub tier: Tier,
    pub path: &'static str,
    pub methods: Vec<&'static str>,
    /// Its writes take an `Idempotency-Key` header (`super::idempotency`).
    pub keyed: bool,
    /// What each method takes and answers, in the order of `methods`.
    pub ops: Vec<Op>,
    /// The `{name}` parts of the path that are whole numbers (the others are text).
    pub integer_params: Vec<&'static str>,
}

/// A resource being declared: actix's resource (when mounting) and the methods it answers. The
/// documenting calls (`json`, `body`, `query`, `fails`, …) describe the method added last.
pub struct Res {
    inner: Option<Resource>,
    ops: Vec<Op>,
    keyed: bool,
    integer_params: Vec<&'static str>,
}

macro_rules! method {
    ($name:ident, $verb:literal) => {
        pub fn $name<F, Args>(mut self, handler: F) -> Self
        where
            F: Handler<Args>,
            Args: FromRequest + 'static,
            F::Output: Responder + 'static,
        {
            self.ops.push(Op::new($verb));
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

    /// The path's `{name}` part is a whole number (an id the handler parses as one).
    pub fn integer_param(mut self, name: &'static str) -> Self {
        self.integer_params.push(name);
        self
    }

    fn last(&mut self) -> &mut Op {
        self.ops.last_mut().expect("a documenting call follows the method it documents")
    }

    /// The method takes a JSON body of type `T`.
    pub fn body<T: ToSchema>(mut self) -> Self {
        self.last().json_body::<T>();
        self
    }

    /// The method takes a JSON body of type `T`, or none (then its defaults).
    pub fn optional_body<T: ToSchema>(mut self) -> Self {
        let op = self.last();
        op.json_body::<T>();
        op.body_optional = true;
        self
    }

    /// The method's success answers carry this header.
    pub fn header(mut self, name: &'static str, description: &'static str) -> Self {
        self.last().headers.push((name, description));
        self
    }

    /// The method takes a body of this media type (an upload).
    pub fn upload(mut self, media: &'static str) -> Self {
        self.last().bytes_body(media);
        self
    }

    /// The method reads the query parameters of `T`.
    pub fn query<T: IntoParams>(mut self) -> Self {
        self.last().query::<T>();
        self
    }

    /// The method answers `status` with a JSON `T`.
    pub fn json<T: ToSchema>(mut self, status: u16, description: &'static str) -> Self {
        self.last().answer(status, description, Content::Json(Box::new(Shape::of::<T>())));
        self
    }

    /// The method answers `status` with a JSON array of `T`.
    pub fn list<T: ToSchema>(mut self, status: u16, description: &'static str) -> Self {
        self.last().answer(status, description, Content::Json(Box::new(Shape::list_of::<T>())));
        self
    }

    /// The method answers `status` with bytes of this media type.
    pub fn bytes(mut self, status: u16, media: &'static str, description: &'static str) -> Self {
        self.last().answer(status, description, Content::Bytes(media));
        self
    }

    /// The method answers `status` with no body.
    pub fn empty(mut self, status: u16, description: &'static str) -> Self {
        self.last().answer(status, description, Content::Empty);
        self
    }

    /// Only an administrator may call the method (`crate::auth::admin`): the route's guard
    /// answers anybody else 403 `admin_only`.
    pub fn admin(mut self) -> Self {
        let op = self.last();
        op.admin = true;
        op.fails.push(Code::AdminOnly);
        self
    }

    /// Errors of the catalogue the method answers for reasons of its own.
    pub fn fails(mut self, codes: &[Code]) -> Self {
        self.last().fails.extend_from_slice(codes);
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
        let res = build(Res { inner, ops: Vec::new(), keyed: false, integer_params: Vec::new() });
        let methods = res.ops.iter().map(|op| op.method).collect();
        let info =
            RouteInfo { tier, path, methods, keyed: res.keyed, ops: res.ops, integer_params: res.integer_params };
        self.table.push(info);
        let (Some(cfg), Some(resource)) = (self.cfg.as_deref_mut(), res.inner) else { return };
        let resource = resource.app_data(super::extractors::json_config(json_body_max(tier)));
        let admin_methods: Vec<&'static str> = info_admin_methods(self.table.last());
        match tier {
            Tier::Public => {
                assert!(admin_methods.is_empty(), "{path}: an administrator route needs a session");
                cfg.service(resource);
            }
            required => {
                cfg.service(resource.wrap(from_fn(move |req, next| guard(required, admin_methods.clone(), req, next))));
            }
        }
    }
}

/// The methods of a route that only an administrator may call.
fn info_admin_methods(info: Option<&RouteInfo>) -> Vec<&'static str> {
    info.map(|i| i.ops.iter().filter(|op| op.admin).map(|op| op.method).collect()).unwrap_or_default()
}
