//! The copies of a text in the console's own files (never the memory entries themselves, nor
//! the runtime's rows):
//!
//! | file | format | text it holds |
//! |---|---|---|
//! | `MEMORY.md.oryx-history` beside each MEMORY.md | JSON lines (intent, commit, abort) | each change's entries before and after, its byte splices |
//! | `oryxos.db.oryx-history` beside the SQLite database | the same | the same (rows' contents) |
//! | `<index dir>/mem0-<hash>.oryx-history` | the same | the same (mem0 memories) |
//! | `MEMORY.md.oryx-journal` beside each MEMORY.md | JSON lines (write, removed, restored, dropped) | lines the console wrote or took out |
//! | `<index dir>/vectors-<hash>.db` (one per root or database) | SQLite, `vectors(owner, key, …)` | `key` is `c:`/`a:` and the entry's stored line; episodic rows (`episodic:<agent>`) keep a session id and message number and the message's vector |
//! | `<index dir>/<hash>.db` (SQLite backend) | SQLite, `entries` and its trigram FTS | a copy of every `memory_entries` row |
//! | `<index dir>/review/<hash>.json`, `<index dir>/dismissed/<hash>.json` | JSON, sorted `u64` keys | hashes of scope, time and content (no text) |
//!
//! History records holding a text become tombstones (see `history::Change::tombstone`);
//! journal records holding it are removed (so the journal can never put the line back); rows of
//! the console's SQLite files are deleted with `secure_delete` and the files compacted until no
//! byte of the text is left; review marks and dismissals of the forgotten entries are removed.
//! Every sidecar and mark file is rewritten whole beside itself and renamed into place.
//!
//! Order, for whoever runs the places together: erase the memory entries first (the console's
//! index of a database copies rows again until they are gone), then these files, then the
//! runtime's sessions (an episodic vector is found through the text of its message).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::NaiveDateTime;

use super::{Copies, Erased, Left, Needles, Place, Why};
use crate::error::{IoContext, Result};
use crate::memory::Scope;
use crate::names::{self, Owner};

#[path = "console_db.rs"]
mod console_db;
#[path = "history_tombstones.rs"]
mod history_tombstones;
#[path = "journal_records.rs"]
mod journal_records;
#[path = "recall_check_questions.rs"]
mod recall_check_questions;
#[path = "review_marks.rs"]
mod review_marks;

/// The console's files of one root (and its database) for a set of owners.
#[derive(Debug, Clone, Default)]
pub struct ConsoleFiles {
    /// The `.oryxos` root: each owner's `MEMORY.md` sidecars, and the vector file kept for it.
    pub root: PathBuf,
    /// The runtime's SQLite database (`Effective::db_path`), when there is one: its history
    /// sidecar, the console's index of it and the vector file kept for it, and the sessions
    /// whose fragments the episodic index holds.
    pub db: Option<PathBuf>,
    /// The console's data directory (`index_dir_beside(settings)`): vector files, the index of
    /// the database, mem0 histories, review marks and dismissals. `None`: none of them.
    pub index_dir: Option<PathBuf>,
    /// The owners whose copies are looked for; `None`: the global memory and every agent
    /// under the root.
    pub owners: Option<Vec<Owner>>,
    /// Entries being forgotten as the memory part found them: their review marks and
    /// dismissals go too (the entries found here through the needles are added).
    pub entries: Vec<EntryText>,
}

/// An entry as review marks key it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EntryText {
    pub scope: Scope,
    pub timestamp: Option<NaiveDateTime>,
    pub content: String,
}

impl ConsoleFiles {
    /// The console's files for the settings in effect.
    pub fn of(
        e: &crate::config::Effective,
        index_dir: &Path,
        owners: Option<Vec<Owner>>,
    ) -> ConsoleFiles {
        ConsoleFiles {
            root: e.root.clone(),
            db: Some(e.db_path.clone()),
            index_dir: Some(index_dir.to_path_buf()),
            owners,
            entries: Vec::new(),
        }
    }

    /// The owners looked at: those named, or the global memory and every agent directory.
    pub(super) fn owners(&self) -> Vec<Owner> {
        if let Some(o) = &self.owners {
            return o.clone();
        }
        let mut out = vec![Owner::Global];
        if let Ok(dir) = std::fs::read_dir(names::agents_dir(&self.root)) {
            let mut agents: Vec<String> = dir
                .flatten()
                .filter(|d| d.file_type().is_ok_and(|t| t.is_dir()))
                .filter_map(|d| d.file_name().into_string().ok())
                .filter(|n| names::is_valid_agent_name(n))
                .collect();
            agents.sort();
            out.extend(agents.into_iter().map(Owner::Agent));
        }
        out
    }

    /// `memory_entries.agent_name` of each owner looked at (`None`: every owner).
    pub(super) fn owner_keys(&self) -> Option<HashSet<String>> {
        self.owners
            .as_ref()
            .map(|o| o.iter().map(|w| w.db_key().to_string()).collect())
    }

    fn memory_files(&self) -> Vec<PathBuf> {
        self.owners()
            .iter()
            .map(|o| names::memory_path(&self.root, o))
            .collect()
    }

