//! MEMORY.md as the runtime's markdown store reads it: a section is the raw text between its
//! heading line and the next section heading line, with whitespace stripped from both ends.
//! The runtime knows only the two exact headings, each alone on its line (trailing whitespace
//! allowed, a BOM or leading space not), takes the first heading of a kind, and ends a section
//! at the next heading of either kind; everything else (other headings, blank lines, trailing
//! spaces, carriage returns) is text of the section it stands in. Its window is the last 4000
//! UTF-16 units of that archival text, and keyword recall searches its lines.

use std::ops::Range;

use crate::memory::entry::{is_runtime_space, trim_runtime, Entry, Scope};
use crate::memory::format::{parse_entry, LineSpan, ARCHIVAL_HEADING, CORE_HEADING};
use crate::memory::window::RawArchival;
use crate::memory::RuntimeEntry;

/// Whitespace of the runtime's heading pattern (`\s`, no flags).
fn is_pattern_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// The line terminators around which the runtime's multi-line `^` and `$` match.
fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// `^` holds at `at`: the text's start, or just after a line terminator (not between `\r\n`).
fn line_starts_at(text: &str, at: usize) -> bool {
    match text[..at].chars().next_back() {
        None => true,
        Some('\r') => !text[at..].starts_with('\n'),
        Some(c) => is_line_terminator(c),
    }
}

/// `$` holds at `at`: the text's end, or just before a line terminator (not between `\r\n`).
fn line_ends_at(text: &str, at: usize) -> bool {
    match text[at..].chars().next() {
        None => true,
        Some('\n') => !text[..at].ends_with('\r'),
        Some(c) => is_line_terminator(c),
    }
}

/// A section heading as the runtime finds it: where its match starts and ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Heading {
    start: usize,
    end: usize,
    scope: Scope,
}

/// Every heading line of `text`, in order.
fn headings(text: &str) -> Vec<Heading> {
    let mut out = Vec::new();
    for (scope, heading) in [
        (Scope::Core, CORE_HEADING),
        (Scope::Archival, ARCHIVAL_HEADING),
    ] {
        for (start, _) in text.match_indices(heading) {
            if !line_starts_at(text, start) {
                continue;
            }
            // `\s*$`: the longest run of pattern spaces after which a line ends.
            let after = start + heading.len();
            let run = text[after..]
                .char_indices()
                .find(|&(_, c)| !is_pattern_space(c))
                .map_or(text.len(), |(i, _)| after + i);
            // Every position of the run is a character boundary: pattern spaces are ASCII.
            let end = (after..=run).rev().find(|&p| line_ends_at(text, p));
            if let Some(end) = end {
                out.push(Heading { start, end, scope });
            }
        }
    }
    out.sort_by_key(|h| h.start);
    out
}

/// The byte range of the section of `scope` after stripping, or `None` without its heading.
fn section(text: &str, heads: &[Heading], scope: Scope) -> Option<Range<usize>> {
    let opened = heads.iter().find(|h| h.scope == scope)?;
    let end = heads
        .iter()
        .find(|h| h.start >= opened.end)
        .map_or(text.len(), |h| h.start);
    Some(strip(text, opened.end..end))
}

/// `range` of `text` without whitespace at either end, as the runtime's `strip()` sees it.
fn strip(text: &str, range: Range<usize>) -> Range<usize> {
    let s = &text[range.clone()];
    let lead = s.len() - s.trim_start_matches(is_runtime_space).len();
    let kept = trim_runtime(s).len();
    range.start + lead..range.start + lead + kept
}

/// Both sections of a whole file as the runtime reads them, with where each of the console's
/// archival entries (`archival_lines`, their spans in `bytes`) stands in the archival text.
/// `None` when the file is not UTF-8 (the runtime cannot read it at all).
pub fn of_file(bytes: &[u8], archival_lines: &[LineSpan]) -> Option<(String, RawArchival)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let heads = headings(text);
    let core = section(text, &heads, Scope::Core).map_or("", |r| &text[r]);
    let arch = section(text, &heads, Scope::Archival).unwrap_or(0..0);
    let spans = archival_lines
        .iter()
        .map(|l| {
            let line = strip(text, l.start..l.end);
            (line.start >= arch.start && line.end <= arch.end && line.start < line.end)
                .then(|| line.start - arch.start..line.end - arch.start)
        })
        .collect();
    Some((
        core.to_string(),
        RawArchival {
            text: text[arch].to_string(),
            spans,
        },
    ))
}

