//! A MEMORY.md's entries as slices of its bytes, for the health checks: the sections and
//! entries [`format::parse`] reads, without an owned `Entry` (two Strings) per line — on a
//! 100 MB file that parse alone costs more than every check together.

use chrono::NaiveDateTime;

#[cfg(test)]
use super::super::curate::markdown_id;
use super::super::curate::{line_hash, line_hashes};
use super::super::entry::{
    is_runtime_space, trim_runtime, trim_runtime_end, trim_runtime_start, Scope,
};
use super::super::format::{self, LineKind};
use super::entries::Entries;
use super::finding::{markdown_entry_id, EntryId};
use crate::timefmt::{is_runtime_entry_ts, parse_entry_ts};

/// An entry as offsets into the file: the stored line (trimmed) is `start..end`, its content
/// `content..end` (a content always ends where its trimmed line ends). Sixteen bytes, where two
/// string slices and a parsed time took fifty-six: the 100 MB file has ~900 000 entries.
#[derive(Clone, Copy)]
struct Line {
    start: u32,
    content: u32,
    end: u32,
    /// Position in its section, [`CORE`] set for a core entry.
    ordinal: u32,
}

const CORE: u32 = 1 << 31;

pub struct FileEntries<'a> {
    text: &'a str,
    lines: Vec<Line>,
}

/// Below this many bytes the file is split into entries on one thread.
const PARALLEL_FROM: usize = 4 << 20;

impl<'a> FileEntries<'a> {
    /// The entries of `bytes`, or `None` when it is not UTF-8 (then the parser's lossy reading
    /// must decide what each line says) or too large for 32-bit offsets (the parser again).
    pub fn read(bytes: &'a [u8]) -> Option<Self> {
        let threads = match bytes.len() < PARALLEL_FROM {
            true => 1,
            false => crate::cores::cores(),
        };
        Self::read_in(bytes, threads)
    }

    /// [`Self::read`] in `threads` parts, each split on its own core.
    fn read_in(bytes: &'a [u8], threads: usize) -> Option<Self> {
        u32::try_from(bytes.len()).ok()?;
        let text = utf8(bytes)?;
        let from = format::bom_len(bytes);
        // Parts that start at line starts: each cut follows a `\n`, an ASCII byte, so it falls
        // between characters.
        let mut cuts = vec![from];
        for k in 1..threads {
            let at = (bytes.len() * k / threads).max(*cuts.last().expect("a cut"));
            match memchr::memchr(b'\n', &bytes[at..]) {
                Some(i) => cuts.push(at + i + 1),
                None => break,
            }
        }
        cuts.push(bytes.len());
        // The first part's list becomes the file's (see `merge`): room for all of it, which
        // costs nothing until it is written.
        let scan = |a: usize, b: usize| {
            let room = match a == from {
                true => bytes.len(),
                false => b - a,
            } / 64;
            Part::scan(&text[a..b], a, room)
        };
        let parts: Vec<Part> = if cuts.len() == 2 {
            vec![scan(from, bytes.len())]
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = cuts
                    .windows(2)
                    .map(|w| {
                        let (a, b) = (w[0], w[1]);
                        s.spawn(move || scan(a, b))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a line split thread panicked"))
                    .collect()
            })
        };
        Some(FileEntries {
            text,
            lines: merge(parts),
        })
    }

    fn stored(&self, l: &Line) -> &str {
        &self.text[l.start as usize..l.end as usize]
    }
}

/// The entries of one part of the file. Until its first heading the part does not know which
/// section its lines are in: those wait in `pending` for the parts before it.
#[derive(Default)]
struct Part {
    pending: Vec<Line>,
    /// After the first heading: ordinals counted from the part's first heading.
    lines: Vec<Line>,
    /// The section open at the end of the part, if a heading was seen.
    last: Option<Option<Scope>>,
    core: u32,
    archival: u32,
}

