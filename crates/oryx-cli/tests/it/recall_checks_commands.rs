//! `oryx checks` on the sample install: a kept question runs with the runtime's engine, a
//! delete of the entry it expects breaks it and names that change, undo mends it; a check on a
//! core entry or an unknown id is refused; `checks run` exits 1 while one fails; memory health
//! hints at a broken check; a migration with `--switch` carries the checks to the new backend.

use serde_json::Value;

use crate::common::demo_install::DemoInstall;
use crate::common::oryx;

fn check<'a>(list: &'a Value, question: &str) -> &'a Value {
    list["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["question"] == question)
        .unwrap_or_else(|| panic!("no check {question} in {list}"))
}

#[test]
fn a_check_breaks_with_the_change_that_moved_its_answer_and_undo_mends_it() {
    let inst = DemoInstall::new();
    let plate = "用户的车牌号是 沪A-12345";
    inst.run(&[
        "memory",
        "add",
        "--agent",
        "assistant",
        "--scope",
        "archival",
        plate,
    ]);
    let shown = inst.json(&["memory", "show", "--agent", "assistant"]);
    let id = shown["archival"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["content"] == plate)
        .map(|e| e["id"].as_str().unwrap().to_string())
        .unwrap();
    let core = shown["core"][0]["id"].as_str().unwrap().to_string();

    let added = inst.json(&[
        "checks",
        "add",
        "--agent",
        "assistant",
        "--question",
        "沪A-12345",
        "--expect",
        &id,
    ]);
    let c = check(&added, "沪A-12345");
    assert_eq!(c["passed"], true, "{c}");
    assert_eq!(c["expected"][0], id.as_str());
    assert!(c["found"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f == id.as_str()));

    // Refused: a core entry (recall_memory never returns one), an id that is no entry.
    for bad in [core.as_str(), "a999-00000000"] {
        let out = oryx(&inst.config())
            .args(["--root", inst.root().to_str().unwrap()])
            .args(["checks", "add", "--agent", "assistant", "--question", "q"])
            .args(["--expect", bad])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bad} was accepted");
        assert!(String::from_utf8_lossy(&out.stderr).contains("not an archival entry"));
    }

    // The delete breaks it, and the check names the delete (undo takes it back).
    inst.run(&["memory", "delete", "--agent", "assistant", &id]);
    let listed = inst.json(&["checks", "list", "--agent", "assistant"]);
    let c = check(&listed, "沪A-12345");
    assert_eq!(c["passed"], false, "{c}");
    assert_eq!(c["broken"], true);
    assert_eq!(c["gone"][0], id.as_str());
    let change = &c["changes"][0];
    assert_eq!(change["op"], "delete", "{c}");
    assert_eq!(change["undoable"], true);
    let history = inst.json(&["memory", "history", "--agent", "assistant"]);
    assert_eq!(change["id"], history["changes"][0]["id"]);
    let run = oryx(&inst.config())
        .args(["--root", inst.root().to_str().unwrap()])
        .args(["checks", "run", "--agent", "assistant"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "a failing check fails the run");
    assert!(String::from_utf8_lossy(&run.stdout).contains("BROKEN"));

    // Undo brings the entry back, and with it the answer.
    inst.run(&["memory", "undo", "--agent", "assistant"]);
    let listed = inst.json(&["checks", "list", "--agent", "assistant"]);
    let c = check(&listed, "沪A-12345");
    assert_eq!(c["passed"], true, "{c}");
    assert_eq!(c["broken"], false);
    // Nothing changed since: the list does not run it again.
    let again = inst.json(&["checks", "list", "--agent", "assistant"]);
    assert_eq!(again["ran"], 0);
    assert_eq!(check(&again, "沪A-12345")["ran"], c["ran"]);

    // A delete above it moves it (a MEMORY.md id names the position): the check follows it.
    let first = inst.json(&["memory", "show", "--agent", "assistant"])["archival"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    inst.run(&["memory", "delete", "--agent", "assistant", &first]);
    let moved = inst.json(&["checks", "list", "--agent", "assistant"]);
    let c = check(&moved, "沪A-12345");
    assert_eq!(c["passed"], true, "{c}");
    assert_ne!(c["expected"][0], id.as_str(), "{c}");
    assert_eq!(
        c["expected"][0]
            .as_str()
            .unwrap()
            .split_once('-')
            .unwrap()
            .1,
        id.split_once('-').unwrap().1
    );

    let removed = inst.json(&[
        "checks",
        "remove",
        "--agent",
        "assistant",
        c["id"].as_str().unwrap(),
    ]);
    assert!(removed["checks"].as_array().unwrap().is_empty());
}

#[test]
fn a_bare_root_has_no_runtime_to_check_recall_with() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("root");
    let config = t.path().join("console");
    let demo = oryx(&config)
        .args(["demo", "--bare", root.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(demo.status.success(), "{demo:?}");
    let out = oryx(&config)
        .args(["--root", root.to_str().unwrap()])
        .args(["checks", "add", "--agent", "assistant", "--question", "q"])
        .args(["--expect", "a0-00000000"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no runtime reads this root"),
        "{out:?}"
    );
}

const DESK: &str = "用户的工位在 7 楼 A-12";

/// Adds the desk entry and keeps "A-12" as a check expecting it; the entry's id.
fn keep_desk_check(inst: &DemoInstall) -> String {
    inst.run(&[
        "memory",
        "add",
        "--agent",
        "assistant",
        "--scope",
        "archival",
        DESK,
    ]);
    let id = inst.archival_id("assistant", |c| c == DESK);
    inst.run(&[
        "checks",
        "add",
        "--agent",
        "assistant",
        "--question",
        "A-12",
        "--expect",
        &id,
    ]);
    id
}

#[test]
fn memory_health_hints_at_a_broken_check() {
    let inst = DemoInstall::new();
    let id = keep_desk_check(&inst);
    let hints = |inst: &DemoInstall| {
        inst.json(&["memory", "health", "--agent", "assistant"])["hints"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["kind"] == "broken_checks")
            .cloned()
            .collect::<Vec<_>>()
    };
    assert!(hints(&inst).is_empty(), "a passing check is no hint");
    inst.run(&["memory", "delete", "--agent", "assistant", &id]);
    // The check runs when listed (no console follows the changes here), then health says so.
    inst.run(&["checks", "list", "--agent", "assistant"]);
    let h = hints(&inst);
    assert_eq!(h.len(), 1, "{h:?}");
    assert_eq!(h[0]["entry_ids"][0], id.as_str());
    assert!(
        h[0]["reason"].as_str().unwrap().contains("\"A-12\""),
        "{h:?}"
    );
    let text = inst.run(&["memory", "health", "--agent", "assistant"]);
    assert!(String::from_utf8_lossy(&text.stdout)
        .contains("hint [broken_checks]: 1 recall check passed before and fails now"));
}

#[test]
fn a_migration_switches_the_backend_and_carries_the_checks_to_it() {
    let inst = DemoInstall::new();
    keep_desk_check(&inst);
    inst.run(&[
        "migrate",
        "--from",
        "markdown",
        "--to",
        "sqlite",
        "--agent",
        "assistant",
        "--switch",
    ]);
    // `--switch` made sqlite the runtime's backend, which the console follows.
    assert_eq!(inst.json(&["runtime"])["backend"], "sqlite");
    // The check is there (checks are kept per store), expecting the row's id, and passes with
    // the runtime's engine over the rows.
    let listed = inst.json(&["checks", "list", "--agent", "assistant"]);
    let c = check(&listed, "A-12");
    let row = inst.archival_id("assistant", |c| c == DESK);
    assert_eq!(c["expected"][0], row.as_str(), "{c}");
    assert_eq!(c["passed"], true, "{c}");
}

#[test]
fn an_entry_named_twice_is_expected_once() {
    let inst = DemoInstall::new();
    let id = keep_desk_check(&inst);
    let other = inst.archival_id("assistant", |c| c.contains("（第 3 次）"));
    let added = inst.json(&[
        "checks",
        "add",
        "--agent",
        "assistant",
        "--question",
        "工位",
        "--expect",
        &id,
        &other,
        &id,
    ]);
    let c = check(&added, "工位");
    assert_eq!(c["expected"], serde_json::json!([id, other]), "{c}");
}
