//! What each route takes and answers, declared beside it in the route table
//! (`r.full("/hours/timers", |res| res.get(list).json::<TimerList>(200, "…"))`) from the request
//! and answer types themselves: their `utoipa::ToSchema` derives give the schemas and examples of
//! the OpenAPI document (`super::openapi`), which the UI's types are generated from and
//! schemathesis checks the answers against (`scripts/api-fuzz`).

use crate::error::Code;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::openapi::schema::{ArrayBuilder, Schema};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{IntoParams, ToSchema};

/// A schema as the document refers to it, with the named schemas it needs in its components.
#[derive(Debug, Clone)]
pub struct Shape {
    pub schema: RefOr<Schema>,
    pub named: Vec<(String, RefOr<Schema>)>,
}

impl Shape {
    /// A named type: a `$ref` to its schema, which the document's components hold.
    pub fn of<T: ToSchema>() -> Self {
        let mut named = vec![(T::name().into_owned(), T::schema())];
        T::schemas(&mut named);
        Shape { schema: RefOr::Ref(Ref::from_schema_name(T::name())), named }
    }

    /// A JSON array of a named type.
    pub fn list_of<T: ToSchema>() -> Self {
        let item = Self::of::<T>();
        Shape { schema: ArrayBuilder::new().items(item.schema).into(), named: item.named }
    }
}

/// What a request or answer carries.
#[derive(Debug, Clone)]
pub enum Content {
    /// `application/json` of this shape.
    Json(Box<Shape>),
    /// Bytes of this media type (a PDF, a picture, an archive, an event stream).
    Bytes(&'static str),
    /// No body.
    Empty,
}

/// One answer an operation gives on success (errors are the catalogue's, see `Op::fails`).
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub description: &'static str,
    pub content: Content,
}

/// One method of a resource, as documented.
#[derive(Debug, Clone)]
pub struct Op {
    pub method: &'static str,
    pub body: Option<Content>,
    /// The body may be left out (the route then takes its defaults).
    pub body_optional: bool,
    /// Headers of its success answers: name and what it says.
    pub headers: Vec<(&'static str, &'static str)>,
    pub query: Vec<Parameter>,
    pub answers: Vec<Answer>,
    /// Errors of the catalogue this operation answers for its own reasons, beside the ones every
    /// route may answer (bad input, no session, below its tier, unavailable).
    pub fails: Vec<Code>,
    /// Only an administrator may call it (`crate::auth::admin`); the guard refuses others.
    pub admin: bool,
}

impl Op {
    pub fn new(method: &'static str) -> Self {
        Op {
            method,
            body: None,
            body_optional: false,
            headers: Vec::new(),
            query: Vec::new(),
            answers: Vec::new(),
            fails: Vec::new(),
            admin: false,
        }
    }

    pub fn json_body<T: ToSchema>(&mut self) {
        self.body = Some(Content::Json(Box::new(Shape::of::<T>())));
    }

    pub fn bytes_body(&mut self, media: &'static str) {
        self.body = Some(Content::Bytes(media));
    }

    pub fn query<T: IntoParams>(&mut self) {
        self.query.extend(T::into_params(|| Some(ParameterIn::Query)));
    }

    pub fn answer(&mut self, status: u16, description: &'static str, content: Content) {
        self.answers.push(Answer { status, description, content });
    }
}
