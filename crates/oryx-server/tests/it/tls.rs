//! `oryx serve --tls-cert FILE --tls-key FILE`: HTTPS with a certificate made for this run, a
//! client that trusts only it, and the login cookie and HSTS over TLS. (Refusals of missing or
//! unusable files: oryx-cli's serve_refusals.)

use std::path::{Path, PathBuf};

use crate::common;
use crate::common::certificate::certificate;

use serde_json::Value;

struct Setup {
    dir: tempfile::TempDir,
    root: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    common::demo(&root);
    Setup { dir, root }
}

fn serve_args<'a>(cert: &'a Path, key: &'a Path) -> Vec<&'a str> {
    vec![
        "--tls-cert",
        cert.to_str().unwrap(),
        "--tls-key",
        key.to_str().unwrap(),
    ]
}

#[test]
fn serves_https_with_the_given_certificate() {
    let s = setup();
    let (cert, key) = certificate(s.dir.path());
    let server = common::serve(
        &s.dir.path().join("config"),
        &s.root,
        &serve_args(&cert, &key),
    );
    let base = server.base.clone();
    assert!(base.starts_with("https://127.0.0.1:"), "{base}");

    let trusting = reqwest::blocking::Client::builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(
            reqwest::Certificate::from_pem(&std::fs::read(&cert).unwrap()).unwrap(),
        )
        .build()
        .unwrap();
    let r = trusting
        .get(format!("{base}/api/v1/console/agents"))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let v: Value = r.json().unwrap();
    assert_eq!(v["code"], 0, "{v}");
    assert!(
        v["data"]["agents"]
            .as_array()
            .is_some_and(|a| !a.is_empty()),
        "{v}"
    );

    // A client that does not trust the certificate cannot talk to the server.
    let stranger = reqwest::blocking::Client::builder().build().unwrap();
    let e = stranger
        .get(format!("{base}/api/v1/auth/me"))
        .send()
        .unwrap_err();
    assert!(e.is_connect() || e.is_request(), "{e:?}");

    // Plain HTTP on the HTTPS port gets no answer, and the server keeps serving.
    let plain = base.replacen("https://", "http://", 1);
    assert!(reqwest::blocking::get(format!("{plain}/api/v1/auth/me")).is_err());
    let r = trusting
        .get(format!("{base}/api/v1/auth/me"))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
}

#[test]
fn over_tls_the_login_cookie_is_secure_and_a_host_name_gets_hsts() {
    let s = setup();
    let (cert, key) = certificate(s.dir.path());
    let mut flags = serve_args(&cert, &key);
    flags.extend(["--token", "tls-secret"]);
    let server = common::serve(&s.dir.path().join("config"), &s.root, &flags);
    let base = server.base.clone();
    let trusting = reqwest::blocking::Client::builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(
            reqwest::Certificate::from_pem(&std::fs::read(&cert).unwrap()).unwrap(),
        )
        .build()
        .unwrap();
    let r = trusting
        .post(format!("{base}/api/v1/auth/login"))
        .json(&serde_json::json!({"username": "admin", "password": "tls-secret"}))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let cookies: Vec<String> = r
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect();
    assert!(!cookies.is_empty());
    for c in &cookies {
        assert!(c.contains("; Secure"), "{c}");
    }
    // An address (or localhost) gets no HSTS: browsers ignore it there, or would force every
    // local server to HTTPS. A host name does.
    assert!(r.headers().get("strict-transport-security").is_none());
    let port = base.rsplit(':').next().unwrap();
    let named = reqwest::blocking::Client::builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(
            reqwest::Certificate::from_pem(&std::fs::read(&cert).unwrap()).unwrap(),
        )
        .resolve("console.test", format!("127.0.0.1:{port}").parse().unwrap())
        .danger_accept_invalid_hostnames(true)
        .build()
        .unwrap();
    let r = named
        .get(format!("https://console.test:{port}/api/v1/info"))
        .send()
        .unwrap();
    // console.test is not an allowed host: refused, but still with the header.
    assert_eq!(
        r.headers()
            .get("strict-transport-security")
            .map(|v| v.to_str().unwrap()),
        Some("max-age=31536000"),
        "{:?}",
        r.status()
    );
}