impl Part {
    /// The entries of `text`, the part of the file that starts at byte `base`, as
    /// `format::parse` reads them: a heading opens its section (or none), blank lines are
    /// skipped, any other line of a section is an entry.
    fn scan(text: &str, base: usize, room: usize) -> Part {
        let mut part = Part {
            lines: Vec::with_capacity(room),
            ..Part::default()
        };
        for span in format::lines(text.as_bytes(), 0) {
            let line = &text[span.start..span.end];
            // An entry line as the runtime writes it is neither blank nor a heading.
            let kind = match line.as_bytes().first() {
                Some(b'-') => LineKind::Text,
                _ => format::classify(line),
            };
            match kind {
                LineKind::Heading(scope) => part.last = Some(scope),
                LineKind::Blank => {}
                LineKind::Text => {
                    let (a, c, e) = entry_span(line);
                    let at = |o: usize| (base + span.start + o) as u32;
                    let mut l = Line {
                        start: at(a),
                        content: at(c),
                        end: at(e),
                        ordinal: 0,
                    };
                    match part.last {
                        None => part.pending.push(l),
                        Some(None) => {}
                        Some(Some(scope)) => {
                            l.ordinal = match scope {
                                Scope::Core => (post(&mut part.core)) | CORE,
                                Scope::Archival => post(&mut part.archival),
                            };
                            part.lines.push(l);
                        }
                    }
                }
            }
        }
        part
    }
}

/// `n`, then one more.
fn post(n: &mut u32) -> u32 {
    *n += 1;
    *n - 1
}

/// The parts' entries in file order, numbered in their sections across parts.
fn merge(parts: Vec<Part>) -> Vec<Line> {
    let all: usize = parts.iter().map(|p| p.pending.len() + p.lines.len()).sum();
    let mut out = Vec::new();
    let (mut section, mut core, mut archival): (Option<Scope>, u32, u32) = (None, 0, 0);
    for part in parts {
        for mut l in part.pending {
            match section {
                None => continue,
                Some(Scope::Core) => l.ordinal = post(&mut core) | CORE,
                Some(Scope::Archival) => l.ordinal = post(&mut archival),
            }
            out.push(l);
        }
        let Some(last) = part.last else { continue };
        if out.is_empty() && core == 0 && archival == 0 {
            // Nothing before it: its list is kept as it is (not copied: a part's share of ~900 000
            // lines).
            out = part.lines;
            out.reserve(all - out.len());
        } else {
            // A heading of this part reopens a section: its numbers go on from the parts before.
            out.extend(part.lines.into_iter().map(|mut l| {
                l.ordinal += if l.ordinal & CORE != 0 {
                    core
                } else {
                    archival
                };
                l
            }));
        }
        core += part.core;
        archival += part.archival;
        section = last;
    }
    out
}

/// The stored line, the content and the end of an entry line, as offsets into it
/// ([`entry_parts`], with the runtime's own `- [yyyy-MM-dd HH:mm:ss] ` read by hand).
fn entry_span(line: &str) -> (usize, usize, usize) {
    let b = line.as_bytes();
    if b.len() > 23 && b.starts_with(b"- [") && b[22] == b']' && is_runtime_entry_ts(&b[3..22]) {
        let end = trim_runtime_end(line).len().max(23);
        let rest = &line[23..end];
        let content = end - trim_runtime_start(rest).len();
        return (0, content, end);
    }
    let (stored, content, _) = entry_parts(line);
    let at = |s: &str| s.as_ptr() as usize - line.as_ptr() as usize;
    (at(stored), at(content), at(stored) + stored.len())
}

/// `bytes` as text if it is UTF-8 (simdutf8: std's check of a 100 MB file of Chinese text took
/// a third of the checks' time).
fn utf8(bytes: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(bytes).ok()
}

