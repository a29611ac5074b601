//! Faults and hostile files (issue items 2, 3, 5): links swapped in while writes run, FIFOs in
//! place of the root's files, and roots that are missing or are not roots. Every operation runs
//! under a deadline so a regression fails instead of hanging the suite.
#![cfg(unix)]

use std::fs;
use std::path::{Path, PathBuf};

use oryx_core::memory::{LongTermMemoryStore, MarkdownMemoryStore, Scope};
use oryx_core::names::Owner;
use oryx_core::rooted_fs::test_support::{mkfifo, within_deadline};
use oryx_core::sessions::SessionStore;
use oryx_core::{agents, names, CoreError};

const MEMORY: &str =
    "## 核心记忆\n- [2026-01-01 00:00:00] core fact\n## 归档记忆\n- [2026-01-02 00:00:00] old\n";
const OUTSIDE: &str = "## 归档记忆\n- [2026-01-01 00:00:00] outside, must stay as it is\n";

struct Fixture {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    root: PathBuf,
    outside: PathBuf,
}

fn fixture() -> Fixture {
    let root_dir = tempfile::tempdir().unwrap();
    let outside_dir = tempfile::tempdir().unwrap();
    let root = root_dir.path().to_path_buf();
    fs::create_dir_all(root.join("agents/a")).unwrap();
    fs::write(root.join("agents/a/AGENT.md"), "---\nname: a\n---\nbody\n").unwrap();
    fs::write(root.join("agents/a/MEMORY.md"), MEMORY).unwrap();
    fs::create_dir_all(root.join("memory")).unwrap();
    fs::write(root.join("memory/MEMORY.md"), MEMORY).unwrap();
    let outside = outside_dir.path().to_path_buf();
    fs::write(outside.join("MEMORY.md"), OUTSIDE).unwrap();
    Fixture {
        _dirs: (root_dir, outside_dir),
        root,
        outside,
    }
}

/// Everything in `dir`, names and contents, to compare before and after.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let bytes = fs::read(e.path()).unwrap_or_default();
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect();
    all.sort();
    all
}

/// Exchanges two names atomically (both always exist), `rounds` times or until `stop`.
#[cfg(target_os = "linux")]
fn swapper(
    dir: PathBuf,
    a: &'static str,
    b: &'static str,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<u64> {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    std::thread::spawn(move || {
        let (pa, pb) = (dir.join(a), dir.join(b));
        let mut swaps = 0u64;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            renameat_with(CWD, &pa, CWD, &pb, RenameFlags::EXCHANGE).unwrap();
            swaps += 1;
        }
        // Leave the regular file or directory at `a`.
        if fs::symlink_metadata(&pa).unwrap().file_type().is_symlink() {
            renameat_with(CWD, &pa, CWD, &pb, RenameFlags::EXCHANGE).unwrap();
        }
        swaps
    })
}

const APPENDS: usize = 300;

/// Issue item 2: MEMORY.md swapped between the file and a link to a file outside the root while
/// appends run. Nothing lands outside; every append that reports success is in the real file.
#[cfg(target_os = "linux")]
#[test]
fn a_link_swapped_in_for_memory_md_never_sends_an_append_outside() {
    let f = fixture();
    let dir = f.root.join("agents/a");
    std::os::unix::fs::symlink(f.outside.join("MEMORY.md"), dir.join(".swap")).unwrap();
    let before = snapshot(&f.outside);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swaps = swapper(dir.clone(), "MEMORY.md", ".swap", stop.clone());
    let store = MarkdownMemoryStore::new(&f.root);
    let owner = Owner::Agent("a".into());
    let results = within_deadline(move || {
        (0..APPENDS)
            .map(|i| {
                store
                    .append(&owner, Scope::Archival, &format!("entry {i}"), None)
                    .map(|e| e.content)
            })
            .collect::<Vec<_>>()
    });
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let swaps = swaps.join().unwrap();
    assert_eq!(
        snapshot(&f.outside),
        before,
        "an append landed outside the root"
    );
    let inside = fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    let mut refused = 0;
    for r in &results {
        match r {
            Ok(content) => assert!(inside.contains(&format!("] {content}\n")), "{content} lost"),
            Err(e) => {
                refused += 1;
                assert!(
                    matches!(e, CoreError::NotRegularFile { kind, .. } if kind.contains("link"))
                        || matches!(e, CoreError::Conflict(_)),
                    "{e}"
                );
            }
        }
    }
    eprintln!("{swaps} swaps, {APPENDS} appends, {refused} refused");
}

