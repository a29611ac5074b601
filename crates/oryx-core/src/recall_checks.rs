//! Recall checks: questions a person keeps for an owner, each with the entries that must answer
//! it, run with the runtime's recall engine. A check records its last outcome and the state of
//! everything the answer depends on (the entries, the recall settings, the embedding model and
//! the vector rows) when it ran: a check whose state differs is due again, and one that passed
//! and fails now is broken — by the change made in between.
//!
//! Kept in the console's data directory, one file per owner's data source (like review marks):
//! entry ids (hashes of the lines) and questions, never an entry's text.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{CoreError, IoContext, Result};

/// One kept question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecallCheck {
    pub id: String,
    pub question: String,
    /// The entries (console ids) that must all be in the answer.
    pub expect: Vec<String>,
    /// Epoch ms.
    pub created: i64,
    #[serde(default)]
    pub last: Option<Outcome>,
    /// The last outcome that passed, kept when a later run fails: what the check stood on.
    #[serde(default)]
    pub last_passed: Option<Outcome>,
}

/// One run of a check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// Epoch ms.
    pub at: i64,
    pub passed: bool,
    /// The entries the answer held, best first (console ids; entries without one are left out).
    pub found: Vec<String>,
    /// Expected entries missing from the answer.
    pub missing: Vec<String>,
    /// Expected entries the owner no longer has (edited, moved or deleted since).
    pub gone: Vec<String>,
    /// The state it ran against (see [`state_stamp`]).
    pub stamp: u64,
    /// This run failed and the one before passed: the change in between broke it.
    #[serde(default)]
    pub broke: bool,
}

impl RecallCheck {
    /// Whether the check has to run again: never run, or run against another state.
    pub fn due(&self, stamp: u64) -> bool {
        self.last.as_ref().is_none_or(|o| o.stamp != stamp)
    }

    /// Passed once and fails now.
    pub fn broken(&self) -> bool {
        self.last.as_ref().is_some_and(|o| !o.passed) && self.last_passed.is_some()
    }

    /// Records a run's outcome.
    pub fn record(&mut self, mut outcome: Outcome) {
        outcome.broke = !outcome.passed && self.last.as_ref().is_some_and(|o| o.passed);
        if outcome.passed {
            self.last_passed = Some(outcome.clone());
        }
        self.last = Some(outcome);
    }
}

/// The outcome of an answer: passed when every expected entry is in it.
pub fn judge(
    expect: &[String],
    found: Vec<String>,
    live: &[String],
    at: i64,
    stamp: u64,
) -> Outcome {
    let missing: Vec<String> = expect
        .iter()
        .filter(|e| !found.contains(e))
        .cloned()
        .collect();
    let gone = missing
        .iter()
        .filter(|e| !live.contains(e))
        .cloned()
        .collect();
    Outcome {
        at,
        passed: missing.is_empty(),
        found,
        missing,
        gone,
        stamp,
        broke: false,
    }
}

/// Where an expected entry is now among the owner's `live` ids: the same id, or — for a
/// MEMORY.md id, which names the entry's position and the hash of its line — the entry with the
/// same line at the position nearest to the old one (a change above it moved it). `None`: the
/// line is gone (edited or deleted).
pub fn follow(id: &str, live: &[String]) -> Option<String> {
    if live.iter().any(|l| l == id) {
        return Some(id.to_string());
    }
    let (head, hash) = markdown_parts(id)?;
    live.iter()
        .filter_map(|l| {
            let (h, x) = markdown_parts(l)?;
            (x == hash && h.0 == head.0).then(|| (h.1.abs_diff(head.1), l))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, l)| l.clone())
}

/// A MEMORY.md id's section letter and position, and its line hash (`a12-3f9c0b1e`).
fn markdown_parts(id: &str) -> Option<((char, usize), &str)> {
    let (head, hash) = id.split_once('-')?;
    let mut chars = head.chars();
    let section = chars.next().filter(|c| matches!(c, 'a' | 'c'))?;
    let ordinal = chars.as_str().parse().ok()?;
    (hash.len() == 8 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some(((section, ordinal), hash))
}

/// A stamp of what an answer depends on, from its parts (the entries' ids in order, the
/// settings, the model, the vector rows): equal parts, equal stamp.
pub fn state_stamp(parts: &[&str]) -> u64 {
    let bytes: Vec<&[u8]> = parts.iter().map(|p| p.as_bytes()).collect();
    crate::embed::identity::fnv1a_parts(&bytes)
}

/// An owner's checks on disk.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    pub checks: Vec<RecallCheck>,
}

/// The checks kept under the console's data directory.
pub struct RecallChecks {
    dir: PathBuf,
}

impl RecallChecks {
    pub fn new(index_dir: &Path) -> RecallChecks {
        RecallChecks {
            dir: index_dir.join("recall-checks"),
        }
    }

