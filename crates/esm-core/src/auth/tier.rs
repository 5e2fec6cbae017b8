//! Access tiers (spec §2): public; signed in (a live session; whether Exact Online can be reached
//! does not matter here, and a user Exact refused has no session left); full access (signed in,
//! the organization activated and the login process complete). Every non-public route is
//! wrapped in `api::guard`, which resolves the session once and leaves it in the request for the
//! handler's extractors.

use super::licence::{LicenceError, Verifier};
use super::session::{SessionRecord, Sessions, login_cookie_name, session_cookie_name};
use super::throttle::Throttle;
use crate::error::{AppError, Code};
use crate::exact::oauth::now_ms;
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use serde::Serialize;
use std::future::{Ready, ready};
use std::time::Duration;

/// What a session may do: each route needs a tier, and each tier includes the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum Tier {
    Public,
    SignedIn,
    Full,
    /// Full access plus a fresh re-authentication (spec §2's second-database sign-in).
    ImportData,
}

/// Sign-in state shared by the handlers.
pub struct Auth {
    pub sessions: Sessions,
    /// `Err` when no licence key is configured or built in: activation then says so.
    pub verifier: Result<Verifier, LicenceError>,
    /// Failed licence activations per client address and per session.
    pub licence_attempts: Throttle,
    /// Re-authentication passwords per user, counted before each is verified.
    pub reauth_attempts: Throttle,
    /// Password verifications running: one per user, two in all.
    pub reauth_slots: super::throttle::Slots,
    /// Cookies carry `Secure` (served over TLS or behind an https public URL).
    pub secure_cookies: bool,
}

impl Auth {
    pub fn new(sessions: Sessions, verifier: Result<Verifier, LicenceError>, secure_cookies: bool) -> Self {
        Auth {
            sessions,
            verifier,
            licence_attempts: Throttle::new(5, Duration::from_secs(600)),
            reauth_attempts: Throttle::new(5, Duration::from_secs(600)),
            reauth_slots: super::throttle::Slots::new(crate::limits::REAUTH_VERIFICATIONS_AT_ONCE),
            secure_cookies,
        }
    }

    /// The session cookie's name (`__Host-esm_session` when cookies are Secure).
    pub fn session_cookie(&self) -> &'static str {
        session_cookie_name(self.secure_cookies)
    }

    /// The sign-in cookie's name (`__Host-esm_login` when cookies are Secure).
    pub fn login_cookie(&self) -> &'static str {
        login_cookie_name(self.secure_cookies)
    }
}

/// The caller's session, resolved for this request.
#[derive(Debug, Clone)]
pub struct Session {
    /// The cookie value (never logged, never sent back but as the cookie).
    pub id: String,
    pub record: SessionRecord,
    pub tier: Tier,
    /// This request counted as a use of the session and moved its idle end: the browser's
    /// cookie is renewed to match (`guard`).
    pub touched: bool,
}

impl Session {
    /// Whether the session is an administrator's now (`super::admin`).
    pub fn administrator(&self, admin: &crate::config::AdminConfig) -> bool {
        super::admin::standing(admin, &self.record, now_ms()).is_administrator()
    }

    /// Whether a fresh re-authentication opened ImportData.
    pub fn reauthenticated(&self, now_ms: i64) -> bool {
        self.record.reauth_until_ms.is_some_and(|t| t > now_ms)
    }
}

pub use esm_base::clock::today;

/// The handlers' extractor of the session the guard (`api::guard`) left in the request.
impl FromRequest for Session {
    type Error = AppError;
    type Future = Ready<Result<Session, AppError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(req.extensions().get::<Session>().cloned().ok_or_else(|| AppError::new(Code::NotAuthorized)))
    }
}
