//! Sign-in (spec §4): `GET /auth/login` sends the browser to the provider with a `state` bound to
//! it by a cookie; `POST /auth/authorize` exchanges the code and opens a server-side session;
//! `GET /auth/session` tells the tier; `POST /auth/logout`, `/auth/refresh`, `/auth/division`
//! (switch organization) and `/auth/reauth` (ImportData's fresh re-authentication).

use super::guard::resolve;
use super::router::Router;
use crate::auth::admin::Standing;
use crate::auth::orgs;
use crate::auth::session::{
    self, DivisionChoice, LOGIN_TTL_MS, LoginPurpose, PendingLogin, REAUTH_TTL_MS, SESSION_IDLE_MS, SessionRecord,
};
use crate::auth::tier::{Session, Tier, today};
use crate::error::{AppError, AppResult, Code};
use crate::exact::ExactError;
use crate::exact::oauth::now_ms;
use crate::exact::tokens::Access;
use crate::organization::{self, OrganizationDetails, organization_details};
use crate::serverdb::OrgAccount;
use crate::state::AppState;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::time::{Duration, Instant};
use utoipa::{IntoParams, ToSchema};

pub fn routes(r: &mut Router) {
    r.public("/auth/login", |res| {
        res.get(login)
            .query::<LoginQuery>()
            .empty(302, "Sends the browser to Exact Online's sign-in")
            .fails(&[Code::TooManyRequests])
    });
    r.public("/auth/authorize", |res| {
        res.post(authorize)
            .body::<AuthorizeBody>()
            .json::<SessionView>(200, "Signed in: the new session (or the renewed re-authentication)")
            .fails(&[Code::LoginState, Code::DivisionInfo, Code::Provider, Code::Timeout])
    });
    r.public("/auth/session", |res| {
        res.get(session_state)
            .json::<SessionView>(200, "The session, or the signed-out view without one")
            .fails(&[Code::Critical, Code::SignInRefused])
    });
    r.public("/auth/logout", |res| res.post(logout).empty(204, "Signed out"));
    r.public("/auth/refresh", |res| {
        res.post(refresh)
            .json::<SessionView>(200, "The session, its Exact Online token renewed when it was due")
            .fails(&[Code::SignInRefused])
    });
    r.signed_in("/auth/division", |res| {
        res.post(switch_division)
            .body::<DivisionBody>()
            .json::<SessionView>(200, "The session, switched to the other organization")
    });
    r.signed_in("/auth/reauth", |res| {
        res.post(reauth)
            .body::<ReauthBody>()
            .json::<SessionView>(200, "The session, re-authenticated for importing data")
            .fails(&[Code::TooManyRequests])
    });
}

/// Only local paths may be returned to after sign-in (no open redirect).
fn local_path(path: Option<String>) -> Option<String> {
    path.filter(|p| p.starts_with('/') && !p.starts_with("//") && !p.contains('\\'))
}

#[derive(Deserialize, IntoParams)]
struct LoginQuery {
    /// The local path to return to after signing in.
    #[serde(rename = "returnTo")]
    #[param(example = "/dashboard")]
    return_to: Option<String>,
    /// `reauth`: the second sign-in that importing data asks for.
    #[serde(default)]
    #[param(inline)]
    purpose: LoginPurpose,
}

pub use crate::limits::MAX_RETURN_TO;
/// The longest callback URL a sign-in keeps (it is made from the request's Host header).
const MAX_CALLBACK_URL: usize = 512;

