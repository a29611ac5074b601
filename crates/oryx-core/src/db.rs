//! Opening the runtime's SQLite database and creating its tables when they are missing.
//! Existing tables are never altered, except for the one upgrade the runtime itself performs
//! ([`upgrade_memory_entries`]), and only before the console writes memory: the Java runtime
//! owns their shape.

use std::path::Path;
use std::time::Duration;

use rusqlite::OpenFlags;

use crate::error::{CoreError, DbContext, Result};

/// The Java runtime's tables and indexes, as its `schema.sql` creates them. `IF NOT EXISTS` keeps
/// an existing database as it is. `idx_memory_agent` is not here because the runtime's script
/// does not create it either: on a database from before per-agent memory the column does not
/// exist yet, and the runtime adds both in [`upgrade_memory_entries`].
pub const RUNTIME_SCHEMA: &str = "
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
";

/// The runtime's index over per-agent memory (its `MemorySchemaUpgrade` creates it).
pub const MEMORY_AGENT_INDEX: &str =
    "CREATE INDEX IF NOT EXISTS idx_memory_agent ON memory_entries (agent_name, scope)";

/// The runtime's upgrade of a database from before per-agent memory: every existing row becomes
/// global memory.
pub const MEMORY_AGENT_COLUMN: &str =
    "ALTER TABLE memory_entries ADD COLUMN agent_name VARCHAR(128) NOT NULL DEFAULT '__global__'";

/// What earlier console versions added to the runtime's database (an order index, and a trigram
/// FTS5 table with its triggers). Dropping the table drops its shadow tables too.
const LEGACY_CONSOLE_TRIGGERS: [&str; 3] = [
    "memory_entries_fts_ai",
    "memory_entries_fts_ad",
    "memory_entries_fts_au",
];
const LEGACY_CONSOLE_FTS: &str = "memory_entries_fts";
const LEGACY_CONSOLE_INDEX: &str = "idx_memory_console_order";

fn configure(conn: &Connection, path: &Path, writable: bool) -> Result<()> {
    conn.busy_timeout(Duration::from_secs(5)).at_db(path)?;
    if writable {
        // WAL lets the console read while the runtime writes; the runtime uses it too.
        let _: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .at_db(path)?;
    }
    Ok(())
}

/// Opens the database for reading; `Ok(None)` when the file does not exist (an empty console,
/// not an error). A file that is not SQLite is reported as corrupt.
pub fn open_existing(path: &Path) -> Result<Option<Connection>> {
    // SQLite opens by name: a FIFO or device must be refused before it blocks on it.
    if !crate::rooted_fs::require_regular_if_exists(path)? {
        require_folder(path)?;
        return Ok(None);
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI,
    )
    .or_else(|_| Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY))
    .at_db(path)?;
    configure(&conn, path, false)?;
    check_is_sqlite(&conn, path)?;
    Ok(Some(conn))
}

/// Opens (creating when missing) the database and makes sure the runtime's tables exist.
///
/// The database of a runtime install is the runtime's to create (its first start runs its whole
/// schema): when it is missing, a write is refused with where the runtime would create it.
pub fn open_or_create(path: &Path) -> Result<Connection> {
    if !crate::rooted_fs::require_regular_if_exists(path)? {
        require_folder(path)?;
        if crate::runtime::install::is_install_database(path) {
            return Err(CoreError::Conflict(format!(
                "the runtime's database {} does not exist yet; the runtime creates it on its \
                 first start (bin/start.sh), so the console writes nothing until then",
                path.display()
            )));
        }
    }
    let conn = Connection::open(path).at_db(path)?;
    configure(&conn, path, true).map_err(|e| corrupt_if_not_db(e, path))?;
    create_runtime_schema(&conn)
        .at_db(path)
        .map_err(|e| corrupt_if_not_db(e, path))?;
    Ok(conn)
}

/// A missing database in an existing folder is an empty console; a missing folder is a
/// configuration to fix (a root that vanished, a mistyped path), never created behind the
/// user's back.
fn require_folder(path: &Path) -> Result<()> {
    let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) else {
        return Ok(());
    };
    if parent.is_dir() {
        return Ok(());
    }
    Err(CoreError::InvalidInput(format!(
        "the folder {} of the database {} does not exist; choose an existing root or database path",
        parent.display(),
        path.display()
    )))
}

/// Creates the runtime's missing tables and indexes in one transaction, so that a failure
/// leaves the database as it was rather than half-created. The agent index comes with the
/// agent column only (a database from before it is read as it is, see [`has_memory_agent`]).
fn create_runtime_schema(conn: &Connection) -> rusqlite::Result<()> {
    // The usual case: everything is there, and no write lock is taken just to find that out.
    let present: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE name IN ('tool_invocations', \
         'idx_tool_invocations_session', 'sessions', 'idx_sessions_profile', 'memory_entries', \
         'idx_memory_scope', 'idx_memory_agent')",
        [],
        |r| r.get(0),
    )?;
    if present == 7 || (present == 6 && !has_memory_agent(conn)?) {
        return Ok(());
    }
    in_write_transaction(conn, || {
        conn.execute_batch(RUNTIME_SCHEMA)?;
        if has_memory_agent(conn)? {
            conn.execute_batch(MEMORY_AGENT_INDEX)?;
        }
        Ok(())
    })
}

