//! DNS-rebinding defence: a page on another site can point its own name at 127.0.0.1 and then
//! talk to this server as "same origin". Such requests still carry the attacker's name in `Host`
//! (and, for writes, in `Origin`), so only names that really mean this server are answered.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

use super::envelope::rejection;
use super::log;

/// The `Host` names (and ports) this server answers to.
#[derive(Debug, Clone)]
pub struct AllowedHosts {
    port: u16,
    /// Names valid with the server's port: the loopback names and the bound address.
    local: Vec<String>,
    /// `--allow-host` entries: a name with any port, or with the one given.
    extra: Vec<(String, Option<u16>)>,
    /// Bound to every interface (0.0.0.0 / [::]): clients use one of the machine's addresses,
    /// which we cannot list portably. An IP literal cannot be rebound (rebinding needs a name the
    /// attacker controls), so any IP literal with our port is accepted; names need --allow-host.
    any_ip: bool,
}

impl AllowedHosts {
    /// `addr` is the address actually bound (its port resolved when 0 was asked for).
    pub fn new(addr: SocketAddr, allow: &[String]) -> AllowedHosts {
        let mut local = vec![
            "localhost".to_string(),
            "127.0.0.1".to_string(),
            "[::1]".to_string(),
        ];
        let ip = addr.ip();
        if !ip.is_unspecified() {
            local.push(host_of_ip(ip));
        }
        let extra = allow
            .iter()
            .filter_map(|a| {
                let (name, port) = split_host_port(a.trim())?;
                Some((normalise(name), port))
            })
            .collect();
        AllowedHosts {
            port: addr.port(),
            local,
            extra,
            any_ip: ip.is_unspecified(),
        }
    }

    /// Whether `authority` (a `Host` value, `name[:port]`) names this server; `default_port`
    /// stands in when it has none (80 for plain HTTP).
    fn allows(&self, authority: &str, default_port: u16) -> bool {
        let Some((name, port)) = split_host_port(authority) else {
            return false;
        };
        let name = normalise(name);
        let port = port.unwrap_or(default_port);
        if self
            .extra
            .iter()
            .any(|(n, p)| *n == name && p.is_none_or(|p| p == port))
        {
            return true;
        }
        if port != self.port {
            return false;
        }
        self.local.contains(&name) || (self.any_ip && is_ip_literal(&name))
    }

    /// `Origin` is `scheme://authority` or `null` (sandboxed frames, files): only ours pass.
    fn allows_origin(&self, origin: &str) -> bool {
        let (scheme, rest) = match origin.split_once("://") {
            Some(v) => v,
            None => return false,
        };
        let default_port = match scheme.to_ascii_lowercase().as_str() {
            "http" => 80,
            // A TLS proxy in front (its name given with --allow-host).
            "https" => 443,
            _ => return false,
        };
        !rest.contains('/') && self.allows(rest, default_port)
    }

    /// The reason a request is refused, or `None` when it may go on.
    pub fn refusal(&self, req: &Request) -> Option<String> {
        let host = req
            .uri()
            .authority()
            .map(|a| a.as_str().to_string())
            .or_else(|| {
                req.headers()
                    .get(header::HOST)
                    .and_then(|h| h.to_str().ok())
                    .map(str::to_string)
            });
        let Some(host) = host else {
            return Some("the request has no Host header".into());
        };
        if !self.allows(&host, 80) {
            return Some(format!(
                "Host {host:?} does not name this server (use localhost:{port} or 127.0.0.1:{port}, or start the server with --allow-host NAME)",
                port = self.port
            ));
        }
        if !is_safe(req.method()) {
            if let Some(origin) = req.headers().get(header::ORIGIN) {
                let origin = origin.to_str().unwrap_or("");
                if !self.allows_origin(origin) {
                    return Some(format!(
                        "a {} from the page at Origin {origin:?} is not accepted: only pages served by this server may change data",
                        req.method()
                    ));
                }
            }
        }
        None
    }
}

fn is_safe(m: &Method) -> bool {
    matches!(*m, Method::GET | Method::HEAD | Method::OPTIONS)
}

fn host_of_ip(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    }
}

fn normalise(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    match lower.strip_suffix('.') {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => lower,
    }
}

fn is_ip_literal(name: &str) -> bool {
    match name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
        Some(v6) => v6.parse::<std::net::Ipv6Addr>().is_ok(),
        None => name.parse::<std::net::Ipv4Addr>().is_ok(),
    }
}

