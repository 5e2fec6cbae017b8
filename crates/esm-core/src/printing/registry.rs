//! The printers users can pick: the configured ones plus IPP printers announced over mDNS
//! (`_ipp._tcp`, `_ipps._tcp`). A configured printer always wins over a discovered namesake.
//!
//! Anything on the LAN can announce itself as a printer, so a discovered printer is only listed
//! until an administrator accepts it (its name and address, kept in `server.redb`) or its address
//! lies in a configured subnet (`[mdns] printer_subnets`); only then does it receive jobs or
//! questions. An accepted printer that comes back at another address needs accepting again.

use crate::config::PrinterConfig;
use crate::ip_range::IpRange;
use crate::labels::LabelType;
use mdns_sd::{ServiceDaemon, ServiceEvent};
use parking_lot::RwLock;
use serde::Serialize;
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

/// The DNS-SD service types of IPP printers.
pub const IPP_SERVICE_TYPES: [&str; 2] = ["_ipp._tcp.local.", "_ipps._tcp.local."];

/// Where a printer is known from: the configuration, or the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PrinterSource {
    Configured,
    Discovered,
}

/// A printer by name, with where to reach it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Printer {
    #[schema(example = "Zebra magazijn")]
    pub name: String,
    #[schema(example = "ipp://192.168.1.40:631/ipp/print")]
    pub uri: String,
    /// Label type names this printer holds media for; empty = any.
    pub label_types: Vec<String>,
    #[serde(skip)]
    pub insecure_tls: bool,
    pub source: PrinterSource,
    /// Whether jobs may go to it: configured printers always, discovered ones once accepted.
    pub accepted: bool,
}

impl Printer {
    /// Whether the printer is meant for `label_type` (by name or number).
    pub fn supports(&self, label_type: LabelType) -> bool {
        // Exact names or numbers only: an unknown name must not fall back to type 1 here.
        self.label_types.is_empty()
            || self
                .label_types
                .iter()
                .map(|t| t.trim())
                .any(|t| t.eq_ignore_ascii_case(label_type.name()) || t == label_type.number().to_string())
    }
}

impl From<&PrinterConfig> for Printer {
    fn from(c: &PrinterConfig) -> Self {
        Printer {
            name: c.name.clone(),
            uri: c.uri.clone(),
            label_types: c.label_types.clone(),
            insecure_tls: c.insecure_tls,
            source: PrinterSource::Configured,
            accepted: true,
        }
    }
}

/// Shared, cheap to clone; discovery updates it in the background.
#[derive(Clone, Default)]
pub struct PrinterRegistry {
    printers: Arc<RwLock<BTreeMap<String, Printer>>>,
    /// Discovered printers an administrator accepted: name → the URI accepted.
    accepted: Arc<RwLock<BTreeMap<String, String>>>,
    /// Discovered printers in these subnets need no acceptance.
    subnets: Arc<Vec<IpRange>>,
}

impl PrinterRegistry {
    pub fn from_config(printers: &[PrinterConfig]) -> PrinterRegistry {
        let map = printers.iter().map(|p| (p.name.clone(), Printer::from(p))).collect();
        PrinterRegistry { printers: Arc::new(RwLock::new(map)), ..Default::default() }
    }

    /// Adds the acceptance rules: subnets whose printers need no acceptance, and the printers
    /// accepted before (name → URI).
    pub fn with_acceptance(mut self, subnets: Vec<IpRange>, accepted: BTreeMap<String, String>) -> PrinterRegistry {
        self.subnets = Arc::new(subnets);
        *self.accepted.write() = accepted;
        self
    }

    pub fn list(&self) -> Vec<Printer> {
        self.printers.read().values().cloned().collect()
    }

    /// Any listed printer, accepted or not.
    pub fn get(&self, name: &str) -> Option<Printer> {
        self.printers.read().get(name).cloned()
    }

    /// A printer that may receive jobs and questions: configured, or discovered and accepted.
    pub fn usable(&self, name: &str) -> Option<Printer> {
        self.get(name).filter(|p| p.accepted)
    }

    fn is_accepted(&self, printer: &Printer) -> bool {
        printer.source == PrinterSource::Configured
            || self.accepted.read().get(&printer.name).is_some_and(|uri| *uri == printer.uri)
            || uri_ip(&printer.uri).is_some_and(|ip| self.subnets.iter().any(|s| s.contains(ip)))
    }

