//! `/api/v1/sessions…`: the runtime's session list, stats and conversation views.

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use oryx_api::compat_data::SessionRow;
use oryx_api::dto::{SessionStatsDto, SessionStatusDto};
use serde::{Deserialize, Serialize};

use super::iso_ms;
use crate::{blocking, path_param, AppState, HttpError, Reply};

/// The runtime lists at most this many sessions and shows this many messages of one.
const LIMIT: usize = 100;

#[derive(Deserialize)]
pub struct StatusQuery {
    status: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JavaSessionSummary {
    session_id: String,
    profile_name: Option<String>,
    channel: Option<String>,
    user_id: Option<String>,
    status: String,
    created_at: Option<String>,
    last_active_at: Option<String>,
    /// `null` when the messages cannot be read; `error` then says why.
    message_count: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

fn summary(r: &SessionRow) -> JavaSessionSummary {
    let s = &r.summary;
    JavaSessionSummary {
        session_id: s.session_id.clone(),
        profile_name: s.agent.clone(),
        channel: s.channel.clone(),
        user_id: s.user_id.clone(),
        status: s.status.clone(),
        created_at: iso_ms(r.created_at_ms),
        last_active_at: iso_ms(r.last_active_at_ms),
        message_count: s.message_count,
        error: s.error.clone(),
    }
}

fn parse_status(q: &StatusQuery) -> Result<Option<SessionStatusDto>, HttpError> {
    match q.status.as_deref().map(str::to_ascii_lowercase).as_deref() {
        None | Some("") => Ok(None),
        Some("active") => Ok(Some(SessionStatusDto::Active)),
        Some("archived") => Ok(Some(SessionStatusDto::Archived)),
        Some(other) => Err(HttpError::bad_request(format!(
            "unknown status {other:?}: use active or archived"
        ))),
    }
}

pub async fn list(
    State(s): State<AppState>,
    q: Result<Query<StatusQuery>, QueryRejection>,
) -> Reply<Vec<JavaSessionSummary>> {
    let q = match q {
        Ok(Query(q)) => q,
        Err(e) => return Reply(Err(HttpError::rejected("the query string", e.body_text()))),
    };
    let status = match parse_status(&q) {
        Ok(st) => st,
        Err(e) => return Reply(Err(e)),
    };
    Reply(
        blocking(&s, move |c| {
            Ok(c.session_rows(status, LIMIT)?.iter().map(summary).collect())
        })
        .await,
    )
}

pub async fn stats(State(s): State<AppState>) -> Reply<SessionStatsDto> {
    Reply(blocking(&s, |c| c.session_stats()).await)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JavaMessage {
    role: String,
    content: Option<String>,
    tool_name: Option<String>,
    tool_call_id: Option<String>,
    tool_calls: Vec<JavaToolCall>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JavaToolCall {
    id: Option<String>,
    name: String,
    arguments_json: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JavaSession {
    pub session_id: String,
    pub profile_name: Option<String>,
    pub messages: Vec<JavaMessage>,
}

/// The runtime's view of one session: its last 100 messages. A session whose messages cannot be
/// read answers the error (as the runtime would fail on it), not an empty conversation.
pub fn java_session(id: &str, c: &oryx_api::Console) -> oryx_api::ApiResult<JavaSession> {
    let (row, messages) = c.session_with_messages(id)?;
    let skip = messages.len().saturating_sub(LIMIT);
    Ok(JavaSession {
        session_id: row.summary.session_id,
        profile_name: row.summary.agent,
        messages: messages
            .into_iter()
            .skip(skip)
            .map(|m| JavaMessage {
                role: m.role,
                content: m.content,
                tool_name: m.tool_name,
                tool_call_id: m.tool_call_id,
                tool_calls: m
                    .tool_calls
                    .into_iter()
                    .map(|t| JavaToolCall {
                        id: t.id,
                        name: t.name,
                        arguments_json: t.arguments_json,
                    })
                    .collect(),
            })
            .collect(),
    })
}

pub async fn one(
    State(s): State<AppState>,
    id: Result<Path<String>, PathRejection>,
) -> Reply<JavaSession> {
    let id = match path_param(id) {
        Ok(v) => v,
        Err(e) => return Reply(Err(e)),
    };
    Reply(blocking(&s, move |c| java_session(&id, c)).await)
}
