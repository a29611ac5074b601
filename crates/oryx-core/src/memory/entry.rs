//! The entry model shared by every backend.

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

pub use super::scope::Scope;
use crate::error::{CoreError, Result};
use crate::timefmt::format_entry_ts;

/// One remembered line. `line` is the text the prompt shows (for MEMORY.md, the line as stored).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub timestamp: Option<NaiveDateTime>,
    pub content: String,
    pub line: String,
}

impl Entry {
    pub fn new(timestamp: Option<NaiveDateTime>, content: impl Into<String>) -> Self {
        let content = content.into();
        let line = render_line(timestamp.as_ref(), &content);
        Entry {
            timestamp,
            content,
            line,
        }
    }

    pub fn line_chars(&self) -> usize {
        self.line.chars().count()
    }
}

/// `- [yyyy-MM-dd HH:mm:ss] content`, or `- content` for an entry without a time.
pub fn render_line(timestamp: Option<&NaiveDateTime>, content: &str) -> String {
    match timestamp {
        Some(ts) => format!("- [{}] {}", format_entry_ts(ts), content),
        None => format!("- {content}"),
    }
}

/// Both sections of one owner's long-term memory, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Sections {
    pub core: Vec<Entry>,
    pub archival: Vec<Entry>,
    /// The backend returned a full page (mem0): there may be entries not listed.
    pub possibly_more: bool,
    /// The store's own ids of `core` and `archival` entries (sqlite rows, mem0 memories);
    /// empty for MEMORY.md, whose entries are named by position and line
    /// ([`super::entry_id::markdown_id`]).
    #[serde(skip)]
    pub core_ids: Vec<String>,
    #[serde(skip)]
    pub archival_ids: Vec<String>,
}

/// The id of the `i`-th entry of a section: the store's own, else the MEMORY.md form.
pub fn entry_id(ids: &[String], scope: Scope, i: usize, entry: &Entry) -> String {
    ids.get(i)
        .cloned()
        .unwrap_or_else(|| super::entry_id::markdown_id(scope, i, &entry.line))
}

impl Sections {
    pub fn id(&self, scope: Scope, i: usize) -> Option<String> {
        let (ids, list) = match scope {
            Scope::Core => (&self.core_ids, &self.core),
            Scope::Archival => (&self.archival_ids, &self.archival),
        };
        list.get(i).map(|e| entry_id(ids, scope, i, e))
    }

    /// The entry an id names now, with its section and position.
    pub fn find(&self, id: &str) -> Option<(Scope, usize, &Entry)> {
        for scope in [Scope::Core, Scope::Archival] {
            let list = self.of(scope);
            for (i, e) in list.iter().enumerate() {
                if self.id(scope, i).as_deref() == Some(id) {
                    return Some((scope, i, e));
                }
            }
        }
        None
    }

    pub fn of(&self, scope: Scope) -> &[Entry] {
        match scope {
            Scope::Core => &self.core,
            Scope::Archival => &self.archival,
        }
    }
}

const CORE_HEADING_TEXT: &str = "## 核心记忆";
const ARCHIVAL_HEADING_TEXT: &str = "## 归档记忆";

