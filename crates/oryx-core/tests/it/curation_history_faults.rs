//! The curation history under faults: changes made beside a writer that behaves like the
//! runtime (reads the whole MEMORY.md, writes a temp file, renames it over, takes no lock),
//! torn and unreadable history records, a history write that fails part-way, hand-edited
//! records, and a line extended between a change and its undo.
//!
//! `ORYX_RELIABILITY_SCALE` (as `make reliability` sets it) multiplies the counts.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use oryx_core::memory::curation::{Action, Target};
use oryx_core::memory::entry::trim_runtime;
use oryx_core::memory::history::{history_path, Op};
use oryx_core::memory::{MarkdownMemoryStore, MemoryService, Scope};
use oryx_core::names::Owner;
use oryx_core::CoreError;

fn scale() -> usize {
    std::env::var("ORYX_RELIABILITY_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

struct Root {
    _dir: tempfile::TempDir,
    path: PathBuf,
    svc: MemoryService,
    owner: Owner,
}

/// Agent `a`'s MEMORY.md holding `archival` (each stamped a second apart) and one core entry.
fn root(archival: &[String]) -> Root {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("agents/a")).unwrap();
    let path = dir.path().join("agents/a/MEMORY.md");
    let mut text = String::from("## 核心记忆\n- [2026-01-01 00:00:00] core\n## 归档记忆\n");
    for (i, c) in archival.iter().enumerate() {
        text.push_str(&format!(
            "- [2026-01-01 {:02}:{:02}:{:02}] {c}\n",
            i / 3600,
            i / 60 % 60,
            i % 60
        ));
    }
    std::fs::write(&path, text).unwrap();
    let svc = MemoryService::new(Arc::new(MarkdownMemoryStore::new(dir.path())), 4000);
    Root {
        _dir: dir,
        path,
        svc,
        owner: Owner::Agent("a".into()),
    }
}

impl Root {
    fn archival(&self) -> Vec<String> {
        let all = self.svc.store().load_all(&self.owner).unwrap();
        all.archival.into_iter().map(|e| e.content).collect()
    }

    /// The archival entry holding `content` now, as a target.
    fn target(&self, content: &str) -> Target {
        let all = self.svc.store().load_all(&self.owner).unwrap();
        let i = all
            .archival
            .iter()
            .position(|e| e.content == content)
            .unwrap_or_else(|| {
                panic!(
                    "no entry {content:?} in\n{}\njournal:\n{}\nhistory:\n{}",
                    std::fs::read_to_string(&self.path).unwrap_or_default(),
                    std::fs::read_to_string(oryx_core::memory::journal::journal_path(&self.path))
                        .unwrap_or_default(),
                    self.history_text()
                )
            });
        Target {
            id: all.id(Scope::Archival, i).unwrap(),
            expect: Some(content.to_string()),
        }
    }

    fn history_text(&self) -> String {
        std::fs::read_to_string(history_path(&self.path)).unwrap_or_default()
    }

    fn append_history(&self, bytes: &[u8]) {
        use std::io::Write;
        std::fs::OpenOptions::new()
            .append(true)
            .open(history_path(&self.path))
            .unwrap()
            .write_all(bytes)
            .unwrap();
    }
}

fn runtime_section<'a>(raw: &'a str, header: &str) -> &'a str {
    let mut offset = 0;
    let mut start = None;
    for line in raw.split_inclusive('\n') {
        let text = line.trim_end_matches(['\n', '\r']);
        match start {
            None if text == header => start = Some(offset + line.len()),
            Some(s) if text == "## 核心记忆" || text == "## 归档记忆" => {
                return trim_runtime(&raw[s..offset]);
            }
            _ => {}
        }
        offset += line.len();
    }
    start.map_or("", |s| trim_runtime(&raw[s..]))
}

