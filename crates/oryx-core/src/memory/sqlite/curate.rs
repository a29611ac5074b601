//! Curation of `memory_entries` rows: updates, deletes and inserts in one transaction on the
//! runtime's table (rows only, never its schema). A deleted row comes back with its own id,
//! scope and `created_at` as stored, so undo gives back the very rows.

use rusqlite::{params, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};

use super::store::SqliteMemoryStore;
use crate::error::{CoreError, DbContext, Result};
use crate::memory::change::{changed_since, EntryDiff, EntrySnap, Step};
use crate::memory::entry::{Entry, Scope};
use crate::memory::history::{Change, History};
use crate::memory::store::Request;
use crate::names::Owner;
use crate::timefmt::{local_to_epoch_ms, parse_db_time};

/// A row's `scope` and `created_at` exactly as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Raw {
    scope: String,
    created_at: serde_json::Value,
}

struct Row {
    id: i64,
    scope: Scope,
    raw: Raw,
    content: String,
    ts: Option<chrono::NaiveDateTime>,
}

impl Row {
    fn snap(&self) -> EntrySnap {
        let entry = Entry {
            timestamp: self.ts,
            content: self.content.clone(),
            line: format!("- {}", self.content),
        };
        let mut s = EntrySnap::of(self.id.to_string(), self.scope, &entry);
        s.raw = serde_json::to_string(&self.raw).ok();
        s
    }
}

fn to_json(v: rusqlite::types::Value) -> serde_json::Value {
    use rusqlite::types::Value as V;
    match v {
        V::Integer(i) => serde_json::json!(i),
        V::Real(f) => serde_json::json!(f),
        V::Text(t) => serde_json::json!(t),
        V::Null | V::Blob(_) => serde_json::Value::Null,
    }
}

fn to_sql(v: &serde_json::Value) -> rusqlite::types::Value {
    use rusqlite::types::Value as V;
    match v {
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => V::Integer(i),
            None => V::Real(n.as_f64().unwrap_or_default()),
        },
        serde_json::Value::String(s) => V::Text(s.clone()),
        _ => V::Null,
    }
}

fn row_id(id: &str) -> Result<i64> {
    id.parse::<i64>()
        .map_err(|_| CoreError::NotFound(format!("no memory entry with id {id:?}")))
}

fn fetch(tx: &Transaction<'_>, owner: &Owner, id: i64) -> rusqlite::Result<Option<Row>> {
    tx.query_row(
        "SELECT id, scope, content, created_at FROM memory_entries \
         WHERE id = ?1 AND agent_name = ?2",
        params![id, owner.db_key()],
        |r| {
            let scope: String = r.get(1)?;
            let created: rusqlite::types::Value = r.get(3)?;
            Ok(Row {
                id: r.get(0)?,
                scope: Scope::parse_lenient(&scope).unwrap_or(Scope::Archival),
                ts: parse_db_time(&created),
                raw: Raw {
                    scope,
                    created_at: to_json(created),
                },
                content: r.get(2)?,
            })
        },
    )
    .optional()
}

fn target(tx: &Transaction<'_>, owner: &Owner, id: &str, expect: &str) -> Result<Row> {
    let n = row_id(id)?;
    let path = tx.path().map(std::path::PathBuf::from).unwrap_or_default();
    match fetch(tx, owner, n).at_db(&path)? {
        None => Err(CoreError::NotFound(format!(
            "no memory entry with id {id} for {}",
            owner.label()
        ))),
        Some(row) if row.content != expect => Err(changed_since(id, expect, Some(&row.content))),
        Some(row) => Ok(row),
    }
}

