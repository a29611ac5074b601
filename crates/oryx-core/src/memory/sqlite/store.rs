//! SqliteMemoryStore: one row per entry in the runtime's `memory_entries` table.
//!
//! The runtime's database is the runtime's: reads never change it, appends insert rows
//! only. Reads are served from the console's own index of the table ([`ConsoleIndex`], a
//! database of its own) after bringing it up to date with the runtime's rows; without an index
//! (none configured, or its directory cannot be written) they read the runtime's table
//! directly, slower, with the same results.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use chrono::NaiveDateTime;
use rusqlite::{params, Connection};

use super::index::{ConsoleIndex, RuntimeSource, FTS};
use crate::db;
use crate::error::{CoreError, DbContext, Result};
use crate::memory::entry::{Entry, Scope, Sections};
use crate::memory::store::{
    contains_ci, Backend, ContextEntries, EntryCounts, LongTermMemoryStore, Probe, KELVIN_SIGN,
};
use crate::names::Owner;
use crate::timefmt::{local_to_epoch_ms, now_local, parse_db_time};

pub struct SqliteMemoryStore {
    pub(super) path: PathBuf,
    /// Where the console's index of this database lives; `None`: no index (reads scan).
    index_dir: Option<PathBuf>,
    /// Read as the runtime reads (it reads this database): rows in id order, and keyword
    /// recall by its own query.
    runtime_order: bool,
    state: Mutex<State>,
}

#[derive(Default)]
pub(super) struct State {
    runtime: Option<RuntimeDb>,
    index: IndexState,
    notice: Option<String>,
}

#[derive(Default)]
enum IndexState {
    #[default]
    NotOpened,
    Open(ConsoleIndex),
    /// It could not be created; said once on stderr.
    Unavailable,
}

pub(super) struct RuntimeDb {
    pub(super) conn: Connection,
    /// Opened for appends: the runtime's tables exist and `memory_entries` has `agent_name`.
    for_writes: bool,
    /// SQLite's `data_version` when the index last checked every row; a commit by any other
    /// connection (the runtime, another console) changes it.
    pub(super) verified: Option<i64>,
    /// This connection appended rows the index has not copied yet.
    pub(super) own_writes: bool,
}

/// Trigram queries need at least three characters.
const MIN_FTS_CHARS: usize = 3;

/// What a read queries: the index's copy or the runtime's table, each with the same columns.
struct Source<'a> {
    conn: &'a Connection,
    path: &'a Path,
    /// Yields `id, agent_name, scope, content, created_at`.
    from: &'static str,
    /// Order rows by id alone, as the runtime's queries do.
    id_order: bool,
    /// The time-order key of a row.
    ts: String,
    /// The trigram index covers every row of `from`.
    fts: bool,
}

impl<'a> Source<'a> {
    fn index(ix: &'a ConsoleIndex) -> Source<'a> {
        Source {
            conn: ix.conn(),
            path: ix.path(),
            from: "entries",
            id_order: false,
            ts: "ts".into(),
            fts: true,
        }
    }

    fn runtime(conn: &'a Connection, path: &'a Path, has_agent: bool) -> Source<'a> {
        Source {
            conn,
            path,
            from: match has_agent {
                true => "memory_entries",
                // A database from before per-agent memory: every row is global memory.
                false => {
                    "(SELECT id, '__global__' AS agent_name, scope, content, created_at \
                      FROM memory_entries)"
                }
            },
            id_order: false,
            ts: db::epoch_ms_sql("created_at"),
            fts: false,
        }
    }

    /// Time order over rows that mix epoch-ms integers and ISO text (older runtimes), then
    /// insertion.
    fn order_by(&self, direction: &str) -> String {
        if self.id_order {
            return format!("ORDER BY id{direction}");
        }
        format!("ORDER BY {ts}{direction}, id{direction}", ts = self.ts)
    }
}

