//! Reading the runtime's own tables without changing them: a database or table that does not
//! exist yet is nothing to show (a runtime that never started), a file that is not SQLite is an
//! error that says so.

use std::path::Path;

use rusqlite::types::Value;

use crate::db::{self, Connection};
use crate::error::{DbContext, Result};
use crate::timefmt::{local_to_epoch_ms, parse_db_time};

/// The database and the columns `table` has; `None` when either does not exist.
pub(crate) fn open_table(db_path: &Path, table: &str) -> Result<Option<(Connection, Vec<String>)>> {
    let Some(conn) = db::open_existing(db_path)? else {
        return Ok(None);
    };
    let cols = db::table_columns(&conn, table).at_db(db_path)?;
    if cols.is_empty() {
        return Ok(None);
    }
    Ok(Some((conn, cols)))
}

/// A timestamp cell as epoch milliseconds (the runtime's rows hold epoch ms or ISO text).
pub(crate) fn time_ms(v: &Value) -> Option<i64> {
    parse_db_time(v).map(|t| local_to_epoch_ms(&t))
}

/// A boolean cell: SQLite keeps booleans as 0/1 (text "true"/"false" from other writers too).
pub(crate) fn flag(v: &Value) -> Option<bool> {
    match v {
        Value::Integer(i) => Some(*i != 0),
        Value::Real(f) => Some(*f != 0.0),
        Value::Text(t) => match t.trim().to_ascii_lowercase().as_str() {
            "1" | "true" => Some(true),
            "0" | "false" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

pub(crate) fn text(v: &Value) -> Option<String> {
    match v {
        Value::Text(t) => Some(t.clone()),
        Value::Integer(i) => Some(i.to_string()),
        Value::Real(f) => Some(f.to_string()),
        _ => None,
    }
}

pub(crate) fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Integer(i) => Some(*i),
        Value::Real(f) => Some(*f as i64),
        Value::Text(t) => t.trim().parse().ok(),
        _ => None,
    }
}

/// Every row of `sql` as its cells.
pub(crate) fn rows(
    conn: &Connection,
    db_path: &Path,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<Vec<Value>>> {
    let mut stmt = conn.prepare(sql).at_db(db_path)?;
    let n = stmt.column_count();
    let out = stmt
        .query_map(params, |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
        .at_db(db_path)?
        .collect::<rusqlite::Result<Vec<Vec<Value>>>>()
        .at_db(db_path)?;
    Ok(out)
}

/// `wanted` as a select list, `NULL` for the columns this table does not have (databases of
/// older runtimes lack some).
pub(crate) fn select_list(cols: &[String], wanted: &[&str]) -> String {
    wanted
        .iter()
        .map(|w| {
            if cols.iter().any(|c| c == w) {
                format!("\"{w}\"")
            } else {
                "NULL".to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_database_or_table_is_nothing_and_a_corrupt_one_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        assert!(open_table(&path, "scheduled_tasks").unwrap().is_none());
        assert!(!path.exists(), "never created");
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE t (x)")
            .unwrap();
        assert!(open_table(&path, "scheduled_tasks").unwrap().is_none());
        std::fs::write(&path, b"this is not a database, just some bytes ......").unwrap();
        let e = open_table(&path, "scheduled_tasks").unwrap_err();
        assert!(matches!(e, crate::error::CoreError::Corrupt(_)), "{e:?}");
    }

    #[test]
    fn cells_read_as_the_runtime_writes_them() {
        assert_eq!(
            time_ms(&Value::Integer(1_700_000_000_123)),
            Some(1_700_000_000_123)
        );
        assert_eq!(
            time_ms(&Value::Text("2023-11-14T22:13:20.123Z".into())),
            Some(1_700_000_000_123)
        );
        assert_eq!(flag(&Value::Integer(0)), Some(false));
        assert_eq!(flag(&Value::Text("true".into())), Some(true));
        assert_eq!(flag(&Value::Null), None);
        let cols = vec!["a".to_string(), "c".to_string()];
        assert_eq!(select_list(&cols, &["a", "b", "c"]), "\"a\", NULL, \"c\"");
    }
}
