//! The runtime's catalog screens: info, profiles, tools, providers, skills, knowledge bases,
//! schedules with their runs, and the root's file tree.

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use oryx_api::compat_data::{
    schedule_id, KnowledgeBaseInfo, LinkStatus, NodeKind, TreeLimits, TreeNode, SCHEDULE_RUNS_SHOWN,
};
use oryx_api::ApiError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::iso_ms;
use crate::{blocking, path_param, AppState, HttpError, Reply};

#[derive(Serialize)]
pub struct Info {
    application: &'static str,
    providers: Vec<String>,
}

/// The providers the agents the runtime loads name, sorted, each once (the runtime's info).
fn providers_in_use(c: &oryx_api::Console) -> oryx_api::ApiResult<Vec<String>> {
    let loaded = c.runtime_loaded_agents()?;
    let mut out: Vec<String> = c
        .list_agents()?
        .agents
        .into_iter()
        .filter(|a| loaded.contains(&a.name))
        .filter_map(|a| a.provider)
        .collect();
    out.sort();
    out.dedup();
    Ok(out)
}

/// Open without a token (see `login::open_route`): then only the application's name.
pub async fn info(State(s): State<AppState>, headers: HeaderMap) -> Reply<Info> {
    if !super::login::authenticated(&s, &headers) {
        return Reply(Ok(Info {
            application: "oryxos",
            providers: Vec::new(),
        }));
    }
    Reply(
        blocking(&s, |c| {
            Ok(Info {
                application: "oryxos",
                providers: providers_in_use(c)?,
            })
        })
        .await,
    )
}

#[derive(Serialize)]
pub struct Profile {
    name: String,
    description: Option<String>,
    provider: Option<String>,
    model: Option<String>,
    tools: Vec<String>,
}

/// The agents the runtime loads (its profile registry).
pub async fn profiles(State(s): State<AppState>) -> Reply<Vec<Profile>> {
    Reply(
        blocking(&s, |c| {
            let loaded = c.runtime_loaded_agents()?;
            Ok(c.list_agents()?
                .agents
                .into_iter()
                .filter(|a| loaded.contains(&a.name))
                .map(|a| Profile {
                    name: a.name,
                    description: a.description,
                    provider: a.provider,
                    model: a.model,
                    tools: a.tools,
                })
                .collect())
        })
        .await,
    )
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    name: String,
    description: Option<String>,
    /// The JSON schema of the call's arguments, for the tools the console implements.
    input_schema: Option<Value>,
    /// Agents whose AGENT.md lists the tool.
    agents: Vec<String>,
}

