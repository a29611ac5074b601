//! SQL pieces shared by the session and invocation queries: projections that tolerate older
//! table shapes, a sort key over mixed timestamp formats, and lenient cell conversions.

use std::path::Path;

use rusqlite::types::Value;
use rusqlite::Connection;

use crate::db;
use crate::error::{CoreError, DbContext, Result};

/// The columns a query needs from one of the runtime's tables.
pub(super) struct TableShape {
    pub table: &'static str,
    /// Without these a row cannot be identified: their absence means a foreign database.
    pub required: &'static [&'static str],
    /// Older runtimes lacked some of these; a missing one reads as NULL.
    pub optional: &'static [&'static str],
}

/// A sub-select giving every column of `shape` under its own name (NULL for absent optional
/// columns), so that the queries above it never depend on the database's age.
/// `Ok(None)` when the table does not exist: a database the runtime has not used yet.
pub(super) fn projection(
    conn: &Connection,
    path: &Path,
    shape: &TableShape,
) -> Result<Option<String>> {
    let present = db::table_columns(conn, shape.table).at_db(path)?;
    if present.is_empty() {
        return Ok(None);
    }
    let has = |col: &str| present.iter().any(|p| p.eq_ignore_ascii_case(col));
    if let Some(missing) = shape.required.iter().find(|c| !has(c)) {
        return Err(CoreError::Corrupt(format!(
            "{}: table {} has no column {missing}; this is not a database of the OryxOS runtime",
            path.display(),
            shape.table
        )));
    }
    let columns: Vec<String> = shape
        .required
        .iter()
        .map(|c| format!("\"{c}\""))
        .chain(shape.optional.iter().map(|c| match has(c) {
            true => format!("\"{c}\""),
            false => format!("NULL AS \"{c}\""),
        }))
        .collect();
    Ok(Some(format!(
        "SELECT {} FROM \"{}\"",
        columns.join(", "),
        shape.table
    )))
}

pub(super) use crate::db::epoch_ms_sql;

/// A text cell; numbers are kept as their text because SQLite's column types are only advice.
pub(super) fn text_cell(v: Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Text(s) => Some(s),
        Value::Integer(i) => Some(i.to_string()),
        Value::Real(r) => Some(r.to_string()),
        Value::Blob(b) => Some(String::from_utf8_lossy(&b).into_owned()),
    }
}

pub(super) fn int_cell(v: &Value) -> Option<i64> {
    match v {
        Value::Integer(i) => Some(*i),
        Value::Real(r) => Some(*r as i64),
        Value::Text(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The runtime's JDBC driver writes booleans as 0/1; other writers used 'true'/'false'.
pub(super) fn bool_cell(v: &Value) -> bool {
    match v {
        Value::Integer(i) => *i != 0,
        Value::Real(r) => *r != 0.0,
        Value::Text(s) => {
            let s = s.trim();
            s.eq_ignore_ascii_case("true") || s.parse::<i64>().is_ok_and(|i| i != 0)
        }
        _ => false,
    }
}

/// LIMIT and OFFSET take i64; a page larger than that is "everything".
pub(super) fn sql_int(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_convert_leniently() {
        assert!(bool_cell(&Value::Integer(1)));
        assert!(!bool_cell(&Value::Integer(0)));
        assert!(bool_cell(&Value::Text("TRUE".into())));
        assert!(!bool_cell(&Value::Text("false".into())));
        assert!(bool_cell(&Value::Text("1".into())));
        assert!(!bool_cell(&Value::Null));
        assert_eq!(int_cell(&Value::Text(" 42 ".into())), Some(42));
        assert_eq!(text_cell(Value::Integer(7)).as_deref(), Some("7"));
        assert_eq!(sql_int(usize::MAX), i64::MAX);
    }

    #[test]
    fn the_sort_key_reads_ms_numeric_text_and_iso() {
        let conn = Connection::open_in_memory().unwrap();
        let key = |v: Value| -> Option<i64> {
            conn.query_row(&format!("SELECT {}", epoch_ms_sql("?1")), [v], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(key(Value::Integer(1_000)), Some(1_000));
        assert_eq!(key(Value::Text("1000".into())), Some(1_000));
        assert_eq!(key(Value::Text("1970-01-01T00:00:01Z".into())), Some(1_000));
        assert_eq!(
            key(Value::Text("1970-01-01 08:00:02+08:00".into())),
            Some(2_000)
        );
        assert_eq!(key(Value::Text("soon".into())), None);
        assert_eq!(key(Value::Null), None);
    }
}
