//! Listing, reading and counting rows of `sessions`.

use rusqlite::types::Value;
use rusqlite::{params, params_from_iter, OptionalExtension, Row};
use serde_json::error::Category;

use super::model::{
    Message, NewSession, Session, SessionFilter, SessionPage, SessionStats, SessionSummary,
};
use super::search;
use super::sql::{epoch_ms_sql, projection, sql_int, text_cell, TableShape};
use super::SessionStore;
use crate::db;
use crate::error::{CoreError, DbContext, Result};
use crate::timefmt::parse_db_time;

const SESSIONS: TableShape = TableShape {
    table: "sessions",
    required: &["session_id"],
    optional: &[
        "profile_name",
        "channel",
        "user_id",
        "messages_json",
        "status",
        "created_at",
        "last_active_at",
        "archived_at",
    ],
};

/// The summary columns, in the order `summary_from_row` reads them. The message count and the
/// JSON type are computed by SQLite so that listing never loads a message array into Rust.
/// The nested CASEs guarantee json_type and json_array_length only ever see valid JSON.
const SUMMARY_COLUMNS: &str = "session_id, profile_name, channel, user_id, status, \
     created_at, last_active_at, archived_at, \
     CASE WHEN messages_json IS NULL THEN 0 \
          WHEN json_valid(messages_json) THEN \
               CASE WHEN json_type(messages_json) = 'array' THEN json_array_length(messages_json) END \
     END, \
     CASE WHEN messages_json IS NULL THEN NULL \
          WHEN json_valid(messages_json) THEN json_type(messages_json) \
          ELSE 'invalid' END";

/// Index of `messages_json` when a query appends it after the summary columns.
const MESSAGES_COLUMN: usize = 10;
/// Indexes of the page's total and of the first matching message in a listing's page query.
const TOTAL_COLUMN: usize = 10;
const MATCH_COLUMN: usize = 11;

impl SessionStore {
    /// One page of sessions, most recently active first. A missing database or table is an
    /// empty page; a file that is not SQLite is `CoreError::Corrupt`.
    pub fn list(&self, filter: &SessionFilter) -> Result<SessionPage> {
        let Some(conn) = self.open_existing()? else {
            return Ok(SessionPage::default());
        };
        let Some(source) = projection(&conn, &self.path, &SESSIONS)? else {
            return Ok(SessionPage::default());
        };
        let cond = Conditions::of(filter);
        let count = || -> Result<i64> {
            let count_sql = format!("SELECT count(*) FROM ({source}) {}", cond.sql);
            conn.query_row(&count_sql, params_from_iter(&cond.params), |r| r.get(0))
                .at_db(&self.path)
        };
        // A text search reads every row's messages: its total comes with the page, from the
        // same scan (a window count), instead of a second full read. Without one, SQLite counts
        // a table far faster than it sorts it, so the count stays its own query.
        let text = filter.text_query();
        let total: Option<i64> = match text {
            Some(_) => None,
            None => Some(count()?),
        };
        // The page's ids first (sorting only ids and keys), then the summary columns for those
        // rows alone: SQLite computes a sorted query's columns for every row it sorts, and
        // json_array_length over every messages_json is what made a page cost a full read.
        // With a text query, where each page row matched is computed for the page rows only.
        let (match_column, match_param) = match text {
            Some(q) => {
                let (sql, param) = search::first_match_column(q);
                (format!(", {sql}"), Some(param))
            }
            None => (String::new(), None),
        };
        let page_sql = format!(
            "WITH page AS (SELECT session_id AS page_id, coalesce({}, {}) AS page_key, \
                 {} AS page_total FROM ({source}) {} \
                 ORDER BY page_key DESC NULLS LAST, session_id LIMIT ? OFFSET ?) \
             SELECT {SUMMARY_COLUMNS}, page_total{match_column} \
             FROM page CROSS JOIN ({source}) ON session_id = page_id \
             ORDER BY page_key DESC NULLS LAST, page_id",
            epoch_ms_sql("last_active_at"),
            epoch_ms_sql("created_at"),
            if total.is_some() {
                "NULL"
            } else {
                "count(*) OVER ()"
            },
            cond.sql,
        );
        let mut args = cond.params.clone();
        args.push(Value::Integer(sql_int(filter.limit)));
        args.push(Value::Integer(sql_int(filter.offset)));
        args.extend(match_param);
        let mut stmt = conn.prepare(&page_sql).at_db(&self.path)?;
        let mut page_total = None;
        let items = stmt
            .query_map(params_from_iter(&args), |r| {
                let mut summary = summary_from_row(r)?;
                page_total = r.get::<_, Option<i64>>(TOTAL_COLUMN)?;
                if let Some(q) = text {
                    summary.message_match = search::read_first_match(r.get(MATCH_COLUMN)?, q);
                }
                Ok(summary)
            })
            .at_db(&self.path)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .at_db(&self.path)?;
        let total = match (total, page_total) {
            (Some(t), _) | (None, Some(t)) => t,
            // An empty first page means nothing matched; past the end, count what did.
            (None, None) if filter.offset == 0 => 0,
            (None, None) => count()?,
        };
        Ok(SessionPage {
            total: u64::try_from(total).unwrap_or(0),
            items,
        })
    }

