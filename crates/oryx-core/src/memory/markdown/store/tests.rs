use std::fs::{self, File};
use std::io::Write;

use super::super::io::*;
use super::super::lock::*;
use super::super::rewrite::*;
use super::*;
use crate::memory::curation::{Action, Target};
use crate::memory::window;

fn store() -> (tempfile::TempDir, MarkdownMemoryStore) {
    let dir = tempfile::tempdir().unwrap();
    let s = MarkdownMemoryStore::new(dir.path());
    (dir, s)
}

#[test]
fn a_copied_older_entry_goes_in_time_order_not_at_the_end() {
    let text = "preamble kept\n## 核心记忆\n- [2026-03-02 00:00:00] core b\n## 归档记忆\n\
                - [2026-03-01 00:00:00] one\n- [2026-03-03 00:00:00] three\n";
    let (_d, s, owner, path) = agent_file(text);
    let t = |v: &str| Some(chrono::NaiveDateTime::parse_from_str(v, "%Y-%m-%d %H:%M:%S").unwrap());
    s.append(&owner, Scope::Archival, "two", t("2026-03-02 00:00:00"))
        .unwrap();
    s.append(&owner, Scope::Archival, "zero", t("2026-01-01 00:00:00"))
        .unwrap();
    s.append(&owner, Scope::Archival, "four", t("2026-03-04 00:00:00"))
        .unwrap();
    s.append(&owner, Scope::Core, "core a", t("2026-03-01 00:00:00"))
        .unwrap();
    s.append(&owner, Scope::Archival, "now", None).unwrap();
    let all = s.load_all(&owner).unwrap();
    let names = |v: &[Entry]| v.iter().map(|e| e.content.clone()).collect::<Vec<_>>();
    assert_eq!(names(&all.core), ["core a", "core b"]);
    assert_eq!(
        names(&all.archival),
        ["zero", "one", "two", "three", "four", "now"]
    );
    let back = fs::read_to_string(&path).unwrap();
    assert!(back.starts_with("preamble kept\n## 核心记忆\n"), "{back}");
    // The window takes the file's newest entries, as before the copy.
    let ctx = s.load_context(&owner, 4000).unwrap();
    assert_eq!(ctx.archival_tail.last().unwrap().content, "now");
}

/// Agent `a`'s MEMORY.md in a fresh store, holding `text`.
fn agent_file(text: &str) -> (tempfile::TempDir, MarkdownMemoryStore, Owner, PathBuf) {
    let (d, s) = store();
    let owner = Owner::Agent("a".into());
    let path = s.path(&owner);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, text).unwrap();
    (d, s, owner, path)
}

/// What the Java runtime does to write: the whole file to a temp file, renamed over it, no
/// lock.
fn replace_unlocked(path: &Path, text: String) {
    let tmp = path.with_extension("java-tmp");
    fs::write(&tmp, text).unwrap();
    fs::rename(&tmp, path).unwrap();
}

/// A writer without our lock (as the Java runtime) replaces the file between our read and
/// our rename: its entry survives and ours lands too.
#[test]
fn a_rewrite_never_overwrites_what_an_unlocked_writer_just_wrote() {
    let (_d, s, owner, _path) = agent_file(
        "## 核心记忆\n- [2026-01-01 00:00:00] one\n## 归档记忆\n- [2026-01-01 00:00:00] a\n",
    );
    let mut interfered = 0;
    BEFORE_REPLACE.with(|h| {
        *h.borrow_mut() = Some(Box::new(move |p: &Path| {
            if interfered < 2 {
                interfered += 1;
                let text = fs::read_to_string(p).unwrap().replace(
                    "## 归档记忆\n",
                    &format!("- [2026-01-01 00:00:0{interfered}] java {interfered}\n## 归档记忆\n"),
                );
                replace_unlocked(p, text);
            }
        }));
    });
    s.append(&owner, Scope::Core, "ours", None).unwrap();
    BEFORE_REPLACE.with(|h| *h.borrow_mut() = None);
    let core: Vec<_> = s
        .load_all(&owner)
        .unwrap()
        .core
        .into_iter()
        .map(|e| e.content)
        .collect();
    assert_eq!(core, ["one", "java 1", "java 2", "ours"]);
}

