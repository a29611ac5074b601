//! What a person has reviewed of each owner's memory (CONTRACT §13): the entries present at the
//! last "mark all reviewed", kept as hashes in the console's own data directory (never in
//! MEMORY.md or the runtime's database). Entries added since — by the runtime or anyone — are
//! "new".

use std::path::{Path, PathBuf};

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use super::entry::{Entry, Scope};
use crate::embed::identity::{fnv1a, fnv1a_parts};
use crate::error::{CoreError, IoContext, Result};

/// One owner's last review.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reviewed {
    /// Epoch milliseconds.
    pub at: i64,
    /// The entries' keys ([`entry_key`]), sorted.
    pub keys: Vec<u64>,
}

impl Reviewed {
    pub fn has(&self, key: u64) -> bool {
        self.keys.binary_search(&key).is_ok()
    }
}

/// An entry as a review remembers it: section, time and content (an edit makes it new again).
pub fn entry_key(scope: Scope, e: &Entry) -> u64 {
    entry_key_of(scope, e.timestamp, &e.content)
}

/// [`entry_key`] of an entry's parts: the hash of `scope NUL time NUL content`, made without
/// copying them into one text (health matches a key for each entry a finding names).
pub fn entry_key_of(scope: Scope, timestamp: Option<NaiveDateTime>, content: &str) -> u64 {
    let mut buf = [0; 19];
    let formatted;
    let ts = match timestamp {
        None => "",
        Some(t) => match crate::timefmt::write_entry_ts(&t, &mut buf) {
            Some(ts) => ts,
            None => {
                formatted = crate::timefmt::format_entry_ts(&t);
                &formatted
            }
        },
    };
    let parts = [scope.as_str(), "\0", ts, "\0", content];
    fnv1a_parts(&parts.map(str::as_bytes))
}

/// A health finding of `check` dismissed on the entry whose key is `entry`.
pub fn dismiss_key(check: &str, entry: u64) -> u64 {
    entry ^ super::entry_id::line_hash(check) as u64
}

pub struct Reviews {
    dir: PathBuf,
}

impl Reviews {
    /// Reviews kept under the console's data directory `index_dir`.
    pub fn new(index_dir: &Path) -> Reviews {
        Reviews {
            dir: index_dir.join("review"),
        }
    }

    /// Health findings a person dismissed, kept the same way (keys: check and entry).
    pub fn dismissals(index_dir: &Path) -> Reviews {
        Reviews {
            dir: index_dir.join("dismissed"),
        }
    }

    /// Superseded-fact pairs a person chose to keep both of (keys: [`super::superseded::pair_key`]).
    pub fn superseded_kept(index_dir: &Path) -> Reviews {
        Reviews {
            dir: index_dir.join("superseded-kept"),
        }
    }

    /// Takes keys out of what is recorded (the undo of a dismissal).
    pub fn remove(&self, source: &str, keys: &[u64]) -> Result<Reviewed> {
        let mut all = self.load(source)?.map(|r| r.keys).unwrap_or_default();
        all.retain(|k| !keys.contains(k));
        self.mark(source, all)
    }

    /// Adds keys to what is recorded (a dismissal adds to the earlier ones).
    pub fn add(&self, source: &str, keys: &[u64]) -> Result<Reviewed> {
        let mut all = self.load(source)?.map(|r| r.keys).unwrap_or_default();
        all.extend_from_slice(keys);
        self.mark(source, all)
    }

    /// `source`: where the owner's entries live (a file, a database and owner, a server and
    /// user): reviews follow the data, not the agent's name alone.
    fn file(&self, source: &str) -> PathBuf {
        self.dir
            .join(format!("{:016x}.json", fnv1a(source.as_bytes())))
    }

    pub fn load(&self, source: &str) -> Result<Option<Reviewed>> {
        let path = self.file(source);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
                CoreError::Corrupt(format!(
                    "{}: not a review record ({e}); delete it to start the review afresh",
                    path.display()
                ))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(CoreError::io(&path, e)),
        }
    }

    /// Records every key as reviewed now.
    pub fn mark(&self, source: &str, mut keys: Vec<u64>) -> Result<Reviewed> {
        keys.sort_unstable();
        keys.dedup();
        let r = Reviewed {
            at: crate::timefmt::now_epoch_ms(),
            keys,
        };
        std::fs::create_dir_all(&self.dir).at(&self.dir)?;
        let path = self.file(source);
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_vec(&r).expect("reviews serialise")).at(&tmp)?;
        std::fs::rename(&tmp, &path).at(&path)?;
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_s_key_is_the_hash_of_its_parts_joined() {
        let t = crate::timefmt::parse_entry_ts("2026-01-02 03:04:05");
        for (scope, ts, content) in [
            (Scope::Core, t, "用户偏好简洁的回复"),
            (Scope::Archival, None, "x"),
            (Scope::Archival, t, ""),
        ] {
            let ts_text = ts
                .map(|t| crate::timefmt::format_entry_ts(&t))
                .unwrap_or_default();
            let joined = format!("{}\u{0}{ts_text}\u{0}{content}", scope.as_str());
            assert_eq!(entry_key_of(scope, ts, content), fnv1a(joined.as_bytes()));
        }
    }

    #[test]
    fn marks_are_kept_per_source_and_edits_are_new() {
        let dir = tempfile::tempdir().unwrap();
        let r = Reviews::new(dir.path());
        assert_eq!(r.load("a").unwrap(), None);
        let e = Entry::new(None, "x");
        let k = entry_key(Scope::Archival, &e);
        r.mark("a", vec![k, k]).unwrap();
        let got = r.load("a").unwrap().unwrap();
        assert!(got.has(k));
        assert!(!got.has(entry_key(Scope::Archival, &Entry::new(None, "y"))));
        assert!(!got.has(entry_key(Scope::Core, &e)));
        assert_eq!(r.load("b").unwrap(), None);
    }
}
