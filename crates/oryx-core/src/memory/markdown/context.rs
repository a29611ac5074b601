//! The prompt's load of a large MEMORY.md: its head up to the archival heading and its tail
//! back to the window's worth, or one streaming pass when the shape needs it; never the whole
//! file in memory.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::runtime_text;
use crate::error::Result;
use crate::memory::entry::{is_runtime_space, trim_runtime, Entry, Scope};
use crate::memory::format::{self, classify, BlockReader, LineKind, SectionCursor};
use crate::memory::store::{ContextEntries, RuntimeText};
use crate::memory::window::RawArchival;
use crate::rooted_fs;

const CHUNK: usize = 64 * 1024;
/// The most of one line the prompt's tail load keeps: the window needs only the newest line's
/// end, and a gigabyte line must not be held whole.
const TAIL_LINE_KEEP: usize = 1 << 20;

/// The prompt's entries in one streaming pass (a large file whose archival section is not last):
/// every core entry, and only as many of the newest archival entries as the window can use.
pub(super) fn stream_context(file: File, archival_limit: usize) -> std::io::Result<ContextEntries> {
    let mut reader = BlockReader::new(file);
    let mut ctx = ContextEntries::default();
    let mut tail = VecDeque::new();
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

pub(super) fn open_blocks(path: &Path) -> Result<Option<BlockReader<File>>> {
    Ok(rooted_fs::open_memory(path, rooted_fs::Access::Read)?.map(BlockReader::new))
}

/// Reads the head up to the archival heading (core lives there) and the archival tail backwards
/// until the window is covered. `None` when the file's shape needs a full read (the archival
/// section is not last, or there is none).
pub(super) fn load_head_and_tail(
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
        runtime_text: None,
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

/// The prompt's load of a large file the runtime reads, from its head and its end: the head up
/// to the runtime's first archival heading (its core section must lie there), and the end of
/// the file back until more than `units` characters of archival text are held. `None` when the
/// file's shape needs a full read: no such heading in the head, text after it on its line, or
/// any line after it that the runtime or the console may take for a heading (the runtime's
/// section would end there, or the console's entries would not all be archival). The part
/// between is scanned for headings without being kept.
pub(super) fn load_runtime_head_and_tail(
    file: &mut File,
    len: u64,
    units: usize,
) -> std::io::Result<Option<ContextEntries>> {
    let Some((head, core_text, body_start)) = read_runtime_head(file, len)? else {
        return Ok(None);
    };
    let core = format::parse(&head).sections.core;
    let mut pos = len;
    // Chunks read, the newest first, while they are kept.
    let mut kept: Vec<Vec<u8>> = Vec::new();
    let mut keeping = true;
    // The first bytes of the chunk after the one being read: a heading split between them.
    let mut later: Vec<u8> = Vec::new();
    let mut line_start = len;
    while pos > body_start {
        let start = pos.saturating_sub(CHUNK as u64).max(body_start);
        let mut chunk = vec![0u8; (pos - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut chunk)?;
        pos = start;
        let probe = [&chunk[..], &later[..]].concat();
        if runtime_text::may_hold_heading(&probe) || may_hold_console_heading(&chunk) {
            return Ok(None);
        }
        later = chunk[..chunk.len().min(32)].to_vec();
        if keeping {
            kept.push(chunk);
            let at_start = pos == body_start;
            let joined: Vec<u8> = kept.iter().rev().flatten().copied().collect();
            let from = if at_start {
                0
            } else {
                match memchr::memchr(b'\n', &joined) {
                    Some(i) => i + 1,
                    None => continue,
                }
            };
            let held = std::str::from_utf8(&joined[from..])
                .map(|t| t.trim_end_matches(is_runtime_space).chars().count())
                .unwrap_or(usize::MAX);
            if at_start || held > units {
                keeping = false;
                line_start = pos + from as u64;
                kept = vec![joined[from..].to_vec()];
            }
        }
    }
    let bytes = kept.pop().unwrap_or_default();
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Ok(None);
    };
    let section = if line_start == body_start {
        trim_runtime(text)
    } else {
        text.trim_end_matches(is_runtime_space)
    };
    let a0 = section.as_ptr() as usize - text.as_ptr() as usize;
    let a1 = a0 + section.len();
    let mut archival_tail = Vec::new();
    let mut spans = Vec::new();
    for span in format::lines(&bytes, 0) {
        let line = &text[span.start..span.end];
        if classify(line) != LineKind::Text {
            continue;
        }
        let trimmed = trim_runtime(line);
        let s = span.start + (line.len() - line.trim_start_matches(is_runtime_space).len());
        let e = s + trimmed.len();
        archival_tail.push(format::parse_entry(line));
        spans.push((s >= a0 && e <= a1).then(|| s - a0..e - a0));
    }
    Ok(Some(ContextEntries {
        core,
        archival_tail,
        runtime_text: Some(RuntimeText {
            core: core_text,
            archival: RawArchival {
                text: section.to_string(),
                spans,
            },
        }),
    }))
}

/// The head up to and including the runtime's first archival heading line, the runtime's core
/// section text, and where the line after the heading starts.
fn read_runtime_head(file: &mut File, len: u64) -> std::io::Result<Option<(Vec<u8>, String, u64)>> {
    file.seek(SeekFrom::Start(0))?;
    let mut head = Vec::new();
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(None);
        }
        head.extend_from_slice(&buf[..n]);
        let complete = memchr::memrchr(b'\n', &head).map_or(0, |i| i + 1);
        let Ok(text) = std::str::from_utf8(&head[..complete]) else {
            return Ok(None);
        };
        if let Some(at) = memchr::memmem::find(text.as_bytes(), format::ARCHIVAL_HEADING.as_bytes())
        {
            // The first archival heading (as the runtime finds it) must end its `\n` line.
            let line_end = at + memchr::memchr(b'\n', &text.as_bytes()[at..]).map_or(0, |i| i + 1);
            let with = &text[..line_end];
            if trim_runtime(&text[at + format::ARCHIVAL_HEADING.len()..line_end]).is_empty() {
                if let Some(core) = runtime_text::head_sections(with) {
                    head.truncate(line_end);
                    return Ok(Some((head, core, line_end as u64)));
                }
            }
            return Ok(None);
        }
        if head.len() as u64 >= len || head.len() > format::LINE_CAP {
            return Ok(None);
        }
    }
}

/// Whether a line of `chunk` may be a heading for the console (a `#` after nothing but
/// whitespace on its line); a `#` whose line starts before the chunk counts as one.
fn may_hold_console_heading(chunk: &[u8]) -> bool {
    memchr::memchr_iter(b'#', chunk).any(|at| {
        let before = &chunk[..at];
        let line = memchr::memrchr(b'\n', before).map_or(before, |i| &before[i + 1..]);
        match std::str::from_utf8(line) {
            Ok(s) => s.chars().all(is_runtime_space),
            // Cut inside a character at the chunk's start: undecided, so yes.
            Err(_) => true,
        }
    })
}
