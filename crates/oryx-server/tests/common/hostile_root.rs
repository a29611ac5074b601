//! A root next to an "outside" folder that must never be reached, with agents/evil linked to
//! it; the path-traversal payloads; and a snapshot of the whole folder, to show that refused
//! requests changed nothing. Shared by oryx-server's and oryx-cli's tests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Written in the outside folder's files: an answer that carries it has reached outside.
pub const SECRET: &str = "SECRET-OUTSIDE-THE-ROOT";

pub struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        let env = Env {
            dir: tempfile::tempdir().unwrap(),
        };
        // What `oryx demo ROOT` writes.
        oryx_api::settings::create_sample_root(env.root().to_str().unwrap()).unwrap();
        let outside = env.outside();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(
            outside.join("MEMORY.md"),
            format!("## 核心记忆\n- [2026-01-01 00:00:00] {SECRET}\n\n## 归档记忆\n"),
        )
        .unwrap();
        std::fs::write(
            outside.join("AGENT.md"),
            format!("---\nname: x\n---\n{SECRET}\n"),
        )
        .unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&outside, env.root().join("agents/evil")).unwrap();
        env
    }

    pub fn base(&self) -> &Path {
        self.dir.path()
    }

    pub fn root(&self) -> PathBuf {
        self.base().join("root")
    }

    pub fn outside(&self) -> PathBuf {
        self.base().join("outside")
    }

    /// Settings the CLI and the server read (camelCase, as stored).
    pub fn settings(&self, v: Value) {
        let dir = self.base().join("config");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("settings.json"), v.to_string()).unwrap();
    }

    /// Every path under the temp dir (links not followed), with file contents. The server's
    /// and CLI's own config dir and SQLite's journal files are left out.
    pub fn snapshot(&self) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
        let mut out = BTreeMap::new();
        walk(self.base(), self.base(), &mut out);
        out
    }
}

/// agents/linked: an agent of its own whose MEMORY.md is a link to the outside MEMORY.md.
pub fn link_agent_memory_outside(env: &Env) {
    let linked = env.root().join("agents/linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::fs::write(linked.join("AGENT.md"), "---\nname: linked\n---\nhello\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(env.outside().join("MEMORY.md"), linked.join("MEMORY.md")).unwrap();
}

pub fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Option<Vec<u8>>>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let rel = p.strip_prefix(base).unwrap().to_path_buf();
        let name = e.file_name().to_string_lossy().into_owned();
        if rel.starts_with("config")
            || name.ends_with("-wal")
            || name.ends_with("-shm")
            || name.ends_with("-journal")
        {
            continue;
        }
        let ft = e.file_type().unwrap();
        if ft.is_dir() {
            out.insert(rel, None);
            walk(base, &p, out);
        } else if ft.is_symlink() {
            out.insert(
                rel,
                Some(
                    std::fs::read_link(&p)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                ),
            );
        } else {
            out.insert(rel, Some(std::fs::read(&p).unwrap()));
        }
    }
}

pub fn assert_unchanged(
    before: &BTreeMap<PathBuf, Option<Vec<u8>>>,
    after: &BTreeMap<PathBuf, Option<Vec<u8>>>,
    what: &str,
) {
    let added: Vec<_> = after.keys().filter(|k| !before.contains_key(*k)).collect();
    let removed: Vec<_> = before.keys().filter(|k| !after.contains_key(*k)).collect();
    let changed: Vec<_> = before
        .iter()
        .filter(|(k, v)| after.get(*k).is_some_and(|a| a != *v))
        .map(|(k, _)| k)
        .collect();
    assert!(
        added.is_empty() && removed.is_empty() && changed.is_empty(),
        "{what}: added {added:?}, removed {removed:?}, changed {changed:?}"
    );
}

/// Names every strict path (console, CLI, REST) must refuse as `invalid_agent_name`
/// (tests/fixtures/traversal.json).
pub fn name_payloads(env: &Env) -> Vec<String> {
    super::traversal::names(&env.outside())
}

/// Percent-encodes every byte outside the unreserved set.
pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
