//! Review marks (`<index dir>/review/*.json`) and dismissed findings (`<index dir>/dismissed/
//! *.json`) of forgotten entries. They hold hashes (of scope, time and content; a dismissal's
//! of the check too), never text, but a mark of an entry that is gone must not refer to it: the
//! keys of the forgotten entries are removed from every file, which keeps its time and every
//! other key. A file is rewritten only when it holds such a key.

use std::path::{Path, PathBuf};

use super::{json_files, replace_own_file, EntryText};
use crate::error::{CoreError, Result};
use crate::forget::{Copies, Erased, Place};
use crate::memory::health::Check;
use crate::memory::review::{dismiss_key, entry_key_of, Reviewed};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Review,
    Dismissed,
}

impl Kind {
    pub const ALL: [Kind; 2] = [Kind::Review, Kind::Dismissed];

    pub fn dir(self, index_dir: &Path) -> PathBuf {
        index_dir.join(match self {
            Kind::Review => "review",
            Kind::Dismissed => "dismissed",
        })
    }

    /// The keys this kind of file holds for `entries`.
    fn keys(self, entries: &[EntryText]) -> Vec<u64> {
        let mut out: Vec<u64> = Vec::new();
        for e in entries {
            let k = entry_key_of(e.scope, e.timestamp, &e.content);
            match self {
                Kind::Review => out.push(k),
                Kind::Dismissed => {
                    out.extend(Check::ALL.iter().map(|c| dismiss_key(c.as_str(), k)))
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The marks of `entries` in one kind of file, counted and, with `write`, removed.
pub(super) fn forget(
    kind: Kind,
    index_dir: &Path,
    entries: &[EntryText],
    write: bool,
) -> Result<Erased> {
    let mut out = Erased::default();
    if entries.is_empty() {
        return Ok(out);
    }
    let dir = kind.dir(index_dir);
    let gone = kind.keys(entries);
    for path in json_files(&dir) {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(mut r) = serde_json::from_slice::<Reviewed>(&bytes) else {
            continue;
        };
        let before = r.keys.len();
        r.keys.retain(|k| gone.binary_search(k).is_err());
        let count = before - r.keys.len();
        if count == 0 {
            continue;
        }
        if write {
            let bytes = serde_json::to_vec(&r)
                .map_err(|e| CoreError::Corrupt(format!("{}: {e}", path.display())))?;
            replace_own_file(&path, &bytes)?;
        }
        let what = match kind {
            Kind::Review => "review",
            Kind::Dismissed => "dismissed",
        };
        out.erased.push(Copies::new(
            Place::ReviewMarks,
            path,
            count,
            Some(what.into()),
        ));
    }
    Ok(out)
}