    /// Adds or refreshes a discovered printer unless a configured one has the name.
    pub fn add_discovered(&self, mut printer: Printer) {
        printer.accepted = self.is_accepted(&printer);
        let mut map = self.printers.write();
        match map.get(&printer.name) {
            Some(existing) if existing.source == PrinterSource::Configured => {}
            _ => {
                tracing::info!(name = %printer.name, uri = %printer.uri, accepted = printer.accepted, "printer discovered");
                map.insert(printer.name.clone(), printer);
            }
        }
    }

    /// Marks a discovered printer accepted at the URI it has now; answers that URI (to be kept),
    /// or `None` when no discovered printer has the name.
    pub fn accept(&self, name: &str) -> Option<String> {
        let mut map = self.printers.write();
        let printer = map.get_mut(name).filter(|p| p.source == PrinterSource::Discovered)?;
        printer.accepted = true;
        self.accepted.write().insert(name.to_string(), printer.uri.clone());
        tracing::info!(name, uri = %printer.uri, "discovered printer accepted");
        Some(printer.uri.clone())
    }

    /// Withdraws the acceptance of a discovered printer (it stays listed while announced).
    pub fn withdraw(&self, name: &str) -> bool {
        let known = self.accepted.write().remove(name).is_some();
        let mut map = self.printers.write();
        if let Some(p) = map.get_mut(name).filter(|p| p.source == PrinterSource::Discovered) {
            let still = uri_ip(&p.uri).is_some_and(|ip| self.subnets.iter().any(|s| s.contains(ip)));
            p.accepted = still;
            return true;
        }
        known
    }

    /// Forgets a discovered printer that said goodbye; configured ones stay.
    pub fn remove_discovered(&self, name: &str) {
        let mut map = self.printers.write();
        if map.get(name).is_some_and(|p| p.source == PrinterSource::Discovered) {
            map.remove(name);
        }
    }

    /// Browses for IPP printers on `daemon` until the daemon stops; runs on the tokio runtime.
    pub fn browse(&self, daemon: &ServiceDaemon) -> anyhow::Result<()> {
        for ty in IPP_SERVICE_TYPES {
            let receiver = daemon.browse(ty)?;
            let registry = self.clone();
            tokio::spawn(async move {
                while let Ok(event) = receiver.recv_async().await {
                    match event {
                        ServiceEvent::ServiceResolved(service) => {
                            if let Some(printer) = discovered_printer(
                                &service.fullname,
                                &service.ty_domain,
                                service.addresses.iter().map(|a| a.to_ip_addr()).collect(),
                                &service.host,
                                service.port,
                                service.get_property_val_str("rp"),
                            ) {
                                registry.add_discovered(printer);
                            }
                        }
                        ServiceEvent::ServiceRemoved(ty_domain, fullname) => {
                            registry.remove_discovered(&instance_name(&fullname, &ty_domain));
                        }
                        ServiceEvent::SearchStopped(_) => break,
                        _ => {}
                    }
                }
            });
        }
        Ok(())
    }
}

fn instance_name(fullname: &str, ty_domain: &str) -> String {
    fullname.strip_suffix(ty_domain).unwrap_or(fullname).trim_end_matches('.').to_string()
}

/// A printer from a resolved DNS-SD service; `rp` is the TXT resource path (default `ipp/print`).
pub fn discovered_printer(
    fullname: &str,
    ty_domain: &str,
    addresses: Vec<std::net::IpAddr>,
    host: &str,
    port: u16,
    rp: Option<&str>,
) -> Option<Printer> {
    let secure = ty_domain.starts_with("_ipps.");
    let host = match addresses.iter().find(|a| a.is_ipv4()).or_else(|| addresses.first()) {
        Some(std::net::IpAddr::V6(v6)) => format!("[{v6}]"),
        Some(ip) => ip.to_string(),
        None if !host.is_empty() => host.trim_end_matches('.').to_string(),
        None => return None,
    };
    let path = rp.unwrap_or("ipp/print").trim_start_matches('/');
    Some(Printer {
        name: instance_name(fullname, ty_domain),
        uri: format!("{}://{host}:{port}/{path}", if secure { "ipps" } else { "ipp" }),
        label_types: Vec::new(),
        // LAN printers announce self-signed certificates; no one could configure trust for them.
        insecure_tls: secure,
        source: PrinterSource::Discovered,
        accepted: false,
    })
}