impl SqliteMemoryStore {
    /// A store over the runtime database at `path` without an index of its own (reads scan the
    /// table); the console gives its index folder with [`with_index_dir`](Self::with_index_dir).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self::with_index_dir(path, None)
    }

    /// A store whose index lives in `index_dir` (`None`: no index; reads scan the table).
    pub fn with_index_dir(path: impl Into<PathBuf>, index_dir: Option<PathBuf>) -> Self {
        SqliteMemoryStore {
            path: path.into(),
            index_dir,
            runtime_order: false,
            state: Mutex::new(State::default()),
        }
    }

    /// Reads rows in id order and recalls by the runtime's own query when `on` (the runtime
    /// reads this database).
    pub fn with_runtime_order(mut self, on: bool) -> Self {
        self.runtime_order = on;
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file of the console's index of this database, when there is an index directory.
    pub fn index_file(&self) -> Option<PathBuf> {
        let dir = self.index_dir.as_ref()?;
        Some(super::index::index_path(dir, &self.path))
    }

    /// What opening the database changed, once (an earlier console's objects removed).
    pub fn notice(&self) -> Option<String> {
        self.lock().notice.clone()
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs a read against an up-to-date source; `T::default()` (nothing) when the database or
    /// its `memory_entries` table does not exist: looking creates nothing.
    fn read<T: Default>(&self, f: impl FnOnce(&Source<'_>) -> Result<T>) -> Result<T> {
        let mut st = self.lock();
        if st.runtime.is_none() {
            let Some(conn) = db::open_existing(&self.path)? else {
                return Ok(T::default());
            };
            self.remove_legacy_objects(&conn, &mut st);
            st.runtime = Some(RuntimeDb {
                conn,
                for_writes: false,
                verified: None,
                own_writes: false,
            });
        }
        let rt = st.runtime.as_ref().expect("opened above");
        let columns = db::table_columns(&rt.conn, "memory_entries").at_db(&self.path)?;
        if columns.is_empty() {
            return Ok(T::default());
        }
        let has_agent = columns.iter().any(|c| c.eq_ignore_ascii_case("agent_name"));
        let indexed = self.sync_index(&mut st, has_agent);
        let st = &*st;
        let rt = st.runtime.as_ref().expect("opened above");
        let mut src = match (&st.index, indexed) {
            (IndexState::Open(ix), true) => Source::index(ix),
            _ => Source::runtime(&rt.conn, &self.path, has_agent),
        };
        src.id_order = self.runtime_order;
        f(&src)
    }

    /// Opens the index when needed and brings it up to date; `false` when reads must scan the
    /// runtime's table instead (no index, or it failed: said on stderr).
    fn sync_index(&self, st: &mut State, has_agent: bool) -> bool {
        let Some(dir) = &self.index_dir else {
            return false;
        };
        if matches!(st.index, IndexState::NotOpened) {
            st.index = match ConsoleIndex::open(dir, &self.path) {
                Ok(ix) => IndexState::Open(ix),
                Err(e) => {
                    eprintln!(
                        "oryx: the console's index in {} cannot be used ({e}); memory is read \
                         from {} directly (slower, same results)",
                        dir.display(),
                        self.path.display()
                    );
                    IndexState::Unavailable
                }
            };
        }
        let (IndexState::Open(ix), Some(rt)) = (&st.index, st.runtime.as_mut()) else {
            return false;
        };
        let version = match data_version(&rt.conn) {
            Ok(v) => v,
            Err(_) => return false,
        };
        let verify = rt.verified != Some(version);
        if !verify && !rt.own_writes {
            return true;
        }
        let source = RuntimeSource {
            conn: &rt.conn,
            path: &self.path,
            has_agent,
        };
        match ix.sync(&source, verify) {
            Ok(()) => {
                rt.verified = Some(version);
                rt.own_writes = false;
                true
            }
            Err(e) => {
                eprintln!(
                    "oryx: updating the console's index {} failed ({e}); this read uses {} \
                     directly",
                    ix.path().display(),
                    self.path.display()
                );
                // Reopened (and checked row by row) on the next read.
                st.index = IndexState::NotOpened;
                false
            }
        }
    }

    /// Opens the database for an append: creates the runtime's missing tables and upgrades a
    /// database from before per-agent memory as the runtime does (the user asked for a write).
    pub(super) fn writer<'s>(&self, st: &'s mut State) -> Result<&'s mut RuntimeDb> {
        if !st.runtime.as_ref().is_some_and(|rt| rt.for_writes) {
            let conn = db::open_or_create(&self.path)?;
            // A deleted entry's text is zeroed, not left in a free block of the file (the WAL
            // is emptied by the runtime index's checkpoint after a removal).
            conn.execute_batch("PRAGMA secure_delete = ON")
                .at_db(&self.path)?;
            self.remove_legacy_objects(&conn, st);
            if db::upgrade_memory_entries(&conn).at_db(&self.path)? {
                eprintln!(
                    "oryx: {} had memory_entries from before per-agent memory; added agent_name \
                     (existing rows are global memory) and idx_memory_agent, as the runtime does",
                    self.path.display()
                );
            }
            // A new connection: its data_version says nothing about what the index checked.
            st.runtime = Some(RuntimeDb {
                conn,
                for_writes: true,
                verified: None,
                own_writes: false,
            });
        }
        Ok(st.runtime.as_mut().expect("opened above"))
    }

    /// Drops what earlier console versions added to the runtime's database, and says so once.
    fn remove_legacy_objects(&self, conn: &Connection, st: &mut State) {
        if let Some(notice) = db::remove_legacy_console_objects_noting(conn, &self.path) {
            st.notice = Some(notice);
        }
    }
}

