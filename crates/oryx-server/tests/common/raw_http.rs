//! HTTP over a raw TCP socket, so that `..`, `%2e%2e`, `%00` and friends reach the server
//! exactly as written (an HTTP client library would normalise or re-encode them).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

use super::hostile_root::SECRET;

/// What requests go to: a server's `host:port`.
pub trait Addressed {
    fn address(&self) -> String;
}

/// A server shared between threads.
impl<T: Addressed> Addressed for std::sync::Arc<T> {
    fn address(&self) -> String {
        T::address(self)
    }
}

#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {} {:?}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

pub fn raw(
    s: &impl Addressed,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Resp {
    raw_at(&s.address(), method, target, headers, body)
}

pub fn raw_at(
    addr: &str,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Resp {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut req = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(b) = body {
        req.push_str(&format!("Content-Length: {}\r\n", b.len()));
    }
    req.push_str("\r\n");
    let mut bytes = req.into_bytes();
    if let Some(b) = body {
        bytes.extend_from_slice(b);
    }
    // The server may answer (413) before reading a big body and close: a write error then is fine.
    let _ = stream.write_all(&bytes);
    let mut buf = Vec::new();
    let _ = stream.read_to_end(&mut buf);
    parse_response(&buf)
}

pub fn parse_response(buf: &[u8]) -> Resp {
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP response: {:?}", String::from_utf8_lossy(buf)));
    let head = String::from_utf8_lossy(&buf[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = buf[split + 4..].to_vec();
    let chunked = headers.iter().any(|(k, v)| {
        k.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        body = dechunk(&body);
    }
    Resp {
        status,
        headers,
        body,
    }
}

pub fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = b.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = eol + 2;
        out.extend_from_slice(&b[start..start + size]);
        b = &b[start + size + 2..];
    }
    out
}

pub fn get(s: &impl Addressed, target: &str) -> Resp {
    raw(s, "GET", target, &[], None)
}

pub fn post_json(s: &impl Addressed, target: &str, body: &Value) -> Resp {
    raw(
        s,
        "POST",
        target,
        &[("Content-Type", "application/json")],
        Some(body.to_string().as_bytes()),
    )
}

/// The error envelope: `code` = the status, a message, no data, and no internals (no panic,
/// source path or backtrace, nothing read outside the root).
pub fn assert_error_envelope(r: &Resp, what: &str) -> Value {
    let v = r.json();
    assert_eq!(v["code"], r.status, "{what}: {v}");
    assert!(v["data"].is_null(), "{what}: {v}");
    assert!(
        v["timestamp"].as_i64().unwrap_or(0) > 1_700_000_000_000,
        "{what}: {v}"
    );
    let msg = v["message"].as_str().unwrap_or("");
    assert!(!msg.is_empty(), "{what}: {v}");
    for leak in [
        "panicked",
        "src/",
        ".rs:",
        "RUST_BACKTRACE",
        "stack backtrace",
        SECRET,
    ] {
        assert!(!msg.contains(leak), "{what}: {leak:?} in {msg:?}");
    }
    assert_eq!(
        r.header("content-type"),
        Some("application/json"),
        "{what}: {:?}",
        r.headers
    );
    v
}

/// A 400 in the envelope with one of `codes` as its `error_code`, showing nothing of outside.
pub fn assert_refused(r: &Resp, codes: &[&str], what: &str) {
    assert_eq!(r.status, 400, "{what}: {} {}", r.status, r.text());
    let v = assert_error_envelope(r, what);
    let code = v["error_code"].as_str().unwrap_or("");
    assert!(codes.contains(&code), "{what}: error_code {code:?} in {v}");
    assert!(!r.text().contains(SECRET), "{what}: {}", r.text());
}