/// The runtime renames its file in after our version check, right before our rename: the
/// exchange hands us the file we displaced, and its entry is put back.
#[test]
fn an_entry_renamed_in_at_the_last_instant_is_rescued() {
    let (_d, s, owner, path) = agent_file(
        "## 核心记忆\n- [2026-01-01 00:00:00] one\n## 归档记忆\n- [2026-01-01 00:00:00] a\n",
    );
    let mut interfered = false;
    BEFORE_RENAME.with(|h| {
        *h.borrow_mut() = Some(Box::new(move |p: &Path| {
            if !interfered {
                interfered = true;
                let mut text = fs::read_to_string(p).unwrap();
                text.push_str("- [2026-01-01 00:00:01] java\n");
                replace_unlocked(p, text);
            }
        }));
    });
    s.append(&owner, Scope::Core, "ours", None).unwrap();
    BEFORE_RENAME.with(|h| *h.borrow_mut() = None);
    let all = s.load_all(&owner).unwrap();
    let core: Vec<_> = all.core.iter().map(|e| e.content.as_str()).collect();
    let arch: Vec<_> = all.archival.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(core, ["one", "ours"]);
    assert_eq!(arch, ["a", "java"]);
    let journal = fs::read_to_string(journal::journal_path(&path)).unwrap();
    assert!(journal.contains("\"rescued\":true"), "{journal}");
}

