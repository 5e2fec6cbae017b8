//! Access tiers (spec §2): public; signed in (a live session; whether Exact Online can be reached
//! does not matter here, and a user Exact refused has no session left); full access (signed in,
//! the organization activated and the login process complete). Every non-public route is wrapped in [`guard`], which resolves the session once
//! and leaves it in the request for the handler's extractors.

use super::licence::{LicenceError, Verifier};
use super::orgs;
use super::session::{SessionRecord, Sessions, Unreadable, login_cookie_name, session_cookie_name};
use super::throttle::Throttle;
use crate::error::{AppError, Code};
use crate::exact::oauth::now_ms;
use crate::state::AppState;
use actix_web::body::MessageBody;
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
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

/// The session behind the request's cookie, if it is still good. The provider is not asked: a
/// session holds while Exact Online cannot be reached. One whose user Exact refused (see
/// `super::refusal`) has ended: its browser hears 401 `sign_in_refused` once.
pub async fn resolve(state: &AppState, req: &HttpRequest) -> Result<Option<Session>, AppError> {
    let Some(cookie) = req.cookie(state.auth.session_cookie()) else { return Ok(None) };
    let id = cookie.value().to_string();
    let now = now_ms();
    let record = state.auth.sessions.get(&id, now).map_err(|e| {
        // The session cannot go on (spec §8's critical error): the UI logs out and returns to the
        // sign-in, instead of a 500 on every call for as long as the cookie lives.
        if e.is::<Unreadable>() { AppError::new(Code::Critical).caused_by(e) } else { AppError::internal(e) }
    })?;
    let Some(record) = record else {
        return if state.auth.sessions.take_refusal(&id) { Err(AppError::new(Code::SignInRefused)) } else { Ok(None) };
    };
    // A refusal the watch has not acted on yet (or one stored before a restart).
    if super::refusal::is_refused(state, &record.user) {
        super::refusal::sign_out(state, &record.user);
        state.auth.sessions.take_refusal(&id);
        return Err(AppError::new(Code::SignInRefused));
    }
    let active = orgs::is_active(&state.serverdb, record.division, today()).map_err(AppError::internal)?;
    let tier = if record.registered && active { Tier::Full } else { Tier::SignedIn };
    let touched = record.last_seen_ms == now;
    Ok(Some(Session { id, record, tier, touched }))
}

/// Drops the session. The user's provider tokens go with their last session, unless writes they
/// queued still wait to be sent: then the tokens stay for those writes only (the outbox drops
/// them once they are through), and the user no longer counts as one of the organization's
/// accounts for sync, live reads and labels.
pub fn end_session(state: &AppState, id: &str, user: &str) {
    if let Err(e) = state.auth.sessions.delete(id) {
        tracing::error!(error = %format!("{e:#}"), "cannot remove a session");
    }
    let_go_of_user(state, user);
}

/// Once `user` has no session left: they no longer count as an account of their organizations,
/// and their provider tokens go (or stay only for the writes they queued).
pub fn let_go_of_user(state: &AppState, user: &str) {
    match state.auth.sessions.user_has_sessions(user, now_ms()) {
        Ok(false) => {
            if let Err(e) = state.serverdb.remove_org_user(user) {
                tracing::error!(error = %format!("{e:#}"), "cannot remove the user from their organizations");
            }
            let result = if state.outbox.has_open_writes_of(user) {
                state.tokens.keep_for_queued_writes(user)
            } else {
                state.tokens.forget(user)
            };
            if let Err(e) = result {
                tracing::error!(error = %e, "cannot drop provider tokens");
            }
        }
        Ok(true) => {}
        Err(e) => tracing::error!(error = %format!("{e:#}"), "cannot list sessions"),
    }
}

/// Middleware of every non-public route: 401 without a good session, 403 below `required`.
pub async fn guard(
    required: Tier,
    admin_methods: Vec<&'static str>,
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    // A refusal is answered here (not left as an error), so the API scope's headers reach it too.
    let (request, payload) = req.into_parts();
    let renewal = match admit(required, &admin_methods, &request).await {
        Ok(renewal) => renewal,
        Err(refused) => {
            use actix_web::ResponseError;
            return Ok(ServiceResponse::new(request, refused.error_response()).map_into_right_body());
        }
    };
    let state = request.app_data::<web::Data<AppState>>().cloned();
    let mut res = next.call(ServiceRequest::from_parts(request, payload)).await?;
    // The session slides with use up to its lifetime; without this the browser would drop the
    // cookie after the idle time counted from sign-in, however busy the user was.
    if let (Some(cookie), Some(state)) = (renewal, state) {
        let name = state.auth.session_cookie();
        let set_by_handler = res
            .headers()
            .get_all(actix_web::http::header::SET_COOKIE)
            .any(|v| v.to_str().is_ok_and(|v| v.starts_with(&format!("{name}="))));
        if !set_by_handler && let Err(e) = res.response_mut().add_cookie(&cookie) {
            tracing::warn!(error = %e, "the session cookie could not be renewed");
        }
    }
    Ok(res.map_into_left_body())
}

/// Whether the request's session may call the route: leaves the session in the request and
/// answers the renewed cookie when this use moved the session's idle end.
async fn admit(
    required: Tier,
    admin_methods: &[&'static str],
    req: &HttpRequest,
) -> Result<Option<actix_web::cookie::Cookie<'static>>, AppError> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .cloned()
        .ok_or_else(|| AppError::internal(anyhow::anyhow!("application state missing")))?;
    let session = resolve(&state, req).await?.ok_or_else(|| AppError::new(Code::NotAuthorized))?;
    if session.tier < required.min(Tier::Full) {
        return Err(AppError::with_message(
            Code::Forbidden,
            "This organization is not activated yet: enter its licence code first",
        ));
    }
    if admin_methods.contains(&req.method().as_str()) && !session.administrator(&state.config.admin) {
        return Err(AppError::new(Code::AdminOnly));
    }
    if required == Tier::ImportData && !session.reauthenticated(now_ms()) {
        return Err(AppError::with_message(
            Code::Forbidden,
            "ImportData needs a fresh sign-in: confirm with the admin password or sign in with Exact Online again",
        ));
    }
    let renewal = session.touched.then(|| session_cookie_renewal(&state, &session));
    req.extensions_mut().insert(session);
    Ok(renewal)
}

/// The session's cookie again, living as long as the session now may: the idle time, or what is
/// left of its lifetime if that is shorter.
fn session_cookie_renewal(state: &AppState, session: &Session) -> actix_web::cookie::Cookie<'static> {
    use super::session::{SESSION_IDLE_MS, SESSION_MAX_MS, cookie};
    let left = SESSION_MAX_MS - (session.record.last_seen_ms - session.record.created_ms);
    let max_age = SESSION_IDLE_MS.min(left).max(0);
    cookie(state.auth.session_cookie(), session.id.clone(), state.auth.secure_cookies, max_age)
}

impl FromRequest for Session {
    type Error = AppError;
    type Future = Ready<Result<Session, AppError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(req.extensions().get::<Session>().cloned().ok_or_else(|| AppError::new(Code::NotAuthorized)))
    }
}
