//! The journal check: before every access, with the lock held, MEMORY.md is checked to still
//! hold the console's recent writes, and what a runtime rewrite dropped is put back
//! (memory/journal.rs says why the runtime cannot be asked to take the lock).

use std::collections::HashMap;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

use super::curate as markdown_curate;
use super::io::{open_rw, read_all, Counted};
use super::lock::{FileLock, FileStamp, Hint};
use super::rewrite::{replace, Expect, Replaced};
use super::tail;
use crate::error::{CoreError, IoContext, Result};
use crate::memory::entry::{trim_runtime, Scope};
use crate::memory::format::{self, BlockReader, SectionCursor};
use crate::memory::journal::{self, Journal, Record, Tracked};
use crate::memory::{change, history};

/// Up to this size a check or an edit reads the whole file; a larger one is checked with
/// bounded reads (its tail, a streaming count) and only a rewrite reads it whole.
pub(super) const FULL_READ_MAX: u64 = 16 << 20;
const SETTLE_BUDGET: std::time::Duration = std::time::Duration::from_secs(10);

/// How many times each live write's line stands in its section, counted in one streaming pass
/// (memory: a block and the journalled lines). `None` when a journalled line is too long for
/// the stream's line cap (the whole-file check handles it).
fn count_live_lines<'a>(
    f: &File,
    path: &Path,
    live: &[&'a Tracked],
) -> Result<Option<HashMap<(Scope, &'a str), usize>>> {
    if live.iter().any(|t| t.line.len() >= format::LINE_CAP / 2) {
        return Ok(None);
    }
    let mut want: [HashMap<&str, usize>; 2] = Default::default();
    for t in live {
        want[t.scope as usize].insert(t.line.as_str(), 0);
    }
    let mut r = f.try_clone().at(path)?;
    r.seek(SeekFrom::Start(0)).at(path)?;
    let mut reader = BlockReader::new(Counted(r));
    let mut section = None;
    while let Some((block, from)) = reader.next_block().at(path)? {
        let heads = format::headings(block, from);
        let mut cursor = SectionCursor::new(&heads, section);
        for span in format::lines(block, from) {
            let Some(scope) = cursor.at(span.start) else {
                continue;
            };
            let map = &mut want[scope as usize];
            if map.is_empty() || format::is_blank(block, span) {
                continue;
            }
            let text = format::line_text(block, span);
            if let Some(n) = map.get_mut(trim_runtime(&text)) {
                *n += 1;
            }
        }
        section = cursor.end();
    }
    let mut have = HashMap::new();
    for t in live {
        let n = want[t.scope as usize]
            .get(t.line.as_str())
            .copied()
            .unwrap_or(0);
        have.insert((t.scope, t.line.as_str()), n);
    }
    Ok(Some(have))
}

/// The journal check of a large file with bounded reads: `Some(hint)` when nothing has to be
/// put back (what was removed on purpose is recorded), `None` when the whole-file check must
/// run (a write to restore, or a shape the bounded reads cannot judge).
fn settle_large(
    f: &File,
    path: &Path,
    stamp: FileStamp,
    journal: &Journal,
    tracked: &[Tracked],
    skip: Option<&str>,
    now: i64,
) -> Result<Option<Hint>> {
    let live = journal::live(tracked, skip);
    let mut dropped = Vec::new();
    if !live.is_empty() {
        let Some(have) = count_live_lines(f, path, &live)? else {
            return Ok(None);
        };
        let verdict = journal::check_counts(have, tracked, skip, stamp.mtime_ms());
        if !verdict.restore.is_empty() || !verdict.remove.is_empty() {
            return Ok(None);
        }
        dropped = verdict.dropped;
    }
    let Some(facts) = tail::scan(f, stamp.len).at(path)? else {
        return Ok(None);
    };
    if !dropped.is_empty() {
        let records: Vec<Record> = dropped
            .into_iter()
            .map(|id| Record::Dropped { id, at: now })
            .collect();
        journal.append(&records)?;
    }
    Ok(Some(Hint {
        stamp,
        append_ok: facts.archival_last() && facts.ends_with_lf,
        crlf: facts.crlf,
    }))
}

/// The file after a check against the journal: open, with what is known of it.
pub(super) struct Checked {
    pub(super) file: Option<(File, Hint)>,
}

