//! The runtime's schedules: their state in `scheduled_tasks`, their runs in `task_executions`,
//! and how the runtime merges them with the `schedules` its agents declare.
//!
//! On start the runtime registers every declared schedule of every agent it loads: the row of
//! the same (agent, key) keeps its id, enabled state and history and takes the declaration's
//! name, cron, zone and message (and is no longer retired); a declaration without a row gets a
//! new row, enabled, never run. Rows nobody declares stay as they are. Its list is every row
//! that is not retired.

use std::path::Path;

use crate::agents::Schedule;
use crate::error::Result;

use super::tables::{flag, int, open_table, rows, select_list, text, time_ms};

/// One schedule's state as the runtime keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleState {
    /// The runtime's id (a UUID); `None` for a declaration the runtime has not registered yet.
    pub schedule_id: Option<String>,
    pub profile_name: String,
    pub key: String,
    pub name: String,
    pub cron: Option<String>,
    pub zone: Option<String>,
    pub message: Option<String>,
    pub enabled: bool,
    pub retired: bool,
    pub next_run_at_ms: Option<i64>,
    pub last_run_at_ms: Option<i64>,
    pub last_status: Option<String>,
    pub run_count: i64,
}

/// One run of a schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskExecution {
    pub schedule_id: Option<String>,
    pub legacy_task_key: Option<String>,
    pub legacy_migrated: bool,
    pub session_id: Option<String>,
    pub started_at_ms: Option<i64>,
    pub success: bool,
    pub error_message: Option<String>,
    pub duration_ms: i64,
}

/// Whether the tables still have the first scheduler's shape (keyed by `task_id`), which the
/// runtime rebuilds on its next start.
fn is_legacy(cols: &[String]) -> bool {
    cols.iter().any(|c| c == "task_id") && !cols.iter().any(|c| c == "schedule_id")
}

/// Every row of `scheduled_tasks`, retired ones included, in the table's order.
pub fn tasks(db_path: &Path) -> Result<Vec<ScheduleState>> {
    let Some((conn, cols)) = open_table(db_path, "scheduled_tasks")? else {
        return Ok(Vec::new());
    };
    // The first scheduler's rows are keyed by task_id, which the upgrade keeps as key and name.
    let id_col = if is_legacy(&cols) {
        "task_id"
    } else {
        "schedule_id"
    };
    let key_col = if is_legacy(&cols) {
        "task_id"
    } else {
        "schedule_key"
    };
    let name_col = if is_legacy(&cols) {
        "task_id"
    } else {
        "display_name"
    };
    let sql = format!(
        "SELECT {} FROM scheduled_tasks ORDER BY rowid",
        select_list(
            &cols,
            &[
                id_col,
                "profile_name",
                key_col,
                name_col,
                "cron",
                "zone",
                "message",
                "enabled",
                "retired",
                "next_run_at",
                "last_run_at",
                "last_status",
                "run_count",
            ]
        )
    );
    Ok(rows(&conn, db_path, &sql, [])?
        .into_iter()
        .map(|c| ScheduleState {
            schedule_id: text(&c[0]),
            profile_name: text(&c[1]).unwrap_or_default(),
            key: text(&c[2]).unwrap_or_default(),
            name: text(&c[3]).unwrap_or_default(),
            cron: text(&c[4]),
            zone: text(&c[5]),
            message: text(&c[6]),
            enabled: flag(&c[7]).unwrap_or(true),
            retired: flag(&c[8]).unwrap_or(false),
            next_run_at_ms: time_ms(&c[9]),
            last_run_at_ms: time_ms(&c[10]),
            last_status: text(&c[11]),
            run_count: int(&c[12]).unwrap_or(0),
        })
        .collect())
}

/// Whether the runtime's scheduler accepts the declaration: its cron trigger refuses a missing
/// expression and any that has not six fields (second minute hour day month weekday), and the
/// runtime then skips the schedule (no row is added or updated). Field values and zone ids are
/// not checked here.
pub fn registers(s: &Schedule) -> bool {
    s.cron
        .as_deref()
        .is_some_and(|c| c.split_whitespace().count() == 6)
}

