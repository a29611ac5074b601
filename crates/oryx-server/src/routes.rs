//! Our UI's routes under `/api/v1/console/`: one route per `Console` operation, the DTOs as JSON.

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use std::time::{Duration, Instant};

use oryx_api::dto::*;
use oryx_api::migrate::{MigrateRequest, MigrationProgress, MigrationReport};
use oryx_api::{ApiError, ErrorCode};
use serde::Deserialize;

use super::{blocking, path_param, AppState, HttpError, Reply};

/// (method, path, summary): registered below and listed in the OpenAPI document.
pub const ROUTES: &[(&str, &str, &str)] = &[
    (
        "get",
        "/api/v1/console/agents",
        "Agents with memory counts and warnings",
    ),
    (
        "get",
        "/api/v1/console/agents/{name}",
        "One agent: front matter, skills, bootstrap",
    ),
    (
        "get",
        "/api/v1/console/memory",
        "All entries of ?agent= (global without), with window flags",
    ),
    (
        "post",
        "/api/v1/console/memory",
        "Append one entry: {agent, scope, content}",
    ),
    (
        "get",
        "/api/v1/console/memory/overview",
        "Core entries, archival count, window figures and prompt part [2] of ?agent=",
    ),
    (
        "get",
        "/api/v1/console/memory/archival",
        "One page of archival entries: ?agent ?offset ?limit (1-1000, default 200) ?newest_first ?keyword",
    ),
    (
        "get",
        "/api/v1/console/memory/context",
        "Prompt part [2] of ?agent=",
    ),
    (
        "get",
        "/api/v1/console/memory/recall",
        "Archival entries of ?agent= containing ?keyword=",
    ),
    (
        "post",
        "/api/v1/console/memory/preview",
        "How {content} would be stored",
    ),
    (
        "get",
        "/api/v1/console/sessions",
        "Sessions: ?agent ?status ?channel ?search ?limit ?offset",
    ),
    (
        "get",
        "/api/v1/console/sessions/{id}",
        "One session with its messages",
    ),
    (
        "get",
        "/api/v1/console/tool-invocations",
        "Tool invocations: ?session_id ?limit ?offset",
    ),
    (
        "get",
        "/api/v1/console/prompt",
        "Prompt parts [1]-[4] of ?agent= (?session_id=)",
    ),
    (
        "get",
        "/api/v1/console/files",
        "USER.md and the other bootstrap files",
    ),
    (
        "get",
        "/api/v1/console/settings",
        "Stored and effective settings",
    ),
    (
        "put",
        "/api/v1/console/settings",
        "Replace the settings (validated, saved atomically; POST works too)",
    ),
    (
        "post",
        "/api/v1/console/inspect-root",
        "What a folder holds: {path, db_path}",
    ),
    (
        "post",
        "/api/v1/console/sample-root",
        "Write the sample root into {path}",
    ),
    (
        "get",
        "/api/v1/console/events",
        "Server-sent change events (live refresh; unnamed, data {kind, agent}) and the running migration's progress (event: migration, data {owner, done, total}; at most every 50 ms, and the last one)",
    ),
    (
        "post",
        "/api/v1/console/mem0/test",
        "Try the mem0 settings in the body (SettingsDto)",
    ),
    (
        "post",
        "/api/v1/console/migrate",
        "Copy missing entries between backends: {from, to, agent, dry_run}; answers when done (cancelled: true if stopped, the copied part kept); progress on /events; 409 conflict while another migration runs",
    ),
    (
        "post",
        "/api/v1/console/migrate/cancel",
        "Stop the running migration between entries (its POST then answers cancelled: true); 409 conflict when none runs",
    ),
];

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/console/agents", get(agents))
        .route("/api/v1/console/agents/{name}", get(agent))
        .route("/api/v1/console/memory", get(memory).post(append))
        .route("/api/v1/console/memory/overview", get(overview))
        .route("/api/v1/console/memory/archival", get(archival))
        .route("/api/v1/console/memory/context", get(context))
        .route("/api/v1/console/memory/recall", get(recall))
        .route("/api/v1/console/memory/preview", post(preview))
        .route("/api/v1/console/sessions", get(sessions))
        .route("/api/v1/console/sessions/{id}", get(session))
        .route("/api/v1/console/tool-invocations", get(invocations))
        .route("/api/v1/console/prompt", get(prompt))
        .route("/api/v1/console/files", get(files))
        .route(
            "/api/v1/console/settings",
            get(get_settings).put(put_settings).post(put_settings),
        )
        .route("/api/v1/console/inspect-root", post(inspect_root))
        .route("/api/v1/console/sample-root", post(sample_root))
        .route("/api/v1/console/mem0/test", post(test_mem0))
        .route("/api/v1/console/migrate", post(migrate))
        .route("/api/v1/console/migrate/cancel", post(cancel_migration))
}