/// `name[:port]` or `[v6][:port]`; `None` when empty or the port is not a number.
fn split_host_port(s: &str) -> Option<(&str, Option<u16>)> {
    if s.is_empty() || s.contains(['/', '@', ' ']) {
        return None;
    }
    let (name, port) = if s.starts_with('[') {
        let end = s.find(']')?;
        let (name, rest) = s.split_at(end + 1);
        match rest {
            "" => (name, None),
            r => (name, Some(r.strip_prefix(':')?)),
        }
    } else {
        match s.rsplit_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (s, None),
        }
    };
    if name.is_empty() {
        return None;
    }
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => None,
    };
    Some((name, port))
}

pub async fn guard(State(allowed): State<Arc<AllowedHosts>>, req: Request, next: Next) -> Response {
    match allowed.refusal(&req) {
        None => next.run(req).await,
        Some(why) => {
            log(&format!(
                "refused {} {}: {why}",
                req.method(),
                req.uri().path()
            ));
            rejection(StatusCode::FORBIDDEN, why)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(bind: &str, allow: &[&str]) -> AllowedHosts {
        let allow: Vec<String> = allow.iter().map(|s| s.to_string()).collect();
        AllowedHosts::new(bind.parse().unwrap(), &allow)
    }

    fn req(method: &str, host: Option<&str>, origin: Option<&str>) -> Request {
        let mut b = Request::builder().method(method).uri("/api/v1/agents");
        if let Some(h) = host {
            b = b.header(header::HOST, h);
        }
        if let Some(o) = origin {
            b = b.header(header::ORIGIN, o);
        }
        b.body(axum::body::Body::empty()).unwrap()
    }

    #[test]
    fn loopback_names_with_our_port_pass_and_foreign_names_do_not() {
        let h = hosts("127.0.0.1:7777", &[]);
        for ok in [
            "localhost:7777",
            "127.0.0.1:7777",
            "[::1]:7777",
            "LOCALHOST.:7777",
        ] {
            assert!(h.refusal(&req("GET", Some(ok), None)).is_none(), "{ok}");
        }
        for bad in [
            "evil.example:7777",
            "localhost:8080",
            "localhost",
            "127.0.0.1.evil.example:7777",
            "",
            "localhost:77x",
            "user@localhost:7777",
        ] {
            assert!(h.refusal(&req("GET", Some(bad), None)).is_some(), "{bad}");
        }
        assert!(h.refusal(&req("GET", None, None)).is_some());
    }

    #[test]
    fn port_80_may_be_left_out() {
        let h = hosts("127.0.0.1:80", &[]);
        assert!(h.refusal(&req("GET", Some("localhost"), None)).is_none());
    }

    #[test]
    fn allow_host_adds_a_name_with_any_or_one_port() {
        let h = hosts("127.0.0.1:7777", &["oryx.lan", "proxy.example:8443"]);
        assert!(h
            .refusal(&req("GET", Some("oryx.lan:7777"), None))
            .is_none());
        assert!(h.refusal(&req("GET", Some("oryx.lan"), None)).is_none());
        assert!(h
            .refusal(&req("GET", Some("proxy.example:8443"), None))
            .is_none());
        assert!(h
            .refusal(&req("GET", Some("proxy.example:9000"), None))
            .is_some());
    }

    #[test]
    fn every_interface_accepts_ip_literals_but_not_names() {
        let h = hosts("0.0.0.0:7777", &[]);
        assert!(h
            .refusal(&req("GET", Some("192.168.1.20:7777"), None))
            .is_none());
        assert!(h
            .refusal(&req("GET", Some("[fe80::1]:7777"), None))
            .is_none());
        assert!(h
            .refusal(&req("GET", Some("my-box.local:7777"), None))
            .is_some());
        assert!(h
            .refusal(&req("GET", Some("192.168.1.20:8000"), None))
            .is_some());
        let bound = hosts("192.168.1.20:7777", &[]);
        assert!(bound
            .refusal(&req("GET", Some("192.168.1.20:7777"), None))
            .is_none());
        assert!(bound
            .refusal(&req("GET", Some("10.0.0.1:7777"), None))
            .is_some());
    }

    #[test]
    fn writes_need_no_origin_or_our_own() {
        let h = hosts("127.0.0.1:7777", &[]);
        let host = Some("127.0.0.1:7777");
        assert!(h.refusal(&req("POST", host, None)).is_none());
        assert!(h
            .refusal(&req("POST", host, Some("http://127.0.0.1:7777")))
            .is_none());
        assert!(h
            .refusal(&req("PUT", host, Some("http://localhost:7777")))
            .is_none());
        for bad in [
            "http://evil.example",
            "http://127.0.0.1:8080",
            "null",
            "file://",
            "http://localhost:7777/x",
        ] {
            assert!(h.refusal(&req("POST", host, Some(bad))).is_some(), "{bad}");
        }
        // Reads are not state-changing; the browser keeps their answers from foreign pages.
        assert!(h
            .refusal(&req("GET", host, Some("http://evil.example")))
            .is_none());
    }
}
