//! `GET /api/v1/events`: Server-Sent Events with the sync toasts of the caller's organization.
//! A stream lives no longer than its session in its organization: it looks at the session every
//! few seconds and on each event, and ends once the session is over (logout, idle, lifetime, Exact
//! refusing its user) or switched to another organization; the browser's EventSource then opens
//! the new organization's stream, checked for that organization's tier. A session holds at most
//! `MAX_STREAMS_PER_SESSION` streams; one more closes the session's oldest.

use super::language_of;
use super::router::Router;
use crate::auth::session::StreamSlot;
use crate::auth::tier::Session;
use crate::error::{AppResult, Language, Text};
use crate::exact::catalogue;
use crate::exact::oauth::now_ms;
use crate::state::AppState;
use crate::sync::SyncEvent;
use actix_web::{HttpRequest, HttpResponse, web};
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

/// A toast frame, with the table named in the stream's language.
fn frame(event: &SyncEvent, language: Language) -> Bytes {
    let json = match catalogue::by_table(event.table) {
        Some(endpoint) if language != Language::En => {
            let names = endpoint.names();
            let said = SyncEvent {
                name: names.said_in(language),
                message: Text::Refreshing { table: names }.said_in(language),
                ..event.clone()
            };
            serde_json::to_string(&said)
        }
        _ => serde_json::to_string(event),
    }
    .unwrap_or_else(|_| "{}".to_string());
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
    language: Language,
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
                    return Some(frame(&ev, self.language));
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

/// The stream's language: `?lang=` (an `EventSource` sends no headers of its own), else the
/// browser's `Accept-Language`.
fn stream_language(req: &HttpRequest) -> Language {
    let asked = url::form_urlencoded::parse(req.query_string().as_bytes())
        .find(|(key, _)| key == "lang")
        .and_then(|(_, value)| Language::from_code(&value));
    asked.unwrap_or_else(|| language_of(req))
}

async fn events(req: HttpRequest, state: web::Data<AppState>, session: Session) -> AppResult<HttpResponse> {
    let slot = state.auth.sessions.open_stream(&session.id);
    let feed = Feed {
        rx: state.sync.subscribe(),
        state: state.clone(),
        session_id: session.id,
        division: session.record.division,
        last_sent: Instant::now(),
        slot,
        stopping: state.stopping.subscribe(),
        language: stream_language(&req),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn event() -> SyncEvent {
        SyncEvent {
            division: 1,
            table: "shopOrders",
            name: "Shop Orders",
            message: "Refreshing Shop Orders".into(),
            total: 10,
            remaining: 4,
            done: false,
            paused: false,
            seconds_remaining: 3,
            error: None,
        }
    }

    fn data(frame: &Bytes) -> serde_json::Value {
        let text = std::str::from_utf8(frame).expect("UTF-8");
        let json = text.strip_prefix("event: toast\ndata: ").and_then(|t| t.strip_suffix("\n\n")).expect("a frame");
        serde_json::from_str(json).expect("JSON")
    }

    #[test]
    fn a_toast_names_its_table_in_the_streams_language() {
        let nl = data(&frame(&event(), Language::Nl));
        assert_eq!(nl["name"], "Productieorders");
        assert_eq!(nl["message"], "Productieorders vernieuwen");
        assert_eq!(nl["table"], "shopOrders", "the key stays");
        assert_eq!(nl["remaining"], 4);
        let en = data(&frame(&event(), Language::En));
        assert_eq!(en["name"], "Shop Orders");
        assert_eq!(en["message"], "Refreshing Shop Orders");
    }

    #[test]
    fn the_streams_language_is_asked_in_the_query_or_else_the_header() {
        let req = actix_web::test::TestRequest::with_uri("/api/v1/events?lang=nl").to_http_request();
        assert_eq!(stream_language(&req), Language::Nl);
        let req = actix_web::test::TestRequest::with_uri("/api/v1/events?lang=xx")
            .insert_header(("Accept-Language", "nl-NL"))
            .to_http_request();
        assert_eq!(stream_language(&req), Language::Nl, "an unknown code falls back to the header");
        let req = actix_web::test::TestRequest::with_uri("/api/v1/events").to_http_request();
        assert_eq!(stream_language(&req), Language::En);
    }
}
