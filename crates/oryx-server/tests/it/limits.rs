//! Request bodies over the limit (1 MiB) get a 413 in the envelope, on every route that takes
//! a body, and nothing is written.

use crate::common::hostile_root::Env;
use crate::common::raw_http::{assert_error_envelope, post_json, raw};
use crate::common::serve_hostile as start;

use serde_json::json;

#[test]
fn bodies_over_the_limit_get_a_413_envelope() {
    let env = Env::new();
    let s = start(&env, &[]);
    let before = std::fs::read(env.root().join("agents/researcher/MEMORY.md")).unwrap();
    let big = "x".repeat(1024 * 1024 + 1);
    for target in [
        "/api/v1/console/memory",
        "/api/v1/console/memory/preview",
        "/api/v1/console/migrate",
        "/api/v1/console/sample-root",
        "/api/v1/console/inspect-root",
        "/api/v1/console/mem0/test",
    ] {
        let body = json!({"agent": "researcher", "scope": "archival", "content": big, "path": big});
        let r = post_json(&s, target, &body);
        assert_eq!(r.status, 413, "{target}: {}", r.text());
        assert_error_envelope(&r, target);
    }
    let r = raw(
        &s,
        "PUT",
        "/api/v1/console/settings",
        &[("Content-Type", "application/json")],
        Some(format!("{{\"root\":\"{big}\"}}").as_bytes()),
    );
    assert_eq!(r.status, 413);
    assert_error_envelope(&r, "PUT settings");
    // Just under the limit is read (and refused on its merits, not its size).
    let body = format!(
        "{{\"agent\":\"researcher\",\"scope\":\"archival\",\"content\":\"{}\"}}",
        "y".repeat(1024 * 1024 - 100)
    );
    let r = raw(
        &s,
        "POST",
        "/api/v1/console/memory/preview",
        &[("Content-Type", "application/json")],
        Some(body.as_bytes()),
    );
    assert_ne!(r.status, 413, "under the limit");
    assert_eq!(
        before,
        std::fs::read(env.root().join("agents/researcher/MEMORY.md")).unwrap(),
        "nothing of a refused body was written"
    );
}
