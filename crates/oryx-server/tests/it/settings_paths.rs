//! Paths in requests over REST: a root or database path in the settings (saved or tested), or a
//! folder to inspect or make a sample root in, that is empty, relative, has a NUL, is of the
//! wrong kind or is missing, is refused as invalid input, and nothing is saved or written.

use crate::common::hostile_root::{assert_unchanged, Env};
use crate::common::raw_http::{assert_refused, get, post_json, raw};
use crate::common::serve_hostile as start;

use serde_json::json;

#[test]
fn rest_settings_paths_are_validated() {
    let env = Env::new();
    let s = start(&env, &[]);
    let current = get(&s, "/api/v1/console/settings").json()["data"]["settings"].clone();
    let before = env.snapshot();
    let file = env.root().join("USER.md").display().to_string();
    let root_dir = env.root().display().to_string();
    let mut tried = 0;
    for (field, p) in [
        ("root", "../x"),
        ("root", "x"),
        ("root", ".."),
        ("root", "/tmp/a\0b"),
        ("root", file.as_str()),
        ("root", "/definitely/missing/oryx-root"),
        ("db_path", "../x.db"),
        ("db_path", "oryxos.db"),
        ("db_path", "/tmp/a\0b.db"),
        ("db_path", root_dir.as_str()),
    ] {
        let mut dto = current.clone();
        dto[field] = json!(p);
        for target in ["/api/v1/console/settings", "/api/v1/console/mem0/test"] {
            let method = if target.ends_with("settings") {
                "PUT"
            } else {
                "POST"
            };
            let r = raw(
                &s,
                method,
                target,
                &[("Content-Type", "application/json")],
                Some(dto.to_string().as_bytes()),
            );
            assert_refused(
                &r,
                &["invalid_input"],
                &format!("{method} {target} {field}={p:?}"),
            );
            tried += 1;
        }
    }
    for p in ["", " ", "..", "../x", "x", "%2e%2e", "a\0b", "/tmp/a\0b"] {
        for target in [
            "/api/v1/console/inspect-root",
            "/api/v1/console/sample-root",
        ] {
            let r = post_json(&s, target, &json!({"path": p}));
            assert_refused(&r, &["invalid_input"], &format!("POST {target} {p:?}"));
            tried += 1;
        }
    }
    assert_unchanged(&before, &env.snapshot(), "refused settings paths");
    assert!(
        !env.base().join("config/settings.json").exists(),
        "nothing saved"
    );
    eprintln!("rest settings: {tried} refused path arguments");
}
