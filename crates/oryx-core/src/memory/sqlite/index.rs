//! The console's own index of a runtime database's `memory_entries` (nothing of the
//! console's lives in the runtime's database). It is a SQLite database of its own, by default
//! beside the settings (`<config dir>/index/<hash of the runtime db's path>.db`), holding a copy
//! of every row with the time-order index the window needs and a trigram full-text index for
//! recall.
//!
//! It follows the runtime's rows without triggers: rows with an id above the highest one copied
//! are copied, and whenever another connection has written to the runtime's database since the
//! last check (SQLite's `data_version`), a fingerprint over every row (count and a sum of row
//! hashes) tells whether a row was updated or deleted; only then are the two compared row by row.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::types::{Value, ValueRef};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use crate::db;
use crate::embed::identity::fnv1a;
use crate::error::{CoreError, DbContext, Result};

/// Bump when the index's tables change: an index of another format is rebuilt.
const FORMAT: i64 = 1;
/// Rows copied per transaction, so that other consoles reading the index (and a runtime writing
/// to a database in rollback-journal mode) never wait long.
const COPY_BATCH: i64 = 20_000;
pub(super) const FTS: &str = "entries_fts";
#[cfg(test)]
pub(super) const ORDER_INDEX: &str = "entries_order";

/// The index's tables. `entries` keeps the runtime's values as they are (no column affinity, so
/// an integer stays an integer and text stays text); `ts` is the sort key the runtime's queries
/// compute from `created_at`, and `h` the row's hash.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY,
    agent_name,
    scope,
    content,
    created_at,
    ts INTEGER,
    h INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_order ON entries (agent_name, upper(scope), ts, id);
CREATE VIRTUAL TABLE IF NOT EXISTS entries_fts USING fts5(
    content, content='entries', content_rowid='id', tokenize='trigram'
);
";

/// The runtime's database as the index reads it.
pub(super) struct RuntimeSource<'a> {
    pub conn: &'a Connection,
    pub path: &'a Path,
    /// `memory_entries` has `agent_name` (older databases: every row is global memory).
    pub has_agent: bool,
}

impl RuntimeSource<'_> {
    /// The copied columns, in the order [`row_hash`] takes them.
    fn columns(&self) -> &'static str {
        match self.has_agent {
            true => "id, agent_name, scope, content, created_at",
            false => "id, '__global__', scope, content, created_at",
        }
    }
}

pub(super) struct ConsoleIndex {
    conn: Connection,
    path: PathBuf,
}

/// Where the index of `runtime_db` lives inside `dir` (FNV-1a of its path: stable across Rust
/// versions and platforms, so the same runtime database always maps to the same index file).
pub fn index_path(dir: &Path, runtime_db: &Path) -> PathBuf {
    let key = canonical(runtime_db);
    dir.join(format!(
        "{:016x}.db",
        fnv1a(key.as_os_str().as_encoded_bytes())
    ))
}

/// The runtime database's path with symlinks and `..` resolved, also before the file exists.
fn canonical(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => std::fs::canonicalize(parent)
            .map(|p| p.join(name))
            .unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    }
}

/// Count and wrapping sum of row hashes of a set of rows (order-independent and additive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Fingerprint {
    count: i64,
    sum: u64,
}

impl Fingerprint {
    fn add(&mut self, h: u64) {
        self.count += 1;
        self.sum = self.sum.wrapping_add(h);
    }
}

/// What the index holds: every runtime row with an id up to `max_id`, whose fingerprint is `fp`.
#[derive(Debug, Clone, Copy, Default)]
struct Meta {
    max_id: i64,
    fp: Fingerprint,
}

impl ConsoleIndex {
    /// Opens (creating when missing) the index of `runtime_db` in `dir`. An index of another
    /// format or of another database (a hash collision) is emptied and rebuilt; a file that is
    /// not a database is replaced.
    pub fn open(dir: &Path, runtime_db: &Path) -> Result<ConsoleIndex> {
        std::fs::create_dir_all(dir).map_err(|e| CoreError::io(dir, e))?;
        let path = index_path(dir, runtime_db);
        if !path.exists() {
            prune_orphans(dir, &path);
        }
        let owner = canonical(runtime_db).to_string_lossy().into_owned();
        match Self::open_at(&path, &owner) {
            Ok(index) => Ok(index),
            Err(CoreError::Database { source, .. })
                if matches!(
                    source.sqlite_error_code(),
                    Some(rusqlite::ErrorCode::NotADatabase)
                        | Some(rusqlite::ErrorCode::DatabaseCorrupt)
                ) =>
            {
                // Derived data: a damaged index is rebuilt from the runtime's rows.
                for suffix in ["", "-wal", "-shm"] {
                    let mut p = path.clone().into_os_string();
                    p.push(suffix);
                    let _ = std::fs::remove_file(PathBuf::from(p));
                }
                Self::open_at(&path, &owner)
            }
            Err(e) => Err(e),
        }
    }

