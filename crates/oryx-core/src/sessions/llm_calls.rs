//! Reading rows of `llm_calls`: the runtime records one per model call, and builds the prompt
//! (memory block included) right before each call, so these rows date the prompts.

use rusqlite::types::Value;

use super::sql::{bool_cell, epoch_ms_sql, int_cell, projection, text_cell, TableShape};
use super::SessionStore;
use crate::error::{DbContext, Result};

const LLM_CALLS: TableShape = TableShape {
    table: "llm_calls",
    required: &["id", "session_id"],
    optional: &["success", "duration_ms", "created_at"],
};

/// One model call of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmCallRow {
    pub session_id: String,
    /// When the prompt was sent (epoch ms): the row is written after the answer, so its time
    /// less the call's duration.
    pub sent_at_ms: i64,
    pub success: bool,
}

impl SessionStore {
    /// The model calls of the sessions of `agent` (`None`: sessions without an agent), oldest
    /// first. Rows without a time are left out; a missing database or table yields none.
    pub fn llm_calls_of_agent(&self, agent: Option<&str>) -> Result<Vec<LlmCallRow>> {
        let Some(conn) = self.open_existing()? else {
            return Ok(Vec::new());
        };
        let Some(calls) = projection(&conn, &self.path, &LLM_CALLS)? else {
            return Ok(Vec::new());
        };
        let owner = match agent {
            Some(_) => "profile_name = ?1",
            None => "(profile_name IS NULL OR profile_name = '')",
        };
        let at = epoch_ms_sql("created_at");
        let sql = format!(
            "SELECT session_id, {at}, duration_ms, success FROM ({calls}) \
             WHERE session_id IN (SELECT session_id FROM sessions WHERE {owner}) \
             ORDER BY {at}, id"
        );
        let mut stmt = conn.prepare(&sql).at_db(&self.path)?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(agent), |r| {
                let cell = |i: usize| r.get::<_, Value>(i);
                Ok((
                    text_cell(cell(0)?),
                    int_cell(&cell(1)?),
                    int_cell(&cell(2)?),
                    bool_cell(&cell(3)?),
                ))
            })
            .at_db(&self.path)?;
        let mut out = Vec::new();
        for row in rows {
            let (session, at, duration, success) = row.at_db(&self.path)?;
            if let (Some(session_id), Some(at)) = (session, at) {
                out.push(LlmCallRow {
                    session_id,
                    sent_at_ms: at - duration.unwrap_or(0).max(0),
                    success,
                });
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::Fixture;

    #[test]
    fn calls_of_an_agent_are_dated_by_when_they_were_sent() {
        let f = Fixture::with_schema();
        let conn = f.conn();
        crate::runtime::schema::create(&conn).unwrap();
        conn
            .execute_batch(
                "INSERT INTO sessions(session_id, profile_name, channel, user_id, messages_json,
                                      status, created_at, last_active_at)
                 VALUES ('a1', 'a', 'cli', 'u', '[]', 'active', 0, 0),
                        ('b1', 'b', 'cli', 'u', '[]', 'active', 0, 0);
                 INSERT INTO llm_calls(session_id, provider, model, success, duration_ms, created_at)
                 VALUES ('a1', 'p', 'm', 1, 300, 5000), ('b1', 'p', 'm', 1, 1, 10),
                        ('a1', 'p', 'm', 0, 50, 2000);",
            )
            .unwrap();
        let rows = f.store.llm_calls_of_agent(Some("a")).unwrap();
        let got: Vec<(i64, bool)> = rows.iter().map(|r| (r.sent_at_ms, r.success)).collect();
        assert_eq!(got, [(1950, false), (4700, true)]);
        assert!(f.store.llm_calls_of_agent(None).unwrap().is_empty());
    }
}
