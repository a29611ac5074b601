//! The console's SQLite files in its data directory: the vector file of a root or database
//! (`vectors-<hash>.db`: memory rows keyed by the entry's stored line, episodic rows keyed by a
//! session id and message number) and its index of a runtime database (`<hash>.db`: a copy of
//! `memory_entries` with a trigram full-text index). Rows holding a needle are deleted with
//! `secure_delete`, the WAL emptied, and the file searched for the needle's bytes: stale copies
//! left in free space are compacted away (`runtime::erase::leftovers`, the runtime database's
//! own approach).

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection};

use super::{ConsoleFiles, EntryText, FileDone};
use crate::error::{DbContext, Result};
use crate::forget::Why;
use crate::forget::{Copies, Left, Needles, Place};
use crate::memory::format::parse_entry;
use crate::memory::Scope;
use crate::runtime::erase::{leftovers, Leftover};

/// One of the console's SQLite files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ConsoleDb {
    Vectors(PathBuf),
    EntriesIndex(PathBuf),
}

impl ConsoleDb {
    pub fn path(&self) -> &Path {
        match self {
            ConsoleDb::Vectors(p) | ConsoleDb::EntriesIndex(p) => p,
        }
    }
}

/// The console's SQLite files of the root and database in `dir`.
pub(super) fn files(files: &ConsoleFiles, dir: &Path) -> Vec<ConsoleDb> {
    let mut out = vec![ConsoleDb::Vectors(crate::embed::store_path(
        dir,
        &files.root,
    ))];
    if let Some(db) = &files.db {
        let v = ConsoleDb::Vectors(crate::embed::store_path(dir, db));
        if !out.contains(&v) {
            out.push(v);
        }
        let store = crate::memory::SqliteMemoryStore::with_index_dir(db, Some(dir.to_path_buf()));
        if let Some(p) = store.index_file() {
            out.push(ConsoleDb::EntriesIndex(p));
        }
    }
    out
}

/// A row to delete: its table's key and what it held.
struct Row {
    owner: String,
    key: String,
    episodic: bool,
}

/// Rows of `db` holding a needle counted and, with `write`, deleted and the file compacted.
pub(super) fn forget(
    db: &ConsoleDb,
    files: &ConsoleFiles,
    needles: &Needles,
    write: bool,
) -> Result<FileDone> {
    let path = db.path();
    let mut done = FileDone::default();
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(done);
    };
    if !meta.is_file() {
        return Ok(done);
    }
    let Some(conn) = crate::db::open_existing(path)? else {
        return Ok(done);
    };
    let rows = match db {
        ConsoleDb::Vectors(_) => vector_rows(&conn, path, files, needles)?,
        ConsoleDb::EntriesIndex(_) => index_rows(&conn, path, files, needles)?,
    };
    let stale = in_file(path, needles);
    if rows.is_empty() && !stale {
        return Ok(done);
    }
    for r in rows.iter().filter(|r| !r.episodic) {
        if let Some(e) = entry_of(db, r) {
            done.entries.push(e);
        }
    }
    let (memory, episodic) = (
        rows.iter().filter(|r| !r.episodic).count(),
        rows.iter().filter(|r| r.episodic).count(),
    );
    let what = match db {
        ConsoleDb::Vectors(_) => "vectors",
        ConsoleDb::EntriesIndex(_) => "entries_index",
    };
    let mut found = Vec::new();
    if memory > 0 {
        found.push(copies(path, memory, what));
    }
    if episodic > 0 {
        found.push(copies(path, episodic, "episodic_vectors"));
    }
    if rows.is_empty() {
        found.push(Copies::new(
            Place::DatabaseFreeSpace,
            path.to_path_buf(),
            1,
            Some("free_space".into()),
        ));
    }
    if !write {
        done.erased.erased = found;
        return Ok(done);
    }
    delete(&conn, path, db, &rows)?;
    crate::runtime::vector_index::scrub_wal(&conn, path)?;
    let texts = needles.texts().to_vec();
    let left = match leftovers(&conn, path, &texts)? {
        Leftover::None | Leftover::Compacted => None,
        Leftover::InRecords(tables) => Some((
            Why::StillFound,
            format!(
                "rows of other owners in {} still hold the text",
                tables.join(", ")
            ),
        )),
        Leftover::NotCompacted(why) => Some((
            Why::NotCompacted,
            format!(
                "the console's file could not be compacted ({why}); stale copies may stay in its \
             free space"
            ),
        )),
    };
    done.erased.erased = found;
    if let Some((why, reason)) = left {
        done.erased.left.push(Left {
            place: Place::ConsoleIndex,
            path: path.to_path_buf(),
            count: 1,
            reason,
            why,
            arg: None,
        });
    }
    Ok(done)
}

fn copies(path: &Path, count: usize, what: &str) -> Copies {
    Copies::new(
        Place::ConsoleIndex,
        path.to_path_buf(),
        count,
        Some(what.into()),
    )
}

/// Whether the file or its WAL holds a needle's bytes anywhere (a live row or free space).
fn in_file(path: &Path, needles: &Needles) -> bool {
    let mut wal = path.as_os_str().to_os_string();
    wal.push("-wal");
    [path.to_path_buf(), PathBuf::from(wal)].iter().any(|p| {
        std::fs::read(p).is_ok_and(|bytes| {
            needles
                .texts()
                .iter()
                .any(|t| memchr::memmem::find(&bytes, t.as_bytes()).is_some())
        })
    })
}