/// Checks the file against the journal and puts back what a rewrite by someone else dropped
/// (see memory/journal.rs). Cheap when the file is the version the lock file remembers.
pub(super) fn settle(
    path: &Path,
    guard: &FileLock,
    journal: &Journal,
    skip: Option<&str>,
) -> Result<Checked> {
    // A time budget, not a count: a runtime writing busily can replace the file during several
    // checks in a row, and each round puts back what it dropped.
    let deadline = std::time::Instant::now() + SETTLE_BUDGET;
    while std::time::Instant::now() < deadline {
        let file = open_rw(path)?;
        let stamp = match &file {
            Some(f) => Some(FileStamp::of(&f.metadata().at(path)?)),
            None => None,
        };
        if let (Some(f), Some(h)) = (&file, guard.read_hint()) {
            if Some(h.stamp) == stamp {
                return Ok(Checked {
                    file: Some((f.try_clone().at(path)?, h)),
                });
            }
        }
        let now = journal::now_ms();
        let tracked = journal.load(now)?;
        if let (Some(f), Some(s)) = (&file, stamp) {
            if s.len > FULL_READ_MAX {
                if let Some(hint) = settle_large(f, path, s, journal, &tracked, skip, now)? {
                    guard.write_hint(Some(hint));
                    return Ok(Checked {
                        file: Some((f.try_clone().at(path)?, hint)),
                    });
                }
            }
        }
        // The runtime replaces the file by rename, never in place: these bytes are `stamp`'s.
        let bytes = match &file {
            Some(f) => read_all(f, path)?,
            None => Vec::new(),
        };
        let parsed = format::parse(&bytes);
        let mtime = stamp.map_or(now, |s| s.mtime_ms());
        let verdict = journal::check(&parsed, &tracked, skip, mtime);
        if !verdict.dropped.is_empty() {
            let records: Vec<Record> = verdict
                .dropped
                .iter()
                .map(|id| Record::Dropped {
                    id: id.clone(),
                    at: now,
                })
                .collect();
            journal.append(&records)?;
        }
        let restored: Vec<Record> = verdict
            .remove
            .iter()
            .chain(&verdict.restore)
            .map(|t| Record::Restored {
                id: t.id.clone(),
                at: now,
            })
            .collect();
        if restored.is_empty() {
            return Ok(match (file, stamp) {
                (Some(f), Some(s)) => {
                    let hint = Hint::after(&bytes, s);
                    guard.write_hint(Some(hint));
                    Checked {
                        file: Some((f, hint)),
                    }
                }
                _ => {
                    guard.write_hint(None);
                    Checked { file: None }
                }
            });
        }
        // A console change made again on a file made from a copy read before it: what it
        // removed goes again, what it wrote is put back below.
        let mut out = bytes.clone();
        for t in &verdict.remove {
            if let Some(cut) = markdown_curate::cut_entry_line(&out, t.scope, &t.line) {
                out = cut;
            }
        }
        // Each one at its place in time order within its section.
        for t in &verdict.restore {
            out = if out.is_empty() {
                format::new_file(t.scope, &t.line)
            } else {
                let p = format::parse(&out);
                let ts = journal::line_time(&t.line);
                match format::plan_restore(&out, &p, t.scope, ts, &t.line) {
                    Some((at, add)) => [&out[..at], &add, &out[at..]].concat(),
                    None => format::apply(&out, &format::plan_insert(&out, &p, t.scope, &t.line)),
                }
            };
        }
        match (file, stamp) {
            // Everything goes at the end: a plain append, the rest of the file as it was.
            (Some(f), Some(s)) if out.starts_with(&bytes) => {
                let after = append_bytes(&f, path, &out[bytes.len()..], s.len)?;
                journal.append(&restored)?;
                let hint = Hint::after(&out, after);
                guard.write_hint(Some(hint));
                return Ok(Checked {
                    file: Some((f, hint)),
                });
            }
            (_, stamp) => {
                let normal = format::normalize(&out, parsed.crlf);
                let expect = stamp.map_or(Expect::Absent, Expect::Is);
                match replace(path, &normal, expect)? {
                    Replaced::Changed => continue,
                    Replaced::Done(ours) => {
                        journal.append(&restored)?;
                        guard.write_hint(Some(Hint::after(&normal, ours)));
                    }
                    Replaced::Displaced(theirs) => {
                        let mut records = restored;
                        let removed = journal::removed_lines(&tracked);
                        records.extend(journal::rescued(&theirs, &normal, now, &removed));
                        journal.append(&records)?;
                        guard.write_hint(None);
                    }
                }
                // The next round opens what is there now.
            }
        }
    }
    Err(CoreError::Conflict(format!(
        "{path} kept changing while the console checked it for its own recent writes \
         (for {} s); try again",
        SETTLE_BUDGET.as_secs(),
        path = path.display()
    )))
}

