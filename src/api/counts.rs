//! Count sessions (full access, `crate::counts`): `GET /api/v1/counts` lists the organization's
//! counts and `POST` starts one; below `/counts/{id}` are its lines (`POST lines`, `DELETE
//! lines/{line}`), its review against the local copy (`GET review`), and sending it to Exact
//! Online as a draft (`POST draft`) or processed (`POST process`, administrators only). A refused
//! count can be reopened (`POST reopen`) and a count not sent removed (`DELETE`).

use super::blocking;
use super::router::Router;
use crate::auth::tier::Session;
use crate::counts::{
    self, Added, CountLineBody, CountSession, CountStart, CountStatus, CountSummary, ReviewFilter, ReviewPage, SendMode,
};
use crate::error::{AppError, AppResult, Code};
use crate::exact::oauth::now_ms;
use crate::outbox::actions::{self, Actor};
use crate::outbox::{Entry, OutboxService as Outbox};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use std::sync::Arc;
use utoipa::{IntoParams, ToSchema};

pub fn routes(r: &mut Router) {
    r.full("/counts", |res| {
        res.get(list)
            .json::<CountList>(200, "The organization's counts, newest first, without their lines")
            .post(start)
            .body::<CountStart>()
            .json::<CountSummary>(201, "The count, started")
            .fails(&[Code::TooManyEntries])
    });
    r.full("/counts/{id}", |res| {
        res.get(one)
            .json::<CountSummary>(200, "The count with its lines")
            .fails(&[Code::NotFound])
            .delete(remove)
            .empty(204, "The count is removed")
            .fails(&[Code::NotFound, Code::CountClosed])
    });
    r.full("/counts/{id}/lines", |res| {
        res.post(add_line)
            .body::<CountLineBody>()
            .json::<counts::CountLine>(201, "The line, counted")
            .json::<counts::CountLine>(200, "Counted the same before, or the new count stands (`replace`)")
            .fails(&[Code::NotFound, Code::CountConflict, Code::CountClosed, Code::TooManyEntries])
    });
    r.full("/counts/{id}/lines/{line}", |res| {
        res.delete(remove_line).empty(204, "The line is removed").fails(&[Code::NotFound, Code::CountClosed])
    });
    r.full("/counts/{id}/review", |res| {
        res.get(review)
            .query::<ReviewQuery>()
            .json::<ReviewPage>(200, "What the local copy expects beside what was counted, a page at a time")
            .fails(&[Code::NotFound])
    });
    r.full("/counts/{id}/draft", |res| {
        res.post(send_draft)
            .json::<CountSummary>(202, "Sent as a draft StockCount: on its way to Exact Online (or there already)")
            .fails(&[Code::NotFound, Code::EmptyPayload])
    });
    r.full("/counts/{id}/process", |res| {
        res.post(send_processed)
            .admin()
            .json::<CountSummary>(202, "Sent to be processed: on its way to Exact Online (or there already)")
            .fails(&[Code::NotFound, Code::EmptyPayload])
    });
    r.full("/counts/{id}/reopen", |res| {
        res.post(reopen)
            .json::<CountSummary>(200, "Counting again: Exact Online's refusal is set aside")
            .fails(&[Code::NotFound, Code::CountClosed])
    });
}

/// The organization's counts.
#[derive(serde::Serialize, ToSchema)]
struct CountList {
    counts: Vec<CountSummary>,
}

/// A page of the review.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ReviewQuery {
    /// Which rows: all (the default), counted, differences (and not counted), notCounted.
    #[serde(default)]
    #[param(value_type = Option<String>, example = "differences")]
    filter: ReviewFilter,
    #[serde(default)]
    offset: Option<usize>,
    /// At most this many rows (at most 1000; 200 when left out).
    #[param(maximum = 1000, example = 200)]
    #[serde(default)]
    limit: Option<usize>,
}

/// The longest review page.
const MAX_REVIEW_PAGE: usize = 1000;

fn who(session: &Session) -> String {
    let name = session.record.full_name.trim();
    if name.is_empty() { session.record.user_name.clone() } else { name.to_string() }
}

/// Where a session stands, from its outbox entries.
fn summary(state: &AppState, division: i64, session: CountSession, with_lines: bool) -> AppResult<CountSummary> {
    let (status, error) = counts::status(&session, &entries_of(&state.outbox, division, &session)?);
    Ok(CountSummary {
        line_count: session.lines.len(),
        mode: session.sent.as_ref().map(|s| s.mode),
        stock_count_id: session.sent.as_ref().map(|s| s.stock_count_id.clone()),
        lines: with_lines.then(|| session.lines.clone()),
        id: session.id,
        description: session.description,
        scope: session.scope,
        created_by: session.created_by,
        created_ms: session.created_ms,
        status,
        error,
    })
}

async fn list(state: web::Data<AppState>, session: Session) -> AppResult<HttpResponse> {
    let division = session.record.division;
    let store = state.stores.get(division)?;
    let all = blocking(move || counts::all(&store)).await?;
    let counts = all.into_iter().map(|s| summary(&state, division, s, false)).collect::<AppResult<_>>()?;
    Ok(HttpResponse::Ok().json(CountList { counts }))
}

