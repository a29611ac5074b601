//! `oryx serve --tls-cert FILE --tls-key FILE`: HTTPS with a certificate made for this run, a
//! client that trusts only it, and clear refusals of missing or unusable files.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

struct Setup {
    dir: tempfile::TempDir,
    root: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let out = common::oryx(&dir.path().join("config"))
        .args(["demo", root.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    Setup { dir, root }
}

/// A self-signed certificate for 127.0.0.1 and localhost; returns (cert.pem, key.pem).
fn certificate(dir: &Path) -> (PathBuf, PathBuf) {
    let ck =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string(), "localhost".to_string()])
            .unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, ck.cert.pem()).unwrap();
    std::fs::write(&key, ck.key_pair.serialize_pem()).unwrap();
    (cert, key)
}

fn serve_args<'a>(s: &'a Setup, cert: &'a Path, key: &'a Path) -> Vec<&'a str> {
    vec![
        "--root",
        s.root.to_str().unwrap(),
        "serve",
        "--bind",
        "127.0.0.1:0",
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
    let mut cmd = common::oryx(&s.dir.path().join("config"));
    cmd.args(serve_args(&s, &cert, &key));
    let (child, base) = common::spawn_serve(cmd);
    let _server = common::ServerProcess(child);
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
    let mut cmd = common::oryx(&s.dir.path().join("config"));
    cmd.args(serve_args(&s, &cert, &key))
        .args(["--token", "tls-secret"]);
    let (child, base) = common::spawn_serve(cmd);
    let _server = common::ServerProcess(child);
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

fn refused(s: &Setup, cert: &Path, key: &Path) -> (Output, String) {
    let out = common::oryx(&s.dir.path().join("config"))
        .args(serve_args(s, cert, key))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, err)
}

#[test]
fn missing_or_unusable_files_stop_the_server_naming_the_file() {
    let s = setup();
    let (cert, key) = certificate(s.dir.path());
    let missing = s.dir.path().join("missing.pem");
    let garbage = s.dir.path().join("garbage.pem");
    std::fs::write(&garbage, "this is not PEM\n").unwrap();
    let (_, other_key) = certificate(&{
        let d = s.dir.path().join("other");
        std::fs::create_dir_all(&d).unwrap();
        d
    });
    for (cert, key, code, says) in [
        (&missing, &key, "io", "missing.pem"),
        (&cert, &missing, "io", "missing.pem"),
        (&garbage, &key, "invalid_input", "garbage.pem"),
        (&cert, &garbage, "invalid_input", "garbage.pem"),
        (
            &cert,
            &other_key,
            "invalid_input",
            "cannot be used together",
        ),
    ] {
        let (out, err) = refused(&s, cert, key);
        let what = format!("{} + {}", cert.display(), key.display());
        assert_ne!(out.status.code(), Some(0), "{what}: {err}");
        assert!(
            err.starts_with(&format!("error[{code}]: ")),
            "{what}: {err}"
        );
        assert!(err.contains(says), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: {err:?}");
        assert!(
            !err.contains("http"),
            "{what}: it must not have listened: {err}"
        );
    }
    // One without the other is a usage error.
    let out = common::oryx(&s.dir.path().join("config"))
        .args(["--root", s.root.to_str().unwrap(), "serve", "--tls-cert"])
        .arg(&cert)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--tls-key"));
}
