//! MarkdownMemoryStore: one MEMORY.md per owner (SPEC §3).
//!
//! Writers take an advisory lock on `MEMORY.md.lock` for the whole read-modify-write, so writers
//! in other processes that use the lock lose nothing. Archival appends to a file whose archival
//! section ends the file are plain appends; every other edit is an atomic rewrite (temp file in
//! the same directory + rename) that splices the new line in, keeps all other text and writes
//! the file as the runtime reads it (no BOM, canonical headings, one line ending: SPEC §12).
//!
//! The Java runtime takes no lock at all: every console access first checks, with the lock
//! held, that the file still holds the console's recent writes and puts back any that a
//! runtime rewrite dropped (memory/journal.rs).

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::NaiveDateTime;

use crate::memory::entry::trim_runtime;
use crate::memory::entry::{render_line, Entry, Scope, Sections};
use crate::memory::format::{self, classify, BlockReader, Edit, LineKind, SectionCursor};
use crate::memory::journal::{self, Journal, Record, Tracked};
use crate::memory::store::{contains_ci, Backend, ContextEntries, EntryCounts, LongTermMemoryStore, Probe};
use super::tail;
use super::curate as markdown_curate;
use crate::memory::{curate, history};
use crate::error::{CoreError, IoContext, Result};
use crate::fsx;
use crate::names::{memory_path, Owner};
use crate::timefmt::now_local;

/// Files up to this size are simply read whole by the prompt's load.
const SMALL_FILE: u64 = 256 * 1024;
const CHUNK: usize = 64 * 1024;
/// Up to this size a check or an edit reads the whole file; a larger one is checked with
/// bounded reads (its tail, a streaming count) and only a rewrite reads it whole.
const FULL_READ_MAX: u64 = 16 << 20;
/// The most of one line the prompt's tail load keeps: the window needs only the newest line's
/// end, and a gigabyte line must not be held whole.
const TAIL_LINE_KEEP: usize = 1 << 20;
/// The most of one line a count holds (it looks only at how a line starts).
const COUNT_LINE_CAP: usize = 1 << 20;

#[cfg(test)]
thread_local! {
    static BYTES_READ: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts the bytes this thread read from memory files (tests check how much a write reads).
pub(crate) fn count_read(_n: usize) {
    #[cfg(test)]
    BYTES_READ.with(|c| c.set(c.get() + _n as u64));
}

/// A reader that counts what it reads (see [`count_read`]).
struct Counted<R>(R);

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        count_read(n);
        Ok(n)
    }
}

pub struct MarkdownMemoryStore {
    root: PathBuf,
}

impl MarkdownMemoryStore {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        MarkdownMemoryStore { root: root.into() }
    }

    pub fn path(&self, owner: &Owner) -> PathBuf {
        memory_path(&self.root, owner)
    }

    /// The health of the owner's MEMORY.md: the findings checked from its bytes, the same as
    /// over the owner's parsed view (ids included) at a fraction of the time and memory on a
    /// large file (see [`crate::memory::health::run_markdown`]), and the budget (when asked for) from
    /// the prompt's own load of the file with a window of `archival_limit` characters (see
    /// [`crate::memory::health::budget_from_context`]).
    pub fn health(
        &self,
        owner: &Owner,
        opts: &crate::memory::health::Options,
        archival_limit: usize,
    ) -> Result<crate::memory::health::Report> {
        use crate::memory::health::{budget_from_context, run_markdown, Check};
        let path = self.path(owner);
        self.settle_for_read(&path)?;
        let bytes = read_or_empty(&path)?;
        let mut report = run_markdown(&bytes, opts);
        // A large file's pages are given back (~10 ms for 100 MB) off the caller's time.
        if bytes.len() as u64 > SMALL_FILE {
            std::thread::spawn(move || drop(bytes));
        }
        if opts.checks.contains(&Check::Budget) {
            let ctx = self.load_context(owner, archival_limit)?;
            report.budget = Some(budget_from_context(&ctx, archival_limit, opts));
        }
        Ok(report)
    }
}

/// What identifies one version of a file: size, modification time and inode (a rename by
/// another writer changes the inode even when size and time collide).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    len: u64,
    mtime_ns: u128,
    ino: u64,
}

impl FileStamp {
    fn of(meta: &fs::Metadata) -> Self {
        #[cfg(unix)]
        let ino = std::os::unix::fs::MetadataExt::ino(meta);
        #[cfg(not(unix))]
        let ino = 0;
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        FileStamp {
            len: meta.len(),
            mtime_ns,
            ino,
        }
    }

    fn mtime_ms(&self) -> i64 {
        (self.mtime_ns / 1_000_000) as i64
    }
}

/// `None`: no file.
fn version(path: &Path) -> Option<FileStamp> {
    fs::metadata(path).ok().map(|m| FileStamp::of(&m))
}

/// What the lock file remembers of MEMORY.md after our last write or check: its stamp, whether
/// the archival section ends it with a complete line (the next archival entry can then be
/// appended without reading the file) and its line ending. Another writer (the Java runtime
/// does not take the lock) changes the stamp, and the file is read and checked again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hint {
    stamp: FileStamp,
    append_ok: bool,
    crlf: bool,
}

impl Hint {
    fn parse(text: &str) -> Option<Hint> {
        let mut p = text.split_whitespace();
        if p.next()? != "v2" {
            return None;
        }
        let stamp = FileStamp {
            len: p.next()?.parse().ok()?,
            mtime_ns: p.next()?.parse().ok()?,
            ino: p.next()?.parse().ok()?,
        };
        let flags = p.next()?;
        Some(Hint {
            stamp,
            append_ok: flags.contains('a'),
            crlf: flags.contains('c'),
        })
    }

    fn render(&self) -> String {
        let s = self.stamp;
        format!(
            "v2 {} {} {} -{}{}\n",
            s.len,
            s.mtime_ns,
            s.ino,
            if self.append_ok { "a" } else { "" },
            if self.crlf { "c" } else { "" }
        )
    }

    fn after(bytes: &[u8], stamp: FileStamp) -> Hint {
        let parsed = format::parse_structure(bytes);
        Hint {
            stamp,
            append_ok: parsed.archival_ends_file(bytes.len()) && bytes.last() == Some(&b'\n'),
            crlf: parsed.crlf,
        }
    }
}

/// Holds the cross-process lock for as long as it lives.
pub struct FileLock {
    file: File,
}

impl FileLock {
    fn read_hint(&self) -> Option<Hint> {
        read_hint_from(&self.file)
    }

    /// Records what we know of the file now (or forgets it).
    fn write_hint(&self, hint: Option<Hint>) {
        let text = hint.map(|h| h.render()).unwrap_or_default();
        let _ = self.file.set_len(0);
        let _ = (&self.file).seek(SeekFrom::Start(0));
        let _ = (&self.file).write_all(text.as_bytes());
    }
}

fn read_hint_from(file: &File) -> Option<Hint> {
    let mut text = String::new();
    let mut f = file;
    f.seek(SeekFrom::Start(0)).ok()?;
    f.take(128).read_to_string(&mut text).ok()?;
    Hint::parse(&text)
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

pub fn lock(path: &Path) -> Result<FileLock> {
    let lp = lock_path(path);
    let file = fsx::open_memory(&lp, fsx::Access::ReadWriteCreate)?.ok_or_else(|| missing(&lp))?;
    file.lock().at(&lp)?;
    Ok(FileLock { file })
}

pub fn read_or_empty(path: &Path) -> Result<Vec<u8>> {
    fsx::read_memory(path)
}

fn missing(path: &Path) -> CoreError {
    CoreError::io(path, std::io::ErrorKind::NotFound.into())
}

/// Replaces `path` with `bytes` atomically: readers see the old or the new file, never a mix.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, Expect::Any).map(|_| ())
}

const REWRITE_ATTEMPTS: usize = 20;
const SETTLE_BUDGET: std::time::Duration = std::time::Duration::from_secs(10);

/// Which file a rewrite may replace.
#[derive(Debug, Clone, Copy)]
enum Expect {
    Any,
    Absent,
    Is(FileStamp),
}

#[derive(Debug)]
enum Replaced {
    /// Our bytes are in place (with this stamp) and replaced the expected version.
    Done(FileStamp),
    /// The file is not the expected version: nothing was written.
    Changed,
    /// Our bytes are in place, but another writer renamed its file in at the last instant and
    /// ours replaced that one: here are its bytes, to rescue what only it held.
    Displaced(Vec<u8>),
}

fn replace(path: &Path, bytes: &[u8], expect: Expect) -> Result<Replaced> {
    replace_parts(path, &[bytes], expect)
}