/// The vector file's memory rows whose key (the stored line) holds a needle, and the episodic
/// rows of messages whose text holds one.
fn vector_rows(
    conn: &Connection,
    path: &Path,
    files: &ConsoleFiles,
    needles: &Needles,
) -> Result<Vec<Row>> {
    if crate::db::table_columns(conn, "vectors")
        .at_db(path)?
        .is_empty()
    {
        return Ok(Vec::new());
    }
    let owners = files.owner_keys();
    let mut rows = Vec::new();
    let mut episodic_owners = Vec::new();
    {
        let mut stmt = conn.prepare("SELECT owner, key FROM vectors").at_db(path)?;
        let all = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .at_db(path)?;
        for row in all {
            let (owner, key) = row.at_db(path)?;
            if let Some(agent) = owner.strip_prefix(crate::episodic::OWNER_PREFIX) {
                if !episodic_owners.iter().any(|a: &String| a == agent) {
                    episodic_owners.push(agent.to_string());
                }
                continue;
            }
            if owners.as_ref().is_some_and(|o| !o.contains(&owner)) {
                continue;
            }
            if needles.in_text(&key) {
                rows.push(Row {
                    owner,
                    key,
                    episodic: false,
                });
            }
        }
    }
    let Some(db) = &files.db else {
        return Ok(rows);
    };
    let agents: Vec<String> = match &files.owners {
        Some(o) => o
            .iter()
            .filter_map(|w| w.agent_name().map(str::to_string))
            .filter(|a| episodic_owners.contains(a))
            .collect(),
        None => episodic_owners,
    };
    let sessions = crate::sessions::SessionStore::new(db);
    for agent in agents {
        for f in crate::episodic::fragments(&sessions, &agent)? {
            if needles.in_text(&f.text) {
                rows.push(Row {
                    owner: crate::episodic::owner_key(&agent),
                    key: crate::episodic::fragment_key(&f.session_id, f.message_index),
                    episodic: true,
                });
            }
        }
    }
    Ok(rows)
}

/// The index's copies of rows whose content holds a needle.
fn index_rows(
    conn: &Connection,
    path: &Path,
    files: &ConsoleFiles,
    needles: &Needles,
) -> Result<Vec<Row>> {
    if crate::db::table_columns(conn, "entries")
        .at_db(path)?
        .is_empty()
    {
        return Ok(Vec::new());
    }
    let owners = files.owner_keys();
    let mut stmt = conn
        .prepare(
            "SELECT id, CAST(agent_name AS TEXT) FROM entries WHERE instr(CAST(content AS BLOB), CAST(?1 AS BLOB)) > 0",
        )
        .at_db(path)?;
    let mut rows: Vec<Row> = Vec::new();
    for t in needles.texts() {
        let hits = stmt
            .query_map([t], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                ))
            })
            .at_db(path)?;
        for h in hits {
            let (id, owner) = h.at_db(path)?;
            if owners.as_ref().is_some_and(|o| !o.contains(&owner)) {
                continue;
            }
            let key = id.to_string();
            if rows.iter().any(|r| r.key == key) {
                continue;
            }
            rows.push(Row {
                owner,
                key,
                episodic: false,
            });
        }
    }
    Ok(rows)
}

/// The entry a row names, for its review marks (an index row's time is the runtime's, not
/// known here: the memory part names those entries).
fn entry_of(db: &ConsoleDb, r: &Row) -> Option<EntryText> {
    match db {
        ConsoleDb::Vectors(_) => {
            let (tag, line) = r.key.split_once(':')?;
            let scope = match tag {
                "c" => Scope::Core,
                "a" => Scope::Archival,
                _ => return None,
            };
            let e = parse_entry(line);
            Some(EntryText {
                scope,
                timestamp: e.timestamp,
                content: e.content,
            })
        }
        ConsoleDb::EntriesIndex(_) => None,
    }
}

/// Deletes the rows in one transaction, zeroing what they freed.
fn delete(conn: &Connection, path: &Path, db: &ConsoleDb, rows: &[Row]) -> Result<()> {
    conn.execute_batch("PRAGMA secure_delete = ON")
        .at_db(path)?;
    if rows.is_empty() {
        return Ok(());
    }
    let tx = conn.unchecked_transaction().at_db(path)?;
    match db {
        ConsoleDb::Vectors(_) => {
            let mut stmt = tx
                .prepare("DELETE FROM vectors WHERE owner = ?1 AND key = ?2")
                .at_db(path)?;
            for r in rows {
                stmt.execute(params![r.owner, r.key]).at_db(path)?;
            }
        }
        ConsoleDb::EntriesIndex(_) => {
            for r in rows {
                let id: i64 = r.key.parse().unwrap_or(-1);
                // The full-text index keeps its own copy of the terms: deleted with the row's
                // old content, then merged so no segment keeps them.
                tx.execute(
                    "INSERT INTO entries_fts (entries_fts, rowid, content) \
                     SELECT 'delete', id, content FROM entries WHERE id = ?1",
                    [id],
                )
                .at_db(path)?;
                tx.execute("DELETE FROM entries WHERE id = ?1", [id])
                    .at_db(path)?;
            }
            tx.execute_batch("INSERT INTO entries_fts (entries_fts) VALUES ('optimize')")
                .at_db(path)?;
        }
    }
    tx.commit().at_db(path)?;
    Ok(())
}
