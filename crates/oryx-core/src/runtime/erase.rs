//! Deleted text out of the runtime's database file. `secure_delete` zeroes the cells a delete
//! frees, but not the stale copies B-tree balancing left behind in other pages' free space when
//! rows were inserted (by the runtime or the console) — measured: a row added, 171 more
//! inserted, the row deleted with `secure_delete` and the WAL truncated, and its text was still
//! in the gap of the page that had been its leaf. So after a delete the file is searched for the
//! texts; a text no live row holds is compacted away with `VACUUM` (which rebuilds every page
//! from live rows), and a text some other record still holds (a session, a tool call) is named.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

use rusqlite::Connection;

use crate::db;
use crate::error::{CoreError, DbContext, Result};

/// How long `VACUUM` waits for the runtime's writes: its own `busy_timeout` is 5 s, so a
/// compaction of a typical database (200 MB in about a second here) never fails its writes.
const VACUUM_WAIT: Duration = Duration::from_secs(5);

/// What remains on disk of the deleted texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Leftover {
    /// No byte of them in the database file or its WAL.
    None,
    /// Stale copies were found and compacted away: none left.
    Compacted,
    /// Live rows of these tables still hold some of the texts (not the console's to remove).
    InRecords(Vec<String>),
    /// The file could not be compacted; stale copies may stay in its free space until the
    /// runtime's database is compacted.
    NotCompacted(String),
}

impl Leftover {
    pub fn warning(&self) -> Option<String> {
        match self {
            Leftover::None | Leftover::Compacted => None,
            Leftover::InRecords(tables) => Some(format!(
                "the deleted text is still in the runtime's database, in rows of {} \
                 (its sessions and tool calls keep what was said)",
                tables.join(", ")
            )),
            Leftover::NotCompacted(why) => Some(format!(
                "the deleted text may stay in the runtime database's free space: \
                 it could not be compacted ({why})"
            )),
        }
    }
}

/// After `texts` were deleted from `conn`'s database and its WAL was checkpointed: finds any
/// copy left in the files and removes the stale ones.
pub fn leftovers(conn: &Connection, db_path: &Path, texts: &[String]) -> Result<Leftover> {
    let texts: Vec<&str> = texts
        .iter()
        .map(String::as_str)
        .filter(|t| !t.is_empty())
        .collect();
    if texts.is_empty() {
        return Ok(Leftover::None);
    }
    let found = in_files(db_path, &texts)?;
    if found.is_empty() {
        return Ok(Leftover::None);
    }
    let holders = live_holders(conn, db_path, &found)?;
    let stale = found
        .iter()
        .any(|t| !holders.iter().any(|(_, held)| held.contains(t)));
    if stale {
        if let Err(e) = compact(conn, db_path) {
            return Ok(Leftover::NotCompacted(e.to_string()));
        }
    }
    if holders.is_empty() {
        let again = in_files(db_path, &texts)?;
        if !again.is_empty() {
            return Ok(Leftover::NotCompacted(
                "copies remain after the compaction".into(),
            ));
        }
        return Ok(Leftover::Compacted);
    }
    let mut tables: Vec<String> = holders.into_iter().map(|(t, _)| t).collect();
    tables.sort();
    Ok(Leftover::InRecords(tables))
}

/// The texts whose UTF-8 bytes occur in the database file or its WAL.
pub(crate) fn in_files<'t>(db_path: &Path, texts: &[&'t str]) -> Result<Vec<&'t str>> {
    let mut found = in_file(db_path, texts)?;
    for t in in_file(&wal_path(db_path), texts)? {
        if !found.contains(&t) {
            found.push(t);
        }
    }
    Ok(texts
        .iter()
        .filter(|t| found.contains(t))
        .copied()
        .collect())
}

/// The WAL file next to a database.
pub(crate) fn wal_path(db_path: &Path) -> std::path::PathBuf {
    db_path.with_file_name(format!(
        "{}-wal",
        db_path.file_name().unwrap_or_default().to_string_lossy()
    ))
}

/// The texts whose UTF-8 bytes occur in one file (none when it is missing): one pass in large
/// chunks, each text searched with `memmem` (a few texts over a file of hundreds of megabytes:
/// SIMD substring search per text beats one automaton fed byte by byte). Chunks overlap by the
/// longest text, so a match across a boundary is found.
pub(crate) fn in_file<'t>(path: &Path, texts: &[&'t str]) -> Result<Vec<&'t str>> {
    const CHUNK: usize = 8 << 20;
    let Ok(mut file) = File::open(path) else {
        return Ok(Vec::new());
    };
    let finders: Vec<memchr::memmem::Finder<'_>> = texts
        .iter()
        .map(|t| memchr::memmem::Finder::new(t.as_bytes()))
        .collect();
    let keep = texts
        .iter()
        .map(|t| t.len())
        .max()
        .unwrap_or(0)
        .saturating_sub(1);
    let mut seen = vec![false; texts.len()];
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK + keep);
    loop {
        let start = buf.len();
        buf.resize(start + CHUNK, 0);
        let n = file
            .read(&mut buf[start..])
            .map_err(|e| CoreError::io(path, e))?;
        buf.truncate(start + n);
        for (i, f) in finders.iter().enumerate() {
            if !seen[i] && f.find(&buf).is_some() {
                seen[i] = true;
            }
        }
        if n == 0 || seen.iter().all(|s| *s) {
            break;
        }
        let tail = buf.len().saturating_sub(keep);
        buf.drain(..tail);
    }
    Ok(texts
        .iter()
        .zip(seen)
        .filter(|(_, s)| *s)
        .map(|(t, _)| *t)
        .collect())
}

