//! The root's files as the console shows them, read-only: the bounded tree of `agents`,
//! `skills`, `output` and `archive` (links are leaves, never followed), one text file by its
//! root-relative path, the sub-folders of a library folder, and what a folder holds before the
//! user switches to it. Hosts shape these into their own answers; they touch no file themselves.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use crate::error::{CoreError, Result};
use crate::names::{agents_dir, global_memory_path, is_valid_agent_name, stays_inside};

/// SKILL.md and workspace files larger than this are not read whole.
pub const MAX_TEXT_FILE: u64 = 1024 * 1024;

/// The folders of the root the runtime's tree shows, in its order.
const TREE_TOP: &[&str] = &["agents", "skills", "output", "archive"];

/// The root's bootstrap files a folder survey looks for.
pub(crate) const BOOTSTRAP_FILES: &[&str] = &["USER.md", "AGENTS.md", "SOUL.md"];

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

/// The root's `agents`, `skills`, `output` and `archive` folders, links not followed.
pub fn tree(root: &Path, limits: TreeLimits) -> TreeNode {
    let mut budget = limits.max_entries;
    let mut children = Vec::new();
    let mut truncated = false;
    for top in TREE_TOP {
        let p = root.join(top);
        if std::fs::symlink_metadata(&p).is_ok() {
            if budget == 0 {
                truncated = true;
                break;
            }
            children.push(walk(root, &p, top, 1, limits.max_depth, &mut budget));
        }
    }
    TreeNode {
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
    }
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
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return node;
    };
    if meta.file_type().is_symlink() {
        node.kind = NodeKind::Link;
        node.link_target = std::fs::read_link(path)
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
    let Ok(entries) = std::fs::read_dir(path) else {
        return node;
    };
    let mut names: Vec<_> = entries
        .filter_map(std::result::Result::ok)
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

/// Why a text file of the root is not shown.
#[derive(Debug, thiserror::Error)]
pub enum TextFileError {
    #[error("{} cannot be read: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is larger than the {MAX_TEXT_FILE} byte limit", path.display())]
    TooLarge { path: PathBuf },
}

/// A text file, at most [`MAX_TEXT_FILE`] bytes, invalid UTF-8 replaced; `Ok(None)` when missing.
pub fn read_text(path: &Path) -> std::result::Result<Option<String>, TextFileError> {
    let unreadable = |source| TextFileError::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    let file = match std::fs::File::open(path) {
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

/// Why [`read_file`] refused or failed, in the order it checks.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceFileError {
    /// Empty, absolute, or with `.`/`..` components.
    #[error(
        "path {rel:?} must be relative to the root, without .. (like agents/assistant/AGENT.md)"
    )]
    NotRelative { rel: String },
    #[error("no file {rel} in the root")]
    Missing { rel: String },
    /// The path (through a link) resolves outside the root.
    #[error(transparent)]
    OutsideRoot(CoreError),
    #[error("{rel} is not a file")]
    NotAFile { rel: String },
    #[error("{rel}: {source}")]
    Unreadable {
        rel: String,
        #[source]
        source: TextFileError,
    },
}

/// A text file inside the root by its root-relative path; links out of the root, `..` and
/// absolute paths are refused.
pub fn read_file(root: &Path, rel: &str) -> std::result::Result<String, WorkspaceFileError> {
    let plain = !rel.is_empty()
        && !rel.contains('\0')
        && Path::new(rel)
            .components()
            .all(|c| matches!(c, Component::Normal(_)));
    if !plain {
        return Err(WorkspaceFileError::NotRelative {
            rel: rel.to_string(),
        });
    }
    let missing = || WorkspaceFileError::Missing {
        rel: rel.to_string(),
    };
    let path = root.join(rel);
    if std::fs::symlink_metadata(&path).is_err() {
        return Err(missing());
    }
    if !stays_inside(root, &path) {
        return Err(WorkspaceFileError::OutsideRoot(CoreError::OutsideRoot(
            path,
        )));
    }
    if !path.is_file() {
        return Err(WorkspaceFileError::NotAFile {
            rel: rel.to_string(),
        });
    }
    match read_text(&path) {
        Ok(Some(t)) => Ok(t),
        Ok(None) => Err(missing()),
        Err(source) => Err(WorkspaceFileError::Unreadable {
            rel: rel.to_string(),
            source,
        }),
    }
}

/// Sub-folders of `dir` (links included when they resolve to a folder inside the root), sorted,
/// without hidden ones; none when `dir` is missing or resolves outside the root.
pub fn child_dirs(root: &Path, dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(CoreError::io(dir, e)),
    };
    if !stays_inside(root, dir) {
        return Ok(Vec::new());
    }
    let mut out: Vec<_> = entries
        .filter_map(std::result::Result::ok)
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(n, p)| !n.starts_with('.') && p.is_dir() && stays_inside(root, p))
        .collect();
    out.sort();
    Ok(out)
}

/// What a folder holds, looked at before the user switches to it as the root.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RootSurvey {
    pub exists: bool,
    pub is_dir: bool,
    /// Whether `agents/` could be listed (only tried when the folder is a folder).
    pub agents_listed: bool,
    /// Valid agent names with a folder under `agents/`, sorted.
    pub agents: Vec<String>,
    /// Agents' MEMORY.md files plus the global memory file.
    pub memory_files: u32,
    pub has_global_memory: bool,
    /// USER.md, AGENTS.md, SOUL.md: those present, in that order.
    pub bootstrap_files: Vec<String>,
    /// Whether `db` is a regular file (links followed).
    pub db_exists: bool,
}