/// The same with the agent's directory swapped for a link to a directory outside the root:
/// neither the memory file, nor its lock, nor a temp file is written there.
#[cfg(target_os = "linux")]
#[test]
fn a_link_swapped_in_for_the_agent_directory_never_sends_a_write_outside() {
    let f = fixture();
    let agents = f.root.join("agents");
    std::os::unix::fs::symlink(&f.outside, agents.join(".swap")).unwrap();
    let before = snapshot(&f.outside);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swaps = swapper(agents.clone(), "a", ".swap", stop.clone());
    let store = MarkdownMemoryStore::new(&f.root);
    let owner = Owner::Agent("a".into());
    let results = within_deadline(move || {
        (0..APPENDS)
            .map(|i| {
                let scope = if i % 5 == 0 {
                    Scope::Core // a rewrite: temp file and rename
                } else {
                    Scope::Archival
                };
                store.append(&owner, scope, &format!("entry {i}"), None)
            })
            .collect::<Vec<_>>()
    });
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swaps.join().unwrap();
    assert_eq!(
        snapshot(&f.outside),
        before,
        "a write landed outside the root"
    );
    let inside = fs::read_to_string(agents.join("a/MEMORY.md")).unwrap();
    for (i, r) in results.iter().enumerate() {
        if r.is_ok() {
            assert!(inside.contains(&format!("] entry {i}\n")), "entry {i} lost");
        }
    }
}

/// A MEMORY.md that is a link (even to a file inside the root) is refused, never followed.
#[test]
fn a_linked_memory_md_is_refused_for_reads_and_writes() {
    let f = fixture();
    let path = f.root.join("agents/a/MEMORY.md");
    fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(f.outside.join("MEMORY.md"), &path).unwrap();
    let store = MarkdownMemoryStore::new(&f.root);
    let owner = Owner::Agent("a".into());
    let is_link = |e: CoreError| matches!(e, CoreError::NotRegularFile { kind, .. } if kind == "symbolic link");
    assert!(is_link(store.load_all(&owner).unwrap_err()));
    assert!(is_link(store.count(&owner).unwrap_err()));
    assert!(is_link(store.load_context(&owner, 1000).unwrap_err()));
    assert!(is_link(
        store
            .append(&owner, Scope::Archival, "x", None)
            .unwrap_err()
    ));
    assert_eq!(
        fs::read_to_string(f.outside.join("MEMORY.md")).unwrap(),
        OUTSIDE
    );
}

/// Issue item 3: FIFOs in place of MEMORY.md (agent and global), its lock, AGENT.md, USER.md
/// and oryxos.db: each operation returns an error (or a warning on the item) in time.
#[test]
fn fifos_are_errors_or_warnings_never_hangs() {
    let f = fixture();
    for rel in ["agents/a/MEMORY.md", "memory/MEMORY.md"] {
        let path = f.root.join(rel);
        fs::remove_file(&path).unwrap();
        mkfifo(&path);
    }
    let owner_of = |rel: &str| {
        if rel.starts_with("agents") {
            Owner::Agent("a".into())
        } else {
            Owner::Global
        }
    };
    for rel in ["agents/a/MEMORY.md", "memory/MEMORY.md"] {
        let owner = owner_of(rel);
        let root = f.root.clone();
        let errors = within_deadline(move || {
            let s = MarkdownMemoryStore::new(&root);
            vec![
                s.load_all(&owner).map(|_| ()),
                s.count(&owner).map(|_| ()),
                s.recall(&owner, "x").map(|_| ()),
                s.load_context(&owner, 1000).map(|_| ()),
                s.append(&owner, Scope::Archival, "x", None).map(|_| ()),
                s.append(&owner, Scope::Core, "x", None).map(|_| ()),
            ]
        });
        for e in errors {
            let e = e.unwrap_err();
            assert!(
                matches!(&e, CoreError::NotRegularFile { kind, path } if kind.contains("FIFO") && path.ends_with("MEMORY.md")),
                "{rel}: {e}"
            );
        }
    }

    // The lock file of a healthy MEMORY.md.
    let g = fixture();
    mkfifo(&g.root.join("agents/a/MEMORY.md.lock"));
    let root = g.root.clone();
    let e = within_deadline(move || {
        MarkdownMemoryStore::new(&root).append(
            &Owner::Agent("a".into()),
            Scope::Archival,
            "x",
            None,
        )
    })
    .unwrap_err();
    assert!(matches!(e, CoreError::NotRegularFile { .. }), "{e}");

    // AGENT.md: the listing and the detail carry a warning on that agent.
    let agent_md = g.root.join("agents/a/AGENT.md");
    fs::remove_file(&agent_md).unwrap();
    mkfifo(&agent_md);
    fs::create_dir_all(g.root.join("agents/b")).unwrap();
    let root = g.root.clone();
    let (list, one) = within_deadline(move || (agents::list(&root), agents::get(&root, "a")));
    let list = list.unwrap();
    assert_eq!(list.len(), 2, "the other agent still lists");
    for a in [&list[0], &one.unwrap()] {
        assert!(
            a.warnings
                .iter()
                .any(|w| w.contains("AGENT.md cannot be read") && w.contains("FIFO")),
            "{:?}",
            a.warnings
        );
    }

    // USER.md.
    mkfifo(&g.root.join("USER.md"));
    let root = g.root.clone();
    let e = within_deadline(move || agents::read_bootstrap(&root, "USER.md")).unwrap_err();
    assert!(matches!(e, CoreError::NotRegularFile { .. }), "{e}");

    // oryxos.db, for every session read.
    let db = g.root.join("oryxos.db");
    mkfifo(&db);
    let results = within_deadline(move || {
        let s = SessionStore::new(&db);
        vec![
            s.list(&Default::default()).map(|_| ()),
            s.get("x").map(|_| ()),
            s.last_active_by_agent().map(|_| ()),
        ]
    });
    for r in results {
        let e = r.unwrap_err();
        assert!(matches!(e, CoreError::NotRegularFile { .. }), "{e}");
    }
}

