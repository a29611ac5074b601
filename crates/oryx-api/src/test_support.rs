//! What the unit tests of several modules share.

use crate::Console;

/// A console on a fresh demo root, with its own settings file (kept with the temp dir).
pub(crate) fn demo_console() -> (tempfile::TempDir, Console) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    oryx_core::demo::write_sample(&root).unwrap();
    let c = Console::open(
        Some(dir.path().join("settings.json")),
        oryx_core::config::Overrides {
            root: Some(root),
            ..Default::default()
        },
    )
    .unwrap();
    (dir, c)
}
