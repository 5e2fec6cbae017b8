//! Logging set-up and the request-logging middleware (one line per request, with a request id).

use crate::config::{Config, LogFormat};
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use std::time::Instant;
use tracing::Instrument;
use tracing_subscriber::EnvFilter;

/// The response header that carries the request id (also accepted from a reverse proxy).
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// Installs the global subscriber. `RUST_LOG`, when set, wins over the configured level.
pub fn init(config: &Config) {
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|v| EnvFilter::try_new(v).ok())
        .unwrap_or_else(|| EnvFilter::new(&config.log_level));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    // A second init (tests start several servers) is harmless: keep the first.
    let _ = match config.log_format {
        LogFormat::Json => builder.json().try_init(),
        LogFormat::Text => builder.try_init(),
    };
}

/// Logs method, path (never the query: it can hold OAuth codes), status and latency, and tags the
/// response with the request id.
pub async fn log_requests(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let id = req
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 64 && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        .map(str::to_string)
        .unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string()[..16].to_string());
    let method = req.method().to_string();
    let path = req.path().to_string();
    // The span covers the whole future, so lines logged after an await carry the id too.
    let span = tracing::info_span!("request", id = %id);
    let result = next.call(req).instrument(span).await;
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    match result {
        Ok(mut res) => {
            let status = res.status().as_u16();
            if let Ok(value) = HeaderValue::from_str(&id) {
                res.headers_mut().insert(HeaderName::from_static(REQUEST_ID_HEADER), value);
            }
            if status >= 500 {
                tracing::warn!(request_id = %id, %method, %path, status, elapsed_ms, "request");
            } else {
                tracing::info!(request_id = %id, %method, %path, status, elapsed_ms, "request");
            }
            Ok(res)
        }
        Err(err) => {
            tracing::warn!(request_id = %id, %method, %path, error = %err, elapsed_ms, "request failed");
            Err(err)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::{App, HttpResponse, middleware, test, web};
    use std::sync::{Arc, Mutex};

    /// A log sink the test can read back.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().map_err(|_| std::io::Error::other("poisoned"))?.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    async fn logs_after_an_await() -> HttpResponse {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        tracing::info!("handler done");
        HttpResponse::Ok().finish()
    }

    #[actix_web::test]
    async fn the_request_id_reaches_lines_logged_after_an_await() {
        let captured = Captured::default();
        let sink = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || sink.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::INFO)
            .finish();
        // The test runtime is single-threaded: the thread's default subscriber sees every poll.
        let _guard = tracing::subscriber::set_default(subscriber);
        let app = test::init_service(
            App::new().wrap(middleware::from_fn(log_requests)).route("/slow", web::get().to(logs_after_an_await)),
        )
        .await;
        let req = test::TestRequest::get().uri("/slow").insert_header((REQUEST_ID_HEADER, "req-42")).to_request();
        let res = test::call_service(&app, req).await;
        assert_eq!(res.headers().get(REQUEST_ID_HEADER).and_then(|v| v.to_str().ok()), Some("req-42"));
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let line = text.lines().find(|l| l.contains("handler done")).expect("the handler's line was logged");
        assert!(line.contains("request{id=req-42}"), "{text}");
    }
}
