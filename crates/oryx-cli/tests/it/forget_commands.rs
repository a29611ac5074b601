//! `oryx memory forget` on the sample install: a secret planted through the runtime's own paths
//! (its save_memory call and session, the tool path's append and `memory_vectors` row), a console
//! edit that puts it in the history, the console's index, an export and a git commit. The dry
//! run lists every copy by place; the forget leaves no byte of it in the install (database and
//! WAL included) or the console's data, except where the receipt says it was left (the archive
//! handed over, git history); every other row and file is as it was; a text found nowhere
//! changes nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::demo_install::DemoInstall;
use crate::common::oryx;

const SECRET: &str = "sk-live-7f3a9c1e5b-forget-test";
/// A text the sample install's own save_memory calls and sessions hold.
const DEMO_SAVED: &str = "用户更喜欢早上收到简报";

/// Every file under `dirs` (but git's objects: compressed, and listed by the receipt) with its
/// bytes.
fn files(dirs: &[PathBuf]) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(p: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        let Ok(read) = std::fs::read_dir(p) else {
            return;
        };
        for e in read.flatten() {
            let path = e.path();
            if path.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if path.is_dir() {
                walk(&path, out);
            } else if let Ok(b) = std::fs::read(&path) {
                out.insert(path, b);
            }
        }
    }
    let mut out = BTreeMap::new();
    for d in dirs {
        walk(d, &mut out);
    }
    out
}

fn holds(bytes: &[u8], text: &str) -> bool {
    bytes.windows(text.len()).any(|w| w == text.as_bytes())
}

/// Every row of every table, as text, with whether it holds `text`.
fn rows(db: &Path, text: &str) -> Vec<(String, bool)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = Vec::new();
    for t in tables {
        let mut stmt = conn.prepare(&format!("SELECT * FROM \"{t}\"")).unwrap();
        let n = stmt.column_count();
        let mut q = stmt.query([]).unwrap();
        while let Some(r) = q.next().unwrap() {
            let cells: Vec<String> = (0..n)
                .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                .collect();
            let line = format!("{t}: {}", cells.join(" | "));
            let held = (0..n).any(|i| match r.get_ref(i).unwrap() {
                rusqlite::types::ValueRef::Text(b) | rusqlite::types::ValueRef::Blob(b) => {
                    holds(b, text)
                }
                _ => false,
            });
            out.push((line, held));
        }
    }
    out
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

fn places(list: &Value) -> Vec<String> {
    let mut p: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["place"].as_str().unwrap().to_string())
        .collect();
    p.sort();
    p.dedup();
    p
}

