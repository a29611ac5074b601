//! History records holding a needle turned into tombstones (`Change::tombstone`): the same id,
//! time, operation, owner and sizes, no text. Every other record keeps its bytes. A record that
//! cannot be read (torn by a killed writer, or hand-edited) keeps its bytes but the needle's,
//! which become [`FORGOTTEN`].
//!
//! The file is rewritten whole and renamed over the old one under the lock its writers take:
//! `MEMORY.md.lock` for a MEMORY.md's history, the database's write lock for the database's
//! (its changes write their intent inside their transaction). A record appended meanwhile
//! anyway (a commit record written just after a transaction) is seen by the length check before
//! the rename, and the rewrite starts over.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{holds_any, json_forms, sync_dir, EntryText, FileDone};
use crate::error::{CoreError, DbContext, IoContext, Result};
use crate::forget::{Copies, Left, Needles, Place, FORGOTTEN};
use crate::memory::history::{history_path, record_ranges, Change, Record};
use crate::rooted_fs;

/// How often a rewrite starts over when the file grew under it.
const ATTEMPTS: usize = 5;

/// A history file and what guards its writers.
#[derive(Debug, Clone)]
pub enum Sidecar {
    /// Beside a MEMORY.md (the path given is the MEMORY.md's).
    BesideMemory(PathBuf),
    /// Beside the runtime's SQLite database (the path given is the database's).
    BesideDatabase(PathBuf),
    /// In the console's own data directory (mem0), the history file itself.
    Own(PathBuf),
}

impl Sidecar {
    pub fn path(&self) -> PathBuf {
        match self {
            Sidecar::BesideMemory(data) | Sidecar::BesideDatabase(data) => history_path(data),
            Sidecar::Own(p) => p.clone(),
        }
    }

    fn read(&self) -> Result<Option<Vec<u8>>> {
        let path = self.path();
        let file = match self {
            Sidecar::Own(_) => rooted_fs::open_read(&path)?,
            _ => rooted_fs::open_memory(&path, rooted_fs::Access::Read)?,
        };
        let Some(mut f) = file else { return Ok(None) };
        let mut text = Vec::new();
        std::io::Read::read_to_end(&mut f, &mut text).at(&path)?;
        Ok(Some(text))
    }
}

/// The history records of `owners` (`None`: all) that hold a needle: counted, and with
/// `write`, turned into tombstones forgotten at `at`.
pub(super) fn forget(
    sidecar: &Sidecar,
    needles: &Needles,
    owners: Option<&HashSet<String>>,
    at: i64,
    write: bool,
) -> Result<FileDone> {
    let path = sidecar.path();
    let mut done = FileDone::default();
    // Looked at without the lock first: a history without the text is never locked nor
    // written.
    let Some(text) = sidecar.read()? else {
        return Ok(done);
    };
    let forms = json_forms(needles);
    if !holds_any(&text, &forms) {
        return Ok(done);
    }
    if !write {
        let plan = plan(&text, needles, &forms, owners, at);
        done.entries = plan.entries;
        if plan.count > 0 {
            done.erased.erased.push(copies(&path, plan.count));
        }
        return Ok(done);
    }
    let _guard = Guard::take(sidecar)?;
    for _ in 0..ATTEMPTS {
        let Some(text) = sidecar.read()? else {
            return Ok(done);
        };
        let plan = plan(&text, needles, &forms, owners, at);
        if plan.count == 0 {
            return Ok(done);
        }
        if !replace_if_unchanged(sidecar, &path, text.len() as u64, &plan.text)? {
            continue;
        }
        done.entries = plan.entries;
        done.erased.erased.push(copies(&path, plan.count));
        if plan.kept_in_metadata > 0 {
            done.erased.left.push(Left {
                place: Place::History,
                path: path.clone(),
                count: plan.kept_in_metadata,
                reason: "the text is part of the records' own names (an id, an owner or an \
                         operation), which a tombstone keeps"
                    .into(),
                why: super::super::Why::InRecordNames,
                arg: None,
            });
        }
        return Ok(done);
    }
    Err(CoreError::Conflict(format!(
        "{} kept growing while it was being rewritten; nothing was changed, try again",
        path.display()
    )))
}

fn copies(path: &Path, count: usize) -> Copies {
    Copies::new(Place::History, path.to_path_buf(), count, None)
}

/// The file as it would be after the forget.
struct Plan {
    text: Vec<u8>,
    /// Records turned into tombstones or masked.
    count: usize,
    /// Tombstones that still hold a needle in what they keep.
    kept_in_metadata: usize,
    entries: Vec<EntryText>,
}

