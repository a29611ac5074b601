//! The console's journal of its own MEMORY.md writes (CONTRACT §12).
//!
//! The Java runtime takes no lock we can see: it reads the whole file, adds its entry and
//! renames a temp file over MEMORY.md. A console write that lands between its read and its
//! rename is gone. The console cannot change the runtime, so it remembers what it wrote in
//! `MEMORY.md.oryx-journal` (JSON lines beside the file; the runtime never reads it) and, with
//! the lock held, puts back any recent write that a later rewrite dropped.
//!
//! What counts as dropped by a race, and what as removed on purpose:
//! - Only writes of the last [`WINDOW_MS`] are checked; older records are forgotten (and
//!   compacted away, as are all but the newest 128 KiB of records), so a deletion always
//!   sticks in the end.
//! - A missing write is a deliberate removal when a *later* console write is still in the file:
//!   every console write is made on a file verified to hold the earlier ones, so whoever
//!   produced the current file saw the missing entry and took it out. A racing runtime rename
//!   cannot do that: its base predates the write it drops, and so every later one.
//! - A write that was put back once is put back again only while the loss follows the restore
//!   closely (the file was replaced less than [`REPEAT_MS`] after it): that is the runtime
//!   racing again, not a person deleting the restored line.
//! - Entries of the runtime that a console rewrite displaced (the runtime renamed its file in
//!   the instant between our check and our rename) are journalled as `rescued` and restored
//!   the same way; they never count as proof of a deliberate removal.

use std::collections::HashMap;
use std::fs::{self, File};

use crate::rooted_fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use super::entry::Scope;
use super::format::{self, Parsed};
use crate::error::{CoreError, IoContext, Result};

/// How long a console write is protected against being dropped by a racing rewrite.
pub const WINDOW_MS: i64 = 10 * 60 * 1000;
/// A restored write lost again within this time of its restore is restored again.
pub const REPEAT_MS: i64 = 60 * 1000;
/// The journal is compacted (expired records dropped) once it grows past this size.
const COMPACT_AT: u64 = 256 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Record {
    /// A line the console wrote (or rescued from a displaced runtime file) at `at` (epoch ms).
    Write {
        id: String,
        at: i64,
        scope: Scope,
        line: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rescued: bool,
    },
    /// A line a console change (edit, delete, move, undo, redo, summary) took out of its
    /// section at `at`, leaving `left` copies of it there. A rewrite made from a copy read
    /// before the change brings the line back: it is taken out again.
    Removed {
        id: String,
        at: i64,
        scope: Scope,
        line: String,
        #[serde(default)]
        left: usize,
    },
    /// The write `id` was missing after a rewrite by someone else and was put back (for a
    /// removal: the line was back and was taken out again).
    Restored { id: String, at: i64 },
    /// The write `id` was removed on purpose (see the module notes): never put back.
    Dropped { id: String, at: i64 },
}

/// One write as the journal's records say it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tracked {
    pub id: String,
    pub at: i64,
    pub scope: Scope,
    pub line: String,
    pub rescued: bool,
    pub restored_at: Option<i64>,
    pub dropped: bool,
    /// A removal, with the copies of the line its change left in the section; `None`: a write.
    pub removal: Option<usize>,
}

pub fn journal_path(memory: &Path) -> PathBuf {
    let mut name = memory.file_name().unwrap_or_default().to_os_string();
    name.push(".oryx-journal");
    memory.with_file_name(name)
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A fresh record id: time, process and a per-process counter (unique without a lock).
pub fn new_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{nanos:x}-{:x}-{:x}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    )
}

pub struct Journal {
    path: PathBuf,
}