    fn open_at(path: &Path, owner: &str) -> Result<ConsoleIndex> {
        let conn = Connection::open(path).at_db(path)?;
        conn.busy_timeout(Duration::from_secs(5)).at_db(path)?;
        // A derived cache: WAL lets other consoles read while one syncs, and losing the last
        // commits on power loss costs only a re-copy.
        let _: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .at_db(path)?;
        conn.execute_batch("PRAGMA synchronous=NORMAL")
            .at_db(path)?;
        let index = ConsoleIndex {
            conn,
            path: path.to_path_buf(),
        };
        index.ensure_schema(owner).at_db(path)?;
        Ok(index)
    }

    fn ensure_schema(&self, owner: &str) -> rusqlite::Result<()> {
        let c = &self.conn;
        c.execute_batch("BEGIN IMMEDIATE")?;
        let result = (|| {
            c.execute_batch(SCHEMA)?;
            let get = |key: &str| -> rusqlite::Result<Option<Value>> {
                c.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
                    .optional()
            };
            let format = get("format")?;
            let of = get("runtime_db")?;
            let fresh = format.is_none() && of.is_none();
            let matches = format == Some(Value::Integer(FORMAT))
                && of == Some(Value::Text(owner.to_string()));
            if !fresh && !matches {
                c.execute_batch(
                    "DROP TABLE IF EXISTS entries_fts; DROP TABLE IF EXISTS entries; \
                     DELETE FROM meta;",
                )?;
                c.execute_batch(SCHEMA)?;
            }
            if !matches {
                c.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('format', ?1), ('runtime_db', ?2)",
                    params![FORMAT, owner],
                )?;
            }
            Ok(())
        })();
        finish(c, result)
    }

    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Brings the index up to date with the runtime's rows: copies new rows and, with
    /// `verify`, checks every row for updates and deletes (see the module comment).
    pub fn sync(&self, rt: &RuntimeSource<'_>, verify: bool) -> Result<()> {
        self.copy_new_rows(rt)?;
        if verify {
            self.verify(rt)?;
        }
        Ok(())
    }

    fn meta(&self) -> rusqlite::Result<Meta> {
        let get = |key: &str| -> rusqlite::Result<i64> {
            Ok(self
                .conn
                .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| {
                    r.get::<_, i64>(0)
                })
                .optional()?
                .unwrap_or(0))
        };
        Ok(Meta {
            max_id: get("max_id")?,
            fp: Fingerprint {
                count: get("row_count")?,
                sum: get("fingerprint")? as u64,
            },
        })
    }

    fn set_meta(&self, m: &Meta) -> rusqlite::Result<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES \
             ('max_id', ?1), ('row_count', ?2), ('fingerprint', ?3)",
            params![m.max_id, m.fp.count, m.fp.sum as i64],
        )?;
        Ok(())
    }

    /// Copies the rows above the highest id copied, a batch per transaction. The highest id is
    /// read inside each transaction, so consoles syncing the same index at once never copy a
    /// row twice.
    fn copy_new_rows(&self, rt: &RuntimeSource<'_>) -> Result<()> {
        let sql = format!(
            "SELECT {} FROM memory_entries WHERE id > ?1 ORDER BY id LIMIT ?2",
            rt.columns()
        );
        loop {
            let copied = self.write(|| {
                let mut meta = self.meta()?;
                let rows = read_rows(rt.conn, &sql, params![meta.max_id, COPY_BATCH])
                    .map_err(Side::Runtime)?;
                for row in &rows {
                    self.insert(row)?;
                    meta.fp.add(row.hash);
                    meta.max_id = meta.max_id.max(row.id);
                }
                if !rows.is_empty() {
                    self.set_meta(&meta)?;
                }
                Ok(rows.len() as i64)
            });
            match copied {
                Ok(n) if n < COPY_BATCH => return Ok(()),
                Ok(_) => {}
                Err(Side::Runtime(e)) => return Err(CoreError::db(rt.path, e)),
                Err(Side::Index(e)) => return Err(CoreError::db(&self.path, e)),
            }
        }
    }

    /// Compares the fingerprint of the runtime's rows up to the highest id copied with the
    /// index's; when they differ, compares row by row and applies the differences.
    fn verify(&self, rt: &RuntimeSource<'_>) -> Result<()> {
        let result = self.write(|| {
            let meta = self.meta()?;
            let sql = format!(
                "SELECT {} FROM memory_entries WHERE id <= ?1 ORDER BY id",
                rt.columns()
            );
            let mut fp = Fingerprint::default();
            for_each_row(rt.conn, &sql, meta.max_id, |id, cells| {
                fp.add(row_hash(id, cells));
                Ok(())
            })?;
            if fp == meta.fp {
                return Ok(());
            }
            self.resync(rt, &sql, meta)
        });
        match result {
            Ok(()) => Ok(()),
            Err(Side::Runtime(e)) => Err(CoreError::db(rt.path, e)),
            Err(Side::Index(e)) => Err(CoreError::db(&self.path, e)),
        }
    }

    /// Makes the index's rows up to `meta.max_id` equal to the runtime's, merging both in id
    /// order: rows only in the index are deleted, rows only in the runtime or with another
    /// hash are (re)written.
    fn resync(&self, rt: &RuntimeSource<'_>, sql: &str, mut meta: Meta) -> Result<(), Side> {
        let copied: Vec<(i64, u64)> = {
            let mut stmt = self.conn.prepare("SELECT id, h FROM entries ORDER BY id")?;
            let rows = stmt.query_map([], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)? as u64))
            })?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let mut next = 0;
        let mut fp = Fingerprint::default();
        for_each_row(rt.conn, sql, meta.max_id, |id, cells| {
            let h = row_hash(id, cells);
            fp.add(h);
            while next < copied.len() && copied[next].0 < id {
                self.delete(copied[next].0)?;
                next += 1;
            }
            let same = next < copied.len() && copied[next] == (id, h);
            if next < copied.len() && copied[next].0 == id {
                next += 1;
                if !same {
                    self.delete(id)?;
                }
            }
            if !same {
                self.insert(&Row::from_cells(id, h, cells))?;
            }
            Ok(())
        })?;
        for (id, _) in &copied[next..] {
            self.delete(*id)?;
        }
        meta.fp = fp;
        self.set_meta(&meta)?;
        Ok(())
    }

    fn insert(&self, row: &Row) -> rusqlite::Result<()> {
        let ts = db::epoch_ms_sql("?5");
        self.conn
            .prepare_cached(&format!(
                "INSERT INTO entries(id, agent_name, scope, content, created_at, ts, h) \
                 VALUES (?1, ?2, ?3, ?4, ?5, {ts}, ?6)"
            ))?
            .execute(params![
                row.id,
                row.cells[0],
                row.cells[1],
                row.cells[2],
                row.cells[3],
                row.hash as i64
            ])?;
        self.conn
            .prepare_cached(&format!(
                "INSERT INTO {FTS}(rowid, content) VALUES (?1, ?2)"
            ))?
            .execute(params![row.id, row.cells[2]])?;
        Ok(())
    }

    /// Removes a row; the full-text index is told the content it indexed (external content).
    fn delete(&self, id: i64) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(&format!(
                "INSERT INTO {FTS}({FTS}, rowid, content) \
                 SELECT 'delete', id, content FROM entries WHERE id = ?1"
            ))?
            .execute([id])?;
        self.conn
            .prepare_cached("DELETE FROM entries WHERE id = ?1")?
            .execute([id])?;
        Ok(())
    }

    /// Runs `f` in a write transaction of the index (rolled back when `f` fails).
    fn write<T>(&self, f: impl FnOnce() -> Result<T, Side>) -> Result<T, Side> {
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        match f() {
            Ok(v) => {
                self.conn.execute_batch("COMMIT")?;
                Ok(v)
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }
}

/// Removes the indexes of runtime databases that no longer exist (temporary databases, a
/// database moved away), whenever a new index is created: nothing else would ever remove them.
/// An index removed too eagerly is only rebuilt.
fn prune_orphans(dir: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.path();
        if file == keep || file.extension().is_none_or(|e| e != "db") {
            continue;
        }
        let owner =
            Connection::open_with_flags(&file, OpenFlags::SQLITE_OPEN_READ_ONLY).and_then(|c| {
                c.query_row("SELECT value FROM meta WHERE key = 'runtime_db'", [], |r| {
                    r.get::<_, String>(0)
                })
            });
        // Only an index that names its database, and whose database is gone.
        if owner.is_ok_and(|o| !Path::new(&o).exists()) {
            for suffix in ["", "-wal", "-shm"] {
                let mut p = file.clone().into_os_string();
                p.push(suffix);
                let _ = std::fs::remove_file(PathBuf::from(p));
            }
        }
    }
}

