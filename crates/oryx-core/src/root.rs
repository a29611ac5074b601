//! What a .oryxos root is: the entries that mark a folder as one, its database's file name,
//! and the check a read makes that the root is there.

use std::path::Path;

use crate::error::{CoreError, Result};

/// The runtime's database in the root.
pub const DB_FILE: &str = "oryxos.db";

/// Entries only a .oryxos root holds; one of them, or emptiness, makes a folder a root.
pub const ROOT_MARKERS: &[&str] = &[
    "agents",
    "memory",
    "skills",
    "archive",
    "USER.md",
    "AGENTS.md",
    "SOUL.md",
    DB_FILE,
];

/// For reads: the root must exist and be a directory (a vanished root is an error, not an empty
/// console).
pub fn require_root(root: &Path) -> Result<()> {
    match std::fs::metadata(root) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(not_a_folder(root)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(CoreError::RootMissing(root.to_path_buf()))
        }
        Err(e) => Err(CoreError::io(root, e)),
    }
}

pub(crate) fn not_a_folder(root: &Path) -> CoreError {
    CoreError::NotARoot {
        path: root.to_path_buf(),
        why: "it is not a folder".into(),
    }
}
