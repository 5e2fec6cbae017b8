//! `GET /api/v1/sessions`: who is signed in to the organization, per user (an administrator's
//! view: names and times, never a cookie); `DELETE /api/v1/sessions/{user}`: ends every session of
//! that user at once (a worker who left, a lost handheld). The same from the command line, for
//! every organization: `stock-manager sessions list` and `sessions end --user ID` (`api::admin`,
//! `cli::sessions`).

use super::router::Router;
use super::scope::Org;
use crate::auth::tier::Session;
use crate::auth::users::{Ended, UserSessions, per_user};
use crate::error::{AppError, AppResult, Code};
use crate::exact::oauth::now_ms;
use crate::state::AppState;
use actix_web::{HttpResponse, web};

pub fn routes(r: &mut Router) {
    r.full("/sessions", |res| {
        res.get(list).admin().list::<UserSessions>(200, "The organization's signed-in users, each with their sessions")
    });
    r.full("/sessions/{user}", |res| {
        res.delete(end)
            .admin()
            .json::<Ended>(200, "The user's sessions are ended: their next request is signed out")
            .fails(&[Code::NotFound])
    });
}

async fn list(state: web::Data<AppState>, org: Org) -> AppResult<HttpResponse> {
    let records = state.auth.sessions.live_records(now_ms()).map_err(AppError::internal)?;
    Ok(HttpResponse::Ok().json(per_user(records, Some(org.division))))
}

async fn end(
    state: web::Data<AppState>,
    org: Org,
    session: Session,
    user: web::Path<String>,
) -> AppResult<HttpResponse> {
    let user = user.into_inner();
    let records = state.auth.sessions.live_records(now_ms()).map_err(AppError::internal)?;
    // Only users of the administrator's own organization: another's are not theirs to see.
    let known = per_user(records, Some(org.division)).into_iter().find(|u| u.user.eq_ignore_ascii_case(&user));
    let Some(known) = known else {
        return Err(AppError::with_message(Code::NotFound, format!("No signed-in user '{user}' in this organization")));
    };
    let ended = state.sign_out().end_user(&known.user).map_err(AppError::internal)?;
    tracing::info!(user = %known.user, ended, by = %session.record.user_name, "sessions ended by an administrator");
    Ok(HttpResponse::Ok().json(Ended { user: known.user, ended }))
}