/// Keeps the journal's promise (memory/journal.rs) true after a curation change: a recent
/// console write the change removed was removed on purpose and must not come back; the lines
/// it wrote are protected like appends, and the lines it removed are recorded too, so that a
/// runtime rewrite made from a copy read before the change (which brings them back) has the
/// whole change made again, not only its new lines. `old`: the file the change was made on.
/// Best effort: the change itself is already made.
pub(super) fn note_in_journal(journal: &Journal, change: &history::Change, old: &[u8]) {
    let now = journal::now_ms();
    let tracked = journal.load(now).unwrap_or_default();
    let same =
        |t: &Tracked, scope: Scope, line: &str| !t.dropped && t.scope == scope && t.line == line;
    // What the change really moved: an entry written back as it was is neither.
    let diffs: Vec<&change::EntryDiff> = change
        .entries
        .iter()
        .filter(|d| match (&d.before, &d.after) {
            (Some(b), Some(a)) => (b.scope, &b.line) != (a.scope, &a.line),
            _ => true,
        })
        .collect();
    let befores: Vec<(Scope, &str)> = diffs
        .iter()
        .filter_map(|d| d.before.as_ref())
        .map(|b| (b.scope, b.line.as_str()))
        .collect();
    let afters: Vec<(Scope, &str)> = diffs
        .iter()
        .filter_map(|d| d.after.as_ref())
        .map(|a| (a.scope, a.line.as_str()))
        .collect();
    // Copies left after the change: those before it, less those it removed, plus those it wrote.
    let before_counts = match befores.is_empty() {
        true => HashMap::new(),
        false => markdown_curate::count_entry_lines(old, &befores),
    };
    let tally =
        |list: &[(Scope, &str)], key: (Scope, &str)| list.iter().filter(|k| **k == key).count();
    let mut records = Vec::new();
    for &(scope, line) in &befores {
        records.extend(
            tracked
                .iter()
                .filter(|t| t.removal.is_none() && same(t, scope, line))
                .map(|t| Record::Dropped {
                    id: t.id.clone(),
                    at: now,
                }),
        );
        let had = before_counts.get(&(scope, line)).copied().unwrap_or(0);
        let left =
            (had + tally(&afters, (scope, line))).saturating_sub(tally(&befores, (scope, line)));
        records.push(Record::Removed {
            id: journal::new_id(),
            at: now,
            scope,
            line: line.to_string(),
            left,
        });
    }
    for &(scope, line) in &afters {
        // Written back: an earlier removal of it is over.
        records.extend(
            tracked
                .iter()
                .filter(|t| t.removal.is_some() && same(t, scope, line))
                .map(|t| Record::Dropped {
                    id: t.id.clone(),
                    at: now,
                }),
        );
        records.push(Record::Write {
            id: journal::new_id(),
            at: now,
            scope,
            line: line.to_string(),
            rescued: false,
        });
    }
    if !records.is_empty() {
        let _ = journal.append(&records);
    }
}

/// Appends `add` to the file `f` (of `before` bytes) and returns its version afterwards. A
/// write that fails part-way (disk full, file-size limit) is cut back off: the file is left
/// exactly as it was, and the error says so.
pub(super) fn append_bytes(f: &File, path: &Path, add: &[u8], before: u64) -> Result<FileStamp> {
    let mut w = f;
    // One write call: a reader never sees half of a short line.
    if let Err(e) = w.write_all(add) {
        return Err(journal::cut_back(f, path, before, e));
    }
    if let Err(e) = f.sync_data() {
        return Err(journal::cut_back(f, path, before, e));
    }
    Ok(FileStamp::of(&f.metadata().at(path)?))
}
