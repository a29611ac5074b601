//! The `oryx` binary against hostile roots: FIFOs in
//! place of the root's files, and missing or mistyped roots. Each child gets a deadline and is
//! killed after it, so a regression fails the test instead of hanging the suite.
#![cfg(unix)]

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(30);

fn oryx(config: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_oryx"))
        .args(args)
        .env("ORYXOS_CONFIG_DIR", config)
        .env_remove("ORYXOS_ROOT")
        .env_remove("ORYXOS_DB")
        .env_remove("MEM0_BASE_URL")
        .env_remove("MEM0_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > DEADLINE {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("oryx {args:?} did not finish within {DEADLINE:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

#[test]
fn fifos_in_the_root_are_reported_and_no_command_hangs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    fs::create_dir_all(root.join("agents/piped")).unwrap();
    fs::create_dir_all(root.join("agents/ok")).unwrap();
    fs::write(
        root.join("agents/ok/AGENT.md"),
        "---\nname: ok\nbootstrap: [USER.md]\n---\nbody\n",
    )
    .unwrap();
    mkfifo(&root.join("agents/piped/AGENT.md"));
    mkfifo(&root.join("agents/piped/MEMORY.md"));
    mkfifo(&root.join("USER.md"));
    mkfifo(&root.join("oryxos.db"));
    let config = dir.path().join("config");
    let r = root.to_str().unwrap();
    let run = |args: &[&str]| {
        let mut all = vec!["--root", r];
        all.extend_from_slice(args);
        oryx(&config, &all)
    };

    // Listings and details: the item carries the problem, the command succeeds.
    for args in [
        &["agents"][..],
        &["agent", "piped"],
        &["prompt", "--agent", "ok"],
    ] {
        let out = run(args);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        assert!(text(&out).contains("FIFO"), "{args:?}: {}", text(&out));
    }
    // Reads and writes of the FIFO itself fail with an error naming it.
    for args in [
        &["memory", "show", "--agent", "piped"][..],
        &[
            "memory", "add", "--agent", "piped", "--scope", "archival", "x",
        ],
        &["prompt", "--agent", "piped"],
        &["sessions"],
    ] {
        let out = run(args);
        assert!(!out.status.success(), "{args:?}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("FIFO") && err.contains("not a regular file"),
            "{args:?}: {err}"
        );
    }
    // The lock is free: a healthy agent's memory still takes an entry.
    let out = run(&[
        "memory", "add", "--agent", "ok", "--scope", "archival", "fine",
    ]);
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn a_missing_root_is_an_error_and_is_created_only_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("nonexistent/deep");
    let config = dir.path().join("config");
    let r = root.to_str().unwrap();
    for args in [
        &["--root", r, "memory", "add", "--scope", "archival", "x"][..],
        &["--root", r, "agents"],
        &["--root", r, "memory", "show"],
    ] {
        let out = oryx(&config, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("does not exist") && err.contains("nonexistent/deep"),
            "{args:?}: {err}"
        );
    }
    assert!(!dir.path().join("nonexistent").exists(), "nothing created");

    let out = oryx(
        &config,
        &[
            "--root",
            r,
            "--create-root",
            "memory",
            "add",
            "--scope",
            "archival",
            "x",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(root.join("agents").is_dir() && root.join("memory/MEMORY.md").is_file());
}

/// What `--root /` does, on a stand-in for `/` (a full folder without a root's entries).
#[test]
fn a_folder_that_is_not_a_root_takes_no_write_without_create_root() {
    let dir = tempfile::tempdir().unwrap();
    let slash = dir.path().join("slash");
    for d in ["etc", "usr", "home"] {
        fs::create_dir_all(slash.join(d)).unwrap();
    }
    let config = dir.path().join("config");
    let r = slash.to_str().unwrap();
    let out = oryx(
        &config,
        &["--root", r, "memory", "add", "--scope", "core", "x"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not a .oryxos root"),
        "{}",
        text(&out)
    );
    assert!(!slash.join("memory").exists());
}