/// The archival section's text of a whole file (empty without one).
pub fn archival_text(text: &str) -> &str {
    section(text, &headings(text), Scope::Archival).map_or("", |r| &text[r])
}

/// The archival text's lines as the runtime splits them (at `\n`, `\r` and `\r\n`), blank
/// ones left out, each as it stands.
fn archival_lines(text: &str) -> impl Iterator<Item = &str> {
    archival_text(text)
        .split('\n')
        .flat_map(|l| l.split('\r'))
        .filter(|l| !trim_runtime(l).is_empty())
}

/// Every archival entry of a whole file as the runtime's recall and vector index read them.
pub fn archival_entries(text: &str) -> Vec<RuntimeEntry> {
    archival_lines(text)
        .map(|l| RuntimeEntry {
            text: l.to_string(),
            time: entry_time(l),
        })
        .collect()
}

/// The time the runtime reads at the start of a line: `- [yyyy-MM-dd HH:mm]` with optional
/// `:ss`, resolved as java.time's default (smart) resolver does: a day past the month's end is
/// its last day, `24:00[:00]` is the next day's midnight, anything else out of range is no time.
pub fn entry_time(line: &str) -> Option<chrono::NaiveDateTime> {
    use chrono::{Datelike, Duration, NaiveDate, NaiveTime};
    let rest = line.strip_prefix("- [")?;
    let b = rest.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let s = b.get(r)?;
        s.iter()
            .all(u8::is_ascii_digit)
            .then(|| std::str::from_utf8(s).ok()?.parse().ok())?
    };
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let (hour, minute) = (digits(11..13)?, digits(14..16)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') || b.get(10) != Some(&b' ') {
        return None;
    }
    if b.get(13) != Some(&b':') {
        return None;
    }
    let (second, close) = match b.get(16) {
        Some(b']') => (0, 16),
        Some(b':') if b.get(19) == Some(&b']') => (digits(17..19)?, 19),
        _ => return None,
    };
    debug_assert_eq!(b[close], b']');
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || minute > 59 || second > 59 {
        return None;
    }
    let first = NaiveDate::from_ymd_opt(year as i32, month, 1)?;
    let last_day = (first + chrono::Months::new(1) - Duration::days(1)).day();
    let date = NaiveDate::from_ymd_opt(year as i32, month, day.min(last_day))?;
    match hour {
        0..=23 => Some(date.and_time(NaiveTime::from_hms_opt(hour, minute, second)?)),
        24 if minute == 0 && second == 0 => Some((date + Duration::days(1)).and_hms_opt(0, 0, 0)?),
        _ => None,
    }
}

/// The runtime's keyword recall over a whole file: the archival text's non-blank lines (split
/// at `\n`, `\r` and `\r\n`) whose lowercase holds the lowercased keyword, as they stand.
pub fn recall(text: &str, keyword: &str) -> Vec<Entry> {
    let needle = keyword.to_lowercase();
    archival_lines(text)
        .filter(|l| l.to_lowercase().contains(&needle))
        .map(|l| Entry {
            line: l.to_string(),
            ..parse_entry(l)
        })
        .collect()
}

/// Whether `line` (without its `\n`) is a heading line of either kind for the runtime, or may
/// be one through a line terminator inside it: a quick test for a large file's tail.
pub fn may_hold_heading(line: &[u8]) -> bool {
    memchr::memmem::find(line, CORE_HEADING.as_bytes()).is_some()
        || memchr::memmem::find(line, ARCHIVAL_HEADING.as_bytes()).is_some()
}

/// The runtime's core section from the head of a large file, read up to the first archival
/// heading line: `None` unless that heading is the head's last (the core section then lies
/// wholly in the head, or the runtime finds none before it).
pub fn head_sections(head: &str) -> Option<String> {
    let heads = headings(head);
    let first_arch = heads.iter().find(|h| h.scope == Scope::Archival)?;
    // The archival heading must be the head's last line; a core heading after it would be
    // beyond the head.
    if heads.last() != Some(first_arch) {
        return None;
    }
    Some(section(head, &heads, Scope::Core).map_or(String::new(), |r| head[r].to_string()))
}

