//! Curation: the entry-level changes the console makes to memory (edit, delete, move, restore)
//! and what a store records of each so that it can be undone (SPEC §13).
//!
//! A store applies a list of [`Step`]s as one change, all or nothing, and answers with the
//! [`EntryDiff`]s it made: the exact before and after of every entry touched. The inverse of a
//! change is computed from those diffs alone ([`inverse`]), so undo works on every backend the
//! same way; MEMORY.md additionally records its byte splices so that undo gives back the very
//! bytes (see `markdown_curate`).

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use super::entry::{render_line, Entry, Scope};
use crate::embed::identity::{fnv1a, fnv1a_many};
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

/// A change a store is asked to make.
#[derive(Debug, Clone)]
pub struct Request {
    /// Id, time, operation, owner, what it reverts; its entries and splices are filled in.
    pub head: super::history::Change,
    pub steps: Vec<Step>,
    /// An undo or redo: the splices that take the earlier change back byte for byte where the
    /// file still allows it, and the diffs that then describe what was done.
    pub exact: Option<(Vec<Splice>, Vec<EntryDiff>)>,
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

/// A MEMORY.md entry's id: section, position in it and a hash of the stored line
/// (`a12-3f9c0b1e`). Appends by other processes go after the last entry, so ids of existing
/// entries stay valid; a change before an entry moves it and its id says so (and is found
/// again by its line).
pub fn markdown_id(scope: Scope, ordinal: usize, line: &str) -> String {
    markdown_id_of(scope, ordinal, line_hash(line))
}

/// [`markdown_id`] from the line's hash (`a12-0badcafe`).
pub fn markdown_id_of(scope: Scope, ordinal: usize, hash: u32) -> String {
    write_markdown_id(scope, ordinal, hash, &mut [0; MARKDOWN_ID_MAX]).to_string()
}

/// The longest MEMORY.md id: `c`/`a`, up to 20 digits, `-`, 8 hex digits.
pub const MARKDOWN_ID_MAX: usize = 30;

/// [`markdown_id_of`] written into `buf`, without the formatter, which costs more than the
/// rest of the id when a finding names most of a large file's entries.
pub fn write_markdown_id(
    scope: Scope,
    ordinal: usize,
    hash: u32,
    buf: &mut [u8; MARKDOWN_ID_MAX],
) -> &str {
    buf[0] = match scope {
        Scope::Core => b'c',
        Scope::Archival => b'a',
    };
    let digits = ordinal.checked_ilog10().unwrap_or(0) as usize + 1;
    let mut n = ordinal;
    for d in buf[1..=digits].iter_mut().rev() {
        *d = b'0' + (n % 10) as u8;
        n /= 10;
    }
    buf[digits + 1] = b'-';
    for (k, d) in buf[digits + 2..digits + 10].iter_mut().enumerate() {
        *d = b"0123456789abcdef"[(hash >> ((7 - k) * 4)) as usize & 15];
    }
    let id = &buf[..digits + 10];
    debug_assert!(id.is_ascii());
    // SAFETY: every byte written above is ASCII (a letter, digits, `-`, hex digits). Checked,
    // this was ~2 % of a health run that names most of a large file's entries.
    unsafe { std::str::from_utf8_unchecked(id) }
}

pub fn line_hash(line: &str) -> u32 {
    fold_hash(fnv1a(line.as_bytes()))
}

/// [`line_hash`] of each line, faster than one at a time on many lines.
pub fn line_hashes(lines: &[&[u8]]) -> Vec<u32> {
    fnv1a_many(lines).into_iter().map(fold_hash).collect()
}

fn fold_hash(h: u64) -> u32 {
    (h ^ (h >> 32)) as u32
}

/// The parts of a MEMORY.md id; an id of any other form is unknown.
pub fn parse_markdown_id(id: &str) -> Result<(Scope, usize, u32)> {
    let unknown = || CoreError::NotFound(format!("no memory entry with id {id:?}"));
    let scope = match id.as_bytes().first() {
        Some(b'c') => Scope::Core,
        Some(b'a') => Scope::Archival,
        _ => return Err(unknown()),
    };
    let (ord, hash) = id[1..].split_once('-').ok_or_else(unknown)?;
    let ord = ord.parse::<usize>().map_err(|_| unknown())?;
    if hash.len() != 8 {
        return Err(unknown());
    }
    let hash = u32::from_str_radix(hash, 16).map_err(|_| unknown())?;
    Ok((scope, ord, hash))
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
    fn markdown_ids_are_tag_ordinal_and_hash() {
        for (scope, n, h) in [
            (Scope::Core, 0, 0u32),
            (Scope::Archival, 9, 0xdead_beef),
            (Scope::Archival, 10, 0x0bad_cafe),
            (Scope::Core, 123_456_789, 7),
            (Scope::Archival, usize::MAX, u32::MAX),
        ] {
            let tag = if scope == Scope::Core { 'c' } else { 'a' };
            assert_eq!(markdown_id_of(scope, n, h), format!("{tag}{n}-{h:08x}"));
        }
    }

    #[test]
    fn markdown_ids_round_trip_and_reject_other_forms() {
        let id = markdown_id(Scope::Archival, 12, "- [2026-07-22 09:31:10] x");
        let (s, o, h) = parse_markdown_id(&id).unwrap();
        assert_eq!((s, o), (Scope::Archival, 12));
        assert_eq!(h, line_hash("- [2026-07-22 09:31:10] x"));
        for bad in [
            "",
            "x1-00000000",
            "a-00000000",
            "a1-123",
            "a1-zzzzzzzz",
            "42",
        ] {
            assert!(
                matches!(parse_markdown_id(bad), Err(CoreError::NotFound(_))),
                "{bad}"
            );
        }
    }

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
