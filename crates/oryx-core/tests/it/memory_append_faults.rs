//! A failed MEMORY.md append leaves the file (and the console's write journal) exactly as it
//! was: no half entry that reads back as a real one, no double entry after a retry.
//!
//! A file-size limit (`RLIMIT_FSIZE`, SIGXFSZ ignored) makes `write()` store what fits and then
//! fail with EFBIG: the partial write a full disk produces, without root or a small tmpfs. The
//! limit is set in a child process (this test binary re-run with `limited_child`), so nothing
//! else in the test run is affected.

#![cfg(unix)]

use std::path::Path;
use std::process::Command;

use oryx_core::memory::{journal, LongTermMemoryStore, MarkdownMemoryStore, Scope};
use oryx_core::names::Owner;

use crate::common::child::{lift_file_size_limit, set_file_size_limit};

const ROOT: &str = "ORYX_FAULTS_ROOT";

fn snapshot(path: &Path) -> (Vec<u8>, Vec<u8>) {
    (
        std::fs::read(path).unwrap(),
        std::fs::read(journal::journal_path(path)).unwrap_or_default(),
    )
}

#[test]
#[ignore = "run by failed_appends_leave_the_file_as_it_was as a child process"]
fn limited_child() {
    let Ok(root) = std::env::var(ROOT) else {
        return;
    };
    let store = MarkdownMemoryStore::new(&root);
    let big = "长".repeat(3000); // 9 000 bytes of UTF-8

    // 1. The entry itself does not fit in MEMORY.md: the append stops part-way.
    let owner = Owner::Agent("big".into());
    // A long history the runtime wrote, then one console write (so the journal exists and is
    // far smaller than MEMORY.md: the limit cuts the MEMORY.md write, not the journal's).
    let path = store.path(&owner);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut text = String::from("## 核心记忆\n## 归档记忆\n");
    for i in 0..2000 {
        text.push_str(&format!("- [2026-01-01 00:00:00] history entry {i}\n"));
    }
    std::fs::write(&path, text).unwrap();
    store
        .append(&owner, Scope::Archival, "first", None)
        .unwrap();
    let before = snapshot(&path);
    set_file_size_limit(before.0.len() as u64 + 3000);
    let err = store
        .append(&owner, Scope::Archival, &big, None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("nothing was stored"), "{err}");
    assert!(err.contains("MEMORY.md"), "{err}");
    assert_eq!(
        snapshot(&path),
        before,
        "MEMORY.md and its journal as they were"
    );
    // A core entry is a rewrite: its temp file hits the limit, the file stays.
    assert!(store.append(&owner, Scope::Core, &big, None).is_err());
    assert_eq!(snapshot(&path), before);

    // 2. The journal record does not fit: nothing is written anywhere.
    let small = Owner::Agent("small".into());
    lift_file_size_limit();
    store
        .append(&small, Scope::Archival, "first", None)
        .unwrap();
    let spath = store.path(&small);
    let sbefore = snapshot(&spath);
    set_file_size_limit(sbefore.1.len() as u64 + 2000);
    let err = store
        .append(&small, Scope::Archival, &big, None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("nothing was stored"), "{err}");
    assert!(err.contains("oryx-journal"), "{err}");
    assert_eq!(snapshot(&spath), sbefore);

    // 3. With room again, the retry stores the entry once.
    lift_file_size_limit();
    store.append(&owner, Scope::Archival, &big, None).unwrap();
    let all = store.load_all(&owner).unwrap();
    assert_eq!(all.archival.iter().filter(|e| e.content == big).count(), 1);
    assert_eq!(all.archival.len(), 2002);
    assert!(all.archival.iter().all(|e| e.timestamp.is_some()));
    println!("LIMITED CHILD OK");
}

#[test]
fn failed_appends_leave_the_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &crate::common::child::test_name(module_path!(), "limited_child"),
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ROOT, dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("LIMITED CHILD OK"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
