//! `oryx runtime` on a runtime install laid out as the runtime's start script lays it out: the
//! install dir or its `.oryxos` finds the other, the configuration is read with each value's
//! source (environment set only in the child process), `runtime set` changes only that value's
//! bytes, and a running runtime (a real child process holding the pid file) is detected.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::oryx;

const CONFIG: &str = "# runtime configuration\nserver:\n  port: 9999   # not used under the start script\nmemory:\n  backend: sqlite             # the agents' backend\n  recall:\n    topK: 12\n    weight:\n      semantic: 2.0\n  mem0:\n    base-url: ${MEM0_BASE_URL:}\n    user-id: ${MEM0_USER_ID:team}\nembedding:\n  provider: ''\noryxos:\n  providers:\n    - name: deepseek\n      api-key: sk-secretvalue\n      base-url: https://api.deepseek.com\n    - name: mock\n";

struct Install {
    dir: tempfile::TempDir,
}

impl Install {
    /// An install dir with `.oryxos/agents/a`, `config/application.yml`, and (with `db`) the
    /// runtime's database with its providers rows.
    fn new(config: Option<&str>, db: bool) -> Install {
        let i = Install {
            dir: tempfile::tempdir().unwrap(),
        };
        let d = i.path();
        std::fs::create_dir_all(d.join(".oryxos/agents/a")).unwrap();
        std::fs::write(
            d.join(".oryxos/agents/a/AGENT.md"),
            "---\nname: a\ndescription: test\n---\nYou are a.\n",
        )
        .unwrap();
        std::fs::create_dir_all(d.join("config")).unwrap();
        std::fs::create_dir_all(d.join("bin")).unwrap();
        std::fs::write(d.join("bin/start.sh"), "#!/bin/sh\n").unwrap();
        std::fs::write(d.join("config/application.yml.example"), CONFIG).unwrap();
        if let Some(c) = config {
            std::fs::write(d.join("config/application.yml"), c).unwrap();
        }
        if db {
            let conn = oryx_core::db::open_or_create(&d.join("oryxos.db"));
            // The install's database is the runtime's to create: write it here as it would.
            assert!(conn.is_err());
            let conn = rusqlite_free_open(&d.join("oryxos.db"));
            oryx_core::runtime::schema::create(&conn).unwrap();
            conn.execute_batch(
                "INSERT INTO providers VALUES ('mock', NULL, NULL, NULL, 0, 0);
                 INSERT INTO providers VALUES ('zhipu', 'zk-12345678', 'https://z', NULL, 0, 0);",
            )
            .unwrap();
        }
        i
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn cmd(&self, root: &Path) -> Command {
        let mut c = oryx(&self.path().join("console"));
        c.arg("--root").arg(root);
        for k in [
            "MEMORY_BACKEND",
            "MEM0_BASE_URL",
            "MEM0_API_KEY",
            "MEM0_USER_ID",
            "EMBEDDING_PROVIDER",
            "MEMORY_RECALL_TOPK",
        ] {
            c.env_remove(k);
        }
        c
    }

    fn info(&self, root: &Path, env: &[(&str, &str)]) -> Value {
        let out = self
            .cmd(root)
            .envs(env.iter().copied())
            .args(["runtime", "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn set(&self, key: &str, value: &str) -> Output {
        self.cmd(self.path())
            .args(["runtime", "set", key, value, "--json"])
            .output()
            .unwrap()
    }

    fn config(&self) -> String {
        std::fs::read_to_string(self.path().join("config/application.yml")).unwrap()
    }
}

/// A file created empty and opened for writing through oryx-core (the tests do not depend on
/// rusqlite directly).
fn rusqlite_free_open(db: &Path) -> oryx_core::db::Connection {
    std::fs::File::create(db).unwrap();
    oryx_core::db::open_existing(db).unwrap().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn the_install_or_its_root_reads_the_runtime_configuration() {
    let i = Install::new(Some(CONFIG), true);
    for root in [i.path().to_path_buf(), i.path().join(".oryxos")] {
        let v = i.info(&root, &[]);
        assert_eq!(v["kind"], "install");
        assert_eq!(v["install"], i.path().display().to_string());
        assert_eq!(v["backend"], "sqlite");
        assert_eq!(
            v["database"],
            i.path().join("oryxos.db").display().to_string()
        );
        assert_eq!(v["recall"]["topK"], 12);
        assert_eq!(v["recall"]["weights"]["semantic"], 2.0);
        assert_eq!(v["recall"]["weights"]["keyword"], 1.0);
        assert_eq!(v["mem0"]["userId"], "team");
        assert_eq!(v["running"], Value::Null);
        assert_eq!(v["sources"]["memory.backend"], "file");
        assert_eq!(v["sources"]["memory.recall.weight.keyword"], "default");
        // The providers table is what the runtime reads once it exists; keys masked.
        assert_eq!(v["providersFrom"], "table");
        let names: Vec<&str> = v["providers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["mock", "zhipu"]);
        assert_eq!(v["providers"][1]["apiKey"], "****5678");
    }
    // The settings in effect follow the runtime: its backend and its database beside .oryxos.
    let out = i
        .cmd(i.path())
        .args(["settings", "--json"])
        .output()
        .unwrap();
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["effective"]["backend"], "sqlite");
    assert_eq!(
        s["effective"]["db_path"],
        i.path().join("oryxos.db").display().to_string()
    );
    assert_eq!(s["effective"]["root_kind"], "install");
    // --backend views another backend and says so.
    let out = i
        .cmd(i.path())
        .args(["--backend", "markdown", "settings", "--json"])
        .output()
        .unwrap();
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["effective"]["backend"], "markdown");
    assert_eq!(s["effective"]["runtime_backend"], "sqlite");
    assert_eq!(s["effective"]["backend_override"], "--backend");
}

#[test]
fn environment_variables_override_the_file_as_spring_does() {
    let i = Install::new(Some(CONFIG), false);
    let v = i.info(
        i.path(),
        &[
            ("MEMORY_BACKEND", "mem0"),
            ("MEMORY_RECALL_TOPK", "4"),
            ("MEM0_BASE_URL", "http://mem0:8888"),
        ],
    );
    assert_eq!(v["backend"], "mem0");
    assert_eq!(v["sources"]["memory.backend"], "env");
    assert_eq!(v["recall"]["topK"], 4);
    assert_eq!(v["mem0"]["baseUrl"], "http://mem0:8888");
    assert_eq!(v["sources"]["memory.mem0.base-url"], "env");
    // No providers table yet: the configuration's list is what the runtime would seed.
    assert_eq!(v["providersFrom"], "config");
    assert_eq!(v["providers"][0]["apiKey"], "****alue");
    // An unknown backend is markdown in the runtime, with a warning.
    let v = i.info(i.path(), &[("MEMORY_BACKEND", "postgres")]);
    assert_eq!(v["backend"], "markdown");
    assert!(
        v["warnings"][0].as_str().unwrap().contains("markdown"),
        "{v}"
    );
}

#[test]
fn runtime_set_changes_only_that_values_bytes_and_undo_puts_them_back() {
    let i = Install::new(Some(CONFIG), true);
    let out = i.set("memory.recall.top-k", "30");
    assert!(out.status.success(), "{}", text(&out));
    // The file spells it topK: that line changes, every other byte stays.
    assert_eq!(i.config(), CONFIG.replace("topK: 12", "topK: 30"));
    let out = i.set("memory.backend", "markdown");
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        i.config(),
        CONFIG
            .replace("topK: 12", "topK: 30")
            .replace("backend: sqlite", "backend: markdown")
    );
    // A key the file does not have is added to its block.
    assert!(i
        .set("memory.recall.weight.recency", "0.5")
        .status
        .success());
    let v = i.info(i.path(), &[]);
    assert_eq!(v["recall"]["weights"]["recency"], 0.5);
    assert_eq!(v["backend"], "markdown");
    assert!(i.set("embedding.provider", "zhipu").status.success());
    for _ in 0..4 {
        let out = i.cmd(i.path()).args(["runtime", "undo"]).output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
    assert_eq!(i.config(), CONFIG);
}

#[test]
fn refused_keys_values_and_a_missing_config_file() {
    let i = Install::new(Some(CONFIG), true);
    for (k, v) in [
        ("server.port", "81"),
        ("memory.backend", "postgres"),
        ("memory.recall.top-k", "0"),
        ("memory.recall.top-k", "2.5"),
        ("memory.recall.weight.keyword", "-1"),
        ("memory.recall.weight.keyword", "NaN"),
        ("embedding.provider", "openai"),
    ] {
        let out = i.set(k, v);
        assert_eq!(out.status.code(), Some(2), "{k}={v}: {}", text(&out));
    }
    assert_eq!(i.config(), CONFIG);
    let bare = Install::new(None, false);
    let out = bare.set("memory.backend", "sqlite");
    assert!(!out.status.success());
    assert!(
        text(&out).contains("application.yml.example"),
        "{}",
        text(&out)
    );
    assert!(!bare.path().join("config/application.yml").exists());
}

#[test]
fn a_write_never_creates_the_install_database() {
    let i = Install::new(Some(CONFIG), false);
    let out = i
        .cmd(i.path())
        .args(["memory", "add", "--agent", "a", "--scope", "core", "x"])
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("oryxos.db"), "{}", text(&out));
    assert!(!i.path().join("oryxos.db").exists());
    assert!(!i.path().join(".oryxos/oryxos.db").exists());
}

#[cfg(unix)]
#[test]
fn a_running_runtime_is_detected_and_changes_wait_for_its_restart() {
    use std::os::unix::process::CommandExt;
    let i = Install::new(Some(CONFIG), true);
    // A process whose command line reads as the start script's java one.
    let mut child = Command::new("/bin/sh")
        .arg0("java")
        .args([
            "-c",
            "sleep 60; :",
            "-Dmemory.recall.weight.keyword=3.0",
            "-jar",
            "oryxos-boot-1.0.jar",
            "serve",
            "--port",
            "9123",
        ])
        .spawn()
        .unwrap();
    std::fs::write(i.path().join("bin/oryxos.pid"), child.id().to_string()).unwrap();
    let v = i.info(i.path(), &[]);
    assert_eq!(v["running"]["pid"], child.id());
    assert_eq!(v["running"]["port"], 9123);
    assert_eq!(v["sources"]["memory.recall.weight.keyword"], "cmdline");
    assert_eq!(v["recall"]["weights"]["keyword"], 3.0);
    let out = i.set("memory.backend", "markdown");
    let change: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(change["restartNeeded"], true);
    assert!(change["message"].as_str().unwrap().contains("restart"));
    let v = i.info(i.path(), &[]);
    assert_eq!(v["pending"][0]["key"], "memory.backend");
    assert_eq!(v["pending"][0]["running"], "sqlite");
    assert_eq!(v["pending"][0]["configured"], "markdown");
    child.kill().unwrap();
    child.wait().unwrap();
    let v = i.info(i.path(), &[]);
    assert_eq!(v["running"], Value::Null);
    assert_eq!(v["pending"], Value::Array(vec![]));
}

#[test]
fn oryx_demo_writes_an_install() {
    let t = tempfile::tempdir().unwrap();
    let dir: PathBuf = t.path().join("inst");
    let out = oryx(&t.path().join("console"))
        .args(["demo", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(dir.join(".oryxos/agents/assistant/AGENT.md").is_file());
    assert!(dir.join("oryxos.db").is_file());
    assert!(!dir.join(".oryxos/oryxos.db").exists());
    let v: Value = serde_json::from_slice(
        &oryx(&t.path().join("console"))
            .args(["--root", dir.to_str().unwrap(), "runtime", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(v["kind"], "install");
    assert_eq!(v["backend"], "markdown");
    assert_eq!(v["providersFrom"], "table");
    assert!(v["providers"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["name"] == "mock"));
    assert_eq!(v["warnings"], Value::Array(vec![]));
}
