//! Agent names and the paths they resolve to (CONTRACT §4).

use std::path::{Path, PathBuf};

use crate::error::{CoreError, Result};

pub const MAX_NAME_LEN: usize = 64;

/// `[A-Za-z0-9_-]+`, at most 64 characters.
pub fn is_valid_agent_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

pub fn validate_agent_name(name: &str) -> Result<()> {
    if is_valid_agent_name(name) {
        Ok(())
    } else {
        Err(CoreError::InvalidAgentName(name.to_string()))
    }
}

/// Whose long-term memory: one agent's or the global file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Owner {
    Global,
    Agent(String),
}

impl Owner {
    pub fn agent_name(&self) -> Option<&str> {
        match self {
            Owner::Global => None,
            Owner::Agent(n) => Some(n),
        }
    }

    /// The `agent_name` column value of `memory_entries` (Java runtime's convention).
    pub fn db_key(&self) -> &str {
        self.agent_name().unwrap_or(GLOBAL_DB_KEY)
    }

    pub fn label(&self) -> String {
        match self {
            Owner::Global => "global".to_string(),
            Owner::Agent(n) => n.clone(),
        }
    }
}

pub const GLOBAL_DB_KEY: &str = "__global__";

pub fn agents_dir(root: &Path) -> PathBuf {
    root.join("agents")
}

pub fn agent_dir(root: &Path, name: &str) -> PathBuf {
    agents_dir(root).join(name)
}

pub fn global_memory_path(root: &Path) -> PathBuf {
    root.join("memory").join("MEMORY.md")
}

pub fn memory_path(root: &Path, owner: &Owner) -> PathBuf {
    match owner {
        Owner::Global => global_memory_path(root),
        Owner::Agent(n) => agent_dir(root, n).join("MEMORY.md"),
    }
}

/// The inverse of [`memory_path`] for the directory holding a memory file: the root and the
/// components below it (`["memory"]` or `["agents", name]`), so the file can be opened from the
/// root without following links. A directory named `memory` is read as the global one first: for
/// an agent named "memory" the walk then starts at `agents/` (still no link below that is
/// followed), whereas the other reading would treat a root named "agents" as a missing
/// `agents/` to create.
pub fn memory_dir_parts(dir: &Path) -> Option<(&Path, Vec<&std::ffi::OsStr>)> {
    let name = dir.file_name()?;
    let parent = dir.parent().map(non_empty)?;
    if name == "memory" {
        return Some((parent, vec![name]));
    }
    let agents = parent.file_name()?;
    if agents == "agents" {
        return Some((parent.parent().map(non_empty)?, vec![agents, name]));
    }
    None
}

fn non_empty(p: &Path) -> &Path {
    if p.as_os_str().is_empty() {
        Path::new(".")
    } else {
        p
    }
}

/// True when `path`'s nearest existing ancestor, with symlinks resolved, lies inside `root`.
/// Paths that do not exist yet are judged by the part that does.
pub fn stays_inside(root: &Path, path: &Path) -> bool {
    let Ok(root) = root.canonicalize() else {
        return false;
    };
    let mut probe = path.to_path_buf();
    loop {
        if let Ok(real) = probe.canonicalize() {
            return real.starts_with(&root);
        }
        if !probe.pop() {
            return false;
        }
    }
}

/// Console/CLI/REST resolution: an invalid or unknown agent is an error, never a fallback.
pub fn resolve_strict(root: &Path, name: Option<&str>) -> Result<Owner> {
    let Some(name) = name else {
        return Ok(Owner::Global);
    };
    validate_agent_name(name)?;
    crate::root::require_root(root)?;
    let dir = agent_dir(root, name);
    if !dir.is_dir() {
        return Err(CoreError::AgentNotFound {
            name: name.to_string(),
            dir,
        });
    }
    if !stays_inside(root, &dir) {
        return Err(CoreError::OutsideRoot(dir));
    }
    let memory = dir.join("MEMORY.md");
    if !stays_inside(root, &memory) {
        return Err(CoreError::OutsideRoot(memory));
    }
    Ok(Owner::Agent(name.to_string()))
}