/// "database is locked" (or "busy"), which a later try may not meet.
fn is_busy(e: &CoreError) -> bool {
    matches!(
        e,
        CoreError::Database { source, .. }
            if matches!(
                source.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            )
    )
}

fn data_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA data_version", [], |r| r.get(0))
}

/// Rows of `owner` (optionally of one scope) from `src`, then `sql_tail`; `?3…` are `extra`.
fn query(
    src: &Source<'_>,
    from: &str,
    owner: &Owner,
    scope: Option<Scope>,
    sql_tail: &str,
    extra: &[&dyn rusqlite::ToSql],
) -> Result<Vec<(Scope, Entry, i64)>> {
    let scope_filter = match scope {
        Some(_) => "AND upper(scope) = ?2",
        None => "",
    };
    let sql = format!(
        "SELECT scope, content, created_at, id FROM {from} \
         WHERE agent_name = ?1 {scope_filter} {sql_tail}"
    );
    let mut stmt = src.conn.prepare_cached(&sql).at_db(src.path)?;
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
            Ok((scope, content, ts, r.get::<_, i64>(3)?))
        })
        .at_db(src.path)?;
    let mut out = Vec::new();
    for row in rows {
        let (scope, content, ts, id) = row.at_db(src.path)?;
        if let Some(scope) = Scope::parse_lenient(&scope).filter(|_| !scope.trim().is_empty()) {
            // The runtime shows rows as `- content` (the time lives in created_at).
            let line = format!("- {content}");
            out.push((
                scope,
                Entry {
                    timestamp: ts,
                    content,
                    line,
                },
                id,
            ));
        }
    }
    Ok(out)
}

impl LongTermMemoryStore for SqliteMemoryStore {
    fn backend(&self) -> Backend {
        Backend::Sqlite
    }

    fn location(&self, owner: &Owner) -> String {
        format!(
            "{} (memory_entries, agent_name = {})",
            self.path.display(),
            owner.db_key()
        )
    }

