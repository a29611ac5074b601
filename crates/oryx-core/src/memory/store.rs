//! The store trait every backend implements (SPEC §6).

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use super::entry::{Entry, Scope, Sections};
use crate::error::Result;
use crate::names::Owner;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    #[default]
    Markdown,
    Sqlite,
    Mem0,
}

impl Backend {
    /// Unknown values select markdown, as the runtime does.
    pub fn parse_lenient(s: &str) -> Backend {
        match s.trim().to_ascii_lowercase().as_str() {
            "sqlite" => Backend::Sqlite,
            "mem0" => Backend::Mem0,
            _ => Backend::Markdown,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Markdown => "markdown",
            Backend::Sqlite => "sqlite",
            Backend::Mem0 => "mem0",
        }
    }
}

impl std::str::FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "markdown" => Ok(Backend::Markdown),
            "sqlite" => Ok(Backend::Sqlite),
            "mem0" => Ok(Backend::Mem0),
            other => Err(format!(
                "unknown backend {other:?}: use markdown, sqlite or mem0"
            )),
        }
    }
}

/// What the prompt's load needs: the whole core and at least the archival entries that can be
/// inside the window (a store may return more).
#[derive(Debug, Clone, Default)]
pub struct ContextEntries {
    pub core: Vec<Entry>,
    pub archival_tail: Vec<Entry>,
}

/// Long-term memory storage. Content handed to `append` is already sanitised to one line.
pub trait LongTermMemoryStore: Send + Sync {
    fn backend(&self) -> Backend;

    /// Appends one entry; `at` keeps an existing timestamp (migration), `None` stamps now.
    fn append(
        &self,
        owner: &Owner,
        scope: Scope,
        content: &str,
        at: Option<NaiveDateTime>,
    ) -> Result<Entry>;

    /// Every entry of both sections, oldest first (the console's full listing).
    fn load_all(&self, owner: &Owner) -> Result<Sections>;

    /// The prompt's load: may read only what the window can use.
    fn load_context(&self, owner: &Owner, archival_limit: usize) -> Result<ContextEntries> {
        let _ = archival_limit;
        let all = self.load_all(owner)?;
        Ok(ContextEntries {
            core: all.core,
            archival_tail: all.archival,
        })
    }

    /// Archival entries whose content contains `keyword`, case-insensitively, in stored order.
    fn recall(&self, owner: &Owner, keyword: &str) -> Result<Vec<Entry>> {
        let needle = keyword.to_lowercase();
        Ok(self
            .load_all(owner)?
            .archival
            .into_iter()
            .filter(|e| contains_ci(&e.content, &needle))
            .collect())
    }
}

/// Case-insensitive containment; `needle_lower` must already be lowercase.
pub fn contains_ci(haystack: &str, needle_lower: &str) -> bool {
    if needle_lower.is_ascii() && haystack.is_ascii() {
        return haystack
            .as_bytes()
            .windows(needle_lower.len().max(1))
            .any(|w| w.eq_ignore_ascii_case(needle_lower.as_bytes()))
            || needle_lower.is_empty();
    }
    haystack.to_lowercase().contains(needle_lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_insensitive_contains() {
        assert!(contains_ci("User Prefers Tea", "prefers"));
        assert!(contains_ci("用户偏好简洁", "偏好"));
        assert!(contains_ci("ÄRGER", "ärger"));
        assert!(!contains_ci("abc", "abd"));
        assert!(contains_ci("abc", ""));
    }

    #[test]
    fn backend_names() {
        assert_eq!(Backend::parse_lenient("SQLite"), Backend::Sqlite);
        assert_eq!(Backend::parse_lenient("nonsense"), Backend::Markdown);
        assert!("nonsense".parse::<Backend>().is_err());
    }
}
