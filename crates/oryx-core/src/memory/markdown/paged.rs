//! The console's view of a MEMORY.md too large to parse whole: the window (read
//! the way the prompt reads it: head and tail), the archival count and size from one streaming
//! pass, and pages of entries picked out by further streaming passes. Memory per request is a
//! block of the file and the entries asked for, whatever the file's size.

use std::ops::ControlFlow;
use std::path::Path;

use super::store::MarkdownMemoryStore;
use crate::error::{IoContext, Result};
use crate::memory::entry::{Entry, Scope};
use crate::memory::format::{self, classify, BlockReader, LineKind, SectionCursor};
use crate::memory::service::{prompt_of, MemoryView, WindowStats};
use crate::memory::store::{contains_ci, LongTermMemoryStore};
use crate::memory::window::WindowRule;
use crate::names::Owner;
use crate::rooted_fs;

/// The most of one entry a paged view holds: a longer one is shown cut to its first 1 MiB
/// (and counted and searched by that part).
pub const PAGED_LINE_CAP: usize = 1 << 20;

impl MarkdownMemoryStore {
    /// The view of a large file without its outside-window entries: `archival` holds only the
    /// window's entries, `archival_offset` is the file index of the first of them.
    pub fn paged_view(
        &self,
        owner: &Owner,
        rule: WindowRule,
        reason: String,
    ) -> Result<MemoryView> {
        // The prompt's own load (it also runs the journal check first).
        let ctx = self.load_context(owner, rule.reach())?;
        let (w, context) = prompt_of(&ctx, rule);
        let tail = &ctx.archival_tail;
        let (first, end) = (
            w.first_in_window.min(tail.len()),
            w.end_in_window.min(tail.len()),
        );
        let in_window = &tail[first..end.max(first)];
        let (mut total, mut chars) = (0usize, 0usize);
        self.scan_archival(owner, |_, e| {
            total += 1;
            chars += e.line_chars();
            ControlFlow::Continue(())
        })?;
        // The file may have grown between the two reads: never fewer entries than loaded.
        let total = total.max(tail.len());
        let offset = total - tail.len();
        let window_chars: usize = in_window.iter().map(Entry::line_chars).sum();
        let w = w.shifted(offset);
        let stats = WindowStats::counted(
            &w,
            rule,
            rule.limit(),
            (
                w.first_in_window,
                w.end_in_window.max(w.first_in_window),
                total,
            ),
            chars.saturating_sub(window_chars),
        );
        Ok(MemoryView {
            backend: self.backend(),
            context,
            core: ctx.core,
            archival: in_window.to_vec(),
            archival_offset: offset + first,
            window: stats,
            possibly_more: false,
            paged_reason: Some(reason),
            core_ids: Vec::new(),
            archival_ids: Vec::new(),
        })
    }

    /// Calls `visit` with every archival entry in file order and its index, streaming.
    pub fn scan_archival(
        &self,
        owner: &Owner,
        mut visit: impl FnMut(usize, Entry) -> ControlFlow<()>,
    ) -> Result<()> {
        let path = self.path(owner);
        let Some(file) = rooted_fs::open_memory(&path, rooted_fs::Access::Read)? else {
            return Ok(());
        };
        scan(
            &path,
            BlockReader::with_line_cap(file, PAGED_LINE_CAP),
            &mut visit,
        )
    }

    /// The archival entries at these file indexes (ascending), streaming.
    pub fn archival_at(&self, owner: &Owner, indexes: &[usize]) -> Result<Vec<(usize, Entry)>> {
        let mut out = Vec::with_capacity(indexes.len());
        let mut want = indexes.iter().peekable();
        self.scan_archival(owner, |i, e| {
            while want.next_if(|&&w| w < i).is_some() {}
            if want.next_if(|&&w| w == i).is_some() {
                out.push((i, e));
            }
            if want.peek().is_none() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })?;
        Ok(out)
    }

    /// File indexes of the archival entries containing `keyword` (recall_memory's rule).
    pub fn archival_matching(&self, owner: &Owner, keyword: &str) -> Result<Vec<u32>> {
        let needle = keyword.to_lowercase();
        let mut out = Vec::new();
        self.scan_archival(owner, |i, e| {
            if contains_ci(&e.content, &needle) {
                out.push(i as u32);
            }
            ControlFlow::Continue(())
        })?;
        Ok(out)
    }
}

fn scan<R: std::io::Read>(
    path: &Path,
    mut reader: BlockReader<R>,
    visit: &mut impl FnMut(usize, Entry) -> ControlFlow<()>,
) -> Result<()> {
    let mut section = None;
    let mut index = 0usize;
    while let Some((block, from)) = reader.next_block().at(path)? {
        let heads = format::headings(block, from);
        let mut cursor = SectionCursor::new(&heads, section);
        for span in format::lines(block, from) {
            if cursor.at(span.start) != Some(Scope::Archival) || format::is_blank(block, span) {
                continue;
            }
            let text = format::line_text(block, span);
            if classify(&text) != LineKind::Text {
                continue;
            }
            if visit(index, format::parse_entry(&text)).is_break() {
                return Ok(());
            }
            index += 1;
        }
        section = cursor.end();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::service::MemoryService;
    use std::sync::Arc;

    /// The paged view holds exactly what the full view shows of the window, with the same
    /// figures, and pages pick the same entries as the full parse.
    #[test]
    fn the_paged_view_equals_the_full_view_in_its_window() {
        let dir = tempfile::tempdir().unwrap();
        let store = MarkdownMemoryStore::new(dir.path());
        let owner = Owner::Global;
        let path = store.path(&owner);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut text =
            String::from("intro\n## 核心记忆\n- [2026-01-01 00:00:00] core\n## 归档记忆\n");
        for i in 0..500 {
            text.push_str(&format!(
                "- [2026-01-01 00:00:00] entry {i} {}\n",
                "字".repeat(i % 7)
            ));
            if i == 100 {
                text.push_str("## Notes\n- not archival\n\n## 归档记忆\n\n");
            }
        }
        std::fs::write(&path, &text).unwrap();
        let service = MemoryService::new(Arc::new(MarkdownMemoryStore::new(dir.path())), 1000);
        let full = service.view(&owner).unwrap();
        let paged = store
            .paged_view(
                &owner,
                WindowRule::WholeEntries { limit: 1000 },
                "big".into(),
            )
            .unwrap();
        assert_eq!(paged.core, full.core);
        assert_eq!(paged.window, full.window);
        assert_eq!(paged.context, full.context);
        assert_eq!(paged.archival, full.archival[full.window.first_in_window..]);
        assert_eq!(paged.archival_offset, full.window.first_in_window);
        assert_eq!(paged.paged_reason.as_deref(), Some("big"));
        let picked = store.archival_at(&owner, &[0, 7, 101, 499]).unwrap();
        let want: Vec<_> = [0, 7, 101, 499]
            .iter()
            .map(|&i| (i, full.archival[i].clone()))
            .collect();
        assert_eq!(picked, want);
        let hits = store.archival_matching(&owner, "ENTRY 4").unwrap();
        let want: Vec<u32> = (0..500u32)
            .filter(|i| full.archival[*i as usize].content.contains("entry 4"))
            .collect();
        assert_eq!(hits, want);
    }
}