pub async fn tools(State(s): State<AppState>) -> Reply<Vec<Tool>> {
    Reply(
        blocking(&s, |c| {
            Ok(c.tools()?
                .into_iter()
                .map(|t| Tool {
                    name: t.name,
                    description: t.description,
                    input_schema: t.input_schema,
                    agents: t.agents,
                })
                .collect())
        })
        .await,
    )
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Provider {
    name: String,
    /// Masked as the runtime masks it: only the last four characters show.
    api_key: String,
    base_url: Option<String>,
    description: Option<String>,
}

/// The runtime's provider registry (empty until the runtime has created it).
pub async fn providers(State(s): State<AppState>) -> Reply<Vec<Provider>> {
    Reply(
        blocking(&s, |c| {
            Ok(c.runtime_providers()?
                .into_iter()
                .map(|p| Provider {
                    name: p.name,
                    api_key: p.masked_key,
                    base_url: p.base_url,
                    description: p.description,
                })
                .collect())
        })
        .await,
    )
}

#[derive(Serialize)]
pub struct Skill {
    name: String,
    description: Option<String>,
    body: String,
}

pub async fn skills(State(s): State<AppState>) -> Reply<Vec<Skill>> {
    Reply(
        blocking(&s, |c| {
            Ok(c.root_skills()?
                .into_iter()
                .map(|k| Skill {
                    name: k.name,
                    description: k.description,
                    body: k.body,
                })
                .collect())
        })
        .await,
    )
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeBase {
    name: String,
    description: String,
    backend: String,
    document_count: usize,
    chunk_count: i64,
    index_status: &'static str,
    last_indexed_at: Option<String>,
    /// What the backend lets the admin UI do; null for a backend the runtime does not ship.
    capabilities: Option<Capabilities>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    create_delete: bool,
    import_docs: bool,
    rebuild: bool,
    status: bool,
    rerank: bool,
}

fn knowledge_base(b: KnowledgeBaseInfo) -> KnowledgeBase {
    KnowledgeBase {
        name: b.name,
        description: b.description,
        backend: b.backend,
        document_count: b.index.document_count,
        chunk_count: b.index.chunk_count,
        index_status: b.index.status,
        last_indexed_at: iso_ms(b.index.last_indexed_at_ms),
        // The built-in local backend manages everything but reranking.
        capabilities: b.local.then_some(Capabilities {
            create_delete: true,
            import_docs: true,
            rebuild: true,
            status: true,
            rerank: false,
        }),
    }
}

/// The bases whose KNOWLEDGE.md the runtime accepts, with their index figures.
pub async fn knowledge(State(s): State<AppState>) -> Reply<Vec<KnowledgeBase>> {
    Reply(
        blocking(&s, |c| {
            Ok(c.runtime_knowledge()?
                .into_iter()
                .map(knowledge_base)
                .collect())
        })
        .await,
    )
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeDocumentView {
    rel_path: String,
    state: String,
    chunk_count: i64,
    failure_reason: Option<String>,
    indexed_at: Option<String>,
}

#[derive(Serialize)]
pub struct KnowledgeDetail {
    base: KnowledgeBase,
    documents: Vec<KnowledgeDocumentView>,
}

pub async fn knowledge_base_detail(
    State(s): State<AppState>,
    name: Result<Path<String>, PathRejection>,
) -> Reply<KnowledgeDetail> {
    let name = match path_param(name) {
        Ok(v) => v,
        Err(e) => return Reply(Err(e)),
    };
    Reply(
        blocking(&s, move |c| {
            let (base, docs) = c.runtime_knowledge_base(&name)?;
            Ok(KnowledgeDetail {
                base: knowledge_base(base),
                documents: docs
                    .into_iter()
                    .map(|d| KnowledgeDocumentView {
                        rel_path: d.rel_path,
                        state: d.state,
                        chunk_count: d.chunk_count,
                        failure_reason: d.failure_reason,
                        indexed_at: iso_ms(d.indexed_at_ms),
                    })
                    .collect(),
            })
        })
        .await,
    )
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleRow {
    schedule_id: String,
    profile_name: String,
    key: String,
    name: String,
    cron: Option<String>,
    zone: Option<String>,
    message: Option<String>,
    enabled: bool,
    next_run_at: Option<String>,
    last_run_at: Option<String>,
    last_status: Option<String>,
    run_count: i64,
}

/// The runtime's schedules: its table merged with what the agents it loads declare.
pub async fn schedules(State(s): State<AppState>) -> Reply<Vec<ScheduleRow>> {
    Reply(
        blocking(&s, |c| {
            Ok(c.runtime_schedules()?
                .into_iter()
                .map(|r| ScheduleRow {
                    schedule_id: schedule_id(&r),
                    profile_name: r.profile_name,
                    key: r.key,
                    name: r.name,
                    cron: r.cron,
                    zone: r.zone,
                    message: r.message,
                    enabled: r.enabled,
                    next_run_at: iso_ms(r.next_run_at_ms),
                    last_run_at: iso_ms(r.last_run_at_ms),
                    last_status: r.last_status,
                    run_count: r.run_count,
                })
                .collect())
        })
        .await,
    )
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionView {
    schedule_id: Option<String>,
    legacy_task_key: Option<String>,
    legacy_migrated: bool,
    session_id: Option<String>,
    started_at: Option<String>,
    success: bool,
    error_message: Option<String>,
    duration_ms: i64,
}

#[derive(Deserialize)]
pub struct RunsQuery {
    limit: Option<i64>,
}

/// A schedule's runs, newest first; `?limit=` as the runtime reads it (at most 100, and 100
/// when not positive).
pub async fn schedule_executions(
    State(s): State<AppState>,
    id: Result<Path<String>, PathRejection>,
    q: Result<Query<RunsQuery>, QueryRejection>,
) -> Reply<Vec<ExecutionView>> {
    let id = match path_param(id) {
        Ok(v) => v,
        Err(e) => return Reply(Err(e)),
    };
    let limit = match q {
        Ok(Query(q)) => q.limit,
        Err(e) => return Reply(Err(HttpError::rejected("the query string", e.body_text()))),
    };
    let limit = match limit {
        Some(n) if n > 0 && n <= SCHEDULE_RUNS_SHOWN as i64 => n as usize,
        _ => SCHEDULE_RUNS_SHOWN,
    };
    Reply(
        blocking(&s, move |c| {
            let runs = c.schedule_runs(&id, limit)?.ok_or_else(|| {
                ApiError::new(
                    oryx_api::ErrorCode::NotFound,
                    format!("schedule not found: {id}"),
                )
            })?;
            Ok(runs
                .into_iter()
                .map(|e| ExecutionView {
                    schedule_id: e.schedule_id,
                    legacy_task_key: e.legacy_task_key,
                    legacy_migrated: e.legacy_migrated,
                    session_id: e.session_id,
                    started_at: iso_ms(e.started_at_ms),
                    success: e.success,
                    error_message: e.error_message,
                    duration_ms: e.duration_ms,
                })
                .collect())
        })
        .await,
    )
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileNode {
    name: String,
    path: String,
    #[serde(rename = "type")]
    kind: &'static str,
    children: Vec<FileNode>,
    link_target: Option<String>,
    link_status: Option<&'static str>,
    /// Present when the listing was cut (too deep or too many entries).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
}

fn file_node(n: TreeNode) -> FileNode {
    FileNode {
        name: n.name,
        path: n.path,
        kind: match n.kind {
            NodeKind::File => "file",
            NodeKind::Dir => "dir",
            NodeKind::Link => "link",
        },
        children: n.children.into_iter().map(file_node).collect(),
        link_target: n.link_target,
        link_status: n.link_status.map(|s| match s {
            LinkStatus::Valid => "valid",
            LinkStatus::Dangling => "dangling",
            LinkStatus::Escaped => "escaped",
        }),
        truncated: n.truncated,
    }
}

pub async fn tree(State(s): State<AppState>) -> Reply<FileNode> {
    Reply(
        blocking(&s, |c| {
            Ok(file_node(c.workspace_tree(TreeLimits::default())?))
        })
        .await,
    )
}

#[derive(Deserialize)]
pub struct FileQuery {
    path: String,
}

/// A file of the tree as text (the runtime's file view).
pub async fn file(
    State(s): State<AppState>,
    q: Result<Query<FileQuery>, QueryRejection>,
) -> Reply<String> {
    let path = match q {
        Ok(Query(q)) => q.path,
        Err(e) => return Reply(Err(HttpError::rejected("the query string", e.body_text()))),
    };
    Reply(blocking(&s, move |c| c.workspace_file(&path)).await)
}
