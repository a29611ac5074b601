//! The memory screen in parts: an overview (core, counts, window) and the archival list in
//! pages, so a 100 000-entry MEMORY.md does not cross to the UI in one 34 MB answer.
//!
//! Paging a markdown file still means parsing it, so the parsed view of the last few files is
//! kept, keyed by what identifies a version of the file: its path, length and modification time
//! (for sqlite the database and its WAL file). A write changes the key, so a stale view is never
//! served after a change is visible on disk; our own appends also drop the owner's views at once.
//! mem0 is not cached (its listing is one request of at most 1000 entries).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use oryx_core::memory::service::MemoryView;
use oryx_core::memory::store::contains_ci;
use oryx_core::memory::{Backend, Entry, MarkdownMemoryStore};
use oryx_core::names::{self, Owner};
use oryx_core::CoreError;

use crate::console::{Console, Runtime};
use crate::dto::{
    ArchivalItemDto, ArchivalPageDto, ArchivalPageQuery, EntryDto, MemoryOverviewDto, WindowDto,
    ARCHIVAL_PAGE_MAX,
};
use crate::error::ApiResult;

/// How many parsed views are kept (each holds one owner's entries).
const CACHE_SIZE: usize = 4;

type Stamp = Option<(u64, SystemTime)>;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    backend: Backend,
    /// MEMORY.md or the database file.
    source: PathBuf,
    /// The owner's database key (sqlite: one file holds every owner).
    owner: String,
    limit: usize,
    stamps: [Stamp; 2],
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

    /// How many archival entries the file holds (the view may hold only the window's).
    fn archival_count(&self) -> usize {
        self.view.archival_offset + self.view.archival.len()
    }

    /// Indexes of the archival entries containing `keyword` (recall_memory's rule).
    fn matching(&self, keyword: &str) -> ApiResult<Arc<Vec<u32>>> {
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

    /// The archival entries at these file indexes, in the order asked.
    fn entries_at(&self, indexes: &[usize]) -> ApiResult<Vec<Entry>> {
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

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn stamp(path: &Path) -> Stamp {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()?))
}

fn key_of(rt: &Runtime, owner: &Owner) -> Option<Key> {
    let limit = rt.memory.archival_limit();
    match rt.memory.backend() {
        Backend::Markdown => {
            let path = names::memory_path(rt.root(), owner);
            Some(Key {
                backend: Backend::Markdown,
                stamps: [stamp(&path), None],
                source: path,
                owner: owner.db_key().to_string(),
                limit,
            })
        }
        Backend::Sqlite => {
            let db = rt.effective.db_path.clone();
            let mut wal = db.clone().into_os_string();
            wal.push("-wal");
            Some(Key {
                backend: Backend::Sqlite,
                stamps: [stamp(&db), stamp(Path::new(&wal))],
                source: db,
                owner: owner.db_key().to_string(),
                limit,
            })
        }
        Backend::Mem0 => None,
    }
}

/// The owner's view, from the cache when the file has not changed since it was parsed.
pub(crate) fn snapshot(rt: &Runtime, owner: &Owner) -> ApiResult<Arc<Snapshot>> {
    let Some(key) = key_of(rt, owner) else {
        return Ok(Arc::new(Snapshot::new(rt.memory.view(owner)?)));
    };
    let ceiling = rt.effective.memory_full_parse_max_bytes;
    let size = key.stamps[0].map_or(0, |(len, _)| len);
    if key.backend == Backend::Markdown && size > ceiling {
        return paged_snapshot(rt, owner, &key, size, ceiling);
    }
    let cache = &rt.page_cache;
    if let Some(s) = lookup(cache, &key) {
        return Ok(s);
    }
    let _loading = lock(&cache.loading);
    if let Some(s) = lookup(cache, &key) {
        return Ok(s);
    }
    let snap = Arc::new(Snapshot::new(rt.memory.view(owner)?));
    // The file may have changed while it was read: keep the view only if the key still holds.
    if key_of(rt, owner).as_ref() == Some(&key) {
        let mut entries = lock(&cache.entries);
        entries.retain(|(k, _)| !same_source(k, &key));
        if entries.len() >= CACHE_SIZE {
            entries.remove(0);
        }
        entries.push((key, snap.clone()));
    }
    Ok(snap)
}

