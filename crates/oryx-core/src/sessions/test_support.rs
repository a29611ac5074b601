//! Real SQLite files in temporary directories for the tests of this module.

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use tempfile::TempDir;

use super::{NewSession, SessionStore};

pub struct Fixture {
    // Kept so that the directory outlives the test.
    _dir: TempDir,
    pub path: PathBuf,
    pub store: SessionStore,
}

impl Fixture {
    /// A store whose database file does not exist yet.
    pub fn empty() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("oryxos.db");
        Fixture {
            store: SessionStore::new(&path),
            path,
            _dir: dir,
        }
    }

    /// A database with the runtime's schema and no rows.
    pub fn with_schema() -> Fixture {
        let f = Fixture::empty();
        crate::db::open_or_create(&f.path).expect("schema");
        f
    }

    /// A database holding only `ddl` (to imitate older runtimes).
    pub fn with_ddl(ddl: &str) -> Fixture {
        let f = Fixture::empty();
        raw(&f.path).execute_batch(ddl).expect("ddl");
        f
    }

    pub fn conn(&self) -> Connection {
        raw(&self.path)
    }

    pub fn insert(&self, s: NewSession) {
        self.store.insert_session(&s).expect("insert session");
    }
}

fn raw(path: &Path) -> Connection {
    Connection::open(path).expect("open sqlite")
}

/// A session of `agent` with `messages_json` and activity at `last_ms`.
pub fn session(id: &str, agent: &str, messages_json: &str, last_ms: i64) -> NewSession {
    NewSession {
        session_id: id.to_string(),
        agent: Some(agent.to_string()),
        channel: Some(id.split(':').next().unwrap_or("cli").to_string()),
        user_id: Some(id.split(':').nth(1).unwrap_or("u").to_string()),
        messages_json: messages_json.to_string(),
        status: "active".to_string(),
        created_at_ms: last_ms - 60_000,
        last_active_at_ms: last_ms,
        archived_at_ms: None,
    }
}

pub const TWO_MESSAGES: &str =
    r#"[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]"#;