async fn login(state: web::Data<AppState>, req: HttpRequest, q: web::Query<LoginQuery>) -> AppResult<HttpResponse> {
    let q = q.into_inner();
    if state.first_run.as_ref().is_some_and(|f| !f.is_done()) {
        return Err(AppError::with_message(
            Code::Unavailable,
            "Stock Manager is not set up yet: its Home page sets up the connection to Exact Online",
        ));
    }
    if q.return_to.as_ref().is_some_and(|r| r.len() > MAX_RETURN_TO) {
        return Err(AppError::bad_request(format!("returnTo is longer than {MAX_RETURN_TO} characters")));
    }
    let redirect_uri = super::client::callback_url(state.config.public_url.as_deref(), &req);
    if redirect_uri.len() > MAX_CALLBACK_URL {
        return Err(AppError::bad_request("The Host header is too long"));
    }
    let nonce = session::random_id();
    let login_state = state
        .auth
        .sessions
        .start_login(PendingLogin {
            nonce: nonce.clone(),
            redirect_uri: redirect_uri.clone(),
            purpose: q.purpose,
            return_to: local_path(q.return_to),
            created_ms: now_ms(),
            address: super::client::ClientInfo::of(&req).ip,
        })
        .map_err(|full| {
            // A real browser's sign-in takes seconds; a flood's entries expire with the sign-in time.
            AppError::new(Code::TooManyRequests).caused_by(full).retry_after(Duration::from_secs(60))
        })?;
    let url = state.tokens.oauth().authorize_url(&redirect_uri, &login_state);
    Ok(HttpResponse::Found()
        .insert_header((header::LOCATION, url))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .cookie(session::cookie(state.auth.login_cookie(), nonce, state.auth.secure_cookies, LOGIN_TTL_MS))
        .finish())
}

/// What Exact Online's sign-in handed back to the callback page.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct AuthorizeBody {
    code: String,
    state: String,
}

/// The signed-in user's view of the session (`GET /auth/session`; also the answer of sign-in,
/// refresh and switching).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    tier: Tier,
    #[schema(example = "anna@demometaal.nl")]
    user_name: Option<String>,
    #[schema(example = "Anna de Vries")]
    full_name: Option<String>,
    #[serde(rename = "customer_name")]
    #[schema(example = "Demo Metaal B.V.")]
    customer_name: Option<String>,
    /// The session's division; -1 without a session.
    #[schema(example = 123456)]
    division: i64,
    divisions: Vec<DivisionChoice>,
    /// The login process is complete (the organization is activated).
    registered: bool,
    activated: bool,
    /// The organization's licence ends after this day (`2027-03-31`); none while it is not
    /// activated or when its licence has no end.
    #[schema(example = "2027-03-31")]
    licence_expires: Option<String>,
    /// When the user's Exact Online token expires, epoch milliseconds.
    #[schema(example = 1_780_000_600_000_i64)]
    token_expires_at: Option<i64>,
    refreshing_authorization: bool,
    /// Whether Exact Online still accepts this user's sign-in. A session never reads
    /// `signInNeeded`: Exact refusing the user ends their sessions (401 `sign_in_refused`).
    provider_access: Access,
    /// Until when importing data is allowed without signing in again, epoch milliseconds.
    import_data_until: Option<i64>,
    /// Whether the user is an administrator now, and why (`password`: confirmed the admin
    /// password within 15 minutes, until `importDataUntil`; `listed`: in `admin.users`).
    administrator: Standing,
    /// An admin password is set: administrators confirm it (`POST /auth/reauth`); otherwise the
    /// installation's listed users are its administrators.
    admin_password_set: bool,
    organization_details: OrganizationDetails,
    /// The user's own preferences in this organization.
    #[schema(value_type = Object)]
    user_preferences: Value,
    /// Only after signing in: the local path the sign-in started from.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "/dashboard")]
    return_to: Option<String>,
    /// The configured Exact Online host of the company's country, for links to its pages.
    #[schema(example = "https://start.exactonline.nl")]
    exact_host: String,
    /// The config's sync interval in minutes: the schedule's for organizations that set none.
    #[schema(example = 15)]
    sync_interval_default: u64,
    /// The organization's time zone (IANA name): the UI shows the server's times and "today" in it.
    #[schema(example = "Europe/Amsterdam")]
    time_zone: String,
}

