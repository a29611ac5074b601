//! Writing an archive from a hostile or failing setting: links that lead out of the root, a
//! target that is not a regular file, a full disk and a process killed half-way; and the
//! console's history only when asked.
//!
//! A full disk is a file-size limit (`ulimit -f` in a child process, this test binary re-run
//! with `limited_export_child`): with SIGXFSZ ignored a write fails with EFBIG, as on a full
//! disk; with SIGXFSZ as it is, the process is killed mid-write, as by an OOM killer or a
//! `kill -9`.

#![cfg(unix)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;

use oryx_core::memory::history::history_path;
use oryx_core::memory::MarkdownMemoryStore;
use oryx_core::names::{self, Owner};
use oryx_core::portable::export::{export, ExportOptions, ExportReport, TEMP_PREFIX};
use oryx_core::portable::{staging, Manifest};
use oryx_core::CoreError;

const DIR: &str = "ORYX_EXPORT_FAULT_DIR";

fn root_with_agent(dir: &Path, memory_bytes: usize) -> PathBuf {
    let root = dir.join("root");
    let a = root.join("agents/a");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::write(a.join("AGENT.md"), "---\nname: a\n---\nBody.\n").unwrap();
    // Text that deflate cannot shrink much, so the archive is about as big as the memory.
    let mut text = String::from("## 核心记忆\n## 归档记忆\n");
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    while text.len() < memory_bytes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        text.push_str(&format!(
            "- [2026-01-01 00:00:00] note {x:016x}{:016x}\n",
            x >> 3
        ));
    }
    std::fs::write(a.join("MEMORY.md"), text).unwrap();
    root
}

fn options(include_history: bool) -> ExportOptions {
    ExportOptions {
        owners: vec![Owner::Agent("a".into())],
        sessions: false,
        include_history,
    }
}

fn run_export(root: &Path, o: &ExportOptions, out: &Path) -> oryx_core::Result<ExportReport> {
    let store = MarkdownMemoryStore::new(root);
    export(
        root,
        &store,
        None,
        o,
        out,
        &AtomicBool::new(false),
        &mut |_| {},
    )
}

fn members(archive: &Path) -> Vec<String> {
    let zip = zip::ZipArchive::new(std::fs::File::open(archive).unwrap()).unwrap();
    zip.file_names().map(|n| n.unwrap().into_owned()).collect()
}

fn manifest(archive: &Path) -> Manifest {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(archive).unwrap()).unwrap();
    let mut text = String::new();
    zip.by_name("manifest.json")
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn temps_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(TEMP_PREFIX))
        .collect()
}

fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[test]
fn a_skill_folder_linked_out_of_the_root_is_refused_not_packed() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_agent(dir.path(), 100);
    let outside = dir.path().join("home");
    std::fs::create_dir_all(outside.join("s")).unwrap();
    std::fs::write(outside.join("s/SKILL.md"), "---\nname: s\n---\n").unwrap();
    std::fs::write(outside.join("s/id_rsa"), "PRIVATE KEY").unwrap();
    std::fs::create_dir_all(root.join("agents/a/skills")).unwrap();
    symlink(
        Path::new("../../../skills/s"),
        &root.join("agents/a/skills/s"),
    );
    let out = dir.path().join("a.oryx.zip");

    // skills/<s> is a link out of the root.
    std::fs::create_dir_all(root.join("skills")).unwrap();
    symlink(&outside.join("s"), &root.join("skills/s"));
    let err = run_export(&root, &options(false), &out).unwrap_err();
    assert!(matches!(err, CoreError::OutsideRoot(_)), "{err}");
    assert!(!out.exists());

    // skills/ itself is a link out of the root.
    std::fs::remove_file(root.join("skills/s")).unwrap();
    std::fs::remove_dir(root.join("skills")).unwrap();
    symlink(&outside, &root.join("skills"));
    let err = run_export(&root, &options(false), &out).unwrap_err();
    assert!(matches!(err, CoreError::OutsideRoot(_)), "{err}");
    assert!(!out.exists());

    // A real skill folder is packed; a link inside it to a file outside is not followed.
    std::fs::remove_file(root.join("skills")).unwrap();
    std::fs::create_dir_all(root.join("skills/s")).unwrap();
    std::fs::write(root.join("skills/s/SKILL.md"), "---\nname: s\n---\n").unwrap();
    symlink(&outside.join("s/id_rsa"), &root.join("skills/s/id_rsa"));
    run_export(&root, &options(false), &out).unwrap();
    let names = members(&out);
    assert!(
        names.contains(&"files/skills/s/SKILL.md".to_string()),
        "{names:?}"
    );
    assert!(!names.iter().any(|n| n.contains("id_rsa")), "{names:?}");
}