impl Journal {
    pub fn for_memory(memory: &Path) -> Self {
        Journal {
            path: journal_path(memory),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn exists(&self) -> bool {
        self.path.exists()
    }

    /// Every write of the window, oldest first, with what later records say about it. A torn
    /// last line (a writer killed mid-append) is skipped.
    pub fn load(&self, now: i64) -> Result<Vec<Tracked>> {
        let mut text = Vec::new();
        // Like MEMORY.md itself: never through a link, never blocking on a FIFO.
        match rooted_fs::open_memory(&self.path, rooted_fs::Access::Read)? {
            Some(mut f) => {
                f.read_to_end(&mut text).at(&self.path)?;
            }
            None => return Ok(Vec::new()),
        }
        let mut tracked: Vec<Tracked> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for line in text.split(|&b| b == b'\n') {
            let Ok(record) = serde_json::from_slice::<Record>(line) else {
                continue;
            };
            match record {
                Record::Write {
                    id,
                    at,
                    scope,
                    line,
                    rescued,
                } => {
                    if now - at > WINDOW_MS {
                        continue;
                    }
                    index.insert(id.clone(), tracked.len());
                    tracked.push(Tracked {
                        id,
                        at,
                        scope,
                        line,
                        rescued,
                        restored_at: None,
                        dropped: false,
                        removal: None,
                    });
                }
                Record::Removed {
                    id,
                    at,
                    scope,
                    line,
                    left,
                } => {
                    if now - at > WINDOW_MS {
                        continue;
                    }
                    index.insert(id.clone(), tracked.len());
                    tracked.push(Tracked {
                        id,
                        at,
                        scope,
                        line,
                        rescued: false,
                        restored_at: None,
                        dropped: false,
                        removal: Some(left),
                    });
                }
                Record::Restored { id, at } => {
                    if let Some(&i) = index.get(&id) {
                        tracked[i].restored_at = Some(at);
                    }
                }
                Record::Dropped { id, .. } => {
                    if let Some(&i) = index.get(&id) {
                        tracked[i].dropped = true;
                    }
                }
            }
        }
        Ok(tracked)
    }

    /// The journal's length now: what [`Journal::truncate`] goes back to.
    pub fn byte_len(&self) -> u64 {
        fs::metadata(&self.path).map_or(0, |m| m.len())
    }

    /// Appends records in one write. A failed write (disk full, file-size limit) is cut back
    /// off, so the journal never holds half a record.
    pub fn append(&self, records: &[Record]) -> Result<()> {
        let mut text = Vec::new();
        for r in records {
            serde_json::to_writer(&mut text, r).map_err(|e| {
                CoreError::Corrupt(format!(
                    "{}: cannot encode a record: {e}",
                    self.path.display()
                ))
            })?;
            text.push(b'\n');
        }
        let mut f = rooted_fs::open_memory(&self.path, rooted_fs::Access::ReadAppendCreate)?
            .ok_or_else(|| {
                CoreError::io(
                    &self.path,
                    std::io::Error::from(std::io::ErrorKind::NotFound),
                )
            })?;
        append_lines(&mut f, &self.path, text, false)
    }

    /// Goes back to `len` bytes (undoing records of a write that then failed).
    pub fn truncate(&self, len: u64) -> Result<()> {
        match rooted_fs::open_memory(&self.path, rooted_fs::Access::ReadAppend)? {
            Some(f) => f.set_len(len).at(&self.path),
            None => Ok(()),
        }
    }

    /// Rewrites the journal without expired and settled records once it has grown large.
    pub fn compact_if_large(&self, now: i64) -> Result<()> {
        if self.byte_len() < COMPACT_AT {
            return Ok(());
        }
        let live: Vec<Tracked> = self.load(now)?.into_iter().filter(|t| !t.dropped).collect();
        // The newest records up to half the threshold: a burst of writes (an import) is
        // protected as far back as that, and compaction runs at most once per half threshold
        // of growth instead of at every write.
        let mut budget = COMPACT_AT / 2;
        let mut from = live.len();
        while from > 0 {
            let cost = live[from - 1].line.len() as u64 + 128;
            if cost > budget {
                break;
            }
            budget -= cost;
            from -= 1;
        }
        let mut text = Vec::new();
        for t in &live[from..] {
            let mut records = vec![t.record()];
            if let Some(at) = t.restored_at {
                records.push(Record::Restored {
                    id: t.id.clone(),
                    at,
                });
            }
            for r in records {
                serde_json::to_writer(&mut text, &r)
                    .map_err(|e| CoreError::Corrupt(format!("{}: {e}", self.path.display())))?;
                text.push(b'\n');
            }
        }
        let Some((dir, name)) = rooted_fs::memory_dir(&self.path, false)? else {
            return Ok(());
        };
        dir.replace(name, &text, || true)?;
        Ok(())
    }
}

impl Tracked {
    /// The record that starts tracking this write or removal.
    pub fn record(&self) -> Record {
        match self.removal {
            None => Record::Write {
                id: self.id.clone(),
                at: self.at,
                scope: self.scope,
                line: self.line.clone(),
                rescued: self.rescued,
            },
            Some(left) => Record::Removed {
                id: self.id.clone(),
                at: self.at,
                scope: self.scope,
                line: self.line.clone(),
                left,
            },
        }
    }
}

/// Undoes a partial append: the file goes back to the `before` bytes it had, and the error
/// says whether that worked.
/// Appends `text` (whole lines) to `f` in one write: after a torn last line (a writer killed
/// mid-append) on a line of its own; a write (or, with `sync`, a sync) that fails part-way is
/// cut back off, so the file never holds half a record followed by a whole one. The journal and
/// the history both append so.
pub fn append_lines(f: &mut File, path: &Path, mut text: Vec<u8>, sync: bool) -> Result<()> {
    let before = f.metadata().at(path)?.len();
    if before > 0 {
        let mut last = [0u8; 1];
        f.seek(SeekFrom::Start(before - 1)).at(path)?;
        f.read_exact(&mut last).at(path)?;
        if last[0] != b'\n' {
            text.insert(0, b'\n');
        }
    }
    if let Err(e) = f.write_all(&text) {
        return Err(cut_back(f, path, before, e));
    }
    if sync {
        if let Err(e) = f.sync_data() {
            return Err(cut_back(f, path, before, e));
        }
    }
    Ok(())
}

pub fn cut_back(f: &File, path: &Path, before: u64, e: std::io::Error) -> CoreError {
    match f.set_len(before) {
        Ok(()) => CoreError::io(
            path,
            std::io::Error::new(
                e.kind(),
                format!("{e}; nothing was stored (the file was cut back to its {before} bytes)"),
            ),
        ),
        Err(e2) => CoreError::io(
            path,
            std::io::Error::new(
                e.kind(),
                format!(
                    "{e}; cutting the file back to its {before} bytes failed too ({e2}): \
                     its last line may be incomplete"
                ),
            ),
        ),
    }
}

/// What one check of the file decided.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Writes to put back, oldest first.
    pub restore: Vec<Tracked>,
    /// Removals to make again (the line is back: the file was made from a copy read before
    /// the change that removed it), oldest first.
    pub remove: Vec<Tracked>,
    /// Writes removed on purpose: record them so they are never put back.
    pub dropped: Vec<String>,
}

/// Compares the file with the journal. `file_mtime`: when the current file was written (ms).
pub fn check(parsed: &Parsed, tracked: &[Tracked], skip: Option<&str>, file_mtime: i64) -> Verdict {
    // How many times each line stands in each section: a write is present while one is left.
    let mut have: HashMap<(Scope, &str), usize> = HashMap::new();
    for (scope, entries) in [
        (Scope::Core, &parsed.sections.core),
        (Scope::Archival, &parsed.sections.archival),
    ] {
        for e in entries {
            *have.entry((scope, e.line.as_str())).or_default() += 1;
        }
    }
    check_counts(have, tracked, skip, file_mtime)
}

/// The writes a check looks for (neither dropped nor the write being made).
pub fn live<'a>(tracked: &'a [Tracked], skip: Option<&str>) -> Vec<&'a Tracked> {
    tracked
        .iter()
        .filter(|t| !t.dropped && Some(t.id.as_str()) != skip)
        .collect()
}

