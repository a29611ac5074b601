//! Live refresh: watches the root and the database and reports what changed, debounced, so the
//! console can tell the UI within a second. This module holds the knowledge of where things
//! live (the root's layout, the database's name and tables); callers only see [`Change`]s.
//!
//! Only writes count. Reads are reported too by some backends (inotify's open/access/close
//! events) and the console reads after every event, so announcing them would loop: the UI
//! refetches, the read is reported, the UI refetches again. The database needs more care: a
//! mere reader creates and deletes `-wal`/`-shm`, writes the shared-memory file and, as the last
//! connection, checkpoints into the main file. So a database event is only a candidate: one
//! read-only connection, held for as long as the watcher lives, takes a cheap fingerprint of the
//! runtime's tables and the change is announced only when it differs. Holding that connection
//! also means the console's own connections are never the last one, so they no longer create,
//! checkpoint or delete anything; its fingerprint query writes nothing, so it cannot trigger
//! itself.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use notify_debouncer_full::notify::event::{EventKind, ModifyKind};
use notify_debouncer_full::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{new_debouncer, DebounceEventResult, Debouncer, RecommendedCache};
use rusqlite::{Connection, OpenFlags};

use crate::error::{CoreError, Result};
use crate::memory::{Backend, FileVersion};
use crate::names::{memory_path, Owner};

/// What changed on disk.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Change {
    /// A MEMORY.md: an agent's, or `None` for the global one (or several, after lost events).
    Memory(Option<String>),
    /// An AGENT.md, a skill or a bootstrap file; the agent when it is inside an agent's folder.
    Agents(Option<String>),
    /// The runtime database's rows (sessions, tool invocations, sqlite memory).
    Database,
}

pub const DEBOUNCE: Duration = Duration::from_millis(250);

/// Keeps watching for as long as it lives.
pub struct Watcher {
    _debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    shared: Arc<Shared>,
}

/// What the event thread and the console's writes share.
struct Shared {
    root: PathBuf,
    probe: Mutex<DbProbe>,
    /// The version of a MEMORY.md the console wrote itself and has announced already.
    absorbed: Mutex<HashMap<PathBuf, Option<FileVersion>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Watcher {
    /// How many times the database was fingerprinted (once at the start, then once per batch of
    /// database events): lets tests check that the probe does not trigger itself.
    #[doc(hidden)]
    pub fn db_probes(&self) -> usize {
        lock(&self.shared.probe).probes
    }

    /// The console has just written `owner`'s memory in `backend` and announces that itself:
    /// the watcher does not report this version again, so each write reaches the UI once. A
    /// later write by anyone changes the version and is reported as usual.
    pub fn absorb(&self, backend: Backend, owner: &Owner) {
        match backend {
            Backend::Markdown => {
                let path = memory_path(&self.shared.root, owner);
                let version = FileVersion::of(&path);
                lock(&self.shared.absorbed).insert(path, version);
            }
            Backend::Sqlite => {
                lock(&self.shared.probe).changed();
            }
            Backend::Mem0 => {}
        }
    }
}

impl Shared {
    /// Whether a MEMORY.md event is the console's own, already announced write.
    fn is_absorbed(&self, path: &Path) -> bool {
        let absorbed = lock(&self.absorbed);
        absorbed
            .get(path)
            .is_some_and(|v| *v == FileVersion::of(path))
    }
}

/// Whether an event can mean new content. Access events (open, read, close — even a close after
/// opening for writing without writing) and metadata-only changes (permissions, owner, times:
/// SQLite `fchown`s the `-wal`/`-shm` it creates when running as root) cannot.
fn is_write(kind: &EventKind) -> bool {
    !matches!(
        kind,
        EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_)) | EventKind::Other
    )
}

