//! What an archival append needs to know about a large MEMORY.md, read from its end: which
//! section the last heading opens, how the file ends, and its line ending. The scan walks back
//! from the end only as far as the last heading, in fixed-size chunks, so neither the time nor
//! the memory of an append grows with the part of the file before its archival section.
//!
//! Holes of a sparse file are skipped unread: they read as NUL bytes, which hold neither a line
//! break nor a heading mark, so no line starts inside one and no heading is found there.

use std::fs::File;
use std::io;

use crate::memory::entry::{is_runtime_space, Scope};
use crate::memory::format::{self, classify, LineKind};

const CHUNK: usize = 64 * 1024;
/// A line that may be a heading is read up to this many bytes; a longer one that could still be
/// a section heading (only trailing spaces could make it one) leaves the decision to a full read.
const LINE_PEEK: usize = 64 * 1024;
/// More data extents than this (a file of many small holes) are read as one.
const MAX_EXTENTS: usize = 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TailFacts {
    /// What the file's last heading opens; `None` when the file has no heading at all.
    pub last_heading: Option<Option<Scope>>,
    pub ends_with_lf: bool,
    pub ends_with_cr: bool,
    /// The last line has no line break and holds only spaces (an entry added after it would
    /// go before it, which takes a rewrite).
    pub last_line_blank: bool,
    /// Most line breaks of the part read are CRLF.
    pub crlf: bool,
}

impl TailFacts {
    /// The archival section runs to the end of the file.
    pub fn archival_last(&self) -> bool {
        self.last_heading == Some(Some(Scope::Archival))
    }

    /// The bytes that add `line` at the end of the archival section by a plain append, as
    /// `format::plan_insert` would plan them; `None` when that takes a rewrite.
    pub fn archival_append(&self, line: &str) -> Option<Vec<u8>> {
        if !self.archival_last() || (!self.ends_with_lf && self.last_line_blank) {
            return None;
        }
        let nl = if self.crlf { "\r\n" } else { "\n" };
        let mut out = Vec::with_capacity(line.len() + 4);
        if !self.ends_with_lf {
            // An unterminated last line ending in `\r` only lacks its `\n`.
            out.extend_from_slice(if self.ends_with_cr {
                b"\n"
            } else {
                nl.as_bytes()
            });
        }
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(nl.as_bytes());
        Some(out)
    }
}

/// Reads `file` (of `len` bytes) back from its end to its last heading. `None`: a line the scan
/// cannot judge without reading it whole (a very long line starting with `#` or with spaces).
pub fn scan(file: &File, len: u64) -> io::Result<Option<TailFacts>> {
    let mut facts = TailFacts {
        last_heading: None,
        ends_with_lf: false,
        ends_with_cr: false,
        last_line_blank: false,
        crlf: false,
    };
    if len == 0 {
        return Ok(Some(facts));
    }
    let mut last = [0u8; 1];
    read_at(file, &mut last, len - 1)?;
    facts.ends_with_lf = last[0] == b'\n';
    facts.ends_with_cr = last[0] == b'\r';
    let bom = {
        let mut head = [0u8; 3];
        let n = read_at(file, &mut head, 0)?;
        format::bom_len(&head[..n]) as u64
    };
    let (mut lf, mut crlf) = (0usize, 0usize);
    // End of the line whose start is not found yet.
    let mut line_end = len;
    // The byte after the chunk being read (for a CRLF split between two chunks).
    let mut after: Option<u8> = None;
    let mut chunk = vec![0u8; CHUNK];
    for (from, to) in data_extents(file, len).into_iter().rev() {
        let mut pos = to;
        while pos > from {
            let start = pos.saturating_sub(CHUNK as u64).max(from);
            let buf = &mut chunk[..(pos - start) as usize];
            read_exact_at(file, buf, start)?;
            lf += memchr::memchr_iter(b'\n', buf).count();
            crlf += memchr::memmem::find_iter(buf, b"\r\n").count();
            if buf.last() == Some(&b'\r') && after == Some(b'\n') {
                crlf += 1;
            }
            after = buf.first().copied();
            let mut end = buf.len();
            while let Some(i) = memchr::memrchr(b'\n', &buf[..end]) {
                let line_start = start + i as u64 + 1;
                if let Some(decided) =
                    judge(file, buf, start, line_start, line_end, len, &mut facts)?
                {
                    facts.crlf = crlf > 0 && crlf * 2 > lf;
                    return Ok(decided.then_some(facts));
                }
                line_end = line_start - 1;
                end = i;
            }
            pos = start;
        }
        // The bytes between this extent and the one before are a hole: no line starts there.
        after = None;
    }
    if let Some(decided) = judge(file, &[], 0, bom, line_end, len, &mut facts)? {
        facts.crlf = crlf > 0 && crlf * 2 > lf;
        return Ok(decided.then_some(facts));
    }
    facts.crlf = crlf > 0 && crlf * 2 > lf;
    Ok(Some(facts))
}

