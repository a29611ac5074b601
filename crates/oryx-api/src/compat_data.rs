//! Read-only views the Java runtime's admin UI asks for (skills, tools, the root's file tree,
//! schedules and their runs, agent runs, providers, knowledge bases, notify channels, the
//! sandbox whitelist, MCP servers, sessions with millisecond times). The REST host turns them
//! into the runtime's JSON shapes; here they are plain data shaped from what oryx-core reads of
//! the root (`oryx_core::workspace`, `agents`) and of the runtime's database (`runtime::*`).

use std::path::Path;

use oryx_core::agents::{self, Agent};
use oryx_core::frontmatter;
use oryx_core::runtime_load::registry_names;
use oryx_core::sessions::SessionFilter;
use oryx_core::timefmt::local_to_epoch_ms;
use oryx_core::workspace::{self, WorkspaceFileError};
use serde_json::Value;

pub use oryx_core::agents::Schedule;
pub use oryx_core::runtime::executions::{AgentExecution, ExecutionStatus};
pub use oryx_core::runtime::knowledge::{Document as KnowledgeDocument, IndexSummary};
pub use oryx_core::runtime::mcp::{McpServer, McpServers};
pub use oryx_core::runtime::notify::NotifyChannel;
pub use oryx_core::runtime::sandbox::Whitelist;
pub use oryx_core::runtime::schedules::{ScheduleState, TaskExecution};
use oryx_core::runtime::{executions, knowledge, mcp, notify, providers, sandbox, schedules};
// The tree's types live with the walk in core; re-exported so hosts keep their imports.
pub use oryx_core::workspace::{LinkStatus, NodeKind, TreeLimits, TreeNode, MAX_TEXT_FILE};

use crate::console::Console;
use crate::dto::{MessageDto, SessionStatusDto, SessionSummaryDto};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::sessions::{message_dto, summary_dto};

/// A skill installed in the root's `skills/` library.
#[derive(Debug, Clone, PartialEq)]
pub struct RootSkill {
    pub name: String,
    pub description: Option<String>,
    /// SKILL.md without its front matter.
    pub body: String,
    pub warnings: Vec<String>,
}

/// A tool an agent may call: the memory tools the console implements (with their input schema),
/// and every other name an AGENT.md lists (only the running runtime knows those).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInfo {
    pub name: String,
    pub description: Option<String>,
    pub input_schema: Option<Value>,
    /// Agents whose AGENT.md lists this tool.
    pub agents: Vec<String>,
}

/// An agent's schedules as the runtime registers them.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSchedules {
    pub agent: String,
    pub schedules: Vec<Schedule>,
}

/// A skill linked into `agents/<name>/skills/`, or why the runtime would skip it.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillBinding {
    pub name: String,
    pub description: Option<String>,
    pub skill_file: String,
    /// Empty for a usable binding.
    pub warnings: Vec<String>,
}

/// A session summary with its instants in epoch milliseconds (the DTO's text has seconds).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRow {
    pub summary: SessionSummaryDto,
    pub created_at_ms: Option<i64>,
    pub last_active_at_ms: Option<i64>,
}

impl Console {
    /// `<root>/skills/*/SKILL.md`, sorted by name; a skill that cannot be read still lists.
    pub fn root_skills(&self) -> ApiResult<Vec<RootSkill>> {
        let rt = self.services();
        let dir = rt.root().join("skills");
        let mut out = Vec::new();
        for (name, path) in workspace::child_dirs(rt.root(), &dir)? {
            let mut skill = RootSkill {
                name: name.clone(),
                description: None,
                body: String::new(),
                warnings: Vec::new(),
            };
            match workspace::read_text(&path.join("SKILL.md")) {
                Ok(Some(text)) => {
                    let (fm, body) = frontmatter::split(&text);
                    skill.body = body.to_string();
                    match fm.map(frontmatter::parse) {
                        Some(Ok(v)) => {
                            skill.description = frontmatter::get_str(&v, &["description"])
                        }
                        Some(Err(e)) => skill
                            .warnings
                            .push(agents::skill_front_matter_invalid(&e).message),
                        None => {}
                    }
                }
                Ok(None) => skill.warnings.push(agents::skill_md_missing().message),
                Err(e) => skill.warnings.push(e.to_string()),
            }
            out.push(skill);
        }
        Ok(out)
    }