/// What the runtime does: read all, keep only the two sections, add its line, rename.
fn runtime_append(path: &Path, base: &str, line: &str) {
    let p = format::parse(base.as_bytes());
    let join = |v: &[Entry]| {
        v.iter()
            .map(|e| e.line.clone())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut arch = join(&p.sections.archival);
    if !arch.is_empty() {
        arch.push('\n');
    }
    arch.push_str(line);
    let text = format!(
        "## 核心记忆\n{}\n## 归档记忆\n{arch}",
        join(&p.sections.core)
    );
    replace_unlocked(path, text);
}

#[test]
fn a_write_dropped_by_a_runtime_rewrite_is_put_back_in_its_place() {
    let (_d, s) = store();
    let owner = Owner::Agent("a".into());
    let path = s.path(&owner);
    let ts = |t: &str| crate::timefmt::parse_entry_ts(t);
    s.append(&owner, Scope::Archival, "first", ts("2026-01-01 00:00:01"))
        .unwrap();
    let base = fs::read_to_string(&path).unwrap();
    s.append(&owner, Scope::Archival, "ours", ts("2026-01-01 00:00:02"))
        .unwrap();
    s.append(&owner, Scope::Core, "core ours", ts("2026-01-01 00:00:02"))
        .unwrap();
    // The runtime read before our two writes and renames after them.
    runtime_append(&path, &base, "- [2026-01-01 00:00:03] runtime");
    let all = s.load_all(&owner).unwrap();
    let arch: Vec<_> = all.archival.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(arch, ["first", "ours", "runtime"]);
    assert_eq!(all.core.len(), 1);
    let journal = fs::read_to_string(journal::journal_path(&path)).unwrap();
    assert_eq!(
        journal.matches("\"kind\":\"restored\"").count(),
        2,
        "{journal}"
    );
    // Checked once: the next read finds the file as the lock file remembers it.
    let stamp = version(&path);
    s.load_all(&owner).unwrap();
    assert_eq!(version(&path), stamp);
}

const RACED: &str = "## 核心记忆\n- [2026-01-01 00:00:00] core\n## 归档记忆\n\
                     - [2026-01-01 00:00:01] one\n- [2026-01-01 00:00:02] two\n";

/// A console service over agent `a`'s MEMORY.md holding `text`.
fn curated(
    text: &str,
) -> (
    tempfile::TempDir,
    crate::memory::MemoryService,
    Owner,
    PathBuf,
) {
    let (d, s, owner, path) = agent_file(text);
    let svc = crate::memory::MemoryService::new(std::sync::Arc::new(s), 4000);
    (d, svc, owner, path)
}

fn archival(svc: &crate::memory::MemoryService, owner: &Owner) -> Vec<String> {
    let all = svc.store().load_all(owner).unwrap();
    all.archival.into_iter().map(|e| e.content).collect()
}

fn act(svc: &crate::memory::MemoryService, owner: &Owner, i: usize, action: Action) {
    let all = svc.store().load_all(owner).unwrap();
    let target = Target {
        id: all.id(Scope::Archival, i).unwrap(),
        expect: Some(all.archival[i].content.clone()),
    };
    svc.change(owner, &[target], &action).unwrap();
}

/// The runtime renames a file made from a copy read before a console edit: the edit is
/// made again (the old line goes, the new one is put back), never both versions.
#[test]
fn an_edit_raced_by_a_rewrite_from_the_old_copy_is_made_again() {
    let (_d, svc, owner, path) = curated(RACED);
    let base = fs::read_to_string(&path).unwrap();
    let edit = Action::Edit {
        content: "TWO".into(),
        restamp: false,
    };
    act(&svc, &owner, 1, edit);
    runtime_append(&path, &base, "- [2026-01-01 00:00:03] runtime");
    assert_eq!(archival(&svc, &owner), ["one", "TWO", "runtime"]);
    svc.undo(&owner, None).unwrap();
    assert_eq!(archival(&svc, &owner), ["one", "two", "runtime"]);
}

/// ... a delete stays deleted (and can still be undone) ...
#[test]
fn a_delete_raced_by_a_rewrite_from_the_old_copy_stays_deleted() {
    let (_d, svc, owner, path) = curated(RACED);
    let base = fs::read_to_string(&path).unwrap();
    act(&svc, &owner, 0, Action::Delete);
    runtime_append(&path, &base, "- [2026-01-01 00:00:03] runtime");
    assert_eq!(archival(&svc, &owner), ["two", "runtime"]);
    let h = svc.history(&owner, None).unwrap();
    assert_eq!(h.changes.len(), 1);
    svc.undo(&owner, None).unwrap();
    assert_eq!(archival(&svc, &owner), ["one", "two", "runtime"]);
}

/// ... and an undo is not undone: what it took out stays out, what it put back stays.
#[test]
fn an_undo_raced_by_a_rewrite_from_the_old_copy_is_made_again() {
    let (_d, svc, owner, path) = curated(RACED);
    let edit = Action::Edit {
        content: "TWO".into(),
        restamp: false,
    };
    act(&svc, &owner, 1, edit);
    let base = fs::read_to_string(&path).unwrap();
    svc.undo(&owner, None).unwrap();
    runtime_append(&path, &base, "- [2026-01-01 00:00:03] runtime");
    assert_eq!(archival(&svc, &owner), ["one", "two", "runtime"]);
    svc.redo(&owner).unwrap();
    let base = fs::read_to_string(&path).unwrap();
    act(&svc, &owner, 0, Action::Delete);
    svc.undo(&owner, None).unwrap();
    runtime_append(&path, &base, "- [2026-01-01 00:00:04] runtime 2");
    assert_eq!(
        archival(&svc, &owner),
        ["one", "TWO", "runtime", "runtime 2"]
    );
}

/// The runtime renames its file (made from the copy before the change) in the instant
/// before ours: the exchange hands it back, and the deleted line is not rescued from it.
#[test]
fn a_delete_displacing_an_old_copy_does_not_rescue_the_deleted_line() {
    let (_d, svc, owner, _path) = curated(RACED);
    let mut interfered = false;
    BEFORE_RENAME.with(|h| {
        *h.borrow_mut() = Some(Box::new(move |p: &Path| {
            if !interfered {
                interfered = true;
                let base = fs::read_to_string(p).unwrap();
                runtime_append(p, &base, "- [2026-01-01 00:00:03] runtime");
            }
        }));
    });
    act(&svc, &owner, 0, Action::Delete);
    BEFORE_RENAME.with(|h| *h.borrow_mut() = None);
    assert_eq!(archival(&svc, &owner), ["two", "runtime"]);
}

/// The runtime replaces the file between a change's plan and its rename: the change is
/// planned again under its id (intent, abort, intent, commit) and stays in the history.
#[test]
fn a_change_planned_again_stays_in_the_history_and_undoes() {
    let (_d, svc, owner, _path) = curated(RACED);
    let mut interfered = false;
    BEFORE_REPLACE.with(|h| {
        *h.borrow_mut() = Some(Box::new(move |p: &Path| {
            if !interfered {
                interfered = true;
                let base = fs::read_to_string(p).unwrap();
                runtime_append(p, &base, "- [2026-01-01 00:00:03] runtime");
            }
        }));
    });
    act(&svc, &owner, 0, Action::Delete);
    BEFORE_REPLACE.with(|h| *h.borrow_mut() = None);
    assert_eq!(archival(&svc, &owner), ["two", "runtime"]);
    let h = svc.history(&owner, None).unwrap();
    assert_eq!(h.changes.len(), 1);
    svc.undo(&owner, None).unwrap();
    assert_eq!(archival(&svc, &owner), ["one", "two", "runtime"]);
}

/// A person who puts a deleted line back while a later console write stands meant it.
#[test]
fn a_deleted_line_put_back_by_hand_after_a_later_write_stays() {
    let (_d, svc, owner, path) = curated(RACED);
    act(&svc, &owner, 0, Action::Delete);
    svc.append(&owner, Scope::Archival, "later").unwrap();
    let text = fs::read_to_string(&path).unwrap().replace(
        "## 归档记忆\n",
        "## 归档记忆\n- [2026-01-01 00:00:01] one\n",
    );
    replace_unlocked(&path, text);
    assert_eq!(archival(&svc, &owner), ["one", "two", "later"]);
}

#[test]
fn an_entry_removed_by_hand_after_a_later_write_stays_removed() {
    let (_d, s) = store();
    let owner = Owner::Agent("a".into());
    let path = s.path(&owner);
    s.append(&owner, Scope::Archival, "keep me", None).unwrap();
    s.append(&owner, Scope::Archival, "delete me", None)
        .unwrap();
    s.append(&owner, Scope::Archival, "later", None).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    let edited: String = text
        .lines()
        .filter(|l| !l.ends_with("delete me"))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(&path, edited).unwrap();
    let arch: Vec<_> = s
        .load_all(&owner)
        .unwrap()
        .archival
        .into_iter()
        .map(|e| e.content)
        .collect();
    assert_eq!(arch, ["keep me", "later"]);
    let journal = fs::read_to_string(journal::journal_path(&path)).unwrap();
    assert!(journal.contains("\"kind\":\"dropped\""), "{journal}");
    s.append(&owner, Scope::Archival, "next", None).unwrap();
    assert_eq!(s.load_all(&owner).unwrap().archival.len(), 3);
}

#[test]
fn a_rewrite_drops_the_bom_and_canonicalises_headings_keeping_the_line_ending() {
    let (_d, s, owner, path) =
        agent_file("\u{feff}# kept\r\n## Core\r\n- a\r\n## Archival (archival)\r\n- b\r\n");
    s.append(&owner, Scope::Core, "c", None).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("# kept\r\n## 核心记忆\r\n- a\r\n- ["),
        "{text:?}"
    );
    assert!(text.contains("] c\r\n## 归档记忆\r\n- b\r\n"), "{text:?}");
    assert_eq!(text.matches('\n').count(), text.matches("\r\n").count());
}