/// Looks at the line `[start, end)`; `Some(true)`: it is the last heading (recorded in
/// `facts`), `Some(false)`: undecidable here, `None`: go on back.
fn judge(
    file: &File,
    chunk: &[u8],
    chunk_at: u64,
    start: u64,
    end: u64,
    len: u64,
    facts: &mut TailFacts,
) -> io::Result<Option<bool>> {
    if start >= end {
        // An empty line (or the nothing after the final line break).
        return Ok(None);
    }
    let is_last = end == len;
    let line_len = end - start;
    let peek_len = line_len.min(LINE_PEEK as u64) as usize;
    let mut owned = Vec::new();
    let from = (start - chunk_at) as usize;
    let bytes: &[u8] = if start >= chunk_at && from + peek_len <= chunk.len() {
        &chunk[from..from + peek_len]
    } else {
        owned.resize(peek_len, 0);
        read_exact_at(file, &mut owned, start)?;
        &owned
    };
    // The common entry line decides on its first byte.
    if let Some(&b) = bytes.first() {
        if b.is_ascii() && b != b'#' && !is_runtime_space(b as char) {
            return Ok(None);
        }
    }
    let whole = line_len as usize == peek_len;
    let mut text = bytes;
    if whole {
        if let [rest @ .., b'\r'] = text {
            text = rest;
        }
    }
    let line = String::from_utf8_lossy(text);
    let kind = if whole {
        classify(&line)
    } else {
        let lead = line.trim_start_matches(is_runtime_space);
        if lead.is_empty() || lead.starts_with('#') {
            return Ok(Some(false));
        }
        LineKind::Text
    };
    match kind {
        LineKind::Heading(scope) => {
            facts.last_heading = Some(scope);
            Ok(Some(true))
        }
        LineKind::Blank => {
            if is_last {
                facts.last_line_blank = true;
            }
            Ok(None)
        }
        LineKind::Text => Ok(None),
    }
}

/// The parts of the file that hold data, in order (the whole file where holes cannot be found).
#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
fn data_extents(file: &File, len: u64) -> Vec<(u64, u64)> {
    use rustix::fs::{seek, SeekFrom};
    let mut out = Vec::new();
    let mut at = 0u64;
    while at < len {
        if out.len() >= MAX_EXTENTS {
            out.push((at, len));
            break;
        }
        let Ok(data) = seek(file, SeekFrom::Data(at)) else {
            // ENXIO: no data after `at` (a trailing hole); other errors: read it all.
            if out.is_empty() {
                out.push((0, len));
            }
            break;
        };
        let hole = seek(file, SeekFrom::Hole(data)).unwrap_or(len).min(len);
        if hole <= data {
            out.push((data, len));
            break;
        }
        out.push((data, hole));
        at = hole;
    }
    out
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
fn data_extents(_file: &File, len: u64) -> Vec<(u64, u64)> {
    vec![(0, len)]
}

fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    #[cfg(unix)]
    let n = std::os::unix::fs::FileExt::read_at(file, buf, at)?;
    #[cfg(not(unix))]
    let n = std::os::windows::fs::FileExt::seek_read(file, buf, at)?;
    super::io::count_read(n);
    Ok(n)
}

fn read_exact_at(file: &File, mut buf: &mut [u8], mut at: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match read_at(file, buf, at) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                at += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::format::{parse, plan_insert, Edit};
    use std::io::Write;

    fn facts_of(bytes: &[u8]) -> Option<TailFacts> {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        scan(&f, bytes.len() as u64).unwrap()
    }

    /// The tail scan plans exactly what the full parse plans, wherever that is a plain append.
    #[test]
    fn tail_append_equals_the_full_plan() {
        let files: &[&str] = &[
            "## 核心记忆\n- a\n## 归档记忆\n- b\n",
            "## 核心记忆\n- a\n## 归档记忆\n- b",
            "## 核心记忆\n- a\n## 归档记忆\n- b\r",
            "## 核心记忆\r\n- a\r\n## 归档记忆\r\n- b",
            "## 归档记忆",
            "## 归档记忆\n\n",
            "## 归档记忆\n- b\n   ",
            "## 归档记忆\n- b\n## Notes\n- n\n",
            "## 核心记忆\n- only core\n",
            "no heading\n",
            "",
            "\u{feff}## Archival\n- x",
            "## 归档记忆\n  ## not a heading? \n",
            "## 归档记忆\n### 核心记忆\n- still archival",
            "## 归档记忆\n\u{3000}## Core\n- core now",
            "   ## 归档记忆   \n- x",
        ];
        for text in files {
            let bytes = text.as_bytes();
            let facts = facts_of(bytes).unwrap();
            let parsed = parse(bytes);
            assert_eq!(
                facts.archival_last() && facts.ends_with_lf,
                parsed.archival_ends_file(bytes.len()) && bytes.last() == Some(&b'\n'),
                "{text:?}"
            );
            // A file that ends in a finished line takes the hint's plain append (not planned).
            if facts.ends_with_lf {
                continue;
            }
            let full = match plan_insert(bytes, &parsed, Scope::Archival, "- new") {
                Edit::Append(add) if parsed.archival.is_some() => Some(add),
                _ => None,
            };
            assert_eq!(facts.archival_append("- new"), full, "{text:?}");
        }
    }

    #[test]
    fn a_long_line_that_may_be_a_heading_is_left_to_a_full_read() {
        let mut text = "## 归档记忆\n- a\n##".as_bytes().to_vec();
        text.resize(text.len() + LINE_PEEK + 10, b' ');
        text.extend_from_slice(b"\n- b\n");
        assert_eq!(facts_of(&text), None);
        let mut text = "## 归档记忆\n- a\n-".as_bytes().to_vec();
        text.resize(text.len() + LINE_PEEK + 10, b'x');
        text.extend_from_slice(b"\n- b\n");
        assert!(facts_of(&text).unwrap().archival_last());
    }
}