/// One append as the runtime's store makes it: no lock, the whole file read, its two sections
/// kept, the line added, a temp file renamed over MEMORY.md.
fn runtime_style_append(path: &Path, line: &str) {
    let raw = std::fs::read_to_string(path).unwrap_or_default();
    let core = runtime_section(&raw, "## 核心记忆");
    let archive = runtime_section(&raw, "## 归档记忆");
    let archive = match archive.is_empty() {
        true => line.to_string(),
        false => format!("{archive}\n{line}"),
    };
    // Slow enough that console changes land between its read and its rename.
    std::thread::sleep(Duration::from_millis(3));
    let tmp = path.with_file_name("MEMORY.runtime.tmp");
    std::fs::write(&tmp, format!("## 核心记忆\n{core}\n## 归档记忆\n{archive}")).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// A runtime-style writer appending until stopped; returns how many lines it wrote.
struct Runtime {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<usize>,
}

impl Runtime {
    fn start(path: &Path) -> Runtime {
        let stop = Arc::new(AtomicBool::new(false));
        let (path, flag) = (path.to_path_buf(), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut n = 0;
            while !flag.load(Ordering::Relaxed) && path.exists() {
                runtime_style_append(&path, &format!("- [2026-06-01 00:00:00] runtime {n}"));
                n += 1;
                // Pacing, not synchronisation: a console change (a few ms in a debug build on
                // a busy machine) needs a quiet moment to land.
                std::thread::sleep(Duration::from_millis(25));
            }
            n
        });
        Runtime { stop, thread }
    }

    fn stop(self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

fn runtime_lines(all: &[String], written: usize) {
    for n in 0..written {
        let want = format!("runtime {n}");
        let have = all.iter().filter(|c| **c == want).count();
        // A line glued onto another (a line break taken out) shows as an entry holding both.
        let inside: Vec<&String> = all
            .iter()
            .filter(|c| **c != want && c.contains(&want))
            .collect();
        assert_eq!(have, 1, "{want} stands {have} times; inside {inside:?}");
    }
}

/// Every delete made beside a runtime-style writer is in the history and can be undone, even
/// when the writer replaced the file between its plan and its rename (planned again under
/// the same id: intent, abort, intent, commit).
#[test]
fn deletes_beside_a_runtime_writer_are_all_in_the_history_and_undoable() {
    let n = 30 * scale();
    let names: Vec<String> = (0..n).map(|i| format!("entry {i}")).collect();
    let r = root(&names);
    let rt = Runtime::start(&r.path);
    let mut ids = Vec::new();
    for name in &names {
        let c = r
            .svc
            .change(&r.owner, &[r.target(name)], &Action::Delete)
            .unwrap();
        ids.push(c.id);
    }
    let h = r.svc.history(&r.owner, None).unwrap();
    let listed: std::collections::HashSet<&str> =
        h.changes.iter().map(|l| l.change.id.as_str()).collect();
    let missing = ids
        .iter()
        .filter(|id| !listed.contains(id.as_str()))
        .count();
    let replanned = r.history_text().matches("\"state\":\"abort\"").count();
    for _ in 0..n {
        r.svc.undo(&r.owner, None).unwrap();
    }
    let written = rt.stop();
    let all = r.archival();
    println!(
        "{n} deletes beside a runtime-style writer ({written} runtime appends): {missing} \
         missing from the history, {replanned} planned again; all undone"
    );
    assert_eq!(
        missing, 0,
        "{missing} of {n} deletes missing from the history"
    );
    for name in &names {
        assert_eq!(all.iter().filter(|c| *c == name).count(), 1, "{name}");
    }
    runtime_lines(&all, written);
    assert_eq!(all.len(), n + written);
}

/// A summary that removes the entries it covers, made beside a runtime-style writer, is one
/// change that one undo takes back.
#[test]
fn summaries_removing_originals_beside_a_runtime_writer_undo() {
    let trials = 8 * scale();
    let names: Vec<String> = (0..4).map(|i| format!("entry {i}")).collect();
    let r = root(&names);
    let rt = Runtime::start(&r.path);
    for t in 0..trials {
        let remove: Vec<Target> = names.iter().map(|n| r.target(n)).collect();
        let c = r
            .svc
            .apply_summary(&r.owner, &format!("summary {t}"), &remove, false)
            .unwrap();
        assert_eq!(c.op, Op::Summarize);
        let undone = r.svc.undo(&r.owner, None).unwrap();
        assert_eq!(undone.reverts.as_deref(), Some(c.id.as_str()), "trial {t}");
    }
    let written = rt.stop();
    let all = r.archival();
    for name in &names {
        assert_eq!(all.iter().filter(|c| *c == name).count(), 1, "{name}");
    }
    assert!(all.iter().all(|c| !c.starts_with("summary")), "{all:?}");
    runtime_lines(&all, written);
    assert_eq!(all.len(), names.len() + written, "{all:?}");
    println!(
        "{trials} summaries with originals removed, each undone, beside {written} runtime appends"
    );
}

/// Edit, undo and redo of one entry, over and over, beside a runtime-style writer that renames
/// copies read before the console's changes: the entry stays one entry.
#[test]
fn edit_undo_redo_cycles_beside_a_runtime_writer_keep_one_entry() {
    let cycles = 60 * scale();
    let r = root(&["keep".to_string(), "v0".to_string()]);
    let rt = Runtime::start(&r.path);
    for i in 0..cycles {
        let (from, to) = (format!("v{i}"), format!("v{}", i + 1));
        let edit = Action::Edit {
            content: to.clone(),
            restamp: false,
        };
        r.svc.change(&r.owner, &[r.target(&from)], &edit).unwrap();
        r.svc.undo(&r.owner, None).unwrap();
        r.svc.redo(&r.owner).unwrap();
    }
    let written = rt.stop();
    let all = r.archival();
    let versions: Vec<&String> = all
        .iter()
        .filter(|c| c.starts_with('v') && c[1..].parse::<usize>().is_ok())
        .collect();
    println!(
        "{cycles} edit/undo/redo cycles beside {written} runtime appends: {} version(s) of the \
         entry",
        versions.len()
    );
    assert_eq!(versions, [&format!("v{cycles}")]);
    assert_eq!(all.iter().filter(|c| *c == "keep").count(), 1);
    runtime_lines(&all, written);
}

/// A torn record at the end of the history (a console killed mid-line) does not swallow the
/// next change: undo takes back that change, not the one before.
#[test]
fn after_a_torn_record_undo_takes_back_the_newest_change() {
    let r = root(&["one".into(), "two".into(), "three".into()]);
    r.svc
        .change(&r.owner, &[r.target("one")], &Action::Delete)
        .unwrap();
    r.append_history(br#"{"state":"intent","id":"0-torn","op":"delete","owner":"a","entr"#);
    let newest = r
        .svc
        .change(&r.owner, &[r.target("three")], &Action::Delete)
        .unwrap();
    let undone = r.svc.undo(&r.owner, None).unwrap();
    assert_eq!(undone.reverts.as_deref(), Some(newest.id.as_str()));
    assert_eq!(r.archival(), ["two", "three"]);
}

/// A record that cannot be read after the change undo would take back: undo refuses rather
/// than take back an older change, and nothing is written.
#[test]
fn an_unreadable_record_makes_undo_refuse_not_shift() {
    let r = root(&["one".into(), "two".into()]);
    r.svc
        .change(&r.owner, &[r.target("one")], &Action::Delete)
        .unwrap();
    r.append_history(b"{\"state\":\"intent\",\"id\":\"x\",\"op\":\"delete\",garbage}\n");
    let before = std::fs::read(&r.path).unwrap();
    let e = r.svc.undo(&r.owner, None).unwrap_err();
    assert!(matches!(e, CoreError::Corrupt(_)), "{e}");
    assert!(e.to_string().contains("line 3"), "{e}");
    let e = r.svc.redo(&r.owner).unwrap_err();
    assert!(matches!(e, CoreError::InvalidInput(_)), "{e}");
    assert_eq!(std::fs::read(&r.path).unwrap(), before);
    // With no readable change at all, the unreadable one may be the last: not "nothing to do".
    std::fs::write(history_path(&r.path), b"{\"state\":\"intent\",\"id\":7}\n").unwrap();
    let e = r.svc.undo(&r.owner, None).unwrap_err();
    assert!(matches!(e, CoreError::Corrupt(_)), "{e}");
}

/// Undo of an edit whose line was extended meanwhile (by hand, by another tool) is a conflict:
/// replacing the edited prefix would glue the old text onto the addition.
#[test]
fn undo_of_an_edit_on_a_line_extended_since_is_a_conflict() {
    let r = root(&["one".into(), "two".into()]);
    let edit = Action::Edit {
        content: "TWO".into(),
        restamp: false,
    };
    r.svc.change(&r.owner, &[r.target("two")], &edit).unwrap();
    // A console write after the edit: the change to the edited line below is on purpose (the
    // journal does not put the edited line back).
    r.svc.append(&r.owner, Scope::Archival, "later").unwrap();
    let text = std::fs::read_to_string(&r.path)
        .unwrap()
        .replace("TWO\n", "TWO and a hand-written suffix\n");
    std::fs::write(&r.path, &text).unwrap();
    let e = r.svc.undo(&r.owner, None).unwrap_err();
    assert!(matches!(e, CoreError::Conflict(_)), "{e}");
    assert_eq!(std::fs::read_to_string(&r.path).unwrap(), text);
}

/// Hand-edited history records: undo refuses each with an error and writes nothing; none
/// panics.
#[test]
fn hand_edited_history_records_are_refused() {
    let r = root(&["one".into(), "two".into(), "three".into()]);
    r.svc
        .change(&r.owner, &[r.target("two")], &Action::Delete)
        .unwrap();
    let original = r.history_text();
    let line = original.lines().next().unwrap().to_string();
    let deleted = "- [2026-01-01 00:00:01] two";
    let one = "- [2026-01-01 00:00:00] one";
    let edits: Vec<(&str, String)> = vec![
        (
            "splice offset 2^64-1",
            line.replacen(
                "\"splices\":[{\"at\":",
                "\"splices\":[{\"at\":18446744073709551615,\"x\":",
                1,
            ),
        ),
        (
            "an empty insert that writes back another line",
            line.replace(&format!("{deleted}\\n"), &format!("{deleted}\\n{one}\\n")),
        ),
        (
            "a 5 MB removal",
            line.replace(
                &format!("{deleted}\\n"),
                &format!("{deleted}\\n- {}\\n", "x".repeat(5 << 20)),
            ),
        ),
        (
            "an entry line with a line break",
            line.replace(
                &format!("\"line\":\"{deleted}\""),
                &format!("\"line\":\"{deleted}\\n## 核心记忆\""),
            ),
        ),
    ];
    let file = std::fs::read(&r.path).unwrap();
    for (what, bad) in edits {
        assert_ne!(bad, line, "{what}: the edit applies");
        let text = original.replacen(&line, &bad, 1);
        std::fs::write(history_path(&r.path), text).unwrap();
        let e = r.svc.undo(&r.owner, None).unwrap_err();
        assert!(
            matches!(e, CoreError::Corrupt(_) | CoreError::Conflict(_)),
            "{what}: {e}"
        );
        assert_eq!(std::fs::read(&r.path).unwrap(), file, "{what}");
    }
    // The record as written is undone.
    std::fs::write(history_path(&r.path), original).unwrap();
    r.svc.undo(&r.owner, None).unwrap();
    assert_eq!(r.archival(), ["one", "two", "three"]);
}

#[cfg(unix)]
mod limited {
    use super::*;
    use std::process::Command;

    use crate::common::child::set_file_size_limit;

    const ROOT: &str = "ORYX_HISTORY_FAULTS_ROOT";

    #[test]
    #[ignore = "run by a_failed_history_write_is_cut_back as a child process"]
    fn history_limited_child() {
        let Ok(dir) = std::env::var(ROOT) else {
            return;
        };
        let r = Root {
            svc: MemoryService::new(Arc::new(MarkdownMemoryStore::new(&dir)), 4000),
            path: Path::new(&dir).join("agents/a/MEMORY.md"),
            owner: Owner::Agent("a".into()),
            _dir: tempfile::tempdir().unwrap(),
        };
        r.svc
            .change(&r.owner, &[r.target("one")], &Action::Delete)
            .unwrap();
        let history = std::fs::read(history_path(&r.path)).unwrap();
        let file = std::fs::read(&r.path).unwrap();
        // Room for part of the next intent record only (MEMORY.md is smaller than this).
        set_file_size_limit(history.len() as u64 + 100);
        let long = "x".repeat(400);
        let edit = Action::Edit {
            content: long,
            restamp: false,
        };
        let e = r
            .svc
            .change(&r.owner, &[r.target("two")], &edit)
            .unwrap_err();
        assert!(e.to_string().contains("nothing was stored"), "{e}");
        assert_eq!(std::fs::read(history_path(&r.path)).unwrap(), history);
        assert_eq!(std::fs::read(&r.path).unwrap(), file);
        println!("HISTORY CHILD OK");
    }

    /// A history write that fails part-way (a full disk, here a file-size limit) is cut back:
    /// no half record for the next one to be glued onto.
    #[test]
    fn a_failed_history_write_is_cut_back() {
        let r = root(&["one".into(), "two".into()]);
        let dir = r.path.parent().unwrap().parent().unwrap().parent().unwrap();
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                &crate::common::child::test_name(module_path!(), "history_limited_child"),
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(ROOT, dir)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("HISTORY CHILD OK"),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The next change is recorded whole and undone.
        let c = r
            .svc
            .change(&r.owner, &[r.target("two")], &Action::Delete)
            .unwrap();
        let u = r.svc.undo(&r.owner, None).unwrap();
        assert_eq!(u.reverts.as_deref(), Some(c.id.as_str()));
    }
}
