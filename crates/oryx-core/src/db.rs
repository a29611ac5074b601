//! Opening the runtime's SQLite database and creating its tables when they are missing.
//! Existing tables are never altered: the Java runtime owns their shape.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::error::{CoreError, DbContext, Result};

/// The Java runtime's tables and indexes, as its `schema.sql` creates them. `IF NOT EXISTS` keeps
/// an existing database as it is.
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
CREATE INDEX IF NOT EXISTS idx_memory_agent ON memory_entries (agent_name, scope);
";

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
    if !crate::fsx::require_regular_if_exists(path)? {
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
pub fn open_or_create(path: &Path) -> Result<Connection> {
    if !crate::fsx::require_regular_if_exists(path)? {
        require_folder(path)?;
    }
    let conn = Connection::open(path).at_db(path)?;
    configure(&conn, path, true).map_err(|e| corrupt_if_not_db(e, path))?;
    conn.execute_batch(RUNTIME_SCHEMA)
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
pub use rusqlite::{Error as SqlError, ErrorCode as SqlErrorCode};

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
        use crate::fsx::test_support::{mkfifo, within_deadline};
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
}
