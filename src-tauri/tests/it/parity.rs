//! Every registered operation gives the same answer through the desktop's IPC (Tauri's mock
//! runtime) and through `oryx serve` (a real server process on 127.0.0.1), on the same fixture
//! root: same data on success, same error code on failure. A new operation without a case here
//! fails the test.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::common::{app, invoke, oryx_bin, Window};
use serde_json::{json, Value};

struct Server {
    child: Child,
    base: String,
    http: reqwest::blocking::Client,
}

impl Server {
    fn start(root: &Path, settings: &Path) -> Server {
        let mut child = Command::new(oryx_bin())
            .arg("--root")
            .arg(root)
            .arg("--config")
            .arg(settings)
            .args(["serve", "--bind", "127.0.0.1:0"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        Server {
            child,
            base: format!("http://{addr}"),
            http: reqwest::blocking::Client::new(),
        }
    }

    /// The operation over REST, as the UI's http transport sends it.
    fn call(&self, op: &str, args: &Value) -> Result<Value, Value> {
        let res = self
            .http
            .post(format!("{}/api/v1/console/{op}", self.base))
            .json(args)
            .send()
            .unwrap();
        let env: Value = res.json().unwrap();
        if env["code"] == 0 {
            Ok(env["data"].clone())
        } else {
            Err(json!({"code": env["error_code"], "message": env["message"]}))
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Fields that differ between two correct runs (the time of an append, a created folder's name).
fn masked(mut v: Value) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if [
                        "timestamp",
                        "line",
                        "path",
                        "db_path",
                        // Curation: ids name different entries (each host changes its own),
                        // and change ids and times differ.
                        "id",
                        "at",
                        "reverts",
                        "can_undo",
                        "can_redo",
                        "reviewed_at",
                        "ids",
                    ]
                    .contains(&k.as_str())
                    {
                        *x = json!("<varies>");
                    } else {
                        walk(x);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut v);
    v
}

fn outcome(r: Result<Value, Value>) -> Value {
    match r {
        Ok(v) => json!({"ok": masked(v)}),
        // Messages may name a host-specific detail; the code is the contract.
        Err(e) => json!({"error": e["code"]}),
    }
}

#[test]
fn every_operation_answers_the_same_over_ipc_and_rest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    oryx_core::demo::write_sample(&root).unwrap();
    let settings = dir.path().join("settings.json");
    let w: Window = app(&root, &settings);
    let server = Server::start(&root, &settings);
    let stored = invoke(&w, "get_settings", json!({})).unwrap()["settings"].clone();
    let session_id =
        invoke(&w, "list_sessions", json!({"limit": 1})).unwrap()["items"][0]["session_id"].clone();
    assert!(session_id.is_string(), "the sample root has sessions");
    let new_root = |n: &str| dir.path().join(n).display().to_string();

    // (operation, arguments for IPC, arguments for REST): the same except where an operation
    // creates something that may exist only once.
    let cases: Vec<(&str, Value, Value)> = [
        ("list_agents", json!({})),
        ("get_agent", json!({"name": "assistant"})),
        ("get_agent", json!({"name": "no-such-agent"})),
        ("get_agent", json!({"name": "../etc"})),
        ("memory_view", json!({"agent": "assistant"})),
        ("memory_view", json!({})),
        ("memory_overview", json!({"agent": "assistant"})),
        (
            "archival_page",
            json!({"agent": "assistant", "offset": 0, "limit": 3, "newest_first": true, "keyword": null}),
        ),
        ("memory_context", json!({"agent": ""})),
        (
            "append_memory",
            json!({"agent": "assistant", "scope": "archival", "content": "parity\ncheck"}),
        ),
        ("recall_memory", json!({"agent": "assistant", "keyword": "parity"})),
        ("agent_recall", json!({"agent": "assistant", "keyword": "parity"})),
        (
            "agent_recall",
            json!({"agent": "assistant", "keyword": "parity", "trial": {"semantic": 3, "keyword": 1, "recency": 0.5, "topK": 2}}),
        ),
        (
            "agent_recall",
            json!({"agent": "assistant", "keyword": "x", "trial": {"semantic": 1, "keyword": 1, "recency": 1, "topK": -1}}),
        ),
        (
            "recall_memory",
            json!({"agent": "assistant", "keyword": "用户喜欢什么样的回答风格", "mode": "semantic", "limit": 3}),
        ),
        (
            "recall_memory",
            json!({"agent": "assistant", "keyword": "x", "mode": "fuzzy"}),
        ),
        ("index_status", json!({})),
        (
            "episodic_search",
            json!({"agent": "assistant", "query": "证书续期", "limit": 2}),
        ),
        ("episodic_search", json!({"agent": "../x", "query": "q"})),
        ("search_everywhere", json!({"query": "证书续期", "limit": 3})),
        ("search_everywhere", json!({"query": " "})),
        (
            "prompt_preview",
            json!({"agent": "assistant", "query": "what about my certificate?"}),
        ),
        ("cancel_index_build", json!({})),
        ("index_build", json!({})),
        ("build_index", json!({"agent": "no-such-agent"})),
        ("clear_index", json!({})),
        // A bare root: the runtime keeps no index of it to fill.
        ("fill_runtime_index", json!({"dry_run": true})),
        ("cancel_runtime_fill", json!({})),
        (
            "forget",
            json!({"agent": "assistant", "text": "用户的时区", "dry_run": true}),
        ),
        ("forget", json!({"agent": "assistant", "dry_run": true})),
        ("forget", json!({"agent": "../x", "text": "x", "dry_run": true})),
        ("forget_state", json!({})),
        ("cancel_forget", json!({})),
        ("forget_receipts", json!({})),
        ("recall_checks", json!({"agent": "assistant"})),
        (
            "add_recall_check",
            json!({"agent": "assistant", "question": "q", "expect": ["a999-00000000"]}),
        ),
        ("remove_recall_check", json!({"agent": "assistant", "id": "chk-none"})),
        ("propose_recall_settings", json!({"agent": "assistant"})),
        ("propose_recall_settings", json!({"agent": "../x"})),
        ("build_index", json!({"agent": "scheduler"})),
        ("preview_entry", json!({"content": "a\n## 核心记忆 b"})),
        ("list_sessions", json!({"agent": "assistant", "limit": 5})),
        ("session_stats", json!({})),
        ("get_session", json!({"id": session_id})),
        ("get_session", json!({"id": "no:such:session"})),
        ("tool_invocations", json!({"limit": 5})),
        ("prompt_preview", json!({"agent": "assistant", "session_id": session_id})),
        ("bootstrap_files", json!({})),
        ("get_settings", json!({})),
        ("update_settings", stored.clone()),
        ("runtime_info", json!({})),
        ("set_runtime_value", json!({"key": "server.port", "value": "1"})),
        ("set_runtime_value", json!({"key": "memory.backend", "value": "redis"})),
        ("undo_runtime_value", json!({})),
        (
            "set_runtime_values",
            json!({"values": [{"key": "memory.recall.top-k", "value": "5"}, {"key": "server.port", "value": "1"}]}),
        ),
        ("set_runtime_values", json!({"values": []})),
        ("use_local_embeddings", json!({"url": "http://127.0.0.1:9", "dry_run": true})),
        ("use_local_embeddings", json!({"url": "not a url"})),
        ("inspect_root", json!({"path": root.display().to_string()})),
        ("inspect_root", json!({"path": "relative/path"})),
        ("test_mem0", stored.clone()),
        ("create_sample_root", json!({"path": "relative"})),
        ("propose_summary", json!({"agent": "assistant"})),
        ("propose_summary", json!({"agent": "assistant", "llm": true})),
        ("agents_health", json!({})),
        ("transfer_status", json!({"id": "export-nope"})),
        ("cancel_transfer", json!({"id": "export-nope"})),
        ("start_import", json!({"upload": "upload-nope", "dry_run": true})),
        ("start_export", json!({"agents": ["../x"]})),
        ("session_memory_links", json!({"id": session_id})),
        ("session_memory_links", json!({"id": "no:such:session"})),
        ("entry_provenance", json!({"agent": "assistant", "id": "a0-00000000"})),
        ("entry_reads", json!({"agent": "assistant"})),
        ("entry_reads", json!({"agent": "assistant", "ids": ["a9999-00000000"]})),
        ("export_entry_reads", json!({"agent": "assistant", "format": "csv"})),
        ("export_entry_reads", json!({"agent": "assistant", "format": "xml"})),
        ("session_reads", json!({"session_id": session_id})),
        ("session_reads", json!({"session_id": "no:such:session"})),
        ("memory_asof", json!({"agent": "assistant", "at": "2026-01-01"})),
        ("memory_asof", json!({"agent": "assistant", "at": "yesterday"})),
        ("memory_diff", json!({"agent": "assistant", "from": "2026-01-01", "to": "2999-01-01 00:00"})),
        ("sessions_per_day", json!({"days": 3650})),
        ("prompt_composition", json!({"agent": "assistant", "limit": 5})),
        ("prompt_composition", json!({"agent": "no-such-agent"})),
        ("memory_stats", json!({"agent": "assistant"})),
        (
            "apply_summary",
            json!({"agent": "assistant", "content": "x", "covered": ["zz"], "remove_originals": true}),
        ),
        ("memory_health", json!({"agent": "assistant"})),
        ("memory_health", json!({"agent": "assistant", "checks": ["nope"]})),
        (
            "dismiss_finding",
            json!({"agent": "assistant", "check": "stale", "entry_ids": ["zz"]}),
        ),
        ("superseded", json!({"agent": "assistant"})),
        ("superseded_counts", json!({})),
        (
            "resolve_superseded",
            json!({"agent": "assistant", "older": {"id": "zz"}, "newer": {"id": "yy"}, "keep": "both"}),
        ),
        (
            "superseded_unkeep",
            json!({"agent": "assistant", "older": "zz", "newer": "yy"}),
        ),
        // Agent management: reads, and writes each host is refused the same way.
        ("create_agent", json!({"name": "../x"})),
        ("create_agent", json!({"name": "assistant"})),
        ("create_agent", json!({"name": "assistant", "draft": true})),
        ("new_agent_choices", json!({})),
        ("agent_file", json!({"name": "assistant"})),
        (
            "validate_agent_file",
            json!({"name": "assistant", "text": "---\nname: other\n---\n"}),
        ),
        (
            "save_agent_file",
            json!({"name": "assistant", "text": "---\nname: assistant\n---\n", "version": "stale"}),
        ),
        (
            "set_agent_key",
            json!({"name": "assistant", "key": "provider.model", "value": "x", "version": "stale"}),
        ),
        ("root_skills", json!({})),
        ("set_agent_skills", json!({"name": "assistant", "add": ["no-such-skill"]})),
        ("archive_agent", json!({"name": "no-such-agent"})),
        ("list_archived", json!({})),
        ("restore_agent", json!({"archived_name": "nope"})),
        ("archived_removal", json!({"archived_name": "nope.20260101-000000"})),
        (
            "delete_archived",
            json!({"archived_name": "nope.20260101-000000", "expect_count": 0}),
        ),
        (
            "save_bootstrap_file",
            json!({"name": "USER.md", "text": "x", "version": "stale"}),
        ),
    ]
    .into_iter()
    .map(|(op, a)| (op, a.clone(), a))
    .chain([(
        "create_sample_root",
        json!({"path": new_root("made-over-ipc")}),
        json!({"path": new_root("made-over-rest")}),
    )])
    .collect();

    for (op, ipc_args, rest_args) in &cases {
        let ipc = outcome(invoke(&w, op, ipc_args.clone()));
        let rest = outcome(server.call(op, rest_args));
        assert_eq!(ipc, rest, "{op} {ipc_args}");
    }
    // Curation: each host changes its own copy of the entry both appends added, then undo,
    // redo and review; the answers must match.
    let parity_ids = |w: &Window| -> Vec<Value> {
        let view = invoke(w, "memory_view", json!({"agent": "assistant"})).unwrap();
        view["archival"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["content"] == "parity check" || e["content"] == "parity edited")
            .map(|e| json!({"id": e["id"], "expect": e["content"]}))
            .collect()
    };
    let ids = parity_ids(&w);
    assert_eq!(ids.len(), 2, "both appends landed");
    let edit = |e: &Value| json!({"agent": "assistant", "id": e["id"], "expect": e["expect"], "content": "parity edited"});
    let mut curation: Vec<(&str, Value, Value)> = vec![
        ("edit_entry", edit(&ids[0]), edit(&ids[1])),
        (
            "edit_entry",
            json!({"agent": "assistant", "id": "a0-00000000", "content": "x"}),
            json!({"agent": "assistant", "id": "a0-00000000", "content": "x"}),
        ),
        (
            "selection_impact",
            json!({"agent": "assistant", "ids": [], "action": "delete"}),
            json!({"agent": "assistant", "ids": [], "action": "delete"}),
        ),
        (
            "move_entries",
            json!({"agent": "assistant", "entries": [{"id": "nope"}], "to": "core"}),
            json!({"agent": "assistant", "entries": [{"id": "nope"}], "to": "core"}),
        ),
        (
            "restore_entry",
            json!({"agent": "assistant", "change_id": "nope", "entry_id": "x"}),
            json!({"agent": "assistant", "change_id": "nope", "entry_id": "x"}),
        ),
        (
            "review_status",
            json!({"agent": "assistant"}),
            json!({"agent": "assistant"}),
        ),
        (
            "mark_reviewed",
            json!({"agent": "assistant"}),
            json!({"agent": "assistant"}),
        ),
    ];
    for (op, ipc_args, rest_args) in &curation {
        let ipc = outcome(invoke(&w, op, ipc_args.clone()));
        let rest = outcome(server.call(op, rest_args));
        assert_eq!(ipc, rest, "{op} {ipc_args}");
    }
    let ids = parity_ids(&w);
    let del = |e: &Value| json!({"agent": "assistant", "entries": [e]});
    let ipc = outcome(invoke(&w, "delete_entries", del(&ids[0])));
    let rest = outcome(server.call("delete_entries", &del(&ids[1])));
    assert_eq!(ipc, rest, "delete_entries");
    for op in ["undo_change", "undo_change", "redo_change"] {
        let a = json!({"agent": "assistant"});
        let ipc = outcome(invoke(&w, op, a.clone()));
        let rest = outcome(server.call(op, &a));
        // Each host takes back the newest change in effect: the same kind of answer.
        assert_eq!(ipc["ok"]["op"], rest["ok"]["op"], "{op}: {ipc} / {rest}");
    }
    let h = json!({"agent": "assistant", "limit": 3});
    assert_eq!(
        outcome(invoke(&w, "memory_history", h.clone())),
        outcome(server.call("memory_history", &h))
    );
    curation.extend(
        [
            "delete_entries",
            "undo_change",
            "redo_change",
            "memory_history",
        ]
        .map(|op| (op, json!({}), json!({}))),
    );
    let covered: std::collections::BTreeSet<&str> =
        cases.iter().chain(curation.iter()).map(|c| c.0).collect();
    for op in oryx_api::ops::NAMES {
        assert!(
            covered.contains(op),
            "operation {op} has no parity case: add one"
        );
    }
    // Both appends landed, once each: edited, deleted, and back after the undos and redos.
    let view = invoke(&w, "memory_view", json!({"agent": "assistant"})).unwrap();
    let landed = view["archival"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["content"] == "parity edited")
        .count();
    assert_eq!(landed, 2);
    eprintln!(
        "{} cases over {} operations agree",
        cases.len(),
        oryx_api::ops::NAMES.len()
    );
}

#[test]
fn a_missing_operation_is_invalid_input_on_both_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    oryx_core::demo::write_sample(&root).unwrap();
    let settings = dir.path().join("settings.json");
    let w = app(&root, &settings);
    let ipc =
        common::invoke_command(&w, "console", json!({"op": "drop_all", "args": {}})).unwrap_err();
    assert_eq!(ipc["code"], "invalid_input");
    let server = Server::start(&root, &settings);
    let res = server
        .http
        .post(format!("{}/api/v1/console/drop_all", server.base))
        .json(&json!({}))
        .send()
        .unwrap();
    assert_eq!(res.status(), 404);
    let bad = server.call("get_agent", &json!({"nom": "x"})).unwrap_err();
    assert_eq!(bad["code"], "invalid_input");
    assert!(bad["message"].as_str().unwrap().contains("name"), "{bad}");
}
