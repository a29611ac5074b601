//! MEMORY.md as bytes: a lenient reader of every dialect the runtime has written (SPEC §3) and
//! splice-based edits that leave every byte outside the change as it was.

use std::borrow::Cow;

use super::entry::{is_runtime_space, trim_runtime, Entry, Scope, Sections};
use crate::timefmt::parse_entry_ts;

pub const CORE_HEADING: &str = "## 核心记忆";
pub const ARCHIVAL_HEADING: &str = "## 归档记忆";
const BOM: &[u8] = b"\xEF\xBB\xBF";

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
fn has_newline(bytes: &[u8], span: LineSpan) -> bool {
    span.next > span.start && bytes[span.next - 1] == b'\n'
}

pub fn line_text(bytes: &[u8], span: LineSpan) -> Cow<'_, str> {
    String::from_utf8_lossy(&bytes[span.start..span.end])
}

/// Where a section sits in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionSpan {
    /// Offset just after the heading line's terminator.
    pub body_start: usize,
    /// Offset just after the last non-blank line of the section (where the next entry goes).
    pub insert_at: usize,
    /// Whether the last body line (or heading) has a line terminator.
    pub insert_terminated: bool,
    /// Offset where the section ends (next heading or end of file).
    pub end: usize,
}

#[derive(Debug, Clone, Default)]
pub struct Parsed {
    pub sections: Sections,
    /// The last heading of each kind (edits go there when a file holds duplicates).
    pub core: Option<SectionSpan>,
    pub archival: Option<SectionSpan>,
    pub crlf: bool,
    /// Where each entry of `sections` stands in the file (filled by [`parse`] only).
    pub core_lines: Vec<LineSpan>,
    pub archival_lines: Vec<LineSpan>,
}

impl Parsed {
    pub fn span(&self, scope: Scope) -> Option<SectionSpan> {
        match scope {
            Scope::Core => self.core,
            Scope::Archival => self.archival,
        }
    }