/// A plain archival append keeps the file as it is and uses its line ending, also on the
/// fast path that does not read the file.
#[test]
fn appends_to_a_crlf_file_stay_crlf() {
    let (_d, s) = store();
    let owner = Owner::Agent("a".into());
    let path = s.path(&owner);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let base = "\u{feff}## Core\r\n- a\r\n## 归档记忆\r\n- b\r\n";
    fs::write(&path, base).unwrap();
    for i in 0..3 {
        s.append(&owner, Scope::Archival, &format!("n{i}"), None)
            .unwrap();
    }
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.starts_with(base), "{text:?}");
    assert_eq!(
        text.matches('\n').count(),
        text.matches("\r\n").count(),
        "{text:?}"
    );
    assert_eq!(s.load_all(&owner).unwrap().archival.len(), 4);
}

#[test]
fn a_file_that_never_settles_is_a_conflict_not_a_lost_write() {
    let (_d, s, owner, _path) = agent_file("## 归档记忆\n- x\n");
    BEFORE_REPLACE.with(|h| {
        *h.borrow_mut() = Some(Box::new(|p: &Path| {
            let mut text = fs::read_to_string(p).unwrap();
            text.push_str("- more\n");
            replace_unlocked(p, text);
        }));
    });
    let err = s.append(&owner, Scope::Core, "ours", None).unwrap_err();
    BEFORE_REPLACE.with(|h| *h.borrow_mut() = None);
    assert!(matches!(err, CoreError::Conflict(_)), "{err}");
    let all = s.load_all(&owner).unwrap();
    assert!(all.core.is_empty());
    assert_eq!(all.archival.len(), 1 + REWRITE_ATTEMPTS);
}

