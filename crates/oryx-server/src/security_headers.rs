//! Headers that keep the served UI and its answers in their own tab: no framing (clickjacking),
//! scripts and connections only from this server, no referrer leaving it, no content sniffing;
//! over TLS, HSTS for a host name.

use axum::extract::{Request, State};
use axum::http::{header, HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

/// The UI is one module script and its styles from this server. Inline style attributes stay
/// allowed (React and the charts set them); inline scripts do not.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// HSTS for a year. Only for a host name: browsers ignore it for addresses, and sent for
/// `localhost` it would force every other local server on any port to HTTPS too.
const HSTS: &str = "max-age=31536000";

pub async fn add(State(tls): State<bool>, req: Request, next: Next) -> Response {
    let hsts = tls && named_host(&req);
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    let fixed: [(HeaderName, &str); 5] = [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (
            HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ),
    ];
    for (name, value) in fixed {
        h.insert(name, HeaderValue::from_static(value));
    }
    if hsts {
        h.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static(HSTS),
        );
    }
    res
}

/// The request's Host is a name other than localhost (not an IP address).
fn named_host(req: &Request) -> bool {
    let Some(host) = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let name = match host.strip_prefix('[') {
        Some(_) => return false, // [v6]:port
        None => host.rsplit_once(':').map_or(host, |(n, _)| n),
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name.parse::<std::net::IpAddr>().is_err()
        && name != "localhost"
        && !name.ends_with(".localhost")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_host(h: &str) -> Request {
        Request::builder()
            .header(header::HOST, h)
            .body(axum::body::Body::empty())
            .unwrap()
    }

    #[test]
    fn hsts_only_for_a_host_name() {
        for h in ["console.example.org", "console.example.org:8443", "box"] {
            assert!(named_host(&with_host(h)), "{h}");
        }
        for h in [
            "127.0.0.1:7777",
            "[::1]:7777",
            "localhost:7777",
            "LOCALHOST",
            "a.localhost",
            "10.0.0.2",
        ] {
            assert!(!named_host(&with_host(h)), "{h}");
        }
    }
}
