//! The memory screen in parts: an overview (core, counts, window) and the archival list in
//! pages, so a 100 000-entry MEMORY.md does not cross to the UI in one 34 MB answer (the parsed
//! views they page through are kept in `view_cache`).

use oryx_core::CoreError;

use crate::console::Console;
use crate::dto::{
    ArchivalItemDto, ArchivalPageDto, ArchivalPageQuery, EntryDto, MemoryOverviewDto,
    ARCHIVAL_PAGE_MAX,
};
use crate::error::ApiResult;
use crate::view_cache::window_dto;

impl Console {
    /// Everything the memory screen shows above the archival table.
    pub fn memory_overview(&self, agent: Option<&str>) -> ApiResult<MemoryOverviewDto> {
        let rt = self.services();
        let owner = rt.owner(agent)?;
        let snap = rt.page_cache.snapshot(
            &rt.memory,
            &owner,
            rt.root(),
            rt.effective.memory_full_parse_max_bytes,
        )?;
        let view = &snap.view;
        Ok(MemoryOverviewDto {
            agent: owner.agent_name().map(str::to_string),
            backend: view.backend.into(),
            source: rt.source(&owner),
            core: view
                .core
                .iter()
                .enumerate()
                .map(|(i, e)| EntryDto::with_id(view.core_id(i), e))
                .collect(),
            archival_total: snap.archival_count() as u32,
            window: window_dto(view),
            context: view.context.clone(),
            possibly_more: view.possibly_more,
            listing_limit: oryx_core::memory::mem0::LOAD_LIMIT as u32,
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
        let rt = self.services();
        let owner = rt.owner(q.agent.as_deref())?;
        let snap = rt.page_cache.snapshot(
            &rt.memory,
            &owner,
            rt.root(),
            rt.effective.memory_full_parse_max_bytes,
        )?;
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
                id: snap.view.archival_id(index, &e),
                index: index as u32,
                timestamp: crate::dto::ts(&e.timestamp),
                content: e.content.clone(),
                chars: e.line_chars() as u32,
                in_window: snap.view.window.is_in_window(index),
                window_part: (index == first_in_window)
                    .then(|| snap.view.window.partial.clone())
                    .flatten(),
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
    use oryx_core::names;
    use std::path::Path;

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
        let recall = c.recall_memory(None, "gateway", None, None).unwrap();
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
