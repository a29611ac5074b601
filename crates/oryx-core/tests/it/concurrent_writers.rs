//! Several real processes writing one MEMORY.md (and one SQLite database) at once, and writers
//! killed with SIGKILL in the middle of core rewrites. Short versions run in `make test`;
//! `ORYX_RELIABILITY_SCALE` (as `make reliability` sets it) multiplies the counts.
//!
//! The children are this test binary itself, re-run with `child_writer` and a job in the
//! environment.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use oryx_core::memory::entry::trim_runtime;
use oryx_core::memory::{
    format, journal, LongTermMemoryStore, MarkdownMemoryStore, MemoryService, Scope,
    SqliteMemoryStore,
};
use oryx_core::names::Owner;

const JOB: &str = "ORYX_RELIABILITY_JOB";

fn scale() -> usize {
    std::env::var("ORYX_RELIABILITY_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

fn store_for(backend: &str, root: &Path) -> Arc<dyn LongTermMemoryStore> {
    match backend {
        "sqlite" => Arc::new(SqliteMemoryStore::new(root.join("oryxos.db"))),
        _ => Arc::new(MarkdownMemoryStore::new(root)),
    }
}

/// The child side: does the job named in the environment, printing one line per write.
#[test]
#[ignore = "run by the reliability tests as a child process"]
fn child_writer() {
    let Ok(job) = std::env::var(JOB) else { return };
    let parts: Vec<&str> = job.splitn(5, '|').collect();
    let [backend, root, writer, count, mode] = parts.as_slice() else {
        panic!("bad job {job}")
    };
    let svc = MemoryService::new(store_for(backend, Path::new(root)), 4000);
    let owner = Owner::Agent("a".into());
    for i in 0..count.parse::<usize>().unwrap() {
        let scope = match *mode {
            "core" => Scope::Core,
            "mixed" if i % 4 == 0 => Scope::Core,
            _ => Scope::Archival,
        };
        svc.append(&owner, scope, &format!("writer {writer} entry {i}"))
            .unwrap();
        // One write() per confirmation, straight to the pipe (libtest's stdout may buffer).
        let mut out = std::io::stdout().lock();
        std::io::Write::write_all(&mut out, format!("CONFIRMED {i}\n").as_bytes()).unwrap();
        std::io::Write::flush(&mut out).unwrap();
    }
}

fn spawn(
    backend: &str,
    root: &Path,
    writer: usize,
    count: usize,
    mode: &str,
) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &crate::common::child::test_name(module_path!(), "child_writer"),
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(
            JOB,
            format!("{backend}|{}|{writer}|{count}|{mode}", root.display()),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn concurrent(backend: &str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("agents/a")).unwrap();
    let (writers, each) = (8, 125 * scale());
    let children: Vec<_> = (0..writers)
        .map(|w| {
            spawn(
                backend,
                dir.path(),
                w,
                each,
                if w % 2 == 0 { "mixed" } else { "archival" },
            )
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "a writer failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let all = store_for(backend, dir.path())
        .load_all(&Owner::Agent("a".into()))
        .unwrap();
    let contents: Vec<String> = all
        .core
        .iter()
        .chain(&all.archival)
        .map(|e| e.content.clone())
        .collect();
    let unique: HashSet<&String> = contents.iter().collect();
    assert_eq!(contents.len(), writers * each, "every append is there");
    assert_eq!(unique.len(), contents.len(), "no duplicates");
    for w in 0..writers {
        for i in 0..each {
            assert!(
                unique.contains(&format!("writer {w} entry {i}")),
                "lost writer {w} entry {i}"
            );
        }
    }
    if backend == "markdown" {
        let text = std::fs::read_to_string(dir.path().join("agents/a/MEMORY.md")).unwrap();
        for line in text.lines().filter(|l| l.starts_with("- ")) {
            assert!(
                format::parse_entry(line).timestamp.is_some() && line.contains(" entry "),
                "torn line {line:?}"
            );
        }
    }
    println!(
        "{backend}: {writers} processes x {each} appends, {} held",
        contents.len()
    );
}

#[test]
fn eight_processes_appending_to_one_memory_md_lose_nothing() {
    concurrent("markdown");
}

#[test]
fn eight_processes_appending_to_one_sqlite_database_lose_nothing() {
    concurrent("sqlite");
}

#[test]
fn killing_a_writer_mid_rewrite_never_leaves_a_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("agents/a")).unwrap();
    let path = dir.path().join("agents/a/MEMORY.md");
    let store = MarkdownMemoryStore::new(dir.path());
    let owner = Owner::Agent("a".into());
    // Some history so that every core rewrite moves a real file.
    for i in 0..200 {
        store
            .append(&owner, Scope::Archival, &format!("history {i}"), None)
            .unwrap();
    }
    let rounds = 30 * scale();
    let mut confirmed_total = 0;
    for round in 0..rounds {
        let mut child = spawn("markdown", dir.path(), round, 1000, "core");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        // Let it confirm a few rewrites, then kill it at a varying point in the next one.
        let wait_for = 1 + round % 5;
        let mut confirmed = 0;
        while confirmed < wait_for {
            match lines.next() {
                // libtest may print its "test child_writer ... " prefix on the same line.
                Some(Ok(l)) => confirmed += l.matches("CONFIRMED ").count(),
                Some(Err(_)) => {}
                None => break,
            }
        }
        std::thread::sleep(Duration::from_micros(((round * 7919) % 3000) as u64));
        child.kill().unwrap();
        let _ = child.wait();
        // Lines it printed after we stopped reading are confirmed writes too.
        confirmed += lines
            .map_while(Result::ok)
            .map(|l| l.matches("CONFIRMED ").count())
            .sum::<usize>();
        confirmed_total += confirmed;
        let bytes = std::fs::read(&path).unwrap();
        let parsed = format::parse(&bytes);
        let mine = parsed
            .sections
            .core
            .iter()
            .filter(|e| e.content.starts_with(&format!("writer {round} ")))
            .count();
        let on_disk: Vec<&str> = parsed
            .sections
            .core
            .iter()
            .filter(|e| e.content.starts_with(&format!("writer {round} ")))
            .map(|e| e.content.as_str())
            .collect();
        assert!(
            mine == confirmed || mine == confirmed + 1,
            "round {round}: {mine} entries on disk, {confirmed} confirmed: a write was lost or doubled: {on_disk:?}"
        );
        assert_eq!(
            parsed.sections.archival.len(),
            200,
            "round {round}: the rest of the file is intact"
        );
        assert!(
            bytes.ends_with(b"\n"),
            "round {round}: the file ends mid-line"
        );
    }
    // The next locked write clears temp files a killed rewrite left behind.
    store
        .append(&owner, Scope::Core, "after the crashes", None)
        .unwrap();
    let strays: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(strays.is_empty(), "{} temp files left", strays.len());
    println!("{rounds} writers killed mid-rewrite, {confirmed_total} confirmed core rewrites all on disk");
}

/// The Java runtime's section of `raw`: its pattern `(?m)^<header>\s*$` for the start, up to
/// the next line of either header, `strip()`ped.
fn runtime_section<'a>(raw: &'a str, header: &str) -> &'a str {
    let is_header =
        |line: &str, h: &str| line.trim_end_matches([' ', '\t', '\r', '\u{b}', '\u{c}']) == h;
    let mut offset = 0;
    let mut start = None;
    for line in raw.split_inclusive('\n') {
        let text = line.trim_end_matches('\n');
        match start {
            None if is_header(text, header) => start = Some(offset + line.len()),
            Some(s) if is_header(text, "## 核心记忆") || is_header(text, "## 归档记忆") => {
                return trim_runtime(&raw[s..offset]);
            }
            _ => {}
        }
        offset += line.len();
    }
    start.map_or("", |s| trim_runtime(&raw[s..]))
}

