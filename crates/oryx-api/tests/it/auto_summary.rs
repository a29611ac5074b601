//! The automatic summary mode: `propose` turns unsummarised entries outside the
//! window into a health finding; `apply` has the console append the rules' summary itself when
//! the runtime's writes push the count over the threshold — once, undoable, originals kept, and
//! not again after a person undid it.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use oryx_api::health::HealthArgs;
use oryx_api::watch::{ChangeEvent, ChangeKind, Subscription};
use oryx_api::Console;

use crate::common;

fn root(parent: &Path) -> PathBuf {
    common::root_with_agent_a(
        parent,
        "## 核心记忆\n- [2026-01-01 09:00:00] 用户叫小林\n## 归档记忆\n",
    )
}

fn line(day: u32, i: u32) -> String {
    format!(
        "- [2026-01-{day:02} 10:{i:02}:00] 触发「今天天气如何」⇒ 晴，气温 {i} 度，适合出门散步\n"
    )
}

/// What the runtime does: the whole file read, one line added, a temp file renamed over it.
fn runtime_appends(file: &Path, lines: &[String]) {
    let mut text = fs::read_to_string(file).unwrap();
    for l in lines {
        text.push_str(l);
    }
    let tmp = file.with_extension("md.tmp");
    fs::write(&tmp, text).unwrap();
    fs::rename(&tmp, file).unwrap();
}

fn console(dir: &Path, root: &Path, auto: &str) -> Console {
    fs::write(
        dir.join("settings.json"),
        format!(
            r#"{{"archivalLimitChars": 200, "summary": {{"auto": "{auto}", "autoThreshold": 3}}}}"#
        ),
    )
    .unwrap();
    common::console(dir, root)
}

/// Waits (at most 10 s) for a memory event of agent `a`.
fn memory_event(rx: &Subscription) {
    let want = ChangeEvent {
        kind: ChangeKind::Memory,
        agent: Some("a".into()),
    };
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let left = end
            .checked_duration_since(Instant::now())
            .expect("no memory event of agent a within 10 s");
        if rx.recv_timeout(left).ok().as_ref() == Some(&want) {
            return;
        }
    }
}

fn auto_changes(c: &Console) -> Vec<String> {
    c.memory_history(Some("a"), None)
        .unwrap()
        .changes
        .into_iter()
        .filter(|ch| format!("{:?}", ch.op) == "AutoSummary")
        .map(|ch| ch.id)
        .collect()
}

#[test]
fn the_propose_mode_is_a_health_finding_whose_fix_is_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let lines: Vec<String> = (1..=8).map(|i| line(2, i)).collect();
    runtime_appends(&root.join("agents/a/MEMORY.md"), &lines);
    let finding = |auto: &str| {
        let c = console(dir.path(), &root, auto);
        c.memory_health(&HealthArgs {
            agent: Some("a".into()),
            ..HealthArgs::default()
        })
        .unwrap()
        .findings
        .into_iter()
        .find(|f| f.kind == "unsummarised")
    };
    assert_eq!(finding("off"), None);
    let f = finding("propose").expect("a finding over the threshold");
    assert_eq!(f.check, "budget");
    let fix = f.fix.unwrap();
    assert_eq!(fix.op, "summarize");
    assert!(fix.ids.len() > 3, "{fix:?}");
    assert_eq!(fix.ids, f.entry_ids);
}

#[test]
fn the_apply_mode_summarises_what_the_runtime_wrote_once_and_one_undo_takes_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let file = root.join("agents/a/MEMORY.md");
    let c = console(dir.path(), &root, "apply");
    let rx = c.subscribe();

    // Under the threshold: nothing happens.
    runtime_appends(&file, &[line(2, 1), line(2, 2)]);
    memory_event(&rx);
    assert!(auto_changes(&c).is_empty());

    let lines: Vec<String> = (3..=10).map(|i| line(3, i)).collect();
    runtime_appends(&file, &lines);
    let before = fs::read_to_string(&file).unwrap();
    memory_event(&rx);
    let auto = auto_changes(&c);
    assert_eq!(auto.len(), 1, "one automatic summary");
    let after = fs::read_to_string(&file).unwrap();
    assert!(
        after.starts_with(&before),
        "the originals stay, the summary is appended"
    );
    let added = &after[before.len()..];
    assert!(added.contains("〔摘要 2026-01-02～2026-01-03 "), "{added}");
    assert!(added.contains("「今天天气如何」×"), "{added}");

    // The next runtime write finds nothing new outside the window: no second summary.
    runtime_appends(&file, &[line(4, 1)]);
    memory_event(&rx);
    assert_eq!(auto_changes(&c).len(), 1);

    let undone = c.undo_change(Some("a"), Some(&auto[0])).unwrap();
    assert_eq!(undone.reverts.as_deref(), Some(auto[0].as_str()));
    let text = fs::read_to_string(&file).unwrap();
    assert!(!text.contains("〔摘要"), "{text}");
    assert!(text.starts_with(&before));
    // The person said no: the next runtime write does not bring it back.
    runtime_appends(&file, &[line(5, 1)]);
    memory_event(&rx);
    assert_eq!(auto_changes(&c).len(), 1);
    assert!(!fs::read_to_string(&file).unwrap().contains("〔摘要"));
}
