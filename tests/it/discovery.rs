//! mDNS: the server announces itself and withdraws on shutdown, seen by a real mDNS browser.

use crate::support::TestServer;
use mdns_sd::{IfKind, ServiceDaemon, ServiceEvent};
use std::time::{Duration, Instant};
use stock_manager::server::StartOptions;

#[actix_web::test]
async fn server_is_announced_and_withdrawn() {
    let name = format!("ESM test {}", std::process::id());
    let instance = name.clone();
    let s = TestServer::start_with(
        move |c| {
            c.mdns.enabled = true;
            c.mdns.loopback_only = true;
            c.mdns.instance_name = Some(instance);
        },
        StartOptions::default(),
    )
    .await;
    let port = s.running.as_ref().unwrap().addr.port();

    let browser = ServiceDaemon::new().unwrap();
    browser.disable_interface(IfKind::All).unwrap();
    browser.enable_interface(IfKind::LoopbackV4).unwrap();
    let rx = browser.browse("_http._tcp.local.").unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut resolved = None;
    while Instant::now() < deadline {
        if let Ok(ServiceEvent::ServiceResolved(info)) = rx.recv_timeout(Duration::from_millis(500))
            && info.get_fullname().starts_with(&name)
        {
            resolved = Some(info);
            break;
        }
    }
    let info = resolved.expect("the server was resolved over mDNS");
    assert_eq!(info.get_port(), port);
    assert_eq!(info.txt_properties.get_property_val_str("version"), Some(stock_manager::VERSION));
    assert_eq!(info.txt_properties.get_property_val_str("path"), Some("/"));

    s.stop().await;
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut removed = false;
    while Instant::now() < deadline {
        if let Ok(ServiceEvent::ServiceRemoved(_, fullname)) = rx.recv_timeout(Duration::from_millis(500))
            && fullname.starts_with(&name)
        {
            removed = true;
            break;
        }
    }
    let _ = browser.shutdown();
    assert!(removed, "the announcement was withdrawn on shutdown");
}