/// Found by the property tests: a core insert into a file whose archival heading has no
/// final newline must not let the next archival append glue itself onto that heading.
#[test]
fn fast_append_needs_a_finished_last_line() {
    let (_d, s, owner, path) = agent_file("### archival");
    s.append(&owner, Scope::Core, "c", None).unwrap();
    s.append(&owner, Scope::Archival, "z", None).unwrap();
    let all = s.load_all(&owner).unwrap();
    assert_eq!(all.core.len(), 1);
    assert_eq!(all.archival.len(), 1, "{:?}", fs::read_to_string(&path));
}

#[test]
fn first_write_creates_file_and_headings() {
    let (_d, s) = store();
    s.append(&Owner::Global, Scope::Archival, "hello", None)
        .unwrap();
    let text = fs::read_to_string(s.path(&Owner::Global)).unwrap();
    assert!(text.starts_with("## 核心记忆\n## 归档记忆\n- ["));
    assert!(text.ends_with("] hello\n"));
}

#[test]
fn archival_append_does_not_rewrite_the_file() {
    let (_d, s) = store();
    let owner = Owner::Agent("a".into());
    s.append(&owner, Scope::Archival, "one", None).unwrap();
    let path = s.path(&owner);
    #[cfg(unix)]
    let inode = {
        use std::os::unix::fs::MetadataExt;
        fs::metadata(&path).unwrap().ino()
    };
    s.append(&owner, Scope::Archival, "two", None).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        assert_eq!(
            fs::metadata(&path).unwrap().ino(),
            inode,
            "rename would change the inode"
        );
    }
    s.append(&owner, Scope::Core, "core fact", None).unwrap();
    let all = s.load_all(&owner).unwrap();
    assert_eq!(all.core.len(), 1);
    assert_eq!(all.archival.len(), 2);
}

#[test]
fn temp_files_of_a_killed_rewrite_are_cleaned_on_the_next_write() {
    let (_d, s) = store();
    let owner = Owner::Global;
    s.append(&owner, Scope::Core, "first", None).unwrap();
    let dir = s.path(&owner).parent().unwrap().to_path_buf();
    let stray = dir.join(".MEMORY.md.abc123.tmp");
    fs::write(&stray, "half a file").unwrap();
    s.append(&owner, Scope::Archival, "second", None).unwrap();
    assert!(!stray.exists());
    assert_eq!(s.load_all(&owner).unwrap().archival.len(), 1);
}

