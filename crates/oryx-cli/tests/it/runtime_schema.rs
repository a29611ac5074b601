//! The runtime's database through the `oryx` binary (CONTRACT §12): no command changes its schema on
//! any backend, and a database from before per-agent memory works for reads and tool calls.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use oryx_core::db::SqlError;

/// A connection to a database file (created empty when missing), without depending on rusqlite.
fn open(db: &Path) -> oryx_core::db::Connection {
    if !db.exists() {
        std::fs::File::create(db).unwrap();
    }
    oryx_core::db::open_existing(db).unwrap().unwrap()
}

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    /// The demo root: agents, MEMORY.md files and a database with sessions and memory rows.
    fn demo() -> Env {
        let env = Env {
            dir: tempfile::tempdir().unwrap(),
        };
        let out = env
            .cmd()
            .args(["demo", "--bare", env.root().to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        env
    }

    /// A root with agent `a` and a database made by `ddl`.
    fn with_db(ddl: &str) -> Env {
        let env = Env {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(env.root().join("agents/a")).unwrap();
        std::fs::write(
            env.root().join("agents/a/AGENT.md"),
            "---\nname: a\ndescription: test agent\n---\nYou are a.\n",
        )
        .unwrap();
        open(&env.db()).execute_batch(ddl).unwrap();
        env
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    fn db(&self) -> PathBuf {
        self.root().join("oryxos.db")
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

    fn oryx(&self, backend: &str, args: &[&str]) -> Output {
        let root = self.root();
        self.cmd()
            .args([
                "--root",
                root.to_str().unwrap(),
                "--backend",
                backend,
                // Nothing listens on the discard port: mem0 calls fail fast.
                "--mem0-url",
                "http://127.0.0.1:9",
            ])
            .args(args)
            .output()
            .unwrap()
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn sqlite_master(db: &Path) -> Vec<(String, String, String, Option<String>)> {
    let conn = open(db);
    let mut stmt = conn
        .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid")
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap();
    rows.collect::<Result<_, SqlError>>().unwrap()
}

#[test]
fn no_command_changes_the_runtimes_schema_on_any_backend() {
    let env = Env::demo();
    let before = sqlite_master(&env.db());
    let session: String = open(&env.db())
        .query_row("SELECT session_id FROM sessions LIMIT 1", [], |r| r.get(0))
        .unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["agents"],
        vec!["agent", "assistant"],
        vec!["memory", "show", "--agent", "assistant"],
        vec!["memory", "show"],
        vec!["memory", "context", "--agent", "assistant"],
        vec!["memory", "recall", "--agent", "assistant", "用户"],
        vec!["memory", "recall", "--agent", "assistant", "ab"],
        vec![
            "memory",
            "add",
            "--agent",
            "assistant",
            "--scope",
            "archival",
            "added from the cli",
        ],
        vec!["sessions"],
        vec!["session", &session],
        vec!["prompt", "--agent", "assistant"],
        vec![
            "tool",
            "save_memory",
            "--input",
            r#"{"content":"saved by a tool","scope":"core"}"#,
            "--agent",
            "assistant",
        ],
        vec![
            "tool",
            "recall_memory",
            "--input",
            r#"{"keyword":"tool"}"#,
            "--agent",
            "assistant",
        ],
        vec!["tool", "recall_memory", "--input", "{}"],
        vec!["settings"],
    ];
    for backend in ["sqlite", "markdown", "mem0"] {
        for args in &commands {
            // Some commands fail on mem0 (nothing listens): the schema is what counts here.
            let out = env.oryx(backend, args);
            let bad_call = args.contains(&"{}");
            assert!(
                backend == "mem0" || bad_call || out.status.success(),
                "{backend} {args:?}: {}",
                stderr(&out)
            );
            assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
            assert_eq!(
                sqlite_master(&env.db()),
                before,
                "{backend} {args:?} changed the runtime's schema"
            );
        }
    }
    let index = env.dir.path().join("config/index");
    assert!(
        std::fs::read_dir(&index).unwrap().count() > 0,
        "the console's index lives beside the settings"
    );
}

/// `memory_entries` as a runtime from before per-agent memory created it, with the rest of its
/// tables as they were.
const PRE_AGENT_DDL: &str = "
CREATE TABLE tool_invocations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id VARCHAR(255) NOT NULL,
    tool_name VARCHAR(128) NOT NULL,
    input_json TEXT,
    result_json TEXT,
    success BOOLEAN NOT NULL,
    error_message TEXT,
    duration_ms INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX idx_tool_invocations_session ON tool_invocations (session_id);
CREATE TABLE sessions (
    session_id VARCHAR(512) PRIMARY KEY,
    profile_name VARCHAR(255) NOT NULL,
    channel VARCHAR(64) NOT NULL,
    user_id VARCHAR(255) NOT NULL,
    messages_json TEXT,
    status VARCHAR(32) NOT NULL,
    created_at TIMESTAMP NOT NULL,
    last_active_at TIMESTAMP,
    archived_at TIMESTAMP
);
CREATE INDEX idx_sessions_profile ON sessions (profile_name);
CREATE TABLE memory_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    scope VARCHAR(16) NOT NULL,
    content TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX idx_memory_scope ON memory_entries (scope);
INSERT INTO memory_entries(scope, content, created_at) VALUES
    ('CORE', 'an old core fact', 1),
    ('ARCHIVAL', 'an old kubernetes note', 2);
";

#[test]
fn a_database_from_before_per_agent_memory_works_for_reads_and_tools() {
    let env = Env::with_db(PRE_AGENT_DDL);
    let before = sqlite_master(&env.db());
    for args in [
        vec!["memory", "show"],
        vec!["memory", "context", "--agent", "a"],
        vec!["memory", "recall", "kubernetes"],
        vec!["agents"],
    ] {
        let out = env.oryx("sqlite", &args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert_eq!(sqlite_master(&env.db()), before, "{args:?}");
    }
    let out = env.oryx("sqlite", &["memory", "recall", "KUBERNETES"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim_end(),
        "an old kubernetes note",
        "global memory, raw content as the runtime's recall answers"
    );
    // A write: upgraded the way the runtime upgrades it, recorded, exit 0.
    let out = env.oryx(
        "sqlite",
        &[
            "tool",
            "save_memory",
            "--input",
            r#"{"content":"new for a"}"#,
            "--agent",
            "a",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "已记住\n");
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    let conn = open(&env.db());
    let (agents, recorded): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(DISTINCT agent_name) FROM memory_entries), \
                    (SELECT count(*) FROM tool_invocations)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((agents, recorded), (2, 1));
}

#[test]
fn a_tool_call_that_cannot_be_recorded_succeeds_with_a_warning() {
    // tool_invocations of another shape: the runtime's row of today does not fit.
    let env = Env::with_db(&PRE_AGENT_DDL.replace(
        "    duration_ms INTEGER NOT NULL,\n    created_at TIMESTAMP NOT NULL\n);\nCREATE INDEX idx_tool",
        "    created_at TIMESTAMP NOT NULL\n);\nCREATE INDEX idx_tool",
    ));
    let out = env.oryx(
        "markdown",
        &[
            "tool",
            "save_memory",
            "--input",
            r#"{"content":"kept anyway","scope":"core"}"#,
            "--agent",
            "a",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "已记住\n");
    let err = stderr(&out);
    assert!(
        err.contains("warning") && err.contains("tool_invocations"),
        "{err}"
    );
    let memory = std::fs::read_to_string(env.root().join("agents/a/MEMORY.md")).unwrap();
    assert!(memory.contains("kept anyway"), "{memory}");
}
