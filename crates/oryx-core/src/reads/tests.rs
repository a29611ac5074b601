use std::sync::Arc;

use super::*;
use crate::memory::curation::{Action, Target};
use crate::memory::{LongTermMemoryStore, MarkdownMemoryStore, MemoryService};
use crate::names::Owner;
use crate::timefmt::{local_to_epoch_ms, now_local};

struct Fixture {
    _dir: tempfile::TempDir,
    store: Arc<dyn LongTermMemoryStore>,
    svc: MemoryService,
}

fn at(s: &str) -> NaiveDateTime {
    parse_entry_ts(s).unwrap()
}

fn ms(s: &str) -> i64 {
    local_to_epoch_ms(&at(s))
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn LongTermMemoryStore> = Arc::new(MarkdownMemoryStore::new(dir.path()));
        let svc = MemoryService::new(store.clone(), 4000);
        Fixture {
            _dir: dir,
            store,
            svc,
        }
    }

    fn add(&self, scope: Scope, text: &str, when: &str) {
        self.store
            .append(&Owner::Global, scope, text, Some(at(when)))
            .unwrap();
    }

    fn receipts(&self, rule: WindowRule, timeline: &Timeline) -> Receipts {
        let now = self.store.load_all(&Owner::Global).unwrap();
        let history = self.svc.history(&Owner::Global, None).unwrap().changes;
        receipts(
            &Memory {
                now: &now,
                history: &history,
                rule,
            },
            timeline,
        )
    }
}

fn session(id: &str, prompts: &[i64], recalls: Vec<Recall>) -> SessionReads {
    SessionReads {
        session_id: id.into(),
        turns: vec![Turn {
            number: 1,
            prompts: prompts.to_vec(),
            estimated: false,
            user: None,
        }],
        recalls,
    }
}

fn recall(at_ms: i64, lines: &[&str]) -> Recall {
    Recall {
        invocation_id: 1,
        at_ms,
        keyword: Some("k".into()),
        lines: lines.iter().map(|l| l.to_string()).collect(),
        turn: Some(0),
    }
}

fn by_content<'r>(r: &'r Receipts, content: &str) -> &'r Receipt {
    r.entries.iter().find(|e| e.content == content).unwrap()
}

#[test]
fn prompts_read_core_and_the_window_of_their_moment() {
    let f = Fixture::new();
    f.add(Scope::Core, "用户叫小林", "2026-01-01 09:00:00");
    f.add(Scope::Archival, "一", "2026-01-02 09:00:00");
    f.add(Scope::Archival, "二", "2026-01-03 09:00:00");
    f.add(Scope::Archival, "三", "2026-01-04 09:00:00");
    f.add(Scope::Archival, "后来", "2026-02-01 09:00:00");
    let timeline = Timeline {
        sessions: vec![
            session("s1", &[ms("2026-01-03 10:00:00")], vec![]),
            session(
                "s2",
                &[ms("2026-01-05 10:00:00"), ms("2026-01-05 10:00:01")],
                vec![recall(
                    ms("2026-01-05 10:00:02"),
                    &["- [2026-01-02 09:00:00] 一", "不是条目"],
                )],
            ),
        ],
    };
    let r = f.receipts(WindowRule::NewestRows { rows: 2 }, &timeline);
    assert_eq!((r.prompts, r.recalls, r.sessions), (3, 1, 2));
    let core = by_content(&r, "用户叫小林");
    assert_eq!((core.prompts, core.sessions), (3, 2));
    let one = by_content(&r, "一");
    assert_eq!((one.prompts, one.recalls, one.sessions), (1, 1, 2));
    assert_eq!(one.first_read, Some(at("2026-01-03 10:00:00")));
    assert_eq!(one.last_read, Some(at("2026-01-05 10:00:02")));
    assert_eq!(one.last_prompt, Some(at("2026-01-03 10:00:00")));
    assert_eq!(by_content(&r, "二").prompts, 3);
    assert_eq!(by_content(&r, "三").prompts, 2);
    let later = by_content(&r, "后来");
    assert_eq!(
        (later.prompts, later.recalls, later.last_read),
        (0, 0, None)
    );
    assert!(later.unread_for(at("2026-02-02 00:00:00"), 90));
    assert!(!one.unread_for(at("2026-02-02 00:00:00"), 90));
    assert!(one.unread_for(at("2026-06-02 00:00:00"), 90));
}

#[test]
fn the_markdown_tail_counts_an_entry_it_cuts_into() {
    let f = Fixture::new();
    f.add(Scope::Archival, "aaaaaaaaaa", "2026-01-02 09:00:00");
    f.add(Scope::Archival, "bbbb", "2026-01-03 09:00:00");
    // "- [2026-01-03 09:00:00] bbbb" is 28 units; 30 reach the break and one unit of the first.
    let timeline = Timeline {
        sessions: vec![session("s", &[ms("2026-01-04 00:00:00")], vec![])],
    };
    let r = f.receipts(WindowRule::TailUnits { units: 30 }, &timeline);
    assert_eq!(by_content(&r, "aaaaaaaaaa").prompts, 1);
    let r = f.receipts(WindowRule::TailUnits { units: 29 }, &timeline);
    assert_eq!(by_content(&r, "aaaaaaaaaa").prompts, 0);
    assert_eq!(by_content(&r, "bbbb").prompts, 1);
}

