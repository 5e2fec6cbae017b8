//! Whether a request's client is still there. actix-web drops a handler whose HTTP/2 stream was
//! reset, but not an HTTP/1 handler whose client closed its connection (actix-web issues 1313,
//! 3462): a live read of Exact Online would go on for minutes for nobody, holding one of its
//! user's read places (`read_slots`) and a share of the organization's call budget.
//!
//! So each connection keeps a duplicate of its socket (`record`, on connect; one more descriptor
//! per connection, which `server::connection_limit` counts), and [`unless_gone`] runs a handler's
//! work until it ends or the socket says the peer hung up, whichever comes first: dropping the
//! work stops it (a live read's `Abandon` aborts the read).
//!
//! The socket is only peeked at, never read: a byte waiting (a pipelined request, a TLS record)
//! means the client is there; end of stream or a reset means it is gone. A client that shuts down
//! only its sending half and still waits for the answer counts as gone; no browser or handheld
//! does that.

use crate::error::{AppError, AppResult, Code};
use actix_web::HttpRequest;
use actix_web::dev::Extensions;
use actix_web::rt::net::TcpStream;
use std::any::Any;
use std::future::Future;
use std::time::Duration;

/// How often a waiting handler looks whether its client hung up.
pub const CHECK_EVERY: Duration = Duration::from_millis(250);

/// The duplicate of a connection's socket, kept in the connection's data.
pub struct PeerSocket(std::net::TcpStream);

type TlsStream = actix_tls::accept::rustls_0_23::TlsStream<TcpStream>;

/// `HttpServer::on_connect`: keeps a duplicate of the connection's socket, plain or under TLS.
/// Without one (a platform without descriptors to duplicate, or none left) the connection works
/// as before and its handlers run to their end.
pub fn record(conn: &dyn Any, data: &mut Extensions) {
    let tcp = if let Some(tcp) = conn.downcast_ref::<TcpStream>() {
        tcp
    } else if let Some(tls) = conn.downcast_ref::<TlsStream>() {
        tls.get_ref().0
    } else {
        return;
    };
    if let Some(socket) = duplicate(tcp) {
        data.insert(PeerSocket(socket));
    }
}

#[cfg(unix)]
fn duplicate(tcp: &TcpStream) -> Option<std::net::TcpStream> {
    use std::os::fd::AsFd;
    let socket = std::net::TcpStream::from(tcp.as_fd().try_clone_to_owned().ok()?);
    // Shared with the original on Unix (one open file): peeking must never block a worker.
    socket.set_nonblocking(true).ok()?;
    Some(socket)
}

#[cfg(windows)]
fn duplicate(tcp: &TcpStream) -> Option<std::net::TcpStream> {
    use std::os::windows::io::AsSocket;
    let socket = std::net::TcpStream::from(tcp.as_socket().try_clone_to_owned().ok()?);
    socket.set_nonblocking(true).ok()?;
    Some(socket)
}

#[cfg(not(any(unix, windows)))]
fn duplicate(_: &TcpStream) -> Option<std::net::TcpStream> {
    None
}

impl PeerSocket {
    /// The peer closed its end or reset the connection.
    fn hung_up(&self) -> bool {
        let mut byte = [0u8; 1];
        match self.0.peek(&mut byte) {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => !matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted),
        }
    }

    /// Resolves once the peer hung up.
    async fn gone(&self) {
        let mut every = tokio::time::interval(CHECK_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            if self.hung_up() {
                return;
            }
        }
    }
}

/// Runs `work` until it ends or the client of `req` hangs up; then the work is dropped (stopped)
/// and the answer, which nobody reads, is a 408 for the log.
pub async fn unless_gone<T>(req: &HttpRequest, work: impl Future<Output = AppResult<T>>) -> AppResult<T> {
    let Some(peer) = req.conn_data::<PeerSocket>() else { return work.await };
    tokio::select! {
        answer = work => answer,
        () = peer.gone() => {
            tracing::info!(path = %req.path(), "the client went away: its read of Exact Online stopped");
            Err(AppError::with_message(Code::RequestTimeout, "The client went away before the answer"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    async fn pair() -> (TcpStream, TcpStream) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (client, accepted) = tokio::join!(TcpStream::connect(addr), listener.accept());
        (client.expect("connect"), accepted.expect("accept").0)
    }

    #[tokio::test]
    async fn a_peer_that_waits_or_sends_is_there_and_one_that_closed_is_gone() {
        let (mut client, server) = pair().await;
        let peer = PeerSocket(duplicate(&server).expect("a duplicate"));
        assert!(!peer.hung_up(), "connected, nothing sent");
        client.write_all(b"GET / HTTP/1.1\r\n\r\n").await.expect("write");
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!peer.hung_up(), "a pipelined request waiting is no hang-up");
        // peeking left the bytes for their reader
        let mut buf = [0u8; 64];
        server.readable().await.expect("readable");
        assert_eq!(server.try_read(&mut buf).expect("read"), 18);
        drop(client);
        tokio::time::timeout(Duration::from_secs(2), peer.gone()).await.expect("the hang-up is seen");
    }

    #[test]
    fn a_connection_that_is_not_a_socket_keeps_nothing() {
        let mut data = Extensions::new();
        record(&42u8, &mut data);
        assert!(data.get::<PeerSocket>().is_none());
    }
}