#[test]
fn a_change_by_a_writer_without_our_lock_is_noticed_before_the_next_append() {
    let (_d, s) = store();
    let owner = Owner::Global;
    s.append(&owner, Scope::Archival, "ours 1", None).unwrap();
    let path = s.path(&owner);
    // Another writer adds a section after archival without taking the lock.
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str("## Notes\nhand written\n");
    fs::write(&path, &text).unwrap();
    s.append(&owner, Scope::Archival, "ours 2", None).unwrap();
    let after = fs::read_to_string(&path).unwrap();
    assert!(after.ends_with("## Notes\nhand written\n"), "{after}");
    let all = s.load_all(&owner).unwrap();
    let contents: Vec<_> = all.archival.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(contents, vec!["ours 1", "ours 2"]);
}

fn big_file(path: &Path, entries: usize) -> String {
    let mut text =
        String::from("preamble\n## 核心记忆\n- [2026-01-01 00:00:00] 核心事实\n## 归档记忆\n");
    for i in 0..entries {
        text.push_str(&format!(
            "- [2026-01-01 00:00:00] 归档条目 number {i} with some text\n"
        ));
    }
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, &text).unwrap();
    text
}

#[test]
fn head_and_tail_load_equals_full_load_within_the_window() {
    let (_d, s) = store();
    let owner = Owner::Global;
    big_file(&s.path(&owner), 20_000);
    let ctx = s.load_context(&owner, 4000).unwrap();
    let all = s.load_all(&owner).unwrap();
    assert!(
        ctx.archival_tail.len() < 5000,
        "read {} entries",
        ctx.archival_tail.len()
    );
    assert_eq!(ctx.core, all.core);
    let w_tail = window::compute(&ctx.archival_tail, 4000);
    let w_all = window::compute(&all.archival, 4000);
    assert_eq!(w_tail.text, w_all.text);
}

#[test]
fn tail_load_falls_back_when_archival_is_not_last() {
    let (_d, s) = store();
    let owner = Owner::Global;
    let path = s.path(&owner);
    let mut text = big_file(&path, 10_000);
    text.push_str("## Later heading\n- [2026-01-01 00:00:00] not archival\n");
    fs::write(&path, &text).unwrap();
    let ctx = s.load_context(&owner, 4000).unwrap();
    assert_eq!(ctx.archival_tail.len(), 10_000);
    assert_eq!(
        ctx.archival_tail.last().unwrap().content,
        "归档条目 number 9999 with some text"
    );
}

/// What recall and count were before the streaming scans: a full parse, then a filter.
fn recall_by_parse(bytes: &[u8], keyword: &str) -> Vec<Entry> {
    let needle = keyword.to_lowercase();
    format::parse(bytes)
        .sections
        .archival
        .into_iter()
        .filter(|e| contains_ci(&e.content, &needle))
        .collect()
}

/// Files in every dialect the reader accepts, with keywords in every place they can hide.
fn mixed_files() -> Vec<Vec<u8>> {
    let mut files: Vec<Vec<u8>> = vec![
        "preamble Kubernetes\n## 核心记忆\n- [2026-01-01 00:00:00] core kubernetes 数据库迁移\n## 归档记忆\n- [2026-01-02 00:00:00] KUBERNETES up\n- [2026-01-02] 准备数据库迁移\n\n   \n  - [2026-01-02 03:04] indented Kube\nplain line kubernetes\n## Notes kubernetes\n- kubernetes in notes\n## Archival\n- second archival kubeRNETES\n  ## 归档记忆（archival）\n- 第三个 数据库迁移 #1 ## no\n#hashtag kubernetes\n\u{3000}## Core\n- ideographic-space heading made this core: kubernetes\n## 核心记忆（archival）\n- ambiguous heading: not ours kubernetes\n".into(),
        "\u{feff}## Archival\r\n- [2026-01-01 00:00:00] crlf Kubernetes\r\n- TAX\u{130} taxi \u{212A}ubernetes\r\n- [not a date] ärger ÄRGER\r\n- no newline at the end kubernetes".into(),
        Vec::new(),
        "no headings at all kubernetes\n".into(),
    ];
    files.push(b"## \xE5\xBD\x92\xE6\xA1\xA3\xE8\xAE\xB0\xE5\xBF\x86\n- bad \xFF byte kubernetes\n- \xE6\x95 half a char \xE6\x95\xB0\xE6\x8D\xAE\n".to_vec());
    // One large file so that lines and sections cross block boundaries.
    let mut big = String::from("## 核心记忆\n- core\n## 归档记忆\n");
    for i in 0..200_000 {
        big.push_str(&format!(
            "- [2026-01-01 00:00:00] entry {i} {}\n",
            if i % 997 == 0 {
                "Kubernetes 数据库迁移"
            } else {
                "filler text 日志"
            }
        ));
        if i % 50_000 == 7 {
            big.push_str("## 核心记忆\n- core in the middle kubernetes\n\n## 归档记忆\n");
        }
    }
    files.push(big.into_bytes());
    files
}

