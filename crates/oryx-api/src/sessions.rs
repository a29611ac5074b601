//! Sessions and tool invocations: read-only views of the runtime's tables.

use oryx_core::sessions::{
    count_turns, Message, SessionFilter, SessionStatus, SessionSummary, ToolInvocation,
};

use crate::console::Console;
use crate::dto::{
    ts, MessageDto, MessageMatchDto, SessionDto, SessionPageDto, SessionQuery, SessionStatsDto,
    SessionStatusDto, SessionSummaryDto, ToolCallDto, ToolInvocationDto,
};
use crate::error::{ApiError, ApiResult};

pub const MAX_PAGE: u32 = 500;

impl Console {
    pub fn list_sessions(&self, q: &SessionQuery) -> ApiResult<SessionPageDto> {
        let rt = self.services();
        if let Some(agent) = &q.agent {
            oryx_core::names::validate_agent_name(agent)?;
        }
        let limit = q.limit.unwrap_or(50);
        if limit == 0 || limit > MAX_PAGE {
            return Err(ApiError::invalid(format!(
                "limit must be between 1 and {MAX_PAGE}, got {limit}"
            )));
        }
        let offset = q.offset.unwrap_or(0);
        let filter = SessionFilter {
            agent: q.agent.clone(),
            status: q.status.map(|s| match s {
                SessionStatusDto::Active => SessionStatus::Active,
                SessionStatusDto::Archived => SessionStatus::Archived,
            }),
            channel: q.channel.clone().filter(|c| !c.is_empty()),
            query: q.search.clone().filter(|c| !c.trim().is_empty()),
            limit: limit as usize,
            offset: offset as usize,
        };
        let page = rt.sessions.list(&filter)?;
        Ok(SessionPageDto {
            total: page.total as u32,
            offset,
            limit,
            items: page.items.iter().map(summary_dto).collect(),
            db_path: rt.effective.db_path.display().to_string(),
            db_exists: oryx_core::workspace::path_exists(&rt.effective.db_path),
        })
    }

    /// Sessions per status, counted in one query.
    pub fn session_stats(&self) -> ApiResult<SessionStatsDto> {
        let s = self.services().sessions.stats()?;
        Ok(SessionStatsDto {
            active: s.active as u32,
            archived: s.archived as u32,
            total: s.total as u32,
        })
    }

    pub fn get_session(&self, id: &str) -> ApiResult<SessionDto> {
        let rt = self.services();
        let s = rt.sessions.get(id)?;
        Ok(SessionDto {
            turns: count_turns(&s.messages) as u32,
            summary: summary_dto(&s.summary),
            messages: s.messages.iter().map(message_dto).collect(),
        })
    }

    pub fn tool_invocations(
        &self,
        session_id: Option<&str>,
        limit: Option<u32>,
        offset: Option<u32>,
    ) -> ApiResult<Vec<ToolInvocationDto>> {
        let rt = self.services();
        let limit = limit.unwrap_or(100).clamp(1, MAX_PAGE);
        let rows = rt.sessions.tool_invocations(
            session_id,
            limit as usize,
            offset.unwrap_or(0) as usize,
        )?;
        Ok(rows.iter().map(invocation_dto).collect())
    }
}

pub(crate) fn summary_dto(s: &SessionSummary) -> SessionSummaryDto {
    SessionSummaryDto {
        session_id: s.session_id.clone(),
        agent: s.agent.clone(),
        channel: s.channel.clone(),
        user_id: s.user_id.clone(),
        status: s.status.clone(),
        created_at: ts(&s.created_at),
        last_active_at: ts(&s.last_active_at),
        archived_at: ts(&s.archived_at),
        message_count: s.message_count.map(|c| c as u32),
        error: s.error.clone(),
        message_match: s.message_match.as_ref().map(|m| MessageMatchDto {
            index: m.index as u32,
            role: m.role.clone(),
            snippet: m.snippet.clone(),
        }),
    }
}

pub(crate) fn message_dto(m: &Message) -> MessageDto {
    MessageDto {
        role: m.role.clone(),
        content: m.content.clone(),
        tool_name: m.tool_name.clone(),
        tool_call_id: m.tool_call_id.clone(),
        tool_calls: m
            .tool_calls
            .iter()
            .map(|c| ToolCallDto {
                id: c.id.clone(),
                name: c.name.clone(),
                arguments_json: c.arguments_json.clone(),
            })
            .collect(),
    }
}

fn invocation_dto(t: &ToolInvocation) -> ToolInvocationDto {
    ToolInvocationDto {
        id: t.id,
        session_id: t.session_id.clone(),
        tool_name: t.tool_name.clone(),
        input_json: t.input_json.clone(),
        result_json: t.result_json.clone(),
        success: t.success,
        error_message: t.error_message.clone(),
        duration_ms: t.duration_ms,
        created_at: ts(&t.created_at),
    }
}
