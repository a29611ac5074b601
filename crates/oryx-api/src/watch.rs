//! Live refresh: watches the root and the database and reports which views changed, debounced,
//! so hosts can tell the UI (a Tauri event, a server-sent event) within a second.

use std::path::{Path, PathBuf};
use std::time::Duration;

use notify_debouncer_mini::notify::RecursiveMode;
use notify_debouncer_mini::{new_debouncer, DebounceEventResult, Debouncer};
use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult, ErrorCode};

#[cfg(feature = "specta")]
use specta::Type;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// A MEMORY.md (agent = its agent, `None` = global or several).
    Memory,
    /// An AGENT.md, a skill or a bootstrap file.
    Agents,
    /// The database (sessions, tool invocations, sqlite memory).
    Sessions,
    Settings,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ChangeEvent {
    pub kind: ChangeKind,
    pub agent: Option<String>,
}

pub const DEBOUNCE: Duration = Duration::from_millis(250);

/// Keeps watching for as long as it lives.
pub struct Watcher {
    _debouncer: Debouncer<notify_debouncer_mini::notify::RecommendedWatcher>,
}

/// Maps one changed path to the view it affects; `None` for files nobody shows (locks, temp files).
pub fn classify(root: &Path, db: &Path, path: &Path) -> Option<ChangeEvent> {
    let name = path.file_name()?.to_string_lossy();
    if name.ends_with(".lock") || name.ends_with(".tmp") {
        return None;
    }
    let db_name = db.file_name()?.to_string_lossy();
    if path.parent() == db.parent() && name.starts_with(db_name.as_ref()) {
        return Some(ChangeEvent {
            kind: ChangeKind::Sessions,
            agent: None,
        });
    }
    let rel = path.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["agents", agent, "MEMORY.md"] => Some(ChangeEvent {
            kind: ChangeKind::Memory,
            agent: Some(agent.to_string()),
        }),
        ["memory", "MEMORY.md"] => Some(ChangeEvent {
            kind: ChangeKind::Memory,
            agent: None,
        }),
        ["agents", ..] | ["skills", ..] => Some(ChangeEvent {
            kind: ChangeKind::Agents,
            agent: parts.get(1).filter(|_| parts[0] == "agents").cloned(),
        }),
        [file] if file.ends_with(".md") => Some(ChangeEvent {
            kind: ChangeKind::Agents,
            agent: None,
        }),
        _ => None,
    }
}

/// Starts watching `root` (recursively) and the database's folder. Missing folders are skipped:
/// a root without a database still refreshes its memory views.
pub fn watch(
    root: &Path,
    db: &Path,
    on_change: impl Fn(Vec<ChangeEvent>) + Send + 'static,
) -> ApiResult<Watcher> {
    let (root_c, db_c) = (root.to_path_buf(), db.to_path_buf());
    let mut debouncer = new_debouncer(DEBOUNCE, move |res: DebounceEventResult| {
        let Ok(events) = res else { return };
        let mut changes: Vec<ChangeEvent> = Vec::new();
        for e in events {
            if let Some(c) = classify(&root_c, &db_c, &e.path) {
                if !changes.contains(&c) {
                    changes.push(c);
                }
            }
        }
        if !changes.is_empty() {
            on_change(changes);
        }
    })
    .map_err(watch_err)?;
    if root.is_dir() {
        debouncer
            .watcher()
            .watch(root, RecursiveMode::Recursive)
            .map_err(watch_err)?;
    }
    let db_dir: PathBuf = db.parent().map(Path::to_path_buf).unwrap_or_default();
    if db_dir.is_dir() && !db_dir.starts_with(root) {
        debouncer
            .watcher()
            .watch(&db_dir, RecursiveMode::NonRecursive)
            .map_err(watch_err)?;
    }
    Ok(Watcher {
        _debouncer: debouncer,
    })
}

impl crate::Console {
    /// Watches the root and database of the settings in effect now (hosts call it again after
    /// a settings change).
    pub fn watch_current(
        &self,
        on_change: impl Fn(Vec<ChangeEvent>) + Send + 'static,
    ) -> ApiResult<Watcher> {
        let rt = self.runtime();
        watch(&rt.effective.root, &rt.effective.db_path, on_change)
    }
}

fn watch_err(e: notify_debouncer_mini::notify::Error) -> ApiError {
    ApiError::new(ErrorCode::Io, format!("cannot watch for changes: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_paths() {
        let root = Path::new("/r");
        let db = Path::new("/d/oryxos.db");
        let c = |p: &str| classify(root, db, Path::new(p));
        assert_eq!(
            c("/r/agents/a/MEMORY.md"),
            Some(ChangeEvent {
                kind: ChangeKind::Memory,
                agent: Some("a".into())
            })
        );
        assert_eq!(
            c("/r/memory/MEMORY.md"),
            Some(ChangeEvent {
                kind: ChangeKind::Memory,
                agent: None
            })
        );
        assert_eq!(c("/r/agents/a/MEMORY.md.lock"), None);
        assert_eq!(c("/r/agents/a/.MEMORY.md.x1.tmp"), None);
        assert_eq!(
            c("/d/oryxos.db-wal").map(|e| e.kind),
            Some(ChangeKind::Sessions)
        );
        assert_eq!(
            c("/r/agents/a/AGENT.md").map(|e| e.kind),
            Some(ChangeKind::Agents)
        );
        assert_eq!(c("/r/USER.md").map(|e| e.kind), Some(ChangeKind::Agents));
        assert_eq!(c("/elsewhere/x"), None);
    }

    #[test]
    fn reports_a_memory_change_within_a_second() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join("agents/a")).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let _w = watch(&root, &root.join("oryxos.db"), move |c| {
            let _ = tx.send(c);
        })
        .unwrap();
        std::fs::write(root.join("agents/a/MEMORY.md"), "## 核心记忆\n").unwrap();
        let got = rx.recv_timeout(Duration::from_secs(3)).expect("an event");
        assert!(got.contains(&ChangeEvent {
            kind: ChangeKind::Memory,
            agent: Some("a".into())
        }));
    }
}