async fn start(state: web::Data<AppState>, session: Session, body: web::Json<CountStart>) -> AppResult<HttpResponse> {
    let division = session.record.division;
    let store = state.stores.get(division)?;
    let by = who(&session);
    let started = blocking(move || counts::start(&store, body.into_inner(), &by, now_ms())).await?;
    tracing::info!(division, id = %started.id, kind = ?started.scope.kind, "count started");
    Ok(HttpResponse::Created().json(summary(&state, division, started, true)?))
}

async fn one(state: web::Data<AppState>, session: Session, id: web::Path<String>) -> AppResult<HttpResponse> {
    let division = session.record.division;
    let store = state.stores.get(division)?;
    let found = blocking(move || counts::get(&store, &id)).await?;
    Ok(HttpResponse::Ok().json(summary(&state, division, found, true)?))
}

/// The outbox entries a sent session queued, as the outbox has them now.
fn entries_of(outbox: &Arc<Outbox>, division: i64, session: &CountSession) -> AppResult<Vec<Option<Entry>>> {
    let Some(sent) = &session.sent else { return Ok(Vec::new()) };
    sent.entries.iter().map(|id| outbox.get(division, *id)).collect::<anyhow::Result<_>>().map_err(AppError::internal)
}

/// Where `session` stands now, from the outbox (for a decision taken under the session lock).
fn status_now(outbox: &Arc<Outbox>, division: i64, session: &CountSession) -> AppResult<CountStatus> {
    Ok(counts::status(session, &entries_of(outbox, division, session)?).0)
}

/// Sets the refused entries of a count aside, so a retry from the outbox cannot book it.
fn discard_all(outbox: &Arc<Outbox>, division: i64, entries: &[u64]) -> AppResult<()> {
    for id in entries {
        outbox.discard(division, *id).map_err(AppError::internal)?;
    }
    Ok(())
}

async fn remove(state: web::Data<AppState>, session: Session, id: web::Path<String>) -> AppResult<HttpResponse> {
    let division = session.record.division;
    let store = state.stores.get(division)?;
    let outbox = state.outbox.clone();
    blocking(move || {
        counts::remove(&store, &id, |s| status_now(&outbox, division, s), |e| discard_all(&outbox, division, e))
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

async fn add_line(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<String>,
    body: web::Json<CountLineBody>,
) -> AppResult<HttpResponse> {
    let store = state.stores.get(session.record.division)?;
    let by = who(&session);
    let added = blocking(move || counts::add_line(&store, &id, body.into_inner(), &by, now_ms())).await?;
    Ok(match added {
        Added::New(line) => HttpResponse::Created().json(line),
        Added::Same(line) | Added::Replaced(line) => HttpResponse::Ok().json(line),
    })
}

async fn remove_line(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    let store = state.stores.get(session.record.division)?;
    let (id, line) = path.into_inner();
    blocking(move || counts::remove_line(&store, &id, &line)).await?;
    Ok(HttpResponse::NoContent().finish())
}

async fn review(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<String>,
    query: web::Query<ReviewQuery>,
) -> AppResult<HttpResponse> {
    let store = state.stores.get(session.record.division)?;
    let q = query.into_inner();
    let limit = q.limit.unwrap_or(200).min(MAX_REVIEW_PAGE);
    let page = blocking(move || {
        let found = counts::get(&store, &id)?;
        let others = counts::all(&store)?;
        Ok(counts::review(&store, &found, &others, q.filter, q.offset.unwrap_or(0), limit)?)
    })
    .await?;
    Ok(HttpResponse::Ok().json(page))
}

async fn send(state: web::Data<AppState>, session: Session, id: String, mode: SendMode) -> AppResult<HttpResponse> {
    let division = session.record.division;
    let store = state.stores.get(division)?;
    let actor = Actor { user: session.record.user.clone(), user_name: session.record.user_name.clone() };
    let by = who(&session);
    let outbox = state.outbox.clone();
    let (sent, new) = blocking(move || {
        counts::send(&store, &id, mode, &by, now_ms(), |body| {
            let entries = actions::stock_count(&actor, body).map_err(AppError::from)?;
            outbox.enqueue(division, entries).map_err(AppError::internal)
        })
    })
    .await?;
    if new {
        tracing::info!(division, id = %sent.id, ?mode, lines = sent.lines.len(), "count sent");
    }
    Ok(HttpResponse::Accepted().json(summary(&state, division, sent, true)?))
}

async fn send_draft(state: web::Data<AppState>, session: Session, id: web::Path<String>) -> AppResult<HttpResponse> {
    send(state, session, id.into_inner(), SendMode::Draft).await
}

async fn send_processed(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<String>,
) -> AppResult<HttpResponse> {
    send(state, session, id.into_inner(), SendMode::Process).await
}

/// After Exact Online refused the count: its refused entries are discarded (so a retry from the
/// outbox cannot book it as well), and counting goes on.
async fn reopen(state: web::Data<AppState>, session: Session, id: web::Path<String>) -> AppResult<HttpResponse> {
    let division = session.record.division;
    let store = state.stores.get(division)?;
    let outbox = state.outbox.clone();
    let reopened = blocking(move || {
        counts::reopen(&store, &id, |s| status_now(&outbox, division, s), |e| discard_all(&outbox, division, e))
    })
    .await?;
    tracing::info!(division, id = %reopened.id, "count reopened after a refusal");
    Ok(HttpResponse::Ok().json(summary(&state, division, reopened, true)?))
}
