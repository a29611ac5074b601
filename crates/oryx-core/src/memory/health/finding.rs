//! What the checks report: the checks by name, a finding and its fix, and the ids findings name
//! entries by.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::memory::curate;
use crate::memory::entry::Scope;

/// A kind of check, as findings, options and dismissals name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Check {
    Secrets,
    Pii,
    Duplicates,
    Stale,
    Budget,
    /// Entries that read as instructions to the model.
    Poisoning,
}

impl Check {
    pub const ALL: [Check; 6] = [
        Check::Secrets,
        Check::Pii,
        Check::Duplicates,
        Check::Stale,
        Check::Budget,
        Check::Poisoning,
    ];

    pub fn parse(s: &str) -> Option<Check> {
        Some(match s.trim() {
            "secrets" => Check::Secrets,
            "pii" => Check::Pii,
            "duplicates" => Check::Duplicates,
            "stale" => Check::Stale,
            "budget" => Check::Budget,
            "poisoning" => Check::Poisoning,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Check::Secrets => "secrets",
            Check::Pii => "pii",
            Check::Duplicates => "duplicates",
            Check::Stale => "stale",
            Check::Budget => "budget",
            Check::Poisoning => "poisoning",
        }
    }
}

/// An entry's id as a finding names it, held inline when short (a MEMORY.md id such as
/// `a913891-0badcafe` is 16 bytes): a finding can name most of a large file's entries, and a
/// String each was ~900 000 allocations, their frees, and the next run's allocator merging
/// what they left.
pub type EntryId = compact_str::CompactString;

/// A MEMORY.md entry's id ([`curate::markdown_id`]) from its line's hash, as a finding holds
/// it.
pub(super) fn markdown_entry_id(scope: Scope, ordinal: usize, hash: u32) -> EntryId {
    let mut buf = [0; curate::MARKDOWN_ID_MAX];
    EntryId::from(curate::write_markdown_id(scope, ordinal, hash, &mut buf))
}

/// The curation operation that fixes a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Fix {
    /// Delete these entries.
    Delete { ids: Vec<EntryId> },
    /// Replace the entry's content (the secret or number masked).
    Edit { id: EntryId, content: String },
}

/// What a check found in one entry or a group of entries, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub check: Check,
    /// What was found, for grouping (`openai_key`, `email`, `exact`, `tomorrow` …).
    pub kind: String,
    pub entry_ids: Vec<EntryId>,
    /// The English reason, for logs and the CLI.
    pub reason: String,
    /// The values the reason is built from, so that it can be said in another language from
    /// `check`, `kind` and these: secrets and pii `kinds` (comma-separated, in order found);
    /// stale `word`, `age_days`; exact duplicates `count`; near duplicates `count`, `basis`
    /// (`numbers`: only digits differ; `request`: footprints of the same or a similar request,
    /// which is in `request`; `text`: n-gram similarity) and `similarity` (0.00–1.00, the
    /// lowest by which an entry joined the group); poisoning `kinds` (comma-separated, strongest
    /// first), `score` (0–100, from the text alone), `excerpt` (where the strongest signal is,
    /// hidden characters written `⟨U+202E⟩`) and, with hidden characters, `visible` (the
    /// entry so written).
    pub params: BTreeMap<String, String>,
    pub fix: Option<Fix>,
}

/// A finding's params from `(name, value)` pairs.
pub(super) fn params<const N: usize>(pairs: [(&str, String); N]) -> BTreeMap<String, String> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}
