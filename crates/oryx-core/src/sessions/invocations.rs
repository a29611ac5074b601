//! Reading and recording rows of `tool_invocations`.

use rusqlite::types::Value;
use rusqlite::{params, params_from_iter, Row};

use super::model::{NewInvocation, ToolInvocation};
use super::sql::{bool_cell, epoch_ms_sql, int_cell, projection, sql_int, text_cell, TableShape};
use super::SessionStore;
use crate::db;
use crate::error::{DbContext, Result};
use crate::timefmt::{now_epoch_ms, parse_db_time};

const INVOCATIONS: TableShape = TableShape {
    table: "tool_invocations",
    required: &["id", "tool_name"],
    optional: &[
        "session_id",
        "input_json",
        "result_json",
        "success",
        "error_message",
        "duration_ms",
        "created_at",
    ],
};

impl SessionStore {
    /// Recorded tool calls, newest first, optionally of one session. A missing database or
    /// table yields no rows.
    pub fn tool_invocations(
        &self,
        session_id: Option<&str>,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<ToolInvocation>> {
        let Some(conn) = self.open_existing()? else {
            return Ok(Vec::new());
        };
        let Some(source) = projection(&conn, &self.path, &INVOCATIONS)? else {
            return Ok(Vec::new());
        };
        let mut args = Vec::new();
        let filter = match session_id {
            Some(id) => {
                args.push(Value::Text(id.to_string()));
                "WHERE session_id = ?"
            }
            None => "",
        };
        args.push(Value::Integer(sql_int(limit)));
        args.push(Value::Integer(sql_int(offset)));
        // id breaks ties between calls recorded in the same millisecond, in insertion order.
        let sql = format!(
            "SELECT id, session_id, tool_name, input_json, result_json, success, error_message, \
                    duration_ms, created_at \
             FROM ({source}) {filter} \
             ORDER BY {} DESC NULLS LAST, id DESC LIMIT ? OFFSET ?",
            epoch_ms_sql("created_at")
        );
        let mut stmt = conn.prepare(&sql).at_db(&self.path)?;
        let rows = stmt
            .query_map(params_from_iter(&args), invocation_from_row)
            .at_db(&self.path)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .at_db(&self.path)?;
        Ok(rows)
    }

    /// Successful calls of `tool`, oldest first; with `session`, only that session's; with
    /// `between` (epoch ms, inclusive), only those recorded in that span. A missing database or
    /// table yields no rows.
    pub fn successful_calls_of(
        &self,
        tool: &str,
        session: Option<&str>,
        between: Option<(i64, i64)>,
    ) -> Result<Vec<ToolInvocation>> {
        let Some(conn) = self.open_existing()? else {
            return Ok(Vec::new());
        };
        let Some(source) = projection(&conn, &self.path, &INVOCATIONS)? else {
            return Ok(Vec::new());
        };
        let at = epoch_ms_sql("created_at");
        let mut args = vec![Value::Text(tool.to_string())];
        let mut span = String::new();
        if let Some(id) = session {
            args.push(Value::Text(id.to_string()));
            span.push_str(" AND session_id = ?");
        }
        if let Some((from, to)) = between {
            args.push(Value::Integer(from));
            args.push(Value::Integer(to));
            span.push_str(&format!(" AND {at} BETWEEN ? AND ?"));
        }
        let sql = format!(
            "SELECT id, session_id, tool_name, input_json, result_json, success, error_message, \
                    duration_ms, created_at \
             FROM ({source}) WHERE tool_name = ?{span} ORDER BY {at}, id"
        );
        let mut stmt = conn.prepare(&sql).at_db(&self.path)?;
        let rows = stmt
            .query_map(params_from_iter(&args), invocation_from_row)
            .at_db(&self.path)?
            .filter(|r| r.as_ref().map_or(true, |i| i.success))
            .collect::<rusqlite::Result<Vec<_>>>()
            .at_db(&self.path)?;
        Ok(rows)
    }

    /// Records one tool call as the runtime does (success as 0/1, created_at in epoch ms),
    /// creating the database and tables when missing. Returns the new row id.
    pub fn record_invocation(&self, inv: &NewInvocation) -> Result<i64> {
        let conn = db::open_or_create(&self.path)?;
        // Tool calls reach the database on every backend: an earlier console's triggers there
        // would break the runtime's own inserts into memory_entries.
        db::remove_legacy_console_objects_noting(&conn, &self.path);
        conn.execute(
            "INSERT INTO tool_invocations(session_id, tool_name, input_json, result_json, \
                                          success, error_message, duration_ms, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                inv.session_id,
                inv.tool_name,
                inv.input_json,
                inv.result_json,
                inv.success,
                inv.error_message,
                inv.duration_ms,
                inv.created_at_ms.unwrap_or_else(now_epoch_ms)
            ],
        )
        .at_db(&self.path)?;
        Ok(conn.last_insert_rowid())
    }
}

