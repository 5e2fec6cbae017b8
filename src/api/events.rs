//! `GET /api/v1/events`: Server-Sent Events with the sync toasts of the caller's organization.
//! A stream lives no longer than its session in its organization: it looks at the session every
//! few seconds and on each event, and ends once the session is over (logout, idle, lifetime, Exact
//! refusing its user) or switched to another organization; the browser's EventSource then opens
//! the new organization's stream, checked for that organization's tier. A session holds at most
//! `MAX_STREAMS_PER_SESSION` streams; one more closes the session's oldest.

use super::router::Router;
use crate::auth::session::StreamSlot;
use crate::auth::tier::Session;
use crate::error::AppResult;
use crate::exact::oauth::now_ms;
use crate::state::AppState;
use crate::sync::SyncEvent;
use actix_web::{HttpResponse, web};
use bytes::Bytes;
use std::time::{Duration, Instant};
use tokio::sync::broadcast::Receiver;
use tokio::sync::broadcast::error::RecvError;

pub fn routes(r: &mut Router) {
    r.full("/events", |res| {
        res.get(events).bytes(
            200,
            "text/event-stream",
            "Server-Sent Events: `toast` events with the organization's sync progress, as JSON",
        )
    });
}

/// A comment line every 10 s keeps proxies from closing an idle stream, and lets the server notice
/// a client that left (only a write tells), which frees the session's stream slot.
const KEEP_ALIVE: Duration = Duration::from_secs(10);
/// How often a quiet stream looks whether its session still holds.
pub const SESSION_CHECK: Duration = Duration::from_secs(3);

fn frame(event: &SyncEvent) -> Bytes {
    let json = serde_json::to_string(event).unwrap_or_else(|_| "{}".to_string());
    Bytes::from(format!("event: toast\ndata: {json}\n\n"))
}

/// What a stream carries between frames; dropping it (the stream ended or the client left)
/// frees the session's slot.
struct Feed {
    rx: Receiver<SyncEvent>,
    state: web::Data<AppState>,
    session_id: String,
    division: i64,
    last_sent: Instant,
    slot: StreamSlot,
    /// The server is stopping: the stream ends rather than hold the shutdown.
    stopping: tokio::sync::watch::Receiver<bool>,
}

impl Feed {
    /// Whether the session still holds, in the organization the stream was opened for.
    fn session_holds(&self) -> bool {
        match self.state.auth.sessions.live_division(&self.session_id, now_ms()) {
            Ok(division) => division == Some(self.division),
            Err(e) => {
                // A passing database error should not cut every stream; the next look decides.
                tracing::warn!(error = %format!("{e:#}"), "event stream: cannot look up its session");
                true
            }
        }
    }

    /// The next frame, or `None` when the stream ends.
    async fn next(&mut self) -> Option<Bytes> {
        loop {
            let got = tokio::select! {
                // A newer stream of the session took this one's slot.
                () = self.slot.closed() => return None,
                _ = self.stopping.wait_for(|stopping| *stopping) => return None,
                got = tokio::time::timeout(SESSION_CHECK, self.rx.recv()) => got,
            };
            if !self.session_holds() {
                return None;
            }
            match got {
                Ok(Ok(ev)) if ev.division == self.division => {
                    self.last_sent = Instant::now();
                    return Some(frame(&ev));
                }
                Ok(Ok(_)) => continue,
                // A slow reader missed some toasts; the next one carries the current state.
                Ok(Err(RecvError::Lagged(_))) => continue,
                Ok(Err(RecvError::Closed)) => return None,
                Err(_) if self.last_sent.elapsed() >= KEEP_ALIVE => {
                    self.last_sent = Instant::now();
                    return Some(Bytes::from_static(b": keep-alive\n\n"));
                }
                Err(_) => continue,
            }
        }
    }
}

async fn events(state: web::Data<AppState>, session: Session) -> AppResult<HttpResponse> {
    let slot = state.auth.sessions.open_stream(&session.id);
    let feed = Feed {
        rx: state.sync.subscribe(),
        state: state.clone(),
        session_id: session.id,
        division: session.record.division,
        last_sent: Instant::now(),
        slot,
        stopping: state.stopping.subscribe(),
    };
    let stream = futures_util::stream::unfold(feed, |mut feed| async move {
        let bytes = feed.next().await?;
        Some((Ok::<Bytes, actix_web::Error>(bytes), feed))
    });
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        // Compression would buffer the small frames and delay the toasts.
        .insert_header(actix_web::http::header::ContentEncoding::Identity)
        .insert_header(("Cache-Control", "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(stream))
}
