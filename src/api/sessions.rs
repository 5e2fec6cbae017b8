//! `GET /api/v1/sessions`: who is signed in to the organization, per user (an administrator's
//! view: names and times, never a cookie); `DELETE /api/v1/sessions/{user}`: ends every session of
//! that user at once (a worker who left, a lost handheld). The same from the command line, for
//! every organization: `stock-manager sessions list` and `sessions end --user ID` (`api::admin`,
//! `auth::sessions_cli`).

use super::router::Router;
use super::scope::Org;
use crate::auth::session::SessionRecord;
use crate::auth::tier::{Session, let_go_of_user};
use crate::error::{AppError, AppResult, Code};
use crate::exact::oauth::now_ms;
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::ToSchema;

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

/// One user's sessions.
#[derive(Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct UserSessions {
    /// The Exact user id (what `DELETE /sessions/{user}` takes).
    #[schema(example = "7a3c1d2e-0000-4000-8000-000000000001")]
    pub user: String,
    #[schema(example = "anna@example.com")]
    pub user_name: String,
    #[schema(example = "Anna de Vries")]
    pub full_name: String,
    /// Browsers and handhelds signed in as this user.
    pub sessions: usize,
    /// The latest use of any of them, epoch milliseconds.
    pub last_seen: i64,
    /// The earliest sign-in among them, epoch milliseconds.
    pub signed_in: i64,
}

/// What ending a user's sessions did.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Ended {
    pub user: String,
    pub ended: usize,
}

/// The live sessions grouped per user, optionally of one organization, most recently used first.
pub fn per_user(records: Vec<SessionRecord>, division: Option<i64>) -> Vec<UserSessions> {
    let mut users: BTreeMap<String, UserSessions> = BTreeMap::new();
    for r in records.into_iter().filter(|r| division.is_none_or(|d| r.division == d)) {
        let entry = users.entry(r.user.to_lowercase()).or_insert_with(|| UserSessions {
            user: r.user.clone(),
            user_name: r.user_name.clone(),
            full_name: r.full_name.clone(),
            sessions: 0,
            last_seen: r.last_seen_ms,
            signed_in: r.created_ms,
        });
        entry.sessions += 1;
        entry.last_seen = entry.last_seen.max(r.last_seen_ms);
        entry.signed_in = entry.signed_in.min(r.created_ms);
    }
    let mut list: Vec<UserSessions> = users.into_values().collect();
    list.sort_by(|a, b| b.last_seen.cmp(&a.last_seen).then_with(|| a.user_name.cmp(&b.user_name)));
    list
}

/// Ends every session of `user` and lets go of them; answers how many there were.
pub fn end_user(state: &AppState, user: &str) -> anyhow::Result<usize> {
    let ended = state.auth.sessions.end_all_of(user)?;
    if ended > 0 {
        let_go_of_user(state, user);
    }
    Ok(ended)
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
    let ended = end_user(&state, &known.user).map_err(AppError::internal)?;
    tracing::info!(user = %known.user, ended, by = %session.record.user_name, "sessions ended by an administrator");
    Ok(HttpResponse::Ok().json(Ended { user: known.user, ended }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(user: &str, division: i64, created_ms: i64, last_seen_ms: i64) -> SessionRecord {
        SessionRecord {
            user: user.into(),
            user_name: format!("{user}@example.com"),
            full_name: user.to_uppercase(),
            division,
            customer_name: String::new(),
            divisions: vec![],
            registered: true,
            reauth_until_ms: None,
            created_ms,
            last_seen_ms,
        }
    }

    #[test]
    fn sessions_are_grouped_per_user_of_the_organization() {
        let records = vec![
            record("anna", 1, 10, 50),
            record("ANNA", 1, 5, 20),
            record("bob", 1, 7, 60),
            record("carl", 2, 1, 99),
        ];
        let list = per_user(records, Some(1));
        assert_eq!(list.iter().map(|u| (u.user.as_str(), u.sessions)).collect::<Vec<_>>(), [("bob", 1), ("anna", 2)]);
        assert_eq!((list[1].signed_in, list[1].last_seen), (5, 50));
    }
}
