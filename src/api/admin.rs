//! Local administration: `GET /api/v1/admin/backup` streams a backup of the data directory to the
//! `stock-manager backup` command on this machine; `GET /api/v1/admin/sessions` and
//! `DELETE /api/v1/admin/sessions/{user}` serve `stock-manager sessions list|end`. Public in the
//! route table because no session applies; they answer only a caller on this host (loopback, or
//! this server's own address) that presents the token of `{data_dir}/control.json`, and are a
//! plain 404 to everyone else.

use super::router::Router;
use crate::error::{AppError, Code};
use crate::exact::oauth::now_ms;
use crate::state::AppState;
use actix_web::body::SizedStream;
use actix_web::{HttpRequest, HttpResponse, web};
use std::path::PathBuf;

pub fn routes(r: &mut Router) {
    r.public("/admin/backup", |res| {
        res.get(backup)
            .bytes(200, "application/x-tar", "A backup of the data directory (only to this host's own command)")
            .fails(&[Code::NotFound])
    });
    r.public("/admin/sessions", |res| {
        res.get(sessions)
            .list::<crate::auth::users::UserSessions>(
                200,
                "Every signed-in user of every organization (only to this host's own command)",
            )
            .fails(&[Code::NotFound])
    });
    r.public("/admin/sessions/{user}", |res| {
        res.delete(end_sessions)
            .json::<crate::auth::users::Ended>(200, "The user's sessions are ended (only to this host's own command)")
            .fails(&[Code::NotFound])
    });
}

/// 404 to anybody but this host's own command, as if the route were not there.
fn not_here(req: &HttpRequest) -> AppError {
    AppError::with_message(Code::NotFound, format!("No API route {} {}", req.method(), req.path()))
}

async fn sessions(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, AppError> {
    if !local_admin(&req, &state) {
        return Err(not_here(&req));
    }
    let records = state.auth.sessions.live_records(now_ms()).map_err(AppError::internal)?;
    Ok(HttpResponse::Ok().json(crate::auth::users::per_user(records, None)))
}

async fn end_sessions(
    req: HttpRequest,
    state: web::Data<AppState>,
    user: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    if !local_admin(&req, &state) {
        return Err(not_here(&req));
    }
    let user = user.into_inner();
    let ended = state.sign_out().end_user(&user).map_err(AppError::internal)?;
    tracing::info!(%user, ended, "sessions ended from the command line");
    Ok(HttpResponse::Ok().json(crate::auth::users::Ended { user, ended }))
}

/// Whether the request comes from this host with the control token.
fn local_admin(req: &HttpRequest, state: &AppState) -> bool {
    let Some(expected) = state.control_token.as_deref() else { return false };
    let Some(peer) = req.peer_addr() else { return false };
    let local = req.app_config().local_addr();
    // A reverse proxy on this host also connects from loopback: the token still has to match.
    let from_this_host = peer.ip().is_loopback() || peer.ip() == local.ip();
    let given = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    from_this_host && crate::backup::control::token_matches(expected, given)
}

/// Deletes the finished backup file once its stream is dropped (sent, or the client went away).
struct RemoveWhenSent(PathBuf);

impl Drop for RemoveWhenSent {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

async fn backup(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, AppError> {
    if !local_admin(&req, &state) {
        return Err(not_here(&req));
    }
    // Inside the data directory (the service may write nowhere else); its dot name keeps it out of
    // the backup itself and start-up removes it if the process dies meanwhile.
    let out = state.config.data_dir.join(format!(".backup-out-{}.tar", uuid::Uuid::new_v4().simple()));
    let guard = RemoveWhenSent(out.clone());
    let taken = {
        let (files, out) = (state.open_files(), out.clone());
        super::blocking(move || crate::backup::take_in_server(&files, &out).map_err(AppError::internal)).await
    };
    let manifest = taken?;
    tracing::info!(summary = %crate::backup::describe(&manifest), "backup taken for a local command");
    let file = std::fs::File::open(&out).map_err(AppError::internal)?;
    let size = file.metadata().map_err(AppError::internal)?.len();
    let stream = futures_util::stream::unfold((tokio::fs::File::from_std(file), guard), |(mut f, guard)| async move {
        use tokio::io::AsyncReadExt;
        let mut buf = vec![0u8; 1 << 16];
        match f.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok::<_, std::io::Error>(bytes::Bytes::from(buf)), (f, guard)))
            }
            Err(e) => Some((Err(e), (f, guard))),
        }
    });
    Ok(HttpResponse::Ok()
        .content_type("application/x-tar")
        .insert_header(("Cache-Control", "no-store"))
        .body(SizedStream::new(size, stream)))
}
