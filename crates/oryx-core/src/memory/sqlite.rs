//! SqliteMemoryStore: one row per entry in the runtime's `memory_entries` table (SPEC §6).

use std::path::PathBuf;
use std::sync::Mutex;

use chrono::NaiveDateTime;
use rusqlite::{params, Connection};

use super::entry::{Entry, Scope, Sections};
use super::store::{
    contains_ci, Backend, ContextEntries, EntryCounts, LongTermMemoryStore, Probe, KELVIN_SIGN,
};
use crate::db;
use crate::error::{DbContext, Result};
use crate::names::Owner;
use crate::timefmt::{local_to_epoch_ms, now_local, parse_db_time};

pub struct SqliteMemoryStore {
    path: PathBuf,
    conn: Mutex<Option<Open>>,
}

struct Open {
    conn: Connection,
    /// The trigram index covers every row (see [`ensure_console_indexes`]).
    fts: bool,
}

/// The console's own additions to the runtime's database: an index that serves the time order
/// (the window's newest rows without sorting the whole agent), and a trigram full-text index
/// over `content` for recall, an external-content FTS5 table kept in sync by triggers. Neither
/// alters the runtime's tables: its INSERT/SELECT/UPDATE/DELETE on `memory_entries` work as
/// before, the triggers run inside SQLite (this assumes the runtime's SQLite has FTS5 with the
/// trigram tokenizer, SQLite ≥ 3.34, as sqlite-jdbc ships it).
const CONSOLE_ORDER_INDEX: &str = "idx_memory_console_order";
const FTS: &str = "memory_entries_fts";
/// Rows indexed per transaction when an existing database is indexed for the first time, so
/// that a runtime writing at the same time never waits long for the lock.
const BACKFILL_BATCH: i64 = 50_000;
/// Trigram queries need at least three characters.
const MIN_FTS_CHARS: usize = 3;

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
        self.with_open(|o| f(&o.conn))
    }

    fn with_open<T>(&self, f: impl FnOnce(&Open) -> Result<T>) -> Result<T> {
        let mut guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            let conn = db::open_or_create(&self.path)?;
            // Without the indexes every query still answers the same, only slower.
            let fts = ensure_console_indexes(&conn).unwrap_or(false);
            *guard = Some(Open { conn, fts });
        }
        f(guard.as_ref().expect("connection opened above"))
    }

    fn query(
        &self,
        owner: &Owner,
        scope: Option<Scope>,
        sql_tail: &str,
        extra: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<(Scope, Entry)>> {
        self.query_from("memory_entries", owner, scope, sql_tail, extra)
    }

    /// `query` over `from`, a source that yields memory_entries' columns.
    fn query_from(
        &self,
        from: &str,
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
                "SELECT scope, content, created_at FROM {from} \
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

    fn count(&self, owner: &Owner) -> Result<EntryCounts> {
        self.with_conn(|conn| {
            let mut stmt = conn
                .prepare_cached(
                    // upper() changes nothing `parse_lenient` looks at, and lets the console's
                    // order index serve the grouping.
                    "SELECT upper(scope), count(*) FROM memory_entries WHERE agent_name = ?1 \
                     GROUP BY upper(scope)",
                )
                .at_db(&self.path)?;
            let rows = stmt
                .query_map([owner.db_key()], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
                })
                .at_db(&self.path)?;
            let mut counts = EntryCounts::default();
            for row in rows {
                let (scope, n) = row.at_db(&self.path)?;
                // The same rule as `query` for which rows are entries of which section.
                match Scope::parse_lenient(&scope).filter(|_| !scope.trim().is_empty()) {
                    Some(Scope::Core) => counts.core += n as usize,
                    Some(Scope::Archival) => counts.archival += n as usize,
                    None => {}
                }
            }
            Ok(counts)
        })
    }

    fn recall(&self, owner: &Owner, keyword: &str) -> Result<Vec<Entry>> {
        let needle = keyword.to_lowercase();
        let probe = Probe::of(&needle);
        let fts = self.with_open(|o| Ok(o.fts))?;
        // Candidates in SQL, then the exact case-insensitive check here for every keyword: the
        // trigram index (it folds case like `contains_ci` does for probe characters) when the
        // probe is long enough, else instr (raw bytes: exact for a probe without letters),
        // else LIKE for ASCII keywords (its case folding is ASCII-only).
        let rows = match &probe {
            Some(p) if fts && p.bytes.chars().count() >= MIN_FTS_CHARS => {
                let phrase = format!("\"{}\"", p.bytes.replace('"', "\"\""));
                // The index's hits drive the query (CROSS JOIN keeps that order): looking each
                // hit up by id beats walking the agent's rows in time order to test each one.
                self.query_from(
                    &format!(
                        "(SELECT rowid AS fts_id FROM {FTS} WHERE {FTS} MATCH ?3) \
                         CROSS JOIN memory_entries ON id = fts_id"
                    ),
                    owner,
                    Some(Scope::Archival),
                    &order_by(""),
                    &[&phrase],
                )?
            }
            Some(p) if !p.ascii_folded => self.query(
                owner,
                Some(Scope::Archival),
                &format!("AND instr(content, ?3) > 0 {}", order_by("")),
                &[&p.bytes],
            )?,
            _ => self.recall_like(owner, &needle, probe.as_ref())?,
        };
        Ok(rows
            .into_iter()
            .map(|(_, e)| e)
            .filter(|e| contains_ci(&e.content, &needle))
            .collect())
    }
}