/// Each table with a live row holding one of `texts` in a text column, with those texts.
pub(crate) fn live_holders<'t>(
    conn: &Connection,
    db_path: &Path,
    texts: &[&'t str],
) -> Result<Vec<(String, Vec<&'t str>)>> {
    let mut tables: Vec<String> = Vec::new();
    {
        let mut stmt = conn
            .prepare(
                "SELECT name FROM sqlite_schema WHERE type = 'table' \
                 AND name NOT LIKE 'sqlite_%' ORDER BY name",
            )
            .at_db(db_path)?;
        let rows = stmt.query_map([], |r| r.get(0)).at_db(db_path)?;
        for r in rows {
            tables.push(r.at_db(db_path)?);
        }
    }
    let mut out = Vec::new();
    for table in tables {
        let columns = db::table_columns(conn, &table).at_db(db_path)?;
        if columns.is_empty() {
            continue;
        }
        // Any column: a JSON or BLOB column holds text as well.
        let test = columns
            .iter()
            .map(|c| {
                format!(
                    "instr(CAST(\"{}\" AS BLOB), CAST(?1 AS BLOB)) > 0",
                    c.replace('"', "\"\"")
                )
            })
            .collect::<Vec<_>>()
            .join(" OR ");
        let sql = format!(
            "SELECT EXISTS (SELECT 1 FROM \"{}\" WHERE {test})",
            table.replace('"', "\"\"")
        );
        let mut stmt = conn.prepare(&sql).at_db(db_path)?;
        let mut held = Vec::new();
        for t in texts {
            let hit: bool = stmt.query_row([t], |r| r.get(0)).at_db(db_path)?;
            if hit {
                held.push(*t);
            }
        }
        if !held.is_empty() {
            out.push((table, held));
        }
    }
    Ok(out)
}

/// `VACUUM`, then the WAL it wrote checkpointed and truncated.
pub(crate) fn compact(conn: &Connection, db_path: &Path) -> Result<()> {
    conn.busy_timeout(VACUUM_WAIT).at_db(db_path)?;
    let done = conn.execute_batch("VACUUM").at_db(db_path);
    let _ = conn.busy_timeout(Duration::from_secs(5));
    done?;
    match super::vector_index::scrub_wal(conn, db_path)? {
        super::vector_index::Checkpoint::Partial { .. } => Err(CoreError::InvalidInput(
            "the runtime was reading its database; its WAL could not be emptied".into(),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(dir: &Path) -> (Connection, std::path::PathBuf) {
        let path = dir.join("oryxos.db");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             CREATE TABLE t (id INTEGER PRIMARY KEY, content TEXT NOT NULL);
             CREATE TABLE calls (id INTEGER PRIMARY KEY, input_json TEXT);",
        )
        .unwrap();
        (conn, path)
    }

    /// The secret deleted with secure_delete after other rows were inserted, WAL truncated.
    fn planted(conn: &Connection, secret: &str) {
        conn.execute("INSERT INTO t (content) VALUES (?1)", [secret])
            .unwrap();
        for i in 0..300 {
            conn.execute(
                "INSERT INTO t (content) VALUES (?1)",
                [format!("filler row {i} {}", "x".repeat(100))],
            )
            .unwrap();
        }
        conn.execute_batch("PRAGMA secure_delete = ON").unwrap();
        conn.execute("DELETE FROM t WHERE content = ?1", [secret])
            .unwrap();
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
    }

    #[test]
    fn a_text_other_records_hold_is_named_not_compacted() {
        let dir = tempfile::tempdir().unwrap();
        let (conn, path) = table(dir.path());
        let secret = format!("sk-live-held-by-a-tool-call {}", "v".repeat(300));
        conn.execute(
            "INSERT INTO calls (input_json) VALUES (?1)",
            [format!("{{\"content\":\"{secret}\"}}")],
        )
        .unwrap();
        planted(&conn, &secret);
        let left = leftovers(&conn, &path, std::slice::from_ref(&secret)).unwrap();
        assert_eq!(left, Leftover::InRecords(vec!["calls".into()]));
        assert!(left.warning().unwrap().contains("calls"));
        // No compaction for a text a live record keeps anyway; the record is left as it is.
        let n: i64 = conn
            .query_row("SELECT count(*) FROM calls", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
    }
}