/// Looks at `root` and the database path `db` without changing anything.
pub fn survey_root(root: &Path, db: &Path) -> RootSurvey {
    let mut s = RootSurvey {
        exists: root.exists(),
        is_dir: root.is_dir(),
        ..RootSurvey::default()
    };
    if s.exists && s.is_dir {
        if let Ok(entries) = std::fs::read_dir(agents_dir(root)) {
            s.agents_listed = true;
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if e.path().is_dir() && is_valid_agent_name(&name) {
                    if e.path().join("MEMORY.md").is_file() {
                        s.memory_files += 1;
                    }
                    s.agents.push(name);
                }
            }
        }
    }
    s.agents.sort();
    s.has_global_memory = global_memory_path(root).is_file();
    if s.has_global_memory {
        s.memory_files += 1;
    }
    s.bootstrap_files = BOOTSTRAP_FILES
        .iter()
        .filter(|f| root.join(f).is_file())
        .map(|f| f.to_string())
        .collect();
    s.db_exists = db.is_file();
    s
}

/// Whether `path` is a folder (links followed); false when it cannot be looked at.
pub fn is_folder(path: &Path) -> bool {
    path.is_dir()
}

/// Whether anything is at `path` (links followed); false when it cannot be looked at.
pub fn path_exists(path: &Path) -> bool {
    path.exists()
}

/// `path` with links and `..` resolved, or as given when that fails (a missing path).
pub fn canonical_or_same(path: PathBuf) -> PathBuf {
    path.canonicalize().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

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
        let t = tree(
            &root,
            TreeLimits {
                max_depth: 3,
                max_entries: 10_000,
            },
        );
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
        let small = tree(
            &root,
            TreeLimits {
                max_depth: 8,
                max_entries: 20,
            },
        );
        fn count(n: &TreeNode) -> usize {
            1 + n.children.iter().map(count).sum::<usize>()
        }
        assert_eq!(count(&small), 21, "the root and 20 entries");
        let output = small.children.iter().find(|n| n.name == "output");
        assert!(output.is_none_or(|o| o.truncated), "{output:?}");
    }

    #[test]
    fn read_file_stays_inside_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        fs::create_dir_all(root.join("agents/a")).unwrap();
        fs::write(root.join("agents/a/AGENT.md"), "hello").unwrap();
        fs::write(dir.path().join("secret"), "SECRET").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("secret"), root.join("agents/a/s")).unwrap();
        assert_eq!(read_file(&root, "agents/a/AGENT.md").unwrap(), "hello");
        for bad in ["../secret", "/etc/passwd", "agents/../../secret", ""] {
            let e = read_file(&root, bad).unwrap_err();
            assert!(
                matches!(e, WorkspaceFileError::NotRelative { .. }),
                "{bad}: {e:?}"
            );
        }
        #[cfg(unix)]
        assert!(matches!(
            read_file(&root, "agents/a/s").unwrap_err(),
            WorkspaceFileError::OutsideRoot(CoreError::OutsideRoot(_))
        ));
        assert!(matches!(
            read_file(&root, "agents/a/missing").unwrap_err(),
            WorkspaceFileError::Missing { .. }
        ));
        assert!(matches!(
            read_file(&root, "agents/a").unwrap_err(),
            WorkspaceFileError::NotAFile { .. }
        ));
        fs::write(
            root.join("agents/a/big.txt"),
            vec![b'x'; MAX_TEXT_FILE as usize + 1],
        )
        .unwrap();
        let e = read_file(&root, "agents/a/big.txt").unwrap_err();
        assert!(
            matches!(
                e,
                WorkspaceFileError::Unreadable {
                    source: TextFileError::TooLarge { .. },
                    ..
                }
            ),
            "{e:?}"
        );
    }

    #[test]
    fn child_dirs_lists_visible_folders_inside_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        fs::create_dir_all(root.join("skills/b")).unwrap();
        fs::create_dir_all(root.join("skills/a")).unwrap();
        fs::create_dir_all(root.join("skills/.hidden")).unwrap();
        fs::write(root.join("skills/file.md"), "").unwrap();
        fs::create_dir_all(dir.path().join("outside")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("outside"), root.join("skills/out")).unwrap();
        let names: Vec<_> = child_dirs(&root, &root.join("skills"))
            .unwrap()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, vec!["a", "b"]);
        assert!(child_dirs(&root, &root.join("missing")).unwrap().is_empty());
    }

    #[test]
    fn survey_says_what_a_folder_holds() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let missing = survey_root(&root, &root.join("oryxos.db"));
        assert!(!missing.exists && !missing.is_dir && !missing.agents_listed);
        fs::create_dir_all(root.join("agents/b")).unwrap();
        fs::create_dir_all(root.join("agents/a")).unwrap();
        fs::create_dir_all(root.join("agents/not valid")).unwrap();
        fs::write(root.join("agents/a/MEMORY.md"), "").unwrap();
        fs::write(root.join("SOUL.md"), "").unwrap();
        fs::write(root.join("USER.md"), "").unwrap();
        fs::write(root.join("oryxos.db"), "").unwrap();
        let s = survey_root(&root, &root.join("oryxos.db"));
        assert!(s.exists && s.is_dir && s.agents_listed && s.db_exists);
        assert_eq!(s.agents, vec!["a", "b"]);
        assert_eq!(s.memory_files, 1);
        assert!(!s.has_global_memory);
        assert_eq!(s.bootstrap_files, vec!["USER.md", "SOUL.md"]);
    }
}