/// Maps one changed path to what it affects; `None` for files nobody shows (locks, temp files).
pub fn classify(root: &Path, db: &Path, path: &Path) -> Option<Change> {
    let name = path.file_name()?.to_string_lossy();
    if name.ends_with(".lock") || name.ends_with(".tmp") {
        return None;
    }
    // The console's own history journal beside a MEMORY.md: no view shows it, and reporting
    // it turned every console append into a second, agents event.
    if crate::memory::journal::journal_path(&path.with_file_name("MEMORY.md")) == path {
        return None;
    }
    let db_name = db.file_name()?.to_string_lossy();
    if path.parent() == db.parent() && name.starts_with(db_name.as_ref()) {
        return Some(Change::Database);
    }
    let rel = path.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["agents", agent, "MEMORY.md"] => Some(Change::Memory(Some(agent.to_string()))),
        ["memory", "MEMORY.md"] => Some(Change::Memory(None)),
        ["agents", ..] | ["skills", ..] => Some(Change::Agents(
            parts.get(1).filter(|_| parts[0] == "agents").cloned(),
        )),
        [file] if file.ends_with(".md") => Some(Change::Agents(None)),
        _ => None,
    }
}

/// Starts watching `root` (recursively) and the database's folder. Missing folders are skipped:
/// a root without a database still refreshes its memory views.
pub fn watch(
    root: &Path,
    db: &Path,
    on_change: impl Fn(Vec<Change>) + Send + 'static,
) -> Result<Watcher> {
    let shared = Arc::new(Shared {
        root: root.to_path_buf(),
        probe: Mutex::new(DbProbe::new(db.to_path_buf())),
        absorbed: Mutex::new(HashMap::new()),
    });
    // The baseline, before watching: opening the held connection creates `-wal`/`-shm`.
    lock(&shared.probe).changed();
    let (root_c, db_c, events) = (root.to_path_buf(), db.to_path_buf(), shared.clone());
    let mut debouncer = new_debouncer(DEBOUNCE, None, move |res: DebounceEventResult| {
        let Ok(batch) = res else { return };
        let mut changes: Vec<Change> = Vec::new();
        let mut add = |c: Change| {
            if !changes.contains(&c) {
                changes.push(c);
            }
        };
        let mut db_touched = false;
        for e in batch.iter() {
            if e.need_rescan() {
                // Events were lost: anything may have changed.
                add(Change::Memory(None));
                add(Change::Agents(None));
                db_touched = true;
                continue;
            }
            if !is_write(&e.kind) {
                continue;
            }
            for path in &e.paths {
                match classify(&root_c, &db_c, path) {
                    Some(Change::Database) => db_touched = true,
                    Some(Change::Memory(agent)) => {
                        let file = memory_path(&root_c, &owner_of(agent.clone()));
                        if !events.is_absorbed(&file) {
                            add(Change::Memory(agent));
                        }
                    }
                    Some(c) => add(c),
                    None => {}
                }
            }
        }
        if db_touched && lock(&events.probe).changed() {
            add(Change::Database);
        }
        if !changes.is_empty() {
            on_change(changes);
        }
    })
    .map_err(|e| watch_err(root, e))?;
    if root.is_dir() {
        debouncer
            .watch(root, RecursiveMode::Recursive)
            .map_err(|e| watch_err(root, e))?;
    }
    let db_dir: PathBuf = db.parent().map(Path::to_path_buf).unwrap_or_default();
    if db_dir.is_dir() && !db_dir.starts_with(root) {
        debouncer
            .watch(&db_dir, RecursiveMode::NonRecursive)
            .map_err(|e| watch_err(&db_dir, e))?;
    }
    Ok(Watcher {
        _debouncer: debouncer,
        shared,
    })
}

fn owner_of(agent: Option<String>) -> Owner {
    agent.map_or(Owner::Global, Owner::Agent)
}

fn watch_err(path: &Path, e: notify_debouncer_full::notify::Error) -> CoreError {
    CoreError::InvalidInput(format!("cannot watch {} for changes: {e}", path.display()))
}

/// The runtime's tables whose rows the console shows.
const TABLES: [&str; 3] = ["sessions", "memory_entries", "tool_invocations"];

/// What a read of the database sees; equal fingerprints mean nothing to refetch.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Fingerprint {
    /// Row count and largest rowid of each of [`TABLES`] (a missing table or database counts
    /// as empty), plus `PRAGMA data_version` of the held connection, which changes when any
    /// other connection commits (an edited row keeps count and rowid). `generation` tells
    /// which connection that number comes from.
    Rows {
        tables: [(i64, i64); 3],
        data_version: i64,
        generation: u64,
    },
    /// Not readable now (not SQLite, not a regular file, locked past the timeout, …).
    Unreadable,
}

