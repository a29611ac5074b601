//! What a run of the checks is asked: which checks, when "now" is, when a time word is stale,
//! and what a person dismissed.

use chrono::NaiveDateTime;

use super::entries::Entries;
use super::finding::Check;
use crate::memory::review::{dismiss_key, Reviewed};

/// Which checks run, and what they take as given.
#[derive(Debug, Clone)]
pub struct Options {
    pub checks: Vec<Check>,
    /// Time-relative entries older than this are stale.
    pub stale_after_days: i64,
    pub now: NaiveDateTime,
    /// What a person dismissed ([`dismiss_key`]s): a finding whose every entry was dismissed
    /// for its check is left out, and counted.
    pub dismissed: Option<std::sync::Arc<Reviewed>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            checks: Check::ALL.to_vec(),
            stale_after_days: 7,
            now: crate::timefmt::now_local(),
            dismissed: None,
        }
    }
}

impl Options {
    /// Whether a finding of `check` on these entries was dismissed (each entry's key made
    /// only until one was not: a near group can name most of a file's entries).
    pub(super) fn hides(&self, e: &(impl Entries + ?Sized), check: Check, idx: &[usize]) -> bool {
        self.dismissed.is_some() && idx.iter().all(|&i| self.hides_key(check, e.key(i)))
    }

    /// Whether a finding of `check` was dismissed on the entry whose review key is `key`.
    pub(super) fn hides_key(&self, check: Check, key: u64) -> bool {
        self.dismissed
            .as_ref()
            .is_some_and(|d| d.has(dismiss_key(check.as_str(), key)))
    }
}
