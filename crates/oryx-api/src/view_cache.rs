//! Parsed memory views for the paged memory screen. Paging a markdown file still means parsing
//! it, so the parsed view of the last few owners is kept, keyed by the store's stamp of the
//! owner's entries (for markdown the file's length, time and identity; for sqlite the database
//! and its WAL). A write changes the stamp, so a stale view is never served after a change is
//! visible on disk; our own appends also drop the owner's views at once. A store without a
//! stamp (mem0: its listing is one request of at most 1000 entries) is not cached.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use oryx_core::memory::service::MemoryView;
use oryx_core::memory::store::contains_ci;
use oryx_core::memory::window::WindowRule;
use oryx_core::memory::{Backend, Entry, MarkdownMemoryStore, MemoryService, Stamp};
use oryx_core::names::Owner;

use crate::dto::{WindowDto, WindowRuleDto};
use crate::error::ApiResult;
use crate::lock::lock;

/// How many parsed views are kept (each holds one owner's entries).
const CACHE_SIZE: usize = 4;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    backend: Backend,
    /// Where the store keeps the owner's entries (names the owner too).
    location: String,
    limit: WindowRule,
    stamp: Stamp,
}

/// A parsed view and the last keyword's matches (file-order indexes), computed once per view.
pub(crate) struct Snapshot {
    pub view: MemoryView,
    matches: Mutex<Option<(String, Arc<Vec<u32>>)>>,
    /// A MEMORY.md above the full-parse ceiling: the view holds only the window, and the other
    /// entries are read from the file (streaming) when a page asks for them.
    paged: Option<(MarkdownMemoryStore, Owner)>,
}

impl Snapshot {
    fn new(view: MemoryView) -> Snapshot {
        Snapshot {
            view,
            matches: Mutex::new(None),
            paged: None,
        }
    }

    /// How many archival entries the owner has (the view may hold only the window's).
    pub(crate) fn archival_count(&self) -> usize {
        self.view.archival_offset + self.view.archival.len()
    }

    /// Indexes of the archival entries containing `keyword` (recall_memory's rule).
    pub(crate) fn matching(&self, keyword: &str) -> ApiResult<Arc<Vec<u32>>> {
        let mut memo = lock(&self.matches);
        if let Some((k, m)) = memo.as_ref() {
            if k == keyword {
                return Ok(m.clone());
            }
        }
        let needle = keyword.to_lowercase();
        let m: Arc<Vec<u32>> = Arc::new(match &self.paged {
            Some((store, owner)) => store.archival_matching(owner, keyword)?,
            None => self
                .view
                .archival
                .iter()
                .enumerate()
                .filter(|(_, e)| contains_ci(&e.content, &needle))
                .map(|(i, _)| i as u32)
                .collect(),
        });
        *memo = Some((keyword.to_string(), m.clone()));
        Ok(m)
    }

    /// The archival entries at these indexes, in the order asked.
    pub(crate) fn entries_at(&self, indexes: &[usize]) -> ApiResult<Vec<Entry>> {
        let offset = self.view.archival_offset;
        let mut outside: Vec<usize> = indexes.iter().copied().filter(|&i| i < offset).collect();
        let mut read = HashMap::new();
        if let (Some((store, owner)), false) = (&self.paged, outside.is_empty()) {
            outside.sort_unstable();
            outside.dedup();
            read = store.archival_at(owner, &outside)?.into_iter().collect();
        }
        Ok(indexes
            .iter()
            .filter_map(|&i| match i.checked_sub(offset) {
                Some(j) => self.view.archival.get(j).cloned(),
                None => read.get(&i).cloned(),
            })
            .collect())
    }
}

/// The parsed views of one runtime (a settings change builds a new runtime, and with it an empty
/// cache, so views of the previous root do not stay in memory).
#[derive(Default)]
pub struct PageCache {
    /// Most recently used last.
    entries: Mutex<Vec<(Key, Arc<Snapshot>)>>,
    /// Held while a view is built, so concurrent requests for the same file parse it once.
    loading: Mutex<()>,
}

