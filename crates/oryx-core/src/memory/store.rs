//! The store trait every backend implements.

use std::path::Path;

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use super::change::{EntryDiff, Splice, Step};
use super::entry::{Entry, Scope, Sections};
use super::history::Change;
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

/// A backend name that is none of markdown, sqlite or mem0.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown backend {0:?}: use markdown, sqlite or mem0")]
pub struct UnknownBackend(pub String);

impl std::str::FromStr for Backend {
    type Err = UnknownBackend;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "markdown" => Ok(Backend::Markdown),
            "sqlite" => Ok(Backend::Sqlite),
            "mem0" => Ok(Backend::Mem0),
            other => Err(UnknownBackend(other.to_string())),
        }
    }
}

/// What the prompt's load needs: the whole core and at least the archival entries that can be
/// inside the window (a store may return more).
#[derive(Debug, Clone, Default)]
pub struct ContextEntries {
    pub core: Vec<Entry>,
    pub archival_tail: Vec<Entry>,
    /// Both sections as the runtime's markdown store reads them (set by that store when it
    /// follows the runtime): the prompt is then made of this raw text; `archival.spans` lines
    /// up with `archival_tail`.
    pub runtime_text: Option<RuntimeText>,
}

/// A MEMORY.md's sections as raw text (see `memory/markdown/runtime_text.rs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuntimeText {
    pub core: String,
    pub archival: super::window::RawArchival,
}

/// A change a store is asked to make.
#[derive(Debug, Clone)]
pub struct Request {
    /// Id, time, operation, owner, what it reverts; its entries and splices are filled in.
    pub head: Change,
    pub steps: Vec<Step>,
    /// An undo or redo: the splices that take the earlier change back byte for byte where the
    /// file still allows it, and the diffs that then describe what was done.
    pub exact: Option<(Vec<Splice>, Vec<EntryDiff>)>,
}

/// One recalled entry: its section, the entry, and its score (`None` in keyword mode).
#[derive(Debug, Clone, PartialEq)]
pub struct Recalled {
    /// The backend's id of the entry where it has one (mem0).
    pub id: Option<String>,
    pub scope: Scope,
    pub entry: Entry,
    pub score: Option<f32>,
}

/// An archival entry as the runtime's recall and vector index see it: the text it hashes and
/// answers with (MEMORY.md: the raw line; sqlite: the row's content) and its time (`None`: the
/// runtime could not read one; it counts as the oldest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeEntry {
    pub text: String,
    pub time: Option<NaiveDateTime>,
}

/// Long-term memory storage. Content handed to `append` is already sanitised to one line.
pub trait LongTermMemoryStore: Send + Sync {
    fn backend(&self) -> Backend;

    /// Why the store's last call could not reach its storage (an unreachable server), until
    /// one does; `None` for stores that have nothing to reach.
    fn problem(&self) -> Option<String> {
        None
    }

    /// Where an owner's entries are stored, for display: a file, a table, a server.
    fn location(&self, owner: &Owner) -> String;

    /// The mem0 store, whose agent tools behave unlike the console's own writes.
    fn as_mem0(&self) -> Option<&super::mem0::Mem0MemoryStore> {
        None
    }

    /// Identifies the version of an owner's stored entries: equal stamps mean nothing was
    /// written in between, so a parsed view may be reused. `None`: the store cannot tell
    /// cheaply (a server), and nothing may be cached.
    fn stamp(&self, owner: &Owner) -> Option<Stamp> {
        let _ = owner;
        None
    }