    /// The database and its WAL: a commit in WAL mode grows or rewrites the `-wal` file, a
    /// checkpoint the main one.
    fn stamp(&self, _owner: &Owner) -> Option<crate::memory::store::Stamp> {
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        Some(crate::memory::store::Stamp::of_files(&[
            &self.path,
            Path::new(&wal),
        ]))
    }

    fn append(
        &self,
        owner: &Owner,
        scope: Scope,
        content: &str,
        at: Option<NaiveDateTime>,
    ) -> Result<Entry> {
        let ts = at.unwrap_or_else(now_local);
        let mut st = self.lock();
        // SQLite answers "database is locked" without waiting for the busy timeout in a few WAL
        // races (a connection opening while the last one closes and deletes the WAL): seen once
        // with eight processes appending on a loaded machine. The write did not happen; try it
        // again on a fresh connection, a few times, before saying so.
        let mut attempt = 0;
        loop {
            let written = self.writer(&mut st).and_then(|rt| {
                rt.conn
                    .execute(
                        "INSERT INTO memory_entries(agent_name, scope, content, created_at) VALUES (?1, ?2, ?3, ?4)",
                        params![owner.db_key(), scope.db_value(), content, local_to_epoch_ms(&ts)],
                    )
                    .at_db(&self.path)?;
                rt.own_writes = true;
                Ok(())
            });
            match written {
                Err(e) if is_busy(&e) && attempt < 5 => {
                    attempt += 1;
                    st.runtime = None;
                    std::thread::sleep(std::time::Duration::from_millis(20 << attempt));
                }
                other => break other?,
            }
        }
        Ok(Entry {
            timestamp: Some(ts),
            content: content.to_string(),
            line: format!("- {content}"),
        })
    }

    fn history(&self, _owner: &Owner) -> Option<crate::memory::history::History> {
        Some(self.history_file())
    }

    fn curate(
        &self,
        owner: &Owner,
        req: crate::memory::store::Request,
    ) -> Result<crate::memory::history::Change> {
        self.curate_rows(owner, req)
    }

    fn holds(&self, owner: &Owner, change: &crate::memory::history::Change) -> Result<bool> {
        self.rows_hold(owner, change)
    }

    fn load_all(&self, owner: &Owner) -> Result<Sections> {
        let rows = self.read(|src| query(src, src.from, owner, None, &src.order_by(""), &[]))?;
        let mut sections = Sections::default();
        for (scope, entry, id) in rows {
            match scope {
                Scope::Core => {
                    sections.core.push(entry);
                    sections.core_ids.push(id.to_string());
                }
                Scope::Archival => {
                    sections.archival.push(entry);
                    sections.archival_ids.push(id.to_string());
                }
            }
        }
        Ok(sections)
    }

    fn load_context(&self, owner: &Owner, archival_limit: usize) -> Result<ContextEntries> {
        self.read(|src| {
            let core = query(
                src,
                src.from,
                owner,
                Some(Scope::Core),
                &src.order_by(""),
                &[],
            )?
            .into_iter()
            .map(|(_, e, _)| e)
            .collect();
            // Every entry line is at least a few characters, so `limit` rows always cover the
            // window.
            let limit = archival_limit as i64 + 1;
            let mut tail: Vec<Entry> = query(
                src,
                src.from,
                owner,
                Some(Scope::Archival),
                &format!("{} LIMIT ?3", src.order_by(" DESC")),
                &[&limit],
            )?
            .into_iter()
            .map(|(_, e, _)| e)
            .collect();
            tail.reverse();
            Ok(ContextEntries {
                core,
                archival_tail: tail,
                runtime_text: None,
            })
        })
    }