/// Issue item 5: a missing root is an error naming it, for reads and writes, and nothing is
/// created; a folder that is not a root (like `/`) is refused for writes.
#[test]
fn a_missing_root_is_an_error_and_is_never_created() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("nonexistent/deep");
    let store = MarkdownMemoryStore::new(&root);
    for owner in [Owner::Global, Owner::Agent("a".into())] {
        for e in [
            store.append(&owner, Scope::Archival, "x", None).map(|_| ()),
            store.load_all(&owner).map(|_| ()),
            store.count(&owner).map(|_| ()),
        ] {
            let e = e.unwrap_err();
            assert!(matches!(&e, CoreError::RootMissing(p) if p == &root), "{e}");
            assert!(e.to_string().contains("nonexistent/deep"), "{e}");
        }
    }
    assert!(matches!(
        agents::list(&root),
        Err(CoreError::RootMissing(_))
    ));
    assert!(matches!(
        names::resolve_strict(&root, Some("a")),
        Err(CoreError::RootMissing(_))
    ));
    assert!(
        !dir.path().join("nonexistent").exists(),
        "nothing was created"
    );

    // A root created on purpose takes writes.
    oryx_core::rooted_fs::create_root(&root).unwrap();
    store
        .append(&Owner::Global, Scope::Archival, "now", None)
        .unwrap();
    assert!(root.join("memory/MEMORY.md").is_file());
}

#[test]
fn a_folder_that_is_not_a_root_is_refused_for_writes_until_created_on_purpose() {
    let dir = tempfile::tempdir().unwrap();
    // Like `/` or a home directory: not empty, none of a root's entries.
    fs::create_dir_all(dir.path().join("etc")).unwrap();
    fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    let store = MarkdownMemoryStore::new(dir.path());
    let e = store
        .append(&Owner::Global, Scope::Archival, "x", None)
        .unwrap_err();
    assert!(matches!(e, CoreError::NotARoot { .. }), "{e}");
    assert!(e.to_string().contains("--create-root"), "{e}");
    assert!(!dir.path().join("memory").exists());
    assert!(oryx_core::rooted_fs::root_problem(dir.path()).is_some());
    // Reads of such a folder are harmless and stay empty.
    assert!(store.load_all(&Owner::Global).unwrap().core.is_empty());

    oryx_core::rooted_fs::create_root(dir.path()).unwrap();
    assert_eq!(oryx_core::rooted_fs::root_problem(dir.path()), None);
    store
        .append(&Owner::Global, Scope::Archival, "x", None)
        .unwrap();

    // An empty folder is a new root (what `mkdir` then a first write does).
    let empty = tempfile::tempdir().unwrap();
    MarkdownMemoryStore::new(empty.path())
        .append(&Owner::Global, Scope::Archival, "first", None)
        .unwrap();
}