/// How [`replace_with`] builds the new file.
enum NewFile<'a> {
    Parts(&'a [&'a [u8]]),
    /// Ranges of this open file (the version being replaced) and new bytes.
    Pieces(&'a File, &'a [fsx::Piece<'a>]),
}

/// [`replace`] with the new file given as consecutive parts.
fn replace_parts(path: &Path, parts: &[&[u8]], expect: Expect) -> Result<Replaced> {
    replace_with(path, NewFile::Parts(parts), expect)
}

fn replace_with(path: &Path, new: NewFile<'_>, expect: Expect) -> Result<Replaced> {
    // Opened from the root without following links: the rename lands in the checked folder.
    let (dir, name) = fsx::memory_dir(path, true)?.ok_or_else(|| missing(path))?;
    let mut staged = match new {
        NewFile::Parts(parts) => dir.stage_parts(name, parts)?,
        NewFile::Pieces(src, pieces) => dir.stage_pieces(name, src, pieces)?,
    };
    let ours = FileStamp::of(&staged.file().metadata().at(path)?);
    #[cfg(test)]
    tests::hook(tests::Phase::BeforeCheck, path);
    let seen = match expect {
        Expect::Any => None,
        Expect::Absent if version(path).is_some() => return Ok(Replaced::Changed),
        Expect::Absent => None,
        Expect::Is(s) if version(path) != Some(s) => return Ok(Replaced::Changed),
        Expect::Is(s) => Some(s),
    };
    #[cfg(test)]
    tests::hook(tests::Phase::BeforeRename, path);
    match (expect, seen) {
        (Expect::Absent, _) => match staged.rename_if_absent() {
            Ok(true) => return Ok(Replaced::Done(ours)),
            Ok(false) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Ok(Replaced::Changed)
            }
            Err(e) => return Err(CoreError::io(path, e)),
        },
        (Expect::Is(_), Some(s)) => match staged.exchange() {
            Ok(true) => {
                // The staged name now holds the file we displaced; dropping `staged` removes it.
                let mut displaced = staged.displaced()?;
                if FileStamp::of(&displaced.metadata().at(path)?) == s {
                    return Ok(Replaced::Done(ours));
                }
                let mut theirs = Vec::new();
                displaced.read_to_end(&mut theirs).at(path)?;
                return Ok(Replaced::Displaced(theirs));
            }
            Ok(false) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Replaced::Changed),
            Err(e) => return Err(CoreError::io(path, e)),
        },
        _ => {}
    }
    // No atomic exchange here (another OS or file system): a plain rename right after the
    // version check leaves only a tiny window.
    staged.rename_over()?;
    Ok(Replaced::Done(ours))
}

