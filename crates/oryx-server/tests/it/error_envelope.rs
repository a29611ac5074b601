//! Server errors (a database that is not SQLite, malformed requests) answer in the envelope with
//! a message that names the problem and carries no internals: no panic, source path or trace.

use crate::common::hostile_root::Env;
use crate::common::raw_http::{assert_error_envelope, get, raw};
use crate::common::{self, serve_hostile as start};

#[test]
fn server_errors_carry_no_internals() {
    let env = Env::new();
    let s = start(&env, &[]);
    // A database that is not SQLite: a 500 that names the problem, no trace, no source path.
    std::fs::write(env.root().join("oryxos.db"), vec![b'x'; 4096]).unwrap();
    for target in [
        "/api/v1/sessions",
        "/api/v1/console/sessions",
        "/api/v1/sessions/stats",
        "/api/v1/console/tool-invocations",
    ] {
        let r = get(&s, target);
        assert!(r.status >= 500, "{target}: {}", r.status);
        let v = assert_error_envelope(&r, target);
        let msg = v["message"].as_str().unwrap();
        assert!(
            !msg.contains("/rustc/") && !msg.contains("cargo/registry"),
            "{msg}"
        );
    }
    // Malformed requests: envelopes, not framework text.
    for (method, target, ct, body) in [
        (
            "POST",
            "/api/v1/console/memory",
            "application/json",
            "{not json",
        ),
        ("POST", "/api/v1/console/memory", "application/json", "[]"),
        (
            "POST",
            "/api/v1/console/memory",
            "application/json",
            "{\"agent\":1}",
        ),
        (
            "PUT",
            "/api/v1/console/settings",
            "application/json",
            "null",
        ),
        (
            "GET",
            "/api/v1/console/sessions?limit=-1",
            "application/json",
            "",
        ),
        (
            "GET",
            "/api/v1/sessions?status=a&status=b",
            "application/json",
            "",
        ),
        ("DELETE", "/api/v1/agents", "application/json", ""),
    ] {
        let r = raw(
            &s,
            method,
            target,
            &[("Content-Type", ct)],
            (!body.is_empty()).then_some(body.as_bytes()),
        );
        assert!(
            (400..500).contains(&r.status),
            "{method} {target}: {} {}",
            r.status,
            r.text()
        );
        assert_error_envelope(&r, &format!("{method} {target} {body}"));
    }
    let panics = common::server_panics();
    assert!(panics.is_empty(), "server panics: {panics}");
}
