//! Recall checks run after the change that moves them while someone follows the console's
//! changes: a delete of the entry a check expects is followed by a `checks` change, and the
//! check is listed broken by that run — without anyone listing the checks in between. A fill of
//! the runtime's vector index runs them again when it ends.

use std::time::{Duration, Instant};

use oryx_api::recall_checks::{AddRecallCheckArgs, RecallChecksArgs};
use oryx_api::watch::{ChangeEvent, ChangeKind};
use oryx_api::{ops, Console};
use oryx_core::config::Overrides;
use serde_json::json;

fn demo_console(dir: &std::path::Path) -> Console {
    let inst = dir.join("inst");
    oryx_core::demo::write_install(&inst).unwrap();
    Console::open(
        Some(dir.join("console/settings.json")),
        Overrides {
            root: Some(inst.join(".oryxos")),
            ..Overrides::default()
        },
    )
    .unwrap()
}

/// Receives until `want` arrives (at most 20 s).
fn until(rx: &oryx_api::watch::Subscription, want: &ChangeEvent) -> Vec<ChangeEvent> {
    let end = Instant::now() + Duration::from_secs(20);
    let mut got = Vec::new();
    while !got.contains(want) {
        let left = end
            .checked_duration_since(Instant::now())
            .unwrap_or_else(|| panic!("{want:?} not received; got {got:?}"));
        if let Ok(e) = rx.recv_timeout(left) {
            got.push(e);
        }
    }
    got
}

fn checks_of(agent: &str) -> ChangeEvent {
    ChangeEvent {
        kind: ChangeKind::Checks,
        agent: Some(agent.into()),
    }
}

#[test]
fn a_fill_of_the_runtime_index_runs_the_checks_again() {
    let dir = tempfile::tempdir().unwrap();
    let c = demo_console(dir.path());
    let (view, _) = ops::call_json(&c, "memory_view", json!({"agent": "assistant"})).unwrap();
    let id = view["archival"][0]["id"].as_str().unwrap().to_string();
    c.add_recall_check(&AddRecallCheckArgs {
        agent: Some("assistant".into()),
        question: "日志".into(),
        expect: vec![id],
    })
    .unwrap();
    let rx = c.subscribe();
    ops::call_json(&c, "fill_runtime_index", json!({"dry_run": false})).unwrap();
    until(&rx, &checks_of("assistant"));
}

#[test]
fn a_delete_that_breaks_a_check_is_heard_as_a_checks_change() {
    let dir = tempfile::tempdir().unwrap();
    let c = demo_console(dir.path());
    let plate = "用户的车牌号是 沪A-12345";
    ops::call_json(
        &c,
        "append_memory",
        json!({"agent": "assistant", "scope": "archival", "content": plate}),
    )
    .unwrap();
    let (view, _) = ops::call_json(&c, "memory_view", json!({"agent": "assistant"})).unwrap();
    let id = view["archival"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["content"] == plate)
        .map(|e| e["id"].as_str().unwrap().to_string())
        .unwrap();
    let kept = c
        .add_recall_check(&AddRecallCheckArgs {
            agent: Some("assistant".into()),
            question: "沪A-12345".into(),
            expect: vec![id.clone()],
        })
        .unwrap();
    assert_eq!(kept.checks[0].passed, Some(true), "{kept:?}");

    let rx = c.subscribe();
    ops::call_json(
        &c,
        "delete_entries",
        json!({"agent": "assistant", "entries": [{"id": id}]}),
    )
    .unwrap();
    until(&rx, &checks_of("assistant"));
    // The runner ran it: listing runs nothing more and shows it broken by that run.
    let listed = c
        .recall_checks(&RecallChecksArgs {
            agent: Some("assistant".into()),
            force: false,
        })
        .unwrap();
    assert_eq!(listed.ran, 0, "{listed:?}");
    let check = &listed.checks[0];
    assert!(check.broken && check.just_broke, "{check:?}");
    assert_eq!(check.changes[0].op, "delete");
    let health = c.agents_health().unwrap();
    let row = health.iter().find(|h| h.agent == "assistant").unwrap();
    assert_eq!(row.broken_checks, 1);
}
