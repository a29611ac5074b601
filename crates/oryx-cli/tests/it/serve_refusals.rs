//! `oryx serve` refuses to start, with a one-line error and the exit code of a usage error or
//! an unusable file: another address than loopback without `--token` (an empty token is none),
//! and TLS files that are missing, not PEM, not a pair, or one without the other. With a
//! token, a non-loopback address is served and the token enforced.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::certificate::certificate;
use crate::common::hostile_root::Env;
use crate::common::raw_http::raw_at;
use crate::common::{self, OryxOn};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn oryx(dir: &Path) -> Command {
    common::oryx(&dir.join("config"))
}

#[test]
fn default_bind_is_loopback_and_other_addresses_need_a_token() {
    let env = Env::new();
    // The default --bind, read from clap's help (starting on it could clash with a real server).
    let help = stdout(&env.plain(&["serve", "--help"]));
    assert!(help.contains("[default: 127.0.0.1:7777]"), "{help}");
    for bind in ["0.0.0.0:0", "[::]:0", "192.0.2.1:0"] {
        let out = env.oryx(&["serve", "--bind", bind]);
        assert_eq!(out.status.code(), Some(2), "{bind}: {}", stderr(&out));
        assert!(stderr(&out).contains("without --token"), "{}", stderr(&out));
        // An empty token is no token.
        let out = env.oryx(&["serve", "--bind", bind, "--token", ""]);
        assert_eq!(out.status.code(), Some(2), "{bind} empty token");
        let out = env
            .cmd()
            .args([
                "--root",
                env.root().to_str().unwrap(),
                "serve",
                "--bind",
                bind,
            ])
            .env("ORYX_TOKEN", "")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bind} empty ORYX_TOKEN");
    }
    // With a token, a non-loopback address is served (and the token is enforced).
    let mut cmd = env.cmd();
    cmd.args([
        "--root",
        env.root().to_str().unwrap(),
        "serve",
        "--bind",
        "0.0.0.0:0",
        "--token",
        "tok-123456",
    ]);
    let (child, base) = common::spawn_serve(cmd);
    let _server = common::ServerProcess(child);
    let addr = base.trim_start_matches("http://");
    assert!(addr.starts_with("0.0.0.0:"), "{addr}");
    let local = format!("127.0.0.1:{}", addr.rsplit(':').next().unwrap());
    assert_eq!(
        raw_at(&local, "GET", "/api/v1/agents", &[], None).status,
        401
    );
    assert_eq!(
        raw_at(
            &local,
            "GET",
            "/api/v1/agents",
            &[("Authorization", "Bearer tok-123456")],
            None
        )
        .status,
        200
    );
}

#[test]
fn non_loopback_bind_needs_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let out = oryx(dir.path())
        .args([
            "--root",
            dir.path().to_str().unwrap(),
            "serve",
            "--bind",
            "0.0.0.0:0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("without --token"));
}

struct Setup {
    dir: tempfile::TempDir,
    root: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let out = common::oryx(&dir.path().join("config"))
        .args(["demo", "--bare", root.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    Setup { dir, root }
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
