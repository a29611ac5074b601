//! Writing one row of the runtime's `providers` table and putting it back: the console registers
//! itself as a provider only by an explicit action, and that action is undone to the exact row
//! it replaced (every column, each with the type SQLite held it in).

use std::path::Path;

use rusqlite::types::Value as SqlValue;
use rusqlite::OptionalExtension;
use serde::{Deserialize, Serialize};

use crate::db;
use crate::error::{DbContext, Result};

/// A cell of a stored row, as SQLite holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl Cell {
    pub fn text(&self) -> Option<&str> {
        match self {
            Cell::Text(t) => Some(t),
            _ => None,
        }
    }
}

impl From<SqlValue> for Cell {
    fn from(v: SqlValue) -> Self {
        match v {
            SqlValue::Null => Cell::Null,
            SqlValue::Integer(i) => Cell::Int(i),
            SqlValue::Real(r) => Cell::Real(r),
            SqlValue::Text(t) => Cell::Text(t),
            SqlValue::Blob(b) => Cell::Blob(b),
        }
    }
}

impl From<&Cell> for SqlValue {
    fn from(c: &Cell) -> Self {
        match c {
            Cell::Null => SqlValue::Null,
            Cell::Int(i) => SqlValue::Integer(*i),
            Cell::Real(r) => SqlValue::Real(*r),
            Cell::Text(t) => SqlValue::Text(t.clone()),
            Cell::Blob(b) => SqlValue::Blob(b.clone()),
        }
    }
}

/// The columns of a row after its name, in the table's order.
pub const COLUMNS: [&str; 5] = [
    "api_key",
    "base_url",
    "description",
    "created_at",
    "updated_at",
];

/// A whole `providers` row but its name: one cell per [`COLUMNS`] entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredRow(pub Vec<Cell>);

impl StoredRow {
    pub fn api_key(&self) -> Option<&str> {
        self.0[0].text()
    }
    pub fn base_url(&self) -> Option<&str> {
        self.0[1].text()
    }
    pub fn description(&self) -> Option<&str> {
        self.0[2].text()
    }
}

/// `Some(row or None)` when the database has a `providers` table, `None` when it has none (or
/// is missing): the runtime has not started on it yet.
pub fn read(db_path: &Path, name: &str) -> Result<Option<Option<StoredRow>>> {
    let Some(conn) = db::open_existing(db_path)? else {
        return Ok(None);
    };
    if db::table_columns(&conn, "providers")
        .at_db(db_path)?
        .is_empty()
    {
        return Ok(None);
    }
    let sql = format!(
        "SELECT {} FROM providers WHERE name = ?1",
        COLUMNS.join(", ")
    );
    let row = conn
        .query_row(&sql, [name], |r| {
            (0..COLUMNS.len())
                .map(|i| r.get::<_, SqlValue>(i).map(Cell::from))
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .optional()
        .at_db(db_path)?;
    Ok(Some(row.map(StoredRow)))
}

/// Writes `row` as the row `name` (`None` deletes it), in one statement.
pub fn write(db_path: &Path, name: &str, row: Option<&StoredRow>) -> Result<()> {
    let conn = db::open_existing(db_path)?
        .ok_or_else(|| crate::CoreError::NotFound(format!("{}", db_path.display())))?;
    match row {
        None => {
            conn.execute("DELETE FROM providers WHERE name = ?1", [name])
                .at_db(db_path)?;
        }
        Some(row) => {
            let sql = format!(
                "INSERT INTO providers (name, {cols}) VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
                 ON CONFLICT(name) DO UPDATE SET {set}",
                cols = COLUMNS.join(", "),
                set = COLUMNS
                    .iter()
                    .map(|c| format!("{c} = excluded.{c}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let mut params: Vec<SqlValue> = vec![SqlValue::Text(name.to_string())];
            params.extend(row.0.iter().map(SqlValue::from));
            conn.execute(&sql, rusqlite::params_from_iter(params))
                .at_db(db_path)?;
        }
    }
    Ok(())
}

/// `memory_vectors` rows whose `embedding_model` is not `model` (0 without the table): the rows
/// the runtime's reconcile drops at its start once `model` is its embedding model.
pub fn vectors_of_other_models(db_path: &Path, model: &str) -> Result<u64> {
    let Some(conn) = db::open_existing(db_path)? else {
        return Ok(0);
    };
    if db::table_columns(&conn, "memory_vectors")
        .at_db(db_path)?
        .is_empty()
    {
        return Ok(0);
    }
    let n: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM memory_vectors WHERE embedding_model <> ?1",
            [model],
            |r| r.get(0),
        )
        .at_db(db_path)?;
    Ok(u64::try_from(n).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_written_and_put_back_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        assert_eq!(read(&path, "x").unwrap(), None);
        let conn = rusqlite::Connection::open(&path).unwrap();
        crate::runtime::schema::create(&conn).unwrap();
        conn.execute_batch(
            "INSERT INTO providers VALUES ('x', 'k', 'http://a', NULL, '2024-01-01 00:00:00', 5);
             INSERT INTO memory_vectors (entry_hash, agent_name, content, embedding, dim, \
             embedding_model, created_at) VALUES ('h', 'a', 'c', x'00', 1, 'mock/deterministic', 0);",
        )
        .unwrap();
        let before = read(&path, "x").unwrap().unwrap().unwrap();
        assert_eq!(before.0[3], Cell::Text("2024-01-01 00:00:00".into()));
        assert_eq!(before.0[4], Cell::Int(5));
        let mut after = before.clone();
        after.0[1] = Cell::Text("http://b".into());
        write(&path, "x", Some(&after)).unwrap();
        assert_eq!(read(&path, "x").unwrap().unwrap().unwrap(), after);
        write(&path, "x", Some(&before)).unwrap();
        assert_eq!(read(&path, "x").unwrap().unwrap().unwrap(), before);
        write(&path, "x", None).unwrap();
        assert_eq!(read(&path, "x").unwrap(), Some(None));
        assert_eq!(
            vectors_of_other_models(&path, "mock/deterministic").unwrap(),
            0
        );
        assert_eq!(vectors_of_other_models(&path, "oryx-local/m").unwrap(), 1);
    }
}
