//! Agent listing and detail.

use oryx_core::agents::{self, Agent};
use oryx_core::names::Owner;
use oryx_core::sessions::SessionFilter;
use oryx_core::CoreError;

use crate::console::Console;
use crate::dto::{ts, warning_dtos, AgentDetail, AgentList, AgentSummary, MemoryCounts, SkillDto};
use crate::error::ApiResult;
use crate::services::Services;

impl Console {
    pub fn list_agents(&self) -> ApiResult<AgentList> {
        let rt = self.services();
        let agents = agents::list(rt.root())?;
        let providers = runtime_providers(&rt);
        Ok(AgentList {
            root: rt.root().display().to_string(),
            backend: rt.effective.backend.into(),
            // One pass over the sessions for every agent's last activity, not one per agent.
            agents: {
                let last = rt.sessions.last_active_by_agent().unwrap_or_default();
                agents
                    .iter()
                    .map(|a| {
                        let mut s = summary(&rt, a, providers.as_deref(), || {
                            last.get(&a.name).copied().flatten()
                        });
                        s.unreviewed = self.unreviewed_count(&rt, &a.name);
                        s
                    })
                    .collect()
            },
            global_memory: counts(&rt, &Owner::Global),
        })
    }

    pub fn get_agent(&self, name: &str) -> ApiResult<AgentDetail> {
        let rt = self.services();
        let agent = agents::get(rt.root(), name)?;
        Ok(AgentDetail {
            summary: {
                let providers = runtime_providers(&rt);
                let mut s = summary(&rt, &agent, providers.as_deref(), || {
                    last_session_activity(&rt, &agent)
                });
                s.unreviewed = self.unreviewed_count(&rt, &agent.name);
                s
            },
            identity_name: agent.identity_name.clone(),
            identity_prompt: agent.identity_prompt.clone(),
            temperature: agent.temperature,
            bootstrap: agent.bootstrap.clone(),
            max_history_turns: agent
                .max_history_turns
                .clamp(i32::MIN as i64, i32::MAX as i64) as i32,
            schedules_yaml: yaml(&agent.schedules),
            channels_yaml: yaml(&agent.channels),
            front_matter_yaml: yaml(&agent.front_matter).unwrap_or_default(),
            body: agent.body.clone(),
            skills: agent
                .skills
                .iter()
                .map(|s| SkillDto {
                    name: s.name.clone(),
                    description: s.description.clone(),
                    warnings: warning_dtos(&s.warnings),
                })
                .collect(),
            dir: agent.dir.display().to_string(),
        })
    }
}

fn yaml(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::Null => None,
        serde_json::Value::Object(m) if m.is_empty() => None,
        v => serde_yaml_ng::to_string(v).ok(),
    }
}

/// The runtime's provider names, from its registry; `None` while it has none (a database
/// without the `providers` table, or one that cannot be read: the check is then skipped).
pub(crate) fn runtime_providers(rt: &Services) -> Option<Vec<String>> {
    oryx_core::runtime_load::registry_names(&rt.effective.db_path)
        .ok()
        .flatten()
}

fn summary(
    rt: &Services,
    a: &Agent,
    providers: Option<&[String]>,
    last_session: impl FnOnce() -> Option<chrono::NaiveDateTime>,
) -> AgentSummary {
    let owner = Owner::Agent(a.name.clone());
    // Counted only when the console could open it: a valid name, and no link out of the root.
    let refused = match oryx_core::names::resolve_strict(rt.root(), Some(&a.name)) {
        Ok(_) => None,
        Err(CoreError::InvalidAgentName(_)) => Some("invalid agent name".to_string()),
        Err(e) => Some(e.to_string()),
    };
    let valid = refused.is_none();
    let (last_activity, last_activity_from) = match valid {
        true => last_activity(rt, a, last_session()),
        false => (None, None),
    };
    AgentSummary {
        unreviewed: None,
        name: a.name.clone(),
        description: a.description.clone(),
        provider: a.provider.clone(),
        model: a.model.clone(),
        tools: a.tools.clone(),
        skills: a.skills.iter().map(|s| s.name.clone()).collect(),
        memory: if valid {
            counts(rt, &owner)
        } else {
            MemoryCounts {
                core: 0,
                archival: 0,
                bytes: None,
                error: refused,
            }
        },
        last_activity,
        last_activity_from,
        has_agent_md: a.has_agent_md,
        warnings: warning_dtos(&a.warnings),
        runtime: a.runtime.against(providers).into(),
    }
}

pub(crate) fn counts(rt: &Services, owner: &Owner) -> MemoryCounts {
    let bytes = rt.memory.store().size(owner);
    // Counted by the store without building the entries (a MEMORY.md can be 100 MB).
    match rt.memory.store().count(owner) {
        Ok(s) => MemoryCounts {
            core: s.core as u32,
            archival: s.archival as u32,
            bytes,
            error: None,
        },
        Err(e) => MemoryCounts {
            core: 0,
            archival: 0,
            bytes,
            error: Some(e.to_string()),
        },
    }
}

/// The later of the newest session activity and the newest memory entry's time, and which one
/// it is. The entry's time comes from the prompt's own read (core and the window's tail); mem0
/// is not asked again for it (one call per agent is enough for the list).
fn last_activity(
    rt: &Services,
    a: &Agent,
    session: Option<chrono::NaiveDateTime>,
) -> (Option<String>, Option<String>) {
    let owner = Owner::Agent(a.name.clone());
    let entry = match rt.memory.backend() {
        oryx_core::memory::Backend::Mem0 => None,
        _ => rt
            .memory
            .store()
            .load_context(&owner, rt.effective.archival_limit_chars)
            .ok()
            .and_then(|c| {
                c.core
                    .iter()
                    .chain(c.archival_tail.iter())
                    .filter_map(|e| e.timestamp)
                    .max()
            }),
    };
    match (session, entry) {
        (Some(s), Some(e)) if e > s => (ts(&Some(e)), Some("memory".into())),
        (Some(s), _) => (ts(&Some(s)), Some("session".into())),
        (None, Some(e)) => (ts(&Some(e)), Some("memory".into())),
        (None, None) => (None, None),
    }
}

/// The `last_active_at` of the agent's first session in list order.
fn last_session_activity(rt: &Services, a: &Agent) -> Option<chrono::NaiveDateTime> {
    rt.sessions
        .list(&SessionFilter {
            agent: Some(a.name.clone()),
            limit: 1,
            ..SessionFilter::default()
        })
        .ok()
        .and_then(|p| p.items.into_iter().next())
        .and_then(|s| s.last_active_at)
}
