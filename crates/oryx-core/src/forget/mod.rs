//! Forget for good: every copy of a text the console can reach, found (a dry run lists them by
//! place), then erased — memory entries deleted or masked, the console's history records turned
//! into tombstones, its journal, indexes and review marks cleaned, the runtime's rows redacted,
//! SQLite pages and WAL left without the bytes — and what it cannot reach (git history, archives
//! outside its data, sessions the running runtime holds) listed with the reason. Unlike every
//! other change, a forget cannot be undone; its receipt keeps a hash of the text, never the text.
//!
//! Each place is a module with the same two steps over the same [`Needles`]: `find` (reads only)
//! and `erase` (changes only what holds a needle, and says what it left).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub mod archives;
pub mod console_files;
pub mod git_history;
pub mod json_text;
pub mod memory_entries;
pub mod receipt;
pub mod run;
pub mod runtime_db;

/// What is replaced where the text is masked rather than removed (inside JSON strings, in
/// tombstones' place of a text, in a masked entry).
pub const FORGOTTEN: &str = "[forgotten]";

/// The texts to forget: each a literal, matched byte for byte (case-sensitive) inside any text
/// that holds it. Empty and whitespace-only texts are never needles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needles {
    texts: Vec<String>,
}

impl Needles {
    pub fn new(texts: impl IntoIterator<Item = String>) -> Needles {
        let mut texts: Vec<String> = texts.into_iter().filter(|t| !t.trim().is_empty()).collect();
        texts.sort();
        texts.dedup();
        Needles { texts }
    }

    pub fn texts(&self) -> &[String] {
        &self.texts
    }

    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// Whether `hay` holds any needle.
    pub fn in_text(&self, hay: &str) -> bool {
        self.texts.iter().any(|t| hay.contains(t.as_str()))
    }

    /// `hay` with every needle replaced by `with` (longest needles first, so a needle inside
    /// another leaves no part of the longer one).
    pub fn replace_all(&self, hay: &str, with: &str) -> String {
        let mut order: Vec<&String> = self.texts.iter().collect();
        order.sort_by_key(|t| std::cmp::Reverse(t.len()));
        let mut out = hay.to_string();
        for t in order {
            if out.contains(t.as_str()) {
                out = out.replace(t.as_str(), with);
            }
        }
        out
    }
}

/// Where a copy lives. The order is the order a dry run lists them in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// Memory entries of any agent, the global memory, any backend.
    Memory,
    /// The console's history of changes (`MEMORY.md.oryx-history`, `oryxos.db.oryx-history`).
    History,
    /// The console's write journal (`MEMORY.md.oryx-journal`).
    Journal,
    /// The console's own vector file and other indexes and caches in its data directory.
    ConsoleIndex,
    /// Review marks and dismissed findings.
    ReviewMarks,
    /// The runtime's `memory_vectors` rows.
    RuntimeVectors,
    /// The runtime's `tool_invocations` (inputs and results of tool calls).
    RuntimeToolCalls,
    /// The runtime's `sessions.messages_json` (the user's words, the assistant's tool calls).
    RuntimeSessions,
    /// Any other row of the runtime's database holding the text.
    RuntimeOther,
    /// Stale copies in the free space of a SQLite file or its WAL.
    DatabaseFreeSpace,
    /// Archives the console exported.
    Archives,
    /// Commits of the git repository the root is kept in.
    Git,
}

impl Place {
    /// Its name in receipts and answers (`runtime_tool_calls`).
    pub fn name(self) -> &'static str {
        match self {
            Place::Memory => "memory",
            Place::History => "history",
            Place::Journal => "journal",
            Place::ConsoleIndex => "console_index",
            Place::ReviewMarks => "review_marks",
            Place::RuntimeVectors => "runtime_vectors",
            Place::RuntimeToolCalls => "runtime_tool_calls",
            Place::RuntimeSessions => "runtime_sessions",
            Place::RuntimeOther => "runtime_other",
            Place::DatabaseFreeSpace => "database_free_space",
            Place::Archives => "archives",
            Place::Git => "git",
        }
    }
}

/// Copies found (or erased) at one path of one place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Copies {
    pub place: Place,
    /// The file (or database) that holds them.
    pub path: PathBuf,
    /// How many records hold a needle: entries, history records, rows, commits, members.
    pub count: usize,
    /// What they are, for people: `tool_invocations.input_json`, an agent's name, a commit id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Erased only: records the forget's own delete wrote there (the delete's history and
    /// journal records, which hold the text as every delete's do) and then erased — not counted
    /// in `count`, which is what was there before.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub own: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Copies {
    pub fn new(place: Place, path: PathBuf, count: usize, detail: Option<String>) -> Copies {
        Copies {
            place,
            path,
            count,
            detail,
            own: 0,
        }
    }
}

/// Why copies were left, as a code the UI words in the person's language (`reason` says it in
/// English, with the details).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Why {
    /// Commits of the root's git repository (`arg`: their short ids).
    Git,
    /// An archive exported earlier: the person's file.
    HandedOver,
    /// The console's own file could not be removed (`arg`: the error).
    NotRemoved,
    /// The mem0 server's own history of a memory deleted through its API.
    Mem0History,
    /// A session the running runtime holds (active) or may write again (`arg`: its status).
    SessionHeld,
    /// The forget was stopped before this place.
    Cancelled,
    /// This place failed (`arg`: the error); forgetting again finishes it.
    Failed,
    /// Still found by the search after the forget (`arg`: what).
    StillFound,
    /// The runtime was reading its database: part of its WAL stays until its next checkpoint.
    WalPartial,
    /// The database could not be compacted (`arg`: the error).
    NotCompacted,
    /// The entries could not be changed (`arg`: the error).
    NotChanged,
    /// The text is part of a history record's own names (id, owner, operation).
    InRecordNames,
    /// The text is part of a JSON value's syntax or escapes, not of its strings.
    JsonSyntax,
    /// The text is inside a binary value.
    Binary,
    /// The text is in a virtual table's data (`arg`: `table.column`).
    VirtualTable,
}

/// Copies a forget did not erase, and why (beyond the console's reach, held by the running
/// runtime, cancelled).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Left {
    pub place: Place,
    pub path: PathBuf,
    #[serde(default)]
    pub count: usize,
    pub reason: String,
    pub why: Why,
    /// The detail `why` names (commit ids, an error, a status).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arg: Option<String>,
}

/// What one place's `erase` did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Erased {
    pub erased: Vec<Copies>,
    pub left: Vec<Left>,
}

impl Erased {
    pub fn merge(&mut self, other: Erased) {
        self.erased.extend(other.erased);
        self.left.extend(other.left);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needles_ignore_blank_texts_and_replace_the_longest_first() {
        let n = Needles::new(["sk-1".into(), "  ".into(), "sk-12345".into(), "sk-1".into()]);
        assert_eq!(n.texts(), ["sk-1", "sk-12345"]);
        assert!(n.in_text("key sk-12345 here"));
        assert!(!n.in_text("key sk-2"));
        assert_eq!(
            n.replace_all("a sk-12345 b sk-1 c", FORGOTTEN),
            "a [forgotten] b [forgotten] c"
        );
    }
}
