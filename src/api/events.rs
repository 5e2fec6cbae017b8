//! `GET /api/v1/events`: Server-Sent Events with the sync toasts of the caller's organization.

use super::router::Router;
use super::scope::Org;
use crate::server::AppState;
use crate::sync::SyncEvent;
use actix_web::{HttpResponse, web};
use bytes::Bytes;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

pub fn routes(r: &mut Router) {
    r.full("/events", |res| res.get(events));
}

/// A comment line every 15 s keeps proxies from closing an idle stream.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

fn frame(event: &SyncEvent) -> Bytes {
    let json = serde_json::to_string(event).unwrap_or_else(|_| "{}".to_string());
    Bytes::from(format!("event: toast\ndata: {json}\n\n"))
}

async fn events(state: web::Data<AppState>, org: Org) -> HttpResponse {
    let rx = state.sync.subscribe();
    let division = org.division;
    let stream = futures_util::stream::unfold(rx, move |mut rx| async move {
        loop {
            match tokio::time::timeout(KEEP_ALIVE, rx.recv()).await {
                Ok(Ok(ev)) if ev.division == division => {
                    return Some((Ok::<Bytes, actix_web::Error>(frame(&ev)), rx));
                }
                Ok(Ok(_)) => continue,
                // A slow reader missed some toasts; the next one carries the current state.
                Ok(Err(RecvError::Lagged(_))) => continue,
                Ok(Err(RecvError::Closed)) => return None,
                Err(_) => return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), rx)),
            }
        }
    });
    HttpResponse::Ok()
        .content_type("text/event-stream")
        // Compression would buffer the small frames and delay the toasts.
        .insert_header(actix_web::http::header::ContentEncoding::Identity)
        .insert_header(("Cache-Control", "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(stream)
}
