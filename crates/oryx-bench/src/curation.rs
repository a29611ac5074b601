//! The `curation` group: deleting one entry of the big MEMORY.md and undoing it, each against
//! `cp` of the same file (both read and write the whole file once), and listing a history of
//! 10 000 changes.

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use oryx_core::memory::change::{EntryDiff, EntrySnap};
use oryx_core::memory::curation::{Action, Target};
use oryx_core::memory::history::{Change, History, Op};
use oryx_core::memory::{LongTermMemoryStore, MarkdownMemoryStore, MemoryService, Scope};
use oryx_core::names::Owner;

use crate::{gen, human, mb, median, Bench};

fn cp(from: &std::path::Path, to: &std::path::Path) -> Duration {
    let t = Instant::now();
    let ok = Command::new("cp").arg(from).arg(to).status().unwrap();
    assert!(ok.success());
    t.elapsed()
}

impl Bench {
    pub fn curation(&mut self) {
        let runs = self.scale.runs.max(3);
        let big_file = self.data.memory(gen::BIG);
        let label = mb(std::fs::metadata(&big_file).unwrap().len());
        let work = self.data.dir.join("work-curation");
        let _ = std::fs::remove_dir_all(&work);
        let root = work.join("root");
        let copy = oryx_core::names::memory_path(&root, &Owner::Global);
        std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
        std::fs::copy(&big_file, &copy).unwrap();
        let store: Arc<dyn LongTermMemoryStore> = Arc::new(MarkdownMemoryStore::new(&root));
        let svc = MemoryService::new(store.clone(), 4000);
        let g = Owner::Global;
        // A mid-file entry, named as the console names it (its id and content).
        let all = store.load_all(&g).unwrap();
        let mid = all.archival.len() / 2;
        let target = Target {
            id: all.id(Scope::Archival, mid).unwrap(),
            expect: Some(all.archival[mid].content.clone()),
        };
        drop(all);
        // One settled read first: the file was copied in, as another writer would leave it.
        svc.build_context(&g).unwrap();
        let scratch = work.join("cp-target");
        let mut deletes = Vec::new();
        let mut undos = Vec::new();
        let mut cps = Vec::new();
        for _ in 0..runs {
            cps.push(cp(&copy, &scratch));
            let t = Instant::now();
            svc.change(&g, std::slice::from_ref(&target), &Action::Delete)
                .unwrap();
            deletes.push(t.elapsed());
            let t = Instant::now();
            svc.undo(&g, None).unwrap();
            undos.push(t.elapsed());
        }
        let med = |v: &mut Vec<Duration>| {
            v.sort();
            v[v.len() / 2]
        };
        let (del, undo, copy_t) = (med(&mut deletes), med(&mut undos), med(&mut cps));
        self.ratio_row(
            "curation_delete_vs_cp",
            format!("delete one entry of a {label} MEMORY.md ÷ cp of that file"),
            2.0,
            del,
            copy_t,
            "",
        );
        self.ratio_row(
            "curation_undo_vs_cp",
            "undo that delete ÷ cp of that file".to_string(),
            2.0,
            undo,
            copy_t,
            "",
        );
        let history_bytes = std::fs::metadata(oryx_core::memory::history::history_path(&copy))
            .map_or(0, |m| m.len());
        self.notes.push(format!(
            "curation: the history of {} deletes and undos on the {label} file takes {} bytes \
             (the changes, not copies of the file)",
            runs * 2,
            history_bytes
        ));

        // History listing: 10 000 changes of a few entries each.
        let hist_root = work.join("hist");
        let hist_file = oryx_core::names::memory_path(&hist_root, &Owner::Global);
        std::fs::create_dir_all(hist_file.parent().unwrap()).unwrap();
        std::fs::write(&hist_file, "## 核心记忆\n## 归档记忆\n").unwrap();
        let h = History::beside(&hist_file);
        let n = 10_000;
        // Written in one go (as 10 000 console changes would have left it, without their
        // fsyncs); its first change through the real writer checks the format agrees.
        let mut lines = String::new();
        for i in 0..n {
            let snap = |c: &str| EntrySnap {
                id: format!("a{i}-0000abcd"),
                scope: Scope::Archival,
                timestamp: Some("2026-07-22 09:31:10".into()),
                content: c.to_string(),
                line: format!("- [2026-07-22 09:31:10] {c}"),
                raw: None,
            };
            let c = Change {
                id: format!("{:013}-{i:06}", 1_780_000_000_000i64 + i),
                at: 1_780_000_000_000 + i,
                op: if i % 3 == 0 { Op::Edit } else { Op::Delete },
                owner: "__global__".into(),
                reverts: None,
                entries: vec![EntryDiff {
                    before: Some(snap(&format!(
                        "entry {i} before the change, a typical line"
                    ))),
                    after: (i % 3 == 0).then(|| snap(&format!("entry {i} after"))),
                }],
                splices: Vec::new(),
                pid: 0,
                len_after: None,
                forgotten: None,
            };
            if i == 0 {
                h.intent(&c).unwrap();
                h.commit(&c.id).unwrap();
                continue;
            }
            let mut v = serde_json::to_value(&c).unwrap();
            v["state"] = "intent".into();
            lines.push_str(&v.to_string());
            lines.push('\n');
            lines.push_str(&serde_json::json!({"state": "commit", "id": c.id}).to_string());
            lines.push('\n');
        }
        {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(h.path())
                .unwrap();
            f.write_all(lines.as_bytes()).unwrap();
        }
        let hsvc = MemoryService::new(Arc::new(MarkdownMemoryStore::new(&hist_root)), 4000);
        let t = median(runs, || {
            let v = hsvc.history(&g, Some(50)).unwrap();
            assert_eq!(v.total, n as usize);
        });
        self.absolute_row(
            "curation_history_10k",
            format!(
                "history of {} changes: the newest 50 and what undo/redo would do",
                human(n as usize)
            ),
            50.0,
            t,
            "",
        );
        let _ = std::fs::remove_dir_all(&work);
    }
}
