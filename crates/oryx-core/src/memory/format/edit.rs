//! Splice-based edits of MEMORY.md: each one inserts bytes at one place and leaves every byte
//! outside the change as it was.

use super::lines::{
    bom_len, has_newline, headings, lines, LineSpan, ARCHIVAL_HEADING, BOM, CORE_HEADING,
};
use super::parse::Parsed;
use crate::memory::entry::Scope;

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

/// What the console writes when it rewrites a file, so that the runtime reads back
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
