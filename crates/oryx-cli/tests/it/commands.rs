//! The `oryx` binary end to end: real files, a real SQLite database, real processes.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        Env {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    fn sample(&self) -> &Self {
        let out = self.oryx_plain(&["demo", "--bare", self.root().to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
        self
    }

    fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_oryx"));
        c.env("ORYXOS_CONFIG_DIR", self.dir.path().join("config"))
            .env_remove("ORYXOS_ROOT")
            .env_remove("ORYXOS_DB")
            .env_remove("MEM0_BASE_URL")
            .env_remove("MEM0_API_KEY");
        c
    }

    fn oryx_plain(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
    }

    fn oryx(&self, args: &[&str]) -> Output {
        let root = self.root();
        let mut all = vec!["--root", root.to_str().unwrap()];
        all.extend_from_slice(args);
        self.oryx_plain(&all)
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.oryx(args);
        assert!(
            out.status.success(),
            "oryx {args:?} failed: {}",
            stderr(&out)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        serde_json::from_str(&self.ok(&all)).unwrap()
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap()
}

#[test]
fn demo_then_agents_shows_agents() {
    let env = Env::new();
    env.sample();
    let text = env.ok(&["agents"]);
    for name in ["assistant", "log_analyst", "researcher", "scheduler"] {
        assert!(text.contains(name), "{text}");
    }
    let list = env.json(&["agents"]);
    let assistant = list["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "assistant")
        .unwrap();
    assert_eq!(assistant["memory"]["core"], 4);
    assert_eq!(assistant["memory"]["archival"], 140);
    assert_eq!(assistant["skills"].as_array().unwrap().len(), 2);
    let again = env.oryx_plain(&["demo", "--bare", env.root().to_str().unwrap()]);
    assert_eq!(code(&again), 1, "a non-empty folder is refused");
    assert!(stderr(&again).starts_with("error[conflict]"));
}

fn memory_commands_work_on(backend: &str) {
    let env = Env::new();
    env.sample();
    let b = ["--backend", backend];
    let add = |scope: &str, text: &str| {
        let mut args = b.to_vec();
        args.extend([
            "memory",
            "add",
            "--agent",
            "researcher",
            "--scope",
            scope,
            text,
        ]);
        env.ok(&args)
    };
    let line = add("archival", "Prefers  arXiv\nlinks");
    assert!(line.trim_end().ends_with("Prefers arXiv links"), "{line}");
    add("core", "Core via CLI");
    let mut args = b.to_vec();
    args.extend(["memory", "show", "--agent", "researcher"]);
    let mut jargs = vec!["--json"];
    jargs.extend_from_slice(&args);
    let show: Value = serde_json::from_str(&env.ok(&jargs)).unwrap();
    assert_eq!(show["agent"], "researcher");
    assert_eq!(show["backend"], backend);
    let core = show["core"].as_array().unwrap();
    assert_eq!(core.last().unwrap()["content"], "Core via CLI");
    let ts = core.last().unwrap()["timestamp"].as_str().unwrap();
    assert!(chrono_like(ts), "{ts}");
    let arch = show["archival"].as_array().unwrap();
    assert_eq!(arch.last().unwrap()["content"], "Prefers arXiv links");
    assert_eq!(arch.last().unwrap()["in_window"], true);

    let mut args = b.to_vec();
    args.extend(["memory", "context", "--agent", "researcher"]);
    let ctx = env.ok(&args);
    assert!(ctx.starts_with("## 核心记忆\n"));
    assert!(ctx.contains("\n## 归档记忆\n"));
    assert_eq!(
        ctx,
        show["context"].as_str().unwrap(),
        "context = the view's block"
    );

    let mut args = b.to_vec();
    args.extend(["memory", "recall", "--agent", "researcher", "ARXIV"]);
    assert!(env.ok(&args).trim_end().ends_with("Prefers arXiv links"));
    let mut args = b.to_vec();
    args.extend(["memory", "recall", "--agent", "researcher", "no-such-thing"]);
    assert_eq!(env.ok(&args), "没有找到相关记忆\n");
}

fn chrono_like(s: &str) -> bool {
    s.len() == 19 && s.as_bytes()[4] == b'-' && s.as_bytes()[10] == b' ' && s.as_bytes()[13] == b':'
}

#[test]
fn memory_commands_markdown() {
    memory_commands_work_on("markdown");
}

#[test]
fn memory_commands_sqlite() {
    memory_commands_work_on("sqlite");
}

#[test]
fn global_memory_without_agent() {
    let env = Env::new();
    env.sample();
    env.ok(&["memory", "add", "--scope", "core", "global via cli"]);
    let text = std::fs::read_to_string(env.root().join("memory/MEMORY.md")).unwrap();
    assert!(text.contains("] global via cli"));
    let show = env.json(&["memory", "show"]);
    assert_eq!(show["agent"], Value::Null);
}

#[test]
fn exit_codes_and_one_line_errors() {
    let env = Env::new();
    env.sample();
    for bad in ["../etc", "a/b", "%2e%2e", "x\\y", "/abs"] {
        let out = env.oryx(&["memory", "show", "--agent", bad]);
        assert_eq!(code(&out), 2, "{bad}: {}", stderr(&out));
        assert!(
            stderr(&out).starts_with("error[invalid_agent_name]"),
            "{}",
            stderr(&out)
        );
        assert_eq!(stderr(&out).lines().count(), 1);
    }
    let out = env.oryx(&["memory", "add", "--agent", "ghost", "--scope", "core", "x"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).starts_with("error[agent_not_found]"));
    assert!(
        !env.root().join("agents/ghost").exists(),
        "nothing created for an unknown agent"
    );
    let out = env.oryx(&["memory", "add", "--scope", "episodic", "x"]);
    assert_eq!(code(&out), 2, "bad scope is a usage error");
    let out = env.oryx(&["memory", "add", "--scope", "core", " \n "]);
    assert_eq!(code(&out), 2);
    let out = env.oryx(&["session", "nope"]);
    assert_eq!(code(&out), 2);
    let corrupt = env.dir.path().join("corrupt.db");
    std::fs::write(&corrupt, "not a database at all, definitely not sqlite").unwrap();
    let out = env.oryx(&["--db", corrupt.to_str().unwrap(), "sessions"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).starts_with("error[corrupt]"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn tools_use_the_run_path() {
    let env = Env::new();
    env.sample();
    let out = env.ok(&[
        "tool",
        "save_memory",
        "--input",
        r#"{"content":"tool saved"}"#,
        "--agent",
        "researcher",
        "--session",
        "cli:me:researcher",
    ]);
    assert_eq!(out, "已记住\n");
    let out = env.ok(&[
        "tool",
        "recall_memory",
        "--input",
        r#"{"keyword":"TOOL SAVED"}"#,
        "--agent",
        "researcher",
    ]);
    assert!(out.trim_end().ends_with("] tool saved"));
    // An invalid name on the run path falls back to the global memory instead of failing.
    let out = env.ok(&[
        "tool",
        "save_memory",
        "--input",
        r#"{"content":"fallback","scope":"core"}"#,
        "--agent",
        "../../x",
    ]);
    assert_eq!(out, "已记住\n");
    assert!(std::fs::read_to_string(env.root().join("memory/MEMORY.md"))
        .unwrap()
        .contains("] fallback"));
    let bad = env.oryx(&[
        "tool",
        "save_memory",
        "--input",
        r#"{"content":"x","scope":"nope"}"#,
    ]);
    assert_eq!(code(&bad), 2);
    assert_eq!(
        String::from_utf8_lossy(&bad.stdout),
        "无法识别的记忆分区: nope（应为 core 或 archival）\n"
    );
    let calls = tool_calls(&env.root().join("oryxos.db"), "cli:me:researcher");
    assert_eq!(
        calls,
        vec![(
            "save_memory".to_string(),
            Some("\"已记住\"".to_string()),
            true
        )]
    );
}

fn tool_calls(db: &Path, session: &str) -> Vec<(String, Option<String>, bool)> {
    let conn = oryx_core::db::open_existing(db).unwrap().unwrap();
    let mut stmt = conn
        .prepare("SELECT tool_name, result_json, success FROM tool_invocations WHERE session_id = ?1 ORDER BY id")
        .unwrap();
    stmt.query_map([session], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn sessions_session_and_prompt() {
    let env = Env::new();
    env.sample();
    let page = env.json(&["sessions", "--agent", "assistant", "--limit", "2"]);
    assert_eq!(page["items"].as_array().unwrap().len(), 2);
    assert!(page["total"].as_u64().unwrap() >= 3);
    let id = page["items"][0]["session_id"].as_str().unwrap().to_string();
    let archived = env.json(&["sessions", "--status", "archived"]);
    assert!(archived["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["status"] == "archived"));
    let text = env.ok(&["session", &id]);
    assert!(
        text.contains("[user]") && text.contains("recall_memory"),
        "{text}"
    );
    let p = env.json(&["prompt", "--agent", "assistant", "--session", &id]);
    let parts = p["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 4);
    assert!(parts[0]["text"].as_str().unwrap().contains("你是小O"));
    assert!(
        parts[0]["text"].as_str().unwrap().contains("林晓"),
        "USER.md is bootstrapped"
    );
    let ctx = env.ok(&["memory", "context", "--agent", "assistant"]);
    assert_eq!(parts[1]["text"].as_str().unwrap(), ctx);
    assert!(parts[2]["text"].as_str().unwrap().contains("user:"));
    assert!(parts[3]["text"].as_str().unwrap().contains("save_memory"));
    assert_eq!(parts[1]["chars"], ctx.chars().count());
}

#[test]
fn footprint_appends_a_compact_archival_line() {
    let env = Env::new();
    env.sample();
    // Footprints are off by default (the runtime no longer writes them): switch them on.
    let config = env.dir.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("settings.json"),
        r#"{"footprintEnabled": true}"#,
    )
    .unwrap();
    let long = "长".repeat(300);
    let out = env.ok(&[
        "footprint",
        "--agent",
        "scheduler",
        "--user",
        "跑一下\n日报",
        "--reply",
        &long,
    ]);
    let expected_reply = format!("{}…", "长".repeat(200));
    assert!(
        out.trim_end()
            .ends_with(&format!("触发「跑一下 日报」⇒ {expected_reply}")),
        "{out}"
    );
    let show = env.json(&["memory", "show", "--agent", "scheduler"]);
    assert_eq!(show["archival"].as_array().unwrap().len(), 1);
}

#[test]
fn migrate_copies_once_and_leaves_the_source() {
    let env = Env::new();
    env.sample();
    let before = std::fs::read(env.root().join("agents/assistant/MEMORY.md")).unwrap();
    let out = env.oryx(&["migrate", "--from", "markdown", "--to", "sqlite"]);
    assert_eq!(code(&out), 2, "--agent or --all is required");
    let dry = env.json(&[
        "migrate",
        "--from",
        "markdown",
        "--to",
        "sqlite",
        "--all",
        "--dry-run",
    ]);
    assert_eq!(dry["dry_run"], true);
    let missing = dry["total"]["copied"].as_u64().unwrap();
    assert!(missing > 100, "{dry}");
    let run = env.json(&["migrate", "--from", "markdown", "--to", "sqlite", "--all"]);
    assert_eq!(run["total"]["copied"].as_u64().unwrap(), missing);
    assert_eq!(run["total"]["failed"], 0);
    let again = env.json(&["migrate", "--from", "markdown", "--to", "sqlite", "--all"]);
    assert_eq!(again["total"]["copied"], 0, "running twice adds nothing");
    assert_eq!(
        std::fs::read(env.root().join("agents/assistant/MEMORY.md")).unwrap(),
        before
    );
    let md = env.json(&["memory", "show", "--agent", "assistant"]);
    let sql = env.json(&[
        "--backend",
        "sqlite",
        "memory",
        "show",
        "--agent",
        "assistant",
    ]);
    for e in md["archival"].as_array().unwrap() {
        assert!(
            sql["archival"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["content"] == e["content"] && s["timestamp"] == e["timestamp"]),
            "missing {e}"
        );
    }
}

#[test]
#[ignore = "needs the mem0 test server: make mem0-contract"]
fn memory_commands_against_a_real_mem0() {
    // Other tests of this binary switch faults on in the same mem0 server.
    let _one = common::mem0::SERVER
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let url = common::mem0::url();
    let env = Env::new();
    env.sample();
    let user = format!("cli-{}", std::process::id());
    std::fs::create_dir_all(env.dir.path().join("config")).unwrap();
    std::fs::write(
        env.dir.path().join("config/settings.json"),
        serde_json::json!({"mem0": {"userId": user}}).to_string(),
    )
    .unwrap();
    let m = ["--backend", "mem0", "--mem0-url", url.as_str()];
    fn with<'a>(m: &[&'a str], args: &[&'a str]) -> Vec<&'a str> {
        [m, args].concat()
    }
    env.ok(&with(
        &m,
        &[
            "memory",
            "add",
            "--agent",
            "researcher",
            "--scope",
            "core",
            "mem0 core fact",
        ],
    ));
    env.ok(&with(
        &m,
        &[
            "memory",
            "add",
            "--agent",
            "researcher",
            "--scope",
            "archival",
            "Mem0 archival NOTE",
        ],
    ));
    let show = env.json(&with(&m, &["memory", "show", "--agent", "researcher"]));
    assert_eq!(show["backend"], "mem0");
    assert_eq!(show["core"][0]["content"], "mem0 core fact");
    assert_eq!(show["archival"][0]["content"], "Mem0 archival NOTE");
    assert_eq!(
        env.ok(&with(
            &m,
            &["memory", "recall", "--agent", "researcher", "note"]
        ))
        .trim_end(),
        "Mem0 archival NOTE"
    );
    let run = env.json(&with(
        &m,
        &[
            "migrate",
            "--from",
            "markdown",
            "--to",
            "mem0",
            "--agent",
            "researcher",
        ],
    ));
    assert_eq!(run["total"]["failed"], 0, "{run}");
    let down = env.oryx(&[
        "--backend",
        "mem0",
        "--mem0-url",
        "http://127.0.0.1:9",
        "memory",
        "show",
        "--agent",
        "researcher",
    ]);
    assert_eq!(code(&down), 1);
    assert!(
        stderr(&down).starts_with("error[backend_unavailable]")
            && stderr(&down).contains("127.0.0.1:9"),
        "{}",
        stderr(&down)
    );
}

/// The forms #14 gives the CLI (`oryx memory recall --mode … --json`, `oryx index
/// status|build|clear`, `oryx episodic search --json`), with the real model on the demo root.
#[test]
fn semantic_recall_index_and_episodic_search_in_the_cli_forms() {
    let env = Env::new();
    env.sample();
    let json = |args: &[&str]| -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        serde_json::from_str(&env.ok(&all)).unwrap()
    };
    let owner = |status: &Value, agent: &str| -> Value {
        status["owners"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["agent"] == agent)
            .cloned()
            .unwrap()
    };
    let before = owner(&json(&["index", "status"]), "assistant");
    assert!(before["entries"].as_u64().unwrap() > 0, "{before}");
    assert_eq!(before["indexed"], 0, "{before}");

    // The build is followed to its end (the job alone is polled) and says where it got.
    let job = json(&["index", "build", "--agent", "assistant"]);
    assert_eq!(job["running"], false, "{job}");
    assert_eq!(job["cancelled"], false, "{job}");
    assert!(job["error"].is_null(), "{job}");
    assert_eq!(job["current"], "assistant", "{job}");
    assert_eq!(job["current_entries"], before["entries"], "{job}");
    assert_eq!(job["current_indexed"], before["entries"], "{job}");
    let after = owner(&json(&["index", "status"]), "assistant");
    assert_eq!(after["indexed"], after["entries"], "{after}");

    // By meaning, in Chinese and across languages; JSON as the issue gives it.
    for query in [
        "用户喜欢什么样的回答风格",
        "What kind of replies does the user like?",
    ] {
        let r = json(&[
            "memory",
            "recall",
            "--agent",
            "assistant",
            "--mode",
            "semantic",
            "--limit",
            "3",
            query,
        ]);
        assert_eq!(r["mode"], "semantic", "{r}");
        let results = r["results"].as_array().unwrap();
        assert!(!results.is_empty() && results.len() <= 3, "{query}: {r}");
        for hit in results {
            for key in ["id", "timestamp", "content", "scope", "score"] {
                assert!(hit.get(key).is_some(), "{key} missing in {hit}");
            }
            let score = hit["score"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&score), "{hit}");
        }
        assert!(
            results
                .iter()
                .any(|h| h["content"] == "用户偏好简洁的回复，不用列表。"),
            "{query}: {r}"
        );
    }
    // Keyword mode keeps the runtime's rule and its answer string.
    let plain = env.ok(&[
        "memory",
        "recall",
        "--agent",
        "assistant",
        "--mode",
        "keyword",
        "用户喜欢什么样的回答风格",
    ]);
    assert_eq!(plain, "没有找到相关记忆\n");

    // Past sessions by meaning.
    let ep = json(&[
        "episodic",
        "search",
        "--agent",
        "assistant",
        "--limit",
        "3",
        "证书续期",
    ]);
    let results = ep["results"].as_array().unwrap();
    assert!(!results.is_empty(), "{ep}");
    for hit in results {
        for key in [
            "session_id",
            "message_index",
            "role",
            "text",
            "score",
            "time",
        ] {
            assert!(hit.get(key).is_some(), "{key} missing in {hit}");
        }
    }
    assert!(
        results.iter().any(|h| h["text"]
            .as_str()
            .unwrap()
            .contains("Remind me to renew the TLS certificate")),
        "{ep}"
    );

    // Clear drops the vectors; the entries stay.
    let cleared = owner(&json(&["index", "clear"]), "assistant");
    assert_eq!(cleared["indexed"], 0, "{cleared}");
    assert_eq!(cleared["entries"], before["entries"], "{cleared}");
}