/// `format::parse_entry` without copies: the stored line, the content, the time.
fn entry_parts(line: &str) -> (&str, &str, Option<NaiveDateTime>) {
    let trimmed = trim_runtime(line);
    let Some(rest) = trimmed
        .strip_prefix('-')
        .filter(|r| r.is_empty() || r.starts_with(is_runtime_space))
    else {
        return (trimmed, trimmed, None);
    };
    let rest = rest.trim_start_matches(is_runtime_space);
    if let Some(after) = rest.strip_prefix('[') {
        if let Some(close) = after.find(']') {
            if let Some(ts) = parse_entry_ts(&after[..close]) {
                return (trimmed, trim_runtime(&after[close + 1..]), Some(ts));
            }
        }
    }
    (trimmed, rest, None)
}

impl Entries for FileEntries<'_> {
    fn len(&self) -> usize {
        self.lines.len()
    }
    fn text(&self, i: usize) -> &str {
        let l = &self.lines[i];
        &self.text[l.content as usize..l.end as usize]
    }
    fn is_core(&self, i: usize) -> bool {
        self.lines[i].ordinal & CORE != 0
    }
    /// Read again when asked (for the few entries a stale word is found in).
    fn timestamp(&self, i: usize) -> Option<NaiveDateTime> {
        entry_parts(self.stored(&self.lines[i])).2
    }
    fn id(&self, i: usize) -> EntryId {
        let l = &self.lines[i];
        id_of(l, line_hash(self.stored(l)))
    }
    /// The line hashes of many entries at once (see [`line_hashes`]): a near group of a large
    /// file can name most of its entries.
    fn ids_each(&self, idx: &[usize], mut put: impl FnMut(EntryId)) {
        let stored: Vec<&[u8]> = idx
            .iter()
            .map(|&i| self.stored(&self.lines[i]).as_bytes())
            .collect();
        for (&i, h) in idx.iter().zip(line_hashes(&stored)) {
            put(id_of(&self.lines[i], h));
        }
    }
}