    /// Every history sidecar that may hold the owners' changes, with how it is locked.
    pub(super) fn histories(&self) -> Vec<history_tombstones::Sidecar> {
        use history_tombstones::Sidecar;
        let mut out: Vec<Sidecar> = self
            .memory_files()
            .into_iter()
            .map(Sidecar::BesideMemory)
            .collect();
        if let Some(db) = &self.db {
            out.push(Sidecar::BesideDatabase(db.clone()));
        }
        if let Some(dir) = &self.index_dir {
            if let Ok(list) = std::fs::read_dir(dir) {
                let mut own: Vec<PathBuf> = list
                    .flatten()
                    .map(|d| d.path())
                    .filter(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with("mem0-") && n.ends_with(".oryx-history"))
                    })
                    .collect();
                own.sort();
                out.extend(own.into_iter().map(Sidecar::Own));
            }
        }
        out
    }
}

/// Every copy of a needle in the console's files (reads only).
pub fn find(files: &ConsoleFiles, needles: &Needles) -> Result<Vec<Copies>> {
    Ok(run(files, needles, None)?.erased)
}

/// Erases every copy [`find`] lists: history records become tombstones, journal records and
/// index rows go, the SQLite files are compacted, review marks of the entries go. Stopped by
/// `cancel` between files: what was not reached is listed as left. What is changed is only
/// what holds a needle; a needle found nowhere changes nothing.
pub fn erase(files: &ConsoleFiles, needles: &Needles, cancel: &AtomicBool) -> Result<Erased> {
    run(files, needles, Some(cancel))
}

/// One pass over the files: finds (`cancel` is `None`) or erases.
fn run(files: &ConsoleFiles, needles: &Needles, cancel: Option<&AtomicBool>) -> Result<Erased> {
    let mut out = Erased::default();
    if needles.is_empty() {
        return Ok(out);
    }
    let at = crate::timefmt::now_epoch_ms();
    let owners = files.owner_keys();
    let mut entries: Vec<EntryText> = files.entries.clone();
    let stopped = |place: Place, path: &Path, out: &mut Erased| -> bool {
        let Some(c) = cancel else { return false };
        if !c.load(Ordering::Relaxed) {
            return false;
        }
        out.left.push(Left {
            place,
            path: path.to_path_buf(),
            count: 0,
            reason: "cancelled before it was reached".into(),
            why: Why::Cancelled,
            arg: None,
        });
        true
    };
    let write = cancel.is_some();

    for sidecar in files.histories() {
        if stopped(Place::History, sidecar.path().as_path(), &mut out) {
            continue;
        }
        let done = history_tombstones::forget(&sidecar, needles, owners.as_ref(), at, write)?;
        entries.extend(done.entries);
        out.merge(done.erased);
    }
    for memory in files.memory_files() {
        let path = crate::memory::journal::journal_path(&memory);
        if stopped(Place::Journal, &path, &mut out) {
            continue;
        }
        let done = journal_records::forget(&memory, needles, write)?;
        entries.extend(done.entries);
        out.merge(done.erased);
    }
    if let Some(dir) = &files.index_dir {
        for db in console_db::files(files, dir) {
            if stopped(Place::ConsoleIndex, db.path(), &mut out) {
                continue;
            }
            let done = console_db::forget(&db, files, needles, write)?;
            entries.extend(done.entries);
            out.merge(done.erased);
        }
        entries.sort_by(|a, b| {
            (a.scope.as_str(), a.timestamp, &a.content).cmp(&(
                b.scope.as_str(),
                b.timestamp,
                &b.content,
            ))
        });
        entries.dedup();
        for kind in review_marks::Kind::ALL {
            let folder = kind.dir(dir);
            if stopped(Place::ReviewMarks, &folder, &mut out) {
                continue;
            }
            out.merge(review_marks::forget(kind, dir, &entries, write)?);
        }
        let checks = crate::recall_checks::RecallChecks::new(dir);
        if !stopped(Place::ReviewMarks, checks.dir(), &mut out) {
            out.merge(recall_check_questions::forget(dir, needles, write)?);
        }
    }
    Ok(out)
}

/// The `.json` files of the console's folder `dir`, sorted (none when it does not exist).
pub(super) fn json_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(list) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = list
        .flatten()
        .map(|d| d.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
}

/// What one file's pass found or did, with the entries it saw holding a needle.
#[derive(Debug, Default)]
pub(super) struct FileDone {
    pub erased: Erased,
    pub entries: Vec<EntryText>,
}

/// The forms a needle takes in a JSON file: as it is, and escaped inside a JSON string.
pub(super) fn json_forms(needles: &Needles) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for t in needles.texts() {
        out.push(t.as_bytes().to_vec());
        let quoted = serde_json::to_string(t).expect("a string serialises");
        let escaped = &quoted[1..quoted.len() - 1];
        if escaped != t {
            out.push(escaped.as_bytes().to_vec());
        }
    }
    out
}

/// Whether `hay` holds any of `forms`.
pub(super) fn holds_any(hay: &[u8], forms: &[Vec<u8>]) -> bool {
    forms.iter().any(|f| memchr::memmem::find(hay, f).is_some())
}

/// Writes `bytes` over `path` atomically outside the root (the console's own data): a synced
/// temp file in the same folder renamed over it, then the folder synced.
pub(super) fn replace_own_file(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".forget-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .at(dir)?;
    tmp.write_all(bytes).at(tmp.path())?;
    tmp.as_file().sync_all().at(tmp.path())?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = tmp.as_file().set_permissions(meta.permissions());
    }
    tmp.persist(path)
        .map_err(|e| crate::error::CoreError::io(path, e.error))?;
    sync_dir(dir);
    Ok(())
}

/// Makes a rename in `dir` durable (where the system allows opening a folder).
pub(super) fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
#[path = "console_files_tests.rs"]
mod tests;