#[cfg(test)]
mod tests {
    use super::{archival_entries, entry_time};

    fn t(s: &str) -> Option<chrono::NaiveDateTime> {
        chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").ok()
    }

    #[test]
    fn entry_times_as_the_runtime_resolves_them() {
        assert_eq!(
            entry_time("- [2026-01-02 10:30] a"),
            t("2026-01-02 10:30:00")
        );
        assert_eq!(
            entry_time("- [2026-01-02 10:30:07] a"),
            t("2026-01-02 10:30:07")
        );
        // A day past the month's end is its last day; 24:00 is the next midnight.
        assert_eq!(
            entry_time("- [2026-02-30 08:00] a"),
            t("2026-02-28 08:00:00")
        );
        assert_eq!(
            entry_time("- [2024-02-31 08:00] a"),
            t("2024-02-29 08:00:00")
        );
        assert_eq!(
            entry_time("- [2026-04-31 24:00] a"),
            t("2026-05-01 00:00:00")
        );
        for none in [
            "- [2026-13-01 10:00] a",
            "- [2026-01-32 10:00] a",
            "- [2026-01-02 24:01] a",
            "- [2026-01-02 10:60] a",
            "- [2026-01-02 10:30:5] a",
            "- [2026-01-02T10:30] a",
            "-  [2026-01-02 10:30] a",
            " - [2026-01-02 10:30] a",
            "[2026-01-02 10:30] a",
            "- [2026-01-02 10:30",
        ] {
            assert_eq!(entry_time(none), None, "{none}");
        }
    }

    #[test]
    fn archival_entries_are_the_non_blank_lines_as_they_stand() {
        let text = "## 核心记忆\n- core\n## 归档记忆\n- [2026-01-02 10:30] one  \r\n\n   \nplain line\r- [2026-01-03 09:00:01] two";
        let got = archival_entries(text);
        let texts: Vec<_> = got.iter().map(|e| e.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "- [2026-01-02 10:30] one  ",
                "plain line",
                "- [2026-01-03 09:00:01] two"
            ]
        );
        assert_eq!(got[1].time, None);
        assert_eq!(got[2].time, t("2026-01-03 09:00:01"));
    }

    use super::*;

    fn sections(text: &str) -> (String, String) {
        let (core, arch) = of_file(text.as_bytes(), &[]).unwrap();
        (core, arch.text)
    }

    #[test]
    fn sections_are_raw_text_between_exact_heading_lines() {
        let t = "## 核心记忆\n- c  \n\n## 归档记忆  \n\n- a  \n## Notes\n- n\n\n";
        assert_eq!(sections(t), ("- c".into(), "- a  \n## Notes\n- n".into()));
        // A second archival heading and a core heading after it end the section.
        let t = "## 归档记忆\n- a\n## 归档记忆\n- b\n## 核心记忆\n- c";
        assert_eq!(sections(t), ("- c".into(), "- a".into()));
        // A BOM hides the first heading; leading spaces too.
        let t = "\u{feff}## 核心记忆\n- c\n ## 归档记忆\n- a";
        assert_eq!(sections(t), (String::new(), String::new()));
        let t = "\u{feff}## 核心记忆\n- c\n## 归档记忆\r\n- a\r\n- b\r\n";
        assert_eq!(sections(t), (String::new(), "- a\r\n- b".into()));
        // Text after the heading on its line: not a heading.
        let t = "## 归档记忆 x\n- a\n## 归档记忆\t\u{b}\n- b";
        assert_eq!(sections(t).1, "- b");
        // A lone carriage return and U+2028 end lines for the heading pattern.
        let t = "x\r## 归档记忆\u{2028}- a";
        assert_eq!(sections(t).1, "\u{2028}- a".trim_start_matches('\u{2028}'));
    }

    #[test]
    fn recall_returns_the_lines_as_they_stand() {
        let t = "## 归档记忆\n  - [2026-03-01 08:00:00] Tea  \r\n\n## Notes tea\r- x\rtea two";
        let hits: Vec<_> = recall(t, "TEA").into_iter().map(|e| e.line).collect();
        assert_eq!(
            hits,
            // The section is stripped: the first line loses its indent, not its trailing spaces.
            ["- [2026-03-01 08:00:00] Tea  ", "## Notes tea", "tea two"]
        );
    }
}
