//! Commits of the git repository a root is kept in (the runtime's docs recommend tracking
//! MEMORY.md) whose files still hold a forgotten text. The console never rewrites git history:
//! these are listed, with what the person could do, and left.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::{Left, Needles, Place, Why};
use crate::error::Result;
use crate::portable::git::{git_error, InRepo};

/// Most commit ids named per file (the count says how many there are).
const NAMED_COMMITS: usize = 5;

/// One file of the root that commits still hold a needle in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InCommits {
    /// The file, as the working tree has it.
    pub path: PathBuf,
    /// Short ids, newest first.
    pub commits: Vec<String>,
}

/// Each file under `root` that a commit of HEAD's history holds a needle in, with the commits.
/// Empty when the root is in no repository or has no commit.
pub fn files_in_commits(root: &Path, needles: &Needles) -> Result<Vec<InCommits>> {
    if needles.is_empty() {
        return Ok(Vec::new());
    }
    let Ok(root) = root.canonicalize() else {
        return Ok(Vec::new());
    };
    let Some(in_repo) = InRepo::find(&root, &root) else {
        return Ok(Vec::new());
    };
    let (repo, rel) = (&in_repo.repo, &in_repo.rel);
    let finders: Vec<memchr::memmem::Finder<'_>> = needles
        .texts()
        .iter()
        .map(|t| memchr::memmem::Finder::new(t.as_bytes()))
        .collect();
    // A blob is read once however many commits hold it.
    let mut holds: HashMap<gix::ObjectId, bool> = HashMap::new();
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for info in in_repo.newest_first()? {
        let info = info.map_err(|e| git_error("walking the history", e))?;
        let commit = info
            .object()
            .map_err(|e| git_error("reading a commit", e))?;
        let tree = commit
            .tree()
            .map_err(|e| git_error("reading a commit's tree", e))?;
        // Only the root's folder: the rest of the repository is not the console's.
        let tree = if rel.as_os_str().is_empty() {
            tree
        } else {
            let entry = tree
                .lookup_entry_by_path(rel)
                .map_err(|e| git_error("looking up the root", e))?;
            let Some(entry) = entry else { continue };
            let Ok(sub) = entry
                .object()
                .map_err(|e| git_error("reading the root's tree", e))?
                .try_into_tree()
            else {
                continue;
            };
            sub
        };
        let mut files = gix::traverse::tree::Recorder::default();
        tree.traverse()
            .breadthfirst(&mut files)
            .map_err(|e| git_error("reading a tree", e))?;
        let short = info.id.to_hex_with_len(9).to_string();
        for f in files.records {
            if !f.mode.is_blob() {
                continue;
            }
            let hit = match holds.get(&f.oid) {
                Some(h) => *h,
                None => {
                    let blob = repo
                        .find_object(f.oid)
                        .map_err(|e| git_error("reading a file", e))?;
                    let h = finders.iter().any(|n| n.find(&blob.data).is_some());
                    holds.insert(f.oid, h);
                    h
                }
            };
            if hit {
                found
                    .entry(f.filepath.to_string())
                    .or_default()
                    .push(short.clone());
            }
        }
    }
    Ok(found
        .into_iter()
        .map(|(file, commits)| InCommits {
            path: root.join(file),
            commits,
        })
        .collect())
}

/// The files [`files_in_commits`] finds, as what a forget leaves, with what the person could do.
pub fn left_in_git(root: &Path, needles: &Needles) -> Result<Vec<Left>> {
    Ok(files_in_commits(root, needles)?
        .into_iter()
        .map(|f| {
            let named: Vec<&str> = f
                .commits
                .iter()
                .take(NAMED_COMMITS)
                .map(String::as_str)
                .collect();
            let more = f.commits.len().saturating_sub(NAMED_COMMITS);
            let list = if more > 0 {
                format!("{} and {more} more", named.join(", "))
            } else {
                named.join(", ")
            };
            Left {
                place: Place::Git,
                path: f.path,
                count: f.commits.len(),
                reason: format!(
                    "committed in {list}; the console never rewrites git history — rewrite it \
                     with `git filter-repo --replace-text`, force-push, and have every clone \
                     replaced"
                ),
                why: Why::Git,
                arg: Some(named.join(", ")),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@e",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(dir)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    #[test]
    fn commits_that_hold_the_text_are_listed_by_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join(".oryxos");
        std::fs::create_dir_all(root.join("agents/a")).unwrap();
        std::fs::write(
            dir.path().join("outside.txt"),
            "sk-secret-123 outside the root",
        )
        .unwrap();
        let memory = root.join("agents/a/MEMORY.md");
        std::fs::write(
            &memory,
            "# 长期记忆\n- [2026-01-01 00:00:00] key sk-secret-123\n",
        )
        .unwrap();
        git(dir.path(), &["init", "-q"]);
        git(dir.path(), &["add", "."]);
        git(dir.path(), &["commit", "-qm", "one"]);
        std::fs::write(&memory, "# 长期记忆\n- [2026-01-01 00:00:00] key gone\n").unwrap();
        git(dir.path(), &["commit", "-qam", "two"]);
        let needles = Needles::new(["sk-secret-123".to_string()]);
        let found = files_in_commits(&root, &needles).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].path,
            root.canonicalize().unwrap().join("agents/a/MEMORY.md")
        );
        assert_eq!(found[0].commits.len(), 1);
        let left = left_in_git(&root, &needles).unwrap();
        assert_eq!(left[0].place, Place::Git);
        assert!(left[0].reason.contains(&found[0].commits[0]));
        assert!(
            files_in_commits(&root, &Needles::new(["nowhere".to_string()]))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_root_in_no_repository_has_no_commits() {
        let dir = tempfile::tempdir().unwrap();
        let needles = Needles::new(["x-secret".to_string()]);
        assert!(files_in_commits(dir.path(), &needles).unwrap().is_empty());
    }
}