    /// One session with its messages. A corrupt `messages_json` is reported in
    /// `summary.error` with no messages, so that the rest of the row can still be shown.
    pub fn get(&self, id: &str) -> Result<Session> {
        let not_found = || CoreError::SessionNotFound(id.to_string());
        let Some(conn) = self.open_existing()? else {
            return Err(not_found());
        };
        let Some(source) = projection(&conn, &self.path, &SESSIONS)? else {
            return Err(not_found());
        };
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS}, messages_json FROM ({source}) WHERE session_id = ?1"
        );
        let row = conn
            .query_row(&sql, [id], |r| {
                Ok((summary_from_row(r)?, r.get::<_, Value>(MESSAGES_COLUMN)?))
            })
            .optional()
            .at_db(&self.path)?;
        let (summary, raw) = row.ok_or_else(not_found)?;
        Ok(with_messages(summary, raw))
    }

    /// Every session of `agent` with its messages, oldest activity first (episodic memory reads
    /// them all). Rows whose messages cannot be read come with `summary.error` and none.
    pub fn sessions_of_agent(&self, agent: &str) -> Result<Vec<Session>> {
        let Some(conn) = self.open_existing()? else {
            return Ok(Vec::new());
        };
        let Some(source) = projection(&conn, &self.path, &SESSIONS)? else {
            return Ok(Vec::new());
        };
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS}, messages_json FROM ({source}) WHERE profile_name = ?1 \
             ORDER BY last_active_at, session_id"
        );
        let mut stmt = conn.prepare(&sql).at_db(&self.path)?;
        let rows = stmt
            .query_map([agent], |r| {
                Ok((summary_from_row(r)?, r.get::<_, Value>(MESSAGES_COLUMN)?))
            })
            .at_db(&self.path)?;
        let mut out = Vec::new();
        for row in rows {
            let (summary, raw) = row.at_db(&self.path)?;
            out.push(with_messages(summary, raw));
        }
        Ok(out)
    }

    /// For every agent with sessions, the `last_active_at` of its first session in list order
    /// (what `list` with that agent and a limit of 1 shows first), in one pass over the table.
    pub fn last_active_by_agent(
        &self,
    ) -> Result<std::collections::HashMap<String, Option<chrono::NaiveDateTime>>> {
        let mut out = std::collections::HashMap::new();
        let Some(conn) = self.open_existing()? else {
            return Ok(out);
        };
        let Some(source) = projection(&conn, &self.path, &SESSIONS)? else {
            return Ok(out);
        };
        // One sequential pass over the table (each row's timestamps lie after its messages, so
        // reading them is most of the cost), the list order's first row per agent kept here.
        let sql = format!(
            "SELECT profile_name, coalesce({}, {}), session_id, last_active_at FROM ({source}) \
             WHERE profile_name IS NOT NULL",
            epoch_ms_sql("last_active_at"),
            epoch_ms_sql("created_at"),
        );
        let mut stmt = conn.prepare(&sql).at_db(&self.path)?;
        let mut rows = stmt.query([]).at_db(&self.path)?;
        let mut best: std::collections::HashMap<String, (Option<i64>, Value, Value)> =
            std::collections::HashMap::new();
        while let Some(r) = rows.next().at_db(&self.path)? {
            let Some(agent) = text_cell(r.get(0).at_db(&self.path)?) else {
                continue;
            };
            let key: Option<i64> = r.get(1).at_db(&self.path)?;
            let id: Value = r.get(2).at_db(&self.path)?;
            let last: Value = r.get(3).at_db(&self.path)?;
            match best.get_mut(&agent) {
                Some(b) if !comes_first(key, &id, b.0, &b.1) => {}
                Some(b) => *b = (key, id, last),
                None => {
                    best.insert(agent, (key, id, last));
                }
            }
        }
        for (agent, (_, _, last)) in best {
            out.insert(agent, parse_db_time(&last));
        }
        Ok(out)
    }

    /// Sessions started per local day and agent (`created_at`, else `last_active_at`), for
    /// days on or after `since`: `(day, agent, count)` sorted by day then agent.
    pub fn sessions_per_day(
        &self,
        since: Option<chrono::NaiveDate>,
    ) -> Result<Vec<(chrono::NaiveDate, String, u64)>> {
        let Some(conn) = self.open_existing()? else {
            return Ok(Vec::new());
        };
        let Some(source) = projection(&conn, &self.path, &SESSIONS)? else {
            return Ok(Vec::new());
        };
        let sql = format!(
            "SELECT profile_name, coalesce({}, {}) FROM ({source}) WHERE profile_name IS NOT NULL",
            epoch_ms_sql("created_at"),
            epoch_ms_sql("last_active_at"),
        );
        let mut stmt = conn.prepare(&sql).at_db(&self.path)?;
        let mut rows = stmt.query([]).at_db(&self.path)?;
        let mut counts: std::collections::BTreeMap<(chrono::NaiveDate, String), u64> =
            Default::default();
        while let Some(r) = rows.next().at_db(&self.path)? {
            let Some(agent) = text_cell(r.get(0).at_db(&self.path)?) else {
                continue;
            };
            let Some(ms) = r.get::<_, Option<i64>>(1).at_db(&self.path)? else {
                continue;
            };
            let Some(day) = crate::timefmt::epoch_ms_to_local(ms).map(|t| t.date()) else {
                continue;
            };
            if since.is_some_and(|s| day < s) {
                continue;
            }
            *counts.entry((day, agent)).or_default() += 1;
        }
        Ok(counts.into_iter().map(|((d, a), n)| (d, a, n)).collect())
    }

    /// Sessions by status (either case); `total` includes rows with any other status.
    pub fn stats(&self) -> Result<SessionStats> {
        let Some(conn) = self.open_existing()? else {
            return Ok(SessionStats::default());
        };
        let Some(source) = projection(&conn, &self.path, &SESSIONS)? else {
            return Ok(SessionStats::default());
        };
        let sql = format!(
            "SELECT count(*), \
                    coalesce(sum(lower(trim(status)) = 'active'), 0), \
                    coalesce(sum(lower(trim(status)) = 'archived'), 0) \
             FROM ({source})"
        );
        let (total, active, archived): (i64, i64, i64) = conn
            .query_row(&sql, [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .at_db(&self.path)?;
        let count = |n: i64| u64::try_from(n).unwrap_or(0);
        Ok(SessionStats {
            active: count(active),
            archived: count(archived),
            total: count(total),
        })
    }

    /// Writes a session row for the demo and test fixture builders. **Fixture-only**: the
    /// console never writes sessions, and nothing here ever rewrites an existing
    /// `messages_json`. An id that already exists is `CoreError::Conflict`.
    pub fn insert_session(&self, s: &NewSession) -> Result<()> {
        let conn = db::open_or_create(&self.path)?;
        conn.execute(
            "INSERT INTO sessions(session_id, profile_name, channel, user_id, messages_json, \
                                  status, created_at, last_active_at, archived_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                s.session_id,
                s.agent,
                s.channel,
                s.user_id,
                s.messages_json,
                s.status,
                s.created_at_ms,
                s.last_active_at_ms,
                s.archived_at_ms
            ],
        )
        .map_err(|e| match is_duplicate_key(&e) {
            true => CoreError::Conflict(format!("session {:?} already exists", s.session_id)),
            false => CoreError::db(&self.path, e),
        })?;
        Ok(())
    }
}

