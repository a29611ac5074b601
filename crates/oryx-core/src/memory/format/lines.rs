//! How a MEMORY.md line reads: headings and entries in every dialect the runtime has written,
//! line spans over the file's bytes, and the searches that find headings without decoding the
//! other lines.

use std::borrow::Cow;

use crate::memory::entry::{is_runtime_space, trim_runtime, Entry, Scope};
use crate::timefmt::parse_entry_ts;

pub const CORE_HEADING: &str = "## 核心记忆";
pub const ARCHIVAL_HEADING: &str = "## 归档记忆";
pub(super) const BOM: &[u8] = b"\xEF\xBB\xBF";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Heading(Option<Scope>),
    Blank,
    Text,
}

/// Classifies one line (without its terminator).
pub fn classify(line: &str) -> LineKind {
    let t = trim_runtime(line);
    if t.is_empty() {
        return LineKind::Blank;
    }
    match heading_title(t) {
        Some((2, title)) => LineKind::Heading(section_of(title)),
        // The runtime knows only `## ` section headings: `### 核心记忆` or `# Core` is a line
        // of whatever section it stands in, for it and for us.
        Some((_, title)) if section_of(title).is_some() => LineKind::Text,
        Some(_) => LineKind::Heading(None),
        None => LineKind::Text,
    }
}

/// `#`…`######` followed by whitespace: a markdown heading, with its level.
fn heading_title(t: &str) -> Option<(usize, &str)> {
    let hashes = t.bytes().take_while(|&b| b == b'#').count();
    if hashes == 0 || hashes > 6 {
        return None;
    }
    let rest = &t[hashes..];
    if rest.is_empty() || rest.starts_with(is_runtime_space) {
        Some((hashes, trim_runtime(rest)))
    } else {
        None
    }
}

fn section_of(title: &str) -> Option<Scope> {
    let (base, suffix) = split_suffix(title);
    let lower = base.to_lowercase();
    let scope = match lower.as_str() {
        "核心记忆" | "core" | "core memory" => Scope::Core,
        "归档记忆" | "archival" | "archival memory" => Scope::Archival,
        _ => return None,
    };
    // A suffix that names the other section would make the heading ambiguous: not ours.
    match suffix.map(|s| s.to_lowercase()) {
        None => Some(scope),
        Some(s) if s == scope.as_str() => Some(scope),
        Some(_) => None,
    }
}

/// `核心记忆（core）` / `核心记忆 (core)` → (`核心记忆`, Some(`core`)).
fn split_suffix(title: &str) -> (&str, Option<&str>) {
    for (open, close) in [("（", "）"), ("(", ")")] {
        if let Some(inner) = title.strip_suffix(close) {
            if let Some(pos) = inner.rfind(open) {
                return (
                    inner[..pos].trim_end(),
                    Some(inner[pos + open.len()..].trim()),
                );
            }
        }
    }
    (title, None)
}

/// Reads one entry line: `- [ts] content`, `- content`, or any other text as the whole content.
pub fn parse_entry(line: &str) -> Entry {
    let trimmed = trim_runtime(line);
    let stored = trimmed.to_string();
    let Some(rest) = trimmed
        .strip_prefix('-')
        .filter(|r| r.is_empty() || r.starts_with(is_runtime_space))
    else {
        return Entry {
            timestamp: None,
            content: stored.clone(),
            line: stored,
        };
    };
    let rest = rest.trim_start_matches(is_runtime_space);
    if let Some(after) = rest.strip_prefix('[') {
        if let Some(close) = after.find(']') {
            if let Some(ts) = parse_entry_ts(&after[..close]) {
                return Entry {
                    timestamp: Some(ts),
                    content: trim_runtime(&after[close + 1..]).to_string(),
                    line: stored,
                };
            }
        }
    }
    Entry {
        timestamp: None,
        content: rest.to_string(),
        line: stored,
    }
}

/// One line of the file with its byte offsets: `[start, end)` is the text, `next` is where the
/// following line starts (after `\n`).
#[derive(Debug, Clone, Copy)]
pub struct LineSpan {
    pub start: usize,
    pub end: usize,
    pub next: usize,
}