/// Whether `memory_entries` has the runtime's `agent_name` column (older databases do not: all
/// their rows are global memory).
pub fn has_memory_agent(conn: &Connection) -> rusqlite::Result<bool> {
    Ok(table_columns(conn, "memory_entries")?
        .iter()
        .any(|c| c.eq_ignore_ascii_case("agent_name")))
}

/// Upgrades `memory_entries` the way the runtime's `MemorySchemaUpgrade` does at its start (the
/// agent column with the global default, then its index), for a console about to write memory
/// into a database from before per-agent memory. `Ok(true)` when it upgraded.
pub fn upgrade_memory_entries(conn: &Connection) -> rusqlite::Result<bool> {
    in_write_transaction(conn, || {
        if table_columns(conn, "memory_entries")?.is_empty() || has_memory_agent(conn)? {
            return Ok(false);
        }
        conn.execute_batch(MEMORY_AGENT_COLUMN)?;
        conn.execute_batch(MEMORY_AGENT_INDEX)?;
        Ok(true)
    })
}

/// Removes what earlier console versions added to the runtime's database (see
/// [`LEGACY_CONSOLE_FTS`]); their triggers would make the runtime's inserts fail on any SQLite
/// without FTS5 trigram. Only on a writable database. Returns the names removed.
pub fn remove_legacy_console_objects(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut names = vec![LEGACY_CONSOLE_INDEX, LEGACY_CONSOLE_FTS];
    names.extend(LEGACY_CONSOLE_TRIGGERS);
    let present = |conn: &Connection| -> rusqlite::Result<Vec<String>> {
        let mut stmt = conn.prepare_cached(
            "SELECT name FROM sqlite_master WHERE name IN (?1, ?2, ?3, ?4, ?5) \
                OR (type = 'table' AND name GLOB 'memory_entries_fts_*') ORDER BY name",
        )?;
        let rows = stmt.query_map(rusqlite::params_from_iter(&names), |r| r.get(0))?;
        rows.collect()
    };
    if present(conn)?.is_empty() || conn.is_readonly(rusqlite::MAIN_DB)? {
        return Ok(Vec::new());
    }
    in_write_transaction(conn, || {
        let found = present(conn)?;
        for trigger in LEGACY_CONSOLE_TRIGGERS {
            conn.execute_batch(&format!("DROP TRIGGER IF EXISTS \"{trigger}\""))?;
        }
        conn.execute_batch(&format!(
            "DROP TABLE IF EXISTS \"{LEGACY_CONSOLE_FTS}\"; \
             DROP INDEX IF EXISTS \"{LEGACY_CONSOLE_INDEX}\";"
        ))?;
        // Shadow tables left without their FTS table (a half-finished earlier removal).
        for shadow in present(conn)? {
            conn.execute_batch(&format!("DROP TABLE IF EXISTS \"{shadow}\""))?;
        }
        Ok(found)
    })
}

/// [`remove_legacy_console_objects`], said once on stderr (afterwards nothing is left to
/// remove); the sentence is returned for hosts to show. A failure only leaves them in place.
pub fn remove_legacy_console_objects_noting(conn: &Connection, path: &Path) -> Option<String> {
    match remove_legacy_console_objects(conn) {
        Ok(removed) if !removed.is_empty() => {
            let notice = format!(
                "removed what an earlier console version had added to {} ({}): the console \
                 keeps its indexes in a database of its own now",
                path.display(),
                removed.join(", ")
            );
            eprintln!("oryx: {notice}");
            Some(notice)
        }
        Ok(_) => None,
        Err(e) => {
            eprintln!(
                "oryx: could not remove an earlier console version's index objects from {}: {e}",
                path.display()
            );
            None
        }
    }
}

/// Runs `f` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it fails.
fn in_write_transaction<T>(
    conn: &Connection,
    f: impl FnOnce() -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    match f().and_then(|v| conn.execute_batch("COMMIT").map(|_| v)) {
        Ok(v) => Ok(v),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

fn check_is_sqlite(conn: &Connection, path: &Path) -> Result<()> {
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    })
    .at_db(path)
    .map_err(|e| corrupt_if_not_db(e, path))?;
    Ok(())
}

fn corrupt_if_not_db(e: CoreError, path: &Path) -> CoreError {
    match &e {
        CoreError::Database { source, .. }
            if matches!(
                source.sqlite_error_code(),
                Some(rusqlite::ErrorCode::NotADatabase) | Some(rusqlite::ErrorCode::DatabaseCorrupt)
            ) =>
        {
            CoreError::Corrupt(format!(
                "{} is not a readable SQLite database ({source}); choose another database path in Settings",
                path.display()
            ))
        }
        _ => e,
    }
}

