//! Clients that open requests and send their bodies slowly, or never: the server keeps answering
//! others, and cuts them loose (issue 33: 1,000 slow anonymous uploads had used up its file
//! descriptors and `/health` timed out).

use crate::support::TestServer;
use std::time::{Duration, Instant};
use stock_manager::limits::BODY_GRACE;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const SLOW_UPLOADS: usize = 1000;

#[actix_web::test]
async fn a_thousand_slow_uploads_leave_health_answering_and_are_cut_loose() {
    let server = TestServer::start().await;
    let addr = server.running.as_ref().expect("running").addr;
    // A sign-in's body (public, same origin so that nothing refuses it before it is read) that
    // starts and then stops coming.
    let head = format!(
        "POST /api/v1/auth/authorize HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\n\
         Content-Type: application/json\r\nContent-Length: 4000\r\n\r\n{{\"code\":\""
    );
    let started = Instant::now();
    let mut slow = Vec::with_capacity(SLOW_UPLOADS);
    for _ in 0..SLOW_UPLOADS {
        let mut s = TcpStream::connect(addr).await.expect("connects");
        s.write_all(head.as_bytes()).await.expect("sends the head");
        slow.push(s);
    }
    // Everyone else is still served, at once.
    let asked = Instant::now();
    let health = server.client.get(server.at("/api/v1/health")).timeout(Duration::from_secs(5)).send().await;
    assert_eq!(
        health.map(|r| r.status().as_u16()).ok(),
        Some(200),
        "health answers beside {SLOW_UPLOADS} slow uploads"
    );
    assert!(asked.elapsed() < Duration::from_secs(2), "and quickly: {:?}", asked.elapsed());

    // Past the grace every one of them is answered 408 and its connection closed.
    let mut answered = 0;
    for s in &mut slow {
        let mut reply = Vec::new();
        let read = tokio::time::timeout(BODY_GRACE + Duration::from_secs(20), s.read_to_end(&mut reply)).await;
        assert!(read.is_ok(), "a slow upload is cut loose");
        if String::from_utf8_lossy(&reply).starts_with("HTTP/1.1 408") {
            answered += 1;
        }
    }
    assert_eq!(answered, SLOW_UPLOADS, "each hears why");
    assert!(started.elapsed() >= BODY_GRACE, "not before the grace");
    // And the server goes on.
    let health = server.client.get(server.at("/api/v1/health")).send().await.expect("answers");
    assert_eq!(health.status(), 200);
    server.stop().await;
}
