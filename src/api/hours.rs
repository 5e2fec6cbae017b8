//! Operator timers of the Hours screen (full access): `GET /api/v1/hours/timers` lists the
//! organization's running timers with the server's clock, `POST /api/v1/hours/timers` starts one
//! and `DELETE /api/v1/hours/timers/{id}` removes one (booked, or started by mistake). What a
//! timer is and how it is kept is `crate::hours`.

use super::blocking;
use super::router::Router;
use super::scope::Org;
use crate::error::{AppResult, Code};
use crate::exact::oauth::now_ms;
use crate::hours::{self, StartBody, Timer, TimerList};
use crate::state::AppState;
use actix_web::{HttpResponse, web};

pub fn routes(r: &mut Router) {
    r.full("/hours/timers", |res| {
        res.get(list)
            .json::<TimerList>(200, "The running timers, oldest first, and the server's clock")
            .post(start)
            .body::<StartBody>()
            .json::<Timer>(201, "The timer, started")
            .json::<Timer>(200, "A carried-over timer whose id runs already: the running one")
    });
    r.full("/hours/timers/{id}", |res| res.delete(remove).empty(204, "The timer is removed").fails(&[Code::NotFound]));
}

async fn list(state: web::Data<AppState>, org: Org) -> AppResult<HttpResponse> {
    let store = state.stores.get(org.division)?;
    let timers = blocking(move || Ok(hours::timers(&store)?)).await?;
    Ok(HttpResponse::Ok().json(TimerList { now: now_ms(), timers }))
}

async fn start(state: web::Data<AppState>, org: Org, body: web::Json<StartBody>) -> AppResult<HttpResponse> {
    let timer = body.into_inner().timer(now_ms())?;
    let store = state.stores.get(org.division)?;
    let (timer, new) = blocking(move || hours::insert(&store, timer)).await?;
    if new {
        tracing::info!(division = org.division, id = %timer.id, "operator timer started");
        Ok(HttpResponse::Created().json(timer))
    } else {
        Ok(HttpResponse::Ok().json(timer))
    }
}

async fn remove(state: web::Data<AppState>, org: Org, id: web::Path<String>) -> AppResult<HttpResponse> {
    let id = id.into_inner();
    let store = state.stores.get(org.division)?;
    let removed = id.clone();
    blocking(move || hours::remove(&store, &removed)).await?;
    tracing::info!(division = org.division, %id, "operator timer removed");
    Ok(HttpResponse::NoContent().finish())
}