/// One append exactly as the runtime's MarkdownMemoryStore makes it: no lock file, read the
/// whole file, keep its two sections, add the line at the end of archival, write a temp file
/// and rename it over MEMORY.md.
fn runtime_style_append(path: &Path, tmp_name: &str, line: &str) {
    let raw = std::fs::read_to_string(path).unwrap_or_default();
    let core = runtime_section(&raw, "## 核心记忆");
    let archive = runtime_section(&raw, "## 归档记忆");
    let archive = if archive.is_empty() {
        line.to_string()
    } else {
        format!("{archive}\n{line}")
    };
    let tmp = path.with_file_name(tmp_name);
    std::fs::write(&tmp, format!("## 核心记忆\n{core}\n## 归档记忆\n{archive}")).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

#[test]
fn runtime_style_rewriters_and_console_appends_at_once_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("agents/a")).unwrap();
    let path = dir.path().join("agents/a/MEMORY.md");
    let owner = Owner::Agent("a".into());
    let store = MarkdownMemoryStore::new(dir.path());
    store
        .append(&owner, Scope::Core, "seed core", None)
        .unwrap();
    let (consoles, console_each) = (2, 100 * scale());
    let (runtimes, runtime_max) = (8, 150 * scale());
    let children: Vec<_> = (0..consoles)
        .map(|w| spawn("markdown", dir.path(), w, console_each, "archival"))
        .collect();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // The runtime's `synchronized` on the file: its writers exclude each other, not us.
    let jvm = Arc::new(std::sync::Mutex::new(()));
    let writers: Vec<_> = (0..runtimes)
        .map(|w| {
            let (path, done, jvm) = (path.clone(), done.clone(), jvm.clone());
            std::thread::spawn(move || {
                let mut n = 0;
                while n < runtime_max && !done.load(std::sync::atomic::Ordering::Relaxed) {
                    let ts = chrono::Local::now().format("%Y-%m-%d %H:%M:%S");
                    let _held = jvm.lock().unwrap();
                    runtime_style_append(
                        &path,
                        &format!("MEMORY{w}.tmp"),
                        &format!("- [{ts}] runtime {w} entry {n}"),
                    );
                    n += 1;
                    drop(_held);
                    // Pacing, not synchronisation: eight busy sessions each saving a memory
                    // every couple of milliseconds. A writer that never pauses would starve the
                    // console's lock-free check, which needs one quiet instant per write.
                    std::thread::sleep(Duration::from_millis(2));
                }
                n
            })
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "a console writer failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let written: Vec<usize> = writers.into_iter().map(|t| t.join().unwrap()).collect();
    // One console access after the race: its check puts back what the last rewrites dropped.
    let all = store.load_all(&owner).unwrap();
    let lines: Vec<&str> = all
        .core
        .iter()
        .chain(&all.archival)
        .map(|e| e.content.as_str())
        .collect();
    let unique: HashSet<&str> = lines.iter().copied().collect();
    assert_eq!(unique.len(), lines.len(), "no entry twice");
    let mut expected = vec!["seed core".to_string()];
    for w in 0..consoles {
        expected.extend((0..console_each).map(|i| format!("writer {w} entry {i}")));
    }
    for (w, &n) in written.iter().enumerate() {
        expected.extend((0..n).map(|i| format!("runtime {w} entry {i}")));
    }
    let lost: Vec<&String> = expected
        .iter()
        .filter(|e| !unique.contains(e.as_str()))
        .collect();
    assert!(lost.is_empty(), "{} entries lost: {lost:?}", lost.len());
    assert_eq!(lines.len(), expected.len());
    let journal = std::fs::read_to_string(journal::journal_path(&path)).unwrap_or_default();
    println!(
        "{} console + {} runtime-style appends at once, all held; the console put back {} \
         writes the runtime's rewrites dropped and rescued {} runtime entries",
        consoles * console_each,
        written.iter().sum::<usize>(),
        journal.matches("\"kind\":\"restored\"").count(),
        journal.matches("\"rescued\":true").count(),
    );
}