pub fn lines(bytes: &[u8], from: usize) -> impl Iterator<Item = LineSpan> + '_ {
    let mut pos = from;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let start = pos;
        let (end, next) = match memchr::memchr(b'\n', &bytes[pos..]) {
            Some(i) => (pos + i, pos + i + 1),
            None => (bytes.len(), bytes.len()),
        };
        pos = next;
        let end = if end > start && bytes[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        Some(LineSpan { start, end, next })
    })
}

/// Whether the line ends with `\n`: a last line ending in a lone `\r` is not terminated, and
/// an entry added after it must start a new line.
pub(super) fn has_newline(bytes: &[u8], span: LineSpan) -> bool {
    span.next > span.start && bytes[span.next - 1] == b'\n'
}

pub fn line_text(bytes: &[u8], span: LineSpan) -> Cow<'_, str> {
    String::from_utf8_lossy(&bytes[span.start..span.end])
}

/// The file's own line ending: CRLF when most of its line breaks are CRLF (a mixed file is
/// written back in its majority style).
pub fn uses_crlf(bytes: &[u8]) -> bool {
    let crlf = memchr::memmem::find_iter(bytes, b"\r\n").count();
    let lf = memchr::memchr_iter(b'\n', bytes).count();
    crlf > 0 && crlf * 2 > lf
}

pub fn bom_len(bytes: &[u8]) -> usize {
    if bytes.starts_with(BOM) {
        BOM.len()
    } else {
        0
    }
}

/// The span of the line holding byte `pos` of a block of lines starting at `floor`.
pub fn line_around(bytes: &[u8], floor: usize, pos: usize) -> LineSpan {
    let start = memchr::memrchr(b'\n', &bytes[floor..pos]).map_or(floor, |i| floor + i + 1);
    let (end, next) = match memchr::memchr(b'\n', &bytes[pos..]) {
        Some(i) => (pos + i, pos + i + 1),
        None => (bytes.len(), bytes.len()),
    };
    let end = if end > start && bytes[end - 1] == b'\r' {
        end - 1
    } else {
        end
    };
    LineSpan { start, end, next }
}

/// Whether only whitespace (as [`trim_runtime`] sees it) precedes byte `pos` on its line.
fn only_whitespace_before(bytes: &[u8], floor: usize, mut pos: usize) -> bool {
    loop {
        if pos == floor || bytes[pos - 1] == b'\n' {
            return true;
        }
        let b = bytes[pos - 1];
        if b.is_ascii() {
            if !is_runtime_space(b as char) {
                return false;
            }
            pos -= 1;
            continue;
        }
        // The start of the UTF-8 sequence ending here (at most 4 bytes back).
        let mut start = pos - 1;
        while start > floor && pos - start < 4 && bytes[start] & 0xC0 == 0x80 {
            start -= 1;
        }
        match std::str::from_utf8(&bytes[start..pos]) {
            Ok(s) if s.chars().all(is_runtime_space) => pos = start,
            _ => return false,
        }
    }
}

/// Every heading line of `bytes[from..]` (complete lines; `from` is a line start), in order,
/// with what it opens, found by looking only at lines that hold a `#`: exactly the lines
/// [`classify`] calls headings, without decoding the others.
pub fn headings(bytes: &[u8], from: usize) -> Vec<(LineSpan, Option<Scope>)> {
    let mut out = Vec::new();
    let mut pos = from;
    while let Some(i) = memchr::memchr(b'#', &bytes[pos..]) {
        let at = pos + i;
        if !only_whitespace_before(bytes, from, at) {
            // Not a heading; the next candidate is the next `#` (perhaps on the next line).
            pos = at + 1;
            continue;
        }
        let span = line_around(bytes, from, at);
        if let LineKind::Heading(scope) = classify(&line_text(bytes, span)) {
            out.push((span, scope));
        }
        pos = span.next.max(at + 1);
        if pos >= bytes.len() {
            break;
        }
    }
    out
}

/// Whether a line holding no heading is blank, looking at its first byte when that decides.
pub fn is_blank(bytes: &[u8], span: LineSpan) -> bool {
    match bytes[span.start..span.end].first() {
        None => true,
        Some(b) if b.is_ascii() && !is_runtime_space(*b as char) => false,
        Some(_) => trim_runtime(&line_text(bytes, span)).is_empty(),
    }
}