fn query<T>(q: Result<Query<T>, QueryRejection>) -> Result<T, HttpError> {
    crate::envelope::query_param(q)
}

/// Bad bodies are the caller's to fix: 400 `invalid_input` (axum says 422 for JSON of the
/// wrong shape and 415 for a missing content type, codes the envelope does not use); a body
/// over the limit stays 413, one that stopped arriving is 408.
fn body<T>(b: Result<Json<T>, JsonRejection>) -> Result<T, HttpError> {
    b.map(|Json(v)| v).map_err(|e| {
        if timed_out(&e) {
            return HttpError::new(
                StatusCode::REQUEST_TIMEOUT,
                "the request body stopped arriving before its announced length (Content-Length); send the whole body",
            );
        }
        let status = match e.status() {
            StatusCode::PAYLOAD_TOO_LARGE => StatusCode::PAYLOAD_TOO_LARGE,
            _ => StatusCode::BAD_REQUEST,
        };
        HttpError {
            status,
            message: e.body_text(),
            code: ErrorCode::InvalidInput,
        }
    })
}

/// Whether a request body failed because it paused past the body timeout (an error or any of
/// its causes is the timeout layer's).
pub(crate) fn timed_out(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if c.is::<tower_http::timeout::TimeoutError>() {
            return true;
        }
        cause = c.source();
    }
    false
}

/// `?agent=` on a write must name the same owner as the body's `agent` (both absent or empty
/// mean the global memory): otherwise which one was meant is a guess.
fn same_agent(
    q: Result<Query<AgentQ>, QueryRejection>,
    body_agent: Option<&str>,
) -> Result<(), HttpError> {
    let q = query(q)?;
    let Some(from_query) = q.agent else {
        return Ok(());
    };
    let norm = |a: Option<&str>| {
        a.map(str::trim)
            .filter(|a| !a.is_empty())
            .map(str::to_string)
    };
    let (from_query, from_body) = (norm(Some(&from_query)), norm(body_agent));
    if from_query == from_body {
        return Ok(());
    }
    let name = |a: &Option<String>| match a {
        Some(a) => format!("{a:?}"),
        None => "the global memory".to_string(),
    };
    Err(HttpError {
        status: StatusCode::BAD_REQUEST,
        message: format!(
            "?agent= names {} but the body's agent names {}: send one, or the same in both",
            name(&from_query),
            name(&from_body)
        ),
        code: ErrorCode::InvalidInput,
    })
}

#[derive(Deserialize)]
struct AgentQ {
    agent: Option<String>,
}

#[derive(Deserialize)]
struct RecallQ {
    agent: Option<String>,
    keyword: String,
}

#[derive(Deserialize)]
struct ArchivalQ {
    agent: Option<String>,
    offset: Option<u32>,
    limit: Option<u32>,
    newest_first: Option<bool>,
    keyword: Option<String>,
}

#[derive(Deserialize)]
struct PreviewB {
    content: String,
}

#[derive(Deserialize)]
struct InvocationsQ {
    session_id: Option<String>,
    limit: Option<u32>,
    offset: Option<u32>,
}

#[derive(Deserialize)]
struct PromptQ {
    agent: String,
    session_id: Option<String>,
}

#[derive(Deserialize)]
struct InspectB {
    path: String,
    db_path: Option<String>,
}

#[derive(Deserialize)]
struct SampleB {
    path: String,
}

/// Empty `?agent=` means the global memory, like leaving it out.
fn agent_of(q: AgentQ) -> Option<String> {
    q.agent.filter(|a| !a.is_empty())
}

async fn agents(State(s): State<AppState>) -> Reply<AgentList> {
    Reply(blocking(&s, |c| c.list_agents()).await)
}

async fn agent(
    State(s): State<AppState>,
    name: Result<Path<String>, PathRejection>,
) -> Reply<AgentDetail> {
    let name = match path_param(name) {
        Ok(v) => v,
        Err(e) => return Reply(Err(e)),
    };
    Reply(blocking(&s, move |c| c.get_agent(&name)).await)
}

async fn memory(
    State(s): State<AppState>,
    q: Result<Query<AgentQ>, QueryRejection>,
) -> Reply<MemoryViewDto> {
    let agent = match query(q) {
        Ok(q) => agent_of(q),
        Err(e) => return Reply(Err(e)),
    };
    Reply(blocking(&s, move |c| c.memory_view(agent.as_deref())).await)
}