    /// The folder of the checks' files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `source`: where the owner's entries live (checks follow the data, as review marks do).
    pub fn file(&self, source: &str) -> PathBuf {
        self.dir.join(format!(
            "{:016x}.json",
            crate::embed::identity::fnv1a(source.as_bytes())
        ))
    }

    pub fn load(&self, source: &str) -> Result<Saved> {
        let path = self.file(source);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                CoreError::Corrupt(format!(
                    "{}: not a file of recall checks ({e}); move it away to start afresh",
                    path.display()
                ))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Saved::default()),
            Err(e) => Err(CoreError::io(&path, e)),
        }
    }

    /// Writes them atomically (a temporary file renamed over the old one).
    pub fn save(&self, source: &str, saved: &Saved) -> Result<()> {
        std::fs::create_dir_all(&self.dir).at(&self.dir)?;
        let path = self.file(source);
        let tmp = path.with_extension("json.tmp");
        let bytes = serde_json::to_vec_pretty(saved).expect("recall checks serialise");
        std::fs::write(&tmp, bytes).at(&tmp)?;
        std::fs::rename(&tmp, &path).at(&path)
    }
}

/// A new check's id: short, from its question, expected entries and time.
pub fn new_id(question: &str, expect: &[String], created: i64) -> String {
    let mut parts: Vec<&str> = vec![question];
    parts.extend(expect.iter().map(String::as_str));
    let t = created.to_string();
    parts.push(&t);
    format!("chk-{:08x}", state_stamp(&parts) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn passes_when_every_expected_entry_is_in_the_answer() {
        let o = judge(
            &ids(&["a", "b"]),
            ids(&["b", "x", "a"]),
            &ids(&["a", "b", "x"]),
            1,
            7,
        );
        assert!(o.passed);
        let o = judge(&ids(&["a", "b"]), ids(&["b"]), &ids(&["b"]), 1, 7);
        assert!(!o.passed);
        assert_eq!(o.missing, ids(&["a"]));
        assert_eq!(o.gone, ids(&["a"]), "a is no longer an entry");
    }

    #[test]
    fn an_expected_entry_is_followed_when_a_change_above_it_moves_it() {
        let live = ids(&["a0-11111111", "a1-3f9c0b1e", "a7-3f9c0b1e"]);
        assert_eq!(follow("a1-3f9c0b1e", &live).as_deref(), Some("a1-3f9c0b1e"));
        assert_eq!(follow("a2-3f9c0b1e", &live).as_deref(), Some("a1-3f9c0b1e"));
        assert_eq!(follow("a6-3f9c0b1e", &live).as_deref(), Some("a7-3f9c0b1e"));
        assert_eq!(follow("a2-deadbeef", &live), None, "its line changed");
        assert_eq!(follow("c2-3f9c0b1e", &live), None, "another section");
        // A store's own ids (sqlite rows, mem0 ids) are followed only as they are.
        assert_eq!(follow("42", &ids(&["42"])).as_deref(), Some("42"));
        assert_eq!(follow("43", &ids(&["42"])), None);
    }

    #[test]
    fn a_check_that_passed_and_fails_now_is_broken_and_due_on_another_state() {
        let mut c = RecallCheck {
            id: new_id("q", &ids(&["a"]), 1),
            question: "q".into(),
            expect: ids(&["a"]),
            created: 1,
            last: None,
            last_passed: None,
        };
        assert!(c.due(1));
        c.record(judge(&c.expect.clone(), ids(&["a"]), &ids(&["a"]), 2, 1));
        assert!(!c.due(1) && c.due(2) && !c.broken());
        c.record(judge(&c.expect.clone(), ids(&[]), &ids(&["a"]), 3, 2));
        assert!(c.broken());
        assert!(c.last.as_ref().unwrap().broke, "this run broke it");
        assert_eq!(c.last_passed.as_ref().unwrap().at, 2);
        // Run again on another state, failing still: broken, but not by this run.
        c.record(judge(&c.expect.clone(), ids(&[]), &ids(&["a"]), 4, 3));
        assert!(c.broken() && !c.last.as_ref().unwrap().broke);
        c.record(judge(&c.expect.clone(), ids(&["a"]), &ids(&["a"]), 5, 4));
        assert!(!c.broken());
    }

    #[test]
    fn checks_are_kept_per_source_and_a_damaged_file_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let store = RecallChecks::new(dir.path());
        assert!(store.load("s").unwrap().checks.is_empty());
        let saved = Saved {
            checks: vec![RecallCheck {
                id: "chk-1".into(),
                question: "住在哪".into(),
                expect: ids(&["a"]),
                created: 1,
                last: None,
                last_passed: None,
            }],
        };
        store.save("s", &saved).unwrap();
        assert_eq!(store.load("s").unwrap(), saved);
        assert!(store.load("other").unwrap().checks.is_empty());
        std::fs::write(store.file("s"), "{").unwrap();
        let e = store.load("s").unwrap_err().to_string();
        assert!(e.contains("not a file of recall checks"), "{e}");
    }
}