/// The agent directory and its MEMORY.md (when it exists: a link is followed) stay inside.
fn agent_stays_inside(root: &Path, name: &str) -> bool {
    let dir = agent_dir(root, name);
    stays_inside(root, &dir) && stays_inside(root, &dir.join("MEMORY.md"))
}

/// Run-path resolution (tools, footprint): anything invalid or escaping the root falls back to
/// the global file, as the runtime does.
pub fn resolve_lenient(root: &Path, name: Option<&str>) -> Owner {
    match name {
        Some(n) if is_valid_agent_name(n) && agent_stays_inside(root, n) => {
            Owner::Agent(n.to_string())
        }
        _ => Owner::Global,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["a", "Agent_1", "x-y", &"a".repeat(64)] {
            assert!(is_valid_agent_name(ok), "{ok}");
        }
        for bad in [
            "",
            "..",
            "../x",
            "%2e%2e",
            "a/b",
            "a\\b",
            "/etc",
            "a\0b",
            "a b",
            "é",
            &"a".repeat(65),
        ] {
            assert!(!is_valid_agent_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn memory_dirs_split_back_into_root_and_components() {
        let root = Path::new("/r");
        let parts = |owner: &Owner| {
            let path = memory_path(root, owner);
            let (r, below) = memory_dir_parts(path.parent().unwrap()).unwrap();
            (
                r.to_path_buf(),
                below
                    .iter()
                    .map(|c| c.to_string_lossy().into_owned())
                    .collect::<Vec<_>>(),
            )
        };
        assert_eq!(parts(&Owner::Global), (root.into(), vec!["memory".into()]));
        assert_eq!(
            parts(&Owner::Agent("a".into())),
            (root.into(), vec!["agents".into(), "a".into()])
        );
        // The documented ambiguity: the walk starts at agents/, never above the root.
        assert_eq!(
            parts(&Owner::Agent("memory".into())),
            (root.join("agents"), vec!["memory".into()])
        );
        assert!(memory_dir_parts(Path::new("/r/elsewhere")).is_none());
    }

    #[test]
    fn strict_and_lenient_resolution() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("agents/ok")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), root.path().join("agents/evil")).unwrap();
        #[cfg(unix)]
        {
            std::fs::create_dir_all(root.path().join("agents/linked")).unwrap();
            std::fs::write(outside.path().join("MEMORY.md"), "").unwrap();
            std::os::unix::fs::symlink(
                outside.path().join("MEMORY.md"),
                root.path().join("agents/linked/MEMORY.md"),
            )
            .unwrap();
        }

        assert_eq!(
            resolve_strict(root.path(), Some("ok")).unwrap(),
            Owner::Agent("ok".into())
        );
        assert_eq!(resolve_strict(root.path(), None).unwrap(), Owner::Global);
        assert!(matches!(
            resolve_strict(root.path(), Some("../x")),
            Err(CoreError::InvalidAgentName(_))
        ));
        assert!(matches!(
            resolve_strict(root.path(), Some("missing")),
            Err(CoreError::AgentNotFound { .. })
        ));
        #[cfg(unix)]
        assert!(matches!(
            resolve_strict(root.path(), Some("evil")),
            Err(CoreError::OutsideRoot(_))
        ));

        assert_eq!(resolve_lenient(root.path(), Some("../x")), Owner::Global);
        #[cfg(unix)]
        assert!(matches!(
            resolve_strict(root.path(), Some("linked")),
            Err(CoreError::OutsideRoot(_))
        ));
        #[cfg(unix)]
        assert_eq!(resolve_lenient(root.path(), Some("evil")), Owner::Global);
        #[cfg(unix)]
        assert_eq!(resolve_lenient(root.path(), Some("linked")), Owner::Global);
        assert_eq!(
            resolve_lenient(root.path(), Some("new_agent")),
            Owner::Agent("new_agent".into())
        );
    }
}
