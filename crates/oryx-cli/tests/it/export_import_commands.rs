//! Export and import through the real `oryx` binary, in the documented forms: export a root, import it
//! into another root and backend (dry run, then for real, then again adding nothing), an agent
//! renamed on the way, and memory as of a moment and between two moments.

use crate::common;

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
        .args(["demo", "--bare", src.to_str().unwrap()])
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
        .args(["demo", "--bare", root.to_str().unwrap()])
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

#[test]
fn prompt_replay_builds_the_prompt_of_a_past_session_with_memory_as_it_stood_then() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    let root = demo_root(&config, dir.path());
    let sessions = json(
        &config,
        &root,
        "markdown",
        &["sessions", "--agent", "assistant"],
    );
    let s = &sessions["items"][0];
    let id = s["session_id"].as_str().unwrap();
    let at = s["last_active_at"].as_str().unwrap().replace('T', " ");
    let at = &at[..19];
    // Written after the session: today's prompt has it, the replay does not.
    json(
        &config,
        &root,
        "markdown",
        &[
            "memory",
            "add",
            "--agent",
            "assistant",
            "--scope",
            "core",
            "written after the session",
        ],
    );
    let part = |p: &Value, kind: &str| -> String {
        p["parts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["kind"] == kind)
            .unwrap()["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let today = json(
        &config,
        &root,
        "markdown",
        &["prompt", "--agent", "assistant", "--session", id],
    );
    assert!(part(&today, "memory").contains("written after the session"));
    assert!(today["asof"].is_null());
    let then = json(
        &config,
        &root,
        "markdown",
        &[
            "prompt",
            "--agent",
            "assistant",
            "--session",
            id,
            "--asof",
            at,
            "--message",
            "1",
        ],
    );
    assert_eq!(then["asof"], at);
    assert!(then["asof_note"].as_str().unwrap().contains("today's"));
    let memory = part(&then, "memory");
    assert!(!memory.contains("written after the session"), "{memory}");
    // Memory then equals what `memory asof` says the block was.
    let asof = json(
        &config,
        &root,
        "markdown",
        &["memory", "asof", "--agent", "assistant", at],
    );
    assert_eq!(memory, asof["context"].as_str().unwrap());
    // The date line is the moment's; the history is the first message only.
    assert!(part(&then, "system").contains(&format!("当前日期时间：{}", &at[..16])));
    assert_eq!(then["history_messages"], 1);
    assert_eq!(today["history_messages"], 8);
    let text = String::from_utf8_lossy(
        &run(
            &config,
            &root,
            "markdown",
            &[
                "prompt",
                "--agent",
                "assistant",
                "--session",
                id,
                "--asof",
                at,
            ],
        )
        .stdout,
    )
    .to_string();
    assert!(
        text.starts_with(&format!("prompt as built at {at}\n")),
        "{text}"
    );
    for bad in [
        vec!["--asof", at, "--message", "99"],
        vec!["--asof", "last tuesday"],
        vec!["--asof", at, "--message", "0"],
    ] {
        let mut args = vec!["prompt", "--agent", "assistant", "--session", id];
        args.extend(bad.iter().copied());
        let out = run(&config, &root, "markdown", &args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{bad:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A root kept in git: a change made by hand in MEMORY.md after the last commit is taken back
/// at a moment between that commit and the change; not taken back once the file was last
/// written (it holds what it held), and unknown without git.
#[test]
fn a_root_kept_in_git_tells_memory_as_of_a_moment_what_was_changed_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    let root = demo_root(&config, dir.path());
    let file = root.join("agents/assistant/MEMORY.md");
    let two_hours_ago = chrono::Local::now() - chrono::Duration::hours(2);
    let git = |args: &[&str]| {
        let date = format!("{} +0000", two_hours_ago.timestamp());
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&root)
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.org")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.org")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let before = json(
        &config,
        &root,
        "markdown",
        &["memory", "show", "--agent", "assistant"],
    );
    let victim = before["archival"][3]["content"]
        .as_str()
        .unwrap()
        .to_string();
    let at = (two_hours_ago + chrono::Duration::hours(1))
        .format("%Y-%m-%d %H:%M:%S")
        .to_string();
    let asof = |label: &str| {
        let v = json(
            &config,
            &root,
            "markdown",
            &["memory", "asof", "--agent", "assistant", &at],
        );
        let has = v["archival"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["content"] == victim.as_str());
        (has, v, label.to_string())
    };
    // By hand, later: the entry's text changes. Without git nobody can know.
    let text = std::fs::read_to_string(&file).unwrap();
    let edited_text = text.replacen(&victim, "changed by hand", 1);
    std::fs::write(&file, &edited_text).unwrap();
    let (has, v, _) = asof("no git");
    assert!(!has && v["git"].is_null(), "{v}");
    // Committed before the hand change: the moment between sees the text as committed.
    std::fs::write(&file, &text).unwrap();
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "sample"]);
    std::fs::write(&file, &edited_text).unwrap();
    // AGENT.md edited by hand too: a replay at the moment builds the prompt from the commit's.
    let agent_md = root.join("agents/assistant/AGENT.md");
    let agent_text = std::fs::read_to_string(&agent_md).unwrap();
    std::fs::write(
        &agent_md,
        agent_text.replace("回答要简短。", "回答要详细。"),
    )
    .unwrap();
    let replay = json(
        &config,
        &root,
        "markdown",
        &["prompt", "--agent", "assistant", "--asof", &at],
    );
    let system = replay["parts"][0]["text"].as_str().unwrap();
    assert!(
        system.contains("回答要简短。") && !system.contains("回答要详细。"),
        "{system}"
    );
    assert!(
        replay["asof_note"]
            .as_str()
            .unwrap()
            .contains("AGENT.md (commit "),
        "{replay}"
    );
    assert!(replay["asof_from_git"][0]
        .as_str()
        .unwrap()
        .starts_with("AGENT.md (commit "));
    let today = json(
        &config,
        &root,
        "markdown",
        &["prompt", "--agent", "assistant"],
    );
    assert!(today["parts"][0]["text"]
        .as_str()
        .unwrap()
        .contains("回答要详细。"));
    let (has, v, _) = asof("git");
    assert!(has, "{v}");
    assert_eq!(v["git"]["hand_changes"], 2, "one entry out, one in: {v}");
    assert!(v["note"]
        .as_str()
        .unwrap()
        .contains(v["git"]["commit"].as_str().unwrap()));
    assert!(!v["archival"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["content"] == "changed by hand"));
    // A moment after the file was last written: it holds what it held then.
    let later = (chrono::Local::now() + chrono::Duration::minutes(1))
        .format("%Y-%m-%d %H:%M:%S")
        .to_string();
    let v = json(
        &config,
        &root,
        "markdown",
        &["memory", "asof", "--agent", "assistant", &later],
    );
    assert!(v["git"].is_null());
    assert!(v["archival"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["content"] == "changed by hand"));
}

// `oryx import --from FORMAT FILE [--agent A] [--dry-run]`: other tools' memories.

fn local(iso: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(iso)
        .unwrap()
        .with_timezone(&chrono::Local)
        .format("%Y-%m-%d %H:%M:%S")
        .to_string()
}

fn demo_root(config: &Path, dir: &Path) -> PathBuf {
    let root = dir.join("demo");
    let out = common::oryx(config)
        .args(["demo", "--bare", root.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    root
}

/// Dry run (counts, writes nothing), import, import again (adds nothing); the report of the
/// real run.
fn foreign_twice(
    config: &Path,
    root: &Path,
    backend: &str,
    args: &[&str],
    show: &[&str],
    n: usize,
) -> Value {
    let before = entries(&json(config, root, backend, show));
    let mut dry_args = args.to_vec();
    dry_args.push("--dry-run");
    let dry = json(config, root, backend, &dry_args);
    assert_eq!(dry["dry_run"], true);
    assert_eq!(
        (
            dry["owner"]["new"].as_u64(),
            dry["owner"]["present"].as_u64()
        ),
        (Some(n as u64), Some(0))
    );
    assert_eq!(entries(&json(config, root, backend, show)), before);
    let done = json(config, root, backend, args);
    assert_eq!(done["owner"]["new"], n);
    assert!(done["owner"]["error"].is_null(), "{done}");
    let again = json(config, root, backend, args);
    assert_eq!(
        (
            again["owner"]["new"].as_u64(),
            again["owner"]["present"].as_u64()
        ),
        (Some(0), Some(n as u64))
    );
    assert_eq!(
        entries(&json(config, root, backend, show)).len(),
        before.len() + n
    );
    done
}

fn unknown_fields(r: &Value) -> Vec<(String, u64)> {
    r["unknown_fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["name"].as_str().unwrap().to_string(),
                u["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn has(all: &[(String, String, String)], scope: &str, ts: &str, content: &str) -> bool {
    all.iter()
        .any(|(s, t, c)| s == scope && t == ts && c == content)
}

#[test]
fn import_from_mem0_into_the_global_memory() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    let root = new_root(dir.path(), "root");
    let f = dir.path().join("mem0.json");
    std::fs::write(
        &f,
        serde_json::json!({"results": [
            {"id": "1", "memory": "Name is Ada", "created_at": "2025-03-01T10:00:00+02:00",
             "user_id": "ada", "metadata": {"scope": "core"}},
            {"id": "2", "memory": "Likes tea", "created_at": "2025-03-02T10:00:00-05:00",
             "user_id": "ada", "metadata": {"topic": "food"}}
        ]})
        .to_string(),
    )
    .unwrap();
    let args = ["import", "--from", "mem0", f.to_str().unwrap()];
    let r = foreign_twice(&config, &root, "markdown", &args, &["memory", "show"], 2);
    assert_eq!(r["owner"]["owner"], "__global__");
    let got = entries(&json(&config, &root, "markdown", &["memory", "show"]));
    assert!(
        has(
            &got,
            "core",
            &local("2025-03-01T10:00:00+02:00"),
            "Name is Ada"
        ),
        "{got:?}"
    );
    assert!(
        has(
            &got,
            "archival",
            &local("2025-03-02T10:00:00-05:00"),
            "Likes tea"
        ),
        "{got:?}"
    );
    assert_eq!(
        unknown_fields(&r),
        vec![
            ("id".into(), 2),
            ("metadata.topic".into(), 1),
            ("user_id".into(), 2)
        ]
    );
    // The text report names them too; a malformed file writes nothing.
    let text = run(
        &config,
        &root,
        "markdown",
        &["import", "--from", "mem0", f.to_str().unwrap()],
    );
    assert!(String::from_utf8_lossy(&text.stdout).contains("not imported: user_id (2)"));
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"results": [{"id": "3"}]}"#).unwrap();
    let out = run(
        &config,
        &root,
        "markdown",
        &["import", "--from", "mem0", bad.to_str().unwrap()],
    );
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no \"memory\" text"));
}

#[test]
fn import_from_an_openmemory_backup_into_an_agent() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    let root = demo_root(&config, dir.path());
    let mem = |id: &str, content: &str, state: &str, at: &str| {
        serde_json::json!({"id": id, "user_id": "u1", "app_id": null, "content": content,
            "metadata": {}, "state": state, "created_at": at, "updated_at": null,
            "archived_at": null, "deleted_at": null, "category_ids": []})
    };
    let backup = serde_json::json!({
        "user": {"id": "u1", "user_id": "ada"},
        "apps": [], "categories": [], "memory_categories": [], "status_history": [],
        "access_controls": [],
        "memories": [
            mem("a", "Ships on Fridays", "active", "2025-06-01T07:00:00+00:00"),
            mem("b", "Uses a standing desk", "paused", "2025-06-02T07:00:00+00:00"),
            mem("c", "Gone", "deleted", "2025-06-03T07:00:00+00:00"),
        ],
        "export_meta": {"version": "1"}
    });
    let f = dir.path().join("memories_export_ada.zip");
    let mut w = zip::ZipWriter::new(std::fs::File::create(&f).unwrap());
    w.start_file("memories.json", zip::write::SimpleFileOptions::default())
        .unwrap();
    w.write_all(backup.to_string().as_bytes()).unwrap();
    w.finish().unwrap();
    let show = ["memory", "show", "--agent", "assistant"];
    let args = [
        "import",
        "--from",
        "openmemory",
        "--agent",
        "assistant",
        f.to_str().unwrap(),
    ];
    let r = foreign_twice(&config, &root, "sqlite", &args, &show, 2);
    assert_eq!(r["owner"]["owner"], "assistant");
    let got = entries(&json(&config, &root, "sqlite", &show));
    assert!(has(
        &got,
        "archival",
        &local("2025-06-01T07:00:00+00:00"),
        "Ships on Fridays"
    ));
    assert!(has(
        &got,
        "archival",
        &local("2025-06-02T07:00:00+00:00"),
        "Uses a standing desk"
    ));
    assert!(!got.iter().any(|(_, _, c)| c == "Gone"));
    assert_eq!(r["skipped"][0]["name"], "state deleted");
    assert_eq!(r["skipped"][0]["count"], 1);
    assert_eq!(
        unknown_fields(&r),
        vec![
            ("export_meta".into(), 1),
            ("id".into(), 2),
            ("state paused (imported)".into(), 1),
            ("user".into(), 1),
            ("user_id".into(), 2)
        ]
    );
}

