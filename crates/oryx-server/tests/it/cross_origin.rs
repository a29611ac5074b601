//! No CORS: no `Access-Control-*` header on any answer, and no preflight is approved, so a page
//! of another origin cannot read the API.

use crate::common::hostile_root::Env;
use crate::common::raw_http::{assert_error_envelope, raw, Resp};
use crate::common::serve_hostile as start;

#[test]
fn no_cors_headers_and_no_preflight_approval() {
    let env = Env::new();
    let s = start(&env, &[]);
    let origin = [("Origin", "http://evil.example")];
    let mut checked = 0;
    for (method, target) in [
        ("GET", "/api/v1/agents"),
        ("GET", "/api/v1/auth/me"),
        ("GET", "/api/v1/console/settings"),
        ("GET", "/api/v1/agents/%2e%2e/memory"),
        ("GET", "/api/v1/nope"),
        ("GET", "/"),
    ] {
        let r = raw(&s, method, target, &origin, None);
        assert_no_cors(&r, target);
        checked += 1;
    }
    for target in [
        "/api/v1/agents",
        "/api/v1/console/memory",
        "/api/v1/console/settings",
        "/api/v1/console/sample-root",
    ] {
        let r = raw(
            &s,
            "OPTIONS",
            target,
            &[
                ("Origin", "http://evil.example"),
                ("Access-Control-Request-Method", "POST"),
                (
                    "Access-Control-Request-Headers",
                    "content-type, authorization",
                ),
            ],
            None,
        );
        assert_no_cors(&r, &format!("OPTIONS {target}"));
        assert!(
            !(200..300).contains(&r.status),
            "a preflight is not approved: OPTIONS {target} -> {}",
            r.status
        );
        checked += 1;
    }
    // A cross-site form post (text/plain, no preflight) is refused for its Origin (and would
    // not be taken as JSON anyway).
    let r = raw(
        &s,
        "POST",
        "/api/v1/console/memory",
        &[
            ("Origin", "http://evil.example"),
            ("Content-Type", "text/plain"),
        ],
        Some(br#"{"agent":"researcher","scope":"core","content":"csrf"}"#),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    assert_error_envelope(&r, "text/plain post");
    assert!(
        !std::fs::read_to_string(env.root().join("agents/researcher/MEMORY.md"))
            .unwrap()
            .contains("csrf")
    );
    eprintln!("cors: {checked} responses without Access-Control-* headers");
}

fn assert_no_cors(r: &Resp, what: &str) {
    for (k, v) in &r.headers {
        assert!(
            !k.to_ascii_lowercase().starts_with("access-control-"),
            "{what}: {k}: {v}"
        );
    }
}