fn plan(
    text: &[u8],
    needles: &Needles,
    forms: &[Vec<u8>],
    owners: Option<&HashSet<String>>,
    at: i64,
) -> Plan {
    let mut out = Plan {
        text: Vec::with_capacity(text.len()),
        count: 0,
        kept_in_metadata: 0,
        entries: Vec::new(),
    };
    for (n, line) in text.split(|b| *b == b'\n').enumerate() {
        if n > 0 {
            out.text.push(b'\n');
        }
        if !holds_any(line, forms) {
            out.text.extend_from_slice(line);
            continue;
        }
        for range in record_ranges(line) {
            let piece = &line[range];
            if !holds_any(piece, forms) {
                out.text.extend_from_slice(piece);
                continue;
            }
            match serde_json::from_slice::<Record>(piece) {
                Ok(Record::Intent(change)) => {
                    if owners.is_some_and(|o| !o.contains(&change.owner)) {
                        out.text.extend_from_slice(piece);
                        continue;
                    }
                    out.entries.extend(entries_holding(&change, needles));
                    let stone = serde_json::to_vec(&Record::Intent(change.tombstone(at)))
                        .expect("history records serialise");
                    if holds_any(&stone, forms) {
                        out.kept_in_metadata += 1;
                    }
                    out.text.extend_from_slice(&stone);
                    out.count += 1;
                }
                // A commit or abort names an id only: its text is the id's.
                Ok(_) => out.text.extend_from_slice(piece),
                Err(_) => {
                    out.text.extend_from_slice(&mask(piece, forms));
                    out.count += 1;
                }
            }
        }
    }
    out
}

/// `bytes` with every form of every needle replaced by [`FORGOTTEN`] (longest first).
fn mask(bytes: &[u8], forms: &[Vec<u8>]) -> Vec<u8> {
    let mut order: Vec<&Vec<u8>> = forms.iter().collect();
    order.sort_by_key(|f| std::cmp::Reverse(f.len()));
    let mut out = bytes.to_vec();
    for f in order {
        let mut next = Vec::with_capacity(out.len());
        let mut from = 0;
        for at in memchr::memmem::find_iter(&out, f) {
            if at < from {
                continue;
            }
            next.extend_from_slice(&out[from..at]);
            next.extend_from_slice(FORGOTTEN.as_bytes());
            from = at + f.len();
        }
        next.extend_from_slice(&out[from..]);
        out = next;
    }
    out
}

/// The entries of a change whose text holds a needle, as review marks key them.
fn entries_holding(change: &Change, needles: &Needles) -> Vec<EntryText> {
    change
        .entries
        .iter()
        .flat_map(|d| [d.before.as_ref(), d.after.as_ref()])
        .flatten()
        .filter(|s| needles.in_text(&s.content) || needles.in_text(&s.line))
        .map(|s| EntryText {
            scope: s.scope,
            timestamp: s.time(),
            content: s.content.clone(),
        })
        .collect()
}

/// The lock a history's writers take, held while it is rewritten.
enum Guard {
    Memory(#[allow(dead_code)] crate::memory::markdown::FileLock),
    Database(rusqlite::Connection),
    None,
}

impl Guard {
    fn take(sidecar: &Sidecar) -> Result<Guard> {
        match sidecar {
            Sidecar::BesideMemory(memory) => {
                Ok(Guard::Memory(crate::memory::markdown::lock(memory)?))
            }
            Sidecar::BesideDatabase(db) => {
                let Some(conn) = crate::db::open_existing(db)? else {
                    return Ok(Guard::None);
                };
                conn.busy_timeout(std::time::Duration::from_secs(5))
                    .at_db(db)?;
                conn.execute_batch("BEGIN IMMEDIATE").at_db(db)?;
                Ok(Guard::Database(conn))
            }
            Sidecar::Own(_) => Ok(Guard::None),
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Guard::Database(conn) = self {
            let _ = conn.execute_batch("ROLLBACK");
        }
    }
}

/// Renames `bytes` over the history when it is still `len` bytes long; `false` when it grew.
fn replace_if_unchanged(sidecar: &Sidecar, path: &Path, len: u64, bytes: &[u8]) -> Result<bool> {
    let unchanged = || std::fs::symlink_metadata(path).is_ok_and(|m| m.len() == len);
    match sidecar {
        Sidecar::Own(_) => {
            if !unchanged() {
                return Ok(false);
            }
            super::replace_own_file(path, bytes)?;
            Ok(true)
        }
        _ => {
            let Some((dir, name)) = rooted_fs::memory_dir(path, false)? else {
                return Ok(false);
            };
            let done = dir.replace(name, bytes, unchanged)?;
            if done {
                sync_dir(dir.path());
            }
            Ok(done)
        }
    }
}
