//! `oryx memory reads` on the sample install: a session planted after an entry was written
//! (with the model call the runtime records) reads it in its prompt, a planted recall_memory
//! call returns it, and an entry written after every session was never read.

use std::io::Write;

use serde_json::Value;

use crate::common::demo_install::DemoInstall;

fn entry<'a>(reads: &'a Value, id: &str) -> &'a Value {
    reads["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .unwrap_or_else(|| panic!("{id} not in {reads}"))
}

#[test]
fn reads_count_prompts_and_recalls_and_say_never_read() {
    let inst = DemoInstall::new();
    let added = inst.json(&[
        "memory",
        "add",
        "--agent",
        "assistant",
        "--scope",
        "archival",
        "读回执：会话之前写下的",
    ]);
    let line = added["entry"]["line"].as_str().unwrap().to_string();
    let written = added["entry"]["timestamp"].as_str().unwrap().to_string();
    let at = chrono::NaiveDateTime::parse_from_str(&written, "%Y-%m-%d %H:%M:%S").unwrap();
    let ms = |t: chrono::NaiveDateTime| oryx_core::timefmt::local_to_epoch_ms(&t);

    // A session a minute later: one turn, one recall, two model calls as the runtime records
    // them (each row written after its answer).
    let db = inst.dir.join("oryxos.db");
    let sid = "cli:reads:assistant";
    let later = at + chrono::Duration::minutes(1);
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let messages = serde_json::json!([
            {"role": "user", "content": "我之前说过什么？"},
            {"role": "assistant", "content": null, "toolCalls": [{"id": "c1", "name": "recall_memory", "argumentsJson": "{\"keyword\":\"读回执\"}"}]},
            {"role": "tool", "content": line, "toolName": "recall_memory", "toolCallId": "c1"},
            {"role": "assistant", "content": "你说过……"}
        ]);
        conn.execute(
            "INSERT INTO sessions(session_id, profile_name, channel, user_id, messages_json, \
             status, created_at, last_active_at) VALUES (?1, 'assistant', 'cli', 'reads', ?2, \
             'active', ?3, ?4)",
            rusqlite::params![sid, messages.to_string(), ms(later), ms(later) + 10_000],
        )
        .unwrap();
        for (sent, duration) in [(ms(later), 800), (ms(later) + 5_000, 900)] {
            conn.execute(
                "INSERT INTO llm_calls(session_id, provider, model, success, duration_ms, \
                 created_at) VALUES (?1, 'p', 'm', 1, ?2, ?3)",
                rusqlite::params![sid, duration, sent + duration],
            )
            .unwrap();
        }
        conn.execute(
            "INSERT INTO tool_invocations(session_id, tool_name, input_json, result_json, \
             success, duration_ms, created_at) VALUES (?1, 'recall_memory', ?2, ?3, 1, 3, ?4)",
            rusqlite::params![
                sid,
                r#"{"keyword":"读回执"}"#,
                serde_json::to_string(&line).unwrap(),
                ms(later) + 2_000
            ],
        )
        .unwrap();
    }
    // An entry written after every session: a day later, as the runtime appends it.
    let after = at + chrono::Duration::days(1);
    let md = inst.root().join("agents/assistant/MEMORY.md");
    let mut f = std::fs::OpenOptions::new().append(true).open(&md).unwrap();
    writeln!(
        f,
        "- [{}] 读回执：会话之后写下的",
        after.format("%Y-%m-%d %H:%M:%S")
    )
    .unwrap();
    drop(f);

    let all = inst.json(&["memory", "reads", "--agent", "assistant"]);
    let entries = all["entries"].as_array().unwrap();
    let id_of = |needle: &str| {
        entries
            .iter()
            .find(|e| e["content"].as_str().unwrap().contains(needle))
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (before_id, after_id) = (id_of("会话之前"), id_of("会话之后"));

    let r = inst.json(&[
        "memory",
        "reads",
        "--agent",
        "assistant",
        &before_id,
        &after_id,
    ]);
    assert_eq!(r["entries"].as_array().unwrap().len(), 2);
    let before = entry(&r, &before_id);
    assert_eq!(before["prompts"], 2, "{before}");
    assert_eq!(before["recalls"], 1, "{before}");
    let last = (later + chrono::Duration::seconds(5))
        .format("%Y-%m-%d %H:%M:%S")
        .to_string();
    assert_eq!(before["lastRead"], last.as_str());
    assert_eq!(before["unread"], false);
    let never = entry(&r, &after_id);
    assert_eq!(
        (&never["prompts"], &never["recalls"]),
        (&0.into(), &0.into())
    );
    assert!(never["lastRead"].is_null(), "{never}");
    assert_eq!(never["unread"], true);

    // The sample's own sessions (no model calls recorded) read the core entries, by estimate.
    assert!(all["estimatedSessions"].as_u64().unwrap() > 0);
    let core_read = entries
        .iter()
        .filter(|e| e["scope"] == "core")
        .all(|e| e["prompts"].as_u64().unwrap() > 0);
    assert!(core_read, "{all}");

    // Text, CSV and an unknown id.
    let text = String::from_utf8(
        inst.run(&["memory", "reads", "--agent", "assistant"])
            .stdout,
    )
    .unwrap();
    assert!(text.contains("(unread)"), "{text}");
    let csv = String::from_utf8(
        inst.run(&["memory", "reads", "--agent", "assistant", "--csv"])
            .stdout,
    )
    .unwrap();
    assert!(csv.starts_with("id,scope,timestamp,content,"), "{csv}");
    assert!(csv.contains(&before_id));
    let out = crate::common::oryx(&inst.config())
        .args(["--root", inst.root().to_str().unwrap()])
        .args(["memory", "reads", "--agent", "assistant", "a9999-00000000"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}