/// [`check`] from how many times each line stands in each section (at least every live
/// write's line must be counted; a streaming scan of a large file counts only those).
pub fn check_counts<'a>(
    mut have: HashMap<(Scope, &'a str), usize>,
    tracked: &'a [Tracked],
    skip: Option<&str>,
    file_mtime: i64,
) -> Verdict {
    let live = live(tracked, skip);
    // A removal is judged on the copies that stand; each write claims one copy of its line.
    let stood: Vec<usize> = live
        .iter()
        .map(|t| have.get(&(t.scope, t.line.as_str())).copied().unwrap_or(0))
        .collect();
    let present: Vec<bool> = live
        .iter()
        .map(|t| {
            t.removal.is_none()
                && match have.get_mut(&(t.scope, t.line.as_str())) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        true
                    }
                    _ => false,
                }
        })
        .collect();
    let mut verdict = Verdict::default();
    for (i, t) in live.iter().enumerate() {
        let in_effect = match t.removal {
            Some(left) => stood[i] <= left,
            None => present[i],
        };
        if in_effect {
            continue;
        }
        // Whoever made this file saw a later console write: what it lacks (or holds again)
        // it was given on purpose. A racing rename's base predates every write it undoes.
        let superseded = live[i + 1..]
            .iter()
            .zip(&present[i + 1..])
            .any(|(later, &here)| here && !later.rescued);
        let lost_again_late = t.restored_at.is_some_and(|r| file_mtime - r > REPEAT_MS);
        if superseded || lost_again_late {
            verdict.dropped.push(t.id.clone());
        } else if t.removal.is_some() {
            verdict.remove.push((*t).clone());
        } else {
            verdict.restore.push((*t).clone());
        }
    }
    verdict
}