    pub fn tools(&self) -> ApiResult<Vec<ToolInfo>> {
        let rt = self.services();
        let mut out: Vec<ToolInfo> = oryx_core::tools::specs()
            .into_iter()
            .map(|t| ToolInfo {
                name: t.name.to_string(),
                description: Some(t.description.to_string()),
                input_schema: Some(t.parameters),
                agents: Vec::new(),
            })
            .collect();
        for a in agents::list(rt.root())? {
            for t in &a.tools {
                let i = match out.iter().position(|x| &x.name == t) {
                    Some(i) => i,
                    None => {
                        out.push(ToolInfo {
                            name: t.clone(),
                            description: None,
                            input_schema: None,
                            agents: Vec::new(),
                        });
                        out.len() - 1
                    }
                };
                out[i].agents.push(a.name.clone());
            }
        }
        Ok(out)
    }

    /// Every agent's schedules, in agent order.
    pub fn schedules(&self) -> ApiResult<Vec<AgentSchedules>> {
        let rt = self.services();
        Ok(agents::list(rt.root())?
            .iter()
            .map(|a| AgentSchedules {
                agent: a.name.clone(),
                schedules: a.schedule_entries(),
            })
            .collect())
    }

    pub fn agent_schedules(&self, name: &str) -> ApiResult<Vec<Schedule>> {
        Ok(self.strict_agent(name)?.schedule_entries())
    }

    pub fn skill_bindings(&self, name: &str) -> ApiResult<Vec<SkillBinding>> {
        let rt = self.services();
        let a = self.strict_agent(name)?;
        Ok(a.skills
            .iter()
            .map(|s| SkillBinding {
                name: s.name.clone(),
                description: s.description.clone(),
                skill_file: relative(rt.root(), &s.path.join("SKILL.md")),
                // The compatible REST routes keep the runtime's strings.
                warnings: s.warnings.iter().map(|w| w.message.clone()).collect(),
            })
            .collect())
    }

    /// Knowledge bases: the folders under `<root>/knowledge/`.
    pub fn knowledge_bases(&self) -> ApiResult<Vec<String>> {
        let rt = self.services();
        Ok(
            workspace::child_dirs(rt.root(), &rt.root().join("knowledge"))?
                .into_iter()
                .map(|(n, _)| n)
                .collect(),
        )
    }

    /// The knowledge bases linked into `agents/<name>/knowledge/` that resolve inside the root.
    pub fn agent_knowledge(&self, name: &str) -> ApiResult<Vec<String>> {
        let rt = self.services();
        let a = self.strict_agent(name)?;
        Ok(workspace::child_dirs(rt.root(), &a.dir.join("knowledge"))?
            .into_iter()
            .map(|(n, _)| n)
            .collect())
    }

    /// An agent by name, refusing invalid names and links out of the root.
    pub fn strict_agent(&self, name: &str) -> ApiResult<Agent> {
        Ok(agents::get(self.services().root(), name)?)
    }

    /// The root's `agents`, `skills`, `output` and `archive` folders, links not followed.
    pub fn workspace_tree(&self, limits: TreeLimits) -> ApiResult<TreeNode> {
        Ok(workspace::tree(self.services().root(), limits))
    }

    /// A text file inside the root by its root-relative path; links out of the root, `..` and
    /// absolute paths are refused.
    pub fn workspace_file(&self, rel: &str) -> ApiResult<String> {
        Ok(workspace::read_file(self.services().root(), rel)?)
    }

    /// Sessions newest first, with millisecond instants.
    pub fn session_rows(
        &self,
        status: Option<SessionStatusDto>,
        limit: usize,
    ) -> ApiResult<Vec<SessionRow>> {
        let rt = self.services();
        let page = rt.sessions.list(&SessionFilter {
            status: status.map(|s| match s {
                SessionStatusDto::Active => oryx_core::sessions::SessionStatus::Active,
                SessionStatusDto::Archived => oryx_core::sessions::SessionStatus::Archived,
            }),
            limit,
            ..SessionFilter::default()
        })?;
        Ok(page.items.iter().map(row).collect())
    }