#[test]
fn streaming_recall_and_count_equal_the_full_parse() {
    let (_d, s) = store();
    let owner = Owner::Global;
    let path = s.path(&owner);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let keywords = [
        "kubernetes",
        "KUBE",
        "数据库迁移",
        "数据",
        "taxi",
        "tax",
        "i",
        "ärger",
        "",
        " ",
        "#1",
        "## no",
        "2026",
        "entry 1",
        "日志",
        "\u{fffd}",
        "k",
    ];
    for (n, bytes) in mixed_files().iter().enumerate() {
        fs::write(&path, bytes).unwrap();
        let parsed = format::parse(bytes);
        for kw in keywords {
            assert_eq!(
                s.recall(&owner, kw).unwrap(),
                recall_by_parse(bytes, kw),
                "file {n}, keyword {kw:?}"
            );
        }
        let counts = s.count(&owner).unwrap();
        assert_eq!(
            (counts.core, counts.archival),
            (parsed.sections.core.len(), parsed.sections.archival.len()),
            "file {n}"
        );
        let structure = format::parse_structure(bytes);
        assert_eq!(
            (structure.core, structure.archival, structure.crlf),
            (parsed.core, parsed.archival, parsed.crlf),
            "file {n}"
        );
    }
    assert_eq!(
        s.recall(&Owner::Agent("missing".into()), "x").unwrap(),
        vec![]
    );
    assert_eq!(
        s.count(&Owner::Agent("missing".into())).unwrap(),
        EntryCounts::default()
    );
}

fn bytes_read() -> u64 {
    BYTES_READ.with(|c| c.get())
}

/// A large sparse MEMORY.md: entries, then `hole` NUL bytes never written (one long line of
/// the archival section), then `tail`.
fn sparse_file(path: &Path, hole: u64, tail: &str) -> u64 {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let head = "## 核心记忆\n- [2026-01-01 00:00:00] core fact\n## 归档记忆\n- [2026-01-01 00:00:01] first\n";
    fs::write(path, head).unwrap();
    let f = fs::OpenOptions::new().append(true).open(path).unwrap();
    f.set_len(head.len() as u64 + hole).unwrap();
    (&f).write_all(tail.as_bytes()).unwrap();
    f.metadata().unwrap().len()
}