/// Whether `table` exists and which columns it has (to read databases of older runtimes).
pub fn table_columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let cols = stmt
        .query_map([table], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(cols)
}

/// An SQL expression turning a timestamp cell into epoch milliseconds, for ordering in SQL when
/// rows mix integer ms and ISO text. ISO text without an offset is taken as UTC here (SQLite's
/// `utc` modifier is unreliable across builds), so mixed-format rows may be off by the local
/// offset in the order only; displayed times come from `timefmt::parse_db_time`.
pub fn epoch_ms_sql(col: &str) -> String {
    format!(
        "CASE typeof({col}) \
           WHEN 'integer' THEN {col} \
           WHEN 'real' THEN CAST({col} AS INTEGER) \
           WHEN 'text' THEN CASE \
             WHEN trim({col}) <> '' AND trim({col}) NOT GLOB '*[^0-9]*' THEN CAST(trim({col}) AS INTEGER) \
             ELSE CAST(round((julianday(trim({col})) - 2440587.5) * 86400000.0) AS INTEGER) END \
         END"
    )
}

/// Re-exported so hosts can classify database errors without depending on rusqlite.
pub use rusqlite::{Connection, Error as SqlError, ErrorCode as SqlErrorCode};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_tables_and_keeps_existing_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        assert!(open_existing(&path).unwrap().is_none());
        let conn = open_or_create(&path).unwrap();
        conn.execute(
            "INSERT INTO memory_entries(scope, content, created_at) VALUES ('CORE','x',1)",
            [],
        )
        .unwrap();
        drop(conn);
        let conn = open_or_create(&path).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM memory_entries", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
        assert!(table_columns(&conn, "sessions")
            .unwrap()
            .contains(&"messages_json".to_string()));
    }

    #[test]
    fn a_missing_folder_is_an_error_and_never_created() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gone/deeper/oryxos.db");
        for err in [
            open_existing(&path).map(|_| ()).unwrap_err(),
            open_or_create(&path).map(|_| ()).unwrap_err(),
        ] {
            assert!(
                err.to_string().contains("does not exist") && err.to_string().contains("gone"),
                "{err}"
            );
        }
        assert!(!dir.path().join("gone").exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_database_is_refused_not_opened() {
        use crate::rooted_fs::test_support::{mkfifo, within_deadline};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        mkfifo(&path);
        let p = path.clone();
        let err = within_deadline(move || open_existing(&p).map(|_| ())).unwrap_err();
        assert!(matches!(err, CoreError::NotRegularFile { .. }), "{err}");
        let err = within_deadline(move || open_or_create(&path).map(|_| ())).unwrap_err();
        assert!(matches!(err, CoreError::NotRegularFile { .. }), "{err}");
    }

    #[test]
    fn a_file_that_is_not_sqlite_is_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        std::fs::write(
            &path,
            b"this is not a database, just some text that is long enough to matter",
        )
        .unwrap();
        assert!(matches!(open_existing(&path), Err(CoreError::Corrupt(_))));
        assert!(matches!(open_or_create(&path), Err(CoreError::Corrupt(_))));
    }

    fn names(path: &Path) -> Vec<String> {
        let conn = Connection::open(path).unwrap();
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_master ORDER BY name")
            .unwrap();
        let rows = stmt.query_map([], |r| r.get(0)).unwrap();
        rows.collect::<rusqlite::Result<_>>().unwrap()
    }

    #[test]
    fn a_schema_that_cannot_be_completed_is_not_begun() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        // A foreign tool_invocations: the runtime's index on session_id cannot be created.
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE tool_invocations(id INTEGER PRIMARY KEY)")
            .unwrap();
        let err = open_or_create(&path).unwrap_err().to_string();
        assert!(err.contains("session_id"), "{err}");
        assert_eq!(names(&path), ["tool_invocations"], "nothing half-created");
    }

    #[test]
    fn an_old_memory_table_gets_no_agent_index_until_upgraded_as_the_runtime_does() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch(
                "CREATE TABLE memory_entries (id INTEGER PRIMARY KEY AUTOINCREMENT, \
                 scope VARCHAR(16) NOT NULL, content TEXT NOT NULL, created_at TIMESTAMP NOT NULL);
                 INSERT INTO memory_entries(scope, content, created_at) VALUES ('CORE', 'old', 1);",
            )
            .unwrap();
        let conn = open_or_create(&path).unwrap();
        assert!(!has_memory_agent(&conn).unwrap());
        assert!(!names(&path).contains(&"idx_memory_agent".to_string()));
        assert!(names(&path).contains(&"tool_invocations".to_string()));
        assert!(upgrade_memory_entries(&conn).unwrap());
        assert!(!upgrade_memory_entries(&conn).unwrap(), "once");
        assert!(names(&path).contains(&"idx_memory_agent".to_string()));
        let agent: String = conn
            .query_row("SELECT agent_name FROM memory_entries", [], |r| r.get(0))
            .unwrap();
        assert_eq!(agent, "__global__");
    }
}