/// The list order (`key DESC NULLS LAST, session_id`) as SQLite applies it: whether row `a`
/// comes before row `b`.
fn comes_first(a_key: Option<i64>, a_id: &Value, b_key: Option<i64>, b_id: &Value) -> bool {
    use std::cmp::Ordering;
    let by_key = match (a_key, b_key) {
        (Some(a), Some(b)) => b.cmp(&a),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    };
    by_key.then_with(|| sqlite_cmp(a_id, b_id)) == Ordering::Less
}

/// SQLite's order of values under the BINARY collation: NULL, numbers, text, blobs.
fn sqlite_cmp(a: &Value, b: &Value) -> std::cmp::Ordering {
    fn class(v: &Value) -> u8 {
        match v {
            Value::Null => 0,
            Value::Integer(_) | Value::Real(_) => 1,
            Value::Text(_) => 2,
            Value::Blob(_) => 3,
        }
    }
    let num = |v: &Value| match v {
        Value::Integer(i) => *i as f64,
        Value::Real(r) => *r,
        _ => 0.0,
    };
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
        (Value::Text(x), Value::Text(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Blob(x), Value::Blob(y)) => x.cmp(y),
        _ if class(a) == 1 && class(b) == 1 => num(a).total_cmp(&num(b)),
        _ => class(a).cmp(&class(b)),
    }
}