fn apply(tx: &Transaction<'_>, owner: &Owner, steps: &[Step]) -> Result<Vec<EntryDiff>> {
    let path = tx.path().map(std::path::PathBuf::from).unwrap_or_default();
    let mut diffs = Vec::with_capacity(steps.len());
    for step in steps {
        match step {
            Step::Replace {
                id,
                expect,
                scope,
                timestamp,
                content,
                raw,
                ..
            } => {
                let row = target(tx, owner, id, expect)?;
                let raw: Option<Raw> = raw.as_deref().and_then(|r| serde_json::from_str(r).ok());
                // Stored values stay as they are unless the step changes them.
                let new_scope = match (scope, &raw) {
                    (Some(s), Some(r)) if Scope::parse_lenient(&r.scope) == Some(*s) => {
                        r.scope.clone()
                    }
                    (Some(s), _) if *s != row.scope => s.db_value().to_string(),
                    _ => row.raw.scope.clone(),
                };
                let new_created = match (timestamp, &raw) {
                    (Some(t), Some(r)) if parse_db_time(&to_sql(&r.created_at)) == *t => {
                        r.created_at.clone()
                    }
                    (Some(t), _) if *t != row.ts => match t {
                        Some(t) => serde_json::json!(local_to_epoch_ms(t)),
                        None => serde_json::Value::Null,
                    },
                    _ => row.raw.created_at.clone(),
                };
                tx.execute(
                    "UPDATE memory_entries SET scope = ?1, content = ?2, created_at = ?3 \
                     WHERE id = ?4",
                    params![new_scope, content, to_sql(&new_created), row.id],
                )
                .at_db(&path)?;
                let after = fetch(tx, owner, row.id).at_db(&path)?.map(|r| r.snap());
                diffs.push(EntryDiff {
                    before: Some(row.snap()),
                    after,
                });
            }
            Step::Remove { id, expect } => {
                let row = target(tx, owner, id, expect)?;
                tx.execute("DELETE FROM memory_entries WHERE id = ?1", params![row.id])
                    .at_db(&path)?;
                diffs.push(EntryDiff {
                    before: Some(row.snap()),
                    after: None,
                });
            }
            Step::Insert {
                id,
                scope,
                timestamp,
                content,
                raw,
                ..
            } => {
                let raw: Raw = raw
                    .as_deref()
                    .and_then(|r| serde_json::from_str(r).ok())
                    .unwrap_or_else(|| Raw {
                        scope: scope.db_value().to_string(),
                        created_at: timestamp.map_or(serde_json::Value::Null, |t| {
                            serde_json::json!(local_to_epoch_ms(&t))
                        }),
                    });
                // Its own id when no row took it since.
                let want = id.as_deref().and_then(|i| i.parse::<i64>().ok());
                if let Some(n) = want {
                    if let Some(row) = fetch(tx, owner, n).at_db(&path)? {
                        if row.content == *content {
                            return Err(CoreError::Conflict(format!(
                                "entry {n} ({content:?}) is already there; nothing was changed"
                            )));
                        }
                    }
                }
                let free = match want {
                    Some(n) => tx
                        .query_row(
                            "SELECT 1 FROM memory_entries WHERE id = ?1",
                            params![n],
                            |_| Ok(()),
                        )
                        .optional()
                        .at_db(&path)?
                        .is_none(),
                    None => false,
                };
                let new_id = if free {
                    tx.execute(
                        "INSERT INTO memory_entries(id, agent_name, scope, content, created_at) \
                         VALUES (?1, ?2, ?3, ?4, ?5)",
                        params![
                            want,
                            owner.db_key(),
                            raw.scope,
                            content,
                            to_sql(&raw.created_at)
                        ],
                    )
                    .at_db(&path)?;
                    want.unwrap_or_default()
                } else {
                    tx.execute(
                        "INSERT INTO memory_entries(agent_name, scope, content, created_at) \
                         VALUES (?1, ?2, ?3, ?4)",
                        params![owner.db_key(), raw.scope, content, to_sql(&raw.created_at)],
                    )
                    .at_db(&path)?;
                    tx.last_insert_rowid()
                };
                let after = fetch(tx, owner, new_id).at_db(&path)?.map(|r| r.snap());
                diffs.push(EntryDiff {
                    before: None,
                    after,
                });
            }
        }
    }
    Ok(diffs)
}

impl SqliteMemoryStore {
    pub(super) fn history_file(&self) -> History {
        History::beside(&self.path)
    }

    /// One change in one transaction; its history intent is written before the commit and
    /// its commit record after.
    pub(super) fn curate_rows(&self, owner: &Owner, req: Request) -> Result<Change> {
        crate::memory::change::check_distinct(&req.steps)?;
        let history = self.history_file();
        let mut st = self.lock();
        let rt = self.writer(&mut st)?;
        let tx = rt.conn.transaction().at_db(&self.path)?;
        let diffs = apply(&tx, owner, &req.steps)?;
        let mut change = req.head;
        change.entries = diffs;
        history.intent(&change)?;
        if let Err(e) = tx.commit().at_db(&self.path) {
            let _ = history.abort(&change.id);
            return Err(e);
        }
        // Updates and deletes: the index checks every row on the next read.
        rt.own_writes = true;
        rt.verified = None;
        history.commit(&change.id)?;
        Ok(change)
    }

    /// Whether the rows are as the change left them.
    pub(super) fn rows_hold(&self, owner: &Owner, change: &Change) -> Result<bool> {
        let mut st = self.lock();
        let rt = self.writer(&mut st)?;
        let tx = rt.conn.transaction().at_db(&self.path)?;
        for d in &change.entries {
            if let Some(a) = &d.after {
                let Ok(n) = a.id.parse::<i64>() else {
                    return Ok(false);
                };
                match fetch(&tx, owner, n).at_db(&self.path)? {
                    Some(r) if r.content == a.content && r.scope == a.scope => {}
                    _ => return Ok(false),
                }
            } else if let Some(b) = &d.before {
                let Ok(n) = b.id.parse::<i64>() else {
                    return Ok(false);
                };
                if fetch(&tx, owner, n).at_db(&self.path)?.is_some() {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }
}