async fn overview(
    State(s): State<AppState>,
    q: Result<Query<AgentQ>, QueryRejection>,
) -> Reply<MemoryOverviewDto> {
    let agent = match query(q) {
        Ok(q) => agent_of(q),
        Err(e) => return Reply(Err(e)),
    };
    Reply(blocking(&s, move |c| c.memory_overview(agent.as_deref())).await)
}

async fn archival(
    State(s): State<AppState>,
    q: Result<Query<ArchivalQ>, QueryRejection>,
) -> Reply<ArchivalPageDto> {
    let q = match query(q) {
        Ok(q) => ArchivalPageQuery {
            agent: q.agent.filter(|a| !a.is_empty()),
            offset: q.offset.unwrap_or(0),
            limit: q.limit.unwrap_or(200),
            newest_first: q.newest_first.unwrap_or(false),
            keyword: q.keyword,
        },
        Err(e) => return Reply(Err(e)),
    };
    Reply(blocking(&s, move |c| c.archival_page(&q)).await)
}

async fn context(
    State(s): State<AppState>,
    q: Result<Query<AgentQ>, QueryRejection>,
) -> Reply<String> {
    let agent = match query(q) {
        Ok(q) => agent_of(q),
        Err(e) => return Reply(Err(e)),
    };
    Reply(blocking(&s, move |c| c.memory_context(agent.as_deref())).await)
}

async fn append(
    State(s): State<AppState>,
    q: Result<Query<AgentQ>, QueryRejection>,
    b: Result<Json<AppendRequest>, JsonRejection>,
) -> Reply<AppendResult> {
    let req = match body(b).and_then(|r| same_agent(q, r.agent.as_deref()).map(|()| r)) {
        Ok(r) => r,
        Err(e) => return Reply(Err(e)),
    };
    Reply(blocking(&s, move |c| c.append_memory(&req)).await)
}

async fn recall(
    State(s): State<AppState>,
    q: Result<Query<RecallQ>, QueryRejection>,
) -> Reply<RecallResult> {
    let q = match query(q) {
        Ok(q) => q,
        Err(e) => return Reply(Err(e)),
    };
    Reply(
        blocking(&s, move |c| {
            c.recall_memory(
                q.agent.as_deref().filter(|a| !a.is_empty()),
                &q.keyword,
                None,
                None,
            )
        })
        .await,
    )
}

async fn preview(
    State(s): State<AppState>,
    b: Result<Json<PreviewB>, JsonRejection>,
) -> Reply<SanitizedPreview> {
    let b = match body(b) {
        Ok(b) => b,
        Err(e) => return Reply(Err(e)),
    };
    Reply(blocking(&s, move |c| c.preview_entry(&b.content)).await)
}

async fn sessions(
    State(s): State<AppState>,
    q: Result<Query<SessionQuery>, QueryRejection>,
) -> Reply<SessionPageDto> {
    let q = match query(q) {
        Ok(q) => q,
        Err(e) => return Reply(Err(e)),
    };
    Reply(blocking(&s, move |c| c.list_sessions(&q)).await)
}

async fn session(
    State(s): State<AppState>,
    id: Result<Path<String>, PathRejection>,
) -> Reply<SessionDto> {
    let id = match path_param(id) {
        Ok(v) => v,
        Err(e) => return Reply(Err(e)),
    };
    Reply(blocking(&s, move |c| c.get_session(&id)).await)
}

async fn invocations(
    State(s): State<AppState>,
    q: Result<Query<InvocationsQ>, QueryRejection>,
) -> Reply<Vec<ToolInvocationDto>> {
    let q = match query(q) {
        Ok(q) => q,
        Err(e) => return Reply(Err(e)),
    };
    Reply(
        blocking(&s, move |c| {
            c.tool_invocations(q.session_id.as_deref(), q.limit, q.offset)
        })
        .await,
    )
}

async fn prompt(
    State(s): State<AppState>,
    q: Result<Query<PromptQ>, QueryRejection>,
) -> Reply<PromptDto> {
    let q = match query(q) {
        Ok(q) => q,
        Err(e) => return Reply(Err(e)),
    };
    Reply(
        blocking(&s, move |c| {
            c.prompt_preview(
                &q.agent,
                q.session_id.as_deref().filter(|i| !i.is_empty()),
                None,
            )
        })
        .await,
    )
}

async fn files(State(s): State<AppState>) -> Reply<Vec<BootstrapFileDto>> {
    Reply(blocking(&s, |c| c.bootstrap_files()).await)
}

async fn get_settings(State(s): State<AppState>) -> Reply<SettingsView> {
    Reply(blocking(&s, |c| c.get_settings()).await)
}

