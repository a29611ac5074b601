//! The runtime's catalog screens: info, profiles, tools, providers, skills, knowledge,
//! schedules and the root's file tree.

use std::collections::BTreeMap;

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use oryx_api::compat_data::{LinkStatus, NodeKind, TreeLimits, TreeNode};
use oryx_api::ApiError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::agents::java_schedule;
use crate::{blocking, path_param, AppState, HttpError, Reply};

#[derive(Serialize)]
pub struct Info {
    application: &'static str,
    providers: Vec<String>,
}

/// Provider names the agents use, with the agents using each.
fn providers_in_use(c: &oryx_api::Console) -> oryx_api::ApiResult<BTreeMap<String, Vec<String>>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for a in c.list_agents()?.agents {
        if let Some(p) = a.provider {
            out.entry(p).or_default().push(a.name);
        }
    }
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
                providers: providers_in_use(c)?.into_keys().collect(),
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

pub async fn profiles(State(s): State<AppState>) -> Reply<Vec<Profile>> {
    Reply(
        blocking(&s, |c| {
            Ok(c.list_agents()?
                .agents
                .into_iter()
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
    /// Masked in the runtime; the console never holds provider keys.
    api_key: &'static str,
    base_url: Option<String>,
    description: String,
}

/// The providers the agents name; their endpoints and keys live in the runtime's registry.
pub async fn providers(State(s): State<AppState>) -> Reply<Vec<Provider>> {
    Reply(
        blocking(&s, |c| {
            Ok(providers_in_use(c)?
                .into_iter()
                .map(|(name, agents)| Provider {
                    name,
                    api_key: "",
                    base_url: None,
                    description: format!("used by {}", agents.join(", ")),
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
    description: Option<String>,
    /// Index figures only the running runtime has.
    backend: Option<String>,
    document_count: Option<u32>,
    chunk_count: Option<u32>,
    index_status: Option<String>,
    last_indexed_at: Option<String>,
    capabilities: Option<Value>,
}

pub async fn knowledge(State(s): State<AppState>) -> Reply<Vec<KnowledgeBase>> {
    Reply(
        blocking(&s, |c| {
            Ok(c.knowledge_bases()?
                .into_iter()
                .map(|name| KnowledgeBase {
                    name,
                    description: None,
                    backend: None,
                    document_count: None,
                    chunk_count: None,
                    index_status: None,
                    last_indexed_at: None,
                    capabilities: None,
                })
                .collect())
        })
        .await,
    )
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleRow {
    schedule_id: String,
    profile_name: String,
    #[serde(flatten)]
    schedule: super::agents::JavaSchedule,
    enabled: bool,
    next_run_at: Option<String>,
    last_run_at: Option<String>,
    last_status: Option<String>,
    run_count: u64,
}

/// The runtime numbers schedules in its own table; here the id is `agent:key`, which is as
/// stable (the runtime's key is unique within an agent).
fn schedule_id(agent: &str, key: &str) -> String {
    format!("{agent}:{key}")
}

fn schedule_rows(c: &oryx_api::Console) -> oryx_api::ApiResult<Vec<ScheduleRow>> {
    let mut out = Vec::new();
    for a in c.schedules()? {
        for s in a.schedules {
            out.push(ScheduleRow {
                schedule_id: schedule_id(&a.agent, &s.key),
                profile_name: a.agent.clone(),
                schedule: java_schedule(s),
                enabled: true,
                next_run_at: None,
                last_run_at: None,
                last_status: None,
                run_count: 0,
            });
        }
    }
    Ok(out)
}

/// Every agent's schedules from its AGENT.md; run state is the running runtime's.
pub async fn schedules(State(s): State<AppState>) -> Reply<Vec<ScheduleRow>> {
    Reply(blocking(&s, schedule_rows).await)
}

pub async fn schedule_executions(
    State(s): State<AppState>,
    id: Result<Path<String>, PathRejection>,
) -> Reply<Vec<Value>> {
    let id = match path_param(id) {
        Ok(v) => v,
        Err(e) => return Reply(Err(e)),
    };
    Reply(
        blocking(&s, move |c| {
            if schedule_rows(c)?.iter().any(|r| r.schedule_id == id) {
                Ok(Vec::new())
            } else {
                Err(ApiError::new(
                    oryx_api::ErrorCode::InvalidInput,
                    format!("no schedule {id:?} in any AGENT.md"),
                ))
            }
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
