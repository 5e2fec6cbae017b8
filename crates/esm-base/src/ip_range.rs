//! IP addresses and CIDR ranges from the configuration: trusted proxies, printer subnets.

use std::net::IpAddr;

/// An address or a CIDR range (`10.0.0.0/8`, `fd00::/8`, `127.0.0.1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpRange {
    net: IpAddr,
    prefix: u8,
}

impl IpRange {
    pub fn parse(text: &str) -> Result<IpRange, String> {
        let (addr, prefix) = match text.trim().split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (text.trim(), None),
        };
        let net: IpAddr = addr.parse().map_err(|_| "is not an IP address or CIDR range".to_string())?;
        let max = if net.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) => p.parse::<u8>().ok().filter(|p| *p <= max).ok_or(format!("has a prefix length over {max}"))?,
            None => max,
        };
        Ok(IpRange { net: net.to_canonical(), prefix })
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.net, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(self.prefix)).unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX.checked_shl(128 - u32::from(self.prefix)).unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

/// The proxies whose forwarded headers count.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Vec<IpRange>);

impl TrustedProxies {
    /// From the configuration (already validated; an entry that does not parse trusts nothing).
    pub fn from_config(entries: &[String]) -> Self {
        TrustedProxies(entries.iter().filter_map(|e| IpRange::parse(e).ok()).collect())
    }

    pub fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|r| r.contains(ip))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_match_addresses() {
        let r = IpRange::parse("10.0.0.0/8").unwrap();
        assert!(r.contains("10.200.1.1".parse().unwrap()));
        assert!(!r.contains("11.0.0.1".parse().unwrap()));
        assert!(r.contains("::ffff:10.0.0.1".parse().unwrap()), "IPv4-mapped peers count as IPv4");
        assert!(IpRange::parse("0.0.0.0/0").unwrap().contains("8.8.8.8".parse().unwrap()));
        assert!(IpRange::parse("127.0.0.1").unwrap().contains("127.0.0.1".parse().unwrap()));
        assert!(!IpRange::parse("127.0.0.1").unwrap().contains("127.0.0.2".parse().unwrap()));
        assert!(IpRange::parse("fd00::/8").unwrap().contains("fd12::1".parse().unwrap()));
        assert!(IpRange::parse("10.0.0.0/33").is_err());
        assert!(IpRange::parse("esm.lan").is_err());
    }
}
