//! Concurrent writers through the real entry points: 8 `oryx memory add` processes
//! appending archival entries, a ninth rewriting core with `oryx memory add --scope core`, and
//! the console (`oryx serve`, its REST append) writing at the same time, on one MEMORY.md and on
//! the sqlite backend. Every confirmed entry must be there once, and the file must parse.
//! `ORYX_RELIABILITY_SCALE=N` (`make reliability`) multiplies the counts (8 × 25 → 8 × 25·N).

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use serde_json::{json, Value};

const APPENDERS: usize = 8;

fn scale() -> usize {
    std::env::var("ORYX_RELIABILITY_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
}

fn oryx(config: &Path, root: &Path, backend: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_oryx"));
    c.env("ORYXOS_CONFIG_DIR", config)
        .env_remove("ORYXOS_ROOT")
        .env_remove("ORYXOS_DB")
        .env_remove("ORYX_TOKEN")
        .args(["--root", root.to_str().unwrap(), "--backend", backend]);
    c
}

struct Serve(Child, String);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(config: &Path, root: &Path, backend: &str) -> Serve {
    let mut cmd = oryx(config, root, backend);
    cmd.args(["serve", "--bind", "127.0.0.1:0"]);
    let (child, base) = common::spawn_serve(cmd);
    Serve(child, base)
}

fn add(config: &Path, root: &Path, backend: &str, scope: &str, text: &str) {
    let out = oryx(config, root, backend)
        .args([
            "memory",
            "add",
            "--agent",
            "assistant",
            "--scope",
            scope,
            text,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "oryx memory add {text}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn run(backend: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (config, root): (PathBuf, PathBuf) = (dir.path().join("config"), dir.path().join("root"));
    let demo = oryx(&config, &root, "markdown")
        .args(["demo", "--bare", root.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(demo.status.success());
    let per = 25 * scale();
    let server = serve(&config, &root, backend);
    let base = server.1.clone();

    std::thread::scope(|s| {
        for p in 0..APPENDERS {
            let (config, root) = (&config, &root);
            s.spawn(move || {
                for i in 0..per {
                    add(config, root, backend, "archival", &format!("cli-{p}-{i}"));
                }
            });
        }
        let (config, root) = (&config, &root);
        s.spawn(move || {
            for i in 0..per / 5 {
                add(config, root, backend, "core", &format!("core-{i}"));
            }
        });
        let base = &base;
        s.spawn(move || {
            let client = reqwest::blocking::Client::new();
            for i in 0..per {
                let r: Value = client
                    .post(format!("{base}/api/v1/console/memory"))
                    .json(&json!({"agent": "assistant", "scope": "archival", "content": format!("rest-{i}")}))
                    .send()
                    .unwrap()
                    .json()
                    .unwrap();
                assert_eq!(r["code"], 0, "REST append rest-{i}: {r}");
            }
        });
    });
    drop(server);

    let out = oryx(&config, &root, backend)
        .args(["--json", "memory", "show", "--agent", "assistant"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let view: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for scope in ["core", "archival"] {
        for e in view[scope].as_array().unwrap() {
            *seen
                .entry(e["content"].as_str().unwrap().to_string())
                .or_default() += 1;
        }
    }
    let mut want: Vec<String> = (0..APPENDERS)
        .flat_map(|p| (0..per).map(move |i| format!("cli-{p}-{i}")))
        .collect();
    want.extend((0..per).map(|i| format!("rest-{i}")));
    want.extend((0..per / 5).map(|i| format!("core-{i}")));
    let missing: Vec<_> = want.iter().filter(|w| !seen.contains_key(*w)).collect();
    let doubled: Vec<_> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        missing.is_empty(),
        "{backend}: {} lost, e.g. {:?}",
        missing.len(),
        &missing[..missing.len().min(5)]
    );
    assert!(doubled.is_empty(), "{backend}: doubled {doubled:?}");
    eprintln!(
        "{backend}: {} CLI + {per} REST archival appends and {} core adds from {} processes: all held",
        APPENDERS * per,
        per / 5,
        APPENDERS + 2
    );
    if backend == "markdown" {
        let text = std::fs::read_to_string(root.join("agents/assistant/MEMORY.md")).unwrap();
        for line in text
            .lines()
            .filter(|l| l.contains("cli-") || l.contains("rest-"))
        {
            assert!(line.starts_with("- ["), "torn line {line:?}");
        }
        let dir = root.join("agents/assistant");
        let strays: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(strays.is_empty(), "temp files left: {strays:?}");
    }
}

#[test]
fn cli_processes_and_the_console_append_to_one_memory_md() {
    run("markdown");
}

#[test]
fn cli_processes_and_the_console_append_to_sqlite() {
    run("sqlite");
}