    /// True when the archival section runs to the end of the file, so an archival entry can be
    /// appended without rewriting anything.
    pub fn archival_ends_file(&self, len: usize) -> bool {
        self.archival.is_some_and(|s| s.end == len)
    }
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

pub fn parse(bytes: &[u8]) -> Parsed {
    let mut parsed = Parsed {
        crlf: uses_crlf(bytes),
        ..Parsed::default()
    };
    let mut current: Option<(Scope, SectionSpan)> = None;
    let close = |parsed: &mut Parsed, cur: Option<(Scope, SectionSpan)>, at: usize| {
        if let Some((scope, mut span)) = cur {
            span.end = at;
            match scope {
                Scope::Core => parsed.core = Some(span),
                Scope::Archival => parsed.archival = Some(span),
            }
        }
    };
    // One SIMD check of the whole file instead of a lossy reading of each line (which checks
    // it again, a line at a time, at several times the cost): only a file that is not UTF-8
    // is read line by line.
    let utf8 = simdutf8::basic::from_utf8(bytes).ok();
    for span in lines(bytes, bom_len(bytes)) {
        let text = match utf8 {
            Some(t) => Cow::Borrowed(&t[span.start..span.end]),
            None => line_text(bytes, span),
        };
        match classify(&text) {
            LineKind::Heading(scope) => {
                close(&mut parsed, current.take(), span.start);
                current = scope.map(|s| {
                    (
                        s,
                        SectionSpan {
                            body_start: span.next,
                            insert_at: span.next,
                            insert_terminated: has_newline(bytes, span),
                            end: span.next,
                        },
                    )
                });
            }
            LineKind::Blank => {}
            LineKind::Text => {
                if let Some((scope, sec)) = current.as_mut() {
                    sec.insert_at = span.next;
                    sec.insert_terminated = has_newline(bytes, span);
                    let entry = parse_entry(&text);
                    match scope {
                        Scope::Core => {
                            parsed.sections.core.push(entry);
                            parsed.core_lines.push(span);
                        }
                        Scope::Archival => {
                            parsed.sections.archival.push(entry);
                            parsed.archival_lines.push(span);
                        }
                    }
                }
            }
        }
    }
    close(&mut parsed, current, bytes.len());
    parsed
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

/// The structure `parse` reports (section spans, line ending) without reading any entry: what
/// an edit needs. Headings are found with [`headings`]; each section's insertion point is found
/// by stepping back over blank lines from its end.
pub fn parse_structure(bytes: &[u8]) -> Parsed {
    let mut parsed = Parsed {
        crlf: uses_crlf(bytes),
        ..Parsed::default()
    };
    let heads = headings(bytes, bom_len(bytes));
    for (i, (head, scope)) in heads.iter().enumerate() {
        let Some(scope) = scope else { continue };
        let end = heads.get(i + 1).map_or(bytes.len(), |(h, _)| h.start);
        let mut span = SectionSpan {
            body_start: head.next,
            insert_at: head.next,
            insert_terminated: has_newline(bytes, *head),
            end,
        };
        // The last non-blank line of the body, if any.
        let mut line_end = end;
        while line_end > head.next {
            let line = line_around(bytes, head.next, line_end - 1);
            if !is_blank(bytes, line) {
                span.insert_at = line.next;
                span.insert_terminated = has_newline(bytes, line);
                break;
            }
            line_end = line.start;
        }
        match scope {
            Scope::Core => parsed.core = Some(span),
            Scope::Archival => parsed.archival = Some(span),
        }
    }
    parsed
}

/// Reads a MEMORY.md as a stream of blocks of whole lines (with [`headings`] and
/// [`SectionCursor`], the caller knows each line's section as `parse` would). Memory use is
/// about one block plus the line cap, whatever the file's size: a line longer than the cap
/// (a sparse or corrupt file can hold one line of a gigabyte) is handed out as its first
/// `line_cap` bytes, and the rest of it is skipped unread into memory.
pub struct BlockReader<R> {
    src: R,
    /// Allocated (and zeroed) once; `buf[..len]` holds data, `buf[..done]` was handed out.
    buf: Vec<u8>,
    len: usize,
    done: usize,
    first: bool,
    eof: bool,
    line_cap: usize,
    /// Lines cut at `line_cap` so far.
    cut_lines: usize,
}

const BLOCK: usize = 4 << 20;
/// The longest line a streaming scan holds whole: an entry longer than this is seen as its
/// first 64 MiB (a recall still finds a keyword in a 50 MB entry).
pub const LINE_CAP: usize = 64 << 20;

impl<R: std::io::Read> BlockReader<R> {
    pub fn new(src: R) -> Self {
        Self::with_line_cap(src, LINE_CAP)
    }

    /// A reader that keeps at most `line_cap` bytes of any one line.
    pub fn with_line_cap(src: R, line_cap: usize) -> Self {
        BlockReader {
            src,
            buf: Vec::new(),
            len: 0,
            done: 0,
            first: true,
            eof: false,
            line_cap: line_cap.max(1),
            cut_lines: 0,
        }
    }

    /// How many lines were longer than the cap and handed out cut.
    pub fn cut_lines(&self) -> usize {
        self.cut_lines
    }

    /// The buffer holds one unfinished line of at least `line_cap` bytes from its start: keeps
    /// its first `line_cap` bytes and reads past the rest, through a fixed part of the buffer,
    /// up to its line break (kept, with what follows it).
    fn skip_rest_of_line(&mut self) -> std::io::Result<Option<usize>> {
        self.cut_lines += 1;
        let keep = self.line_cap;
        loop {
            let n = read_full(&mut self.src, &mut self.buf[keep..])?;
            if n == 0 {
                self.len = keep;
                self.eof = true;
                return Ok(None);
            }
            if let Some(i) = memchr::memchr(b'\n', &self.buf[keep..keep + n]) {
                self.buf.copy_within(keep + i..keep + n, keep);
                self.len = keep + n - i;
                return Ok(memchr::memrchr(b'\n', &self.buf[..self.len]).map(|i| i + 1));
            }
        }
    }

    /// The next block of complete lines (the last one may lack its `\n`) and the offset of its
    /// first line (past a BOM), or `None` at the end.
    pub fn next_block(&mut self) -> std::io::Result<Option<(&[u8], usize)>> {
        // Keep the incomplete last line of the previous block.
        self.buf.copy_within(self.done..self.len, 0);
        self.len -= self.done;
        self.done = 0;
        // End of the last complete line seen so far.
        let mut complete = memchr::memrchr(b'\n', &self.buf[..self.len]).map(|i| i + 1);
        loop {
            if self.eof {
                if self.len == 0 {
                    return Ok(None);
                }
                self.done = self.len;
                break;
            }
            if self.len == self.buf.len() {
                if let Some(end) = complete {
                    self.done = end;
                    break;
                }
                let most = self.line_cap + BLOCK;
                if self.buf.len() >= most {
                    // One line fills the buffer (it starts at 0): cut it at the cap.
                    complete = self.skip_rest_of_line()?;
                    continue;
                }
                // A line longer than the buffer grows it, up to the cap and a block.
                let grow = self.buf.len().max(BLOCK).min(most - self.buf.len());
                self.buf.resize(self.buf.len() + grow, 0);
            }
            let start = self.len;
            let n = read_full(&mut self.src, &mut self.buf[start..])?;
            self.len += n;
            self.eof = n == 0;
            if let Some(i) = memchr::memrchr(b'\n', &self.buf[start..self.len]) {
                complete = Some(start + i + 1);
            }
        }
        let from = if std::mem::take(&mut self.first) {
            bom_len(&self.buf[..self.done])
        } else {
            0
        };
        Ok(Some((&self.buf[..self.done], from)))
    }
}

fn read_full(src: &mut impl std::io::Read, mut buf: &mut [u8]) -> std::io::Result<usize> {
    let mut total = 0;
    while !buf.is_empty() {
        match src.read(buf) {
            Ok(0) => break,
            Ok(n) => {
                total += n;
                buf = &mut buf[n..];
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(total)
}

/// The section each line of a block is in: call [`SectionCursor::at`] with increasing offsets.
pub struct SectionCursor<'a> {
    heads: &'a [(LineSpan, Option<Scope>)],
    next: usize,
    current: Option<Scope>,
}

impl<'a> SectionCursor<'a> {
    pub fn new(heads: &'a [(LineSpan, Option<Scope>)], start: Option<Scope>) -> Self {
        SectionCursor {
            heads,
            next: 0,
            current: start,
        }
    }

    /// The section of the line starting at `line_start` (offsets must not decrease).
    pub fn at(&mut self, line_start: usize) -> Option<Scope> {
        while let Some((h, scope)) = self.heads.get(self.next) {
            if h.start > line_start {
                break;
            }
            self.current = *scope;
            self.next += 1;
        }
        self.current
    }

    /// The section after the block.
    pub fn end(mut self) -> Option<Scope> {
        self.at(usize::MAX)
    }
}

/// The bytes of a new file holding one entry (headings in the runtime's order).
pub fn new_file(scope: Scope, line: &str) -> Vec<u8> {
    let text = match scope {
        Scope::Core => format!("{CORE_HEADING}\n{line}\n{ARCHIVAL_HEADING}\n"),
        Scope::Archival => format!("{CORE_HEADING}\n{ARCHIVAL_HEADING}\n{line}\n"),
    };
    text.into_bytes()
}

/// How to add one entry line to an existing file.
#[derive(Debug, PartialEq, Eq)]
pub enum Edit {
    /// Append these bytes at the end of the file; nothing else changes.
    Append(Vec<u8>),
    /// Insert these bytes at this offset (the file is rewritten atomically).
    Insert(usize, Vec<u8>),
}

/// Plans the smallest edit that adds `line` to `scope`, keeping all other bytes.
pub fn plan_insert(bytes: &[u8], parsed: &Parsed, scope: Scope, line: &str) -> Edit {
    let nl = if parsed.crlf { "\r\n" } else { "\n" };
    // A file holding only a BOM starts its first line right after it.
    let ends_with_nl = bytes.len() == bom_len(bytes) || bytes.last() == Some(&b'\n');
    // An unterminated last line ending in `\r` only lacks its `\n`.
    let terminator = if bytes.last() == Some(&b'\r') {
        "\n"
    } else {
        nl
    };
    if let Some(span) = parsed.span(scope) {
        let mut out = Vec::with_capacity(line.len() + 4);
        if !span.insert_terminated {
            out.extend_from_slice(terminator.as_bytes());
        }
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(nl.as_bytes());
        return if span.insert_at == bytes.len() {
            Edit::Append(out)
        } else {
            Edit::Insert(span.insert_at, out)
        };
    }
    let heading = match scope {
        Scope::Core => CORE_HEADING,
        Scope::Archival => ARCHIVAL_HEADING,
    };
    let block = format!("{heading}{nl}{line}{nl}");
    // A missing core section goes before archival (the runtime's order); otherwise at the end.
    if let (Scope::Core, Some(arch)) = (scope, parsed.archival) {
        let heading_start = heading_line_start(bytes, arch.body_start);
        return Edit::Insert(heading_start, block.into_bytes());
    }
    let mut out = Vec::with_capacity(block.len() + 2);
    if !ends_with_nl {
        out.extend_from_slice(terminator.as_bytes());
    }
    out.extend_from_slice(block.as_bytes());
    Edit::Append(out)
}

/// Plans adding `line`, stamped `ts`, to `scope` in time order (a migration copies older
/// entries into a file that has newer ones, and the window takes the file's last entries):
/// right after the last entry stamped at or before `ts` (entries without a time are passed
/// over), or before the section's first entry when every stamped one is later. Needs a full
/// [`parse`] (entry spans); at the section's end this is [`plan_insert`].
pub fn plan_insert_in_order(
    bytes: &[u8],
    parsed: &Parsed,
    scope: Scope,
    line: &str,
    ts: chrono::NaiveDateTime,
) -> Edit {
    let (entries, spans) = match scope {
        Scope::Core => (&parsed.sections.core, &parsed.core_lines),
        Scope::Archival => (&parsed.sections.archival, &parsed.archival_lines),
    };
    let at = match entries
        .iter()
        .rposition(|e| e.timestamp.is_some_and(|t| t <= ts))
    {
        Some(j) if j + 1 < entries.len() => spans[j].next,
        None if entries.iter().any(|e| e.timestamp.is_some()) => spans[0].start,
        _ => return plan_insert(bytes, parsed, scope, line),
    };
    let nl = if parsed.crlf { "\r\n" } else { "\n" };
    Edit::Insert(at, format!("{line}{nl}").into_bytes())
}

/// Start offset of the line that ends just before `body_start`.
fn heading_line_start(bytes: &[u8], body_start: usize) -> usize {
    let before = &bytes[..body_start.saturating_sub(1).min(bytes.len())];
    memchr::memrchr(b'\n', before).map_or(bom_len(bytes), |i| i + 1)
}

/// What the console writes when it rewrites a file (SPEC §12), so that the runtime reads back
/// what we read: no BOM, every section heading in its canonical form (`## Core`,
/// `## 核心记忆（core）` → `## 核心记忆`), every line ended the same way. All other text stays.
pub fn normalize(bytes: &[u8], crlf: bool) -> Vec<u8> {
    let nl: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    // Every leading BOM: a second one would become the first after the rewrite.
    let mut from = 0;
    while bytes[from..].starts_with(BOM) {
        from += BOM.len();
    }
    let heads = headings(bytes, from);
    let mut heads = heads.iter().peekable();
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 32);
    for span in lines(bytes, from) {
        let mut text = &bytes[span.start..span.end];
        if let Some((h, scope)) = heads.peek() {
            if h.start == span.start {
                if let Some(scope) = scope {
                    text = heading_of(*scope).as_bytes();
                }
                heads.next();
            }
        }
        // A line ended by `\n`, `\r\n`, `\r\r\n`... or a final lone `\r` gets the file's line
        // ending: carriage returns at its end are part of the ending, not of the text.
        if span.next > span.end {
            while let [rest @ .., b'\r'] = text {
                text = rest;
            }
        }
        out.extend_from_slice(text);
        if span.next > span.end {
            out.extend_from_slice(nl);
        }
    }
    out
}

pub fn heading_of(scope: Scope) -> &'static str {
    match scope {
        Scope::Core => CORE_HEADING,
        Scope::Archival => ARCHIVAL_HEADING,
    }
}

/// Puts `line` back into its section of `bytes` at the place its timestamp gives it: after the
/// last entry that is not newer (entries without a time count as not newer). The offset to
/// insert at and the bytes to insert, or `None` when the section is missing.
pub fn plan_restore(
    bytes: &[u8],
    parsed: &Parsed,
    scope: Scope,
    ts: Option<chrono::NaiveDateTime>,
    line: &str,
) -> Option<(usize, Vec<u8>)> {
    let section = parsed.span(scope)?;
    let nl = if parsed.crlf { "\r\n" } else { "\n" };
    let (entries, spans) = match scope {
        Scope::Core => (&parsed.sections.core, &parsed.core_lines),
        Scope::Archival => (&parsed.sections.archival, &parsed.archival_lines),
    };
    // Only entries of the section the edits go to (the last of its kind).
    let mut after: Option<LineSpan> = None;
    for (e, span) in entries.iter().zip(spans).rev() {
        if span.start < section.body_start || span.start >= section.end {
            continue;
        }
        if ts.is_none() || e.timestamp.is_none_or(|t| Some(t) <= ts) {
            after = Some(*span);
            break;
        }
    }
    let (at, terminated) = match after {
        Some(span) => (span.next, has_newline(bytes, span)),
        None => (section.body_start, section.insert_terminated),
    };
    let mut out = Vec::with_capacity(line.len() + 4);
    if !terminated {
        out.extend_from_slice(if bytes[..at].ends_with(b"\r") {
            b"\n"
        } else {
            nl.as_bytes()
        });
    }
    out.extend_from_slice(line.as_bytes());
    out.extend_from_slice(nl.as_bytes());
    Some((at, out))
}

pub fn apply(bytes: &[u8], edit: &Edit) -> Vec<u8> {
    match edit {
        Edit::Append(add) => [bytes, add].concat(),
        Edit::Insert(at, add) => [&bytes[..*at], add, &bytes[*at..]].concat(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JAVA: &str = "# Agent memory\nsome preamble\n\n## 核心记忆\n- [2026-07-22 09:30:00] 用户偏好简洁的回复，不用列表。\n\n## 归档记忆\n- [2026-07-22 09:31:10] 触发「帮我总结日志」⇒ 已总结 3 个错误…\n";

    /// A line longer than the cap is handed out as its first `cap` bytes: the buffer never
    /// grows past the cap and a block, and the lines after it arrive whole.
    #[test]
    fn the_block_reader_cuts_a_giant_line_at_its_cap() {
        let mut text = b"- a\n- ".to_vec();
        text.resize(text.len() + (BLOCK * 2 + 5), b'x');
        text.extend_from_slice(b"\r\n- b\n- c");
        let cap = 1000;
        let mut r = BlockReader::with_line_cap(std::io::Cursor::new(&text), cap);
        let mut got = Vec::new();
        while let Some((block, from)) = r.next_block().unwrap() {
            for span in lines(block, from) {
                got.push(block[span.start..span.end].to_vec());
            }
            assert!(r.buf.len() <= cap + BLOCK, "{}", r.buf.len());
        }
        assert_eq!(got.len(), 4);
        assert_eq!(got[0], b"- a");
        assert_eq!(got[1].len(), cap);
        assert!(got[1].starts_with(b"- xxx"));
        assert_eq!((&got[2][..], &got[3][..]), (&b"- b"[..], &b"- c"[..]));
        assert_eq!(r.cut_lines(), 1);
    }

    /// Found by the property tests: a last line ending in a lone `\r` is not a finished line.
    #[test]
    fn an_entry_after_a_lone_carriage_return_starts_its_own_line() {
        let bytes = "## 核心记忆\n¡\r".as_bytes();
        let parsed = parse(bytes);
        let after = apply(bytes, &plan_insert(bytes, &parsed, Scope::Core, "- x"));
        assert_eq!(after, "## 核心记忆\n¡\r\n- x\n".as_bytes());
        let lines: Vec<_> = parse(&after)
            .sections
            .core
            .into_iter()
            .map(|e| e.line)
            .collect();
        assert_eq!(lines, ["¡", "- x"]);
    }

    #[test]
    fn a_file_of_only_a_bom_gets_no_blank_first_line() {
        let bytes = b"\xEF\xBB\xBF";
        let after = apply(
            bytes,
            &plan_insert(bytes, &parse(bytes), Scope::Core, "- x"),
        );
        assert_eq!(after, "\u{feff}## 核心记忆\n- x\n".as_bytes());
    }

    #[test]
    fn reads_the_java_dialect() {
        let p = parse(JAVA.as_bytes());
        assert_eq!(p.sections.core.len(), 1);
        assert_eq!(p.sections.core[0].content, "用户偏好简洁的回复，不用列表。");
        assert_eq!(
            p.sections.core[0]
                .timestamp
                .map(|t| crate::timefmt::format_entry_ts(&t)),
            Some("2026-07-22 09:30:00".into())
        );
        assert_eq!(p.sections.archival.len(), 1);
        assert!(p.archival_ends_file(JAVA.len()));
    }

    #[test]
    fn heading_variants() {
        for h in [
            "## 核心记忆",
            "## 核心记忆（core）",
            "## 核心记忆 (core)",
            "## Core",
            "## CORE",
            "##   core  ",
        ] {
            assert_eq!(classify(h), LineKind::Heading(Some(Scope::Core)), "{h}");
        }
        for h in [
            "## 归档记忆",
            "## 归档记忆（archival）",
            "## Archival",
            "## archival",
        ] {
            assert_eq!(classify(h), LineKind::Heading(Some(Scope::Archival)), "{h}");
        }
        assert_eq!(classify("## Notes"), LineKind::Heading(None));
        assert_eq!(classify("## 核心记忆（archival）"), LineKind::Heading(None));
        assert_eq!(classify("##核心记忆"), LineKind::Text);
        assert_eq!(classify("- ## 核心记忆"), LineKind::Text);
    }

    #[test]
    fn older_and_odd_lines() {
        let text = "\u{feff}## Core\r\n- [2026-01-02] dated\r\n- [2026-01-02 03:04] minutes\r\n- no time\r\nplain line\r\n-[bad] x\r\n## Archival\r\n  \r\n- [not a date] kept\r\n";
        let p = parse(text.as_bytes());
        assert!(p.crlf);
        let core: Vec<_> = p
            .sections
            .core
            .iter()
            .map(|e| (e.timestamp.is_some(), e.content.as_str()))
            .collect();
        assert_eq!(
            core,
            vec![
                (true, "dated"),
                (true, "minutes"),
                (false, "no time"),
                (false, "plain line"),
                (false, "-[bad] x")
            ]
        );
        assert_eq!(p.sections.archival[0].content, "[not a date] kept");
        assert_eq!(p.sections.archival[0].timestamp, None);
    }

    #[test]
    fn other_headings_end_a_section_and_are_kept() {
        let text = "## 核心记忆\n- a\n## Notes\n- not memory\n## 归档记忆\n- b\n## Tail\ntext\n";
        let p = parse(text.as_bytes());
        assert_eq!(p.sections.core.len(), 1);
        assert_eq!(p.sections.archival.len(), 1);
        assert!(!p.archival_ends_file(text.len()));
        let edit = plan_insert(text.as_bytes(), &p, Scope::Archival, "- c");
        let out = String::from_utf8(apply(text.as_bytes(), &edit)).unwrap();
        assert_eq!(
            out,
            "## 核心记忆\n- a\n## Notes\n- not memory\n## 归档记忆\n- b\n- c\n## Tail\ntext\n"
        );
    }

    #[test]
    fn edits_keep_every_other_byte() {
        let p = parse(JAVA.as_bytes());
        let edit = plan_insert(
            JAVA.as_bytes(),
            &p,
            Scope::Core,
            "- [2026-07-23 00:00:00] new",
        );
        let out = String::from_utf8(apply(JAVA.as_bytes(), &edit)).unwrap();
        assert_eq!(
            out,
            JAVA.replace("列表。\n", "列表。\n- [2026-07-23 00:00:00] new\n")
        );
        let edit = plan_insert(JAVA.as_bytes(), &p, Scope::Archival, "- x");
        assert_eq!(edit, Edit::Append(b"- x\n".to_vec()));
    }

    #[test]
    fn missing_sections_are_created_in_order() {
        let text = "preamble without newline";
        let p = parse(text.as_bytes());
        let out = apply(
            text.as_bytes(),
            &plan_insert(text.as_bytes(), &p, Scope::Archival, "- a"),
        );
        assert_eq!(
            String::from_utf8_lossy(&out),
            "preamble without newline\n## 归档记忆\n- a\n"
        );
        let p = parse(&out);
        let out2 = apply(&out, &plan_insert(&out, &p, Scope::Core, "- c"));
        assert_eq!(
            String::from_utf8_lossy(&out2),
            "preamble without newline\n## 核心记忆\n- c\n## 归档记忆\n- a\n"
        );
        let p = parse(&out2);
        assert_eq!(p.sections.core.len(), 1);
        assert_eq!(p.sections.archival.len(), 1);
    }

    #[test]
    fn crlf_files_stay_crlf_and_unterminated_last_lines_are_fixed() {
        let text = "## 核心记忆\r\n- a\r\n## 归档记忆\r\n- b";
        let p = parse(text.as_bytes());
        let out = apply(
            text.as_bytes(),
            &plan_insert(text.as_bytes(), &p, Scope::Archival, "- c"),
        );
        assert_eq!(
            String::from_utf8_lossy(&out),
            "## 核心记忆\r\n- a\r\n## 归档记忆\r\n- b\r\n- c\r\n"
        );
    }

    /// The runtime's heading pattern is `^## 核心记忆\s*$`: a `###` line naming a section is an
    /// ordinary line of the section it stands in, for it and for us.
    #[test]
    fn other_levels_naming_a_section_are_text() {
        assert_eq!(classify("### 核心记忆"), LineKind::Text);
        assert_eq!(classify("# Core"), LineKind::Text);
        assert_eq!(classify("### Notes"), LineKind::Heading(None));
        let p = parse("## 归档记忆\n- a\n### 核心记忆\n- b\n".as_bytes());
        assert!(p.sections.core.is_empty());
        let lines: Vec<_> = p
            .sections
            .archival
            .iter()
            .map(|e| e.line.as_str())
            .collect();
        assert_eq!(lines, ["- a", "### 核心记忆", "- b"]);
    }

    #[test]
    fn no_break_spaces_are_not_blank() {
        let p = parse(
            "## 归档记忆\n\u{a0}\n- [2026-01-01 00:00:00] \u{a0}x\u{a0}\n\u{3000}\n".as_bytes(),
        );
        let contents: Vec<_> = p
            .sections
            .archival
            .iter()
            .map(|e| e.content.as_str())
            .collect();
        assert_eq!(contents, ["\u{a0}", "\u{a0}x\u{a0}"]);
    }

    #[test]
    fn a_rewrite_is_what_the_runtime_reads() {
        let text = "\u{feff}# notes\r\n## Core\r\n- a\n##  核心记忆（core）\r\n- b\r\n## Archival (archival)\r\n- c\r\n## Other\r\nx\r";
        let out =
            String::from_utf8(normalize(text.as_bytes(), uses_crlf(text.as_bytes()))).unwrap();
        assert_eq!(
            out,
            "# notes\r\n## 核心记忆\r\n- a\r\n## 核心记忆\r\n- b\r\n## 归档记忆\r\n- c\r\n## Other\r\nx\r\n"
        );
        assert!(!uses_crlf(b"a\r\nb\nc\n"), "the majority decides");
        assert_eq!(normalize(b"a\r\nb\nc", false), b"a\nb\nc");
        assert_eq!(normalize(b"a \r\r\nb\r", false), b"a \nb\n");
        assert_eq!(normalize("\u{feff}\u{feff}x".as_bytes(), false), b"x");
    }

    #[test]
    fn restores_go_to_their_place_in_time() {
        let text = "## 核心记忆\n- [2026-01-01 00:00:05] c\n## 归档记忆\n- [2026-01-01 00:00:01] a\n- untimed\n- [2026-01-01 00:00:09] z\n";
        let p = parse(text.as_bytes());
        let ts = crate::timefmt::parse_entry_ts("2026-01-01 00:00:05");
        let (at, add) = plan_restore(
            text.as_bytes(),
            &p,
            Scope::Archival,
            ts,
            "- [2026-01-01 00:00:05] m",
        )
        .unwrap();
        let out =
            String::from_utf8([&text.as_bytes()[..at], &add, &text.as_bytes()[at..]].concat())
                .unwrap();
        assert!(
            out.contains("- untimed\n- [2026-01-01 00:00:05] m\n- [2026-01-01 00:00:09] z\n"),
            "{out}"
        );
        let early = crate::timefmt::parse_entry_ts("2025-01-01 00:00:00");
        let (at, _) = plan_restore(text.as_bytes(), &p, Scope::Core, early, "- x").unwrap();
        assert_eq!(at, "## 核心记忆\n".len());
    }

    #[test]
    fn invalid_utf8_is_read_lossily_and_kept_on_edit() {
        let mut bytes =
            b"## \xE6\xA0\xB8\xE5\xBF\x83\xE8\xAE\xB0\xE5\xBF\x86\n- bad \xFF byte\n".to_vec();
        bytes.extend_from_slice("## 归档记忆\n".as_bytes());
        let p = parse(&bytes);
        assert_eq!(p.sections.core.len(), 1);
        let out = apply(&bytes, &plan_insert(&bytes, &p, Scope::Core, "- ok"));
        assert!(out.windows(1).any(|w| w == b"\xFF"));
    }
}