fn key_of(memory: &MemoryService, owner: &Owner) -> Option<Key> {
    let store = memory.store();
    Some(Key {
        stamp: store.stamp(owner)?,
        backend: store.backend(),
        location: store.location(owner),
        limit: memory.window_rule(),
    })
}

impl PageCache {
    /// The owner's view, from the cache when the stored entries have not changed since. A
    /// MEMORY.md larger than `ceiling` bytes is not parsed whole (a 1 GB file took
    /// 4 GB): its view holds the prompt window and the counts, and pages are read from the file.
    pub(crate) fn snapshot(
        &self,
        memory: &MemoryService,
        owner: &Owner,
        root: &Path,
        ceiling: u64,
    ) -> ApiResult<Arc<Snapshot>> {
        let Some(key) = key_of(memory, owner) else {
            return Ok(Arc::new(Snapshot::new(memory.view(owner)?)));
        };
        if let Some(s) = self.lookup(&key) {
            return Ok(s);
        }
        let _loading = lock(&self.loading);
        if let Some(s) = self.lookup(&key) {
            return Ok(s);
        }
        let size = memory.store().size(owner).unwrap_or(0);
        let snap = Arc::new(if key.backend == Backend::Markdown && size > ceiling {
            paged_snapshot(root, owner, &key, size, ceiling)?
        } else {
            Snapshot::new(memory.view(owner)?)
        });
        // The file may have changed while it was read: keep the view only if the key still holds.
        if key_of(memory, owner).as_ref() == Some(&key) {
            let mut entries = lock(&self.entries);
            entries.retain(|(k, _)| !same_source(k, &key));
            if entries.len() >= CACHE_SIZE {
                entries.remove(0);
            }
            entries.push((key, snap.clone()));
        }
        Ok(snap)
    }

    fn lookup(&self, key: &Key) -> Option<Arc<Snapshot>> {
        let mut entries = lock(&self.entries);
        let pos = entries.iter().position(|(k, _)| k == key)?;
        let hit = entries.remove(pos);
        let snap = hit.1.clone();
        entries.push(hit);
        Some(snap)
    }

    /// Drops the cached views of `owner` (after our own write, whatever the stamps say).
    pub(crate) fn forget(&self, memory: &MemoryService, owner: &Owner) {
        let store = memory.store();
        let (backend, location) = (store.backend(), store.location(owner));
        lock(&self.entries).retain(|(k, _)| !(k.backend == backend && k.location == location));
    }
}

fn paged_snapshot(
    root: &Path,
    owner: &Owner,
    key: &Key,
    size: u64,
    ceiling: u64,
) -> ApiResult<Snapshot> {
    let mb = |b: u64| format!("{:.1} MB", b as f64 / 1e6);
    let reason = format!(
        "{} is {}, more than the {} the console reads at once (setting \
         memoryFullParseMaxBytes): shown is the prompt window; older entries come in pages",
        key.location,
        mb(size),
        mb(ceiling)
    );
    let store = MarkdownMemoryStore::new(root);
    let view = store.paged_view(owner, key.limit, reason)?;
    Ok(Snapshot {
        view,
        matches: Mutex::new(None),
        paged: Some((store, owner.clone())),
    })
}

fn same_source(a: &Key, b: &Key) -> bool {
    a.backend == b.backend && a.location == b.location
}

pub(crate) fn window_dto(view: &MemoryView) -> WindowDto {
    let w = &view.window;
    WindowDto {
        window_rule: WindowRuleDto {
            kind: w.rule.kind().to_string(),
            limit: w.rule.limit() as u32,
        },
        limit_chars: w.limit_chars as u32,
        first_in_window: w.first_in_window as u32,
        in_window_entries: w.in_window_entries as u32,
        in_window_chars: w.in_window_chars as u32,
        outside_entries: w.outside_entries as u32,
        outside_chars: w.outside_chars as u32,
        newest_cut: w.newest_cut,
        partial_kept: w.partial.clone(),
    }
}