/// A MEMORY.md above the ceiling: the window and the counts, read with bounded memory (issue
/// #17: a whole parse of a 1 GB file took 4 GB). Cached like a parsed view.
fn paged_snapshot(
    rt: &Runtime,
    owner: &Owner,
    key: &Key,
    size: u64,
    ceiling: u64,
) -> ApiResult<Arc<Snapshot>> {
    if let Some(s) = lookup(&rt.page_cache, key) {
        return Ok(s);
    }
    let mb = |b: u64| format!("{:.1} MB", b as f64 / 1e6);
    let reason = format!(
        "{} is {}, more than the {} the console reads at once (setting \
         memoryFullParseMaxBytes): shown is the prompt window; older entries come in pages",
        key.source.display(),
        mb(size),
        mb(ceiling)
    );
    let store = MarkdownMemoryStore::new(rt.root());
    let view = store.paged_view(owner, key.limit, reason)?;
    let snap = Arc::new(Snapshot {
        view,
        matches: Mutex::new(None),
        paged: Some((store, owner.clone())),
    });
    if key_of(rt, owner).as_ref() == Some(key) {
        let mut entries = lock(&rt.page_cache.entries);
        entries.retain(|(k, _)| !same_source(k, key));
        if entries.len() >= CACHE_SIZE {
            entries.remove(0);
        }
        entries.push((key.clone(), snap.clone()));
    }
    Ok(snap)
}

fn same_source(a: &Key, b: &Key) -> bool {
    a.backend == b.backend && a.source == b.source && a.owner == b.owner
}

fn lookup(cache: &PageCache, key: &Key) -> Option<Arc<Snapshot>> {
    let mut entries = lock(&cache.entries);
    let pos = entries.iter().position(|(k, _)| k == key)?;
    let hit = entries.remove(pos);
    let snap = hit.1.clone();
    entries.push(hit);
    Some(snap)
}

/// Drops the cached views of `owner` (after our own write, whatever the file's timestamps say).
pub(crate) fn forget(rt: &Runtime, owner: &Owner) {
    if let Some(key) = key_of(rt, owner) {
        lock(&rt.page_cache.entries).retain(|(k, _)| !same_source(k, &key));
    }
}

pub(crate) fn window_dto(view: &MemoryView) -> WindowDto {
    let w = &view.window;
    WindowDto {
        limit_chars: w.limit_chars as u32,
        first_in_window: w.first_in_window as u32,
        in_window_entries: w.in_window_entries as u32,
        in_window_chars: w.in_window_chars as u32,
        outside_entries: w.outside_entries as u32,
        outside_chars: w.outside_chars as u32,
        newest_cut: w.newest_cut,
    }
}

impl Console {
    /// Everything the memory screen shows above the archival table.
    pub fn memory_overview(&self, agent: Option<&str>) -> ApiResult<MemoryOverviewDto> {
        let rt = self.runtime();
        let owner = rt.owner(agent)?;
        let snap = snapshot(&rt, &owner)?;
        let view = &snap.view;
        Ok(MemoryOverviewDto {
            agent: owner.agent_name().map(str::to_string),
            backend: view.backend.into(),
            source: rt.source(&owner),
            core: view.core.iter().map(EntryDto::from).collect(),
            archival_total: snap.archival_count() as u32,
            window: window_dto(view),
            context: view.context.clone(),
            possibly_more: view.possibly_more,
            paged_reason: view.paged_reason.clone(),
        })
    }