/// Whitespace as the Java runtime's `String.strip()` / `isBlank()` see it
/// (`Character.isWhitespace`): ASCII blanks, the information separators U+001C..U+001F and the
/// Unicode space/line/paragraph separators, but **not** the no-break spaces U+00A0, U+2007 and
/// U+202F (nor U+0085). Reader and writer trim with this one set, so what the console writes
/// reads back unchanged and the runtime and the console agree on what a blank line is.
pub fn is_runtime_space(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\u{1c}'..='\u{20}'
            | '\u{1680}'
            | '\u{2000}'..='\u{2006}'
            | '\u{2008}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// `s` without leading and trailing [`is_runtime_space`] characters.
pub fn trim_runtime(s: &str) -> &str {
    trim_runtime_end(trim_runtime_start(s))
}

/// `s` without leading [`is_runtime_space`] characters. Most lines start with one space or
/// none: those are read by hand, where std's trim runs a searcher over the text (a few percent
/// of reading a 100 MB MEMORY.md, whose every line is trimmed).
pub fn trim_runtime_start(s: &str) -> &str {
    let t = s.strip_prefix(' ').unwrap_or(s);
    match t.chars().next() {
        Some(c) if is_runtime_space(c) => t.trim_start_matches(is_runtime_space),
        _ => t,
    }
}

/// `s` without trailing [`is_runtime_space`] characters (see [`trim_runtime_start`]).
pub fn trim_runtime_end(s: &str) -> &str {
    match s.chars().next_back() {
        Some(c) if is_runtime_space(c) => s.trim_end_matches(is_runtime_space),
        _ => s,
    }
}

/// Makes content safe to store as one line (CONTRACT §3): line breaks and other C0 control
/// characters (NUL, ESC, ...; not tab) become spaces, space runs collapse, the text is trimmed
/// as the runtime trims it, and section headings inside it are neutralised so that a line-based
/// reader can never mistake them for a section start.
pub fn sanitize_content(raw: &str) -> Result<String> {
    // Same steps as the Java runtime so both write identical lines; tabs are kept as it keeps
    // them. It leaves other control characters in, but NUL and friends break its readers and
    // every editor, so they go the way of CR/LF.
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        let c = if c.is_ascii_control() && c != '\t' && c != '\u{7f}' {
            ' '
        } else {
            c
        };
        if c == ' ' && out.ends_with(' ') {
            continue;
        }
        out.push(c);
    }
    let out = trim_runtime(&out)
        .replace(CORE_HEADING_TEXT, "「核心记忆」")
        .replace(ARCHIVAL_HEADING_TEXT, "「归档记忆」");
    if out.is_empty() {
        return Err(CoreError::InvalidInput(
            "memory content is empty after removing whitespace".into(),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimming_by_hand_is_std_trimming() {
        let pieces = [
            " ", "  ", "\t", "\r", "\u{1c}", "\u{3000}", "\u{2000}", "\u{a0}", "\u{202f}", "a",
            "中", "「", "-", "",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    for d in pieces {
                        let s = format!("{a}{b}x{c}{d}");
                        for t in [&s[..], &s[..a.len()], &s[a.len() + b.len()..]] {
                            assert_eq!(trim_runtime(t), t.trim_matches(is_runtime_space), "{t:?}");
                            assert_eq!(
                                trim_runtime_start(t),
                                t.trim_start_matches(is_runtime_space)
                            );
                            assert_eq!(trim_runtime_end(t), t.trim_end_matches(is_runtime_space));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn sanitising_makes_one_safe_line() {
        assert_eq!(
            sanitize_content("  a\r\nb  \t c\n").unwrap(),
            "a b \t c".to_string()
        );
        assert_eq!(
            sanitize_content("x\n## 核心记忆\n- y ## 归档记忆").unwrap(),
            "x 「核心记忆」 - y 「归档记忆」"
        );
        assert_eq!(sanitize_content("##   核心记忆").unwrap(), "「核心记忆」");
        assert_eq!(
            sanitize_content("## 核心记忆（core）").unwrap(),
            "「核心记忆」（core）"
        );
        assert!(sanitize_content(" \n\t ").is_err());
    }

    /// The runtime's `strip()` keeps no-break spaces (they are not `Character.isWhitespace`) and
    /// its `isBlank()` says an entry of only NBSP is not blank: it stores it, and so do we.
    #[test]
    fn no_break_spaces_are_content_as_the_runtime_keeps_them() {
        assert_eq!(sanitize_content("\u{a0}").unwrap(), "\u{a0}");
        assert_eq!(
            sanitize_content(" \u{a0}x\u{202f} \n").unwrap(),
            "\u{a0}x\u{202f}"
        );
        assert_eq!(
            sanitize_content("\u{2007}\u{a0}").unwrap(),
            "\u{2007}\u{a0}"
        );
        // What the runtime does strip: Unicode separators such as the ideographic space.
        assert_eq!(sanitize_content("\u{3000}x\u{2028}").unwrap(), "x");
        assert!(sanitize_content("\u{3000} \u{2029}").is_err());
    }

    #[test]
    fn control_characters_become_spaces() {
        assert_eq!(
            sanitize_content("a\0b\u{1b}[1mc\u{7}\u{b}\u{c}d\te").unwrap(),
            "a b [1mc d\te"
        );
        assert_eq!(sanitize_content("\0x\0").unwrap(), "x");
        assert!(sanitize_content("\0\u{1}\u{1f}").is_err());
        // DEL and C1 controls are not C0: kept as written.
        assert_eq!(
            sanitize_content("a\u{7f}\u{85}b").unwrap(),
            "a\u{7f}\u{85}b"
        );
    }

    #[test]
    fn scopes() {
        assert_eq!(Scope::parse_lenient(""), Some(Scope::Archival));
        assert_eq!(Scope::parse_lenient("CORE"), Some(Scope::Core));
        assert_eq!(Scope::parse_lenient("Archival"), Some(Scope::Archival));
        assert_eq!(Scope::parse_lenient("long"), None);
        assert!(Scope::parse("").is_err());
    }
}