fn view(state: &AppState, session: Option<&Session>) -> SessionView {
    let exact_host = state.config.provider.base_url.trim_end_matches('/').to_string();
    let sync_interval_default = state.config.sync.interval_minutes;
    let time_zone = state.config.time_zone.clone();
    let Some(s) = session else {
        return SessionView {
            tier: Tier::Public,
            user_name: None,
            full_name: None,
            customer_name: None,
            division: -1,
            divisions: Vec::new(),
            registered: false,
            activated: false,
            licence_expires: None,
            token_expires_at: None,
            refreshing_authorization: false,
            provider_access: Access::None,
            import_data_until: None,
            administrator: Standing::None,
            admin_password_set: !state.config.admin.password.is_empty(),
            organization_details: organization::placeholder("notInitialized", -1),
            user_preferences: Value::Object(Map::new()),
            return_to: None,
            exact_host,
            sync_interval_default,
            time_zone,
        };
    };
    let r = &s.record;
    let org = orgs::get(&state.serverdb, r.division).ok().flatten();
    let activated = org.as_ref().is_some_and(|o| o.is_active(today()));
    let licence_expires =
        org.and_then(|o| o.licence).and_then(|l| l.expires).filter(|_| activated).map(|d| d.to_string());
    SessionView {
        tier: s.tier,
        user_name: Some(r.user_name.clone()),
        full_name: Some(r.full_name.clone()),
        customer_name: Some(r.customer_name.clone()),
        division: r.division,
        divisions: r.divisions.clone(),
        registered: r.registered,
        activated,
        licence_expires,
        token_expires_at: state.tokens.expiry_ms(&r.user),
        refreshing_authorization: state.tokens.is_refreshing(&r.user),
        provider_access: state.tokens.access(&r.user),
        import_data_until: r.reauth_until_ms.filter(|t| *t > now_ms()),
        administrator: crate::auth::admin::standing(&state.config.admin, r, now_ms()),
        admin_password_set: !state.config.admin.password.is_empty(),
        organization_details: organization_details(&state.stores, r.division),
        user_preferences: organization::user_preferences(&state.stores, r.division, &r.user),
        return_to: None,
        exact_host,
        sync_interval_default,
        time_zone,
    }
}

fn text(row: &Map<String, Value>, key: &str) -> String {
    row.get(key).and_then(Value::as_str).unwrap_or_default().trim().to_string()
}

async fn authorize(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<AuthorizeBody>,
) -> AppResult<HttpResponse> {
    let body = body.into_inner();
    let nonce = req.cookie(state.auth.login_cookie()).map(|c| c.value().to_string());
    let login = state.auth.sessions.finish_login(&body.state, nonce.as_deref(), now_ms()).ok_or_else(|| {
        tracing::warn!("sign-in refused: its state does not belong to this browser or has expired");
        AppError::new(Code::LoginState)
    })?;
    let tokens = state.tokens.oauth().exchange_code(&body.code, &login.redirect_uri).await?;
    let me = state.exact.me(&tokens.access_token).await?;
    let user = text(&me, "UserID");
    let division = me.get("CurrentDivision").and_then(Value::as_i64).unwrap_or(0);
    if user.is_empty() || division <= 0 {
        return Err(AppError::new(Code::DivisionInfo));
    }
    // Each sign-in starts a new refresh chain at the provider and ends the old one: keep the new.
    state.tokens.store(&user, &tokens)?;
    // Writes this user queued while their sign-in was missing or refused can go now.
    state.outbox.wake_all();
    let secure = state.auth.secure_cookies;
    let existing = resolve(&state, &req).await.ok().flatten();

    if login.purpose == LoginPurpose::Reauth {
        let mut s = existing.ok_or_else(|| AppError::new(Code::NotAuthorized))?;
        if s.record.user != user {
            return Err(AppError::with_message(Code::Forbidden, "Sign in again as the same user"));
        }
        if !state.config.admin.password.is_empty() {
            // With a password set, only the password makes an administrator (`auth::admin`).
            return Err(AppError::with_message(Code::AdminOnly, "Confirm with the admin password instead"));
        }
        s.record.reauth_until_ms = Some(now_ms() + REAUTH_TTL_MS);
        state.auth.sessions.save(&s.id, &s.record).map_err(AppError::internal)?;
        let mut v = view(&state, Some(&s));
        v.return_to = login.return_to;
        return Ok(HttpResponse::Ok().cookie(session::removal(state.auth.login_cookie(), secure)).json(v));
    }

    let divisions = organization::list_divisions(&state.exact, division, &tokens.access_token).await;
    let customer = Some(text(&me, "DivisionCustomerName"))
        .filter(|c| !c.is_empty())
        .or_else(|| divisions.iter().find(|d| d.division == division).map(|d| d.customer.clone()))
        .unwrap_or_default();
    let account = OrgAccount { user_name: text(&me, "UserName"), full_name: text(&me, "FullName") };
    organization::prepare_organization(&state.stores, &state.serverdb, division, &customer, &user, &account)?;
    let now = now_ms();
    let record = SessionRecord {
        user: user.clone(),
        user_name: account.user_name,
        full_name: account.full_name,
        division,
        customer_name: customer,
        divisions,
        registered: false,
        reauth_until_ms: None,
        created_ms: now,
        last_seen_ms: now,
    };
    // A new id on every sign-in (no session fixation); the browser's old session ends.
    if let Some(old) = existing {
        let _ = state.auth.sessions.delete(&old.id);
    }
    let id = state.auth.sessions.create(&record).map_err(AppError::internal)?;
    tracing::info!(division, "signed in");
    let session = Session { id: id.clone(), record, tier: Tier::SignedIn, touched: false };
    let mut v = view(&state, Some(&session));
    v.return_to = login.return_to;
    Ok(HttpResponse::Ok()
        .cookie(session::cookie(state.auth.session_cookie(), id, secure, SESSION_IDLE_MS))
        .cookie(session::removal(state.auth.login_cookie(), secure))
        .json(v))
}