/// The entries of `displaced` (a file our rename replaced unseen) that `ours` lacks, as rescue
/// records. `removed`: lines console changes took out (a displaced file made from an older copy
/// still holds them), one copy each, which are not rescued.
pub fn rescued(displaced: &[u8], ours: &[u8], now: i64, removed: &[(Scope, &str)]) -> Vec<Record> {
    let ours = format::parse(ours);
    let mut have: HashMap<(Scope, &str), usize> = HashMap::new();
    for (scope, entries) in [
        (Scope::Core, &ours.sections.core),
        (Scope::Archival, &ours.sections.archival),
    ] {
        for e in entries {
            *have.entry((scope, e.line.as_str())).or_default() += 1;
        }
    }
    for key in removed {
        *have.entry(*key).or_default() += 1;
    }
    let theirs = format::parse(displaced);
    let mut out = Vec::new();
    for (scope, entries) in [
        (Scope::Core, &theirs.sections.core),
        (Scope::Archival, &theirs.sections.archival),
    ] {
        for e in entries {
            match have.get_mut(&(scope, e.line.as_str())) {
                Some(n) if *n > 0 => *n -= 1,
                _ => out.push(Record::Write {
                    id: new_id(),
                    at: now,
                    scope,
                    line: e.line.clone(),
                    rescued: true,
                }),
            }
        }
    }
    out
}

/// The lines live removals took out, to leave out of a rescue.
pub fn removed_lines(tracked: &[Tracked]) -> Vec<(Scope, &str)> {
    tracked
        .iter()
        .filter(|t| t.removal.is_some() && !t.dropped)
        .map(|t| (t.scope, t.line.as_str()))
        .collect()
}