impl Fingerprint {
    fn differs_from(&self, before: &Fingerprint) -> bool {
        match (before, self) {
            (
                Fingerprint::Rows {
                    tables: t0,
                    data_version: v0,
                    generation: g0,
                },
                Fingerprint::Rows {
                    tables: t1,
                    data_version: v1,
                    generation: g1,
                },
            ) => t0 != t1 || (g0 == g1 && v0 != v1),
            (a, b) => a != b,
        }
    }
}

/// The file behind a path, to notice a database replaced under the held connection.
#[cfg(unix)]
fn file_identity(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_identity(_meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

struct DbProbe {
    db: PathBuf,
    held: Option<(Connection, Option<(u64, u64)>)>,
    generation: u64,
    last: Option<Fingerprint>,
    probes: usize,
}

impl DbProbe {
    fn new(db: PathBuf) -> DbProbe {
        DbProbe {
            db,
            held: None,
            generation: 0,
            last: None,
            probes: 0,
        }
    }

    /// Takes a fingerprint; whether it differs from the previous one (the first never does).
    fn changed(&mut self) -> bool {
        self.probes += 1;
        let now = self.fingerprint();
        let changed = self
            .last
            .as_ref()
            .is_some_and(|before| now.differs_from(before));
        self.last = Some(now);
        changed
    }

    fn fingerprint(&mut self) -> Fingerprint {
        let empty = Fingerprint::Rows {
            tables: [(0, 0); 3],
            data_version: 0,
            generation: self.generation,
        };
        // SQLite opens by name and would block on a FIFO: only a regular file is opened.
        let identity = match crate::rooted_fs::require_regular_if_exists(&self.db) {
            Ok(true) => std::fs::metadata(&self.db)
                .ok()
                .and_then(|m| file_identity(&m)),
            Ok(false) => {
                self.held = None;
                return empty;
            }
            Err(_) => {
                self.held = None;
                return Fingerprint::Unreadable;
            }
        };
        if self.held.as_ref().is_some_and(|(_, id)| *id != identity) {
            self.held = None;
        }
        if self.held.is_none() {
            match open_read_only(&self.db) {
                Ok(conn) => {
                    self.generation += 1;
                    self.held = Some((conn, identity));
                }
                Err(_) => return Fingerprint::Unreadable,
            }
        }
        let Some((conn, _)) = &self.held else {
            return Fingerprint::Unreadable;
        };
        match read_rows(conn) {
            Ok((tables, data_version)) => Fingerprint::Rows {
                tables,
                data_version,
                generation: self.generation,
            },
            Err(_) => {
                self.held = None;
                Fingerprint::Unreadable
            }
        }
    }
}

fn open_read_only(db: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    // Short: the probe runs on the watcher's thread; a writer holding the lock is a change
    // being made, and its own events bring another probe.
    conn.busy_timeout(Duration::from_millis(500))?;
    Ok(conn)
}

/// One read transaction: `PRAGMA data_version`, then count and max rowid of each table that
/// exists. Both are cheap (an index or the b-tree's last page), unlike reading a column such
/// as `last_active_at`, which would walk every session's messages.
fn read_rows(conn: &Connection) -> rusqlite::Result<([(i64, i64); 3], i64)> {
    conn.execute_batch("BEGIN")?;
    let read = || -> rusqlite::Result<([(i64, i64); 3], i64)> {
        let data_version: i64 = conn.query_row("PRAGMA data_version", [], |r| r.get(0))?;
        let mut stmt = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")?;
        let present = stmt
            .query_map([], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut tables = [(0, 0); 3];
        for (slot, t) in tables.iter_mut().zip(TABLES) {
            if present.iter().any(|p| p.eq_ignore_ascii_case(t)) {
                let count =
                    conn.query_row(&format!("SELECT count(*) FROM \"{t}\""), [], |r| r.get(0))?;
                // A table without rowids (no runtime makes one) is followed by its count.
                let max = conn
                    .query_row(
                        &format!("SELECT coalesce(max(rowid), 0) FROM \"{t}\""),
                        [],
                        |r| r.get(0),
                    )
                    .unwrap_or(0);
                *slot = (count, max);
            }
        }
        Ok((tables, data_version))
    };
    let result = read();
    conn.execute_batch("COMMIT")?;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_paths() {
        let root = Path::new("/r");
        let db = Path::new("/d/oryxos.db");
        let c = |p: &str| classify(root, db, Path::new(p));
        assert_eq!(
            c("/r/agents/a/MEMORY.md"),
            Some(Change::Memory(Some("a".into())))
        );
        assert_eq!(c("/r/memory/MEMORY.md"), Some(Change::Memory(None)));
        assert_eq!(c("/r/agents/a/MEMORY.md.lock"), None);
        assert_eq!(c("/r/agents/a/.MEMORY.md.x1.tmp"), None);
        assert_eq!(c("/r/agents/a/MEMORY.md.oryx-journal"), None);
        assert_eq!(c("/r/memory/MEMORY.md.oryx-journal"), None);
        assert_eq!(c("/d/oryxos.db-wal"), Some(Change::Database));
        assert_eq!(
            c("/r/agents/a/AGENT.md"),
            Some(Change::Agents(Some("a".into())))
        );
        assert_eq!(c("/r/USER.md"), Some(Change::Agents(None)));
        assert_eq!(c("/elsewhere/x"), None);
    }

    #[test]
    fn reports_a_memory_change_within_a_second() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join("agents/a")).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let _w = watch(&root, &root.join("oryxos.db"), move |c| {
            let _ = tx.send(c);
        })
        .unwrap();
        std::fs::write(root.join("agents/a/MEMORY.md"), "## 核心记忆\n").unwrap();
        let got = rx.recv_timeout(Duration::from_secs(3)).expect("an event");
        assert!(got.contains(&Change::Memory(Some("a".into()))));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_in_place_of_the_database_neither_hangs_nor_stops_the_watcher() {
        use crate::rooted_fs::test_support::{mkfifo, within_deadline};
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join("agents/a")).unwrap();
        let db = root.join("oryxos.db");
        mkfifo(&db);
        let (tx, rx) = std::sync::mpsc::channel();
        let (r, d) = (root.clone(), db.clone());
        let w = within_deadline(move || {
            watch(&r, &d, move |c| {
                let _ = tx.send(c);
            })
        })
        .unwrap();
        assert_eq!(w.db_probes(), 1);
        // Touching the FIFO's name is a database candidate: probed again, still not opened.
        std::fs::write(root.join("agents/a/MEMORY.md"), "## 核心记忆\n").unwrap();
        let got = rx.recv_timeout(Duration::from_secs(3)).expect("an event");
        assert!(got.contains(&Change::Memory(Some("a".into()))), "{got:?}");
    }

    #[test]
    fn an_absorbed_write_is_not_reported_again_but_the_next_one_is() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join("agents/a")).unwrap();
        std::fs::create_dir_all(root.join("agents/b")).unwrap();
        let file = root.join("agents/a/MEMORY.md");
        let (tx, rx) = std::sync::mpsc::channel();
        let w = watch(&root, &root.join("oryxos.db"), move |c| {
            let _ = tx.send(c);
        })
        .unwrap();
        std::fs::write(&file, "## 核心记忆\n").unwrap();
        w.absorb(Backend::Markdown, &Owner::Agent("a".into()));
        // Another agent's write right after shows the batch was delivered.
        std::fs::write(root.join("agents/b/MEMORY.md"), "## 核心记忆\n").unwrap();
        let mut seen = Vec::new();
        let deadline = std::time::Instant::now() + Duration::from_secs(3);
        while !seen.contains(&Change::Memory(Some("b".into()))) {
            let left = deadline
                .checked_duration_since(std::time::Instant::now())
                .expect("b's write reported");
            seen.extend(rx.recv_timeout(left).expect("an event"));
        }
        assert!(
            !seen.contains(&Change::Memory(Some("a".into()))),
            "{seen:?}"
        );
        std::fs::write(&file, "## 核心记忆\n- [2026-01-01 00:00:00] x\n").unwrap();
        let got = rx.recv_timeout(Duration::from_secs(3)).expect("an event");
        assert!(got.contains(&Change::Memory(Some("a".into()))), "{got:?}");
    }
}
