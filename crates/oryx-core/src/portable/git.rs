//! A root kept in git (time travel): a file as it was last committed at or before a
//! moment. The console's history knows its own changes; only such a commit knows what was
//! changed by hand in between. Read-only; a root that is not in a repository has no git view.

use std::path::Path;

use chrono::NaiveDateTime;

use crate::error::{CoreError, Result};

/// A file as one commit holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    /// The commit's short id.
    pub commit: String,
    /// The commit's time, local.
    pub at: NaiveDateTime,
    pub bytes: Vec<u8>,
}

pub(crate) fn git_error(what: &str, e: impl std::fmt::Display) -> CoreError {
    CoreError::Corrupt(format!("the root's git repository: {what}: {e}"))
}

/// A path in the repository found from a folder: where it is in the working tree, and the
/// commit HEAD names.
pub(crate) struct InRepo {
    pub repo: gix::Repository,
    /// The path relative to the working tree (empty: the working tree itself).
    pub rel: std::path::PathBuf,
    head: gix::ObjectId,
}

impl InRepo {
    /// `path` (canonical) in the repository `from` is in. `None`: no repository, a bare one,
    /// `path` outside its working tree, or no commit yet.
    pub fn find(from: &Path, path: &Path) -> Option<InRepo> {
        let repo = gix::discover(from).ok()?;
        let workdir = repo.workdir()?.canonicalize().ok()?;
        let rel = path.strip_prefix(&workdir).ok()?.to_path_buf();
        let head = repo.head_id().ok()?.detach();
        Some(InRepo { repo, rel, head })
    }

    /// HEAD's history, newest commit first.
    pub fn newest_first(&self) -> Result<gix::revision::Walk<'_>> {
        self.repo
            .rev_walk([self.head])
            .sorting(gix::revision::walk::Sorting::ByCommitTime(
                gix::traverse::commit::simple::CommitTimeOrder::NewestFirst,
            ))
            .all()
            .map_err(|e| git_error("walking the history", e))
    }
}

/// `path` (inside `root`) as committed in the newest commit of HEAD's history made at or before
/// `at`. `None`: the root is in no repository, the repository has no commit that old, or that
/// commit does not hold the file.
pub fn file_at(root: &Path, path: &Path, at: NaiveDateTime) -> Result<Option<Committed>> {
    // A file removed since is still looked up where it was: its folder decides.
    let path = match path.canonicalize() {
        Ok(p) => p,
        Err(_) => match (path.parent().map(Path::canonicalize), path.file_name()) {
            (Some(Ok(dir)), Some(name)) => dir.join(name),
            _ => return Ok(None),
        },
    };
    let Some(in_repo) = InRepo::find(root, &path) else {
        return Ok(None);
    };
    let rel = &in_repo.rel;
    let limit = crate::timefmt::local_to_epoch_ms(&at) / 1000;
    for info in in_repo.newest_first()? {
        let info = info.map_err(|e| git_error("walking the history", e))?;
        let commit = info
            .object()
            .map_err(|e| git_error("reading a commit", e))?;
        let seconds = commit
            .time()
            .map_err(|e| git_error("reading a commit's time", e))?
            .seconds;
        if seconds > limit {
            continue;
        }
        let tree = commit
            .tree()
            .map_err(|e| git_error("reading a commit's tree", e))?;
        let entry = tree
            .lookup_entry_by_path(rel)
            .map_err(|e| git_error("looking up a path", e))?;
        let Some(entry) = entry else {
            return Ok(None);
        };
        let blob = entry
            .object()
            .map_err(|e| git_error("reading a file's blob", e))?;
        let at = crate::timefmt::epoch_ms_to_local(seconds * 1000)
            .ok_or_else(|| git_error("a commit's time", seconds))?;
        return Ok(Some(Committed {
            commit: info.id.to_hex_with_len(8).to_string(),
            at,
            bytes: blob.data.clone(),
        }));
    }
    Ok(None)
}

/// [`file_at`] when the file was written after `at` (a file unchanged since holds what it held
/// then, and needs no commit): what the last commit by then holds, else `None`. A file that no
/// longer exists counts as written after.
pub fn before_later_writes(
    root: &Path,
    path: &Path,
    at: NaiveDateTime,
) -> Result<Option<Committed>> {
    let written = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .map(|m| chrono::DateTime::<chrono::Local>::from(m).naive_local());
    if written.is_some_and(|w| w <= at) {
        return Ok(None);
    }
    file_at(root, path, at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str], date: &str) {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_DATE", date)
            .env("GIT_COMMITTER_DATE", date)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.org")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.org")
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    fn a_file_as_committed_at_or_before_a_moment() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let file = root.join("agents/a/MEMORY.md");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let t = |s: &str| crate::timefmt::parse_entry_ts(s).unwrap();
        let stamp = |s: &str| local_to_git(t(s));
        git(root, &["init", "-q"], &stamp("2026-01-01 00:00:00"));
        assert_eq!(
            file_at(root, &root.join("nothing"), t("2026-01-01 00:00:00")).unwrap(),
            None
        );
        std::fs::write(&file, "one\n").unwrap();
        git(root, &["add", "."], &stamp("2026-01-01 10:00:00"));
        git(
            root,
            &["commit", "-qm", "one"],
            &stamp("2026-01-01 10:00:00"),
        );
        std::fs::write(&file, "two\n").unwrap();
        git(
            root,
            &["commit", "-qam", "two"],
            &stamp("2026-01-03 10:00:00"),
        );
        std::fs::write(&file, "uncommitted\n").unwrap();

        assert_eq!(
            file_at(root, &file, t("2026-01-01 09:00:00")).unwrap(),
            None,
            "before any commit"
        );
        let one = file_at(root, &file, t("2026-01-02 00:00:00"))
            .unwrap()
            .unwrap();
        assert_eq!(
            (one.bytes.as_slice(), one.at),
            (&b"one\n"[..], t("2026-01-01 10:00:00"))
        );
        let two = file_at(root, &file, t("2026-02-01 00:00:00"))
            .unwrap()
            .unwrap();
        assert_eq!(two.bytes, b"two\n");
        assert_eq!(two.commit.len(), 8);
        // Not in a repository: no git view, no error.
        let other = tempfile::tempdir().unwrap();
        std::fs::write(other.path().join("f"), "x").unwrap();
        assert_eq!(
            file_at(
                other.path(),
                &other.path().join("f"),
                t("2030-01-01 00:00:00")
            )
            .unwrap(),
            None
        );
    }

    fn local_to_git(t: NaiveDateTime) -> String {
        format!("{} +0000", crate::timefmt::local_to_epoch_ms(&t) / 1000)
    }
}