#[test]
fn an_edit_leaves_earlier_reads_with_the_id_the_entry_had() {
    let f = Fixture::new();
    f.add(Scope::Archival, "旧的说法", "2026-01-02 09:00:00");
    let before = now_local() - Duration::seconds(5);
    let all = f.store.load_all(&Owner::Global).unwrap();
    let old_id = all.id(Scope::Archival, 0).unwrap();
    f.svc
        .change(
            &Owner::Global,
            &[Target {
                id: old_id.clone(),
                expect: Some("旧的说法".into()),
            }],
            &Action::Edit {
                content: "新的说法".into(),
                restamp: false,
            },
        )
        .unwrap();
    let after = now_local() + Duration::seconds(5);
    let timeline = Timeline {
        sessions: vec![session(
            "s",
            &[
                local_to_epoch_ms(&before),
                local_to_epoch_ms(&after),
                local_to_epoch_ms(&(after + Duration::seconds(1))),
            ],
            vec![recall(
                local_to_epoch_ms(&before) + 1,
                &["- [2026-01-02 09:00:00] 旧的说法"],
            )],
        )],
    };
    let r = f.receipts(WindowRule::NewestRows { rows: 100 }, &timeline);
    let new = by_content(&r, "新的说法");
    assert!(new.exists_now && new.id != old_id);
    assert_eq!((new.prompts, new.recalls), (2, 0));
    let old = r.entries.iter().find(|e| e.id == old_id).unwrap();
    assert!(!old.exists_now);
    assert_eq!((old.prompts, old.recalls), (1, 1));
    assert_eq!(r.entries.last().unwrap().id, old_id);
}

#[test]
fn a_turn_lists_its_window_and_recalls() {
    let f = Fixture::new();
    f.add(Scope::Core, "核心", "2026-01-01 09:00:00");
    f.add(Scope::Archival, "一", "2026-01-02 09:00:00");
    f.add(Scope::Archival, "二", "2026-01-03 09:00:00");
    let timeline = Timeline {
        sessions: vec![session(
            "s",
            &[ms("2026-01-02 10:00:00"), ms("2026-01-03 10:00:00")],
            vec![recall(ms("2026-01-03 10:00:01"), &["一", "nothing"])],
        )],
    };
    let now = f.store.load_all(&Owner::Global).unwrap();
    let mem = Memory {
        now: &now,
        history: &[],
        rule: WindowRule::NewestRows { rows: 1 },
    };
    let turns = turn_reads(&mem, &timeline, "s").unwrap();
    let t = &turns[0];
    assert_eq!((t.turn, t.prompts), (1, 2));
    assert_eq!(t.at, Some(at("2026-01-02 10:00:00")));
    let read: Vec<&str> = t.window.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(read, ["核心", "一", "二"]);
    assert_eq!(t.recalls[0].entries[0].content, "一");
    assert_eq!(t.recalls[0].unmatched, ["nothing"]);
    assert!(turn_reads(&mem, &timeline, "other").is_none());
}

/// The walk forward agrees with rebuilding memory as of each prompt.
#[test]
fn the_walk_agrees_with_as_of_at_every_prompt() {
    use crate::portable::asof;
    let f = Fixture::new();
    for i in 0..30u32 {
        let when = format!("2026-01-{:02} 09:00:00", i % 28 + 1);
        f.add(
            Scope::Archival,
            &format!("条目{i}{}", "x".repeat(i as usize % 7)),
            &when,
        );
    }
    let then = now_local() - Duration::seconds(3);
    // A delete and an edit after `then`.
    for (i, action) in [
        (3usize, Action::Delete),
        (
            7,
            Action::Edit {
                content: "改过".into(),
                restamp: false,
            },
        ),
    ] {
        let all = f.store.load_all(&Owner::Global).unwrap();
        let id = all.id(Scope::Archival, i).unwrap();
        let expect = all.archival[i].content.clone();
        f.svc
            .change(
                &Owner::Global,
                &[Target {
                    id,
                    expect: Some(expect),
                }],
                &action,
            )
            .unwrap();
    }
    let rule = WindowRule::TailUnits { units: 200 };
    let moments: Vec<NaiveDateTime> = (1..29)
        .map(|d| at(&format!("2026-01-{d:02} 12:00:00")))
        .chain([then, now_local() + Duration::seconds(5)])
        .collect();
    let now = f.store.load_all(&Owner::Global).unwrap();
    let history = f.svc.history(&Owner::Global, None).unwrap().changes;
    let mem = Memory {
        now: &now,
        history: &history,
        rule,
    };
    for m in moments {
        let timeline = Timeline {
            sessions: vec![session("s", &[local_to_epoch_ms(&m)], vec![])],
        };
        let turns = turn_reads(&mem, &timeline, "s").unwrap();
        let got: Vec<String> = turns[0].window.iter().map(|e| e.content.clone()).collect();
        let items = asof::as_of(&now, &history, m);
        let archival: Vec<Entry> = items
            .iter()
            .filter(|i| i.scope == Scope::Archival)
            .map(|i| Entry::new(i.timestamp, i.content.clone()))
            .collect();
        let w = window::apply(&archival, rule);
        let want: Vec<String> = archival[w.first_in_window..w.end_in_window]
            .iter()
            .map(|e| e.content.clone())
            .collect();
        assert_eq!(got, want, "at {m}");
    }
}
