//! Live refresh: watches the root and the database and reports which views changed, debounced,
//! so hosts can tell the UI (a Tauri event, a server-sent event) within a second.
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

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use notify_debouncer_full::notify::event::{EventKind, ModifyKind};
use notify_debouncer_full::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{new_debouncer, DebounceEventResult, Debouncer, RecommendedCache};
use rusqlite::{Connection, OpenFlags};
use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult, ErrorCode};

#[cfg(feature = "specta")]
use specta::Type;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// A MEMORY.md (agent = its agent, `None` = global or several).
    Memory,
    /// An AGENT.md, a skill or a bootstrap file.
    Agents,
    /// The database (sessions, tool invocations, sqlite memory).
    Sessions,
    Settings,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ChangeEvent {
    pub kind: ChangeKind,
    pub agent: Option<String>,
}

pub const DEBOUNCE: Duration = Duration::from_millis(250);

/// Keeps watching for as long as it lives.
pub struct Watcher {
    _debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    probes: Arc<AtomicUsize>,
}

impl Watcher {
    /// How many times the database was fingerprinted (once at the start, then once per batch of
    /// database events): lets tests check that the probe does not trigger itself.
    #[doc(hidden)]
    pub fn db_probes(&self) -> usize {
        self.probes.load(Ordering::Relaxed)
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

/// Maps one changed path to the view it affects; `None` for files nobody shows (locks, temp files).
pub fn classify(root: &Path, db: &Path, path: &Path) -> Option<ChangeEvent> {
    let name = path.file_name()?.to_string_lossy();
    if name.ends_with(".lock") || name.ends_with(".tmp") {
        return None;
    }
    let db_name = db.file_name()?.to_string_lossy();
    if path.parent() == db.parent() && name.starts_with(db_name.as_ref()) {
        return Some(ChangeEvent {
            kind: ChangeKind::Sessions,
            agent: None,
        });
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
        ["agents", agent, "MEMORY.md"] => Some(ChangeEvent {
            kind: ChangeKind::Memory,
            agent: Some(agent.to_string()),
        }),
        ["memory", "MEMORY.md"] => Some(ChangeEvent {
            kind: ChangeKind::Memory,
            agent: None,
        }),
        ["agents", ..] | ["skills", ..] => Some(ChangeEvent {
            kind: ChangeKind::Agents,
            agent: parts.get(1).filter(|_| parts[0] == "agents").cloned(),
        }),
        [file] if file.ends_with(".md") => Some(ChangeEvent {
            kind: ChangeKind::Agents,
            agent: None,
        }),
        _ => None,
    }
}

/// Starts watching `root` (recursively) and the database's folder. Missing folders are skipped:
/// a root without a database still refreshes its memory views.
pub fn watch(
    root: &Path,
    db: &Path,
    on_change: impl Fn(Vec<ChangeEvent>) + Send + 'static,
) -> ApiResult<Watcher> {
    let (root_c, db_c) = (root.to_path_buf(), db.to_path_buf());
    let probes = Arc::new(AtomicUsize::new(0));
    let mut probe = DbProbe::new(db.to_path_buf(), probes.clone());
    // The baseline, before watching: opening the held connection creates `-wal`/`-shm`.
    probe.changed();
    let mut debouncer = new_debouncer(DEBOUNCE, None, move |res: DebounceEventResult| {
        let Ok(events) = res else { return };
        let mut changes: Vec<ChangeEvent> = Vec::new();
        let mut add = |c: ChangeEvent| {
            if !changes.contains(&c) {
                changes.push(c);
            }
        };
        let mut db_touched = false;
        for e in events.iter() {
            if e.need_rescan() {
                // Events were lost: anything may have changed.
                add(ChangeEvent {
                    kind: ChangeKind::Memory,
                    agent: None,
                });
                add(ChangeEvent {
                    kind: ChangeKind::Agents,
                    agent: None,
                });
                db_touched = true;
                continue;
            }
            if !is_write(&e.kind) {
                continue;
            }
            for path in &e.paths {
                match classify(&root_c, &db_c, path) {
                    Some(ChangeEvent {
                        kind: ChangeKind::Sessions,
                        ..
                    }) => db_touched = true,
                    Some(c) => add(c),
                    None => {}
                }
            }
        }
        if db_touched && probe.changed() {
            add(ChangeEvent {
                kind: ChangeKind::Sessions,
                agent: None,
            });
        }
        if !changes.is_empty() {
            on_change(changes);
        }
    })
    .map_err(watch_err)?;
    if root.is_dir() {
        debouncer
            .watch(root, RecursiveMode::Recursive)
            .map_err(watch_err)?;
    }
    let db_dir: PathBuf = db.parent().map(Path::to_path_buf).unwrap_or_default();
    if db_dir.is_dir() && !db_dir.starts_with(root) {
        debouncer
            .watch(&db_dir, RecursiveMode::NonRecursive)
            .map_err(watch_err)?;
    }
    Ok(Watcher {
        _debouncer: debouncer,
        probes,
    })
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
    /// Not readable now (not SQLite, locked past the timeout, …).
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
    probes: Arc<AtomicUsize>,
}

impl DbProbe {
    fn new(db: PathBuf, probes: Arc<AtomicUsize>) -> DbProbe {
        DbProbe {
            db,
            held: None,
            generation: 0,
            last: None,
            probes,
        }
    }

    /// Takes a fingerprint; whether it differs from the previous one (the first never does).
    fn changed(&mut self) -> bool {
        self.probes.fetch_add(1, Ordering::Relaxed);
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
        let identity = match std::fs::metadata(&self.db) {
            Ok(meta) if meta.is_file() => file_identity(&meta),
            Ok(_) => {
                self.held = None;
                return Fingerprint::Unreadable;
            }
            Err(_) => {
                self.held = None;
                return empty;
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

impl crate::Console {
    /// Watches the root and database of the settings in effect now (hosts call it again after
    /// a settings change).
    pub fn watch_current(
        &self,
        on_change: impl Fn(Vec<ChangeEvent>) + Send + 'static,
    ) -> ApiResult<Watcher> {
        let rt = self.runtime();
        watch(&rt.effective.root, &rt.effective.db_path, on_change)
    }
}

fn watch_err(e: notify_debouncer_full::notify::Error) -> ApiError {
    ApiError::new(ErrorCode::Io, format!("cannot watch for changes: {e}"))
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
            Some(ChangeEvent {
                kind: ChangeKind::Memory,
                agent: Some("a".into())
            })
        );
        assert_eq!(
            c("/r/memory/MEMORY.md"),
            Some(ChangeEvent {
                kind: ChangeKind::Memory,
                agent: None
            })
        );
        assert_eq!(c("/r/agents/a/MEMORY.md.lock"), None);
        assert_eq!(c("/r/agents/a/.MEMORY.md.x1.tmp"), None);
        assert_eq!(
            c("/d/oryxos.db-wal").map(|e| e.kind),
            Some(ChangeKind::Sessions)
        );
        assert_eq!(
            c("/r/agents/a/AGENT.md").map(|e| e.kind),
            Some(ChangeKind::Agents)
        );
        assert_eq!(c("/r/USER.md").map(|e| e.kind), Some(ChangeKind::Agents));
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
        assert!(got.contains(&ChangeEvent {
            kind: ChangeKind::Memory,
            agent: Some("a".into())
        }));
    }
}
