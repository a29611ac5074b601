//! MarkdownMemoryStore: one MEMORY.md per owner (SPEC §3).
//!
//! Writers take an advisory lock on `MEMORY.md.lock` for the whole read-modify-write, so writers
//! in other processes that use the lock lose nothing. Archival appends to a file whose archival
//! section ends the file are plain appends; every other edit is an atomic rewrite (temp file in
//! the same directory + rename) that splices the new line in and keeps all other bytes.

use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::NaiveDateTime;

use super::entry::{render_line, Entry, Scope, Sections};
use super::format::{self, classify, BlockReader, Edit, LineKind, SectionCursor};
use super::store::{contains_ci, Backend, ContextEntries, EntryCounts, LongTermMemoryStore, Probe};
use crate::error::{CoreError, IoContext, Result};
use crate::fsx;
use crate::names::{memory_path, Owner};
use crate::timefmt::now_local;

/// Files up to this size are simply read whole by the prompt's load.
const SMALL_FILE: u64 = 256 * 1024;
const CHUNK: usize = 64 * 1024;

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
}

/// Holds the cross-process lock for as long as it lives.
///
/// The lock file also remembers, as `<len> <mtime-ns>`, the state of MEMORY.md after our last
/// write when that write left the archival section at the end of the file. If the file still
/// has exactly that length and time, nobody else has touched it and the next archival entry can
/// be appended without reading the file at all; any other writer (the Java runtime does not
/// take this lock) changes the length or time and we read the file again.
pub struct FileLock {
    file: File,
}

impl FileLock {
    fn hint_matches(&self, path: &Path) -> bool {
        let (Ok(meta), Some(hint)) = (fs::metadata(path), self.read_hint()) else {
            return false;
        };
        Some(hint) == stamp(&meta)
    }

    fn read_hint(&self) -> Option<(u64, u128)> {
        let mut text = String::new();
        (&self.file).seek(SeekFrom::Start(0)).ok()?;
        (&self.file).take(64).read_to_string(&mut text).ok()?;
        let mut parts = text.split_whitespace();
        Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
    }

    /// Records the file's state after a write that left archival last (or forgets it).
    fn write_hint(&self, path: &Path, archival_last: bool) {
        let stamp = fs::metadata(path)
            .ok()
            .as_ref()
            .and_then(stamp)
            .filter(|_| archival_last);
        let text = stamp
            .map(|(len, ns)| format!("{len} {ns}\n"))
            .unwrap_or_default();
        let _ = self.file.set_len(0);
        let _ = (&self.file).seek(SeekFrom::Start(0));
        let _ = (&self.file).write_all(text.as_bytes());
    }
}

fn stamp(meta: &fs::Metadata) -> Option<(u64, u128)> {
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some((meta.len(), mtime.as_nanos()))
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
    replace(path, bytes, None).map(|_| ())
}

const REWRITE_ATTEMPTS: usize = 20;

/// What identifies one version of a file: size, modification time and inode (a rename by
/// another writer changes the inode even when size and time collide). `None`: no file.
#[derive(Debug, PartialEq, Eq)]
struct Stamp(Option<(u64, Option<std::time::SystemTime>, u64)>);

fn version(path: &Path) -> Stamp {
    Stamp(fs::metadata(path).ok().map(|m| {
        #[cfg(unix)]
        let ino = std::os::unix::fs::MetadataExt::ino(&m);
        #[cfg(not(unix))]
        let ino = 0;
        (m.len(), m.modified().ok(), ino)
    }))
}

/// `write_atomic`, unless the file is no longer the version `seen` was taken of (then `false`
/// and nothing is written).
fn replace_if_unchanged(path: &Path, bytes: &[u8], seen: &Stamp) -> Result<bool> {
    replace(path, bytes, Some(seen))
}

