//! The organization a request works in. Until sign-in lands, the organization is named by the
//! `x-esm-division` header; sign-in replaces this extractor's source with the session.

use crate::error::{AppError, Code};
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use std::future::{Ready, ready};

pub const DIVISION_HEADER: &str = "x-esm-division";

/// The caller's organization (division number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Org {
    pub division: i64,
}

impl FromRequest for Org {
    type Error = AppError;
    type Future = Ready<Result<Org, AppError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let division = req
            .headers()
            .get(DIVISION_HEADER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<i64>().ok())
            .filter(|d| *d > 0);
        ready(match division {
            Some(division) => Ok(Org { division }),
            None => Err(AppError::new(Code::NotAuthorized)),
        })
    }
}
