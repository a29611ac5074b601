//! Issue #16 through the real `oryx` binary, in the documented forms: export a root, import it
//! into another root and backend (dry run, then for real, then again adding nothing), an agent
//! renamed on the way, and memory as of a moment and between two moments.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

fn run(config: &Path, root: &Path, backend: &str, args: &[&str]) -> Output {
    common::oryx(config)
        .args(["--root", root.to_str().unwrap(), "--backend", backend])
        .args(args)
        .output()
        .unwrap()
}

fn json(config: &Path, root: &Path, backend: &str, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = run(config, root, backend, &all);
    assert!(
        out.status.success(),
        "oryx {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn entries(v: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for scope in ["core", "archival"] {
        for e in v[scope].as_array().unwrap() {
            out.push((
                scope.to_string(),
                e["timestamp"].as_str().unwrap_or("").to_string(),
                e["content"].as_str().unwrap().to_string(),
            ));
        }
    }
    out
}

fn new_root(dir: &Path, name: &str) -> PathBuf {
    let r = dir.join(name);
    std::fs::create_dir_all(r.join("agents")).unwrap();
    r
}

#[test]
fn export_then_import_into_another_root_and_backend_in_the_documented_forms() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    let src = dir.path().join("src");
    let out = common::oryx(&config)
        .args(["demo", src.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let archive = dir.path().join("all.oryx.zip");
    let a = archive.to_str().unwrap();
    let r = json(
        &config,
        &src,
        "markdown",
        &["export", "--all", "--sessions", a],
    );
    assert!(r["bytes"].as_u64().unwrap() > 1000, "{r}");
    assert!(r["sessions"].as_u64().unwrap() > 0, "{r}");
    let want = entries(&json(
        &config,
        &src,
        "markdown",
        &["memory", "show", "--agent", "assistant"],
    ));

    let dst = new_root(dir.path(), "dst");
    let dry = json(
        &config,
        &dst,
        "markdown",
        &["import", a, "--dry-run", "--into-backend", "sqlite"],
    );
    let assistant = dry["owners"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["owner"] == "assistant")
        .unwrap();
    assert_eq!(assistant["new"].as_u64().unwrap() as usize, want.len());
    assert!(
        !dst.join("agents/assistant").exists(),
        "a dry run writes nothing"
    );

    let done = json(
        &config,
        &dst,
        "markdown",
        &["import", a, "--into-backend", "sqlite"],
    );
    assert!(done["sessions_not_imported"].as_u64().unwrap() > 0);
    assert!(dst.join("agents/assistant/AGENT.md").is_file());
    let got = entries(&json(
        &config,
        &dst,
        "sqlite",
        &["memory", "show", "--agent", "assistant"],
    ));
    assert_eq!(got, want);
    let again = json(&config, &dst, "sqlite", &["import", a]);
    for o in again["owners"].as_array().unwrap() {
        assert_eq!(o["new"], 0, "{o}");
    }

    // Renamed on the way, into markdown: the file goes over byte for byte.
    let third = new_root(dir.path(), "third");
    json(
        &config,
        &third,
        "markdown",
        &["import", a, "--agent-map", "assistant=helper"],
    );
    assert_eq!(
        std::fs::read(third.join("agents/helper/MEMORY.md")).unwrap(),
        std::fs::read(src.join("agents/assistant/MEMORY.md")).unwrap()
    );
    let agent = json(&config, &third, "markdown", &["agent", "helper"]);
    assert_eq!(agent["summary"]["name"], "helper", "{agent}");
    assert!(
        agent["summary"]["warnings"].as_array().unwrap().is_empty(),
        "{agent}"
    );
    // Its skills came along as links to the root's skills, which came too.
    for s in agent["skills"].as_array().unwrap() {
        assert!(s["warnings"].as_array().unwrap().is_empty(), "{s}");
    }
    assert!(!agent["skills"].as_array().unwrap().is_empty());
    // A bad mapping is refused before anything is read.
    let bad = run(
        &config,
        &third,
        "markdown",
        &["import", a, "--agent-map", "assistant"],
    );
    assert_ne!(bad.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("OLD=NEW"));
}

#[test]
fn memory_as_of_a_moment_and_the_diff_between_two() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    let root = dir.path().join("root");
    let out = common::oryx(&config)
        .args(["demo", root.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let now = json(
        &config,
        &root,
        "markdown",
        &["memory", "show", "--agent", "assistant"],
    );
    let arch = now["archival"].as_array().unwrap();
    let mid = arch[arch.len() / 2]["timestamp"]
        .as_str()
        .unwrap()
        .to_string();
    let then = json(
        &config,
        &root,
        "markdown",
        &["memory", "asof", "--agent", "assistant", &mid],
    );
    let then_arch = then["archival"].as_array().unwrap();
    assert_eq!(
        then_arch.len(),
        arch.len() / 2 + 1,
        "entries up to and including {mid}"
    );
    assert!(then_arch
        .iter()
        .all(|e| e["timestamp"].as_str().unwrap() <= mid.as_str()));
    assert!(then["context"].as_str().unwrap().contains("## 核心记忆"));
    // Delete one entry now: today differs from a minute ago by exactly that entry.
    let victim = &arch[0];
    json(
        &config,
        &root,
        "markdown",
        &[
            "memory",
            "delete",
            "--agent",
            "assistant",
            victim["id"].as_str().unwrap(),
        ],
    );
    let d = json(
        &config,
        &root,
        "markdown",
        &["memory", "diff", "--agent", "assistant", &mid, "2999-01-01"],
    );
    let removed = d["removed"].as_array().unwrap();
    assert_eq!(removed.len(), 1, "{d}");
    assert_eq!(removed[0]["content"], victim["content"]);
    assert_eq!(
        d["added"].as_array().unwrap().len(),
        arch.len() - arch.len() / 2 - 1
    );
    let bad = run(&config, &root, "markdown", &["memory", "asof", "yesterday"]);
    assert_ne!(bad.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not a moment"));
}
