//! `/api/v1/agents…`: the runtime's agent list and the tabs of its agent screen.

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use oryx_api::compat_data::Schedule;
use oryx_api::dto::AgentSummary;
use oryx_api::ErrorCode;
use serde::Serialize;

use super::iso_ms;
use super::sessions::{java_session, JavaSession};
use crate::{blocking, path_param, AppState, Reply};

/// The runtime keeps one conversation per agent for its admin UI: channel `admin`, user `console`.
const CONSOLE_SESSION: (&str, &str) = ("admin", "console");

#[derive(Serialize)]
struct JavaSchedule {
    key: String,
    name: String,
    cron: Option<String>,
    zone: Option<String>,
    message: Option<String>,
}

fn java_schedule(s: Schedule) -> JavaSchedule {
    JavaSchedule {
        key: s.key,
        name: s.name,
        cron: s.cron,
        zone: s.zone,
        message: s.message,
    }
}

#[derive(Serialize)]
pub struct JavaAgent {
    name: String,
    description: Option<String>,
    provider: Option<String>,
    model: Option<String>,
    tools: Vec<String>,
    skills: Vec<String>,
    schedules: Vec<JavaSchedule>,
}

fn java_agent(a: &AgentSummary, schedules: Vec<Schedule>) -> JavaAgent {
    JavaAgent {
        name: a.name.clone(),
        description: a.description.clone(),
        provider: a.provider.clone(),
        model: a.model.clone(),
        tools: a.tools.clone(),
        skills: a.skills.clone(),
        schedules: schedules.into_iter().map(java_schedule).collect(),
    }
}

pub async fn list(State(s): State<AppState>) -> Reply<Vec<JavaAgent>> {
    Reply(
        blocking(&s, |c| {
            let list = c.list_agents()?;
            let mut schedules = c.schedules()?;
            // The runtime lists its profile registry: the agents its loader accepted.
            Ok(list
                .agents
                .iter()
                .filter(|a| a.runtime.loads)
                .map(|a| {
                    let own = schedules
                        .iter_mut()
                        .find(|x| x.agent == a.name)
                        .map(|x| std::mem::take(&mut x.schedules))
                        .unwrap_or_default();
                    java_agent(a, own)
                })
                .collect())
        })
        .await,
    )
}

/// Runs `f` with a name from the path, or answers the refusal.
async fn with_name<T: Serialize + Send + 'static>(
    s: &AppState,
    name: Result<Path<String>, PathRejection>,
    f: impl FnOnce(&oryx_api::Console, &str) -> oryx_api::ApiResult<T> + Send + 'static,
) -> Reply<T> {
    match path_param(name) {
        Ok(name) => Reply(blocking(s, move |c| f(c, &name)).await),
        Err(e) => Reply(Err(e)),
    }
}

pub async fn one(
    State(s): State<AppState>,
    name: Result<Path<String>, PathRejection>,
) -> Reply<JavaAgent> {
    with_name(&s, name, |c, name| {
        c.loaded_agent(name)?;
        let d = c.get_agent(name)?;
        Ok(java_agent(&d.summary, c.agent_schedules(name)?))
    })
    .await
}