/// An archival append once read the whole file (twice: the journal check and the
/// structure). Now it reads the file's tail back to the archival heading.
#[test]
fn an_archival_append_to_a_large_sparse_file_reads_only_its_tail() {
    let (_d, s) = store();
    for (n, (hole, tail)) in [
        (512u64 << 20, ""),
        (256 << 20, "\n- [2026-01-01 00:00:02] last\n"),
    ]
    .into_iter()
    .enumerate()
    {
        let owner = Owner::Agent(format!("big{n}"));
        let path = s.path(&owner);
        let before = sparse_file(&path, hole, tail);
        let read0 = bytes_read();
        let ts = crate::timefmt::parse_entry_ts("2026-02-01 00:00:00");
        s.append(&owner, Scope::Archival, "appended", ts).unwrap();
        s.append(&owner, Scope::Archival, "again", ts).unwrap();
        let read = bytes_read() - read0;
        assert!(read < 1 << 20, "read {read} bytes of a {before}-byte file");
        // Exactly the bytes the whole-file plan adds: a line break ends the NUL line first.
        let sep = if tail.is_empty() { "\n" } else { "" };
        let want =
            format!("{sep}- [2026-02-01 00:00:00] appended\n- [2026-02-01 00:00:00] again\n");
        let f = File::open(&path).unwrap();
        let len = f.metadata().unwrap().len();
        assert_eq!(len, before + want.len() as u64);
        let mut end = vec![0u8; want.len()];
        std::os::unix::fs::FileExt::read_exact_at(&f, &mut end, before).unwrap();
        assert_eq!(String::from_utf8(end).unwrap(), want);
        // Counted as archival entries, streaming, with the long line cut in memory.
        let counts = s.count(&owner).unwrap();
        let nul_line = usize::from(hole > 0);
        let tail_entries = usize::from(!tail.is_empty());
        assert_eq!(
            (counts.core, counts.archival),
            (1, 1 + nul_line + tail_entries + 2)
        );
        // The prompt's window: the newest entries, the core fact, nothing of the hole.
        let ctx = s.load_context(&owner, 4000).unwrap();
        assert_eq!(ctx.core.len(), 1);
        let w = window::compute(&ctx.archival_tail, 4000);
        assert!(
            w.text.ends_with("appended\n- [2026-02-01 00:00:00] again"),
            "{}",
            w.text.len()
        );
    }
}

/// The journal check of a large file that changed behind the lock counts the journalled
/// lines in one streaming pass: a write still there is not put back twice, a core write
/// still rewrites the file, and a runtime-dropped write is put back.
#[test]
fn the_journal_check_of_a_large_file_streams() {
    let (_d, s) = store();
    let owner = Owner::Agent("big".into());
    let path = s.path(&owner);
    let before = sparse_file(&path, 32 << 20, "\n");
    s.append(&owner, Scope::Archival, "ours", None).unwrap();
    // Someone else appends (no lock, so the lock file's stamp no longer matches).
    fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"- [2026-01-01 00:00:09] theirs\n")
        .unwrap();
    s.append(&owner, Scope::Archival, "ours 2", None).unwrap();
    let all = s.load_all(&owner).unwrap();
    let arch: Vec<_> = all.archival.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(arch.len(), 5, "{:?}", &arch[arch.len() - 3..]);
    assert_eq!(&arch[2..], ["ours", "theirs", "ours 2"]);
    // The runtime rewrites the file without our two writes: both come back.
    let text = fs::read(&path).unwrap();
    let cut = memchr::memmem::find(&text, b"- [20")
        .map(|_| ())
        .and(Some(before as usize + 1))
        .unwrap();
    let mut base = text[..cut].to_vec();
    base.extend_from_slice(b"- [2026-01-01 00:00:10] runtime\n");
    let tmp = path.with_extension("java-tmp");
    fs::write(&tmp, &base).unwrap();
    fs::rename(&tmp, &path).unwrap();
    let arch: Vec<_> = s
        .load_all(&owner)
        .unwrap()
        .archival
        .into_iter()
        .map(|e| e.content)
        .collect();
    assert!(
        arch.contains(&"ours".to_string()) && arch.contains(&"ours 2".to_string()),
        "{:?}",
        &arch[2..]
    );
}

#[test]
fn concurrent_appends_lose_nothing() {
    let (_d, s) = store();
    let s = std::sync::Arc::new(s);
    let owner = Owner::Agent("c".into());
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let s = s.clone();
            let owner = owner.clone();
            std::thread::spawn(move || {
                for i in 0..20 {
                    let scope = if i % 5 == 0 {
                        Scope::Core
                    } else {
                        Scope::Archival
                    };
                    s.append(&owner, scope, &format!("t{t} i{i}"), None)
                        .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let all = s.load_all(&owner).unwrap();
    assert_eq!(all.core.len() + all.archival.len(), 160);
    assert_eq!(all.core.len(), 32);
}
