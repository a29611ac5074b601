//! Nobody gets in through a name: path-traversal payloads on every REST route that takes an
//! agent or session name, written raw (encoded, double-encoded, with NUL, as they are), and an
//! agent whose MEMORY.md links outside the root. Each is refused, nothing outside is shown, and
//! nothing changes on disk.

use crate::common::hostile_root::{self, assert_unchanged, enc, name_payloads, Env, SECRET};
use crate::common::raw_http::{assert_error_envelope, assert_refused, get, post_json, raw, Resp};
use crate::common::{self, serve_hostile as start, Server};

use serde_json::{json, Value};

/// Where an agent name goes in a request; `seg` is already URL-encoded (or a raw form).
#[derive(Clone, Copy)]
enum At {
    Path(&'static str),
    Query(&'static str),
    Json(&'static str),
}

const REST_AGENT_ROUTES: &[(&str, At)] = &[
    ("GET", At::Path("/api/v1/agents/{}")),
    ("GET", At::Path("/api/v1/agents/{}/memory")),
    ("GET", At::Path("/api/v1/agents/{}/skills")),
    ("GET", At::Path("/api/v1/agents/{}/knowledge")),
    ("GET", At::Path("/api/v1/agents/{}/session")),
    ("GET", At::Path("/api/v1/agents/{}/executions")),
    ("GET", At::Path("/api/v1/console/agents/{}")),
    ("GET", At::Query("/api/v1/console/memory?agent={}")),
    ("GET", At::Query("/api/v1/console/memory/context?agent={}")),
    (
        "GET",
        At::Query("/api/v1/console/memory/recall?keyword=probe&agent={}"),
    ),
    ("GET", At::Query("/api/v1/console/memory/overview?agent={}")),
    (
        "GET",
        At::Query("/api/v1/console/memory/archival?offset=0&limit=5&newest_first=true&agent={}"),
    ),
    ("GET", At::Query("/api/v1/console/sessions?agent={}")),
    ("GET", At::Query("/api/v1/console/prompt?agent={}")),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory|{"agent":{},"scope":"core","content":"probe"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory|{"agent":{},"scope":"archival","content":"probe"}"#),
    ),
    (
        "POST",
        At::Json(
            r#"/api/v1/console/migrate|{"from":"markdown","to":"sqlite","agent":{},"dry_run":false}"#,
        ),
    ),
    (
        "POST",
        At::Json(
            r#"/api/v1/console/migrate|{"from":"markdown","to":"sqlite","agent":{},"dry_run":true}"#,
        ),
    ),
    // The registered operations (POST /api/v1/console/<op>, JSON arguments).
    ("POST", At::Json(r#"/api/v1/console/get_agent|{"name":{}}"#)),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory_view|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory_overview|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory_context|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(
            r#"/api/v1/console/archival_page|{"agent":{},"offset":0,"limit":5,"newest_first":true,"keyword":null}"#,
        ),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/append_memory|{"agent":{},"scope":"core","content":"probe"}"#),
    ),
    (
        "POST",
        At::Json(
            r#"/api/v1/console/append_memory|{"agent":{},"scope":"archival","content":"probe"}"#,
        ),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/recall_memory|{"agent":{},"keyword":"probe"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/list_sessions|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/prompt_preview|{"agent":{}}"#),
    ),
    // Curation: a name is refused before any entry is looked at.
    (
        "POST",
        At::Json(r#"/api/v1/console/edit_entry|{"agent":{},"id":"a0-00000000","content":"probe"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/delete_entries|{"agent":{},"entries":[{"id":"a0-00000000"}]}"#),
    ),
    (
        "POST",
        At::Json(
            r#"/api/v1/console/move_entries|{"agent":{},"entries":[{"id":"a0-00000000"}],"to":"core"}"#,
        ),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/selection_impact|{"agent":{},"ids":[],"action":"delete"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory_history|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/entry_provenance|{"agent":{},"id":"a0-00000000"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/undo_change|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/redo_change|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/restore_entry|{"agent":{},"change_id":"x","entry_id":"y"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/review_status|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/mark_reviewed|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory_health|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/propose_summary|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory_stats|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/prompt_composition|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory_asof|{"agent":{},"at":"2026-01-01"}"#),
    ),
    (
        "POST",
        At::Json(
            r#"/api/v1/console/memory_diff|{"agent":{},"from":"2026-01-01","to":"2026-02-01"}"#,
        ),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/apply_summary|{"agent":{},"content":"x"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/dismiss_finding|{"agent":{},"check":"stale","entry_ids":[]}"#),
    ),
    // Agent management: every name-taking operation.
    (
        "POST",
        At::Json(r#"/api/v1/console/create_agent|{"name":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/create_agent|{"name":"fresh-one","from":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/agent_file|{"name":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/save_agent_file|{"name":{},"text":"---\nname: x\n---\n"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/set_agent_key|{"name":{},"key":"description","value":"x"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/set_agent_skills|{"name":{},"add":["x"]}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/archive_agent|{"name":{}}"#),
    ),
    (
        "POST",
        At::Json(
            r#"/api/v1/console/restore_agent|{"archived_name":"a.20260101-000000","as_name":{}}"#,
        ),
    ),
];

const REST_SESSION_ROUTES: &[(&str, At)] = &[
    ("GET", At::Path("/api/v1/sessions/{}")),
    ("GET", At::Path("/api/v1/console/sessions/{}")),
    (
        "GET",
        At::Query("/api/v1/console/prompt?agent=assistant&session_id={}"),
    ),
    (
        "GET",
        At::Query("/api/v1/console/tool-invocations?session_id={}"),
    ),
];

/// Sends `name` (a logical name, or with `raw` a URL form written as is) to one route.
fn send(s: &Server, method: &str, at: At, name: &str, raw_form: bool) -> Resp {
    match at {
        At::Path(t) | At::Query(t) => {
            let seg = if raw_form {
                name.to_string()
            } else {
                enc(name)
            };
            raw(s, method, &t.replace("{}", &seg), &[], None)
        }
        At::Json(t) => {
            let (path, body) = t.split_once('|').unwrap();
            let body = body.replace("{}", &Value::String(name.to_string()).to_string());
            raw(
                s,
                method,
                path,
                &[("Content-Type", "application/json")],
                Some(body.as_bytes()),
            )
        }
    }
}

fn route_label(method: &str, at: At) -> String {
    match at {
        At::Path(t) | At::Query(t) | At::Json(t) => {
            format!("{method} {}", t.split('|').next().unwrap())
        }
    }
}

#[test]
fn rest_refuses_every_traversal_payload_on_every_route_that_takes_a_name() {
    let env = Env::new();
    // A UI folder next to the root and the outside folder: its file server must not step out.
    let ui = env.base().join("ui");
    std::fs::create_dir_all(&ui).unwrap();
    std::fs::write(
        ui.join("index.html"),
        "<!doctype html><title>console</title>",
    )
    .unwrap();
    let s = start(&env, &["--ui-dir", ui.to_str().unwrap()]);
    let before = env.snapshot();
    let payloads = name_payloads(&env);
    let raw_url_forms = common::traversal::url_forms();
    let mut tried = 0;
    for &(method, at) in REST_AGENT_ROUTES {
        let label = route_label(method, at);
        for p in &payloads {
            let r = send(&s, method, at, p, false);
            assert_refused(&r, &["invalid_agent_name"], &format!("{label} {p:?}"));
            tried += 1;
        }
        let r = send(&s, method, at, "evil", false);
        if label.contains("/console/sessions") || label.contains("/console/list_sessions") {
            assert_eq!(
                r.status, 200,
                "{label} evil: a session filter reads no file"
            );
            assert!(!r.text().contains(SECRET));
        } else {
            assert_refused(&r, &["outside_root"], &format!("{label} evil"));
        }
        tried += 1;
        if let At::Json(_) = at {
            continue;
        }
        for form in &raw_url_forms {
            let r = send(&s, method, at, form, true);
            let what = format!("{label} raw {form:?}");
            // `..` and `.` as a whole path segment may instead miss every route (404); either
            // way the answer is an envelope and nothing is read.
            if matches!(at, At::Path(_)) && matches!(form.as_str(), ".." | ".") && r.status == 404 {
                assert_error_envelope(&r, &what);
            } else {
                // Not UTF-8 once decoded: refused before it is a name at all.
                assert_refused(&r, &["invalid_agent_name", "invalid_input"], &what);
            }
            tried += 1;
        }
    }
    for &(method, at) in REST_SESSION_ROUTES {
        let label = route_label(method, at);
        let forms = payloads
            .iter()
            .map(|p| (p.as_str(), false))
            .chain(raw_url_forms.iter().map(|f| (f.as_str(), true)));
        for (p, raw_form) in forms {
            let r = send(&s, method, at, p, raw_form);
            let what = format!("{label} {p:?}");
            // Session ids are database keys: unknown is 404; an id that is not text is 400.
            if label.contains("tool-invocations") && r.status == 200 {
                assert_eq!(r.json()["data"], json!([]), "{what}");
            } else {
                assert!(
                    matches!(r.status, 400 | 404),
                    "{what}: {} {}",
                    r.status,
                    r.text()
                );
                assert_error_envelope(&r, &what);
            }
            tried += 1;
        }
    }
    // Traversal that leaves the route's prefix entirely: no route, an envelope, no file.
    for target in [
        "/api/v1/agents/../../../etc/passwd",
        "/api/v1/console/../../../../etc/passwd",
        "/api/v1/agents/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/api/v1/agents/evil/AGENT.md",
        "/api/v1/agents/assistant/../evil/memory",
        "/api/v1/..%2F..%2F",
    ] {
        let r = get(&s, target);
        assert!(matches!(r.status, 400 | 404), "{target}: {}", r.status);
        assert_error_envelope(&r, target);
        assert!(!r.text().contains("root:x:") && !r.text().contains(SECRET));
        tried += 1;
    }
    // The UI's file server: traversal gets index.html (client-side routes) or a 4xx, never the
    // file it aims at.
    for target in [
        "/../outside/MEMORY.md",
        "/%2e%2e/outside/MEMORY.md",
        "/..%2foutside%2fMEMORY.md",
        "/..%5coutside%5cMEMORY.md",
        "/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/../../../../../../etc/passwd",
        "/assets/../../outside/AGENT.md",
        "/%00/../outside/MEMORY.md",
    ] {
        let r = get(&s, target);
        assert!(
            r.status == 200 && r.text().contains("<title>console</title>")
                || (400..500).contains(&r.status),
            "{target}: {} {}",
            r.status,
            r.text()
        );
        assert!(
            !r.text().contains("root:x:") && !r.text().contains(SECRET),
            "{target}"
        );
        tried += 1;
    }
    // Listing shows the symlinked agent with a warning, never what it points at.
    for target in [
        "/api/v1/agents",
        "/api/v1/console/agents",
        "/api/v1/console/files",
    ] {
        let r = get(&s, target);
        assert_eq!(r.status, 200, "{target}");
        assert!(!r.text().contains(SECRET), "{target}: {}", r.text());
    }
    assert_unchanged(&before, &env.snapshot(), "REST strict routes");
    let panics = common::server_panics();
    assert!(panics.is_empty(), "server panics: {panics}");
    eprintln!("rest: {tried} payload x route requests refused");
}

#[test]
fn a_memory_file_linked_outside_the_root_is_refused_too() {
    let env = Env::new();
    hostile_root::link_agent_memory_outside(&env);
    let before = std::fs::read(env.outside().join("MEMORY.md")).unwrap();
    let s = start(&env, &[]);
    for target in [
        "/api/v1/agents/linked/memory",
        "/api/v1/console/memory?agent=linked",
        "/api/v1/console/prompt?agent=linked",
    ] {
        assert_refused(&get(&s, target), &["outside_root"], target);
    }
    let r = post_json(
        &s,
        "/api/v1/console/memory",
        &json!({"agent": "linked", "scope": "archival", "content": "x"}),
    );
    assert_refused(&r, &["outside_root"], "POST memory linked");
    let r = get(&s, "/api/v1/console/agents");
    assert!(!r.text().contains(SECRET));
    assert_eq!(
        before,
        std::fs::read(env.outside().join("MEMORY.md")).unwrap(),
        "the linked file is untouched"
    );
}
