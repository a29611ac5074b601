//! Read-only views the Java runtime's admin UI asks for (skills, tools, the root's file tree,
//! schedules, knowledge links, sessions with millisecond times). The REST host turns them into
//! the runtime's JSON shapes; here they are plain data read from the root and the database.

use std::fs;
use std::io::Read;
use std::path::{Component, Path};

use oryx_core::agents::{self, Agent};
use oryx_core::names::stays_inside;
use oryx_core::sessions::SessionFilter;
use oryx_core::timefmt::local_to_epoch_ms;
use oryx_core::{frontmatter, CoreError};
use serde_json::Value;

pub use oryx_core::agents::Schedule;

use crate::console::Console;
use crate::dto::{MessageDto, SessionStatusDto, SessionSummaryDto};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::sessions::{message_dto, summary_dto};

/// SKILL.md and workspace files larger than this are not read whole.
pub const MAX_TEXT_FILE: u64 = 1024 * 1024;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    File,
    Dir,
    /// Never followed: a link is a leaf, with where it points and whether that stays inside.
    Link,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkStatus {
    Valid,
    Dangling,
    Escaped,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TreeNode {
    pub name: String,
    /// Relative to the root, `/`-separated; "" for the root.
    pub path: String,
    pub kind: NodeKind,
    pub children: Vec<TreeNode>,
    pub link_target: Option<String>,
    pub link_status: Option<LinkStatus>,
    /// Set on a directory whose listing was cut by the limits.
    pub truncated: bool,
}

/// How much of the root a tree answer may walk, so that a huge root still answers quickly.
#[derive(Debug, Clone, Copy)]
pub struct TreeLimits {
    pub max_depth: usize,
    pub max_entries: usize,
}

impl Default for TreeLimits {
    fn default() -> Self {
        TreeLimits {
            max_depth: 8,
            max_entries: 5000,
        }
    }
}

/// A session summary with its instants in epoch milliseconds (the DTO's text has seconds).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRow {
    pub summary: SessionSummaryDto,
    pub created_at_ms: Option<i64>,
    pub last_active_at_ms: Option<i64>,
}

/// The folders of the root the runtime's tree shows, in its order.
const TREE_TOP: &[&str] = &["agents", "skills", "output", "archive"];

impl Console {
    /// `<root>/skills/*/SKILL.md`, sorted by name; a skill that cannot be read still lists.
    pub fn root_skills(&self) -> ApiResult<Vec<RootSkill>> {
        let rt = self.runtime();
        let dir = rt.root().join("skills");
        let mut out = Vec::new();
        for (name, path) in child_dirs(rt.root(), &dir)? {
            let mut skill = RootSkill {
                name: name.clone(),
                description: None,
                body: String::new(),
                warnings: Vec::new(),
            };
            match read_text(&path.join("SKILL.md")) {
                Ok(Some(text)) => {
                    let (fm, body) = frontmatter::split(&text);
                    skill.body = body.to_string();
                    match fm.map(frontmatter::parse) {
                        Some(Ok(v)) => {
                            skill.description = frontmatter::get_str(&v, &["description"])
                        }
                        Some(Err(e)) => skill
                            .warnings
                            .push(format!("SKILL.md front matter is not valid YAML: {e}")),
                        None => {}
                    }
                }
                Ok(None) => skill.warnings.push("SKILL.md is missing".into()),
                Err(e) => skill.warnings.push(e.to_string()),
            }
            out.push(skill);
        }
        Ok(out)
    }

    pub fn tools(&self) -> ApiResult<Vec<ToolInfo>> {
        let rt = self.runtime();
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
        let rt = self.runtime();
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
        let rt = self.runtime();
        let a = self.strict_agent(name)?;
        Ok(a.skills
            .iter()
            .map(|s| SkillBinding {
                name: s.name.clone(),
                description: s.description.clone(),
                skill_file: relative(rt.root(), &s.path.join("SKILL.md")),
                warnings: s.warnings.clone(),
            })
            .collect())
    }

    /// Knowledge bases: the folders under `<root>/knowledge/`.
    pub fn knowledge_bases(&self) -> ApiResult<Vec<String>> {
        let rt = self.runtime();
        Ok(child_dirs(rt.root(), &rt.root().join("knowledge"))?
            .into_iter()
            .map(|(n, _)| n)
            .collect())
    }

