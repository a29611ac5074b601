//! Routes with the Java runtime's shapes, so clients written for it (its admin UI) keep working.

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::routing::get;
use axum::Router;
use oryx_api::dto::{AgentSummary, SessionQuery, SessionStatsDto, SessionStatusDto};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{blocking, path_param, AppState, HttpError, Reply};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/auth/me", get(auth_me))
        .route("/api/v1/agents", get(agents))
        .route("/api/v1/agents/{name}", get(agent))
        .route("/api/v1/agents/{name}/memory", get(memory))
        .route("/api/v1/sessions", get(sessions))
        .route("/api/v1/sessions/stats", get(stats))
        .route("/api/v1/sessions/{id}", get(session))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AuthMe {
    authentication_enabled: bool,
    username: Option<String>,
}

/// The admin UI asks this first; with no token there is nothing to log in to.
async fn auth_me(State(s): State<AppState>) -> Reply<AuthMe> {
    Reply(Ok(AuthMe {
        authentication_enabled: s.token.is_some(),
        username: s.token.as_ref().map(|_| "token".to_string()),
    }))
}

#[derive(Serialize)]
struct JavaAgent {
    name: String,
    description: Option<String>,
    provider: Option<String>,
    model: Option<String>,
    tools: Vec<String>,
    skills: Vec<String>,
    schedules: Value,
}

fn java_agent(a: &AgentSummary, schedules: Value) -> JavaAgent {
    JavaAgent {
        name: a.name.clone(),
        description: a.description.clone(),
        provider: a.provider.clone(),
        model: a.model.clone(),
        tools: a.tools.clone(),
        skills: a.skills.clone(),
        schedules,
    }
}

/// The front matter's `schedules` (kept as YAML text in the DTO) as JSON; absent = `[]`.
fn schedules_value(yaml: &Option<String>) -> Value {
    yaml.as_deref()
        .and_then(|y| serde_yaml_ng::from_str::<Value>(y).ok())
        .unwrap_or(Value::Array(Vec::new()))
}

async fn agents(State(s): State<AppState>) -> Reply<Vec<JavaAgent>> {
    Reply(
        blocking(&s, |c| {
            let list = c.list_agents()?;
            let mut out = Vec::with_capacity(list.agents.len());
            for a in &list.agents {
                let detail = c.get_agent(&a.name).ok();
                let schedules = detail.as_ref().map_or(Value::Array(Vec::new()), |d| {
                    schedules_value(&d.schedules_yaml)
                });
                out.push(java_agent(a, schedules));
            }
            Ok(out)
        })
        .await,
    )
}

async fn agent(
    State(s): State<AppState>,
    name: Result<Path<String>, PathRejection>,
) -> Reply<JavaAgent> {
    let name = match path_param(name) {
        Ok(v) => v,
        Err(e) => return Reply(Err(e)),
    };
    Reply(
        blocking(&s, move |c| {
            let d = c.get_agent(&name)?;
            Ok(java_agent(&d.summary, schedules_value(&d.schedules_yaml)))
        })
        .await,
    )
}

/// The memory block exactly as `oryx memory context` prints it.
async fn memory(
    State(s): State<AppState>,
    name: Result<Path<String>, PathRejection>,
) -> Reply<String> {
    let name = match path_param(name) {
        Ok(v) => v,
        Err(e) => return Reply(Err(e)),
    };
    Reply(blocking(&s, move |c| c.memory_context(Some(&name))).await)
}

#[derive(Deserialize)]
struct StatusQuery {
    status: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JavaSessionSummary {
    session_id: String,
    profile_name: Option<String>,
    channel: Option<String>,
    user_id: Option<String>,
    status: String,
    created_at: Option<String>,
    last_active_at: Option<String>,
    message_count: u32,
}

/// Instants as Spring Boot writes them: ISO-8601 in UTC.
fn iso_utc(local: &Option<String>) -> Option<String> {
    let t = oryx_core::timefmt::parse_entry_ts(local.as_deref()?)?;
    let ms = oryx_core::timefmt::local_to_epoch_ms(&t);
    chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms)
        .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
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

async fn sessions(
    State(s): State<AppState>,
    q: Result<Query<StatusQuery>, QueryRejection>,
) -> Reply<Vec<JavaSessionSummary>> {
    let q = match q {
        Ok(Query(q)) => q,
        Err(e) => return Reply(Err(HttpError::bad_request(e.body_text()))),
    };
    let status = match parse_status(&q) {
        Ok(st) => st,
        Err(e) => return Reply(Err(e)),
    };
    Reply(
        blocking(&s, move |c| {
            let page = c.list_sessions(&SessionQuery {
                status,
                limit: Some(100),
                ..SessionQuery::default()
            })?;
            Ok(page
                .items
                .iter()
                .map(|i| JavaSessionSummary {
                    session_id: i.session_id.clone(),
                    profile_name: i.agent.clone(),
                    channel: i.channel.clone(),
                    user_id: i.user_id.clone(),
                    status: i.status.clone(),
                    created_at: iso_utc(&i.created_at),
                    last_active_at: iso_utc(&i.last_active_at),
                    message_count: i.message_count.unwrap_or(0),
                })
                .collect())
        })
        .await,
    )
}

async fn stats(State(s): State<AppState>) -> Reply<SessionStatsDto> {
    Reply(blocking(&s, |c| c.session_stats()).await)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JavaMessage {
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
struct JavaSession {
    session_id: String,
    profile_name: Option<String>,
    messages: Vec<JavaMessage>,
}

/// The runtime's view: the last 100 messages.
async fn session(
    State(s): State<AppState>,
    id: Result<Path<String>, PathRejection>,
) -> Reply<JavaSession> {
    let id = match path_param(id) {
        Ok(v) => v,
        Err(e) => return Reply(Err(e)),
    };
    Reply(
        blocking(&s, move |c| {
            let d = c.get_session(&id)?;
            let skip = d.messages.len().saturating_sub(100);
            Ok(JavaSession {
                session_id: d.summary.session_id.clone(),
                profile_name: d.summary.agent.clone(),
                messages: d
                    .messages
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
        })
        .await,
    )
}