impl SqliteMemoryStore {
    fn recall_like(
        &self,
        owner: &Owner,
        needle: &str,
        probe: Option<&Probe>,
    ) -> Result<Vec<(Scope, Entry)>> {
        let text = probe.map_or(needle, |p| p.bytes.as_str());
        if !text.is_ascii() {
            return self.query(owner, Some(Scope::Archival), &order_by(""), &[]);
        }
        // LIKE folds ASCII only: a KELVIN SIGN is a `k` to `contains_ci`.
        let kelvin = match probe.is_some_and(|p| p.kelvin) {
            true => format!("OR instr(content, '{KELVIN_SIGN}') > 0"),
            false => String::new(),
        };
        let pattern = format!("%{}%", escape_like(text));
        self.query(
            owner,
            Some(Scope::Archival),
            &format!(
                "AND (content LIKE ?3 ESCAPE '\\' {kelvin}) {}",
                order_by("")
            ),
            &[&pattern],
        )
    }
}

/// Creates the console's indexes when missing (see [`CONSOLE_ORDER_INDEX`]) and indexes rows
/// the trigram index does not cover yet. `Ok(true)` when recall can use the trigram index.
fn ensure_console_indexes(conn: &Connection) -> rusqlite::Result<bool> {
    let key = db::epoch_ms_sql("created_at");
    conn.execute_batch(&format!(
        "CREATE INDEX IF NOT EXISTS {CONSOLE_ORDER_INDEX} \
         ON memory_entries (agent_name, upper(scope), {key}, id);"
    ))?;
    let has_fts: bool = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE name = ?1",
        [FTS],
        |r| r.get::<_, i64>(0).map(|n| n > 0),
    )?;
    if !has_fts {
        // Table and triggers at once: every row written from here on is indexed by SQLite
        // itself, whoever writes it; the rows before are indexed below. The delete side only
        // runs for rows already indexed (an external-content index must never be told to
        // delete what it does not hold).
        let indexed = format!("EXISTS (SELECT 1 FROM {FTS}_docsize WHERE id = old.id)");
        conn.execute_batch(&format!(
            "BEGIN IMMEDIATE;
             CREATE VIRTUAL TABLE {FTS} USING fts5(content, content='memory_entries', \
                 content_rowid='id', tokenize='trigram');
             CREATE TRIGGER {FTS}_ai AFTER INSERT ON memory_entries BEGIN
                 INSERT INTO {FTS}(rowid, content) VALUES (new.id, new.content);
             END;
             CREATE TRIGGER {FTS}_ad AFTER DELETE ON memory_entries BEGIN
                 INSERT INTO {FTS}({FTS}, rowid, content) SELECT 'delete', old.id, old.content WHERE {indexed};
             END;
             CREATE TRIGGER {FTS}_au AFTER UPDATE ON memory_entries BEGIN
                 INSERT INTO {FTS}({FTS}, rowid, content) SELECT 'delete', old.id, old.content WHERE {indexed};
                 INSERT INTO {FTS}(rowid, content) VALUES (new.id, new.content);
             END;
             COMMIT;"
        ))
        .inspect_err(|_| {
            let _ = conn.execute_batch("ROLLBACK");
        })?;
    }
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0));
    let rows = count("SELECT count(*) FROM memory_entries")?;
    let mut indexed = count(&format!("SELECT count(*) FROM {FTS}_docsize"))?;
    while indexed < rows {
        let added = conn.execute(
            &format!(
                "INSERT INTO {FTS}(rowid, content) SELECT id, content FROM memory_entries \
                 WHERE id NOT IN (SELECT id FROM {FTS}_docsize) ORDER BY id LIMIT ?1"
            ),
            [BACKFILL_BATCH],
        )?;
        if added == 0 {
            break;
        }
        indexed += added as i64;
    }
    Ok(indexed >= rows)
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

    /// What recall was before the indexes: every archival row of the owner, filtered here.
    fn recall_by_scan(s: &SqliteMemoryStore, owner: &Owner, keyword: &str) -> Vec<Entry> {
        let needle = keyword.to_lowercase();
        s.query(owner, Some(Scope::Archival), &order_by(""), &[])
            .unwrap()
            .into_iter()
            .map(|(_, e)| e)
            .filter(|e| contains_ci(&e.content, &needle))
            .collect()
    }

    #[test]
    fn indexed_recall_equals_a_full_scan_and_follows_the_runtimes_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        // Rows written before the console ever opened the database (indexed by the backfill).
        let conn = db::open_or_create(&path).unwrap();
        conn.execute_batch(
            "INSERT INTO memory_entries(agent_name, scope, content, created_at) VALUES
             ('a', 'ARCHIVAL', 'scale the Kubernetes cluster', 3),
             ('a', 'archival', '准备数据库迁移方案', '1970-01-01T00:00:00.002'),
             ('a', 'ARCHIVAL', '\u{212A}UBERNETES with a kelvin sign', 1),
             ('a', 'ARCHIVAL', 'TAX\u{130} and taxi', 4),
             ('a', 'CORE', 'kubernetes in core', 5),
             ('b', 'ARCHIVAL', 'kubernetes of b', 6),
             ('a', 'ARCHIVAL', 'ÄRGER 100% sure_thing \"quoted\"', 7);",
        )
        .unwrap();
        let s = SqliteMemoryStore::new(&path);
        let a = Owner::Agent("a".into());
        assert!(
            s.with_open(|o| Ok(o.fts)).unwrap(),
            "trigram index available"
        );
        // Rows the runtime writes, updates and deletes afterwards, on its own connection.
        conn.execute_batch(
            "INSERT INTO memory_entries(agent_name, scope, content, created_at) VALUES
                 ('a', 'ARCHIVAL', 'later kubernetes row', 8),
                 ('a', 'ARCHIVAL', 'to be changed', 9),
                 ('a', 'ARCHIVAL', 'deleted kubernetes row', 10);
             UPDATE memory_entries SET content = 'changed into kubernetes' WHERE content = 'to be changed';
             DELETE FROM memory_entries WHERE content = 'deleted kubernetes row';",
        )
        .unwrap();
        let keywords = [
            "kubernetes",
            "KUBER",
            "kub",
            "ku",
            "数据库迁移",
            "数据库",
            "迁移",
            "taxi",
            "tax",
            "i",
            "ärger",
            "100%",
            "s_r",
            "\"quoted\"",
            "",
            "changed",
            "to be",
        ];
        for kw in keywords {
            assert_eq!(
                s.recall(&a, kw).unwrap(),
                recall_by_scan(&s, &a, kw),
                "{kw:?}"
            );
        }
        let hits: Vec<_> = s
            .recall(&a, "kubernetes")
            .unwrap()
            .into_iter()
            .map(|e| e.content)
            .collect();
        assert_eq!(
            hits,
            [
                "\u{212A}UBERNETES with a kelvin sign",
                "scale the Kubernetes cluster",
                "later kubernetes row",
                "changed into kubernetes"
            ],
            "time order, the runtime's later writes included"
        );
        let check: String = conn
            .query_row(
                "INSERT INTO memory_entries_fts(memory_entries_fts, rank) VALUES ('integrity-check', 1) RETURNING 'ok'",
                [],
                |r| r.get(0),
            )
            .unwrap_or_else(|e| panic!("fts integrity: {e}"));
        assert_eq!(check, "ok");
        assert_eq!(
            s.count(&a).unwrap(),
            EntryCounts {
                core: 1,
                archival: 7
            }
        );
        assert_eq!(
            (
                s.load_all(&a).unwrap().core.len(),
                s.load_all(&a).unwrap().archival.len()
            ),
            (1, 7)
        );
    }

    #[test]
    fn the_window_and_the_recall_use_indexes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        let s = SqliteMemoryStore::new(&path);
        s.append(&Owner::Global, Scope::Archival, "x", None)
            .unwrap();
        let plan = |sql: &str| -> String {
            s.with_conn(|c| {
                let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
                let rows = stmt
                    .query_map([], |r| r.get::<_, String>(3))
                    .unwrap()
                    .collect::<rusqlite::Result<Vec<_>>>()
                    .unwrap();
                Ok(rows.join("; "))
            })
            .unwrap()
        };
        let window = plan(&format!(
            "SELECT content FROM memory_entries WHERE agent_name = 'a' AND upper(scope) = 'ARCHIVAL' {} LIMIT 10",
            order_by(" DESC")
        ));
        assert!(window.contains(CONSOLE_ORDER_INDEX), "{window}");
        assert!(!window.contains("TEMP B-TREE"), "{window}");
        let recall = plan(&format!(
            "SELECT content FROM (SELECT rowid AS fts_id FROM {FTS} WHERE {FTS} MATCH '\"abc\"') \
             CROSS JOIN memory_entries ON id = fts_id WHERE agent_name = 'a' {}",
            order_by("")
        ));
        assert!(recall.contains("VIRTUAL TABLE"), "{recall}");
        assert!(recall.contains("INTEGER PRIMARY KEY"), "{recall}");
    }

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