/// 200, with the placeholder organization when there is no good session; a 401 `critical` when the
/// stored session could not be read any more (the browser forgets the cookie and signs in again).
async fn session_state(state: web::Data<AppState>, req: HttpRequest) -> AppResult<HttpResponse> {
    let had_cookie = req.cookie(state.auth.session_cookie()).is_some();
    let session = match resolve(&state, &req).await {
        Ok(session) => session,
        Err(e) => return ended(&state, e),
    };
    let mut res = HttpResponse::Ok();
    res.insert_header((header::CACHE_CONTROL, "no-store"));
    if had_cookie && session.is_none() {
        res.cookie(session::removal(state.auth.session_cookie(), state.auth.secure_cookies));
    }
    Ok(res.json(view(&state, session.as_ref())))
}

/// The answer to a session that cannot go on (critical, or its user refused by Exact): the
/// browser also forgets the cookie, and signs in again. Other errors pass as they are.
fn ended(state: &AppState, e: AppError) -> AppResult<HttpResponse> {
    if !matches!(e.code(), Code::Critical | Code::SignInRefused) {
        return Err(e);
    }
    let mut res = e.error_response();
    res.add_cookie(&session::removal(state.auth.session_cookie(), state.auth.secure_cookies))
        .map_err(AppError::internal)?;
    Ok(res)
}

/// Ends the session and, when it was the user's last, drops their provider tokens (spec §4).
async fn logout(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    if let Some(cookie) = req.cookie(state.auth.session_cookie())
        && let Ok(Some(record)) = state.auth.sessions.get(cookie.value(), now_ms())
    {
        state.sign_out().end_session(cookie.value(), &record.user);
        tracing::info!(division = record.division, "signed out");
    }
    HttpResponse::NoContent().cookie(session::removal(state.auth.session_cookie(), state.auth.secure_cookies)).finish()
}

/// Renews the provider token now if it is in its last 30 s (single flight, spec §4); answers the
/// session. An unreachable Exact ends nothing: the token is renewed later. Exact refusing the
/// renewal ends the user's sessions (`auth::refusal`): 401 `sign_in_refused`.
async fn refresh(state: web::Data<AppState>, req: HttpRequest) -> AppResult<HttpResponse> {
    let session = match resolve(&state, &req).await {
        Ok(session) => session.ok_or_else(|| AppError::new(Code::NotAuthorized))?,
        Err(e) => return ended(&state, e),
    };
    match state.tokens.access_token(&session.record.user).await {
        Ok(_) | Err(ExactError::NoToken) => {}
        Err(ExactError::Unauthorized(_)) => {
            state.sign_out().refused(&session.record.user);
            state.auth.sessions.take_refusal(&session.id);
            return ended(&state, AppError::new(Code::SignInRefused));
        }
        Err(e) => tracing::warn!(error = %e, "token renewal failed; the session goes on and it is tried again later"),
    }
    Ok(HttpResponse::Ok().json(view(&state, Some(&session))))
}