fn id_of(l: &Line, h: u32) -> EntryId {
    let scope = match l.ordinal & CORE {
        0 => Scope::Archival,
        _ => Scope::Core,
    };
    markdown_entry_id(scope, (l.ordinal & !CORE) as usize, h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_what_the_parser_reads() {
        let text = "\u{feff}# title\n## 核心记忆\n- [2026-01-02 03:04:05] 核心\n\n  - [2026-13-02 03:04:05] bad month\n\
                    ## Archival\r\n-[2026-01-02 03:04:05] no space\r\n- [2026-01-02 03:04] minutes\n\
                    - [2026-01-02] day\n- [ 2026-01-02 03:04:05 ] padded\n- [2026-01-02 03:04:60] leap\n\
                    plain text\n-\n- [x] box\n### 核心记忆\n## other\nnot an entry\n## 归档记忆\n- last";
        let parsed = format::parse(text.as_bytes());
        let mine = FileEntries::read(text.as_bytes()).unwrap();
        let want: Vec<(bool, String, Option<NaiveDateTime>, String)> =
            [Scope::Core, Scope::Archival]
                .into_iter()
                .flat_map(|scope| {
                    let list = parsed.sections.of(scope);
                    list.iter().enumerate().map(move |(i, e)| {
                        (
                            scope == Scope::Core,
                            e.content.clone(),
                            e.timestamp,
                            markdown_id(scope, i, &e.line),
                        )
                    })
                })
                .collect();
        let got: Vec<_> = (0..mine.len())
            .map(|i| {
                (
                    mine.is_core(i),
                    mine.text(i).to_string(),
                    mine.timestamp(i),
                    mine.id(i).into_string(),
                )
            })
            .collect();
        assert_eq!(got, want);
        assert!(want.len() >= 10, "{want:?}");
    }

    #[test]
    fn parts_split_anywhere_read_as_one() {
        // Sections that open and close across the cuts, lines before any heading, blank and
        // CRLF lines, and entries of every form.
        let mut text = String::from("\u{feff}preamble\n- [2026-01-02 03:04:05] not an entry\n");
        for i in 0..400 {
            match i % 37 {
                0 => text.push_str("## 核心记忆\n"),
                11 => text.push_str("## 归档记忆\r\n"),
                23 => text.push_str("## other\n"),
                29 => text.push_str("## Archival\n\n"),
                _ => {}
            }
            match i % 5 {
                0 => text.push_str(&format!("- [2026-01-02 03:04:{:02}] entry {i}  \n", i % 60)),
                1 => text.push_str(&format!("- entry {i}\r\n")),
                2 => text.push_str(&format!("  - [2026-13-02 03:04:05] {i}\n")),
                3 => text.push_str(&format!("plain {i}\n\n")),
                _ => text.push_str(&format!("-[2026-01-02] {i}\u{3000}\n")),
            }
        }
        let one = FileEntries::read_in(text.as_bytes(), 1).unwrap();
        let parsed = format::parse(text.as_bytes()).sections;
        assert_eq!(one.len(), parsed.core.len() + parsed.archival.len());
        let all: Vec<usize> = (0..one.len()).collect();
        for threads in [2, 3, 7, 64] {
            let parts = FileEntries::read_in(text.as_bytes(), threads).unwrap();
            assert_eq!(parts.len(), one.len(), "{threads} parts");
            assert_eq!(parts.ids(&all), one.ids(&all), "{threads} parts");
            for i in 0..one.len() {
                assert_eq!(
                    (parts.text(i), parts.is_core(i), parts.timestamp(i)),
                    (one.text(i), one.is_core(i), one.timestamp(i))
                );
            }
        }
        // In file order, where the parser gathers each section's entries.
        let mut got = one.ids(&all);
        got.sort();
        let mut want: Vec<String> = [Scope::Core, Scope::Archival]
            .into_iter()
            .flat_map(|scope| {
                let list = parsed.of(scope);
                list.iter()
                    .enumerate()
                    .map(move |(i, e)| markdown_id(scope, i, &e.line))
            })
            .collect();
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn ids_are_markdown_ids() {
        let mut text = String::from("## 核心记忆\n- c\n## 归档记忆\n");
        for i in 0..1_234 {
            text.push_str(&format!("- entry {i}\n"));
        }
        let mine = FileEntries::read(text.as_bytes()).unwrap();
        let parsed = format::parse(text.as_bytes()).sections;
        assert_eq!(
            mine.id(0),
            markdown_id(Scope::Core, 0, &parsed.core[0].line)
        );
        let all: Vec<usize> = (0..mine.len()).collect();
        let batch = mine.ids(&all);
        for i in 0..parsed.archival.len() {
            let want = markdown_id(Scope::Archival, i, &parsed.archival[i].line);
            assert_eq!(mine.id(i + 1), want);
            assert_eq!(batch[i + 1], want);
        }
    }

    #[test]
    fn not_utf8_is_left_to_the_parser() {
        assert!(FileEntries::read(b"## Archival\n- \xff\n").is_none());
    }

    #[test]
    fn a_part_not_utf8_makes_the_file_not_utf8() {
        // A bad byte anywhere, in whichever part it falls (first line, a cut's neighbourhood,
        // last byte), or a character cut short at the end.
        let mut text = String::from("\u{feff}## 归档记忆\n");
        for i in 0..300 {
            text.push_str(&format!("- [2026-01-02 03:04:05] 条目 {i} ⇒ done\n"));
        }
        let good = text.into_bytes();
        for threads in [1, 2, 3, 7] {
            assert!(FileEntries::read_in(&good, threads).is_some(), "{threads}");
        }
        let lines: Vec<usize> = format::lines(&good, 0).map(|l| l.start).collect();
        let mut spots: Vec<usize> = lines.iter().step_by(17).map(|&at| at + 3).collect();
        spots.extend([0, 3, good.len() - 1]);
        for threads in [1, 2, 3, 7] {
            for &at in &spots {
                let mut bad = good.clone();
                bad[at] = 0xff;
                assert!(
                    FileEntries::read_in(&bad, threads).is_none(),
                    "{threads} {at}"
                );
            }
            let cut = &good[..good.len() - 7];
            assert!(
                FileEntries::read_in(cut, threads).is_none(),
                "{threads} cut"
            );
        }
    }
}
