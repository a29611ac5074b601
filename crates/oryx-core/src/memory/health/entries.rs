//! The entries the checks read, by index: parsed items, an owner's view (and, in `file.rs`, a
//! MEMORY.md's bytes).

use chrono::NaiveDateTime;

use super::finding::{markdown_entry_id, EntryId};
use crate::memory::curate;
use crate::memory::entry::{Entry, Scope};
use crate::memory::review::entry_key_of;
use crate::memory::service::MemoryView;

/// An entry as the checks see it.
pub struct Item<'a> {
    pub id: String,
    pub scope: Scope,
    pub entry: &'a Entry,
}

/// What the checks read of entries: text, section and time by index. Ids are asked for only
/// for the entries a finding names (a 100 MB file has ~900 000 entries and few findings), and
/// the entries may be slices of one file's bytes ([`super::run_markdown`]) as well as parsed ones.
pub(super) trait Entries: Sync {
    fn len(&self) -> usize;
    fn text(&self, i: usize) -> &str;
    fn is_core(&self, i: usize) -> bool;
    fn timestamp(&self, i: usize) -> Option<NaiveDateTime>;
    fn id(&self, i: usize) -> EntryId;
    /// The entry as a review remembers it ([`crate::memory::review::entry_key`]).
    fn key(&self, i: usize) -> u64 {
        let scope = match self.is_core(i) {
            true => Scope::Core,
            false => Scope::Archival,
        };
        entry_key_of(scope, self.timestamp(i), self.text(i))
    }
    /// The ids of the entries `idx`, handed to `put` in that order.
    fn ids_each(&self, idx: &[usize], mut put: impl FnMut(EntryId)) {
        idx.iter().for_each(|&i| put(self.id(i)));
    }
    fn ids(&self, idx: &[usize]) -> Vec<EntryId> {
        let mut out = Vec::with_capacity(idx.len());
        self.ids_each(idx, |id| out.push(id));
        out
    }
}

impl Entries for [Item<'_>] {
    fn len(&self) -> usize {
        <[Item<'_>]>::len(self)
    }
    fn text(&self, i: usize) -> &str {
        &self[i].entry.content
    }
    fn is_core(&self, i: usize) -> bool {
        self[i].scope == Scope::Core
    }
    fn timestamp(&self, i: usize) -> Option<NaiveDateTime> {
        self[i].entry.timestamp
    }
    fn id(&self, i: usize) -> EntryId {
        EntryId::from(self[i].id.as_str())
    }
}

/// An owner's view as the checks read it: core, then archival; ids made only when asked for
/// (an id per entry of a 100 MB file costs more than most of the checks).
pub(super) struct ViewEntries<'a>(pub &'a MemoryView);

impl ViewEntries<'_> {
    /// Where entry `i` is: its section, its index in the view's list of that section, and its
    /// ordinal in the section (the view may hold only the newest archival entries).
    fn place(&self, i: usize) -> (Scope, usize, usize) {
        let v = self.0;
        match i.checked_sub(v.core.len()) {
            None => (Scope::Core, i, i),
            Some(j) => (Scope::Archival, j, j + v.archival_offset),
        }
    }

    fn entry(&self, i: usize) -> &Entry {
        match self.place(i) {
            (Scope::Core, j, _) => &self.0.core[j],
            (Scope::Archival, j, _) => &self.0.archival[j],
        }
    }
}

impl Entries for ViewEntries<'_> {
    fn len(&self) -> usize {
        self.0.core.len() + self.0.archival.len()
    }
    fn text(&self, i: usize) -> &str {
        &self.entry(i).content
    }
    fn is_core(&self, i: usize) -> bool {
        i < self.0.core.len()
    }
    fn timestamp(&self, i: usize) -> Option<NaiveDateTime> {
        self.entry(i).timestamp
    }
    fn id(&self, i: usize) -> EntryId {
        let v = self.0;
        EntryId::from(match self.place(i) {
            (Scope::Core, j, _) => v.core_id(j),
            (Scope::Archival, j, n) => v.archival_id(n, &v.archival[j]),
        })
    }
    /// Stored ids as they are; MEMORY.md ids from their lines' hashes made several at once
    /// (see [`curate::line_hashes`]): a near group can name most of the entries.
    fn ids_each(&self, idx: &[usize], mut put: impl FnMut(EntryId)) {
        let v = self.0;
        let stored = |i: usize| match self.place(i) {
            (Scope::Core, j, _) => v.core_ids.get(j),
            (Scope::Archival, j, _) => v.archival_ids.get(j),
        };
        let hashed: Vec<&[u8]> = idx
            .iter()
            .filter(|&&i| stored(i).is_none())
            .map(|&i| self.entry(i).line.as_bytes())
            .collect();
        let mut hashes = curate::line_hashes(&hashed).into_iter();
        for &i in idx {
            put(match stored(i) {
                Some(id) => EntryId::from(id.as_str()),
                None => {
                    let (scope, _, n) = self.place(i);
                    markdown_entry_id(scope, n, hashes.next().expect("a hash per line"))
                }
            });
        }
    }
}