/// The division to switch to: one of the session's `divisions`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct DivisionBody {
    #[schema(example = 123456)]
    division: i64,
}

/// Switches the session to another of the user's divisions; the login process restarts there
/// (registered again once that organization is activated).
async fn switch_division(
    state: web::Data<AppState>,
    session: Session,
    body: web::Json<DivisionBody>,
) -> AppResult<HttpResponse> {
    let mut s = session;
    let choice = s
        .record
        .divisions
        .iter()
        .find(|d| d.division == body.division)
        .cloned()
        .ok_or_else(|| AppError::with_message(Code::Forbidden, "You have no access to that division"))?;
    let account = OrgAccount { user_name: s.record.user_name.clone(), full_name: s.record.full_name.clone() };
    organization::prepare_organization(
        &state.stores,
        &state.serverdb,
        choice.division,
        &choice.customer,
        &s.record.user,
        &account,
    )?;
    s.record.division = choice.division;
    s.record.customer_name = choice.customer.clone();
    s.record.registered = orgs::is_active(&state.serverdb, choice.division, today()).map_err(AppError::internal)?;
    s.record.reauth_until_ms = None;
    state.auth.sessions.save(&s.id, &s.record).map_err(AppError::internal)?;
    s.tier = if s.record.registered { Tier::Full } else { Tier::SignedIn };
    tracing::info!(division = choice.division, "switched organization");
    Ok(HttpResponse::Ok().json(view(&state, Some(&s))))
}

/// The configured admin password.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ReauthBody {
    password: String,
}

/// ImportData's fresh re-authentication with the admin password. Without a configured password
/// the second provider sign-in (`/auth/login?purpose=reauth`) is the way.
async fn reauth(state: web::Data<AppState>, session: Session, body: web::Json<ReauthBody>) -> AppResult<HttpResponse> {
    if state.config.admin.password.is_empty() {
        return Err(AppError::with_message(
            Code::BadRequest,
            "No admin password is configured: sign in with Exact Online again instead",
        ));
    }
    let key = format!("reauth:{}", session.record.user);
    // Counted before Argon2 runs, and one verification per user and two in all at a time: 48
    // parallel wrong passwords once ran 48 verifications (19 MiB each), past the limit of 5.
    let Some(_slot) = state.auth.reauth_slots.take(&key) else {
        return Err(AppError::too_many_attempts(Duration::from_secs(1)));
    };
    if let Err(wait) = state.auth.reauth_attempts.attempt(&key, Instant::now()) {
        return Err(AppError::too_many_attempts(wait));
    }
    let configured = state.config.admin.password.clone();
    let given = body.into_inner().password;
    // Argon2 takes tens of milliseconds of CPU: not on the async workers.
    let correct = super::blocking(move || Ok(crate::password::verify(configured.expose(), &given))).await?;
    if !correct {
        return Err(AppError::with_message(Code::NotAuthorized, "The password is not correct"));
    }
    state.auth.reauth_attempts.succeed(&key);
    let mut s = session;
    s.record.reauth_until_ms = Some(now_ms() + REAUTH_TTL_MS);
    state.auth.sessions.save(&s.id, &s.record).map_err(AppError::internal)?;
    Ok(HttpResponse::Ok().json(view(&state, Some(&s))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_paths_are_returned_to() {
        assert_eq!(local_path(Some("/dashboard?division=1".into())).as_deref(), Some("/dashboard?division=1"));
        assert_eq!(local_path(Some("//evil.example/x".into())), None);
        assert_eq!(local_path(Some("https://evil.example".into())), None);
        assert_eq!(local_path(Some("/\\evil".into())), None);
    }
}
