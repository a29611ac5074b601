//! SqliteMemoryStore: one row per entry in the runtime's `memory_entries` table (SPEC §6).

use std::path::PathBuf;
use std::sync::Mutex;

use chrono::NaiveDateTime;
use rusqlite::{params, Connection};

use super::entry::{Entry, Scope, Sections};
use super::store::{contains_ci, Backend, ContextEntries, LongTermMemoryStore};
use crate::db;
use crate::error::{DbContext, Result};
use crate::names::Owner;
use crate::timefmt::{local_to_epoch_ms, now_local, parse_db_time};

pub struct SqliteMemoryStore {
    path: PathBuf,
    conn: Mutex<Option<Connection>>,
}

impl SqliteMemoryStore {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        SqliteMemoryStore {
            path: path.into(),
            conn: Mutex::new(None),
        }
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Opens lazily (creating the tables when missing) and keeps the connection.
    fn with_conn<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let mut guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            *guard = Some(db::open_or_create(&self.path)?);
        }
        let conn = guard.as_ref().expect("connection opened above");
        f(conn)
    }

    fn query(
        &self,
        owner: &Owner,
        scope: Option<Scope>,
        sql_tail: &str,
        extra: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<(Scope, Entry)>> {
        self.with_conn(|conn| {
            let scope_filter = match scope {
                Some(_) => "AND upper(scope) = ?2",
                None => "",
            };
            let sql = format!(
                "SELECT scope, content, created_at FROM memory_entries \
                 WHERE agent_name = ?1 {scope_filter} {sql_tail}"
            );
            let mut stmt = conn.prepare_cached(&sql).at_db(&self.path)?;
            let key = owner.db_key();
            let scope_val = scope.map(Scope::db_value);
            let mut args: Vec<&dyn rusqlite::ToSql> = vec![&key];
            if let Some(s) = scope_val.as_ref() {
                args.push(s);
            }
            args.extend_from_slice(extra);
            let rows = stmt
                .query_map(args.as_slice(), |r| {
                    let scope: String = r.get(0)?;
                    let content: String = r.get(1)?;
                    let ts = parse_db_time(&r.get::<_, rusqlite::types::Value>(2)?);
                    Ok((scope, content, ts))
                })
                .at_db(&self.path)?;
            let mut out = Vec::new();
            for row in rows {
                let (scope, content, ts) = row.at_db(&self.path)?;
                if let Some(scope) =
                    Scope::parse_lenient(&scope).filter(|_| !scope.trim().is_empty())
                {
                    // The runtime shows rows as `- content` (the time lives in created_at).
                    let line = format!("- {content}");
                    out.push((
                        scope,
                        Entry {
                            timestamp: ts,
                            content,
                            line,
                        },
                    ));
                }
            }
            Ok(out)
        })
    }
}

impl LongTermMemoryStore for SqliteMemoryStore {
    fn backend(&self) -> Backend {
        Backend::Sqlite
    }

    fn append(
        &self,
        owner: &Owner,
        scope: Scope,
        content: &str,
        at: Option<NaiveDateTime>,
    ) -> Result<Entry> {
        let ts = at.unwrap_or_else(now_local);
        self.with_conn(|conn| {
            conn.execute(
                "INSERT INTO memory_entries(agent_name, scope, content, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![owner.db_key(), scope.db_value(), content, local_to_epoch_ms(&ts)],
            )
            .at_db(&self.path)?;
            Ok(())
        })?;
        Ok(Entry {
            timestamp: Some(ts),
            content: content.to_string(),
            line: format!("- {content}"),
        })
    }

    fn load_all(&self, owner: &Owner) -> Result<Sections> {
        let mut sections = Sections::default();
        for (scope, entry) in self.query(owner, None, &order_by(""), &[])? {
            match scope {
                Scope::Core => sections.core.push(entry),
                Scope::Archival => sections.archival.push(entry),
            }
        }
        Ok(sections)
    }

    fn load_context(&self, owner: &Owner, archival_limit: usize) -> Result<ContextEntries> {
        let core = self
            .query(owner, Some(Scope::Core), &order_by(""), &[])?
            .into_iter()
            .map(|(_, e)| e)
            .collect();
        // Every entry line is at least a few characters, so `limit` rows always cover the window.
        let limit = archival_limit as i64 + 1;
        let mut tail: Vec<Entry> = self
            .query(
                owner,
                Some(Scope::Archival),
                &format!("{} LIMIT ?3", order_by(" DESC")),
                &[&limit],
            )?
            .into_iter()
            .map(|(_, e)| e)
            .collect();
        tail.reverse();
        Ok(ContextEntries {
            core,
            archival_tail: tail,
        })
    }

    fn recall(&self, owner: &Owner, keyword: &str) -> Result<Vec<Entry>> {
        let needle = keyword.to_lowercase();
        // LIKE narrows the rows in SQL for ASCII keywords (its case folding is ASCII-only);
        // the exact case-insensitive check runs here for every keyword.
        let rows = if needle.is_ascii() {
            let pattern = format!("%{}%", escape_like(&needle));
            self.query(
                owner,
                Some(Scope::Archival),
                &format!("AND content LIKE ?3 ESCAPE '\\' {}", order_by("")),
                &[&pattern],
            )?
        } else {
            self.query(owner, Some(Scope::Archival), &order_by(""), &[])?
        };
        Ok(rows
            .into_iter()
            .map(|(_, e)| e)
            .filter(|e| contains_ci(&e.content, &needle))
            .collect())
    }
}

/// Time order over rows that mix epoch-ms integers and ISO text (older runtimes), then insertion.
fn order_by(direction: &str) -> String {
    let key = db::epoch_ms_sql("created_at");
    format!("ORDER BY {key}{direction}, id{direction}")
}

fn escape_like(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rows_the_java_runtime_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        let conn = db::open_or_create(&path).unwrap();
        conn.execute_batch(
            "INSERT INTO memory_entries(agent_name, scope, content, created_at) VALUES
             ('a', 'core', 'lower-case scope', 1753147800000),
             ('a', 'ARCHIVAL', '100% sure_thing', '2025-07-22T09:31:10'),
             ('__global__', 'CORE', 'global fact', 1);",
        )
        .unwrap();
        let s = SqliteMemoryStore::new(&path);
        let a = Owner::Agent("a".into());
        let all = s.load_all(&a).unwrap();
        assert_eq!(all.core[0].content, "lower-case scope");
        assert!(all.archival[0].timestamp.is_some());
        assert_eq!(s.load_all(&Owner::Global).unwrap().core.len(), 1);
        assert_eq!(s.recall(&a, "100%").unwrap().len(), 1);
        assert_eq!(
            s.recall(&a, "s_r").unwrap().len(),
            0,
            "LIKE wildcards are escaped"
        );
        assert_eq!(s.recall(&a, "SURE").unwrap().len(), 1);
    }
}