/// The timestamp a journalled line carries (restores go to its place in time order).
pub fn line_time(line: &str) -> Option<NaiveDateTime> {
    format::parse_entry(line).timestamp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tracked(id: &str, line: &str) -> Tracked {
        Tracked {
            id: id.into(),
            at: 0,
            scope: Scope::Archival,
            line: line.into(),
            rescued: false,
            restored_at: None,
            dropped: false,
            removal: None,
        }
    }

    fn parsed(text: &str) -> Parsed {
        format::parse(text.as_bytes())
    }

    #[test]
    fn a_missing_write_is_restored_unless_a_later_one_is_still_there() {
        let t = vec![
            tracked("a", "- [2026-01-01 00:00:01] a"),
            tracked("b", "- [2026-01-01 00:00:02] b"),
        ];
        // Both gone: a runtime rename based on a file older than both.
        let v = check(&parsed("## 核心记忆\n## 归档记忆\n- x\n"), &t, None, 0);
        assert_eq!(v.restore.len(), 2);
        assert!(v.dropped.is_empty());
        // Only `a` gone while `b` (written after it) stayed: someone removed `a` on purpose.
        let v = check(
            &parsed("## 核心记忆\n## 归档记忆\n- [2026-01-01 00:00:02] b\n"),
            &t,
            None,
            0,
        );
        assert!(v.restore.is_empty());
        assert_eq!(v.dropped, vec!["a".to_string()]);
        // A rescued runtime entry proves nothing about what the remover saw.
        let mut t2 = t.clone();
        t2[1].rescued = true;
        let v = check(
            &parsed("## 核心记忆\n## 归档记忆\n- [2026-01-01 00:00:02] b\n"),
            &t2,
            None,
            0,
        );
        assert_eq!(v.restore.len(), 1);
    }

    #[test]
    fn duplicates_count_and_restored_writes_lost_late_stay_deleted() {
        let line = "- [2026-01-01 00:00:01] same";
        let t = vec![tracked("a", line), tracked("b", line)];
        let v = check(&parsed(&format!("## 归档记忆\n{line}\n")), &t, None, 0);
        assert_eq!(
            v.restore.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
            ["b"]
        );
        let mut t = vec![tracked("a", line)];
        t[0].restored_at = Some(1_000);
        let v = check(&parsed("## 归档记忆\n"), &t, None, 1_000 + REPEAT_MS / 2);
        assert_eq!(
            v.restore.len(),
            1,
            "lost again right after the restore: a race"
        );
        let v = check(&parsed("## 归档记忆\n"), &t, None, 1_000 + REPEAT_MS * 2);
        assert_eq!(
            v.dropped,
            vec!["a".to_string()],
            "removed again later: on purpose"
        );
    }

    #[test]
    fn a_large_journal_is_compacted_to_its_newest_records() {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::for_memory(&dir.path().join("MEMORY.md"));
        let now = now_ms();
        let records: Vec<Record> = (0..4000)
            .map(|i| Record::Write {
                id: i.to_string(),
                at: if i < 10 { now - WINDOW_MS - 1 } else { now },
                scope: Scope::Archival,
                line: format!("- [2026-01-01 00:00:00] entry {i} {}", "x".repeat(40)),
                rescued: false,
            })
            .collect();
        j.append(&records).unwrap();
        assert!(j.byte_len() > COMPACT_AT);
        j.compact_if_large(now).unwrap();
        assert!(j.byte_len() <= COMPACT_AT / 2, "{}", j.byte_len());
        let kept = j.load(now).unwrap();
        assert_eq!(kept.last().unwrap().id, "3999");
        assert!(kept.len() > 500);
        j.compact_if_large(now).unwrap();
        assert_eq!(j.load(now).unwrap(), kept, "small enough: left alone");
    }

    #[test]
    fn records_round_trip_and_torn_lines_are_skipped() {
        // The journal lives where MEMORY.md does: below a root (here an empty one).
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::for_memory(&dir.path().join("memory/MEMORY.md"));
        let now = now_ms();
        j.append(&[
            Record::Write {
                id: "1".into(),
                at: now,
                scope: Scope::Core,
                line: "- x".into(),
                rescued: false,
            },
            Record::Write {
                id: "old".into(),
                at: now - WINDOW_MS - 1,
                scope: Scope::Core,
                line: "- old".into(),
                rescued: false,
            },
            Record::Restored {
                id: "1".into(),
                at: now,
            },
        ])
        .unwrap();
        let mut f = fs::OpenOptions::new().append(true).open(j.path()).unwrap();
        f.write_all(b"{\"kind\":\"write\",\"id\":\"torn").unwrap();
        j.append(&[Record::Dropped {
            id: "1".into(),
            at: now,
        }])
        .unwrap();
        let t = j.load(now).unwrap();
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].restored_at, Some(now));
        assert_eq!(t[0].line, "- x");
        assert!(t[0].dropped, "a record after a torn line is read");
    }
}