    fn count(&self, owner: &Owner) -> Result<EntryCounts> {
        self.read(|src| {
            let mut stmt = src
                .conn
                .prepare_cached(&format!(
                    // upper() changes nothing `parse_lenient` looks at, and lets the index's
                    // order index serve the grouping.
                    "SELECT upper(scope), count(*) FROM {} WHERE agent_name = ?1 \
                     GROUP BY upper(scope)",
                    src.from
                ))
                .at_db(src.path)?;
            let rows = stmt
                .query_map([owner.db_key()], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
                })
                .at_db(src.path)?;
            let mut counts = EntryCounts::default();
            for row in rows {
                let (scope, n) = row.at_db(src.path)?;
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
        if self.runtime_order {
            return self.runtime_recall(owner, &needle);
        }
        let rows = self.read(|src| recall_rows(src, owner, &needle))?;
        Ok(rows
            .into_iter()
            .map(|(_, e, _)| e)
            .filter(|e| contains_ci(&e.content, &needle))
            // The runtime's recall answers with each row's raw content (its load shows
            // `- content`).
            .map(|e| Entry {
                line: e.content.clone(),
                ..e
            })
            .collect())
    }
}

impl SqliteMemoryStore {
    /// The runtime's keyword recall: its repository's query run as it is, the keyword
    /// lowercased and put between `%` unescaped (so `%` and `_` in it are wildcards), SQLite's
    /// `lower()` and `LIKE` folding ASCII letters only, rows in id order; each answers with its
    /// raw content.
    fn runtime_recall(&self, owner: &Owner, needle_lower: &str) -> Result<Vec<Entry>> {
        let pattern = format!("%{needle_lower}%");
        let rows = self.read(|src| {
            query(
                src,
                src.from,
                owner,
                None,
                "AND scope = 'ARCHIVAL' AND lower(content) LIKE ?2 ORDER BY id",
                &[&pattern],
            )
        })?;
        Ok(rows
            .into_iter()
            .map(|(_, e, _)| Entry {
                line: e.content.clone(),
                ..e
            })
            .collect())
    }
}

/// Candidates in SQL for the exact case-insensitive check the caller runs on every row: the
/// trigram index (it folds case like `contains_ci` does for probe characters) when the probe
/// is long enough, else instr (raw bytes: exact for a probe without letters), else LIKE for
/// ASCII keywords (its case folding is ASCII-only), else every archival row.
fn recall_rows(src: &Source<'_>, owner: &Owner, needle: &str) -> Result<Vec<(Scope, Entry, i64)>> {
    let probe = Probe::of(needle);
    let archival = Some(Scope::Archival);
    match &probe {
        Some(p) if src.fts && p.bytes.chars().count() >= MIN_FTS_CHARS => {
            let phrase = format!("\"{}\"", p.bytes.replace('"', "\"\""));
            // The index's hits drive the query (CROSS JOIN keeps that order): looking each
            // hit up by id beats walking the agent's rows in time order to test each one.
            let from = format!(
                "(SELECT rowid AS fts_id FROM {FTS} WHERE {FTS} MATCH ?3) \
                 CROSS JOIN {} ON id = fts_id",
                src.from
            );
            query(src, &from, owner, archival, &src.order_by(""), &[&phrase])
        }
        Some(p) if !p.ascii_folded => query(
            src,
            src.from,
            owner,
            archival,
            &format!("AND instr(content, ?3) > 0 {}", src.order_by("")),
            &[&p.bytes],
        ),
        _ => {
            let text = probe.as_ref().map_or(needle, |p| p.bytes.as_str());
            if !text.is_ascii() {
                return query(src, src.from, owner, archival, &src.order_by(""), &[]);
            }
            // LIKE folds ASCII only: a KELVIN SIGN is a `k` to `contains_ci`.
            let kelvin = match probe.as_ref().is_some_and(|p| p.kelvin) {
                true => format!("OR instr(content, '{KELVIN_SIGN}') > 0"),
                false => String::new(),
            };
            let pattern = format!("%{}%", escape_like(text));
            query(
                src,
                src.from,
                owner,
                archival,
                &format!(
                    "AND (content LIKE ?3 ESCAPE '\\' {kelvin}) {}",
                    src.order_by("")
                ),
                &[&pattern],
            )
        }
    }
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
mod tests;