/// The schedules the runtime lists once it has registered `declared` (each loaded agent with
/// the schedules its AGENT.md declares): registered rows first in the table's order, then the
/// declarations it has no row for yet, in agent order.
pub fn merge(rows: Vec<ScheduleState>, declared: &[(String, Vec<Schedule>)]) -> Vec<ScheduleState> {
    let declaration = |agent: &str, key: &str| {
        declared
            .iter()
            .filter(|(a, _)| a == agent)
            .flat_map(|(_, s)| s.iter())
            .filter(|s| registers(s))
            .find(|s| s.key == key)
    };
    let mut out = Vec::new();
    for mut row in rows {
        if let Some(d) = declaration(&row.profile_name, &row.key) {
            row.name = d.name.clone();
            row.cron = d.cron.clone();
            row.zone = d.zone.clone();
            row.message = d.message.clone();
            row.retired = false;
        }
        if !row.retired {
            out.push(row);
        }
    }
    for (agent, schedules) in declared {
        for s in schedules.iter().filter(|s| registers(s)) {
            if out
                .iter()
                .any(|r| &r.profile_name == agent && r.key == s.key)
            {
                continue;
            }
            out.push(ScheduleState {
                schedule_id: None,
                profile_name: agent.clone(),
                key: s.key.clone(),
                name: s.name.clone(),
                cron: s.cron.clone(),
                zone: s.zone.clone(),
                message: s.message.clone(),
                enabled: true,
                retired: false,
                next_run_at_ms: None,
                last_run_at_ms: None,
                last_status: None,
                run_count: 0,
            });
        }
    }
    out
}