#[test]
fn a_planted_secret_leaves_every_copy_but_those_the_receipt_names() {
    let inst = DemoInstall::new();
    let db = inst.dir.join("oryxos.db");
    let planted = format!("deploy key {SECRET}");
    // The runtime's records: its save_memory calls and sessions (the user's words and the
    // assistant's tool-call arguments) as the sample laid them out, now holding the secret.
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let n = conn
            .execute(
                "UPDATE tool_invocations SET input_json = replace(input_json, ?1, ?2)",
                [DEMO_SAVED, planted.as_str()],
            )
            .unwrap();
        assert!(n > 0);
        conn.execute(
            "UPDATE sessions SET messages_json = replace(messages_json, ?1, ?2)",
            [DEMO_SAVED, planted.as_str()],
        )
        .unwrap();
    }
    // The runtime's run path: save_memory appends it, and its memory_vectors row follows.
    inst.run(&[
        "tool",
        "save_memory",
        "--agent",
        "assistant",
        "--input",
        &serde_json::json!({"content": planted, "scope": "archival"}).to_string(),
    ]);
    // A console edit: the history keeps the text before it.
    let shown = inst.json(&["memory", "show", "--agent", "assistant"]);
    let id = shown["archival"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["content"] == planted.as_str())
        .map(|e| e["id"].as_str().unwrap().to_string())
        .unwrap();
    inst.run(&[
        "memory",
        "edit",
        "--agent",
        "assistant",
        &id,
        &format!("{planted} (prod)"),
    ]);
    // The console's index, an export, a git commit of the root.
    inst.run(&["index", "build", "--agent", "assistant"]);
    let archive = inst.t.path().join("assistant.oryx.zip");
    inst.run(&["export", "--agent", "assistant", archive.to_str().unwrap()]);
    git(&inst.dir, &["init", "-q"]);
    git(&inst.dir, &["add", ".oryxos"]);
    git(&inst.dir, &["commit", "-qm", "memory"]);

    let dirs = [inst.dir.clone(), inst.config()];
    let before = files(&dirs);
    let rows_before = rows(&db, SECRET);
    assert!(rows_before.iter().any(|(_, h)| *h));

    // The dry run lists every place, changes nothing.
    let dry = inst.json(&[
        "memory",
        "forget",
        "--agent",
        "assistant",
        "--text",
        SECRET,
        "--dry-run",
    ]);
    let found = places(&dry["found"]);
    for p in [
        "memory",
        "history",
        "journal",
        "console_index",
        "runtime_tool_calls",
        "runtime_sessions",
        "runtime_vectors",
        "archives",
    ] {
        assert!(found.contains(&p.to_string()), "{p} missing from {found:?}");
    }
    assert_eq!(places(&dry["left"]), ["git"]);
    assert!(dry["runtime_records"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r == "tool_invocations.input_json"));
    assert!(files(&dirs) == before, "a dry run changed a file");

    // The forget.
    let done = inst.json(&["memory", "forget", "--agent", "assistant", "--text", SECRET]);
    assert_eq!(done["state"], "done", "{done}");
    let receipt = done["receipt"].as_str().unwrap().to_string();
    let left = places(&done["left"]);
    assert_eq!(left, ["archives", "git"], "{}", done["left"]);
    for l in done["left"].as_array().unwrap() {
        assert!(!l["reason"].as_str().unwrap().is_empty());
    }

    // No byte of it anywhere in the install or the console's data.
    let after = files(&dirs);
    let holding: Vec<&PathBuf> = after
        .iter()
        .filter(|(_, b)| holds(b, SECRET))
        .map(|(p, _)| p)
        .collect();
    assert!(holding.is_empty(), "still holding the secret: {holding:?}");
    // The archive handed over is the person's: kept as it was, and named.
    assert_eq!(
        after.get(&archive.canonicalize().unwrap()),
        before.get(&archive.canonicalize().unwrap())
    );
    // The receipt keeps a hash, never the text.
    let receipts = inst.config().join("index/forget-receipts");
    let r: Value =
        serde_json::from_slice(&std::fs::read(receipts.join(format!("{receipt}.json"))).unwrap())
            .unwrap();
    assert_eq!(r["state"], "done");

    // Every row that did not hold it is as it was; the rows that did now say [forgotten].
    let rows_after = rows(&db, SECRET);
    assert!(rows_after.iter().all(|(_, h)| !h));
    for (row, held) in &rows_before {
        if !held {
            assert!(
                rows_after.iter().any(|(r, _)| r == row),
                "a row that did not hold the secret changed: {row}"
            );
        }
    }
    let conn = rusqlite::Connection::open(&db).unwrap();
    let forgotten: Vec<String> = conn
        .prepare("SELECT input_json FROM tool_invocations WHERE input_json LIKE '%[forgotten]%'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(!forgotten.is_empty());
    for j in forgotten {
        serde_json::from_str::<Value>(&j).expect("the redacted JSON is valid");
    }
    // Files that never held it are byte-identical (the database, its sidecars and the files
    // that held it aside; the console's lock files are rewritten by every write).
    for (path, bytes) in &before {
        let name = path.file_name().unwrap().to_string_lossy();
        let changed_on_purpose = holds(bytes, SECRET)
            || name.starts_with("oryxos.db")
            || name.ends_with(".lock")
            || path.starts_with(&receipts);
        if !changed_on_purpose {
            assert!(after.get(path) == Some(bytes), "{} changed", path.display());
        }
    }

    // The history shows the forgotten changes, and offers no undo of them.
    let history = inst.json(&["memory", "history", "--agent", "assistant"]);
    assert!(history["changes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| !c["forgotten"].is_null()));
    let undo = oryx(&inst.config())
        .args([
            "--root",
            inst.root().to_str().unwrap(),
            "memory",
            "undo",
            "--agent",
            "assistant",
        ])
        .output()
        .unwrap();
    assert!(!undo.status.success());
    assert!(String::from_utf8_lossy(&undo.stderr).contains("forgotten"));

    // A text found nowhere changes nothing (compared after a dry run, which opens the same
    // files the way any command does).
    inst.json(&[
        "memory",
        "forget",
        "--all-agents",
        "--text",
        "no-such-text-anywhere-31",
        "--dry-run",
    ]);
    let quiet = files(&dirs);
    let quiet_rows = rows(&db, SECRET);
    let none = inst.json(&[
        "memory",
        "forget",
        "--all-agents",
        "--text",
        "no-such-text-anywhere-31",
    ]);
    assert_eq!(none["found"].as_array().unwrap().len(), 0);
    let now = files(&dirs);
    let changed: Vec<&PathBuf> = now
        .keys()
        .chain(quiet.keys())
        .filter(|p| !p.starts_with(&receipts) && now.get(*p) != quiet.get(*p))
        // SQLite's own housekeeping of the WAL when a connection closes: compared by rows.
        .filter(|p| {
            !p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("oryxos.db")
        })
        .collect();
    assert!(
        changed.is_empty(),
        "a forget of a text found nowhere changed {changed:?}"
    );
    assert!(
        rows(&db, SECRET) == quiet_rows,
        "a forget of a text found nowhere changed a row"
    );
}

#[test]
fn a_forget_killed_midway_leaves_a_receipt_and_running_it_again_completes() {
    let inst = DemoInstall::new();
    let db = inst.dir.join("oryxos.db");
    let planted = format!("deploy key {SECRET}");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute(
            "UPDATE tool_invocations SET input_json = replace(input_json, ?1, ?2)",
            [DEMO_SAVED, planted.as_str()],
        )
        .unwrap();
        conn.execute(
            "UPDATE sessions SET messages_json = replace(messages_json, ?1, ?2)",
            [DEMO_SAVED, planted.as_str()],
        )
        .unwrap();
    }
    for agent in ["assistant", "researcher", "log_analyst"] {
        inst.run(&[
            "memory", "add", "--agent", agent, "--scope", "archival", &planted,
        ]);
    }
    let receipts = inst.config().join("index/forget-receipts");
    // Killed as soon as its receipt exists: it was about to erase, or already had.
    let mut child = oryx(&inst.config())
        .args(["--root", inst.root().to_str().unwrap()])
        .args(["memory", "forget", "--all-agents", "--text", SECRET])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::fs::read_dir(&receipts).map_or(true, |mut d| d.next().is_none()) {
        assert!(
            std::time::Instant::now() < deadline,
            "no receipt was written"
        );
        std::thread::yield_now();
    }
    let _ = child.kill();
    child.wait().unwrap();
    let receipt: Value = serde_json::from_slice(
        &std::fs::read(
            std::fs::read_dir(&receipts)
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path(),
        )
        .unwrap(),
    )
    .unwrap();
    assert!(
        receipt["state"] == "started" || receipt["state"] == "done",
        "{receipt}"
    );
    // Every file holds the old state or the new: the database is whole, the memory and its
    // history read.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let ok: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
    drop(conn);
    for agent in ["assistant", "researcher", "log_analyst"] {
        inst.run(&["memory", "show", "--agent", agent]);
        inst.run(&["memory", "history", "--agent", agent]);
    }
    // Again: it completes.
    let again = inst.json(&["memory", "forget", "--all-agents", "--text", SECRET]);
    assert_eq!(again["state"], "done", "{again}");
    let held: Vec<PathBuf> = files(&[inst.dir.clone(), inst.config()])
        .into_iter()
        .filter(|(_, b)| holds(b, SECRET))
        .map(|(p, _)| p)
        .collect();
    assert!(held.is_empty(), "still holding the secret: {held:?}");
}

#[test]
fn on_the_sqlite_backend_the_rows_their_history_and_the_consoles_indexes_forget_it_too() {
    let inst = DemoInstall::new();
    let db = inst.dir.join("oryxos.db");
    inst.run(&["runtime", "set", "memory.backend", "sqlite"]);
    let planted = format!("staging token {SECRET}");
    // A session the user typed it in: the console's episodic index keeps its fragments.
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let n = conn
            .execute(
                "UPDATE sessions SET messages_json = replace(messages_json, ?1, ?2)",
                [DEMO_SAVED, planted.as_str()],
            )
            .unwrap();
        assert!(n > 0);
    }
    // Rows of the sqlite backend (its history sidecar keeps the text before an edit).
    inst.run(&[
        "memory",
        "add",
        "--agent",
        "assistant",
        "--scope",
        "archival",
        &planted,
    ]);
    inst.run(&[
        "memory",
        "add",
        "--agent",
        "researcher",
        "--scope",
        "core",
        &planted,
    ]);
    let shown = inst.json(&["memory", "show", "--agent", "assistant"]);
    let id = shown["archival"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["content"] == planted.as_str())
        .map(|e| e["id"].as_str().unwrap().to_string())
        .unwrap();
    inst.run(&[
        "memory",
        "edit",
        "--agent",
        "assistant",
        &id,
        &format!("{planted} (staging)"),
    ]);
    // The console's vector index of the rows, and its episodic index of the sessions.
    let settings = inst.config().join("settings.json");
    let mut s: Value = std::fs::read(&settings)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_else(|| serde_json::json!({}));
    s["episodic_enabled"] = Value::Bool(true);
    std::fs::write(&settings, serde_json::to_vec(&s).unwrap()).unwrap();
    inst.run(&["index", "build"]);
    inst.run(&[
        "episodic",
        "search",
        "--agent",
        "assistant",
        "staging token",
    ]);

    let dirs = [inst.dir.clone(), inst.config()];
    let before = files(&dirs);
    let holding_before: Vec<String> = before
        .iter()
        .filter(|(_, b)| holds(b, SECRET))
        .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for f in ["oryxos.db", "oryxos.db.oryx-history"] {
        assert!(
            holding_before.iter().any(|h| h == f),
            "{f} should hold it before: {holding_before:?}"
        );
    }
    assert!(
        holding_before.iter().any(|h| h.starts_with("vectors-")),
        "the console's vector file should hold it before: {holding_before:?}"
    );
    let rows_before = rows(&db, SECRET);

    let dry = inst.json(&[
        "memory",
        "forget",
        "--all-agents",
        "--text",
        SECRET,
        "--dry-run",
    ]);
    let found = places(&dry["found"]);
    for p in ["memory", "history", "console_index", "runtime_sessions"] {
        assert!(found.contains(&p.to_string()), "{p} missing from {found:?}");
    }
    let memory_found: u64 = dry["found"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["place"] == "memory")
        .map(|c| c["count"].as_u64().unwrap())
        .sum();
    assert_eq!(memory_found, 2, "two rows of two agents: {}", dry["found"]);

    let done = inst.json(&["memory", "forget", "--all-agents", "--text", SECRET]);
    assert_eq!(done["state"], "done", "{done}");
    assert!(
        done["left"].as_array().unwrap().is_empty(),
        "{}",
        done["left"]
    );
    // What it erased is what it found; the records its own delete wrote are counted apart.
    let sum = |list: &Value, key: &str| -> u64 {
        list.as_array()
            .unwrap()
            .iter()
            .map(|c| c[key].as_u64().unwrap_or(0))
            .sum()
    };
    assert_eq!(
        sum(&done["erased"], "count"),
        sum(&dry["found"], "count"),
        "found {}, erased {}",
        dry["found"],
        done["erased"]
    );
    assert!(sum(&done["erased"], "own") >= 1, "{}", done["erased"]);

    let after = files(&dirs);
    let holding: Vec<&PathBuf> = after
        .iter()
        .filter(|(_, b)| holds(b, SECRET))
        .map(|(p, _)| p)
        .collect();
    assert!(holding.is_empty(), "still holding the secret: {holding:?}");
    let rows_after = rows(&db, SECRET);
    for (row, held) in &rows_before {
        if !held {
            assert!(
                rows_after.iter().any(|(r, _)| r == row),
                "a row that did not hold the secret changed: {row}"
            );
        }
    }
    // Its rows are gone from the backend, the other rows read as before.
    let shown = inst.json(&["memory", "show", "--agent", "assistant"]);
    assert!(!shown.to_string().contains(SECRET));
    let history = inst.json(&["memory", "history", "--agent", "assistant"]);
    assert!(history["changes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| !c["forgotten"].is_null()));
}

#[test]
#[ignore = "needs the mem0 test server: make mem0-contract"]
fn on_mem0_the_entry_goes_through_its_api_and_its_own_history_is_named() {
    let _one = crate::common::mem0::SERVER
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let url = crate::common::mem0::url();
    let inst = DemoInstall::new();
    // The install's runtime on mem0, in a user of its own on the shared test server.
    let yml = inst.dir.join("config/application.yml");
    let user = format!("forget-{}", std::process::id());
    let text = std::fs::read_to_string(&yml)
        .unwrap()
        .replace("${MEM0_BASE_URL:}", &url)
        .replace("${MEM0_USER_ID:oryxos}", &user);
    std::fs::write(&yml, text).unwrap();
    inst.run(&["runtime", "set", "memory.backend", "mem0"]);
    let planted = format!("mem0 token {SECRET}");
    inst.run(&[
        "memory",
        "add",
        "--agent",
        "assistant",
        "--scope",
        "archival",
        &planted,
    ]);
    inst.run(&[
        "memory",
        "add",
        "--agent",
        "assistant",
        "--scope",
        "archival",
        "kept",
    ]);
    let shown = inst.json(&["memory", "show", "--agent", "assistant"]);
    assert_eq!(shown["backend"], "mem0", "{shown}");
    let id = shown["archival"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["content"] == planted.as_str())
        .map(|e| e["id"].as_str().unwrap().to_string())
        .unwrap();

    let dry = inst.json(&["memory", "forget", "--agent", "assistant", &id, "--dry-run"]);
    assert!(
        places(&dry["found"]).contains(&"memory".to_string()),
        "{dry}"
    );

    let done = inst.json(&["memory", "forget", "--agent", "assistant", &id]);
    assert_eq!(done["state"], "done", "{done}");
    // mem0 keeps its own history of the memory deleted through its API: said, not hidden.
    let left = done["left"].as_array().unwrap();
    assert!(
        left.iter()
            .any(|l| l["place"] == "memory" && l["why"] == "mem0_history"),
        "{}",
        done["left"]
    );
    let shown = inst.json(&["memory", "show", "--agent", "assistant"]);
    assert!(!shown.to_string().contains(SECRET), "{shown}");
    assert!(shown.to_string().contains("kept"));
    // The console's own data holds no byte of it.
    let held: Vec<PathBuf> = files(&[inst.dir.clone(), inst.config()])
        .into_iter()
        .filter(|(_, b)| holds(b, SECRET))
        .map(|(p, _)| p)
        .collect();
    assert!(held.is_empty(), "still holding the secret: {held:?}");
}
