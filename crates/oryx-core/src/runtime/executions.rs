//! The runtime's record of each agent run (`agent_executions`): manual and scheduled runs with
//! their start, end and outcome. A run without an end is still running.

use std::path::Path;

use crate::error::Result;

use super::tables::{flag, int, open_table, rows, select_list, text, time_ms};

/// One run of an agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentExecution {
    pub id: i64,
    pub agent_name: String,
    /// `manual` or `schedule`.
    pub source: String,
    pub session_id: Option<String>,
    pub started_at_ms: Option<i64>,
    pub ended_at_ms: Option<i64>,
    pub success: Option<bool>,
    pub duration_ms: Option<i64>,
    pub error_message: Option<String>,
}

/// What the runtime shows for a run's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutionStatus {
    Running,
    Success,
    Failed,
}

impl ExecutionStatus {
    /// The runtime's words for it.
    pub fn as_str(self) -> &'static str {
        match self {
            ExecutionStatus::Running => "RUNNING",
            ExecutionStatus::Success => "SUCCESS",
            ExecutionStatus::Failed => "FAILED",
        }
    }
}

impl AgentExecution {
    /// Running until it has an end; then its success decides (an unknown outcome is a failure).
    pub fn status(&self) -> ExecutionStatus {
        match (self.ended_at_ms, self.success) {
            (None, _) => ExecutionStatus::Running,
            (Some(_), Some(true)) => ExecutionStatus::Success,
            (Some(_), _) => ExecutionStatus::Failed,
        }
    }
}

/// The agent's runs, newest start first (ties by id), at most `limit`.
pub fn for_agent(db_path: &Path, agent: &str, limit: usize) -> Result<Vec<AgentExecution>> {
    let Some((conn, cols)) = open_table(db_path, "agent_executions")? else {
        return Ok(Vec::new());
    };
    let sql = format!(
        "SELECT {} FROM agent_executions WHERE agent_name = ?1 ORDER BY {} DESC, id DESC LIMIT ?2",
        select_list(
            &cols,
            &[
                "id",
                "agent_name",
                "source",
                "session_id",
                "started_at",
                "ended_at",
                "success",
                "duration_ms",
                "error_message",
            ]
        ),
        crate::db::epoch_ms_sql("started_at"),
    );
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    Ok(rows(&conn, db_path, &sql, rusqlite::params![agent, limit])?
        .into_iter()
        .map(|c| AgentExecution {
            id: int(&c[0]).unwrap_or(0),
            agent_name: text(&c[1]).unwrap_or_default(),
            source: text(&c[2]).unwrap_or_default(),
            session_id: text(&c[3]),
            started_at_ms: time_ms(&c[4]),
            ended_at_ms: time_ms(&c[5]),
            success: flag(&c[6]),
            duration_ms: int(&c[7]),
            error_message: text(&c[8]),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agents_runs_newest_first_with_their_status() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        assert!(for_agent(&path, "a", 50).unwrap().is_empty());
        let conn = rusqlite::Connection::open(&path).unwrap();
        crate::runtime::schema::create(&conn).unwrap();
        conn.execute_batch(
            "INSERT INTO agent_executions (agent_name, source, session_id, started_at, ended_at, \
               success, error_message, duration_ms) VALUES \
             ('a', 'manual', 'admin:console:a', 1700000000000, 1700000001500, 1, NULL, 1500), \
             ('a', 'schedule', NULL, 1700000100000, NULL, NULL, NULL, NULL), \
             ('a', 'schedule', 'scheduler:scheduler:a', 1699000000000, 1699000000100, 0, 'boom', 100), \
             ('b', 'manual', NULL, 1700000000000, NULL, NULL, NULL, NULL);",
        )
        .unwrap();
        let runs = for_agent(&path, "a", 50).unwrap();
        let status: Vec<_> = runs.iter().map(|r| r.status().as_str()).collect();
        assert_eq!(status, ["RUNNING", "SUCCESS", "FAILED"]);
        assert_eq!(runs[1].duration_ms, Some(1500));
        assert_eq!(runs[1].source, "manual");
        assert_eq!(runs[2].error_message.as_deref(), Some("boom"));
        assert_eq!(for_agent(&path, "a", 2).unwrap().len(), 2);
    }
}