/// The memory block exactly as `oryx memory context` prints it; an agent the runtime would not
/// load is not found, as the runtime answers.
pub async fn memory(
    State(s): State<AppState>,
    name: Result<Path<String>, PathRejection>,
) -> Reply<String> {
    with_name(&s, name, |c, name| {
        c.loaded_agent(name)?;
        c.memory_context(Some(name))
    })
    .await
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillBindings {
    bindings: Vec<SkillBindingView>,
    issues: Vec<serde_json::Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SkillBindingView {
    name: String,
    description: Option<String>,
    skill_file: String,
}

/// One skill link the runtime would skip, as its binding check reports it.
pub fn skill_issue(agent: &str, entry: &str, path: &str, warning: &str) -> serde_json::Value {
    serde_json::json!({
        "agentName": agent,
        "agentState": "ACTIVE",
        "entryName": entry,
        "path": path,
        "type": issue_kind(warning),
        "message": warning,
    })
}

/// The runtime's issue types, from the agent parser's warning text.
fn issue_kind(warning: &str) -> &'static str {
    if warning.contains("broken") {
        "DANGLING"
    } else if warning.contains("outside the root") {
        "ESCAPED"
    } else if warning.contains("says name") {
        "NAME_MISMATCH"
    } else {
        "INVALID_TARGET"
    }
}

/// Skills linked into the agent; a link the runtime would skip is an issue, not a binding.
pub async fn skills(
    State(s): State<AppState>,
    name: Result<Path<String>, PathRejection>,
) -> Reply<SkillBindings> {
    with_name(&s, name, |c, name| {
        let mut out = SkillBindings {
            bindings: Vec::new(),
            issues: Vec::new(),
        };
        for b in c.skill_bindings(name)? {
            if b.warnings.is_empty() {
                out.bindings.push(SkillBindingView {
                    name: b.name,
                    description: b.description,
                    skill_file: b.skill_file,
                });
                continue;
            }
            for w in &b.warnings {
                out.issues
                    .push(skill_issue(name, &b.name, &b.skill_file, w));
            }
        }
        Ok(out)
    })
    .await
}

#[derive(Serialize)]
pub struct KnowledgeBindings {
    bindings: Vec<KnowledgeBindingView>,
    issues: Vec<serde_json::Value>,
}

#[derive(Serialize)]
struct KnowledgeBindingView {
    name: String,
    description: Option<String>,
}

pub async fn knowledge(
    State(s): State<AppState>,
    name: Result<Path<String>, PathRejection>,
) -> Reply<KnowledgeBindings> {
    with_name(&s, name, |c, name| {
        let bases = c.runtime_knowledge()?;
        Ok(KnowledgeBindings {
            bindings: c
                .agent_knowledge(name)?
                .into_iter()
                .map(|name| KnowledgeBindingView {
                    description: bases
                        .iter()
                        .find(|b| b.name == name)
                        .map(|b| b.description.clone()),
                    name,
                })
                .collect(),
            issues: Vec::new(),
        })
    })
    .await
}

/// The agent's admin-UI conversation when the runtime has stored one, else an empty one.
pub async fn session(
    State(s): State<AppState>,
    name: Result<Path<String>, PathRejection>,
) -> Reply<JavaSession> {
    with_name(&s, name, |c, name| {
        c.strict_agent(name)?;
        let (channel, user) = CONSOLE_SESSION;
        let id = format!("{channel}:{user}:{name}");
        match java_session(&id, c) {
            Err(e) if e.code == ErrorCode::SessionNotFound => Ok(JavaSession {
                session_id: id,
                profile_name: Some(name.to_string()),
                messages: Vec::new(),
            }),
            other => other,
        }
    })
    .await
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentExecutionView {
    id: i64,
    agent_name: String,
    source: String,
    session_id: Option<String>,
    started_at: Option<String>,
    ended_at: Option<String>,
    status: &'static str,
    duration_ms: Option<i64>,
    error_message: Option<String>,
}

/// The agent's runs as the runtime recorded them, newest first (at most 50).
pub async fn executions(
    State(s): State<AppState>,
    name: Result<Path<String>, PathRejection>,
) -> Reply<Vec<AgentExecutionView>> {
    with_name(&s, name, |c, name| {
        Ok(c.agent_runs(name)?
            .into_iter()
            .map(|e| AgentExecutionView {
                status: e.status().as_str(),
                id: e.id,
                agent_name: e.agent_name,
                source: e.source,
                session_id: e.session_id,
                started_at: iso_ms(e.started_at_ms),
                ended_at: iso_ms(e.ended_at_ms),
                duration_ms: e.duration_ms,
                error_message: e.error_message,
            })
            .collect())
    })
    .await
}