    /// One session with its messages; a session whose messages cannot be read is an error that
    /// says why (never an empty conversation).
    pub fn session_with_messages(&self, id: &str) -> ApiResult<(SessionRow, Vec<MessageDto>)> {
        let rt = self.services();
        let s = rt.sessions.get(id)?;
        if let Some(reason) = &s.summary.error {
            return Err(ApiError::new(ErrorCode::Corrupt, reason.clone()));
        }
        Ok((
            row(&s.summary),
            s.messages.iter().map(message_dto).collect(),
        ))
    }
}

/// The runtime's admin UI shows at most this many runs of a schedule, and of an agent.
pub const SCHEDULE_RUNS_SHOWN: usize = 100;
pub const AGENT_RUNS_SHOWN: usize = 50;

/// A provider as the runtime's registry holds it, its key masked as its admin UI masks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderView {
    pub name: String,
    pub masked_key: String,
    pub base_url: Option<String>,
    pub description: Option<String>,
}

/// A knowledge base as the runtime lists it: KNOWLEDGE.md and the index figures of its backend
/// (the built-in `local` one; another backend is one the runtime does not ship, so it has no
/// figures and no capabilities).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnowledgeBaseInfo {
    pub name: String,
    pub description: String,
    pub backend: String,
    pub index: IndexSummary,
    pub local: bool,
}

/// Whether the runtime would load this agent, by its loader's rules against its provider
/// registry (`None`: no registry yet, the provider's existence is not checked).
pub fn runtime_loads(a: &Agent, providers: Option<&[String]>) -> bool {
    a.runtime.against(providers).loads
}

impl Console {
    /// The runtime's provider registry; empty until the runtime has created it.
    pub fn runtime_providers(&self) -> ApiResult<Vec<ProviderView>> {
        let rt = self.services();
        Ok(providers::registry(&rt.effective.db_path)?
            .unwrap_or_default()
            .into_iter()
            .map(|p| ProviderView {
                masked_key: providers::mask(p.api_key.as_deref()),
                name: p.name,
                base_url: p.base_url,
                description: p.description,
            })
            .collect())
    }

    /// The schedules the runtime lists: its table merged with what the agents it loads declare.
    pub fn runtime_schedules(&self) -> ApiResult<Vec<ScheduleState>> {
        let rt = self.services();
        let names = registry_names(&rt.effective.db_path)?;
        let declared: Vec<(String, Vec<Schedule>)> = agents::list(rt.root())?
            .into_iter()
            .filter(|a| runtime_loads(a, names.as_deref()))
            .map(|a| {
                let s = a.schedule_entries();
                (a.name, s)
            })
            .collect();
        Ok(schedules::merge(
            schedules::tasks(&rt.effective.db_path)?,
            &declared,
        ))
    }

    /// The runs of one listed schedule, newest first; `None` when no listed schedule has this id.
    pub fn schedule_runs(&self, id: &str, limit: usize) -> ApiResult<Option<Vec<TaskExecution>>> {
        let rt = self.services();
        let listed = self
            .runtime_schedules()?
            .into_iter()
            .find(|s| schedule_id(s) == id);
        let Some(s) = listed else {
            return Ok(None);
        };
        match s.schedule_id {
            Some(sid) => Ok(Some(schedules::executions(
                &rt.effective.db_path,
                &sid,
                limit,
            )?)),
            None => Ok(Some(Vec::new())),
        }
    }

    /// An agent's runs, newest first; an agent the runtime would not load is not found.
    pub fn agent_runs(&self, name: &str) -> ApiResult<Vec<AgentExecution>> {
        self.loaded_agent(name)?;
        let rt = self.services();
        Ok(executions::for_agent(
            &rt.effective.db_path,
            name,
            AGENT_RUNS_SHOWN,
        )?)
    }

    /// The names of the agents the runtime would load, in agent order.
    pub fn runtime_loaded_agents(&self) -> ApiResult<Vec<String>> {
        let rt = self.services();
        let names = registry_names(&rt.effective.db_path)?;
        Ok(agents::list(rt.root())?
            .into_iter()
            .filter(|a| runtime_loads(a, names.as_deref()))
            .map(|a| a.name)
            .collect())
    }

    /// The agent, when the runtime would load it; else not found, as the runtime answers.
    pub fn loaded_agent(&self, name: &str) -> ApiResult<Agent> {
        let a = self.strict_agent(name)?;
        let names = registry_names(&self.services().effective.db_path)?;
        match a.runtime.against(names.as_deref()).reason {
            None => Ok(a),
            Some(why) => Err(ApiError::new(
                ErrorCode::AgentNotFound,
                format!("the runtime does not load agent {name:?}: {}", why.message),
            )),
        }
    }

