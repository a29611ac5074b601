//! MarkdownMemoryStore: one MEMORY.md per owner.
//!
//! Writers take an advisory lock on `MEMORY.md.lock` for the whole read-modify-write, so writers
//! in other processes that use the lock lose nothing. Archival appends to a file whose archival
//! section ends the file are plain appends; every other edit is an atomic rewrite (temp file in
//! the same directory + rename) that splices the new line in, keeps all other text and writes
//! the file as the runtime reads it (no BOM, canonical headings, one line ending).
//!
//! The Java runtime takes no lock at all: every console access first checks, with the lock
//! held, that the file still holds the console's recent writes and puts back any that a
//! runtime rewrite dropped (memory/journal.rs).

use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};

use chrono::NaiveDateTime;

use super::context::{load_head_and_tail, load_runtime_head_and_tail, open_blocks, stream_context};
use super::curate as markdown_curate;
use super::io::{read_all, read_or_empty};
use super::lock::{lock, lock_path, read_hint_from, version, FileLock, Hint};
use super::rewrite::{
    remove_stray_temp_files, replace, replace_with, Expect, NewFile, Replaced, REWRITE_ATTEMPTS,
};
use super::runtime_text;
use super::settle::{append_bytes, note_in_journal, settle, FULL_READ_MAX};
use super::tail;
use crate::error::{CoreError, IoContext, Result};
use crate::memory::entry::{render_line, Entry, Scope, Sections};
use crate::memory::format::{self, classify, BlockReader, Edit, LineKind, SectionCursor};
use crate::memory::history;
use crate::memory::journal::{self, Journal, Record};
use crate::memory::store::Request;
use crate::memory::store::{
    contains_ci, Backend, ContextEntries, EntryCounts, LongTermMemoryStore, Probe, RuntimeEntry,
    RuntimeText,
};
use crate::names::{memory_path, Owner};
use crate::rooted_fs;
use crate::timefmt::now_local;

/// Files up to this size are simply read whole by the prompt's load.
const SMALL_FILE: u64 = 256 * 1024;
/// The most of one line a count holds (it looks only at how a line starts).
const COUNT_LINE_CAP: usize = 1 << 20;

pub struct MarkdownMemoryStore {
    root: PathBuf,
    /// Keyword recall as the runtime does it (it reads this root): the whole line, time stamp
    /// included, is matched.
    runtime_recall: bool,
}

impl MarkdownMemoryStore {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        MarkdownMemoryStore {
            root: root.into(),
            runtime_recall: false,
        }
    }

    /// Recalls by the runtime's rule when `on` (see the field).
    pub fn with_runtime_recall(mut self, on: bool) -> Self {
        self.runtime_recall = on;
        self
    }

    pub fn path(&self, owner: &Owner) -> PathBuf {
        memory_path(&self.root, owner)
    }

    /// The health of the owner's MEMORY.md: the findings checked from its bytes, the same as
    /// over the owner's parsed view (ids included) at a fraction of the time and memory on a
    /// large file (see [`crate::memory::health::run_markdown`]), and the budget (when asked for) from
    /// the prompt's own load of the file with the window `rule` cuts (see
    /// [`crate::memory::health::budget_from_context`]).
    pub fn health(
        &self,
        owner: &Owner,
        opts: &crate::memory::health::Options,
        rule: impl Into<crate::memory::window::WindowRule>,
    ) -> Result<crate::memory::health::Report> {
        let rule = rule.into();
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
            let ctx = self.load_context(owner, rule.reach())?;
            report.budget = Some(budget_from_context(&ctx, rule, opts));
        }
        Ok(report)
    }
}

impl MarkdownMemoryStore {
    /// Before a read: the journal check, with the lock only when the file changed since.
    pub(crate) fn settle_for_read(&self, path: &Path) -> Result<()> {
        let journal = Journal::for_memory(path);
        if !journal.exists() {
            return Ok(());
        }
        let peek = rooted_fs::open_memory(&lock_path(path), rooted_fs::Access::Read)
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
    fn curate_file(&self, owner: &Owner, req: Request) -> Result<history::Change> {
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
            // Read whole: a change is planned over the bytes of exactly this version.
            let view = match &file {
                Some(f) => read_all(f, &path)?,
                None => Vec::new(),
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
        rooted_fs::memory_dir(&path, true)?;
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

    fn curate(&self, owner: &Owner, req: Request) -> Result<history::Change> {
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
        let Some(mut reader) = rooted_fs::open_memory(&path, rooted_fs::Access::Read)?
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

    fn runtime_archival(&self, owner: &Owner) -> Result<Vec<RuntimeEntry>> {
        let path = self.path(owner);
        self.settle_for_read(&path)?;
        let bytes = read_or_empty(&path)?;
        Ok(runtime_text::archival_entries(&String::from_utf8_lossy(
            &bytes,
        )))
    }

    fn recall(&self, owner: &Owner, keyword: &str) -> Result<Vec<Entry>> {
        let needle = keyword.to_lowercase();
        let path = self.path(owner);
        self.settle_for_read(&path)?;
        if self.runtime_recall {
            // The runtime searches the lines of its raw archival text, each as it stands.
            let bytes = read_or_empty(&path)?;
            return Ok(runtime_text::recall(
                &String::from_utf8_lossy(&bytes),
                keyword,
            ));
        }
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
                        && memchr::memmem::find(
                            block,
                            crate::memory::store::KELVIN_SIGN.as_bytes(),
                        )
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
        let Some(mut file) = rooted_fs::open_memory(&path, rooted_fs::Access::Read)? else {
            return Ok(ContextEntries::default());
        };
        let len = file.metadata().at(&path)?.len();
        if self.runtime_recall {
            return self.load_runtime_context(&path, &mut file, len, archival_limit);
        }
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
            runtime_text: None,
        })
    }
}

impl MarkdownMemoryStore {
    /// The prompt's load as the runtime reads the file: its raw sections, and the console's
    /// entries lined up with them. A large file is read from its head and its end where its
    /// shape allows, else whole.
    fn load_runtime_context(
        &self,
        path: &Path,
        file: &mut std::fs::File,
        len: u64,
        units: usize,
    ) -> Result<ContextEntries> {
        if len > SMALL_FILE {
            if let Some(ctx) = load_runtime_head_and_tail(file, len, units).at(path)? {
                return Ok(ctx);
            }
        }
        let bytes = read_all(file, path)?;
        let parsed = format::parse(&bytes);
        let runtime_text = runtime_text::of_file(&bytes, &parsed.archival_lines)
            .map(|(core, archival)| RuntimeText { core, archival });
        Ok(ContextEntries {
            core: parsed.sections.core,
            archival_tail: parsed.sections.archival,
            runtime_text,
        })
    }
}

#[cfg(test)]
mod tests;
