//! The guard of every non-public route (`router` wraps each in it): it resolves the request's
//! session once, answers 401 or 403 for one that may not call the route, leaves the session in the
//! request for the handlers' `Session` extractor, and renews the sliding session cookie.

use crate::auth::session::Unreadable;
use crate::auth::tier::{Session, Tier, today};
use crate::error::{AppError, Code};
use crate::exact::oauth::now_ms;
use crate::state::AppState;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpRequest, web};

/// The session behind the request's cookie, if it is still good. The provider is not asked: a
/// session holds while Exact Online cannot be reached. One whose user Exact refused (see
/// `crate::sign_out`) has ended: its browser hears 401 `sign_in_refused` once.
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
    if crate::sign_out::is_refused(&state.tokens, &record.user) {
        state.sign_out().refused(&record.user);
        state.auth.sessions.take_refusal(&id);
        return Err(AppError::new(Code::SignInRefused));
    }
    let active = crate::auth::orgs::is_active(&state.serverdb, record.division, today()).map_err(AppError::internal)?;
    let tier = if record.registered && active { Tier::Full } else { Tier::SignedIn };
    let touched = record.last_seen_ms == now;
    Ok(Some(Session { id, record, tier, touched }))
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
    use crate::auth::session::{SESSION_IDLE_MS, SESSION_MAX_MS, cookie};
    let left = SESSION_MAX_MS - (session.record.last_seen_ms - session.record.created_ms);
    let max_age = SESSION_IDLE_MS.min(left).max(0);
    cookie(state.auth.session_cookie(), session.id.clone(), state.auth.secure_cookies, max_age)
}