    /// The knowledge bases the runtime registers, with their index figures.
    pub fn runtime_knowledge(&self) -> ApiResult<Vec<KnowledgeBaseInfo>> {
        let rt = self.services();
        let mut out = Vec::new();
        for m in knowledge::manifests(rt.root())? {
            let local = m.backend == knowledge::LOCAL_BACKEND;
            let docs = if local {
                knowledge::documents(&rt.effective.db_path, &m.name)?
            } else {
                Vec::new()
            };
            out.push(KnowledgeBaseInfo {
                index: knowledge::summarize(&docs),
                name: m.name,
                description: m.description,
                backend: m.backend,
                local,
            });
        }
        Ok(out)
    }

    /// One base with its documents; not found when the runtime does not register it.
    pub fn runtime_knowledge_base(
        &self,
        name: &str,
    ) -> ApiResult<(KnowledgeBaseInfo, Vec<KnowledgeDocument>)> {
        let rt = self.services();
        let base = self
            .runtime_knowledge()?
            .into_iter()
            .find(|b| b.name == name)
            .ok_or_else(|| {
                ApiError::new(ErrorCode::NotFound, format!("no knowledge base {name:?}"))
            })?;
        let docs = if base.local {
            knowledge::documents(&rt.effective.db_path, name)?
        } else {
            Vec::new()
        };
        Ok((base, docs))
    }

    pub fn notify_channels(&self) -> ApiResult<Vec<NotifyChannel>> {
        Ok(notify::channels(&self.services().effective.db_path)?)
    }

    pub fn sandbox_whitelist(&self) -> ApiResult<Whitelist> {
        Ok(sandbox::whitelist(&self.services().effective.db_path)?)
    }

    pub fn mcp_servers(&self) -> McpServers {
        mcp::servers(self.services().root())
    }
}

/// A listed schedule's id: the runtime's own, or `agent:key` for one it has not registered yet
/// (the key is unique within an agent, so this is as stable).
pub fn schedule_id(s: &ScheduleState) -> String {
    s.schedule_id
        .clone()
        .unwrap_or_else(|| format!("{}:{}", s.profile_name, s.key))
}

fn row(s: &oryx_core::sessions::SessionSummary) -> SessionRow {
    SessionRow {
        summary: summary_dto(s),
        created_at_ms: s.created_at.as_ref().map(local_to_epoch_ms),
        last_active_at_ms: s.last_active_at.as_ref().map(local_to_epoch_ms),
    }
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The codes the workspace file route has always answered with.
impl From<WorkspaceFileError> for ApiError {
    fn from(e: WorkspaceFileError) -> Self {
        let code = match e {
            WorkspaceFileError::OutsideRoot(core) => return core.into(),
            WorkspaceFileError::NotRelative { .. } => ErrorCode::OutsideRoot,
            WorkspaceFileError::Missing { .. } | WorkspaceFileError::NotAFile { .. } => {
                ErrorCode::InvalidInput
            }
            WorkspaceFileError::Unreadable { .. } => ErrorCode::Io,
        };
        ApiError::new(code, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn console(root: &Path) -> Console {
        let o = oryx_core::config::Overrides {
            root: Some(root.to_path_buf()),
            ..Default::default()
        };
        let settings = root.parent().unwrap().join("settings.json");
        Console::open(Some(settings), o).unwrap()
    }

    #[test]
    fn workspace_file_stays_inside_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        fs::create_dir_all(root.join("agents/a")).unwrap();
        fs::write(root.join("agents/a/AGENT.md"), "hello").unwrap();
        fs::write(dir.path().join("secret"), "SECRET").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("secret"), root.join("agents/a/s")).unwrap();
        let c = console(&root);
        assert_eq!(c.workspace_file("agents/a/AGENT.md").unwrap(), "hello");
        for bad in [
            "../secret",
            "/etc/passwd",
            "agents/../../secret",
            "",
            "agents/a/s",
        ] {
            let e = c.workspace_file(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::OutsideRoot, "{bad}: {e:?}");
        }
        assert_eq!(
            c.workspace_file("agents/a/missing").unwrap_err().code,
            ErrorCode::InvalidInput
        );
    }
}