#[test]
fn import_from_a_letta_agent_file_into_an_agent() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    let root = demo_root(&config, dir.path());
    let f = dir.path().join("sam.af");
    std::fs::write(
        &f,
        serde_json::json!({
            "agents": [{"name": "sam", "block_ids": ["block-0", "block-1"], "messages": []}],
            "blocks": [
                {"id": "block-0", "label": "persona", "value": "I am Sam.", "limit": 5000},
                {"id": "block-1", "label": "human", "value": "Name: Chad", "limit": 5000}
            ],
            "tools": [{"name": "send_message"}, {"name": "core_memory_append"}],
            "created_at": "2025-03-24T02:59:06.113140+00:00"
        })
        .to_string(),
    )
    .unwrap();
    let show = ["memory", "show", "--agent", "assistant"];
    let args = [
        "import",
        "--from",
        "letta",
        "--agent",
        "assistant",
        f.to_str().unwrap(),
    ];
    let r = foreign_twice(&config, &root, "markdown", &args, &show, 2);
    let got = entries(&json(&config, &root, "markdown", &show));
    let t = local("2025-03-24T02:59:06+00:00");
    assert!(has(&got, "core", &t, "[persona] I am Sam."), "{got:?}");
    assert!(has(&got, "core", &t, "[human] Name: Chad"), "{got:?}");
    assert_eq!(
        unknown_fields(&r),
        vec![
            ("agents".into(), 1),
            ("blocks[].id".into(), 2),
            ("blocks[].limit".into(), 2),
            ("tools".into(), 2)
        ]
    );
}

