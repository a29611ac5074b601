//! The entry model shared by every backend.

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use crate::error::{CoreError, Result};
use crate::timefmt::format_entry_ts;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Core,
    Archival,
}

impl Scope {
    /// Case-insensitive; blank means archival (the save_memory default).
    pub fn parse_lenient(s: &str) -> Option<Scope> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "archival" => Some(Scope::Archival),
            "core" => Some(Scope::Core),
            _ => None,
        }
    }

    pub fn parse(s: &str) -> Result<Scope> {
        match s.trim().to_ascii_lowercase().as_str() {
            "archival" => Ok(Scope::Archival),
            "core" => Ok(Scope::Core),
            _ => Err(CoreError::InvalidInput(format!(
                "unknown memory scope {s:?}: use core or archival"
            ))),
        }
    }

    /// As the Java runtime writes it in `memory_entries.scope` and mem0 metadata.
    pub fn db_value(self) -> &'static str {
        match self {
            Scope::Core => "CORE",
            Scope::Archival => "ARCHIVAL",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Core => "core",
            Scope::Archival => "archival",
        }
    }
}

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
}

impl Sections {
    pub fn of(&self, scope: Scope) -> &[Entry] {
        match scope {
            Scope::Core => &self.core,
            Scope::Archival => &self.archival,
        }
    }
}

const CORE_HEADING_TEXT: &str = "## 核心记忆";
const ARCHIVAL_HEADING_TEXT: &str = "## 归档记忆";

/// Makes content safe to store as one line (SPEC §3): line breaks become spaces, whitespace runs
/// collapse, the text is trimmed, and section headings inside it are neutralised so that a
/// line-based reader can never mistake them for a section start.
pub fn sanitize_content(raw: &str) -> Result<String> {
    // Same steps as the Java runtime so both write identical lines; tabs are kept as it keeps them.
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        let c = if c == '\r' || c == '\n' { ' ' } else { c };
        if c == ' ' && out.ends_with(' ') {
            continue;
        }
        out.push(c);
    }
    let out = out
        .trim()
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

    #[test]
    fn scopes() {
        assert_eq!(Scope::parse_lenient(""), Some(Scope::Archival));
        assert_eq!(Scope::parse_lenient("CORE"), Some(Scope::Core));
        assert_eq!(Scope::parse_lenient("Archival"), Some(Scope::Archival));
        assert_eq!(Scope::parse_lenient("long"), None);
        assert!(Scope::parse("").is_err());
    }
}
