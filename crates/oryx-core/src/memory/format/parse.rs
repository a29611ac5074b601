//! A whole MEMORY.md parsed: its entries by section, where each section and entry stands, and
//! its line ending.

use std::borrow::Cow;

use super::lines::{
    bom_len, classify, has_newline, headings, is_blank, line_around, line_text, lines, parse_entry,
    uses_crlf, LineKind, LineSpan,
};
use crate::memory::entry::{Scope, Sections};

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