fn replace(path: &Path, bytes: &[u8], expect: Option<&Stamp>) -> Result<bool> {
    let (dir, name) = fsx::memory_dir(path, true)?.ok_or_else(|| missing(path))?;
    dir.replace(name, bytes, || {
        #[cfg(test)]
        tests::before_replace(path);
        expect.is_none_or(|seen| *seen == version(path))
    })
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

fn append_bytes(path: &Path, add: &[u8]) -> Result<()> {
    let mut f = fsx::open_memory(path, fsx::Access::Append)?.ok_or_else(|| missing(path))?;
    // One write call: a reader never sees half of a short line.
    f.write_all(add).at(path)?;
    f.sync_data().at(path)?;
    Ok(())
}

impl LongTermMemoryStore for MarkdownMemoryStore {
    fn backend(&self) -> Backend {
        Backend::Markdown
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
        if scope == Scope::Archival && guard.hint_matches(&path) {
            append_bytes(&path, format!("{}\n", entry.line).as_bytes())?;
            guard.write_hint(&path, true);
            return Ok(entry);
        }
        // A writer that ignores our lock (the Java runtime) may replace the file between our
        // read and our rename: the rename is then skipped and the edit planned again on what it
        // wrote, so its entry is kept (SPEC §3: lose nothing).
        let mut attempt = 0;
        let archival_last = loop {
            let seen = version(&path);
            let bytes = read_or_empty(&path)?;
            if bytes.is_empty() {
                if replace_if_unchanged(&path, &format::new_file(scope, &entry.line), &seen)? {
                    break true;
                }
            } else {
                // Only the sections' places matter here, not their entries.
                let parsed = format::parse_structure(&bytes);
                let edit = format::plan_insert(&bytes, &parsed, scope, &entry.line);
                let appended = matches!(edit, Edit::Append(_));
                let done = match &edit {
                    Edit::Append(add) => {
                        append_bytes(&path, add)?;
                        true
                    }
                    Edit::Insert(..) => {
                        replace_if_unchanged(&path, &format::apply(&bytes, &edit), &seen)?
                    }
                };
                if done {
                    // An edit inside the file leaves its end alone (the fast append needs that
                    // end to be a complete line); an append of a new archival section makes
                    // archival the last one.
                    let ends_with_line = appended || bytes.last() == Some(&b'\n');
                    break (parsed.archival_ends_file(bytes.len()) && ends_with_line)
                        || (scope == Scope::Archival && parsed.archival.is_none() && appended);
                }
            }
            attempt += 1;
            if attempt == REWRITE_ATTEMPTS {
                return Err(CoreError::Conflict(format!(
                    "{} kept changing while it was being rewritten ({REWRITE_ATTEMPTS} tries); \
                     nothing was written, try again",
                    path.display()
                )));
            }
        };
        guard.write_hint(&path, archival_last);
        Ok(entry)
    }

    fn load_all(&self, owner: &Owner) -> Result<Sections> {
        let path = self.path(owner);
        Ok(format::parse(&read_or_empty(&path)?).sections)
    }

    fn count(&self, owner: &Owner) -> Result<EntryCounts> {
        let path = self.path(owner);
        let mut counts = EntryCounts::default();
        let Some(mut reader) = open_blocks(&path)? else {
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
                        && memchr::memmem::find(block, super::store::KELVIN_SIGN.as_bytes())
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
        let Some(mut file) = fsx::open_memory(&path, fsx::Access::Read)? else {
            return Ok(ContextEntries::default());
        };
        let len = file.metadata().at(&path)?.len();
        if len > SMALL_FILE {
            if let Some(ctx) = load_head_and_tail(&mut file, len, archival_limit).at(&path)? {
                return Ok(ctx);
            }
        }
        let sections = self.load_all(owner)?;
        Ok(ContextEntries {
            core: sections.core,
            archival_tail: sections.archival,
        })
    }
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
        if head.len() as u64 >= len {
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
                    carry.push(chunk);
                    continue;
                }
            }
        };
        for piece in carry.drain(..).rev() {
            chunk.extend_from_slice(&piece);
        }
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
    use crate::memory::window;

    fn store() -> (tempfile::TempDir, MarkdownMemoryStore) {
        let dir = tempfile::tempdir().unwrap();
        let s = MarkdownMemoryStore::new(dir.path());
        (dir, s)
    }

    /// What a writer without our lock does between our read and our rename.
    type Interference = Option<Box<dyn FnMut(&Path)>>;

    thread_local! {
        static BEFORE_REPLACE: std::cell::RefCell<Interference> =
            const { std::cell::RefCell::new(None) };
    }

    pub(super) fn before_replace(path: &Path) {
        BEFORE_REPLACE.with(|h| {
            if let Some(f) = h.borrow_mut().as_mut() {
                f(path)
            }
        });
    }

    /// A writer without our lock (as the Java runtime) replaces the file between our read and
    /// our rename: its entry survives and ours lands too.
    #[test]
    fn a_rewrite_never_overwrites_what_an_unlocked_writer_just_wrote() {
        let (_d, s) = store();
        let owner = Owner::Agent("a".into());
        let path = s.path(&owner);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(
            &path,
            "## 核心记忆\n- [2026-01-01 00:00:00] one\n## 归档记忆\n- [2026-01-01 00:00:00] a\n",
        )
        .unwrap();
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
                    let tmp = p.with_extension("java-tmp");
                    fs::write(&tmp, text).unwrap();
                    fs::rename(&tmp, p).unwrap();
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

    #[test]
    fn a_file_that_never_settles_is_a_conflict_not_a_lost_write() {
        let (_d, s) = store();
        let owner = Owner::Agent("a".into());
        let path = s.path(&owner);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, "## 归档记忆\n- x\n").unwrap();
        BEFORE_REPLACE.with(|h| {
            *h.borrow_mut() = Some(Box::new(|p: &Path| {
                let mut text = fs::read_to_string(p).unwrap();
                text.push_str("- more\n");
                let tmp = p.with_extension("java-tmp");
                fs::write(&tmp, text).unwrap();
                fs::rename(&tmp, p).unwrap();
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
        let (_d, s) = store();
        let owner = Owner::Agent("a".into());
        let path = s.path(&owner);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, "### archival").unwrap();
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