    /// The knowledge bases linked into `agents/<name>/knowledge/` that resolve inside the root.
    pub fn agent_knowledge(&self, name: &str) -> ApiResult<Vec<String>> {
        let rt = self.runtime();
        let a = self.strict_agent(name)?;
        Ok(child_dirs(rt.root(), &a.dir.join("knowledge"))?
            .into_iter()
            .map(|(n, _)| n)
            .collect())
    }

    /// An agent by name, refusing invalid names and links out of the root.
    pub fn strict_agent(&self, name: &str) -> ApiResult<Agent> {
        Ok(agents::get(self.runtime().root(), name)?)
    }

    /// The root's `agents`, `skills`, `output` and `archive` folders, links not followed.
    pub fn workspace_tree(&self, limits: TreeLimits) -> ApiResult<TreeNode> {
        let rt = self.runtime();
        let root = rt.root();
        let mut budget = limits.max_entries;
        let mut children = Vec::new();
        let mut truncated = false;
        for top in TREE_TOP {
            let p = root.join(top);
            if fs::symlink_metadata(&p).is_ok() {
                if budget == 0 {
                    truncated = true;
                    break;
                }
                children.push(walk(root, &p, top, 1, limits.max_depth, &mut budget));
            }
        }
        Ok(TreeNode {
            name: root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| root.display().to_string()),
            path: String::new(),
            kind: NodeKind::Dir,
            children,
            link_target: None,
            link_status: None,
            truncated,
        })
    }

    /// A text file inside the root by its root-relative path; links out of the root, `..` and
    /// absolute paths are refused.
    pub fn workspace_file(&self, rel: &str) -> ApiResult<String> {
        let rt = self.runtime();
        let root = rt.root();
        let plain = !rel.is_empty()
            && !rel.contains('\0')
            && Path::new(rel)
                .components()
                .all(|c| matches!(c, Component::Normal(_)));
        if !plain {
            return Err(ApiError::new(
                ErrorCode::OutsideRoot,
                format!("path {rel:?} must be relative to the root, without .. (like agents/assistant/AGENT.md)"),
            ));
        }
        let path = root.join(rel);
        if fs::symlink_metadata(&path).is_err() {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!("no file {rel} in the root"),
            ));
        }
        if !stays_inside(root, &path) {
            return Err(CoreError::OutsideRoot(path).into());
        }
        if !path.is_file() {
            return Err(ApiError::invalid(format!("{rel} is not a file")));
        }
        match read_text(&path) {
            Ok(Some(t)) => Ok(t),
            Ok(None) => Err(ApiError::invalid(format!("no file {rel} in the root"))),
            Err(e) => Err(ApiError::new(ErrorCode::Io, format!("{rel}: {e}"))),
        }
    }

    /// Sessions newest first, with millisecond instants.
    pub fn session_rows(
        &self,
        status: Option<SessionStatusDto>,
        limit: usize,
    ) -> ApiResult<Vec<SessionRow>> {
        let rt = self.runtime();
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
        let rt = self.runtime();
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

fn row(s: &oryx_core::sessions::SessionSummary) -> SessionRow {
    SessionRow {
        summary: summary_dto(s),
        created_at_ms: s.created_at.as_ref().map(local_to_epoch_ms),
        last_active_at_ms: s.last_active_at.as_ref().map(local_to_epoch_ms),
    }
}

/// Sub-folders of `dir` (links included when they resolve to a folder inside the root), sorted.
fn child_dirs(root: &Path, dir: &Path) -> ApiResult<Vec<(String, std::path::PathBuf)>> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(CoreError::io(dir, e).into()),
    };
    if !stays_inside(root, dir) {
        return Ok(Vec::new());
    }
    let mut out: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(n, p)| !n.starts_with('.') && p.is_dir() && stays_inside(root, p))
        .collect();
    out.sort();
    Ok(out)
}

/// Why a text file of the root is not shown.
#[derive(Debug, thiserror::Error)]
enum TextFileError {
    #[error("{} cannot be read: {source}", path.display())]
    Unreadable {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("{} is larger than the {MAX_TEXT_FILE} byte limit", path.display())]
    TooLarge { path: std::path::PathBuf },
}

