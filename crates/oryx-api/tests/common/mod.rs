//! Helpers shared by this crate's end-to-end tests.

use std::fs;
use std::path::{Path, PathBuf};

/// A root under `parent` with one agent, `a`, whose MEMORY.md is `memory`.
pub fn root_with_agent_a(parent: &Path, memory: &str) -> PathBuf {
    let root = parent.join("root");
    fs::create_dir_all(root.join("agents/a")).unwrap();
    fs::write(
        root.join("agents/a/AGENT.md"),
        "---\nname: a\nmodel: m\n---\nAn agent.\n",
    )
    .unwrap();
    fs::write(root.join("agents/a/MEMORY.md"), memory).unwrap();
    root
}

/// A console over `root`, its settings file in `dir` (defaults while it does not exist).
pub fn console(dir: &Path, root: &Path) -> oryx_api::Console {
    oryx_api::Console::open(
        Some(dir.join("settings.json")),
        oryx_core::config::Overrides {
            root: Some(root.to_path_buf()),
            ..oryx_core::config::Overrides::default()
        },
    )
    .unwrap()
}
