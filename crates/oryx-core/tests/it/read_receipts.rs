//! Read receipts over a runtime install built by code: an agent's MEMORY.md, its sessions with
//! the model calls the runtime recorded for them, and a `recall_memory` call.

use oryx_core::memory::window::{WindowRule, RUNTIME_ARCHIVAL_UNITS};
use oryx_core::memory::{LongTermMemoryStore, MarkdownMemoryStore};
use oryx_core::names::Owner;
use oryx_core::reads::{self, Memory, Timeline};
use oryx_core::sessions::{NewInvocation, NewSession, SessionStore};
use oryx_core::timefmt::{local_to_epoch_ms, parse_entry_ts};

fn ms(s: &str) -> i64 {
    local_to_epoch_ms(&parse_entry_ts(s).unwrap())
}

#[test]
fn prompts_and_recalls_of_an_install_reach_the_entries_of_their_moment() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join(".oryxos");
    let dir = root.join("agents/assistant");
    std::fs::create_dir_all(&dir).unwrap();
    // Enough archival text that the runtime's window (its last 4000 UTF-16 units) leaves out
    // the oldest entries.
    let mut text = String::from(
        "# 长期记忆\n\n## 核心记忆\n- [2026-03-01 08:00:00] 用户叫小林\n\n## 归档记忆\n",
    );
    for i in 0..120 {
        text.push_str(&format!(
            "- [2026-03-02 {:02}:{:02}:00] 第{i}条：{}\n",
            i / 60,
            i % 60,
            "记".repeat(40)
        ));
    }
    text.push_str("- [2026-04-01 09:00:00] 会话之后才记下的\n");
    std::fs::write(dir.join("MEMORY.md"), &text).unwrap();

    let db = t.path().join("oryxos.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    oryx_core::runtime::schema::create(&conn).unwrap();
    let store = SessionStore::new(&db);
    let messages = serde_json::json!([
        {"role": "user", "content": "我以前说过什么？"},
        {"role": "assistant", "content": null, "toolCalls": [{"id": "c1", "name": "recall_memory", "argumentsJson": "{\"keyword\":\"第0条\"}"}]},
        {"role": "tool", "content": "…", "toolName": "recall_memory", "toolCallId": "c1"},
        {"role": "assistant", "content": "你说过……"}
    ]);
    store
        .insert_session(&NewSession {
            session_id: "cli:u:assistant".into(),
            agent: Some("assistant".into()),
            channel: Some("cli".into()),
            user_id: Some("u".into()),
            messages_json: messages.to_string(),
            status: "active".into(),
            created_at_ms: ms("2026-03-10 10:00:00"),
            last_active_at_ms: ms("2026-03-10 10:05:00"),
            archived_at_ms: None,
        })
        .unwrap();
    // Two model calls (one before the recall, one after), recorded after their answers.
    for (sent, duration) in [("2026-03-10 10:00:01", 900), ("2026-03-10 10:00:05", 1200)] {
        conn.execute(
            "INSERT INTO llm_calls(session_id, provider, model, success, duration_ms, created_at) \
             VALUES ('cli:u:assistant', 'p', 'm', 1, ?1, ?2)",
            rusqlite::params![duration, ms(sent) + duration],
        )
        .unwrap();
    }
    let oldest = "- [2026-03-02 00:00:00] 第0条：".to_string() + &"记".repeat(40);
    store
        .record_invocation(&NewInvocation {
            session_id: "cli:u:assistant".into(),
            tool_name: "recall_memory".into(),
            input_json: r#"{"keyword":"第0条"}"#.into(),
            result_json: Some(serde_json::to_string(&oldest).unwrap()),
            success: true,
            error_message: None,
            duration_ms: 4,
            created_at_ms: Some(ms("2026-03-10 10:00:03")),
        })
        .unwrap();

    let owner = Owner::Agent("assistant".into());
    let now = MarkdownMemoryStore::new(&root).load_all(&owner).unwrap();
    let timeline = Timeline::load(&store, Some("assistant")).unwrap();
    let mem = Memory {
        now: &now,
        history: &[],
        rule: WindowRule::TailUnits {
            units: RUNTIME_ARCHIVAL_UNITS,
        },
    };
    let r = reads::receipts(&mem, &timeline);
    assert_eq!((r.sessions, r.prompts, r.recalls), (1, 2, 1));
    assert_eq!(r.estimated_sessions, 0);
    let find = |needle: &str| {
        r.entries
            .iter()
            .find(|e| e.content.contains(needle))
            .unwrap()
    };
    assert_eq!(find("用户叫小林").prompts, 2);
    // The oldest entry is outside the window but was recalled.
    let first = find("第0条");
    assert_eq!((first.prompts, first.recalls), (0, 1));
    assert_eq!(first.last_read, parse_entry_ts("2026-03-10 10:00:03"));
    assert_eq!(find("第119条").prompts, 2);
    let later = find("会话之后");
    assert_eq!((later.prompts, later.last_read), (0, None));
    // 4000 units hold about 60 of these 66-unit lines.
    let in_window = r.entries.iter().filter(|e| e.prompts == 2).count();
    assert!((55..70).contains(&in_window), "{in_window}");

    let turns = reads::turn_reads(&mem, &timeline, "cli:u:assistant").unwrap();
    assert_eq!(turns.len(), 1);
    assert_eq!(turns[0].prompts, 2);
    assert!(!turns[0].estimated);
    assert_eq!(turns[0].recalls[0].entries[0].id, first.id);
    assert_eq!(turns[0].window.len(), in_window);
}