    /// One page of the archival entries (see [`ArchivalPageQuery`]).
    pub fn archival_page(&self, q: &ArchivalPageQuery) -> ApiResult<ArchivalPageDto> {
        if q.limit == 0 || q.limit > ARCHIVAL_PAGE_MAX {
            return Err(CoreError::InvalidInput(format!(
                "limit must be between 1 and {ARCHIVAL_PAGE_MAX}, got {}",
                q.limit
            ))
            .into());
        }
        let rt = self.runtime();
        let owner = rt.owner(q.agent.as_deref())?;
        let snap = snapshot(&rt, &owner)?;
        let count = snap.archival_count();
        let first_in_window = snap.view.window.first_in_window;
        let keyword = q
            .keyword
            .as_deref()
            .map(str::trim)
            .filter(|k| !k.is_empty());
        let matches = keyword.map(|k| snap.matching(k)).transpose()?;
        let total = matches.as_ref().map_or(count, |m| m.len());
        // Matches outside the window (they come first in file order).
        let outside = match &matches {
            Some(m) => m.partition_point(|&i| (i as usize) < first_in_window),
            None => first_in_window.min(count),
        };
        let cut_at = (outside > 0 && outside < total).then(|| {
            if q.newest_first {
                (total - outside) as u32
            } else {
                outside as u32
            }
        });
        let start = (q.offset as usize).min(total);
        let end = (start + q.limit as usize).min(total);
        let indexes: Vec<usize> = (start..end)
            .map(|pos| {
                let p = if q.newest_first { total - 1 - pos } else { pos };
                matches.as_ref().map_or(p, |m| m[p] as usize)
            })
            .collect();
        let items = indexes
            .iter()
            .zip(snap.entries_at(&indexes)?)
            .map(|(&index, e)| ArchivalItemDto {
                index: index as u32,
                timestamp: crate::dto::ts(&e.timestamp),
                content: e.content.clone(),
                chars: e.line_chars() as u32,
                in_window: index >= first_in_window,
            })
            .collect();
        Ok(ArchivalPageDto {
            agent: owner.agent_name().map(str::to_string),
            total: total as u32,
            offset: q.offset,
            newest_first: q.newest_first,
            keyword: keyword.map(str::to_string),
            cut_at,
            items,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dto::{AppendRequest, ScopeDto};
    use oryx_core::config::Overrides;

    fn console(root: &Path) -> Console {
        let o = Overrides {
            root: Some(root.to_path_buf()),
            ..Overrides::default()
        };
        Console::open(Some(root.join("settings.json")), o).unwrap()
    }

    fn write_memory(root: &Path, n: usize) {
        let mut s = String::from("## 核心记忆\n- [2024-01-01 00:00:00] core one\n## 归档记忆\n");
        for i in 0..n {
            s.push_str(&format!(
                "- [2024-01-01 00:00:00] entry {i} {}\n",
                if i % 3 == 0 { "Gateway" } else { "other" }
            ));
        }
        std::fs::create_dir_all(root.join("memory")).unwrap();
        std::fs::write(names::global_memory_path(root), s).unwrap();
    }

    fn page(
        c: &Console,
        offset: u32,
        limit: u32,
        newest_first: bool,
        kw: Option<&str>,
    ) -> ArchivalPageDto {
        c.archival_page(&ArchivalPageQuery {
            agent: None,
            offset,
            limit,
            newest_first,
            keyword: kw.map(str::to_string),
        })
        .unwrap()
    }

    #[test]
    fn pages_match_the_full_view_in_both_orders_and_with_a_keyword() {
        let dir = tempfile::tempdir().unwrap();
        write_memory(dir.path(), 300);
        let c = console(dir.path());
        let full = c.memory_view(None).unwrap();
        let ov = c.memory_overview(None).unwrap();
        assert_eq!(ov.archival_total, 300);
        assert_eq!(ov.window, full.window);
        assert_eq!(ov.context, full.context);
        assert_eq!(ov.core, full.core);
        let fiw = full.window.first_in_window;
        assert!(fiw > 0 && fiw < 300, "the test needs a cut: {fiw}");

        let mut got = Vec::new();
        for off in (0..300).step_by(128) {
            got.extend(page(&c, off, 128, false, None).items);
        }
        assert_eq!(got.len(), 300);
        for (i, (it, e)) in got.iter().zip(&full.archival).enumerate() {
            assert_eq!(it.index as usize, i);
            assert_eq!(
                (&it.timestamp, &it.content, it.in_window),
                (&e.timestamp, &e.content, e.in_window)
            );
            assert_eq!(it.chars as usize, e.line.chars().count());
        }
        let asc = page(&c, 0, 1, false, None);
        assert_eq!((asc.total, asc.cut_at), (300, Some(fiw)));

        let desc = page(&c, 0, 1000, true, None);
        assert_eq!(desc.items[0].index, 299);
        assert_eq!(desc.items[299].index, 0);
        assert_eq!(desc.cut_at, Some(300 - fiw));
        let cut = desc.cut_at.unwrap() as usize;
        assert!(desc.items[cut - 1].in_window && !desc.items[cut].in_window);

        let hits = page(&c, 0, 1000, false, Some("  gateway "));
        let recall = c.recall_memory(None, "gateway").unwrap();
        assert_eq!(hits.total as usize, recall.entries.len());
        assert_eq!(hits.keyword.as_deref(), Some("gateway"));
        for (it, r) in hits.items.iter().zip(&recall.entries) {
            assert_eq!(it.content, r.content);
            assert_eq!(it.index % 3, 0);
        }
        let cut = hits.cut_at.unwrap() as usize;
        assert!(!hits.items[cut - 1].in_window && hits.items[cut].in_window);

        let past = page(&c, 5000, 10, false, None);
        assert!(past.items.is_empty());
        assert_eq!(past.total, 300);
    }

    /// Above the full-parse ceiling (set low here) the console lists the window, says why, and
    /// pages the rest from the file: every page equals the page of a full parse.
    #[test]
    fn above_the_ceiling_the_window_is_shown_and_pages_stream() {
        let full_dir = tempfile::tempdir().unwrap();
        write_memory(full_dir.path(), 300);
        let full = console(full_dir.path());
        let dir = tempfile::tempdir().unwrap();
        write_memory(dir.path(), 300);
        std::fs::write(
            dir.path().join("settings.json"),
            r#"{"memoryFullParseMaxBytes": 1024}"#,
        )
        .unwrap();
        let c = console(dir.path());

        let ov = c.memory_overview(None).unwrap();
        let reason = ov.paged_reason.clone().expect("paged above the ceiling");
        assert!(
            reason.contains("MEMORY.md") && reason.contains("memoryFullParseMaxBytes"),
            "{reason}"
        );
        let want = full.memory_overview(None).unwrap();
        assert_eq!(want.paged_reason, None);
        assert_eq!(
            (ov.archival_total, &ov.window, &ov.core, &ov.context),
            (want.archival_total, &want.window, &want.core, &want.context)
        );

        let v = c.memory_view(None).unwrap();
        let fv = full.memory_view(None).unwrap();
        assert_eq!(v.paged_reason.as_deref(), Some(reason.as_str()));
        let fiw = fv.window.first_in_window as usize;
        assert_eq!(v.archival, fv.archival[fiw..], "only the window's entries");
        assert!(v.archival.iter().all(|e| e.in_window));

        for (offset, limit, newest_first, kw) in [
            (0, 1000, false, None),
            (0, 7, true, None),
            (250, 100, false, None),
            (3, 40, true, Some("gateway")),
            (0, 1000, false, Some("entry 29")),
        ] {
            let got = page(&c, offset, limit, newest_first, kw);
            let want = page(&full, offset, limit, newest_first, kw);
            assert_eq!(got, want, "{offset} {limit} {newest_first} {kw:?}");
        }
    }

    #[test]
    fn a_bad_limit_is_invalid_input() {
        let dir = tempfile::tempdir().unwrap();
        write_memory(dir.path(), 3);
        let c = console(dir.path());
        for limit in [0, ARCHIVAL_PAGE_MAX + 1] {
            let e = c
                .archival_page(&ArchivalPageQuery {
                    agent: None,
                    offset: 0,
                    limit,
                    newest_first: false,
                    keyword: None,
                })
                .unwrap_err();
            assert_eq!(e.code, crate::ErrorCode::InvalidInput);
            assert!(
                e.message.contains("limit must be between 1 and 1000"),
                "{}",
                e.message
            );
        }
    }

    #[test]
    fn a_changed_file_or_our_own_append_is_seen_at_once() {
        let dir = tempfile::tempdir().unwrap();
        write_memory(dir.path(), 10);
        let c = console(dir.path());
        assert_eq!(page(&c, 0, 100, false, None).total, 10);
        // Another writer: a different length is a different key.
        write_memory(dir.path(), 12);
        assert_eq!(page(&c, 0, 100, false, None).total, 12);
        assert_eq!(c.memory_overview(None).unwrap().archival_total, 12);
        c.append_memory(&AppendRequest {
            agent: None,
            scope: ScopeDto::Archival,
            content: "the newest".into(),
        })
        .unwrap();
        let p = page(&c, 0, 1, true, None);
        assert_eq!(p.total, 13);
        assert_eq!(p.items[0].content, "the newest");
        assert_eq!(p.items[0].index, 12);
    }
}
