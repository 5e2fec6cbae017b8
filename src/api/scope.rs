//! The organization a request works in: the one of the caller's session (set by the tier guard).

use crate::auth::tier::Session;
use crate::error::{AppError, Code};
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use std::future::{Ready, ready};

/// The caller's organization (division number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Org {
    pub division: i64,
}

impl FromRequest for Org {
    type Error = AppError;
    type Future = Ready<Result<Org, AppError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let division = req.extensions().get::<Session>().map(|s| s.record.division);
        ready(division.map(|division| Org { division }).ok_or_else(|| AppError::new(Code::NotAuthorized)))
    }
}