#[test]
fn import_from_lines_and_csv_into_the_global_memory() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    let root = new_root(dir.path(), "root");
    let txt = dir.path().join("notes.md");
    std::fs::write(
        &txt,
        "- [2025-07-01 08:00:00] Dentist on Tuesday\n\n- [2025-07-02 09:30:00] Call Bob\n",
    )
    .unwrap();
    let show = ["memory", "show"];
    let args = ["import", "--from", "lines", txt.to_str().unwrap()];
    let r = foreign_twice(&config, &root, "sqlite", &args, &show, 2);
    assert!(unknown_fields(&r).is_empty());
    let csv = dir.path().join("export.csv");
    std::fs::write(
        &csv,
        "content,timestamp,scope,source\n\
         \"Prefers short answers, always\",2025-07-03 10:00:00,core,chatgpt\n\
         Call Bob,2025-07-02 09:30:00,,\n",
    )
    .unwrap();
    let r = json(
        &config,
        &root,
        "sqlite",
        &["import", "--from", "lines", csv.to_str().unwrap()],
    );
    // The CSV's "Call Bob" is the text file's: present.
    assert_eq!(
        (r["owner"]["new"].as_u64(), r["owner"]["present"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(unknown_fields(&r), vec![("source".into(), 1)]);
    let again = json(
        &config,
        &root,
        "sqlite",
        &["import", "--from", "lines", csv.to_str().unwrap()],
    );
    assert_eq!(again["owner"]["new"], 0);
    let got = entries(&json(&config, &root, "sqlite", &show));
    assert_eq!(
        got,
        vec![
            (
                "core".into(),
                "2025-07-03 10:00:00".into(),
                "Prefers short answers, always".into()
            ),
            (
                "archival".into(),
                "2025-07-01 08:00:00".into(),
                "Dentist on Tuesday".into()
            ),
            (
                "archival".into(),
                "2025-07-02 09:30:00".into(),
                "Call Bob".into()
            ),
        ]
    );
    // --agent needs --from; --from refuses the archive's own flags.
    let out = run(
        &config,
        &root,
        "sqlite",
        &["import", "--agent", "x", csv.to_str().unwrap()],
    );
    assert_ne!(out.status.code(), Some(0));
    let out = run(
        &config,
        &root,
        "sqlite",
        &[
            "import",
            "--from",
            "lines",
            "--overwrite-files",
            csv.to_str().unwrap(),
        ],
    );
    assert_ne!(out.status.code(), Some(0));
}

fn archive_members(archive: &Path) -> Vec<String> {
    let out = std::process::Command::new("unzip")
        .arg("-Z1")
        .arg(archive)
        .output();
    match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(str::to_string)
            .collect(),
        // Without unzip: the names are in the archive's central directory as plain bytes.
        _ => {
            let bytes = std::fs::read(archive).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            ["files/agents/assistant/MEMORY.md.oryx-history"]
                .into_iter()
                .filter(|n| text.contains(n))
                .map(str::to_string)
                .collect()
        }
    }
}

#[cfg(unix)]
#[test]
fn export_carries_the_history_only_with_the_flag_and_writes_only_to_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    let src = demo_root(&config, dir.path());
    // The console's history sidecar, holding the text of an entry deleted on purpose.
    let history = src.join("agents/assistant/MEMORY.md.oryx-history");
    if !history.is_file() {
        std::fs::write(&history, "{\"before\": \"a note deleted on purpose\"}\n").unwrap();
    }
    let member = "files/agents/assistant/MEMORY.md.oryx-history".to_string();

    let plain = dir.path().join("plain.oryx.zip");
    let r = json(
        &config,
        &src,
        "markdown",
        &["export", "--agent", "assistant", plain.to_str().unwrap()],
    );
    assert_eq!(r["history"], false, "{r}");
    assert!(!archive_members(&plain).contains(&member));
    let with = dir.path().join("with.oryx.zip");
    let r = json(
        &config,
        &src,
        "markdown",
        &[
            "export",
            "--agent",
            "assistant",
            "--with-history",
            with.to_str().unwrap(),
        ],
    );
    assert_eq!(r["history"], true, "{r}");
    assert!(archive_members(&with).contains(&member));

    // A FIFO at FILE is refused and stays a FIFO.
    let fifo = dir.path().join("pipe");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let out = run(
        &config,
        &src,
        "markdown",
        &["export", "--agent", "assistant", fifo.to_str().unwrap()],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a regular file"), "{err}");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
}

#[cfg(target_os = "linux")]
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// An upload goes to disk as it arrives: the server's peak memory does not grow with it, and
/// uploads never imported do not pile up in the console's folder.
#[cfg(target_os = "linux")]
#[test]
fn an_upload_streams_to_disk_and_uploads_not_imported_are_cleaned_up() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    let root = demo_root(&config, dir.path());
    let mut cmd = common::oryx(&config);
    cmd.args([
        "--root",
        root.to_str().unwrap(),
        "serve",
        "--bind",
        "127.0.0.1:0",
    ]);
    let (child, base) = common::spawn_serve(cmd);
    let server = common::ServerProcess(child);
    use std::io::Read;
    let client = reqwest::blocking::Client::new();
    let upload = |bytes: u64| -> reqwest::blocking::Response {
        let body = reqwest::blocking::Body::sized(std::io::repeat(b'z').take(bytes), bytes);
        client
            .post(format!("{base}/api/v1/console/transfer/upload?name=a.zip"))
            .body(body)
            .send()
            .unwrap()
    };
    // Warm up (first requests allocate the server's own buffers), then measure.
    assert_eq!(upload(1 << 10).status().as_u16(), 200);
    let before = peak_rss_kib(server.id());
    let big: u64 = 256 << 20;
    let r = upload(big);
    assert_eq!(r.status().as_u16(), 200);
    let v: Value = r.json().unwrap();
    assert_eq!(v["data"]["bytes"].as_u64(), Some(big), "{v}");
    let grew = peak_rss_kib(server.id()).saturating_sub(before);
    assert!(
        grew < 64 << 10,
        "the server's peak memory grew {grew} KiB for a 256 MiB upload"
    );

    for _ in 0..4 {
        assert_eq!(upload(1 << 10).status().as_u16(), 200);
    }
    let staged: Vec<String> = std::fs::read_dir(config.join("transfers"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(staged.len(), 2, "{staged:?}");
}