    /// Bytes an owner's memory takes where it is one file of its own; `None` otherwise.
    fn size(&self, owner: &Owner) -> Option<u64> {
        let _ = owner;
        None
    }

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
            runtime_text: None,
        })
    }

    /// How many entries each section holds (the agent list), without keeping them.
    fn count(&self, owner: &Owner) -> Result<EntryCounts> {
        let all = self.load_all(owner)?;
        Ok(EntryCounts {
            core: all.core.len(),
            archival: all.archival.len(),
        })
    }

    /// The backend's own ranking by meaning (mem0's search): at most `k` entries of both
    /// sections with their similarity, best first. `None`: the store has no search of its own
    /// and the console's vector index ranks instead.
    fn search(&self, owner: &Owner, query: &str, k: usize) -> Result<Option<Vec<Recalled>>> {
        let _ = (owner, query, k);
        Ok(None)
    }

    /// Where the history of the console's changes to an owner's entries is kept; `None`: the
    /// store cannot be changed entry by entry.
    fn history(&self, owner: &Owner) -> Option<super::history::History> {
        let _ = owner;
        None
    }

    /// Makes one change (edits, deletes, moves, restores) all or nothing, recording it in
    /// [`Self::history`] around the write (CONTRACT §13). An entry that changed since it was shown
    /// is a `Conflict`, an id that names nothing `NotFound`; nothing is written then.
    fn curate(&self, owner: &Owner, req: Request) -> Result<Change> {
        let _ = (owner, req);
        Err(crate::error::CoreError::InvalidInput(format!(
            "the {} store cannot change entries",
            self.backend().as_str()
        )))
    }

    /// Whether a change whose commit record is missing (a console killed mid-change) is in the
    /// data: its new entries are there and the ones it removed are gone.
    fn holds(&self, owner: &Owner, change: &super::history::Change) -> Result<bool> {
        let _ = (owner, change);
        Ok(false)
    }

    /// Every archival entry in the runtime's order (written first, first), as the runtime's
    /// recall reads them: stores the runtime reads override this.
    fn runtime_archival(&self, owner: &Owner) -> Result<Vec<RuntimeEntry>> {
        Ok(self
            .load_all(owner)?
            .archival
            .into_iter()
            .map(|e| RuntimeEntry {
                text: e.content,
                time: e.timestamp,
            })
            .collect())
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

/// One version of the files an owner's entries are read from (see
/// [`LongTermMemoryStore::stamp`]). Opaque: stamps are only compared.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Stamp(Vec<Option<FileVersion>>);

impl Stamp {
    /// The versions of `paths` now (a missing file is a version too).
    pub fn of_files(paths: &[&Path]) -> Stamp {
        Stamp(paths.iter().map(|p| FileVersion::of(p)).collect())
    }
}

/// Size, modification time and file identity: a rename by another writer changes the identity
/// even when size and time collide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileVersion {
    len: u64,
    mtime_ns: u128,
    id: (u64, u64),
}

impl FileVersion {
    /// `None`: no such file (links are followed, as the stores follow them).
    pub fn of(path: &Path) -> Option<FileVersion> {
        let meta = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let id = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let id = (0, 0);
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        Some(FileVersion {
            len: meta.len(),
            mtime_ns,
            id,
        })
    }

    pub fn bytes(&self) -> u64 {
        self.len
    }

    /// The modification time, in the local time zone (as the runtime writes timestamps).
    pub fn modified_local(&self) -> Option<NaiveDateTime> {
        let t = std::time::UNIX_EPOCH.checked_add(std::time::Duration::from_nanos(
            self.mtime_ns.try_into().ok()?,
        ))?;
        let dt: chrono::DateTime<chrono::Local> = t.into();
        Some(dt.naive_local())
    }
}

/// Entries per section.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EntryCounts {
    pub core: usize,
    pub archival: usize,
}

/// A byte string that every text matching a keyword under [`contains_ci`] must contain, so that
/// a store can find candidates with a plain substring search over its raw bytes (or an index)
/// and run the exact check only on those.
///
/// Why this is exact: besides ASCII letters (whose case `ascii_folded` asks the caller to fold)
/// only two characters lowercase to something containing ASCII, KELVIN SIGN (to `k`) and
/// LATIN CAPITAL LETTER I WITH DOT ABOVE (to `i` + U+0307); the probe leaves out a trailing
/// `i` (the only place where the second can match an ASCII needle), and callers fall back to
/// the full check where a KELVIN SIGN occurs if the probe has a `k`. Every other probe
/// character is ASCII or in a caseless CJK block, where a character lowercases to itself and
/// nothing else lowercases to it (both facts are checked over all of Unicode by a test).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub bytes: String,
    /// The probe has ASCII letters: search a copy of the text with ASCII letters lowercased.
    pub ascii_folded: bool,
    /// The probe has a `k`: text holding a KELVIN SIGN needs the full check.
    pub kelvin: bool,
}

