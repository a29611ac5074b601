//! The runtime's database stays the runtime's (CONTRACT §12): no console command changes its schema
//! on any backend, objects an earlier console version added are removed, and a database from
//! before per-agent memory is read as global memory and upgraded only for a write, the way the
//! runtime upgrades it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use oryx_core::memory::{
    LongTermMemoryStore, MarkdownMemoryStore, Mem0Config, Mem0MemoryStore, MemoryService, Scope,
    SqliteMemoryStore,
};
use oryx_core::names::Owner;
use oryx_core::sessions::{SessionFilter, SessionStore};
use oryx_core::tools::{ToolContext, ToolExecutor};
use rusqlite::Connection;

/// The runtime's own DDL for the tables the console uses, as its `schema.sql` and
/// `MemorySchemaUpgrade` create them (plus one table the console never touches).
const RUNTIME_DDL: &str = "
CREATE TABLE IF NOT EXISTS llm_calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id VARCHAR(255) NOT NULL,
    provider VARCHAR(64) NOT NULL,
    model VARCHAR(128) NOT NULL,
    success BOOLEAN NOT NULL,
    duration_ms INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS tool_invocations (
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
CREATE INDEX IF NOT EXISTS idx_tool_invocations_session ON tool_invocations (session_id);
CREATE TABLE IF NOT EXISTS sessions (
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
CREATE INDEX IF NOT EXISTS idx_sessions_profile ON sessions (profile_name);
CREATE TABLE IF NOT EXISTS memory_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_name VARCHAR(128) NOT NULL DEFAULT '__global__',
    scope VARCHAR(16) NOT NULL,
    content TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_memory_scope ON memory_entries (scope);
CREATE INDEX IF NOT EXISTS idx_memory_agent ON memory_entries (agent_name, scope);
";

/// `memory_entries` of a runtime from before per-agent memory.
const PRE_AGENT_MEMORY_DDL: &str = "
CREATE TABLE IF NOT EXISTS memory_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    scope VARCHAR(16) NOT NULL,
    content TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_memory_scope ON memory_entries (scope);
";

/// What console versions before this one added to the runtime's database.
const EARLIER_CONSOLE_DDL: &str = "
CREATE INDEX IF NOT EXISTS idx_memory_console_order ON memory_entries (agent_name, upper(scope), created_at, id);
CREATE VIRTUAL TABLE memory_entries_fts USING fts5(content, content='memory_entries', content_rowid='id', tokenize='trigram');
CREATE TRIGGER memory_entries_fts_ai AFTER INSERT ON memory_entries BEGIN
    INSERT INTO memory_entries_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER memory_entries_fts_ad AFTER DELETE ON memory_entries BEGIN
    INSERT INTO memory_entries_fts(memory_entries_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER memory_entries_fts_au AFTER UPDATE ON memory_entries BEGIN
    INSERT INTO memory_entries_fts(memory_entries_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO memory_entries_fts(rowid, content) VALUES (new.id, new.content);
END;
INSERT INTO memory_entries_fts(memory_entries_fts) VALUES ('rebuild');
";

type Master = Vec<(String, String, String, Option<String>)>;

fn sqlite_master(db: &Path) -> Master {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid")
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap();
    rows.collect::<rusqlite::Result<_>>().unwrap()
}

struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    db: PathBuf,
    index_dir: PathBuf,
}

impl Setup {
    /// A root with agent `a` and a runtime database made by `ddl`, holding a few rows.
    fn new(ddl: &str) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("oryxos");
        std::fs::create_dir_all(root.join("agents/a")).unwrap();
        let db = root.join("oryxos.db");
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch("PRAGMA journal_mode=WAL").unwrap();
        conn.execute_batch(ddl).unwrap();
        Setup {
            index_dir: dir.path().join("config/index"),
            _dir: dir,
            root,
            db,
        }
    }

    fn sqlite(&self) -> SqliteMemoryStore {
        SqliteMemoryStore::with_index_dir(&self.db, Some(self.index_dir.clone()))
    }

    fn executor(&self, store: Arc<dyn LongTermMemoryStore>) -> ToolExecutor {
        ToolExecutor::new(
            &self.root,
            MemoryService::new(store, 4000),
            SessionStore::new(&self.db),
        )
    }

    /// The runtime's own SQL, on a connection of its own: it must keep working.
    fn runtime_sql_runs(&self) {
        let conn = Connection::open(&self.db).unwrap();
        conn.execute_batch(
            "INSERT INTO memory_entries(agent_name, scope, content, created_at)
                 VALUES ('a', 'ARCHIVAL', 'runtime row', 1);
             UPDATE memory_entries SET content = 'runtime row, edited' WHERE content = 'runtime row';
             DELETE FROM memory_entries WHERE content = 'runtime row, edited';
             INSERT INTO sessions(session_id, profile_name, channel, user_id, messages_json, status, created_at)
                 VALUES ('cli:u:runtime-check', 'a', 'cli', 'u', '[]', 'active', 1);
             UPDATE sessions SET messages_json = '[{\"role\":\"user\",\"content\":\"hi\"}]' WHERE session_id = 'cli:u:runtime-check';
             INSERT INTO tool_invocations(session_id, tool_name, success, duration_ms, created_at)
                 VALUES ('cli:u:runtime-check', 'save_memory', 1, 1, 1);",
        )
        .unwrap();
    }
}

fn seed(db: &Path) {
    Connection::open(db)
        .unwrap()
        .execute_batch(
            "INSERT INTO memory_entries(agent_name, scope, content, created_at) VALUES
                 ('a', 'CORE', 'prefers short answers', 1753147800000),
                 ('a', 'ARCHIVAL', 'deployed kubernetes 1.30', 1753147900000),
                 ('__global__', 'ARCHIVAL', 'a global note on kubernetes', 1753148000000);
             INSERT INTO sessions(session_id, profile_name, channel, user_id, messages_json, status, created_at, last_active_at)
                 VALUES ('cli:u:a', 'a', 'cli', 'u', '[{\"role\":\"user\",\"content\":\"hi\"}]', 'active', 1, 2);",
        )
        .unwrap();
}

/// Every store operation and tool call on `store`, checking `sqlite_master` after each.
fn every_operation_leaves_the_schema(s: &Setup, store: Arc<dyn LongTermMemoryStore>, label: &str) {
    let before = sqlite_master(&s.db);
    let check = |what: &str| {
        assert_eq!(
            sqlite_master(&s.db),
            before,
            "{label}: {what} changed the runtime's schema"
        )
    };
    let a = Owner::Agent("a".into());
    for owner in [&a, &Owner::Global] {
        // A backend that cannot be reached fails its calls; the schema is what matters here.
        let _ = store.load_all(owner);
        check("load_all");
        let _ = store.load_context(owner, 4000);
        check("load_context");
        let _ = store.count(owner);
        check("count");
        let _ = store.recall(owner, "kubernetes");
        let _ = store.recall(owner, "ku");
        let _ = store.recall(owner, "");
        check("recall");
        let _ = store.append(owner, Scope::Archival, "appended by the console", None);
        check("append");
    }
    let ex = s.executor(store.clone());
    let ctx = ToolContext {
        agent: Some("a".into()),
        session_id: Some("cli:u:a".into()),
    };
    for (tool, input) in [
        (
            "save_memory",
            r#"{"content":"saved by a tool","scope":"core"}"#,
        ),
        ("save_memory", r#"{"content":"x","scope":" core "}"#),
        ("recall_memory", r#"{"keyword":"kubernetes"}"#),
        ("recall_memory", "{}"),
        ("no_such_tool", "{}"),
    ] {
        let out = ex.execute(&ctx, tool, input).unwrap();
        assert_eq!(out.warning, None, "{label}: {tool} was recorded");
        check(tool);
    }
    let sessions = SessionStore::new(&s.db);
    sessions.list(&SessionFilter::default()).unwrap();
    sessions.get("cli:u:a").unwrap();
    sessions.stats().unwrap();
    sessions.tool_invocations(None, 50, 0).unwrap();
    check("session reads");
}

#[test]
fn no_console_operation_changes_the_runtimes_schema_on_any_backend() {
    let s = Setup::new(RUNTIME_DDL);
    seed(&s.db);
    let sqlite: Arc<dyn LongTermMemoryStore> = Arc::new(s.sqlite());
    every_operation_leaves_the_schema(&s, sqlite, "sqlite");
    assert!(
        s.sqlite().index_file().unwrap().exists(),
        "the console's index lives in its own database"
    );
    let markdown: Arc<dyn LongTermMemoryStore> = Arc::new(MarkdownMemoryStore::new(&s.root));
    every_operation_leaves_the_schema(&s, markdown, "markdown");
    // Nothing listens on the discard port: every mem0 call fails, and is still recorded.
    let mem0: Arc<dyn LongTermMemoryStore> = Arc::new(Mem0MemoryStore::new(Mem0Config {
        base_url: "http://127.0.0.1:9".into(),
        user_id: "oryxos".into(),
        api_key: None,
        timeout: Duration::from_secs(2),
    }));
    every_operation_leaves_the_schema(&s, mem0, "mem0");
    s.runtime_sql_runs();
}

#[test]
fn a_fresh_console_database_matches_the_runtimes_own_schema() {
    let s = Setup::new(RUNTIME_DDL);
    let made_by_runtime: Vec<_> = sqlite_master(&s.db)
        .into_iter()
        .filter(|(_, name, ..)| name != "llm_calls" && !name.starts_with("sqlite_"))
        .map(|(t, n, tbl, _)| (t, n, tbl))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("oryxos.db");
    let store = SqliteMemoryStore::with_index_dir(&ours, Some(dir.path().join("index")));
    store
        .append(&Owner::Global, Scope::Core, "first", None)
        .unwrap();
    let created: Vec<_> = sqlite_master(&ours)
        .into_iter()
        .filter(|(_, name, ..)| !name.starts_with("sqlite_"))
        .map(|(t, n, tbl, _)| (t, n, tbl))
        .collect();
    let mut a = made_by_runtime.clone();
    let mut b = created.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b, "only the runtime's tables and indexes");
}

#[test]
fn objects_of_an_earlier_console_are_removed_on_first_open_and_said_once() {
    let s = Setup::new(RUNTIME_DDL);
    let pristine = sqlite_master(&s.db);
    seed(&s.db);
    Connection::open(&s.db)
        .unwrap()
        .execute_batch(EARLIER_CONSOLE_DDL)
        .unwrap();
    assert!(sqlite_master(&s.db).len() > pristine.len() + 5);
    let store = s.sqlite();
    let a = Owner::Agent("a".into());
    assert_eq!(store.recall(&a, "kubernetes").unwrap().len(), 1);
    let notice = store.notice().expect("the removal is said");
    for name in [
        "idx_memory_console_order",
        "memory_entries_fts",
        "memory_entries_fts_ai",
    ] {
        assert!(notice.contains(name), "{notice}");
    }
    assert_eq!(
        sqlite_master(&s.db),
        pristine,
        "exactly the runtime's schema again"
    );
    s.runtime_sql_runs();
    let again = s.sqlite();
    again.load_all(&a).unwrap();
    assert_eq!(again.notice(), None, "said once: nothing is left to remove");

    // A first write removes them as well, and a tool call on any backend (it records itself).
    let s = Setup::new(RUNTIME_DDL);
    seed(&s.db);
    Connection::open(&s.db)
        .unwrap()
        .execute_batch(EARLIER_CONSOLE_DDL)
        .unwrap();
    let store = s.sqlite();
    store
        .append(&a, Scope::Archival, "written right away", None)
        .unwrap();
    assert!(store.notice().is_some());
    assert_eq!(sqlite_master(&s.db), pristine);
    let s = Setup::new(RUNTIME_DDL);
    Connection::open(&s.db)
        .unwrap()
        .execute_batch(EARLIER_CONSOLE_DDL)
        .unwrap();
    let out = s
        .executor(Arc::new(MarkdownMemoryStore::new(&s.root)))
        .execute(
            &ToolContext::default(),
            "save_memory",
            r#"{"content":"on markdown"}"#,
        )
        .unwrap();
    assert!(out.success && out.warning.is_none(), "{out:?}");
    assert_eq!(sqlite_master(&s.db), pristine);
    s.runtime_sql_runs();
}

#[test]
fn a_database_from_before_per_agent_memory_is_read_as_global_memory() {
    let s = Setup::new(
        &RUNTIME_DDL.replace(
            &RUNTIME_DDL[RUNTIME_DDL
                .find("CREATE TABLE IF NOT EXISTS memory_entries")
                .unwrap()..],
            PRE_AGENT_MEMORY_DDL,
        ),
    );
    Connection::open(&s.db)
        .unwrap()
        .execute_batch(
            "INSERT INTO memory_entries(scope, content, created_at) VALUES
                 ('CORE', 'an old core fact', 1),
                 ('ARCHIVAL', 'an old kubernetes note', 2),
                 ('archival', 'another old note', '2025-07-22T09:31:10');",
        )
        .unwrap();
    let before = sqlite_master(&s.db);
    let a = Owner::Agent("a".into());
    for store in [s.sqlite(), SqliteMemoryStore::with_index_dir(&s.db, None)] {
        let global = store.load_all(&Owner::Global).unwrap();
        assert_eq!(
            (global.core.len(), global.archival.len()),
            (1, 2),
            "every row is global memory"
        );
        assert!(store.load_all(&a).unwrap().archival.is_empty());
        assert_eq!(store.count(&Owner::Global).unwrap().archival, 2);
        assert_eq!(
            store
                .load_context(&Owner::Global, 4000)
                .unwrap()
                .archival_tail
                .len(),
            2
        );
        let hits = store.recall(&Owner::Global, "KUBERNETES").unwrap();
        assert_eq!(hits[0].line, "an old kubernetes note");
        assert_eq!(sqlite_master(&s.db), before, "reads change nothing");
    }

    // The user asks for a write: upgraded as the runtime upgrades it, then written.
    let store: Arc<dyn LongTermMemoryStore> = Arc::new(s.sqlite());
    let ex = s.executor(store.clone());
    let ctx = ToolContext {
        agent: Some("a".into()),
        session_id: None,
    };
    let out = ex
        .execute(
            &ctx,
            "save_memory",
            r#"{"content":"new for a","scope":"archival"}"#,
        )
        .unwrap();
    assert!(out.success && out.warning.is_none(), "{out:?}");
    assert_eq!(out.output, "已记住");
    let conn = Connection::open(&s.db).unwrap();
    let agent_column: String = conn
        .query_row(
            "SELECT sql FROM sqlite_master WHERE name = 'memory_entries'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        agent_column.contains("agent_name VARCHAR(128) NOT NULL DEFAULT '__global__'"),
        "{agent_column}"
    );
    let index: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'idx_memory_agent'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(index, 1);
    assert_eq!(store.load_all(&Owner::Global).unwrap().archival.len(), 2);
    assert_eq!(store.load_all(&a).unwrap().archival[0].content, "new for a");
    s.runtime_sql_runs();
}

#[test]
fn a_tool_call_that_cannot_be_recorded_keeps_its_result_as_a_warning() {
    // An old database whose tool_invocations cannot take the runtime's row of today.
    let s = Setup::new(&format!(
        "{PRE_AGENT_MEMORY_DDL}
         CREATE TABLE tool_invocations (
             id INTEGER PRIMARY KEY AUTOINCREMENT,
             session_id VARCHAR(255) NOT NULL,
             tool_name VARCHAR(128) NOT NULL,
             success BOOLEAN NOT NULL,
             created_at TIMESTAMP NOT NULL
         );"
    ));
    for store in [
        Arc::new(s.sqlite()) as Arc<dyn LongTermMemoryStore>,
        Arc::new(MarkdownMemoryStore::new(&s.root)),
    ] {
        let backend = store.backend();
        let ex = s.executor(store.clone());
        let ctx = ToolContext {
            agent: Some("a".into()),
            session_id: None,
        };
        let out = ex
            .execute(
                &ctx,
                "save_memory",
                r#"{"content":"saved anyway","scope":"core"}"#,
            )
            .unwrap();
        assert!(out.success, "{backend:?}: {out:?}");
        assert_eq!(out.output, "已记住");
        assert_eq!(out.invocation_id, None);
        assert!(
            out.warning
                .as_deref()
                .is_some_and(|w| w.contains("tool_invocations")),
            "{out:?}"
        );
        let core = store.load_all(&Owner::Agent("a".into())).unwrap().core;
        assert_eq!(core[0].content, "saved anyway", "{backend:?}");
    }
}