/// What `GET settings` answers, `{settings, effective}`, is accepted as it is: `effective` is
/// read-only and ignored, like `mem0_api_key_set` (absent = keep the stored key).
fn settings_body(
    b: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<SettingsDto, HttpError> {
    let mut v = body(b)?;
    if let Some(inner) = v.get_mut("settings").filter(|i| i.is_object()) {
        v = inner.take();
    }
    if let Some(obj) = v.as_object_mut() {
        // Without the flag, keep the stored key: `false` with no new key would delete it.
        obj.entry("mem0_api_key_set")
            .or_insert(serde_json::Value::Bool(true));
    }
    serde_json::from_value(v).map_err(|e| HttpError {
        status: StatusCode::BAD_REQUEST,
        message: format!("the settings in the body: {e}"),
        code: ErrorCode::InvalidInput,
    })
}

async fn put_settings(
    State(s): State<AppState>,
    b: Result<Json<serde_json::Value>, JsonRejection>,
) -> Reply<SettingsView> {
    let dto = match settings_body(b) {
        Ok(d) => d,
        Err(e) => return Reply(Err(e)),
    };
    Reply(blocking(&s, move |c| c.update_settings(&dto)).await)
}

async fn inspect_root(
    State(s): State<AppState>,
    b: Result<Json<InspectB>, JsonRejection>,
) -> Reply<RootInspection> {
    let b = match body(b) {
        Ok(b) => b,
        Err(e) => return Reply(Err(e)),
    };
    Reply(blocking(&s, move |c| c.inspect_root(&b.path, b.db_path.as_deref())).await)
}

async fn sample_root(
    State(s): State<AppState>,
    b: Result<Json<SampleB>, JsonRejection>,
) -> Reply<RootInspection> {
    let b = match body(b) {
        Ok(b) => b,
        Err(e) => return Reply(Err(e)),
    };
    Reply(blocking(&s, move |_| oryx_api::settings::create_sample_root(&b.path)).await)
}

async fn test_mem0(
    State(s): State<AppState>,
    b: Result<Json<SettingsDto>, JsonRejection>,
) -> Reply<Mem0Status> {
    let dto = match body(b) {
        Ok(d) => d,
        Err(e) => return Reply(Err(e)),
    };
    Reply(blocking(&s, move |c| c.test_mem0(&dto)).await)
}

/// Progress events at most every `MIGRATION_PROGRESS_EVERY`, plus the last one.
const MIGRATION_PROGRESS_EVERY: Duration = Duration::from_millis(50);

struct Throttle {
    hub: super::events::Hub,
    last: Option<Instant>,
    pending: Option<MigrationProgress>,
}

impl Throttle {
    fn offer(&mut self, p: MigrationProgress) {
        let due = self
            .last
            .is_none_or(|t| t.elapsed() >= MIGRATION_PROGRESS_EVERY);
        if due || p.done >= p.total {
            self.pending = None;
            self.last = Some(Instant::now());
            self.hub.migration_progress(p);
        } else {
            self.pending = Some(p);
        }
    }

    /// The last progress held back by the throttle (a cancelled or failing run ends early).
    fn flush(&mut self) {
        if let Some(p) = self.pending.take() {
            self.hub.migration_progress(p);
        }
    }
}

/// Runs to the end like the desktop command: progress goes to `/events` (`event: migration`),
/// `POST /migrate/cancel` stops it between entries and the answer is the report with
/// `cancelled: true` (what was copied stays copied). One migration at a time: 409 otherwise.
async fn migrate(
    State(s): State<AppState>,
    q: Result<Query<AgentQ>, QueryRejection>,
    b: Result<Json<MigrateRequest>, JsonRejection>,
) -> Reply<MigrationReport> {
    let req = match body(b).and_then(|r| same_agent(q, r.agent.as_deref()).map(|()| r)) {
        Ok(r) => r,
        Err(e) => return Reply(Err(e)),
    };
    let mut throttle = Throttle {
        hub: s.events.clone(),
        last: None,
        pending: None,
    };
    let result = blocking(&s, move |c| {
        // One migration per console, whichever host started it: a second one is `conflict`.
        let r = c.run_migration(&req, &mut |p| throttle.offer(p));
        throttle.flush();
        r
    })
    .await;
    Reply(result)
}

/// Sets the cancel flag of the running migration; 409 `conflict` when none runs (for example
/// because it has just finished).
async fn cancel_migration(State(s): State<AppState>) -> Reply<()> {
    if s.console.cancel_migration() {
        Reply(Ok(()))
    } else {
        Reply(Err(HttpError::from(ApiError::new(
            ErrorCode::Conflict,
            "no migration is running on this server (it may have just finished)",
        ))))
    }
}