/// The IP address in a printer URI's host, if it is one.
fn uri_ip(uri: &str) -> Option<IpAddr> {
    // `ipp:` is not a special scheme to the URL parser, so an IPv4 host comes back as a domain.
    let url = url::Url::parse(uri).ok()?;
    url.host_str()?.trim_start_matches('[').trim_end_matches(']').parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_printers_win_and_label_types_filter() {
        let registry = PrinterRegistry::from_config(&[PrinterConfig {
            name: "Hall".into(),
            uri: "ipp://10.0.0.9/ipp/print".into(),
            label_types: vec!["receipts".into(), "6".into(), "typo".into()],
            insecure_tls: false,
        }]);
        assert!(registry.usable("Hall").is_some(), "configured printers need no acceptance");
        let found =
            discovered_printer("Hall._ipp._tcp.local.", "_ipp._tcp.local.", vec![], "h.local.", 631, None).unwrap();
        registry.add_discovered(found);
        assert_eq!(registry.get("Hall").unwrap().source, PrinterSource::Configured);
        registry.remove_discovered("Hall");
        let hall = registry.get("Hall").unwrap();
        assert!(hall.supports(LabelType::parse("receipts").unwrap()));
        assert!(hall.supports(LabelType::parse("cnc-new").unwrap()));
        assert!(!hall.supports(LabelType::parse("electrical-x4").unwrap()));
        assert!(!hall.supports(LabelType::DEFAULT), "an unknown name is not type 1");
    }

    #[test]
    fn discovered_uri_from_service() {
        let p = discovered_printer(
            "Zebra ZD421._ipps._tcp.local.",
            "_ipps._tcp.local.",
            vec!["192.168.1.20".parse().unwrap()],
            "zebra.local.",
            8631,
            Some("ipp/print"),
        )
        .unwrap();
        assert_eq!(p.name, "Zebra ZD421");
        assert_eq!(p.uri, "ipps://192.168.1.20:8631/ipp/print");
        assert!(p.insecure_tls);
        assert!(p.supports(LabelType::DEFAULT));
    }

    fn found(name: &str, ip: &str) -> Printer {
        discovered_printer(
            &format!("{name}._ipp._tcp.local."),
            "_ipp._tcp.local.",
            vec![ip.parse().unwrap()],
            "",
            631,
            None,
        )
        .unwrap()
    }

    #[test]
    fn discovered_printers_wait_for_acceptance_at_their_address() {
        let registry = PrinterRegistry::default();
        registry.add_discovered(found("Dock", "192.168.1.20"));
        assert!(registry.get("Dock").is_some());
        assert!(registry.usable("Dock").is_none(), "announced is not accepted");
        assert_eq!(registry.accept("Dock").as_deref(), Some("ipp://192.168.1.20:631/ipp/print"));
        assert!(registry.usable("Dock").is_some());
        // Announced again from the same address: still accepted; from another: not.
        registry.add_discovered(found("Dock", "192.168.1.20"));
        assert!(registry.usable("Dock").is_some());
        registry.add_discovered(found("Dock", "192.168.1.66"));
        assert!(registry.usable("Dock").is_none(), "a namesake at another address is not the accepted printer");
        assert!(registry.accept("Nope").is_none());
        registry.accept("Dock");
        assert!(registry.withdraw("Dock"));
        assert!(registry.usable("Dock").is_none());
    }

    #[test]
    fn subnets_accept_without_an_administrator() {
        let subnets = vec![IpRange::parse("10.1.2.0/24").unwrap(), IpRange::parse("fd00::/8").unwrap()];
        let registry = PrinterRegistry::default().with_acceptance(subnets, BTreeMap::new());
        registry.add_discovered(found("In", "10.1.2.77"));
        registry.add_discovered(found("Out", "10.1.3.77"));
        registry.add_discovered(found("Six", "fd12::5"));
        assert!(registry.usable("In").is_some());
        assert!(registry.usable("Out").is_none());
        assert!(registry.usable("Six").is_some());
        let kept = PrinterRegistry::default().with_acceptance(
            vec![],
            BTreeMap::from([("Out".to_string(), "ipp://10.1.3.77:631/ipp/print".to_string())]),
        );
        kept.add_discovered(found("Out", "10.1.3.77"));
        assert!(kept.usable("Out").is_some(), "an acceptance kept from before holds");
    }
}
