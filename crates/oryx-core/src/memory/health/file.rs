//! A MEMORY.md's entries as slices of its bytes, for the health checks: the sections and
//! entries [`format::parse`] reads, without an owned `Entry` (two Strings) per line — on a
//! 100 MB file that parse alone costs more than every check together.

use chrono::NaiveDateTime;

#[cfg(test)]
use super::super::curate::markdown_id;
use super::super::curate::{line_hash, line_hashes};
use super::super::entry::{is_runtime_space, trim_runtime, Scope};
use super::super::format::{self, LineKind};
use super::Entries;
use crate::timefmt::parse_entry_ts;

struct Line<'a> {
    /// The line as stored (trimmed): what the entry's id hashes.
    stored: &'a str,
    content: &'a str,
    timestamp: Option<NaiveDateTime>,
    core: bool,
    /// Position in its section.
    ordinal: u32,
}

pub struct FileEntries<'a> {
    lines: Vec<Line<'a>>,
}

impl<'a> FileEntries<'a> {
    /// The entries of `bytes`, or `None` when it is not UTF-8 (then the parser's lossy reading
    /// must decide what each line says).
    pub fn read(bytes: &'a [u8]) -> Option<Self> {
        let text = utf8(bytes)?;
        let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', bytes).count() + 1);
        let mut section: Option<Scope> = None;
        let (mut core_n, mut archival_n) = (0u32, 0u32);
        // As `format::parse`: a heading opens its section (or none), blank lines are skipped,
        // any other line of a section is an entry.
        for span in format::lines(bytes, format::bom_len(bytes)) {
            let line = &text[span.start..span.end];
            match format::classify(line) {
                LineKind::Heading(scope) => section = scope,
                LineKind::Blank => {}
                LineKind::Text => {
                    let Some(scope) = section else { continue };
                    let n = match scope {
                        Scope::Core => &mut core_n,
                        Scope::Archival => &mut archival_n,
                    };
                    let (stored, content, timestamp) = entry_parts(line);
                    lines.push(Line {
                        stored,
                        content,
                        timestamp,
                        core: scope == Scope::Core,
                        ordinal: *n,
                    });
                    *n += 1;
                }
            }
        }
        Some(FileEntries { lines })
    }
}

/// `bytes` as text if it is UTF-8.
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
            if let Some(ts) = entry_ts(&after[..close]) {
                return (trimmed, trim_runtime(&after[close + 1..]), Some(ts));
            }
        }
    }
    (trimmed, rest, None)
}

/// [`parse_entry_ts`], with the form the runtime writes (`yyyy-MM-dd HH:mm:ss`) read by hand:
/// chrono's format parser costs ~0.3 µs an entry, a third of all the checks.
fn entry_ts(s: &str) -> Option<NaiveDateTime> {
    let b = s.as_bytes();
    let shape = b.len() == 19
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b' '
        && b[13] == b':'
        && b[16] == b':';
    if shape {
        let num = |r: std::ops::Range<usize>| {
            b[r].iter().try_fold(0u32, |n, &d| {
                d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
            })
        };
        let parts = (
            num(0..4),
            num(5..7),
            num(8..10),
            num(11..13),
            num(14..16),
            num(17..19),
        );
        if let (Some(y), Some(mo), Some(d), Some(h), Some(mi), Some(sec)) = parts {
            // A leap second (:60) and impossible dates are chrono's to judge.
            let t = chrono::NaiveDate::from_ymd_opt(y as i32, mo, d)
                .and_then(|date| date.and_hms_opt(h, mi, sec));
            if let (Some(t), true) = (t, sec < 60) {
                return Some(t);
            }
        }
    }
    parse_entry_ts(s)
}

impl Entries for FileEntries<'_> {
    fn len(&self) -> usize {
        self.lines.len()
    }
    fn text(&self, i: usize) -> &str {
        self.lines[i].content
    }
    fn is_core(&self, i: usize) -> bool {
        self.lines[i].core
    }
    fn timestamp(&self, i: usize) -> Option<NaiveDateTime> {
        self.lines[i].timestamp
    }
    fn id(&self, i: usize) -> String {
        let l = &self.lines[i];
        id_of(l, line_hash(l.stored))
    }
    /// The line hashes of many entries at once (see [`line_hashes`]): a near group of a large
    /// file can name most of its entries.
    fn ids(&self, idx: &[usize]) -> Vec<String> {
        let stored: Vec<&str> = idx.iter().map(|&i| self.lines[i].stored).collect();
        idx.iter()
            .zip(line_hashes(&stored))
            .map(|(&i, h)| id_of(&self.lines[i], h))
            .collect()
    }
}

/// [`markdown_id`]'s form (`a12-0badcafe`), written without the formatter, which costs more
/// than the rest of the id when a finding names most of a large file's entries.
fn id_of(l: &Line<'_>, h: u32) -> String {
    // `c`/`a`, up to 10 digits, `-`, 8 hex digits.
    let mut buf = [0u8; 20];
    buf[0] = if l.core { b'c' } else { b'a' };
    let digits = l.ordinal.checked_ilog10().unwrap_or(0) as usize + 1;
    let mut n = l.ordinal;
    for d in buf[1..=digits].iter_mut().rev() {
        *d = b'0' + (n % 10) as u8;
        n /= 10;
    }
    buf[digits + 1] = b'-';
    for (k, d) in buf[digits + 2..digits + 10].iter_mut().enumerate() {
        *d = b"0123456789abcdef"[(h >> ((7 - k) * 4)) as usize & 15];
    }
    String::from_utf8_lossy(&buf[..digits + 10]).into_owned()
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
                    mine.id(i),
                )
            })
            .collect();
        assert_eq!(got, want);
        assert!(want.len() >= 10, "{want:?}");
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
}