fn finish<T>(c: &Connection, result: rusqlite::Result<T>) -> rusqlite::Result<T> {
    match result {
        Ok(v) => c.execute_batch("COMMIT").map(|_| v),
        Err(e) => {
            let _ = c.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// Which database an error came from, so that it names the right file.
enum Side {
    Runtime(rusqlite::Error),
    Index(rusqlite::Error),
}

impl From<rusqlite::Error> for Side {
    fn from(e: rusqlite::Error) -> Self {
        Side::Index(e)
    }
}

/// One runtime row: id, then agent_name, scope, content, created_at as stored.
struct Row {
    id: i64,
    cells: [Value; 4],
    hash: u64,
}

impl Row {
    fn from_cells(id: i64, hash: u64, cells: [ValueRef<'_>; 4]) -> Row {
        Row {
            id,
            cells: cells.map(Value::from),
            hash,
        }
    }
}

fn read_rows(
    conn: &Connection,
    sql: &str,
    args: impl rusqlite::Params,
) -> rusqlite::Result<Vec<Row>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query(args)?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        let cells = [r.get_ref(1)?, r.get_ref(2)?, r.get_ref(3)?, r.get_ref(4)?];
        out.push(Row::from_cells(id, row_hash(id, cells), cells));
    }
    Ok(out)
}

/// Streams the rows of `sql` (bound to `max_id`) without copying them. The statement's errors
/// are the runtime's; `f`'s say which side failed.
fn for_each_row(
    conn: &Connection,
    sql: &str,
    max_id: i64,
    mut f: impl FnMut(i64, [ValueRef<'_>; 4]) -> Result<(), Side>,
) -> Result<(), Side> {
    let mut stmt = conn.prepare_cached(sql).map_err(Side::Runtime)?;
    let mut rows = stmt.query([max_id]).map_err(Side::Runtime)?;
    while let Some(r) = rows.next().map_err(Side::Runtime)? {
        let cells = (|| {
            let id: i64 = r.get(0)?;
            Ok((
                id,
                [r.get_ref(1)?, r.get_ref(2)?, r.get_ref(3)?, r.get_ref(4)?],
            ))
        })();
        let (id, cells) = cells.map_err(Side::Runtime)?;
        f(id, cells)?;
    }
    Ok(())
}

/// A 64-bit hash of one row's values with their types (a word at a time: the fingerprint pass
/// hashes every row of the runtime's table). Not cryptographic: it notices edits, it does not
/// resist someone crafting a collision in their own database.
pub(super) fn row_hash(id: i64, cells: [ValueRef<'_>; 4]) -> u64 {
    let mut h = RowHasher(0x243f_6a88_85a3_08d3);
    h.word(id as u64);
    for cell in cells {
        match cell {
            ValueRef::Null => h.word(0),
            ValueRef::Integer(i) => {
                h.word(1);
                h.word(i as u64);
            }
            ValueRef::Real(f) => {
                h.word(2);
                h.word(f.to_bits());
            }
            ValueRef::Text(b) => {
                h.word(3);
                h.bytes(b);
            }
            ValueRef::Blob(b) => {
                h.word(4);
                h.bytes(b);
            }
        }
    }
    h.finish()
}

struct RowHasher(u64);

impl RowHasher {
    fn word(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(26) ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    fn bytes(&mut self, b: &[u8]) {
        self.word(b.len() as u64);
        let mut chunks = b.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.word(u64::from_le_bytes(last));
        }
    }

    /// murmur3's finaliser, so that a change in any word reaches every bit of the sum.
    fn finish(self) -> u64 {
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }
}