/// Temp files of a rewrite that was killed before its rename. Called with the lock held, so no
/// writer that takes the lock is between creating and renaming its temp file.
fn remove_stray_temp_files(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(".MEMORY.md.") && name.ends_with(".tmp") {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// MEMORY.md opened for reading and appending, never through a link (`None`: there is no
/// file). Appends go through this handle, so they land in exactly the version that was checked.
fn open_rw(path: &Path) -> Result<Option<File>> {
    fsx::open_memory(path, fsx::Access::ReadAppend)
}

fn read_all(f: &File, path: &Path) -> Result<Vec<u8>> {
    // Sized up front: growing by doubling copies a 100 MB file several times.
    let len = f.metadata().map_or(0, |m| m.len() as usize);
    let mut bytes = Vec::with_capacity(len + 1);
    let mut r = f;
    r.seek(SeekFrom::Start(0)).at(path)?;
    r.read_to_end(&mut bytes).at(path)?;
    count_read(bytes.len());
    Ok(bytes)
}

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

/// Appends `add` to the file `f` (of `before` bytes) and returns its version afterwards. A
/// write that fails part-way (disk full, file-size limit) is cut back off: the file is left
/// exactly as it was, and the error says so.
fn append_bytes(f: &File, path: &Path, add: &[u8], before: u64) -> Result<FileStamp> {
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

/// The file after a check against the journal: open, with what is known of it.
struct Checked {
    file: Option<(File, Hint)>,
}

/// Checks the file against the journal and puts back what a rewrite by someone else dropped
/// (see memory/journal.rs). Cheap when the file is the version the lock file remembers.
fn settle(path: &Path, guard: &FileLock, journal: &Journal, skip: Option<&str>) -> Result<Checked> {
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

impl MarkdownMemoryStore {
    /// Before a read: the journal check, with the lock only when the file changed since.
    pub(crate) fn settle_for_read(&self, path: &Path) -> Result<()> {
        let journal = Journal::for_memory(path);
        if !journal.exists() {
            return Ok(());
        }
        let peek = fsx::open_memory(&lock_path(path), fsx::Access::Read)
            .ok()
            .flatten()
            .and_then(|f| read_hint_from(&f));
        if peek.is_some_and(|h| Some(h.stamp) == version(path)) {
            return Ok(());
        }
        // A file (or directory) we may only read cannot be repaired by us: read it as it is.
        let read_only = |e: &CoreError| {
            matches!(e, CoreError::Io { source, .. }
                if source.kind() == std::io::ErrorKind::PermissionDenied)
        };
        let guard = match lock(path) {
            Ok(g) => g,
            Err(e) if read_only(&e) => return Ok(()),
            Err(e) => return Err(e),
        };
        match settle(path, &guard, &journal, None) {
            Err(e) if !read_only(&e) => Err(e),
            _ => Ok(()),
        }
    }

    /// Adds one line to the file, in a version checked to hold our recent writes. `order`:
    /// the line's time when it may be older than the section's last entry (a copied entry):
    /// it then goes in time order, not at the end (files too large to read whole excepted).
    #[allow(clippy::too_many_arguments)]
    fn write_line(
        &self,
        path: &Path,
        guard: &FileLock,
        journal: &Journal,
        scope: Scope,
        line: &str,
        id: &str,
        order: Option<NaiveDateTime>,
    ) -> Result<()> {
        for _ in 0..REWRITE_ATTEMPTS {
            let checked = settle(path, guard, journal, Some(id))?;
            let Some((f, h)) = checked.file else {
                match replace(path, &format::new_file(scope, line), Expect::Absent)? {
                    Replaced::Done(ours) => {
                        let bytes = format::new_file(scope, line);
                        guard.write_hint(Some(Hint::after(&bytes, ours)));
                        return Ok(());
                    }
                    _ => continue,
                }
            };
            let ordered = order.filter(|_| h.stamp.len <= FULL_READ_MAX);
            if scope == Scope::Archival && h.append_ok && ordered.is_none() {
                let nl = if h.crlf { "\r\n" } else { "\n" };
                let add = format!("{line}{nl}");
                let after = append_bytes(&f, path, add.as_bytes(), h.stamp.len)?;
                guard.write_hint(Some(Hint { stamp: after, ..h }));
                return Ok(());
            }
            // A large file whose archival section ends it, in an unfinished line: still an
            // append, planned from the tail. Anything else (a core entry, archival not last)
            // is a rewrite, which reads the whole file.
            if scope == Scope::Archival && h.stamp.len > FULL_READ_MAX {
                let facts = tail::scan(&f, h.stamp.len).at(path)?;
                if let Some(add) = facts.and_then(|t| t.archival_append(line)) {
                    let after = append_bytes(&f, path, &add, h.stamp.len)?;
                    guard.write_hint(Some(Hint {
                        stamp: after,
                        append_ok: true,
                        crlf: h.crlf,
                    }));
                    return Ok(());
                }
            }
            let bytes = read_all(&f, path)?;
            let (written, result) = if bytes.is_empty() {
                let out = format::new_file(scope, line);
                let r = replace(path, &out, Expect::Is(h.stamp))?;
                (out, r)
            } else {
                let edit = match ordered {
                    Some(ts) => format::plan_insert_in_order(
                        &bytes,
                        &format::parse(&bytes),
                        scope,
                        line,
                        ts,
                    ),
                    // Only the sections' places matter here, not their entries.
                    None => {
                        format::plan_insert(&bytes, &format::parse_structure(&bytes), scope, line)
                    }
                };
                let crlf = format::uses_crlf(&bytes);
                match edit {
                    Edit::Append(add) => {
                        let after = append_bytes(&f, path, &add, h.stamp.len)?;
                        ([&bytes[..], &add].concat(), Replaced::Done(after))
                    }
                    edit @ Edit::Insert(..) => {
                        let out = format::normalize(&format::apply(&bytes, &edit), crlf);
                        let r = replace(path, &out, Expect::Is(h.stamp))?;
                        (out, r)
                    }
                }
            };
            match result {
                Replaced::Changed => continue,
                Replaced::Done(after) => {
                    guard.write_hint(Some(Hint::after(&written, after)));
                }
                Replaced::Displaced(theirs) => {
                    // Ours is in (so this append succeeded, whatever follows); what only the
                    // displaced file held is journalled and put back now or at the next access.
                    let now = journal::now_ms();
                    let tracked = journal.load(now).unwrap_or_default();
                    let removed = journal::removed_lines(&tracked);
                    let rescued = journal::rescued(&theirs, &written, now, &removed);
                    guard.write_hint(None);
                    if journal.append(&rescued).is_ok() {
                        let _ = settle(path, guard, journal, None);
                    }
                }
            }
            return Ok(());
        }
        Err(CoreError::Conflict(format!(
            "{} kept changing while it was being rewritten ({REWRITE_ATTEMPTS} tries); \
             nothing was written, try again",
            path.display()
        )))
    }
}

impl MarkdownMemoryStore {
    /// One curation change as a rewrite of the file under the lock: checked against the
    /// journal first, recorded in the history around the rename (see memory/history.rs).
    fn curate_file(&self, owner: &Owner, req: curate::Request) -> Result<history::Change> {
        let path = self.path(owner);
        let dir = path.parent().unwrap_or(Path::new("."));
        let history = history::History::beside(&path);
        let guard = lock(&path)?;
        remove_stray_temp_files(dir);
        let journal = Journal::for_memory(&path);
        for _ in 0..REWRITE_ATTEMPTS {
            let checked = settle(&path, &guard, &journal, None)?;
            let (file, before) = match checked.file {
                Some((f, h)) => (Some(f), Some(h)),
                None => (None, None),
            };
            let view = match &file {
                Some(f) => FileView::of(f, &path)?,
                None => FileView::Owned(Vec::new()),
            };
            let bytes: &[u8] = &view;
            let expect = before.map_or(Expect::Absent, |h| Expect::Is(h.stamp));
            let exact = req.exact.as_ref().and_then(|(splices, diffs)| {
                markdown_curate::exact_inverse(bytes, splices).map(|inv| (inv, diffs))
            });
            let planned = match exact {
                Some((inv, diffs)) => markdown_curate::plan_exact(bytes, inv, diffs.clone()),
                None => markdown_curate::plan_steps(bytes, &req.steps)?,
            };
            let mut change = req.head.clone();
            change.entries = planned.applied.diffs.clone();
            change.splices = planned.applied.splices.clone();
            change.len_after = Some(planned.len as u64);
            history.intent(&change)?;
            let parts = planned.parts(bytes);
            let pieces = planned.pieces();
            let new = match &file {
                Some(f) => NewFile::Pieces(f, &pieces),
                None => NewFile::Parts(&parts),
            };
            let mut displaced = None;
            match replace_with(&path, new, expect) {
                Err(e) => {
                    let _ = history.abort(&change.id);
                    return Err(e);
                }
                Ok(Replaced::Changed) => {
                    history.abort(&change.id)?;
                    continue;
                }
                Ok(Replaced::Done(ours)) => {
                    // The hint the file had still holds where the change kept to entry lines
                    // away from the file's end; otherwise it is worked out from the new bytes.
                    let hint = match before {
                        Some(h) if !planned.added_heading => {
                            let ends_nl = parts
                                .iter()
                                .rev()
                                .find(|p| !p.is_empty())
                                .is_some_and(|p| p.ends_with(b"\n"));
                            Hint {
                                stamp: ours,
                                append_ok: h.append_ok && ends_nl,
                                crlf: h.crlf,
                            }
                        }
                        _ => Hint::after(&planned.bytes(bytes), ours),
                    };
                    guard.write_hint(Some(hint));
                }
                Ok(Replaced::Displaced(theirs)) => {
                    guard.write_hint(None);
                    displaced = Some(theirs);
                }
            }
            note_in_journal(&journal, &change, bytes);
            if let Some(theirs) = displaced {
                // Ours is in; what only the runtime's displaced file held is put back, except
                // what this change (or a recent one) took out. Journalled after the change's
                // own lines: those stand, and a rescued line missing while a later write
                // stands would count as removed on purpose.
                let out = planned.bytes(bytes);
                let now = journal::now_ms();
                let tracked = journal.load(now).unwrap_or_default();
                let mut removed = journal::removed_lines(&tracked);
                removed.extend(
                    change
                        .entries
                        .iter()
                        .filter_map(|d| d.before.as_ref())
                        .map(|b| (b.scope, b.line.as_str())),
                );
                let _ = journal.append(&journal::rescued(&theirs, &out, now, &removed));
            }
            history.commit(&change.id)?;
            drop(parts);
            drop(pieces);
            drop(planned);
            // The replaced file's pages are freed when its last holder lets go (tens of ms
            // for a large file): not on the caller's time.
            std::thread::spawn(move || drop((view, file)));
            return Ok(change);
        }
        Err(CoreError::Conflict(format!(
            "{} kept changing while it was being rewritten ({REWRITE_ATTEMPTS} tries); \
             nothing was changed, try again",
            path.display()
        )))
    }
}

/// The bytes of an open MEMORY.md for a curation change: the page cache mapped (no copy of a
/// 100 MB file in memory), else read. Only while the lock is held: every writer that takes it
/// replaces the file by rename and the runtime does too, so the mapped file is never cut short
/// under us.
enum FileView {
    #[cfg(unix)]
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl FileView {
    fn of(f: &File, path: &Path) -> Result<FileView> {
        #[cfg(unix)]
        {
            if f.metadata().at(path)?.len() > SMALL_FILE {
                // SAFETY: see the type's notes: nobody truncates the file in place meanwhile.
                if let Ok(m) = unsafe { memmap2::Mmap::map(f) } {
                    return Ok(FileView::Mapped(m));
                }
            }
        }
        Ok(FileView::Owned(read_all(f, path)?))
    }
}

impl std::ops::Deref for FileView {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            #[cfg(unix)]
            FileView::Mapped(m) => m,
            FileView::Owned(v) => v,
        }
    }
}

/// Keeps the journal's promise (memory/journal.rs) true after a curation change: a recent
/// console write the change removed was removed on purpose and must not come back; the lines
/// it wrote are protected like appends, and the lines it removed are recorded too, so that a
/// runtime rewrite made from a copy read before the change (which brings them back) has the
/// whole change made again, not only its new lines. `old`: the file the change was made on.
/// Best effort: the change itself is already made.
fn note_in_journal(journal: &Journal, change: &history::Change, old: &[u8]) {
    let now = journal::now_ms();
    let tracked = journal.load(now).unwrap_or_default();
    let same =
        |t: &Tracked, scope: Scope, line: &str| !t.dropped && t.scope == scope && t.line == line;
    // What the change really moved: an entry written back as it was is neither.
    let diffs: Vec<&curate::EntryDiff> = change
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

impl LongTermMemoryStore for MarkdownMemoryStore {
    fn backend(&self) -> Backend {
        Backend::Markdown
    }

    fn location(&self, owner: &Owner) -> String {
        self.path(owner).display().to_string()
    }

    fn stamp(&self, owner: &Owner) -> Option<crate::memory::store::Stamp> {
        Some(crate::memory::store::Stamp::of_files(&[&self.path(owner)]))
    }

    fn size(&self, owner: &Owner) -> Option<u64> {
        crate::memory::store::FileVersion::of(&self.path(owner)).map(|v| v.bytes())
    }

    fn append(
        &self,
        owner: &Owner,
        scope: Scope,
        content: &str,
        at: Option<NaiveDateTime>,
    ) -> Result<Entry> {
        let path = self.path(owner);
        let dir = path.parent().unwrap_or(Path::new("."));
        fsx::memory_dir(&path, true)?;
        let ts = at.unwrap_or_else(now_local);
        let line = render_line(Some(&ts), content);
        let entry = Entry {
            timestamp: Some(ts),
            content: content.to_string(),
            line,
        };
        let guard = lock(&path)?;
        remove_stray_temp_files(dir);
        let journal = Journal::for_memory(&path);
        let now = journal::now_ms();
        // Best effort: a journal that cannot be compacted now (disk full) still works.
        let _ = journal.compact_if_large(now);
        // Journalled first: a write killed half-way is completed by the next check, and one
        // that fails takes its record back out.
        let id = journal::new_id();
        let before = journal.byte_len();
        journal.append(&[Record::Write {
            id: id.clone(),
            at: now,
            scope,
            line: entry.line.clone(),
            rescued: false,
        }])?;
        let after = journal.byte_len();
        if let Err(e) = self.write_line(&path, &guard, &journal, scope, &entry.line, &id, at) {
            if journal.byte_len() == after {
                let _ = journal.truncate(before);
            } else {
                let _ = journal.append(&[Record::Dropped { id, at: now }]);
            }
            return Err(e);
        }
        Ok(entry)
    }

    fn history(&self, owner: &Owner) -> Option<history::History> {
        Some(history::History::beside(&self.path(owner)))
    }

    fn curate(&self, owner: &Owner, req: curate::Request) -> Result<history::Change> {
        self.curate_file(owner, req)
    }

    fn holds(&self, owner: &Owner, change: &history::Change) -> Result<bool> {
        let bytes = read_or_empty(&self.path(owner))?;
        Ok(markdown_curate::holds(
            &bytes,
            &change.splices,
            change.len_after,
        ))
    }

    fn load_all(&self, owner: &Owner) -> Result<Sections> {
        let path = self.path(owner);
        self.settle_for_read(&path)?;
        Ok(format::parse(&read_or_empty(&path)?).sections)
    }

    fn count(&self, owner: &Owner) -> Result<EntryCounts> {
        let path = self.path(owner);
        self.settle_for_read(&path)?;
        let mut counts = EntryCounts::default();
        // Counting needs only where each line starts: a line is held up to 1 MiB, so the
        // agents list of a gigabyte MEMORY.md stays small.
        let Some(mut reader) = fsx::open_memory(&path, fsx::Access::Read)?
            .map(|f| BlockReader::with_line_cap(f, COUNT_LINE_CAP))
        else {
            return Ok(counts);
        };
        let mut section = None;
        while let Some((block, from)) = reader.next_block().at(&path)? {
            let heads = format::headings(block, from);
            let mut cursor = SectionCursor::new(&heads, section);
            // Between two headings every line is an entry or blank.
            let mut pos = from;
            let mut bounds = heads.iter().map(|(h, _)| (h.start, h.next));
            loop {
                let (stop, resume) = bounds.next().unwrap_or((block.len(), block.len()));
                let target = match cursor.at(pos) {
                    Some(Scope::Core) => Some(&mut counts.core),
                    Some(Scope::Archival) => Some(&mut counts.archival),
                    None => None,
                };
                if let Some(n) = target {
                    *n += format::lines(&block[..stop], pos)
                        .filter(|l| !format::is_blank(block, *l))
                        .count();
                }
                if stop >= block.len() {
                    break;
                }
                pos = resume;
            }
            section = cursor.end();
        }
        Ok(counts)
    }

    fn recall(&self, owner: &Owner, keyword: &str) -> Result<Vec<Entry>> {
        let path = self.path(owner);
        self.settle_for_read(&path)?;
        let needle = keyword.to_lowercase();
        let probe = Probe::of(&needle);
        let finder = probe
            .as_ref()
            .map(|p| memchr::memmem::Finder::new(p.bytes.as_bytes()).into_owned());
        let mut hits = Vec::new();
        let Some(mut reader) = open_blocks(&path)? else {
            return Ok(hits);
        };
        let mut folded = Vec::new();
        let mut section = None;
        while let Some((block, from)) = reader.next_block().at(&path)? {
            let heads = format::headings(block, from);
            let mut cursor = SectionCursor::new(&heads, section);
            let mut check = |span: format::LineSpan, cursor: &mut SectionCursor| {
                if cursor.at(span.start) != Some(Scope::Archival) {
                    return;
                }
                let text = format::line_text(block, span);
                if classify(&text) == LineKind::Text {
                    let entry = format::parse_entry(&text);
                    if contains_ci(&entry.content, &needle) {
                        hits.push(entry);
                    }
                }
            };
            let exact_probe = match (&probe, &finder) {
                (Some(p), Some(f))
                    if !(p.kelvin
                        && memchr::memmem::find(block, crate::memory::store::KELVIN_SIGN.as_bytes())
                            .is_some()) =>
                {
                    Some((p, f))
                }
                _ => None,
            };
            match exact_probe {
                // Only lines holding the probe can match: find them with one substring search
                // over the block (ASCII letters folded when the probe has any).
                Some((p, finder)) => {
                    let hay: &[u8] = if p.ascii_folded {
                        folded.clear();
                        folded.extend(block.iter().map(u8::to_ascii_lowercase));
                        &folded
                    } else {
                        block
                    };
                    let mut pos = from;
                    while let Some(i) = finder.find(&hay[pos..]) {
                        let span = format::line_around(block, from, pos + i);
                        check(span, &mut cursor);
                        pos = span.next.max(pos + i + 1);
                        if pos >= block.len() {
                            break;
                        }
                    }
                }
                None => {
                    for span in format::lines(block, from) {
                        check(span, &mut cursor);
                    }
                }
            }
            section = cursor.end();
        }
        Ok(hits)
    }

    fn load_context(&self, owner: &Owner, archival_limit: usize) -> Result<ContextEntries> {
        let path = self.path(owner);
        self.settle_for_read(&path)?;
        let Some(mut file) = fsx::open_memory(&path, fsx::Access::Read)? else {
            return Ok(ContextEntries::default());
        };
        let len = file.metadata().at(&path)?.len();
        if len > SMALL_FILE {
            if let Some(ctx) = load_head_and_tail(&mut file, len, archival_limit).at(&path)? {
                return Ok(ctx);
            }
        }
        if len > FULL_READ_MAX {
            file.seek(SeekFrom::Start(0)).at(&path)?;
            return stream_context(file, archival_limit).at(&path);
        }
        let sections = self.load_all(owner)?;
        Ok(ContextEntries {
            core: sections.core,
            archival_tail: sections.archival,
        })
    }
}

/// The prompt's entries in one streaming pass (a large file whose archival section is not last):
/// every core entry, and only as many of the newest archival entries as the window can use.
fn stream_context(file: File, archival_limit: usize) -> std::io::Result<ContextEntries> {
    let mut reader = BlockReader::new(file);
    let mut ctx = ContextEntries::default();
    let mut tail = std::collections::VecDeque::new();
    // Characters of `tail` as the window counts them (each line and its joining break).
    let mut chars = 0usize;
    let mut section = None;
    while let Some((block, from)) = reader.next_block()? {
        let heads = format::headings(block, from);
        let mut cursor = SectionCursor::new(&heads, section);
        for span in format::lines(block, from) {
            let Some(scope) = cursor.at(span.start) else {
                continue;
            };
            if format::is_blank(block, span) {
                continue;
            }
            let text = format::line_text(block, span);
            if classify(&text) != LineKind::Text {
                continue;
            }
            let entry = format::parse_entry(&text);
            match scope {
                Scope::Core => ctx.core.push(entry),
                Scope::Archival => {
                    chars += entry.line_chars() + 1;
                    tail.push_back(entry);
                    // The oldest kept entry is not needed once the newer ones fill the window.
                    while tail.len() > 1 {
                        let oldest = tail.front().map_or(0, |e: &Entry| e.line_chars() + 1);
                        if chars - oldest <= archival_limit + 1 {
                            break;
                        }
                        chars -= oldest;
                        tail.pop_front();
                    }
                }
            }
        }
        section = cursor.end();
    }
    ctx.archival_tail = tail.into();
    Ok(ctx)
}

fn open_blocks(path: &Path) -> Result<Option<BlockReader<File>>> {
    Ok(fsx::open_memory(path, fsx::Access::Read)?.map(BlockReader::new))
}

/// Reads the head up to the archival heading (core lives there) and the archival tail backwards
/// until the window is covered. `None` when the file's shape needs a full read (the archival
/// section is not last, or there is none).
fn load_head_and_tail(
    file: &mut File,
    len: u64,
    archival_limit: usize,
) -> std::io::Result<Option<ContextEntries>> {
    let Some((head, body_start)) = read_head(file, len)? else {
        return Ok(None);
    };
    let core = format::parse(&head).sections.core;
    let Some(tail) = read_tail(file, len, body_start, archival_limit)? else {
        return Ok(None);
    };
    Ok(Some(ContextEntries {
        core,
        archival_tail: tail,
    }))
}

/// The bytes up to and including the archival heading line, and where its body starts.
fn read_head(file: &mut File, len: u64) -> std::io::Result<Option<(Vec<u8>, u64)>> {
    file.seek(SeekFrom::Start(0))?;
    let mut head = Vec::new();
    let mut scanned = 0usize;
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(None);
        }
        head.extend_from_slice(&buf[..n]);
        // Only complete lines can be classified; rescan from the last complete line.
        let complete = memchr::memrchr(b'\n', &head).map_or(0, |i| i + 1);
        let found =
            format::lines(&head[..complete], scanned.max(format::bom_len(&head))).find(|span| {
                classify(&format::line_text(&head, *span))
                    == LineKind::Heading(Some(Scope::Archival))
            });
        if let Some(span) = found {
            head.truncate(span.next);
            return Ok(Some((head, span.next as u64)));
        }
        scanned = complete;
        // A head this long (a giant line before the archival heading) is left to the
        // streaming load, which holds no more than a block of it.
        if head.len() as u64 >= len || head.len() > format::LINE_CAP {
            return Ok(None);
        }
    }
}

/// Archival entries from the end of the file back to `body_start`, stopping once more than the
/// window's worth of characters is collected. `None` if another heading follows the archival one.
fn read_tail(
    file: &mut File,
    len: u64,
    body_start: u64,
    limit: usize,
) -> std::io::Result<Option<Vec<Entry>>> {
    let mut pos = len;
    // The bytes after the current chunk that do not make a whole line yet, as read (the piece
    // nearest the chunk last). Kept in pieces so a line of many chunks (a 50 MB entry) is
    // joined once, not copied again with every chunk.
    let mut carry: Vec<Vec<u8>> = Vec::new();
    let mut newest_first: Vec<Entry> = Vec::new();
    let mut chars = 0usize;
    // Of a line longer than this only its end is kept (and its start, read last): the window
    // shows at most `limit` characters of the newest line, taken from its end.
    let keep = TAIL_LINE_KEEP.max(4 * limit + 64);
    let mut carried = 0usize;
    while pos > body_start {
        let start = pos.saturating_sub(CHUNK as u64).max(body_start);
        let mut chunk = vec![0u8; (pos - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut chunk)?;
        pos = start;
        // Unless we reached the section start, the first line may be cut: keep it for later.
        let first_complete = if pos == body_start {
            0
        } else {
            match memchr::memchr(b'\n', &chunk) {
                Some(i) => i + 1,
                None => {
                    if carried < keep {
                        carried += chunk.len();
                        carry.push(chunk);
                    }
                    continue;
                }
            }
        };
        for piece in carry.drain(..).rev() {
            chunk.extend_from_slice(&piece);
        }
        carried = first_complete;
        let spans: Vec<_> = format::lines(&chunk, first_complete).collect();
        for span in spans.iter().rev() {
            let text = format::line_text(&chunk, *span);
            match classify(&text) {
                LineKind::Heading(_) => return Ok(None),
                LineKind::Blank => {}
                LineKind::Text => {
                    let entry = format::parse_entry(&text);
                    chars += entry.line_chars() + 1;
                    newest_first.push(entry);
                }
            }
        }
        carry.push(chunk[..first_complete].to_vec());
        if chars > limit + 1 {
            break;
        }
    }
    newest_first.reverse();
    Ok(Some(newest_first))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::curation::{Action, Target};
    use crate::memory::window;

    fn store() -> (tempfile::TempDir, MarkdownMemoryStore) {
        let dir = tempfile::tempdir().unwrap();
        let s = MarkdownMemoryStore::new(dir.path());
        (dir, s)
    }

    /// What a writer without our lock does between our read and our rename.
    type Interference = Option<Box<dyn FnMut(&Path)>>;

    #[derive(Clone, Copy, PartialEq, Eq)]
    pub(super) enum Phase {
        /// After the temp file is written, before the version check.
        BeforeCheck,
        /// After the version check, right before the rename.
        BeforeRename,
    }

    thread_local! {
        static BEFORE_REPLACE: std::cell::RefCell<Interference> =
            const { std::cell::RefCell::new(None) };
        static BEFORE_RENAME: std::cell::RefCell<Interference> =
            const { std::cell::RefCell::new(None) };
    }

    pub(super) fn hook(phase: Phase, path: &Path) {
        let slot = match phase {
            Phase::BeforeCheck => &BEFORE_REPLACE,
            Phase::BeforeRename => &BEFORE_RENAME,
        };
        slot.with(|h| {
            if let Some(f) = h.borrow_mut().as_mut() {
                f(path)
            }
        });
    }

    #[test]
    fn a_copied_older_entry_goes_in_time_order_not_at_the_end() {
        let text = "preamble kept\n## 核心记忆\n- [2026-03-02 00:00:00] core b\n## 归档记忆\n\
                    - [2026-03-01 00:00:00] one\n- [2026-03-03 00:00:00] three\n";
        let (_d, s, owner, path) = agent_file(text);
        let t =
            |v: &str| Some(chrono::NaiveDateTime::parse_from_str(v, "%Y-%m-%d %H:%M:%S").unwrap());
        s.append(&owner, Scope::Archival, "two", t("2026-03-02 00:00:00"))
            .unwrap();
        s.append(&owner, Scope::Archival, "zero", t("2026-01-01 00:00:00"))
            .unwrap();
        s.append(&owner, Scope::Archival, "four", t("2026-03-04 00:00:00"))
            .unwrap();
        s.append(&owner, Scope::Core, "core a", t("2026-03-01 00:00:00"))
            .unwrap();
        s.append(&owner, Scope::Archival, "now", None).unwrap();
        let all = s.load_all(&owner).unwrap();
        let names = |v: &[Entry]| v.iter().map(|e| e.content.clone()).collect::<Vec<_>>();
        assert_eq!(names(&all.core), ["core a", "core b"]);
        assert_eq!(
            names(&all.archival),
            ["zero", "one", "two", "three", "four", "now"]
        );
        let back = fs::read_to_string(&path).unwrap();
        assert!(back.starts_with("preamble kept\n## 核心记忆\n"), "{back}");
        // The window takes the file's newest entries, as before the copy.
        let ctx = s.load_context(&owner, 4000).unwrap();
        assert_eq!(ctx.archival_tail.last().unwrap().content, "now");
    }

    /// Agent `a`'s MEMORY.md in a fresh store, holding `text`.
    fn agent_file(text: &str) -> (tempfile::TempDir, MarkdownMemoryStore, Owner, PathBuf) {
        let (d, s) = store();
        let owner = Owner::Agent("a".into());
        let path = s.path(&owner);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        (d, s, owner, path)
    }

    /// What the Java runtime does to write: the whole file to a temp file, renamed over it, no
    /// lock.
    fn replace_unlocked(path: &Path, text: String) {
        let tmp = path.with_extension("java-tmp");
        fs::write(&tmp, text).unwrap();
        fs::rename(&tmp, path).unwrap();
    }

    /// A writer without our lock (as the Java runtime) replaces the file between our read and
    /// our rename: its entry survives and ours lands too.
    #[test]
    fn a_rewrite_never_overwrites_what_an_unlocked_writer_just_wrote() {
        let (_d, s, owner, _path) = agent_file(
            "## 核心记忆\n- [2026-01-01 00:00:00] one\n## 归档记忆\n- [2026-01-01 00:00:00] a\n",
        );
        let mut interfered = 0;
        BEFORE_REPLACE.with(|h| {
            *h.borrow_mut() = Some(Box::new(move |p: &Path| {
                if interfered < 2 {
                    interfered += 1;
                    let text = fs::read_to_string(p).unwrap().replace(
                        "## 归档记忆\n",
                        &format!(
                            "- [2026-01-01 00:00:0{interfered}] java {interfered}\n## 归档记忆\n"
                        ),
                    );
                    replace_unlocked(p, text);
                }
            }));
        });
        s.append(&owner, Scope::Core, "ours", None).unwrap();
        BEFORE_REPLACE.with(|h| *h.borrow_mut() = None);
        let core: Vec<_> = s
            .load_all(&owner)
            .unwrap()
            .core
            .into_iter()
            .map(|e| e.content)
            .collect();
        assert_eq!(core, ["one", "java 1", "java 2", "ours"]);
    }

    /// The runtime renames its file in after our version check, right before our rename: the
    /// exchange hands us the file we displaced, and its entry is put back.
    #[test]
    fn an_entry_renamed_in_at_the_last_instant_is_rescued() {
        let (_d, s, owner, path) = agent_file(
            "## 核心记忆\n- [2026-01-01 00:00:00] one\n## 归档记忆\n- [2026-01-01 00:00:00] a\n",
        );
        let mut interfered = false;
        BEFORE_RENAME.with(|h| {
            *h.borrow_mut() = Some(Box::new(move |p: &Path| {
                if !interfered {
                    interfered = true;
                    let mut text = fs::read_to_string(p).unwrap();
                    text.push_str("- [2026-01-01 00:00:01] java\n");
                    replace_unlocked(p, text);
                }
            }));
        });
        s.append(&owner, Scope::Core, "ours", None).unwrap();
        BEFORE_RENAME.with(|h| *h.borrow_mut() = None);
        let all = s.load_all(&owner).unwrap();
        let core: Vec<_> = all.core.iter().map(|e| e.content.as_str()).collect();
        let arch: Vec<_> = all.archival.iter().map(|e| e.content.as_str()).collect();
        assert_eq!(core, ["one", "ours"]);
        assert_eq!(arch, ["a", "java"]);
        let journal = fs::read_to_string(journal::journal_path(&path)).unwrap();
        assert!(journal.contains("\"rescued\":true"), "{journal}");
    }

    /// What the runtime does: read all, keep only the two sections, add its line, rename.
    fn runtime_append(path: &Path, base: &str, line: &str) {
        let p = format::parse(base.as_bytes());
        let join = |v: &[Entry]| {
            v.iter()
                .map(|e| e.line.clone())
                .collect::<Vec<_>>()
                .join("\n")
        };
        let mut arch = join(&p.sections.archival);
        if !arch.is_empty() {
            arch.push('\n');
        }
        arch.push_str(line);
        let text = format!(
            "## 核心记忆\n{}\n## 归档记忆\n{arch}",
            join(&p.sections.core)
        );
        replace_unlocked(path, text);
    }

    #[test]
    fn a_write_dropped_by_a_runtime_rewrite_is_put_back_in_its_place() {
        let (_d, s) = store();
        let owner = Owner::Agent("a".into());
        let path = s.path(&owner);
        let ts = |t: &str| crate::timefmt::parse_entry_ts(t);
        s.append(&owner, Scope::Archival, "first", ts("2026-01-01 00:00:01"))
            .unwrap();
        let base = fs::read_to_string(&path).unwrap();
        s.append(&owner, Scope::Archival, "ours", ts("2026-01-01 00:00:02"))
            .unwrap();
        s.append(&owner, Scope::Core, "core ours", ts("2026-01-01 00:00:02"))
            .unwrap();
        // The runtime read before our two writes and renames after them.
        runtime_append(&path, &base, "- [2026-01-01 00:00:03] runtime");
        let all = s.load_all(&owner).unwrap();
        let arch: Vec<_> = all.archival.iter().map(|e| e.content.as_str()).collect();
        assert_eq!(arch, ["first", "ours", "runtime"]);
        assert_eq!(all.core.len(), 1);
        let journal = fs::read_to_string(journal::journal_path(&path)).unwrap();
        assert_eq!(
            journal.matches("\"kind\":\"restored\"").count(),
            2,
            "{journal}"
        );
        // Checked once: the next read finds the file as the lock file remembers it.
        let stamp = version(&path);
        s.load_all(&owner).unwrap();
        assert_eq!(version(&path), stamp);
    }

    const RACED: &str = "## 核心记忆\n- [2026-01-01 00:00:00] core\n## 归档记忆\n\
                         - [2026-01-01 00:00:01] one\n- [2026-01-01 00:00:02] two\n";

    /// A console service over agent `a`'s MEMORY.md holding `text`.
    fn curated(
        text: &str,
    ) -> (
        tempfile::TempDir,
        crate::memory::MemoryService,
        Owner,
        PathBuf,
    ) {
        let (d, s, owner, path) = agent_file(text);
        let svc = crate::memory::MemoryService::new(std::sync::Arc::new(s), 4000);
        (d, svc, owner, path)
    }

    fn archival(svc: &crate::memory::MemoryService, owner: &Owner) -> Vec<String> {
        let all = svc.store().load_all(owner).unwrap();
        all.archival.into_iter().map(|e| e.content).collect()
    }

    fn act(svc: &crate::memory::MemoryService, owner: &Owner, i: usize, action: Action) {
        let all = svc.store().load_all(owner).unwrap();
        let target = Target {
            id: all.id(Scope::Archival, i).unwrap(),
            expect: Some(all.archival[i].content.clone()),
        };
        svc.change(owner, &[target], &action).unwrap();
    }

    /// The runtime renames a file made from a copy read before a console edit: the edit is
    /// made again (the old line goes, the new one is put back), never both versions.
    #[test]
    fn an_edit_raced_by_a_rewrite_from_the_old_copy_is_made_again() {
        let (_d, svc, owner, path) = curated(RACED);
        let base = fs::read_to_string(&path).unwrap();
        let edit = Action::Edit {
            content: "TWO".into(),
            restamp: false,
        };
        act(&svc, &owner, 1, edit);
        runtime_append(&path, &base, "- [2026-01-01 00:00:03] runtime");
        assert_eq!(archival(&svc, &owner), ["one", "TWO", "runtime"]);
        svc.undo(&owner, None).unwrap();
        assert_eq!(archival(&svc, &owner), ["one", "two", "runtime"]);
    }

    /// ... a delete stays deleted (and can still be undone) ...
    #[test]
    fn a_delete_raced_by_a_rewrite_from_the_old_copy_stays_deleted() {
        let (_d, svc, owner, path) = curated(RACED);
        let base = fs::read_to_string(&path).unwrap();
        act(&svc, &owner, 0, Action::Delete);
        runtime_append(&path, &base, "- [2026-01-01 00:00:03] runtime");
        assert_eq!(archival(&svc, &owner), ["two", "runtime"]);
        let h = svc.history(&owner, None).unwrap();
        assert_eq!(h.changes.len(), 1);
        svc.undo(&owner, None).unwrap();
        assert_eq!(archival(&svc, &owner), ["one", "two", "runtime"]);
    }

    /// ... and an undo is not undone: what it took out stays out, what it put back stays.
    #[test]
    fn an_undo_raced_by_a_rewrite_from_the_old_copy_is_made_again() {
        let (_d, svc, owner, path) = curated(RACED);
        let edit = Action::Edit {
            content: "TWO".into(),
            restamp: false,
        };
        act(&svc, &owner, 1, edit);
        let base = fs::read_to_string(&path).unwrap();
        svc.undo(&owner, None).unwrap();
        runtime_append(&path, &base, "- [2026-01-01 00:00:03] runtime");
        assert_eq!(archival(&svc, &owner), ["one", "two", "runtime"]);
        svc.redo(&owner).unwrap();
        let base = fs::read_to_string(&path).unwrap();
        act(&svc, &owner, 0, Action::Delete);
        svc.undo(&owner, None).unwrap();
        runtime_append(&path, &base, "- [2026-01-01 00:00:04] runtime 2");
        assert_eq!(
            archival(&svc, &owner),
            ["one", "TWO", "runtime", "runtime 2"]
        );
    }

    /// The runtime renames its file (made from the copy before the change) in the instant
    /// before ours: the exchange hands it back, and the deleted line is not rescued from it.
    #[test]
    fn a_delete_displacing_an_old_copy_does_not_rescue_the_deleted_line() {
        let (_d, svc, owner, _path) = curated(RACED);
        let mut interfered = false;
        BEFORE_RENAME.with(|h| {
            *h.borrow_mut() = Some(Box::new(move |p: &Path| {
                if !interfered {
                    interfered = true;
                    let base = fs::read_to_string(p).unwrap();
                    runtime_append(p, &base, "- [2026-01-01 00:00:03] runtime");
                }
            }));
        });
        act(&svc, &owner, 0, Action::Delete);
        BEFORE_RENAME.with(|h| *h.borrow_mut() = None);
        assert_eq!(archival(&svc, &owner), ["two", "runtime"]);
    }

    /// The runtime replaces the file between a change's plan and its rename: the change is
    /// planned again under its id (intent, abort, intent, commit) and stays in the history.
    #[test]
    fn a_change_planned_again_stays_in_the_history_and_undoes() {
        let (_d, svc, owner, _path) = curated(RACED);
        let mut interfered = false;
        BEFORE_REPLACE.with(|h| {
            *h.borrow_mut() = Some(Box::new(move |p: &Path| {
                if !interfered {
                    interfered = true;
                    let base = fs::read_to_string(p).unwrap();
                    runtime_append(p, &base, "- [2026-01-01 00:00:03] runtime");
                }
            }));
        });
        act(&svc, &owner, 0, Action::Delete);
        BEFORE_REPLACE.with(|h| *h.borrow_mut() = None);
        assert_eq!(archival(&svc, &owner), ["two", "runtime"]);
        let h = svc.history(&owner, None).unwrap();
        assert_eq!(h.changes.len(), 1);
        svc.undo(&owner, None).unwrap();
        assert_eq!(archival(&svc, &owner), ["one", "two", "runtime"]);
    }

    /// A person who puts a deleted line back while a later console write stands meant it.
    #[test]
    fn a_deleted_line_put_back_by_hand_after_a_later_write_stays() {
        let (_d, svc, owner, path) = curated(RACED);
        act(&svc, &owner, 0, Action::Delete);
        svc.append(&owner, Scope::Archival, "later").unwrap();
        let text = fs::read_to_string(&path).unwrap().replace(
            "## 归档记忆\n",
            "## 归档记忆\n- [2026-01-01 00:00:01] one\n",
        );
        replace_unlocked(&path, text);
        assert_eq!(archival(&svc, &owner), ["one", "two", "later"]);
    }

    #[test]
    fn an_entry_removed_by_hand_after_a_later_write_stays_removed() {
        let (_d, s) = store();
        let owner = Owner::Agent("a".into());
        let path = s.path(&owner);
        s.append(&owner, Scope::Archival, "keep me", None).unwrap();
        s.append(&owner, Scope::Archival, "delete me", None)
            .unwrap();
        s.append(&owner, Scope::Archival, "later", None).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let edited: String = text
            .lines()
            .filter(|l| !l.ends_with("delete me"))
            .map(|l| format!("{l}\n"))
            .collect();
        fs::write(&path, edited).unwrap();
        let arch: Vec<_> = s
            .load_all(&owner)
            .unwrap()
            .archival
            .into_iter()
            .map(|e| e.content)
            .collect();
        assert_eq!(arch, ["keep me", "later"]);
        let journal = fs::read_to_string(journal::journal_path(&path)).unwrap();
        assert!(journal.contains("\"kind\":\"dropped\""), "{journal}");
        s.append(&owner, Scope::Archival, "next", None).unwrap();
        assert_eq!(s.load_all(&owner).unwrap().archival.len(), 3);
    }

    #[test]
    fn a_rewrite_drops_the_bom_and_canonicalises_headings_keeping_the_line_ending() {
        let (_d, s, owner, path) =
            agent_file("\u{feff}# kept\r\n## Core\r\n- a\r\n## Archival (archival)\r\n- b\r\n");
        s.append(&owner, Scope::Core, "c", None).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("# kept\r\n## 核心记忆\r\n- a\r\n- ["),
            "{text:?}"
        );
        assert!(text.contains("] c\r\n## 归档记忆\r\n- b\r\n"), "{text:?}");
        assert_eq!(text.matches('\n').count(), text.matches("\r\n").count());
    }

    /// A plain archival append keeps the file as it is and uses its line ending, also on the
    /// fast path that does not read the file.
    #[test]
    fn appends_to_a_crlf_file_stay_crlf() {
        let (_d, s) = store();
        let owner = Owner::Agent("a".into());
        let path = s.path(&owner);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let base = "\u{feff}## Core\r\n- a\r\n## 归档记忆\r\n- b\r\n";
        fs::write(&path, base).unwrap();
        for i in 0..3 {
            s.append(&owner, Scope::Archival, &format!("n{i}"), None)
                .unwrap();
        }
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(base), "{text:?}");
        assert_eq!(
            text.matches('\n').count(),
            text.matches("\r\n").count(),
            "{text:?}"
        );
        assert_eq!(s.load_all(&owner).unwrap().archival.len(), 4);
    }

    #[test]
    fn a_file_that_never_settles_is_a_conflict_not_a_lost_write() {
        let (_d, s, owner, _path) = agent_file("## 归档记忆\n- x\n");
        BEFORE_REPLACE.with(|h| {
            *h.borrow_mut() = Some(Box::new(|p: &Path| {
                let mut text = fs::read_to_string(p).unwrap();
                text.push_str("- more\n");
                replace_unlocked(p, text);
            }));
        });
        let err = s.append(&owner, Scope::Core, "ours", None).unwrap_err();
        BEFORE_REPLACE.with(|h| *h.borrow_mut() = None);
        assert!(matches!(err, CoreError::Conflict(_)), "{err}");
        let all = s.load_all(&owner).unwrap();
        assert!(all.core.is_empty());
        assert_eq!(all.archival.len(), 1 + REWRITE_ATTEMPTS);
    }

    /// Found by the property tests: a core insert into a file whose archival heading has no
    /// final newline must not let the next archival append glue itself onto that heading.
    #[test]
    fn fast_append_needs_a_finished_last_line() {
        let (_d, s, owner, path) = agent_file("### archival");
        s.append(&owner, Scope::Core, "c", None).unwrap();
        s.append(&owner, Scope::Archival, "z", None).unwrap();
        let all = s.load_all(&owner).unwrap();
        assert_eq!(all.core.len(), 1);
        assert_eq!(all.archival.len(), 1, "{:?}", fs::read_to_string(&path));
    }

    #[test]
    fn first_write_creates_file_and_headings() {
        let (_d, s) = store();
        s.append(&Owner::Global, Scope::Archival, "hello", None)
            .unwrap();
        let text = fs::read_to_string(s.path(&Owner::Global)).unwrap();
        assert!(text.starts_with("## 核心记忆\n## 归档记忆\n- ["));
        assert!(text.ends_with("] hello\n"));
    }

    #[test]
    fn archival_append_does_not_rewrite_the_file() {
        let (_d, s) = store();
        let owner = Owner::Agent("a".into());
        s.append(&owner, Scope::Archival, "one", None).unwrap();
        let path = s.path(&owner);
        #[cfg(unix)]
        let inode = {
            use std::os::unix::fs::MetadataExt;
            fs::metadata(&path).unwrap().ino()
        };
        s.append(&owner, Scope::Archival, "two", None).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            assert_eq!(
                fs::metadata(&path).unwrap().ino(),
                inode,
                "rename would change the inode"
            );
        }
        s.append(&owner, Scope::Core, "core fact", None).unwrap();
        let all = s.load_all(&owner).unwrap();
        assert_eq!(all.core.len(), 1);
        assert_eq!(all.archival.len(), 2);
    }

    #[test]
    fn temp_files_of_a_killed_rewrite_are_cleaned_on_the_next_write() {
        let (_d, s) = store();
        let owner = Owner::Global;
        s.append(&owner, Scope::Core, "first", None).unwrap();
        let dir = s.path(&owner).parent().unwrap().to_path_buf();
        let stray = dir.join(".MEMORY.md.abc123.tmp");
        fs::write(&stray, "half a file").unwrap();
        s.append(&owner, Scope::Archival, "second", None).unwrap();
        assert!(!stray.exists());
        assert_eq!(s.load_all(&owner).unwrap().archival.len(), 1);
    }

    #[test]
    fn a_change_by_a_writer_without_our_lock_is_noticed_before_the_next_append() {
        let (_d, s) = store();
        let owner = Owner::Global;
        s.append(&owner, Scope::Archival, "ours 1", None).unwrap();
        let path = s.path(&owner);
        // Another writer adds a section after archival without taking the lock.
        let mut text = fs::read_to_string(&path).unwrap();
        text.push_str("## Notes\nhand written\n");
        fs::write(&path, &text).unwrap();
        s.append(&owner, Scope::Archival, "ours 2", None).unwrap();
        let after = fs::read_to_string(&path).unwrap();
        assert!(after.ends_with("## Notes\nhand written\n"), "{after}");
        let all = s.load_all(&owner).unwrap();
        let contents: Vec<_> = all.archival.iter().map(|e| e.content.as_str()).collect();
        assert_eq!(contents, vec!["ours 1", "ours 2"]);
    }

    fn big_file(path: &Path, entries: usize) -> String {
        let mut text =
            String::from("preamble\n## 核心记忆\n- [2026-01-01 00:00:00] 核心事实\n## 归档记忆\n");
        for i in 0..entries {
            text.push_str(&format!(
                "- [2026-01-01 00:00:00] 归档条目 number {i} with some text\n"
            ));
        }
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, &text).unwrap();
        text
    }

    #[test]
    fn head_and_tail_load_equals_full_load_within_the_window() {
        let (_d, s) = store();
        let owner = Owner::Global;
        big_file(&s.path(&owner), 20_000);
        let ctx = s.load_context(&owner, 4000).unwrap();
        let all = s.load_all(&owner).unwrap();
        assert!(
            ctx.archival_tail.len() < 5000,
            "read {} entries",
            ctx.archival_tail.len()
        );
        assert_eq!(ctx.core, all.core);
        let w_tail = window::compute(&ctx.archival_tail, 4000);
        let w_all = window::compute(&all.archival, 4000);
        assert_eq!(w_tail.text, w_all.text);
    }

    #[test]
    fn tail_load_falls_back_when_archival_is_not_last() {
        let (_d, s) = store();
        let owner = Owner::Global;
        let path = s.path(&owner);
        let mut text = big_file(&path, 10_000);
        text.push_str("## Later heading\n- [2026-01-01 00:00:00] not archival\n");
        fs::write(&path, &text).unwrap();
        let ctx = s.load_context(&owner, 4000).unwrap();
        assert_eq!(ctx.archival_tail.len(), 10_000);
        assert_eq!(
            ctx.archival_tail.last().unwrap().content,
            "归档条目 number 9999 with some text"
        );
    }

    /// What recall and count were before the streaming scans: a full parse, then a filter.
    fn recall_by_parse(bytes: &[u8], keyword: &str) -> Vec<Entry> {
        let needle = keyword.to_lowercase();
        format::parse(bytes)
            .sections
            .archival
            .into_iter()
            .filter(|e| contains_ci(&e.content, &needle))
            .collect()
    }

    /// Files in every dialect SPEC §3 reads, with keywords in every place they can hide.
    fn mixed_files() -> Vec<Vec<u8>> {
        let mut files: Vec<Vec<u8>> = vec![
            "preamble Kubernetes\n## 核心记忆\n- [2026-01-01 00:00:00] core kubernetes 数据库迁移\n## 归档记忆\n- [2026-01-02 00:00:00] KUBERNETES up\n- [2026-01-02] 准备数据库迁移\n\n   \n  - [2026-01-02 03:04] indented Kube\nplain line kubernetes\n## Notes kubernetes\n- kubernetes in notes\n## Archival\n- second archival kubeRNETES\n  ## 归档记忆（archival）\n- 第三个 数据库迁移 #1 ## no\n#hashtag kubernetes\n\u{3000}## Core\n- ideographic-space heading made this core: kubernetes\n## 核心记忆（archival）\n- ambiguous heading: not ours kubernetes\n".into(),
            "\u{feff}## Archival\r\n- [2026-01-01 00:00:00] crlf Kubernetes\r\n- TAX\u{130} taxi \u{212A}ubernetes\r\n- [not a date] ärger ÄRGER\r\n- no newline at the end kubernetes".into(),
            Vec::new(),
            "no headings at all kubernetes\n".into(),
        ];
        files.push(b"## \xE5\xBD\x92\xE6\xA1\xA3\xE8\xAE\xB0\xE5\xBF\x86\n- bad \xFF byte kubernetes\n- \xE6\x95 half a char \xE6\x95\xB0\xE6\x8D\xAE\n".to_vec());
        // One large file so that lines and sections cross block boundaries.
        let mut big = String::from("## 核心记忆\n- core\n## 归档记忆\n");
        for i in 0..200_000 {
            big.push_str(&format!(
                "- [2026-01-01 00:00:00] entry {i} {}\n",
                if i % 997 == 0 {
                    "Kubernetes 数据库迁移"
                } else {
                    "filler text 日志"
                }
            ));
            if i % 50_000 == 7 {
                big.push_str("## 核心记忆\n- core in the middle kubernetes\n\n## 归档记忆\n");
            }
        }
        files.push(big.into_bytes());
        files
    }

    #[test]
    fn streaming_recall_and_count_equal_the_full_parse() {
        let (_d, s) = store();
        let owner = Owner::Global;
        let path = s.path(&owner);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let keywords = [
            "kubernetes",
            "KUBE",
            "数据库迁移",
            "数据",
            "taxi",
            "tax",
            "i",
            "ärger",
            "",
            " ",
            "#1",
            "## no",
            "2026",
            "entry 1",
            "日志",
            "\u{fffd}",
            "k",
        ];
        for (n, bytes) in mixed_files().iter().enumerate() {
            fs::write(&path, bytes).unwrap();
            let parsed = format::parse(bytes);
            for kw in keywords {
                assert_eq!(
                    s.recall(&owner, kw).unwrap(),
                    recall_by_parse(bytes, kw),
                    "file {n}, keyword {kw:?}"
                );
            }
            let counts = s.count(&owner).unwrap();
            assert_eq!(
                (counts.core, counts.archival),
                (parsed.sections.core.len(), parsed.sections.archival.len()),
                "file {n}"
            );
            let structure = format::parse_structure(bytes);
            assert_eq!(
                (structure.core, structure.archival, structure.crlf),
                (parsed.core, parsed.archival, parsed.crlf),
                "file {n}"
            );
        }
        assert_eq!(
            s.recall(&Owner::Agent("missing".into()), "x").unwrap(),
            vec![]
        );
        assert_eq!(
            s.count(&Owner::Agent("missing".into())).unwrap(),
            EntryCounts::default()
        );
    }

    fn bytes_read() -> u64 {
        BYTES_READ.with(|c| c.get())
    }

    /// A large sparse MEMORY.md: entries, then `hole` NUL bytes never written (one long line of
    /// the archival section), then `tail`.
    fn sparse_file(path: &Path, hole: u64, tail: &str) -> u64 {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let head = "## 核心记忆\n- [2026-01-01 00:00:00] core fact\n## 归档记忆\n- [2026-01-01 00:00:01] first\n";
        fs::write(path, head).unwrap();
        let f = fs::OpenOptions::new().append(true).open(path).unwrap();
        f.set_len(head.len() as u64 + hole).unwrap();
        (&f).write_all(tail.as_bytes()).unwrap();
        f.metadata().unwrap().len()
    }

    /// Issue #17: an archival append read the whole file (twice: the journal check and the
    /// structure). Now it reads the file's tail back to the archival heading.
    #[test]
    fn an_archival_append_to_a_large_sparse_file_reads_only_its_tail() {
        let (_d, s) = store();
        for (n, (hole, tail)) in [
            (512u64 << 20, ""),
            (256 << 20, "\n- [2026-01-01 00:00:02] last\n"),
        ]
        .into_iter()
        .enumerate()
        {
            let owner = Owner::Agent(format!("big{n}"));
            let path = s.path(&owner);
            let before = sparse_file(&path, hole, tail);
            let read0 = bytes_read();
            let ts = crate::timefmt::parse_entry_ts("2026-02-01 00:00:00");
            s.append(&owner, Scope::Archival, "appended", ts).unwrap();
            s.append(&owner, Scope::Archival, "again", ts).unwrap();
            let read = bytes_read() - read0;
            assert!(read < 1 << 20, "read {read} bytes of a {before}-byte file");
            // Exactly the bytes the whole-file plan adds: a line break ends the NUL line first.
            let sep = if tail.is_empty() { "\n" } else { "" };
            let want =
                format!("{sep}- [2026-02-01 00:00:00] appended\n- [2026-02-01 00:00:00] again\n");
            let f = File::open(&path).unwrap();
            let len = f.metadata().unwrap().len();
            assert_eq!(len, before + want.len() as u64);
            let mut end = vec![0u8; want.len()];
            std::os::unix::fs::FileExt::read_exact_at(&f, &mut end, before).unwrap();
            assert_eq!(String::from_utf8(end).unwrap(), want);
            // Counted as archival entries, streaming, with the long line cut in memory.
            let counts = s.count(&owner).unwrap();
            let nul_line = usize::from(hole > 0);
            let tail_entries = usize::from(!tail.is_empty());
            assert_eq!(
                (counts.core, counts.archival),
                (1, 1 + nul_line + tail_entries + 2)
            );
            // The prompt's window: the newest entries, the core fact, nothing of the hole.
            let ctx = s.load_context(&owner, 4000).unwrap();
            assert_eq!(ctx.core.len(), 1);
            let w = window::compute(&ctx.archival_tail, 4000);
            assert!(
                w.text.ends_with("appended\n- [2026-02-01 00:00:00] again"),
                "{}",
                w.text.len()
            );
        }
    }

    /// The journal check of a large file that changed behind the lock counts the journalled
    /// lines in one streaming pass: a write still there is not put back twice, a core write
    /// still rewrites the file, and a runtime-dropped write is put back.
    #[test]
    fn the_journal_check_of_a_large_file_streams() {
        let (_d, s) = store();
        let owner = Owner::Agent("big".into());
        let path = s.path(&owner);
        let before = sparse_file(&path, 32 << 20, "\n");
        s.append(&owner, Scope::Archival, "ours", None).unwrap();
        // Someone else appends (no lock, so the lock file's stamp no longer matches).
        fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"- [2026-01-01 00:00:09] theirs\n")
            .unwrap();
        s.append(&owner, Scope::Archival, "ours 2", None).unwrap();
        let all = s.load_all(&owner).unwrap();
        let arch: Vec<_> = all.archival.iter().map(|e| e.content.as_str()).collect();
        assert_eq!(arch.len(), 5, "{:?}", &arch[arch.len() - 3..]);
        assert_eq!(&arch[2..], ["ours", "theirs", "ours 2"]);
        // The runtime rewrites the file without our two writes: both come back.
        let text = fs::read(&path).unwrap();
        let cut = memchr::memmem::find(&text, b"- [20")
            .map(|_| ())
            .and(Some(before as usize + 1))
            .unwrap();
        let mut base = text[..cut].to_vec();
        base.extend_from_slice(b"- [2026-01-01 00:00:10] runtime\n");
        let tmp = path.with_extension("java-tmp");
        fs::write(&tmp, &base).unwrap();
        fs::rename(&tmp, &path).unwrap();
        let arch: Vec<_> = s
            .load_all(&owner)
            .unwrap()
            .archival
            .into_iter()
            .map(|e| e.content)
            .collect();
        assert!(
            arch.contains(&"ours".to_string()) && arch.contains(&"ours 2".to_string()),
            "{:?}",
            &arch[2..]
        );
    }

    #[test]
    fn concurrent_appends_lose_nothing() {
        let (_d, s) = store();
        let s = std::sync::Arc::new(s);
        let owner = Owner::Agent("c".into());
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let s = s.clone();
                let owner = owner.clone();
                std::thread::spawn(move || {
                    for i in 0..20 {
                        let scope = if i % 5 == 0 {
                            Scope::Core
                        } else {
                            Scope::Archival
                        };
                        s.append(&owner, scope, &format!("t{t} i{i}"), None)
                            .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let all = s.load_all(&owner).unwrap();
        assert_eq!(all.core.len() + all.archival.len(), 160);
        assert_eq!(all.core.len(), 32);
    }
}