fn is_duplicate_key(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY)
}

/// The WHERE clause of a filter with its positional parameters, shared by the page and the
/// count so that `total` always describes the same rows.
struct Conditions {
    sql: String,
    params: Vec<Value>,
}

impl Conditions {
    fn of(f: &SessionFilter) -> Conditions {
        let mut clauses: Vec<String> = Vec::new();
        let mut params = Vec::new();
        if let Some(agent) = &f.agent {
            clauses.push("profile_name = ?".into());
            params.push(Value::Text(agent.clone()));
        }
        if let Some(status) = f.status {
            // Older rows may say ACTIVE; the filter matches either case.
            clauses.push("lower(trim(status)) = ?".into());
            params.push(Value::Text(status.as_str().to_string()));
        }
        if let Some(channel) = &f.channel {
            clauses.push("channel = ?".into());
            params.push(Value::Text(channel.clone()));
        }
        if let Some(q) = f.text_query() {
            let (sql, values) = search::condition(q);
            clauses.push(sql);
            params.extend(values);
        }
        let sql = match clauses.is_empty() {
            true => String::new(),
            false => format!("WHERE {}", clauses.join(" AND ")),
        };
        Conditions { sql, params }
    }
}

fn summary_from_row(r: &Row<'_>) -> rusqlite::Result<SessionSummary> {
    let cell = |i: usize| r.get::<_, Value>(i);
    let session_id = text_cell(cell(0)?).unwrap_or_default();
    let count: Option<i64> = r.get(8)?;
    let kind: Option<String> = r.get(9)?;
    Ok(SessionSummary {
        error: shape_error(&session_id, kind.as_deref()),
        session_id,
        agent: text_cell(cell(1)?),
        channel: text_cell(cell(2)?),
        user_id: text_cell(cell(3)?),
        status: text_cell(cell(4)?).unwrap_or_default(),
        created_at: parse_db_time(&cell(5)?),
        last_active_at: parse_db_time(&cell(6)?),
        archived_at: parse_db_time(&cell(7)?),
        message_count: count.and_then(|c| u64::try_from(c).ok()),
        message_match: None,
    })
}

/// Why a row's `messages_json` cannot be a message list, from SQLite's view of it.
fn shape_error(id: &str, json_type: Option<&str>) -> Option<String> {
    match json_type {
        None | Some("array") => None,
        Some("invalid") => Some(format!("messages_json of session {id} is not valid JSON")),
        Some(other) => Some(format!(
            "messages_json of session {id} is a JSON {other}, not an array"
        )),
    }
}

/// Parses the stored messages into the session; on failure the session keeps its summary
/// and carries serde's precise reason instead of SQLite's coarse one.
fn with_messages(mut summary: SessionSummary, raw: Value) -> Session {
    let parsed = match text_cell(raw) {
        None => Ok(Vec::new()),
        Some(text) => parse_messages(&summary.session_id, &text),
    };
    match parsed {
        Ok(messages) => {
            summary.message_count = Some(messages.len() as u64);
            summary.error = None;
            Session { summary, messages }
        }
        Err(reason) => {
            summary.message_count = None;
            summary.error = Some(reason.to_string());
            Session {
                summary,
                messages: Vec::new(),
            }
        }
    }
}

/// Why a row's `messages_json` is not a message list, in serde's precise words.
#[derive(Debug, thiserror::Error)]
enum MessagesError {
    #[error("messages_json of session {id} is not a JSON array of messages: {source}")]
    Shape {
        id: String,
        source: serde_json::Error,
    },
    #[error("messages_json of session {id} is not valid JSON: {source}")]
    Syntax {
        id: String,
        source: serde_json::Error,
    },
}

fn parse_messages(id: &str, text: &str) -> std::result::Result<Vec<Message>, MessagesError> {
    serde_json::from_str(text).map_err(|source| {
        let id = id.to_string();
        match source.classify() {
            Category::Data => MessagesError::Shape { id, source },
            Category::Syntax | Category::Eof | Category::Io => MessagesError::Syntax { id, source },
        }
    })
}

#[cfg(test)]
mod tests;
