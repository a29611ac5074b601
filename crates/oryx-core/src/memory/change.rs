//! A change to entries as a store applies it: the steps asked for (edit, delete, move,
//! restore) and the exact before and after of each entry touched, from which every change can
//! be undone.
//!
//! A store applies a list of [`Step`]s as one change, all or nothing, and answers with the
//! [`EntryDiff`]s it made: the exact before and after of every entry touched. The inverse of a
//! change is computed from those diffs alone ([`inverse`]), so undo works on every backend the
//! same way; MEMORY.md additionally records its byte splices so that undo gives back the very
//! bytes (see `markdown::curate`).

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use super::entry::{render_line, Entry, Scope};
use crate::error::{CoreError, Result};
use crate::timefmt::{format_entry_ts, parse_entry_ts};

/// One entry as a change saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntrySnap {
    pub id: String,
    pub scope: Scope,
    /// `yyyy-MM-dd HH:mm:ss`, as entries show it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    pub content: String,
    /// The stored line (MEMORY.md) or the line the prompt shows.
    pub line: String,
    /// What a store needs to put the entry back exactly beyond the above (sqlite: the row's
    /// `scope` and `created_at` as stored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
}

impl EntrySnap {
    pub fn of(id: String, scope: Scope, e: &Entry) -> EntrySnap {
        EntrySnap {
            id,
            scope,
            timestamp: e.timestamp.as_ref().map(format_entry_ts),
            content: e.content.clone(),
            line: e.line.clone(),
            raw: None,
        }
    }

    pub fn time(&self) -> Option<NaiveDateTime> {
        self.timestamp.as_deref().and_then(parse_entry_ts)
    }
}

/// What one change did to one entry: an edit or a move has both sides, a delete no `after`, a
/// restore no `before`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryDiff {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<EntrySnap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<EntrySnap>,
}

/// One piece of a change to be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The entry `id` (whose content must still be `expect`) gets `content`, and `scope` and
    /// `timestamp` when given (`None`: kept); `line`: the exact stored line to write (an
    /// undo), else rendered.
    Replace {
        id: String,
        expect: String,
        scope: Option<Scope>,
        timestamp: Option<Option<NaiveDateTime>>,
        content: String,
        line: Option<String>,
        raw: Option<String>,
    },
    /// The entry `id`, whose content must still be `expect`, goes.
    Remove { id: String, expect: String },
    /// A new entry (a restore): at its place in time order; `id`: the id it had, which a
    /// store reuses where it can (a sqlite row id).
    Insert {
        id: Option<String>,
        scope: Scope,
        timestamp: Option<NaiveDateTime>,
        content: String,
        line: Option<String>,
        raw: Option<String>,
    },
}

impl Step {
    pub fn target(&self) -> Option<(&str, &str)> {
        match self {
            Step::Replace { id, expect, .. } | Step::Remove { id, expect } => Some((id, expect)),
            Step::Insert { .. } => None,
        }
    }
}

/// The line a step writes: the one it carries, or rendered as the runtime would.
pub fn line_of(timestamp: Option<&NaiveDateTime>, content: &str, line: &Option<String>) -> String {
    line.clone()
        .unwrap_or_else(|| render_line(timestamp, content))
}

/// One exact byte replacement in a file, in the coordinates of the file *after* the change:
/// `inserted` stands at `at`, where `removed` stood before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Splice {
    pub at: u64,
    pub removed: String,
    pub inserted: String,
    /// A hash of the 64 bytes before `at` after the change: the splice is only undone in place
    /// where the same text still precedes it.
    pub ctx: u32,
}

/// What a store did for one change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    pub diffs: Vec<EntryDiff>,
    /// MEMORY.md only: the byte splices that undo the change exactly.
    pub splices: Vec<Splice>,
}

/// The steps that take a change back, from its diffs: each entry returns to its `before`.
pub fn inverse(diffs: &[EntryDiff]) -> Vec<Step> {
    diffs
        .iter()
        .filter_map(|d| match (&d.before, &d.after) {
            (Some(b), Some(a)) => Some(Step::Replace {
                id: a.id.clone(),
                expect: a.content.clone(),
                scope: Some(b.scope),
                timestamp: Some(b.time()),
                content: b.content.clone(),
                line: Some(b.line.clone()),
                raw: b.raw.clone(),
            }),
            (Some(b), None) => Some(Step::Insert {
                id: Some(b.id.clone()),
                scope: b.scope,
                timestamp: b.time(),
                content: b.content.clone(),
                line: Some(b.line.clone()),
                raw: b.raw.clone(),
            }),
            (None, Some(a)) => Some(Step::Remove {
                id: a.id.clone(),
                expect: a.content.clone(),
            }),
            (None, None) => None,
        })
        .collect()
}

/// The entry lines in a piece of MEMORY.md text (a splice's): every line, trimmed as the
/// runtime trims, that is neither blank nor a heading.
pub fn entry_lines(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n')
        .map(super::entry::trim_runtime)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// The refusal when an entry changed since it was shown.
pub fn changed_since(id: &str, expect: &str, now: Option<&str>) -> CoreError {
    match now {
        Some(now) => CoreError::Conflict(format!(
            "entry {id} changed since it was shown: expected {expect:?}, it now reads {now:?}; \
             nothing was changed, reload and try again"
        )),
        None => CoreError::Conflict(format!(
            "entry {id} ({expect:?}) is no longer where it was and cannot be found unambiguously; \
             nothing was changed, reload and try again"
        )),
    }
}

/// Every target named once: two steps on one entry are the caller's mistake.
pub fn check_distinct(steps: &[Step]) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for (id, _) in steps.iter().filter_map(Step::target) {
        if !seen.insert(id) {
            return Err(CoreError::InvalidInput(format!(
                "entry {id} is named twice in one change"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inverse_returns_every_entry_to_its_before() {
        let snap = |id: &str, scope, c: &str| EntrySnap {
            id: id.into(),
            scope,
            timestamp: Some("2026-07-22 09:31:10".into()),
            content: c.into(),
            line: format!("- [2026-07-22 09:31:10] {c}"),
            raw: None,
        };
        let diffs = vec![
            EntryDiff {
                before: Some(snap("a1", Scope::Archival, "old")),
                after: Some(snap("c0", Scope::Core, "new")),
            },
            EntryDiff {
                before: Some(snap("a2", Scope::Archival, "gone")),
                after: None,
            },
            EntryDiff {
                before: None,
                after: Some(snap("a3", Scope::Archival, "back")),
            },
        ];
        let inv = inverse(&diffs);
        assert!(
            matches!(&inv[0], Step::Replace { id, expect, scope: Some(Scope::Archival), content, .. }
            if id == "c0" && expect == "new" && content == "old")
        );
        assert!(
            matches!(&inv[1], Step::Insert { id: Some(id), content, .. } if id == "a2" && content == "gone")
        );
        assert!(matches!(&inv[2], Step::Remove { id, expect } if id == "a3" && expect == "back"));
    }
}