/// The runs of one schedule, newest first, at most `limit`.
pub fn executions(db_path: &Path, schedule_id: &str, limit: usize) -> Result<Vec<TaskExecution>> {
    let Some((conn, cols)) = open_table(db_path, "task_executions")? else {
        return Ok(Vec::new());
    };
    let id_col = if is_legacy(&cols) {
        "task_id"
    } else {
        "schedule_id"
    };
    let sql = format!(
        "SELECT {} FROM task_executions WHERE \"{id_col}\" = ?1 ORDER BY {} DESC, id DESC LIMIT ?2",
        select_list(
            &cols,
            &[
                id_col,
                "legacy_task_key",
                "legacy_migrated",
                "session_id",
                "started_at",
                "success",
                "error_message",
                "duration_ms",
            ]
        ),
        crate::db::epoch_ms_sql("started_at"),
    );
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    Ok(
        rows(&conn, db_path, &sql, rusqlite::params![schedule_id, limit])?
            .into_iter()
            .map(|c| TaskExecution {
                schedule_id: text(&c[0]),
                legacy_task_key: text(&c[1]),
                legacy_migrated: flag(&c[2]).unwrap_or(false),
                session_id: text(&c[3]),
                started_at_ms: time_ms(&c[4]),
                success: flag(&c[5]).unwrap_or(false),
                error_message: text(&c[6]),
                duration_ms: int(&c[7]).unwrap_or(0),
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        let conn = rusqlite::Connection::open(&path).unwrap();
        crate::runtime::schema::create(&conn).unwrap();
        conn.execute_batch(
            "INSERT INTO scheduled_tasks VALUES ('u-1', 'a', 'brief', 'Old name', '0 0 8 * * *', \
               NULL, 'old', 0, 0, 1700000600000, 1700000000000, 'failed', 3, 0);
             INSERT INTO scheduled_tasks VALUES ('u-2', 'gone', 'k', 'K', '0 0 * * * *', NULL, \
               NULL, 1, 0, NULL, NULL, NULL, 0, 0);
             INSERT INTO scheduled_tasks VALUES ('u-3', 'a', 'old', 'Old', '0 0 * * * *', NULL, \
               NULL, 1, 1, NULL, NULL, NULL, 0, 0);
             INSERT INTO task_executions (schedule_id, started_at, success, error_message, duration_ms) \
               VALUES ('u-1', 1700000000000, 0, 'boom', 12), ('u-1', 1699990000000, 1, NULL, 7), \
                      ('u-2', 1700000000000, 1, NULL, 1);",
        )
        .unwrap();
        (dir, path)
    }

    fn declared(key: &str, name: &str) -> Schedule {
        Schedule {
            key: key.into(),
            name: name.into(),
            cron: Some("0 0 9 * * *".into()),
            zone: Some("Asia/Shanghai".into()),
            message: Some("go".into()),
        }
    }

    #[test]
    fn rows_keep_their_state_and_take_the_declaration() {
        let (_d, path) = db();
        let rows = tasks(&path).unwrap();
        assert_eq!(rows.len(), 3);
        let merged = merge(
            rows,
            &[(
                "a".into(),
                vec![declared("brief", "Morning brief"), declared("new", "New")],
            )],
        );
        let keys: Vec<_> = merged
            .iter()
            .map(|s| (s.profile_name.as_str(), s.key.as_str()))
            .collect();
        // The undeclared row stays; the retired one stays retired; the new one is appended.
        assert_eq!(keys, [("a", "brief"), ("gone", "k"), ("a", "new")]);
        let brief = &merged[0];
        assert_eq!(brief.schedule_id.as_deref(), Some("u-1"));
        assert_eq!(brief.name, "Morning brief");
        assert_eq!(brief.cron.as_deref(), Some("0 0 9 * * *"));
        assert!(
            !brief.enabled,
            "the runtime keeps a disabled schedule disabled"
        );
        assert_eq!(brief.run_count, 3);
        assert_eq!(brief.last_status.as_deref(), Some("failed"));
        assert_eq!(brief.last_run_at_ms, Some(1_700_000_000_000));
        let new = &merged[2];
        assert_eq!(new.schedule_id, None);
        assert!(new.enabled);
        assert_eq!(new.run_count, 0);
    }

    #[test]
    fn a_declaration_the_scheduler_refuses_changes_nothing() {
        let (_d, path) = db();
        let mut bad = declared("brief", "Renamed");
        bad.cron = Some("0 9 * * *".into());
        let mut missing = declared("new", "New");
        missing.cron = None;
        let merged = merge(tasks(&path).unwrap(), &[("a".into(), vec![bad, missing])]);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].name, "Old name");
        assert_eq!(merged[0].cron.as_deref(), Some("0 0 8 * * *"));
    }

    #[test]
    fn a_retired_row_declared_again_comes_back_with_its_history() {
        let (_d, path) = db();
        let merged = merge(
            tasks(&path).unwrap(),
            &[("a".into(), vec![declared("old", "Old")])],
        );
        assert!(merged
            .iter()
            .any(|s| s.schedule_id.as_deref() == Some("u-3")));
    }

    #[test]
    fn runs_come_newest_first_and_limited() {
        let (_d, path) = db();
        let runs = executions(&path, "u-1", 100).unwrap();
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].error_message.as_deref(), Some("boom"));
        assert!(!runs[0].success);
        assert_eq!(runs[0].duration_ms, 12);
        assert_eq!(runs[0].started_at_ms, Some(1_700_000_000_000));
        assert_eq!(executions(&path, "u-1", 1).unwrap().len(), 1);
        assert!(executions(&path, "nope", 100).unwrap().is_empty());
    }

    #[test]
    fn the_first_schedulers_tables_read_by_task_id() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch(
                "CREATE TABLE scheduled_tasks (task_id VARCHAR(255) PRIMARY KEY, profile_name \
                   VARCHAR(255), cron VARCHAR(128), zone VARCHAR(64), message TEXT, enabled BOOLEAN, \
                   next_run_at TIMESTAMP, last_run_at TIMESTAMP, last_status VARCHAR(16), \
                   run_count INTEGER, updated_at TIMESTAMP);
                 INSERT INTO scheduled_tasks VALUES ('brief', 'a', '0 0 9 * * *', NULL, 'm', 1, \
                   NULL, NULL, 'success', 4, 0);",
            )
            .unwrap();
        let rows = tasks(&path).unwrap();
        assert_eq!(rows[0].schedule_id.as_deref(), Some("brief"));
        assert_eq!(rows[0].key, "brief");
        assert_eq!(rows[0].run_count, 4);
        assert!(executions(&path, "brief", 10).unwrap().is_empty());
    }
}
