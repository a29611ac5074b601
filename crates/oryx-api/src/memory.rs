//! Memory operations: the full listing with window flags, append, recall, prompt part [2].

use oryx_core::memory::{entry::render_line, sanitize_content};
use oryx_core::timefmt::now_local;

use crate::console::Console;
use crate::dto::{
    AppendRequest, AppendResult, ArchivalEntryDto, EntryDto, MemoryViewDto, RecallResult,
    SanitizedPreview, WindowDto,
};
use crate::error::ApiResult;

impl Console {
    pub fn memory_view(&self, agent: Option<&str>) -> ApiResult<MemoryViewDto> {
        let rt = self.runtime();
        let owner = rt.owner(agent)?;
        let view = rt.memory.view(&owner)?;
        let w = &view.window;
        Ok(MemoryViewDto {
            agent: owner.agent_name().map(str::to_string),
            backend: view.backend.into(),
            source: rt.source(&owner),
            core: view.core.iter().map(EntryDto::from).collect(),
            archival: view
                .archival
                .iter()
                .enumerate()
                .map(|(i, e)| ArchivalEntryDto {
                    timestamp: crate::dto::ts(&e.timestamp),
                    content: e.content.clone(),
                    line: e.line.clone(),
                    in_window: i >= w.first_in_window,
                })
                .collect(),
            window: WindowDto {
                limit_chars: w.limit_chars as u32,
                first_in_window: w.first_in_window as u32,
                in_window_entries: w.in_window_entries as u32,
                in_window_chars: w.in_window_chars as u32,
                outside_entries: w.outside_entries as u32,
                outside_chars: w.outside_chars as u32,
                newest_cut: w.newest_cut,
            },
            context: view.context,
            possibly_more: view.possibly_more,
        })
    }

    /// Prompt part [2] text, read the way the prompt reads it (head and tail only).
    pub fn memory_context(&self, agent: Option<&str>) -> ApiResult<String> {
        let rt = self.runtime();
        let owner = rt.owner(agent)?;
        Ok(rt.memory.build_context(&owner)?)
    }

    pub fn append_memory(&self, req: &AppendRequest) -> ApiResult<AppendResult> {
        let rt = self.runtime();
        let owner = rt.owner(req.agent.as_deref())?;
        let entry = rt.memory.append(&owner, req.scope.into(), &req.content)?;
        Ok(AppendResult {
            agent: owner.agent_name().map(str::to_string),
            scope: req.scope,
            entry: EntryDto::from(&entry),
        })
    }

    pub fn recall_memory(&self, agent: Option<&str>, keyword: &str) -> ApiResult<RecallResult> {
        let rt = self.runtime();
        let owner = rt.owner(agent)?;
        let entries = rt.memory.recall(&owner, keyword)?;
        let text = oryx_core::memory::service::recall_result_text(&entries);
        Ok(RecallResult {
            agent: owner.agent_name().map(str::to_string),
            keyword: keyword.to_string(),
            entries: entries.iter().map(EntryDto::from).collect(),
            text,
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
