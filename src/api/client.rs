//! Who is asking: the client's address, the scheme and the host a request came in on. The one
//! place that reads `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Forwarded-Host`, and only
//! believes them when the direct peer is one of `[server] trusted_proxies` (none by default):
//! anyone else could write them to pick their own throttle key or origin.

use crate::state::AppState;
use actix_web::http::header::{HOST, HeaderMap, HeaderName};
use actix_web::{HttpRequest, web};
use std::net::IpAddr;

pub use crate::ip_range::{IpRange, TrustedProxies};

const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
const X_FORWARDED_PROTO: HeaderName = HeaderName::from_static("x-forwarded-proto");
const X_FORWARDED_HOST: HeaderName = HeaderName::from_static("x-forwarded-host");

/// What the server knows about the client of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientInfo {
    /// The client's address: the peer, or what a trusted proxy says the client was.
    pub ip: Option<IpAddr>,
    /// `http` or `https`, as the browser reached the server (or the trusted proxy).
    pub scheme: String,
    /// The host (and port) the browser asked for.
    pub host: String,
}

impl ClientInfo {
    /// The client of a request, trusting the proxies of the server's configuration.
    pub fn of(req: &HttpRequest) -> ClientInfo {
        match req.app_data::<web::Data<AppState>>() {
            Some(state) => Self::resolve(req, &state.proxies),
            None => Self::resolve(req, &TrustedProxies::default()),
        }
    }

    /// The client of a request, given which proxies to trust.
    pub fn resolve(req: &HttpRequest, proxies: &TrustedProxies) -> ClientInfo {
        let peer = req.peer_addr().map(|a| a.ip().to_canonical());
        let own_scheme = if req.app_config().secure() { "https" } else { "http" };
        let own_host = header(req.headers(), &HOST)
            .map(str::to_string)
            .or_else(|| req.uri().authority().map(|a| a.to_string()))
            .unwrap_or_else(|| req.app_config().host().to_string());
        let mut info = ClientInfo { ip: peer, scheme: own_scheme.to_string(), host: own_host };
        let Some(peer) = peer.filter(|p| proxies.trusts(*p)) else { return info };
        info.ip = Some(forwarded_client(req.headers(), peer, proxies));
        if let Some(proto) = header(req.headers(), &X_FORWARDED_PROTO).map(first_value)
            && matches!(proto.to_ascii_lowercase().as_str(), "http" | "https")
        {
            info.scheme = proto.to_ascii_lowercase();
        }
        if let Some(host) = header(req.headers(), &X_FORWARDED_HOST).map(first_value).filter(|h| !h.is_empty()) {
            info.host = host.to_string();
        }
        info
    }
}

fn header<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The first of a comma-separated list (a chain of proxies may each add one).
fn first_value(value: &str) -> &str {
    value.split(',').next().unwrap_or("").trim()
}

/// Walks `X-Forwarded-For` from the nearest hop back: the first address that is not a trusted
/// proxy is the client (addresses further left were written by whoever that client was). A
/// malformed entry stops the walk at the last address a trusted proxy vouched for.
fn forwarded_client(headers: &HeaderMap, peer: IpAddr, proxies: &TrustedProxies) -> IpAddr {
    let chain: Vec<&str> = headers
        .get_all(&X_FORWARDED_FOR)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let mut client = peer;
    for hop in chain.iter().rev() {
        if !proxies.trusts(client) {
            break;
        }
        match parse_hop(hop) {
            Some(ip) => client = ip,
            None => break,
        }
    }
    client
}

/// An address as proxies write it: `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1` or `[2001:db8::1]:80`.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    if let Ok(ip) = hop.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    hop.parse::<std::net::SocketAddr>().ok().map(|a| a.ip().to_canonical())
}

/// Where the provider sends the browser back: `{public_url}/callback`, else this server as the
/// browser reached it.
pub(crate) fn callback_url(public_url: Option<&str>, req: &HttpRequest) -> String {
    let base = match public_url {
        Some(url) => url.trim_end_matches('/').to_string(),
        None => {
            let client = ClientInfo::of(req);
            format!("{}://{}", client.scheme, client.host)
        }
    };
    format!("{base}/callback")
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn proxies(list: &[&str]) -> TrustedProxies {
        TrustedProxies::from_config(&list.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    fn from(peer: &str, headers: &[(&str, &str)]) -> HttpRequest {
        let mut r = TestRequest::get().uri("/api/v1/health").peer_addr(peer.parse().unwrap());
        r = r.insert_header(("host", "esm.lan:8080"));
        for (k, v) in headers {
            r = r.append_header((*k, *v));
        }
        r.to_http_request()
    }

    const FORWARDED: &[(&str, &str)] = &[
        ("x-forwarded-for", "203.0.113.7, 10.1.2.3"),
        ("x-forwarded-proto", "https"),
        ("x-forwarded-host", "esm.factory.lan"),
    ];

    #[test]
    fn by_default_forwarded_headers_do_not_count() {
        let info = ClientInfo::resolve(&from("10.1.2.3:5000", FORWARDED), &TrustedProxies::default());
        assert_eq!(info.ip, Some("10.1.2.3".parse().unwrap()));
        assert_eq!(info.scheme, "http");
        assert_eq!(info.host, "esm.lan:8080");
    }

    #[test]
    fn a_trusted_proxy_names_the_client_scheme_and_host() {
        let info = ClientInfo::resolve(&from("127.0.0.1:5000", FORWARDED), &proxies(&["127.0.0.1", "10.0.0.0/8"]));
        assert_eq!(info.ip, Some("203.0.113.7".parse().unwrap()), "both hops are trusted proxies");
        assert_eq!(info.scheme, "https");
        assert_eq!(info.host, "esm.factory.lan");
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_writes() {
        let info = ClientInfo::resolve(&from("192.0.2.9:5000", FORWARDED), &proxies(&["127.0.0.1"]));
        assert_eq!(info.ip, Some("192.0.2.9".parse().unwrap()));
        assert_eq!((info.scheme.as_str(), info.host.as_str()), ("http", "esm.lan:8080"));
    }

    #[test]
    fn addresses_a_client_prepends_are_not_believed() {
        // The proxy appends the address it saw; what the client wrote stays to its left.
        let req = from("127.0.0.1:5000", &[("x-forwarded-for", "1.1.1.1, 198.51.100.4")]);
        let info = ClientInfo::resolve(&req, &proxies(&["127.0.0.1"]));
        assert_eq!(info.ip, Some("198.51.100.4".parse().unwrap()));
        let garbage = from("127.0.0.1:5000", &[("x-forwarded-for", "nonsense")]);
        assert_eq!(ClientInfo::resolve(&garbage, &proxies(&["127.0.0.1"])).ip, Some("127.0.0.1".parse().unwrap()));
        let ported = from("127.0.0.1:5000", &[("x-forwarded-for", "[2001:db8::5]:4431")]);
        assert_eq!(ClientInfo::resolve(&ported, &proxies(&["127.0.0.1"])).ip, Some("2001:db8::5".parse().unwrap()));
    }

    #[test]
    fn only_http_and_https_are_schemes() {
        let req = from("127.0.0.1:5000", &[("x-forwarded-proto", "javascript")]);
        assert_eq!(ClientInfo::resolve(&req, &proxies(&["127.0.0.1"])).scheme, "http");
    }
}