#[test]
fn the_history_travels_only_when_asked_and_the_manifest_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_agent(dir.path(), 100);
    let mem = names::memory_path(&root, &Owner::Agent("a".into()));
    std::fs::write(
        history_path(&mem),
        "{\"deleted\": \"a secret I removed\"}\n",
    )
    .unwrap();
    let history_member = "files/agents/a/MEMORY.md.oryx-history".to_string();

    let out = dir.path().join("plain.oryx.zip");
    let r = run_export(&root, &options(false), &out).unwrap();
    assert!(!r.history);
    assert!(!members(&out).contains(&history_member));
    assert!(!manifest(&out).history);

    let out = dir.path().join("with-history.oryx.zip");
    let r = run_export(&root, &options(true), &out).unwrap();
    assert!(r.history);
    assert!(members(&out).contains(&history_member));
    assert!(manifest(&out).history);
}

#[test]
fn only_a_regular_file_is_replaced_by_the_archive() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_agent(dir.path(), 100);
    let fifo = dir.path().join("pipe");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    let target = dir.path().join("target.txt");
    std::fs::write(&target, "keep me").unwrap();
    let link = dir.path().join("link.zip");
    symlink(&target, &link);
    for out in [&fifo, &folder, &link] {
        let err = run_export(&root, &options(false), out).unwrap_err();
        assert!(
            matches!(err, CoreError::NotRegularFile { .. }),
            "{}: {err}",
            out.display()
        );
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    assert!(folder.is_dir());
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    assert!(temps_in(dir.path()).is_empty());
    // A regular file is replaced.
    run_export(&root, &options(false), &target).unwrap();
    assert_eq!(&std::fs::read(&target).unwrap()[..2], b"PK");
}

/// Runs `limited_export_child` under a file-size limit of 128 blocks (64-128 KiB).
fn export_under_size_limit(dir: &Path, ignore_sigxfsz: bool) -> std::process::Output {
    let trap = if ignore_sigxfsz { "trap '' XFSZ; " } else { "" };
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -f 128; {trap}exec \"$0\" \"$@\""))
        .arg(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &crate::common::child::test_name(module_path!(), "limited_export_child"),
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(DIR, dir)
        .output()
        .unwrap()
}

#[test]
#[ignore = "run by the full-disk tests as a child process"]
fn limited_export_child() {
    let Ok(dir) = std::env::var(DIR) else {
        return;
    };
    let dir = Path::new(&dir);
    let out = dir.join("out/a.oryx.zip");
    let err = run_export(&dir.join("root"), &options(false), &out).unwrap_err();
    assert!(matches!(err, CoreError::Io { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&out.display().to_string()),
        "{err}"
    );
    println!("LIMITED EXPORT OK: {err}");
}

#[test]
fn a_full_disk_is_an_io_error_that_leaves_nothing_and_prints_nothing() {
    let dir = tempfile::tempdir().unwrap();
    root_with_agent(dir.path(), 1 << 20);
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let out = export_under_size_limit(dir.path(), true);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("LIMITED EXPORT OK"),
        "{stdout}\n{stderr}"
    );
    assert!(!stderr.contains("ZipWriter"), "{stderr}");
    assert!(!stdout.contains("ZipWriter"), "{stdout}");
    let out_dir = dir.path().join("out");
    assert_eq!(std::fs::read_dir(&out_dir).unwrap().count(), 0);
}

#[test]
fn an_export_killed_half_way_leaves_a_temp_file_the_next_export_removes() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_agent(dir.path(), 1 << 20);
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = export_under_size_limit(dir.path(), false);
    assert_eq!(
        out.status.signal(),
        Some(25), // SIGXFSZ
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(temps_in(&out_dir).len(), 1, "the killed export's temp file");
    // A live export's temp file (locked by its writer) is left alone.
    let live = staging::locked_temp(&out_dir, TEMP_PREFIX).unwrap();
    let archive = out_dir.join("a.oryx.zip");
    run_export(&root, &options(false), &archive).unwrap();
    let left = temps_in(&out_dir);
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(live.path().ends_with(&left[0]));
    assert!(members(&archive).contains(&"manifest.json".to_string()));
}
