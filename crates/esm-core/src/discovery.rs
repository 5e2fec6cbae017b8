//! mDNS on the LAN: announce this server so handhelds find it, and (for printing) browse for
//! IPP printers. One daemon per process, shared.

use crate::config::MdnsConfig;
use anyhow::{Context, Result};
use mdns_sd::{IfKind, ServiceDaemon, ServiceInfo};
use std::time::Duration;

/// The running mDNS daemon and the service it announces.
pub struct Discovery {
    daemon: ServiceDaemon,
    announced: Option<String>,
}

/// The DNS-SD service type of the server, by scheme.
pub fn service_type(tls: bool) -> &'static str {
    if tls { "_https._tcp.local." } else { "_http._tcp.local." }
}

/// "Stock Manager on {host}" unless configured otherwise.
pub fn instance_name(config: &MdnsConfig) -> String {
    config.instance_name.clone().unwrap_or_else(|| format!("{} on {}", crate::PRODUCT_NAME, short_hostname()))
}

fn short_hostname() -> String {
    hostname::get()
        .ok()
        .map(|h| h.to_string_lossy().split('.').next().unwrap_or("").to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}

impl Discovery {
    /// Starts the daemon (on loopback only when configured so) and announces the server on `port`.
    pub fn announce(config: &MdnsConfig, port: u16, tls: bool) -> Result<Discovery> {
        let daemon = ServiceDaemon::new().context("starting the mDNS daemon")?;
        if config.loopback_only {
            daemon.disable_interface(IfKind::All).context("mDNS: restricting interfaces")?;
            daemon.enable_interface(IfKind::LoopbackV4).context("mDNS: enabling loopback")?;
        }
        let host = short_hostname();
        let name = instance_name(config);
        let properties = [("path", "/"), ("version", crate::VERSION), ("product", "stock-manager")];
        let addrs = if config.loopback_only { "127.0.0.1" } else { "" };
        let mut info =
            ServiceInfo::new(service_type(tls), &name, &format!("{host}.local."), addrs, port, &properties[..])
                .context("mDNS: building the service record")?;
        if !config.loopback_only {
            info = info.enable_addr_auto();
        }
        let fullname = info.get_fullname().to_string();
        daemon.register(info).context("mDNS: registering the service")?;
        tracing::info!(service = %fullname, port, "announced on mDNS");
        Ok(Discovery { daemon, announced: Some(fullname) })
    }

    /// The daemon, for browsing (e.g. `_ipp._tcp.local.` printers).
    pub fn daemon(&self) -> &ServiceDaemon {
        &self.daemon
    }

    /// Withdraws the announcement (a goodbye packet) and stops the daemon.
    pub fn withdraw(mut self) {
        if let Some(fullname) = self.announced.take() {
            match self.daemon.unregister(&fullname) {
                Ok(rx) => {
                    let _ = rx.recv_timeout(Duration::from_secs(2));
                    tracing::info!(service = %fullname, "withdrawn from mDNS");
                }
                Err(e) => tracing::warn!(error = %e, "mDNS: could not withdraw the service"),
            }
        }
        if let Ok(rx) = self.daemon.shutdown() {
            let _ = rx.recv_timeout(Duration::from_secs(2));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_scheme_and_config() {
        assert_eq!(service_type(false), "_http._tcp.local.");
        assert_eq!(service_type(true), "_https._tcp.local.");
        let cfg = MdnsConfig { instance_name: Some("Hall 2".into()), loopback_only: true, ..MdnsConfig::default() };
        assert_eq!(instance_name(&cfg), "Hall 2");
        let cfg = MdnsConfig { instance_name: None, ..cfg };
        assert!(instance_name(&cfg).starts_with("Stock Manager on "));
    }
}
