//! Request bodies must keep coming: a client that opens a request and then sends its body a byte
//! at a time holds a connection (a file descriptor, a buffer) for as long as it likes, and a
//! thousand of them starved the server of descriptors. Every body therefore gets a time budget:
//! `BODY_GRACE` to start, plus one second per `BODY_MIN_RATE` bytes received, and never more than
//! `BODY_DEADLINE` in all. A body that falls behind ends with a timeout error, which its extractor
//! answers 408 `request_timeout`, and the connection closes with it (its body was not read to
//! the end). Headers have actix's own deadline (`client_request_timeout`).

use crate::limits::{BODY_DEADLINE, BODY_GRACE, BODY_MIN_RATE};
use actix_web::HttpMessage;
use actix_web::body::MessageBody;
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::header;
use actix_web::middleware::Next;
use bytes::Bytes;
use futures_util::Stream;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::{Instant, Sleep};

/// The kind of I/O error a body that fell behind ends with.
pub const TOO_SLOW: std::io::ErrorKind = std::io::ErrorKind::TimedOut;

/// Middleware of the whole app: paces every request that has a body.
pub async fn pace(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    if has_body(&req) {
        let inner = req.take_payload();
        req.set_payload(Payload::Stream { payload: Box::pin(Paced::new(inner, Instant::now())) });
    }
    next.call(req).await
}

fn has_body(req: &ServiceRequest) -> bool {
    let headers = req.headers();
    headers.contains_key(header::TRANSFER_ENCODING)
        || headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .is_some_and(|n| n > 0)
}

/// A body stream with a time budget that grows with what arrives.
struct Paced {
    inner: Payload,
    started: Instant,
    received: u64,
    timer: Pin<Box<Sleep>>,
    ended: bool,
}

impl Paced {
    fn new(inner: Payload, started: Instant) -> Self {
        let timer = Box::pin(tokio::time::sleep_until(budget_end(started, 0)));
        Paced { inner, started, received: 0, timer, ended: false }
    }
}

/// When a body that started at `started` and has `received` bytes so far runs out of time.
fn budget_end(started: Instant, received: u64) -> Instant {
    let earned = Duration::from_secs_f64(received as f64 / BODY_MIN_RATE as f64);
    started + (BODY_GRACE + earned).min(BODY_DEADLINE)
}

impl Stream for Paced {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.ended {
            return Poll::Ready(None);
        }
        match Pin::new(&mut self.inner).poll_next(cx) {
            Poll::Ready(Some(Ok(chunk))) => {
                self.received += chunk.len() as u64;
                let end = budget_end(self.started, self.received);
                self.timer.as_mut().reset(end);
                return Poll::Ready(Some(Ok(chunk)));
            }
            Poll::Ready(other) => return Poll::Ready(other),
            Poll::Pending => {}
        }
        match self.timer.as_mut().poll(cx) {
            Poll::Ready(()) => {
                self.ended = true;
                let io = std::io::Error::new(TOO_SLOW, "the request body arrived too slowly");
                Poll::Ready(Some(Err(PayloadError::Io(io))))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Whether a body read failed because the body fell behind its time budget.
pub fn too_slow(e: &PayloadError) -> bool {
    matches!(e, PayloadError::Io(io) if io.kind() == TOO_SLOW)
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;

    fn paced(chunks: Vec<(u64, usize)>) -> Paced {
        // each chunk arrives `ms` after the previous one
        let stream = futures_util::stream::iter(chunks).then(|(ms, len)| async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok::<Bytes, PayloadError>(Bytes::from(vec![b'x'; len]))
        });
        Paced::new(Payload::Stream { payload: Box::pin(stream) }, Instant::now())
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_keeps_coming_is_read_whole() {
        // past the grace, every second paid for by the bytes before it
        let rate = BODY_MIN_RATE as usize;
        let chunks = vec![(5_000, rate * 20), (20_000, rate * 2), (1_000, rate)];
        let read: Vec<_> = paced(chunks).collect().await;
        assert!(read.iter().all(Result::is_ok), "{read:?}");
        assert_eq!(read.len(), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn a_trickle_is_cut_after_the_grace() {
        let chunks = (0..100).map(|_| (1_000, 1)).collect();
        let started = Instant::now();
        let read: Vec<_> = paced(chunks).collect().await;
        let last = read.last().expect("something");
        assert!(matches!(last, Err(e) if too_slow(e)), "{last:?}");
        let took = started.elapsed();
        assert!(took >= BODY_GRACE && took < BODY_GRACE + Duration::from_secs(2), "{took:?}");
        assert!(read.len() < 100, "cut before the end");
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_never_starts_is_cut_at_the_grace() {
        let read: Vec<_> = paced(vec![(3_600_000, 1)]).collect().await;
        assert!(matches!(read.as_slice(), [Err(e)] if too_slow(e)), "{read:?}");
    }

    #[test]
    fn no_body_however_fast_takes_longer_than_the_deadline() {
        let start = Instant::now();
        assert_eq!(budget_end(start, u64::MAX / 2), start + BODY_DEADLINE);
        assert_eq!(budget_end(start, 0), start + BODY_GRACE);
    }
}