fn invocation_from_row(r: &Row<'_>) -> rusqlite::Result<ToolInvocation> {
    let cell = |i: usize| r.get::<_, Value>(i);
    Ok(ToolInvocation {
        id: int_cell(&cell(0)?).unwrap_or_default(),
        session_id: text_cell(cell(1)?),
        tool_name: text_cell(cell(2)?).unwrap_or_default(),
        input_json: text_cell(cell(3)?),
        result_json: text_cell(cell(4)?),
        success: bool_cell(&cell(5)?),
        error_message: text_cell(cell(6)?),
        duration_ms: int_cell(&cell(7)?),
        created_at: parse_db_time(&cell(8)?),
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_support::Fixture;
    use super::*;
    use crate::error::CoreError;
    use crate::timefmt::parse_entry_ts;

    fn call(session: &str, tool: &str, success: bool) -> NewInvocation {
        NewInvocation {
            session_id: session.to_string(),
            tool_name: tool.to_string(),
            input_json: r#"{"keyword":"偏好"}"#.to_string(),
            result_json: success.then(|| "\"已记住\"".to_string()),
            success,
            error_message: (!success).then(|| "未注册的工具: x".to_string()),
            duration_ms: 7,
            created_at_ms: None,
        }
    }

    #[test]
    fn record_invocation_creates_the_database_and_tables() {
        let f = Fixture::empty();
        assert!(f.store.tool_invocations(None, 10, 0).unwrap().is_empty());
        let before = now_epoch_ms();
        let first = f
            .store
            .record_invocation(&call("cli:u:a", "save_memory", true))
            .unwrap();
        let second = f
            .store
            .record_invocation(&call("cli:u:a", "x", false))
            .unwrap();
        assert!(f.path.exists());
        assert!(second > first);
        let conn = f.conn();
        for table in ["tool_invocations", "sessions", "memory_entries"] {
            assert!(
                !db::table_columns(&conn, table).unwrap().is_empty(),
                "{table}"
            );
        }
        let (created, success): (i64, i64) = conn
            .query_row(
                "SELECT created_at, success FROM tool_invocations WHERE id = ?1",
                [first],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert!(created >= before, "created_at is epoch ms");
        assert_eq!(success, 1);

        let rows = f.store.tool_invocations(None, 10, 0).unwrap();
        assert_eq!(
            rows.iter().map(|r| r.id).collect::<Vec<_>>(),
            [second, first]
        );
        let (failed, saved) = (&rows[0], &rows[1]);
        assert!(!failed.success && failed.result_json.is_none());
        assert_eq!(failed.error_message.as_deref(), Some("未注册的工具: x"));
        assert!(saved.success && saved.error_message.is_none());
        assert_eq!(saved.result_json.as_deref(), Some("\"已记住\""));
        assert_eq!(saved.input_json.as_deref(), Some(r#"{"keyword":"偏好"}"#));
        assert_eq!(
            (saved.duration_ms, saved.tool_name.as_str()),
            (Some(7), "save_memory")
        );
        assert!(saved.created_at.is_some());
    }

    #[test]
    fn tool_invocations_filter_by_session_and_page_newest_first() {
        let f = Fixture::empty();
        for i in 0..5 {
            let session = if i % 2 == 0 { "s:even" } else { "s:odd" };
            f.store
                .record_invocation(&call(session, &format!("t{i}"), true))
                .unwrap();
        }
        let names = |rows: Vec<ToolInvocation>| -> Vec<String> {
            rows.into_iter().map(|r| r.tool_name).collect()
        };
        assert_eq!(
            names(f.store.tool_invocations(Some("s:even"), 10, 0).unwrap()),
            ["t4", "t2", "t0"]
        );
        assert_eq!(
            names(f.store.tool_invocations(None, 2, 1).unwrap()),
            ["t3", "t2"]
        );
        assert!(f
            .store
            .tool_invocations(Some("nope"), 10, 0)
            .unwrap()
            .is_empty());
    }

    #[test]
    fn rows_of_other_writers_read_text_booleans_and_iso_times() {
        let f = Fixture::with_schema();
        f.conn()
            .execute_batch(
                "INSERT INTO tool_invocations(session_id, tool_name, input_json, result_json, success,
                                              error_message, duration_ms, created_at)
                 VALUES ('s', 'ok', '{}', '\"r\"', 'true', NULL, 3, '2026-07-22T09:30:00'),
                        ('s', 'bad', '{}', NULL, 'false', 'boom', '4', '2026-07-21 09:30:00');",
            )
            .unwrap();
        let rows = f.store.tool_invocations(Some("s"), 10, 0).unwrap();
        assert_eq!(rows.len(), 2);
        assert!(rows[0].success && !rows[1].success);
        assert_eq!(rows[0].created_at, parse_entry_ts("2026-07-22 09:30:00"));
        assert_eq!(rows[1].duration_ms, Some(4));
    }

    #[test]
    fn older_or_foreign_invocation_tables() {
        let f = Fixture::with_ddl(
            "CREATE TABLE tool_invocations(id INTEGER PRIMARY KEY, tool_name TEXT);
             INSERT INTO tool_invocations(tool_name) VALUES ('recall_memory');",
        );
        let rows = f.store.tool_invocations(None, 10, 0).unwrap();
        assert_eq!(rows[0].tool_name, "recall_memory");
        assert!(rows[0].session_id.is_none() && !rows[0].success);
        assert!(f
            .store
            .tool_invocations(Some("s"), 10, 0)
            .unwrap()
            .is_empty());
        let f = Fixture::with_ddl("CREATE TABLE tool_invocations(id INTEGER PRIMARY KEY)");
        assert!(matches!(
            f.store.tool_invocations(None, 10, 0),
            Err(CoreError::Corrupt(_))
        ));
    }
}
