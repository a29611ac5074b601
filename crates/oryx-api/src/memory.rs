//! Memory operations: the full listing with window flags, append, recall, prompt part [2]
//! (the paged listing for the UI is in `memory_page`).

use oryx_core::memory::{entry::render_line, sanitize_content};
use oryx_core::timefmt::now_local;

use crate::console::Console;
use crate::dto::{
    AppendRequest, AppendResult, ArchivalEntryDto, EntryDto, MemoryViewDto, SanitizedPreview,
};
use crate::error::ApiResult;
use crate::view_cache;

impl Console {
    /// Every entry with its window flag (`oryx memory show --json`, `GET /memory`); the UI pages
    /// instead ([`Console::memory_overview`], [`Console::archival_page`]).
    pub fn memory_view(&self, agent: Option<&str>) -> ApiResult<MemoryViewDto> {
        let rt = self.services();
        let owner = rt.owner(agent)?;
        let snap = rt.page_cache.snapshot(
            &rt.memory,
            &owner,
            rt.root(),
            rt.effective.memory_full_parse_max_bytes,
        )?;
        let view = &snap.view;
        Ok(MemoryViewDto {
            agent: owner.agent_name().map(str::to_string),
            backend: view.backend.into(),
            source: rt.source(&owner),
            core: view
                .core
                .iter()
                .enumerate()
                .map(|(i, e)| EntryDto::with_id(view.core_id(i), e))
                .collect(),
            archival: view
                .archival
                .iter()
                .enumerate()
                .map(|(i, e)| ArchivalEntryDto {
                    id: view.archival_id(i + view.archival_offset, e),
                    timestamp: crate::dto::ts(&e.timestamp),
                    content: e.content.clone(),
                    line: e.line.clone(),
                    in_window: view.window.is_in_window(i + view.archival_offset),
                })
                .collect(),
            window: view_cache::window_dto(view),
            context: view.context.clone(),
            possibly_more: view.possibly_more,
            paged_reason: view.paged_reason.clone(),
        })
    }

    /// Prompt part [2] text, read the way the prompt reads it (head and tail only).
    pub fn memory_context(&self, agent: Option<&str>) -> ApiResult<String> {
        let rt = self.services();
        let owner = rt.owner(agent)?;
        Ok(rt.memory.build_context(&owner)?)
    }

    pub fn append_memory(&self, req: &AppendRequest) -> ApiResult<AppendResult> {
        let rt = self.services();
        let owner = rt.owner(req.agent.as_deref())?;
        let entry = rt.memory.append(&owner, req.scope.into(), &req.content);
        rt.page_cache.forget(&rt.memory, &owner);
        let entry = entry?;
        self.announce_write(&rt, &owner);
        Ok(AppendResult {
            agent: owner.agent_name().map(str::to_string),
            scope: req.scope,
            entry: EntryDto::from(&entry),
        })
    }

    /// How `content` would be stored (one sanitised line), without storing it.
    pub fn preview_entry(&self, content: &str) -> ApiResult<SanitizedPreview> {
        let clean = sanitize_content(content)?;
        Ok(SanitizedPreview {
            line: render_line(Some(&now_local()), &clean),
            changed: clean != content,
            content: clean,
        })
    }
}
