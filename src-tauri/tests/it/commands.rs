//! The commands through Tauri's mock runtime: real IPC serialisation, real files, no window.

use crate::common::{app, app_with, invoke};
use oryx_api::Console;
use oryx_core::config::Overrides;
use serde_json::{json, Value};

fn sample() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    oryx_core::demo::write_sample(&root).unwrap();
    (dir, root)
}

#[test]
fn lists_agents_and_appends_memory_through_ipc() {
    let (dir, root) = sample();
    let w = app(&root, &dir.path().join("settings.json"));
    let list = invoke(&w, "list_agents", json!({})).unwrap();
    let names: Vec<&str> = list["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"assistant"));
    let added = invoke(
        &w,
        "append_memory",
        json!({"agent": "assistant", "scope": "archival", "content": "from the desktop\nshell"}),
    )
    .unwrap();
    assert_eq!(added["entry"]["content"], "from the desktop shell");
    let text = std::fs::read_to_string(root.join("agents/assistant/MEMORY.md")).unwrap();
    assert!(text.trim_end().ends_with("] from the desktop shell"));
    let view = invoke(&w, "memory_view", json!({"agent": "assistant"})).unwrap();
    assert_eq!(
        view["archival"].as_array().unwrap().last().unwrap()["in_window"],
        true
    );
}

#[test]
fn errors_cross_as_code_and_message() {
    let (dir, root) = sample();
    let w = app(&root, &dir.path().join("settings.json"));
    let err = invoke(&w, "memory_view", json!({"agent": "../etc"})).unwrap_err();
    assert_eq!(err["code"], "invalid_agent_name");
    assert!(err["message"].as_str().unwrap().contains("../etc"));
    let err = invoke(&w, "get_session", json!({"id": "nope"})).unwrap_err();
    assert_eq!(err["code"], "session_not_found");
}

#[test]
fn settings_switch_backend_at_once() {
    let (dir, root) = sample();
    let settings = dir.path().join("settings.json");
    let console = Console::open(Some(settings.clone()), Overrides::default()).unwrap();
    let w = app_with(console);
    let mut s = invoke(&w, "get_settings", json!({})).unwrap()["settings"].clone();
    s["root"] = json!(root.display().to_string());
    s["backend"] = json!("sqlite");
    let view = invoke(&w, "update_settings", s).unwrap();
    assert_eq!(view["effective"]["backend"], "sqlite");
    let mem = invoke(&w, "memory_view", json!({"agent": "assistant"})).unwrap();
    assert_eq!(mem["backend"], "sqlite");
    assert!(mem["archival"][0]["content"]
        .as_str()
        .unwrap()
        .starts_with("[sqlite]"));
    assert!(std::fs::read_to_string(&settings)
        .unwrap()
        .contains("sqlite"));
}

#[test]
fn capabilities_grant_exactly_our_commands_and_the_dialog() {
    let cap: Value = serde_json::from_str(include_str!("../../capabilities/default.json")).unwrap();
    let perms: Vec<String> = cap["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    let mut expected: Vec<String> = oryx_desktop::command_names::NAMES
        .iter()
        .map(|c| format!("allow-{}", c.replace('_', "-")))
        .collect();
    expected.extend(
        [
            "core:event:allow-listen",
            "core:event:allow-unlisten",
            "dialog:allow-open",
        ]
        .map(String::from),
    );
    let (mut a, mut b) = (perms.clone(), expected);
    a.sort();
    b.sort();
    assert_eq!(a, b);
    let conf: Value = serde_json::from_str(include_str!("../../../tauri.conf.json")).unwrap();
    let csp = conf["app"]["security"]["csp"].as_str().unwrap();
    assert!(
        !csp.contains("unsafe-eval") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
}