/// `Ok(None)` when missing.
fn read_text(path: &Path) -> Result<Option<String>, TextFileError> {
    let unreadable = |source| TextFileError::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    let file = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(e)),
    };
    let mut bytes = Vec::new();
    file.take(MAX_TEXT_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_TEXT_FILE {
        return Err(TextFileError::TooLarge {
            path: path.to_path_buf(),
        });
    }
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// One node; `budget` counts the entries still allowed in the whole answer.
fn walk(
    root: &Path,
    path: &Path,
    rel: &str,
    depth: usize,
    max_depth: usize,
    budget: &mut usize,
) -> TreeNode {
    *budget = budget.saturating_sub(1);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut node = TreeNode {
        name,
        path: rel.to_string(),
        kind: NodeKind::File,
        children: Vec::new(),
        link_target: None,
        link_status: None,
        truncated: false,
    };
    let Ok(meta) = fs::symlink_metadata(path) else {
        return node;
    };
    if meta.file_type().is_symlink() {
        node.kind = NodeKind::Link;
        node.link_target = fs::read_link(path)
            .ok()
            .map(|t| t.to_string_lossy().into_owned());
        node.link_status = Some(if !path.exists() {
            LinkStatus::Dangling
        } else if stays_inside(root, path) {
            LinkStatus::Valid
        } else {
            LinkStatus::Escaped
        });
        return node;
    }
    if !meta.is_dir() {
        return node;
    }
    node.kind = NodeKind::Dir;
    if depth >= max_depth {
        node.truncated = true;
        return node;
    }
    let Ok(entries) = fs::read_dir(path) else {
        return node;
    };
    let mut names: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    names.sort();
    for n in names {
        if *budget == 0 {
            node.truncated = true;
            break;
        }
        let child_rel = format!("{rel}/{}", n.to_string_lossy());
        node.children.push(walk(
            root,
            &path.join(&n),
            &child_rel,
            depth + 1,
            max_depth,
            budget,
        ));
    }
    node
}

#[cfg(test)]
mod tests {
    use super::*;

    fn console(root: &Path) -> Console {
        let o = oryx_core::config::Overrides {
            root: Some(root.to_path_buf()),
            ..Default::default()
        };
        let settings = root.parent().unwrap().join("settings.json");
        Console::open(Some(settings), o).unwrap()
    }

    #[test]
    fn tree_is_bounded_and_does_not_follow_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        fs::create_dir_all(outside.join("deep")).unwrap();
        fs::write(outside.join("deep/secret.txt"), "x").unwrap();
        fs::create_dir_all(root.join("agents/a/d1/d2/d3")).unwrap();
        fs::write(root.join("agents/a/AGENT.md"), "---\nname: a\n---\n").unwrap();
        fs::create_dir_all(root.join("output")).unwrap();
        for i in 0..50 {
            fs::write(root.join(format!("output/f{i:02}.txt")), "").unwrap();
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&outside, root.join("agents/a/out")).unwrap();
            std::os::unix::fs::symlink("../gone", root.join("agents/a/gone")).unwrap();
            std::os::unix::fs::symlink("d1", root.join("agents/a/inner")).unwrap();
        }
        let c = console(&root);
        let t = c
            .workspace_tree(TreeLimits {
                max_depth: 3,
                max_entries: 10_000,
            })
            .unwrap();
        let names: Vec<_> = t.children.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, vec!["agents", "output"]);
        let a = &t.children[0].children[0];
        assert_eq!(a.path, "agents/a");
        let d1 = a.children.iter().find(|n| n.name == "d1").unwrap();
        assert!(d1.truncated && d1.children.is_empty(), "depth 3 stops here");
        #[cfg(unix)]
        {
            let by = |n: &str| a.children.iter().find(|x| x.name == n).unwrap();
            assert_eq!(by("out").kind, NodeKind::Link);
            assert_eq!(by("out").link_status, Some(LinkStatus::Escaped));
            assert!(by("out").children.is_empty());
            assert_eq!(by("gone").link_status, Some(LinkStatus::Dangling));
            assert_eq!(by("inner").link_status, Some(LinkStatus::Valid));
        }
        let small = c
            .workspace_tree(TreeLimits {
                max_depth: 8,
                max_entries: 20,
            })
            .unwrap();
        fn count(n: &TreeNode) -> usize {
            1 + n.children.iter().map(count).sum::<usize>()
        }
        assert_eq!(count(&small), 21, "the root and 20 entries");
        let output = small.children.iter().find(|n| n.name == "output");
        assert!(output.is_none_or(|o| o.truncated), "{output:?}");
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