pub const KELVIN_SIGN: &str = "\u{212A}";

impl Probe {
    /// `None` when no probe is exact for this needle: the caller checks every entry.
    pub fn of(needle_lower: &str) -> Option<Probe> {
        let probe = needle_lower.strip_suffix('i').unwrap_or(needle_lower);
        if probe.is_empty() || !probe.chars().all(is_probe_char) {
            return None;
        }
        Some(Probe {
            bytes: probe.to_string(),
            ascii_folded: probe.bytes().any(|b| b.is_ascii_alphabetic()),
            kelvin: probe.contains('k'),
        })
    }
}

/// ASCII, or a character of a caseless CJK block (see [`Probe`]).
pub fn is_probe_char(c: char) -> bool {
    c.is_ascii() || is_caseless_cjk(c)
}

fn is_caseless_cjk(c: char) -> bool {
    matches!(c,
        '\u{2E80}'..='\u{2FDF}'   // radicals
        | '\u{3000}'..='\u{303F}' // CJK symbols and punctuation
        | '\u{3040}'..='\u{30FF}' // kana
        | '\u{3100}'..='\u{312F}' // bopomofo
        | '\u{3130}'..='\u{318F}' // hangul compatibility jamo
        | '\u{31F0}'..='\u{31FF}'
        | '\u{3400}'..='\u{4DBF}' // extension A
        | '\u{4E00}'..='\u{9FFF}' // unified ideographs
        | '\u{AC00}'..='\u{D7A3}' // hangul syllables
        | '\u{F900}'..='\u{FAFF}' // compatibility ideographs
        | '\u{FE30}'..='\u{FE4F}' // CJK compatibility forms
        | '\u{FF01}'..='\u{FF20}' // fullwidth punctuation and digits (not the letters)
        | '\u{FF3B}'..='\u{FF40}'
        | '\u{FF5B}'..='\u{FF65}'
        | '\u{20000}'..='\u{3134F}' // extensions B to G
    )
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
    fn only_two_non_ascii_characters_lowercase_to_ascii() {
        let odd: Vec<char> = (0..=0x10FFFFu32)
            .filter_map(char::from_u32)
            .filter(|c| !c.is_ascii() && c.to_lowercase().any(|l| l.is_ascii()))
            .collect();
        assert_eq!(odd, vec!['\u{130}', '\u{212A}']);
        assert_eq!('\u{130}'.to_lowercase().collect::<String>(), "i\u{307}");
    }

    #[test]
    fn probe_characters_lowercase_to_themselves_and_nothing_else_reaches_them() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            if is_probe_char(c) && !c.is_ascii_uppercase() {
                assert_eq!(c.to_lowercase().collect::<Vec<_>>(), vec![c], "{c:?}");
            }
            for l in c.to_lowercase() {
                if is_caseless_cjk(l) {
                    assert_eq!(l, c, "{c:?} lowercases to the probe character {l:?}");
                }
            }
        }
    }

    #[test]
    fn probes() {
        assert_eq!(Probe::of("ärger"), None);
        assert_eq!(Probe::of(""), None);
        assert_eq!(Probe::of("i"), None);
        let p = Probe::of("kubernetes").unwrap();
        assert!(p.ascii_folded && p.kelvin);
        assert_eq!(Probe::of("taxi").unwrap().bytes, "tax");
        let p = Probe::of("数据库迁移").unwrap();
        assert!(!p.ascii_folded && !p.kelvin);
        assert!(
            contains_ci("TAX\u{130}", "taxi"),
            "why the trailing i is dropped"
        );
        assert!(contains_ci("\u{212A}ubernetes", "kubernetes"));
    }

    #[test]
    fn backend_names() {
        assert_eq!(Backend::parse_lenient("SQLite"), Backend::Sqlite);
        assert_eq!(Backend::parse_lenient("nonsense"), Backend::Markdown);
        assert!("nonsense".parse::<Backend>().is_err());
    }
}
